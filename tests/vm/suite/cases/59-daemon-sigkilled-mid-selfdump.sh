# coredumpd SIGKILLed while it writes its own core (Action=userspace, every writable mapping of a
# 160 MiB crasher, which takes a while under TCG): the crasher still ends, no partial file is left,
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
spawn_dumping "$WORK/spawn.out" -- "$BIN/uscrash" -m 160 -n selfdump-kill -c wild
spid=$SPAWN
crasher=$PID
sleep 0.2
say "killing: $(daemon_units)"
daemon_signal KILL
wait $spid || die "crasher did not end after the daemon was killed"
cat "$WORK/spawn.out"
sleep 1
# No partial file: nothing new, unless the self-dump was complete before the kill came (then it is
# the crasher's whole core, under its final name, and the kill missed the window).
new=$(comm -13 <(echo "$before") <(store_files))
if [ -n "$new" ]; then
	[ "$(wc -l <<<"$new")" = 1 ] && grep -q "\.$crasher\." <<<"$new" || die "store changed (partial file?): $new"
	say "the self-dump finished before the kill: $new"
fi
crash crasher
e=$(wait_entry "$PID" 60) || die "crash after the kill was not recorded"
[ "$(field COREDUMPD_RESULT "$e")" = stored ] || die "crash after the kill: $(field COREDUMPD_RESULT "$e")"
