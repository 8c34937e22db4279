# coredumpd SIGKILLed while a big dump streams in: the crasher still ends, no
# partial file is left in the store, and the next crash re-activates the
# daemon through the socket and is stored.
. /usr/lib/coredumpd-tests/lib.sh
need_daemon
store_settle
before=$(store_files)
journal_mark
spawn_dumping "$WORK/spawn.out" -- "$BIN/crasher-kill" -m 256
spid=$SPAWN
sleep 0.5
units=$(daemon_units)
say "killing: $units"
daemon_signal KILL
wait $spid || die "crasher did not end after the daemon was killed"
cat "$WORK/spawn.out"
sleep 1
after=$(store_files)
[ "$after" = "$before" ] || die "store changed (partial file?): $after"
# Next crash: socket activation brings the daemon back.
crash crasher
e=$(wait_entry "$PID" 60) || die "crash after the kill was not recorded"
f=$(field COREDUMP_FILENAME "$e")
[ -n "$f" ] && [ -f "$f" ] || die "crash after the kill was not stored"
