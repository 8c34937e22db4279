# The crash-context probe: its two kprobe targets exist and are not blacklisted on this kernel,
# and the daemon says it attached it (or, on a kernel where it cannot, that it goes on without it).
. /usr/lib/coredumpd-tests/lib.sh
need_daemon
grep -qw arch_do_signal_or_restart /proc/kallsyms || die "no arch_do_signal_or_restart in kallsyms"
sym=
for s in vfs_coredump do_coredump; do
	grep -qE " $s\$" /proc/kallsyms && { sym=$s; break; }
done
[ -n "$sym" ] || die "neither vfs_coredump nor do_coredump in kallsyms"
say "kernel $(uname -r): coredump entry is $sym"
if [ -r /sys/kernel/debug/kprobes/blacklist ]; then
	! grep -qwE "arch_do_signal_or_restart|$sym" /sys/kernel/debug/kprobes/blacklist || die "kprobe target blacklisted"
fi
# Make sure a daemon is running (a crash activates it), then look for its probe line.
add_policy test-probe-attached <<'P'
[Rule]
Name=probe-check
MatchExe=*/uscrash
Action=reject
P
crash uscrash -c wild
journalctl -q --no-pager -b _COMM=coredumpd + SYSLOG_IDENTIFIER=coredumpd 2>/dev/null | grep -i 'probe' | tail -n 3 > "$WORK/probe"
cat "$WORK/probe"
grep -q "Crash-context probe attached (kprobes on arch_do_signal_or_restart and $sym)" "$WORK/probe" ||
	die "the daemon did not attach the probe"
