# systemd-journald itself crashes (SIGSEGV). While the kernel dumps it nobody can log: journald takes
# no record, and a daemon that held it past its dump, or blocked on a log line to it, would wait on
# the process it holds. Must hold: the daemon knows the crasher is journald (its unit and the host's
# systemd-journald binary, not its comm), does not hold it past the dump, stores its core and
# writes "coredumpd: systemd-journald[PID] crashed with SIGSEGV, core stored as PATH" to the kernel
# log; journald is back (a new process) and takes and serves new entries; the crash's record
# reaches the journal too, once journald is back; the daemon is the same process, and a root crash
# afterwards is stored.
. /usr/lib/coredumpd-tests/lib.sh
need_daemon
attack_begin

old=$(systemctl show -P MainPID systemd-journald.service)
[ -n "$old" ] && [ "$old" != 0 ] || die "systemd-journald has no main pid"
[ "$(readlink /proc/$old/exe)" = /usr/lib/systemd/systemd-journald ] ||
	[ "$(readlink /proc/$old/exe)" = /lib/systemd/systemd-journald ] || die "journald's exe is $(readlink /proc/$old/exe)"
journal_mark
dmesg_before=$(dmesg | wc -l)
kill -SEGV "$old"

# journald back: a new main process, active.
new=
for _ in $(seq 300); do
	new=$(systemctl show -P MainPID systemd-journald.service)
	[ -n "$new" ] && [ "$new" != 0 ] && [ "$new" != "$old" ] && systemctl is-active -q systemd-journald.service && break
	new=
	sleep 0.2
done
[ -n "$new" ] || die "systemd-journald did not come back within 60 s: $(systemctl status --no-pager systemd-journald 2>&1 | head -15)"
say "journald $old crashed; $new runs"

# The kernel log line.
line=
for _ in $(seq 300); do
	line=$(dmesg | tail -n +"$((dmesg_before + 1))" | grep -F "coredumpd: systemd-journald[$old] crashed with SIGSEGV" | tail -n1)
	[ -n "$line" ] && break
	sleep 0.2
done
[ -n "$line" ] || die "no kernel log line for journald's crash: $(dmesg | tail -n 15)"
say "kmsg: $line"
path=$(sed -n 's/.*, core stored as \(.*\)$/\1/p' <<< "$line")
[ -n "$path" ] || die "the kernel log line names no stored core: $line"
[ -f "$path" ] || die "the core the kernel log names ($path) is not in the store: $(store_files | tail -n 5)"
case $path in "$STORE"/*) ;; *) die "the core is outside the store: $path" ;; esac

# journald works: a new entry is written and read back.
mark="coredumpd-test-journald-back-$$-$RANDOM"
logger -t coredumpd-test "$mark"
got=
for _ in $(seq 100); do
	journalctl -q --no-pager -b -t coredumpd-test 2>/dev/null | grep -qF "$mark" && got=1 && break
	sleep 0.2
done
[ -n "$got" ] || die "journald ($new) does not take new entries"

# The crash's record in the journal as well, once journald is back.
e=$(wait_entry "$old" 60) || die "journald's crash ($old) has no journal record"
[ "$(field COREDUMPD_RESULT "$e")" = stored ] || die "journald's crash record says '$(field COREDUMPD_RESULT "$e")': $(field COREDUMPD_ERROR "$e")"
[ "$(field COREDUMP_UNIT "$e")" = systemd-journald.service ] || die "the record's unit is '$(field COREDUMP_UNIT "$e")'"
# Not held past its dump: the ack had no WAIT (the daemon says so).
journalctl -q --no-pager -b -u coredumpd.service --since=@$SINCE 2>/dev/null | grep -q "systemd-journald crashed: not holding it" ||
	die "the daemon did not say it released journald at its dump"

attack_survived
say "journald's crash stored, in the kernel log and the journal; journald back; daemon $ATTACK_MAIN the same"
