# Wait=yes: the kernel holds the crashing task until coredumpd closes the
# connection, i.e. until the dump is stored: when the parent reaps the child
# the stored file is already complete, and /proc showed the task dumping.
. /usr/lib/coredumpd-tests/lib.sh
need_daemon
add_policy test-wait <<'P'
[Rule]
Name=wait-crasher
MatchExe=*/crasher-wait
Action=kernel
Wait=yes
P
journal_mark
crash crasher-wait -m 16
cat "$WORK/spawn.out"
[ "$CORE" = 1 ] || die "parent did not see WCOREDUMP"
# Right at reaping time, without waiting: the dump must already be in the store.
f=$(store_file_for "$PID")
[ -n "$f" ] || die "dump of pid $PID not stored by the time the task was released: $(store_files)"
[ "${DUMPING_MS:-0}" -gt 0 ] || die "task never seen in CoreDumping state"
e=$(wait_entry "$PID" 30) || die "no journal entry for pid $PID"
cat "$e"
[ "$(field COREDUMPD_ACTION "$e")" = kernel ] || die "COREDUMPD_ACTION is '$(field COREDUMPD_ACTION "$e")'"
