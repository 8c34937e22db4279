# Action=userspace: the kernel writes no dump; the parent is still told that a
# core was dumped, and the entry says COREDUMPD_ACTION=userspace.
. /usr/lib/coredumpd-tests/lib.sh
need_daemon
add_policy test-userspace <<'P'
[Rule]
Name=userspace-crasher
MatchExe=*/crasher-user
Action=userspace
P
journal_mark
crash crasher-user
cat "$WORK/spawn.out"
[ "$CORE" = 1 ] || die "parent did not see WCOREDUMP under Action=userspace"
e=$(wait_entry "$PID" 60) || die "no journal entry for pid $PID"
cat "$e"
[ "$(field COREDUMPD_ACTION "$e")" = userspace ] || die "COREDUMPD_ACTION is '$(field COREDUMPD_ACTION "$e")'"
