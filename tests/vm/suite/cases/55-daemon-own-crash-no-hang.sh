# coredumpd's own crash, with fs.suid_dumpable=2 (systemd hosts set it): a dump of the daemon would
# make the kernel connect to the daemon's own socket while it dies, and nobody would ever ack. The
# daemon ends at once without a core instead, says so in the journal, and the next crash
# re-activates it through the socket and is stored.
. /usr/lib/coredumpd-tests/lib.sh
need_daemon
old=$(cat /proc/sys/fs/suid_dumpable)
echo 2 > /proc/sys/fs/suid_dumpable
on_exit "echo $old > /proc/sys/fs/suid_dumpable"

crash crasher                                   # the daemon is running now
wait_entry "$PID" 60 > /dev/null || die "first crash not recorded"
main=$(systemctl show -P MainPID coredumpd.service)
[ -n "$main" ] && [ "$main" != 0 ] || die "coredumpd.service has no main pid"

journal_mark
kill -SEGV "$main"
for _ in $(seq 200); do kill -0 "$main" 2>/dev/null || break; sleep 0.05; done
kill -0 "$main" 2>/dev/null && die "the daemon did not end within 10 s of its SIGSEGV (waiting on its own dump?)"
grep -q '^CoreDumping:[[:space:]]*1' /proc/"$main"/status 2>/dev/null && die "the daemon is dumping itself"
said=
for _ in $(seq 50); do
	journalctl -q --no-pager -b -u coredumpd.service | grep -q 'coredumpd: fatal signal 11' && said=1 && break
	sleep 0.1
done
[ -n "$said" ] || die "no 'fatal signal 11' line in the daemon's journal"

crash crasher
e=$(wait_entry "$PID" 60) || die "the crash after the daemon's own crash was not recorded (hang?)"
[ "$(field COREDUMPD_RESULT "$e")" = stored ] || die "result '$(field COREDUMPD_RESULT "$e")'"
say "daemon pid $main ended on SIGSEGV without dumping itself; the next crash was stored"
