# coredumpd-register.service sets core_pattern only where the kernel speaks the coredump socket
# protocol. On such a kernel (the patched 6.1, upstream) the pattern is coredumpd's; on one
# without it (tests/run-all boots Debian bookworm's own cloud kernel for this case) the pattern is
# left as it was, the unit says why, and a crash still ends normally.
. /usr/lib/coredumpd-tests/lib.sh
reg=$(daemon_path | xargs dirname)/coredumpd-register
[ -x "$reg" ] || die "no $reg"
pat=$(cat /proc/sys/kernel/core_pattern)
say "kernel $(uname -r), core_modes: $(tr '\n' ' ' < /proc/sys/kernel/core_modes 2>/dev/null || echo none), core_pattern: '$pat'"
if "$reg" check 2> "$WORK/why"; then
	[ "$pat" = "@@$SOCK" ] || die "a kernel with the socket, but core_pattern is '$pat'"
	systemctl is-active -q coredumpd-register.service || die "coredumpd-register.service is not active"
	exit 0
fi
say "check: $(cat "$WORK/why")"
[ "$pat" != "@@$SOCK" ] || die "core_pattern points at the socket on a kernel without it"
systemctl is-active -q coredumpd-register.service && die "coredumpd-register.service ran on a kernel without the socket"
journalctl -b -q --no-pager -u coredumpd-register.service | grep -q "has no coredump socket" ||
	die "the journal does not say why: $(journalctl -b -q --no-pager -u coredumpd-register.service | tail -5)"
[ -e /run/coredumpd/core_pattern.previous ] && die "a pattern was saved although none was set"
# A crash goes where the kernel's own pattern says, and ends.
crash crasher
say "crasher ended: $(cat "$WORK/spawn.out")"
