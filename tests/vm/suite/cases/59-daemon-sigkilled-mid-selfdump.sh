# coredumpd SIGKILLed while it writes its own core (Action=userspace, every writable mapping of a
# 96 MiB crasher, which takes a while under TCG): the crasher still ends, no partial file is left,
# and the next crash re-activates the daemon and is stored.
. /usr/lib/coredumpd-tests/lib.sh
need_daemon
add_policy test-kill-mid-selfdump <<'P'
[Rule]
Name=kill-mid-selfdump
MatchComm=selfdump-kill
Action=userspace
UserspaceDump=all-writable
P
store_settle
before=$(store_files)
journal_mark
spawn_dumping "$WORK/spawn.out" -- "$BIN/uscrash" -m 96 -n selfdump-kill -c wild
spid=$SPAWN
sleep 0.3
say "killing: $(daemon_units)"
daemon_signal KILL
wait $spid || die "crasher did not end after the daemon was killed"
cat "$WORK/spawn.out"
sleep 1
[ "$(store_files)" = "$before" ] || die "store changed (partial file?): $(store_files)"
crash crasher
e=$(wait_entry "$PID" 60) || die "crash after the kill was not recorded"
[ "$(field COREDUMPD_RESULT "$e")" = stored ] || die "crash after the kill: $(field COREDUMPD_RESULT "$e")"
