# coredumpd-register.service sets core_pattern only where the kernel speaks the coredump socket
# protocol. On such a kernel (the patched 6.1, upstream) the pattern is coredumpd's; on one
# without it (tests/run-all boots Debian bookworm's own cloud kernel for this case) the pattern is
# left as it was, the unit says why, and a crash still ends normally. The raised RLIMIT_CORE follows
# the registration: on such a kernel the service managers' DefaultLimitCORE=infinity is masked in
# /run and the manager reloaded, so that a crashing service writes no "core" file into its working
# directory under the kernel's own pattern, and a login shell keeps Debian's soft 0.
. /usr/lib/coredumpd-tests/lib.sh
reg=$(daemon_path | xargs dirname)/coredumpd-register
[ -x "$reg" ] || die "no $reg"
pat=$(cat /proc/sys/kernel/core_pattern)
say "kernel $(uname -r), core_modes: $(tr '\n' ' ' < /proc/sys/kernel/core_modes 2>/dev/null || echo none), core_pattern: '$pat'"
if "$reg" check 2> "$WORK/why"; then
	[ "$pat" = "@@$SOCK" ] || die "a kernel with the socket, but core_pattern is '$pat'"
	systemctl is-active -q coredumpd-register.service || die "coredumpd-register.service is not active"
	[ -L /run/systemd/system.conf.d/20-coredumpd.conf ] && die "the limit drop-in is masked while coredumpd is the handler"
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

# The limits: Debian's 0 for services started from now on, and no core file in a service's
# working directory; a login shell from a shell with 0 keeps 0.
[ "$(readlink /run/systemd/system.conf.d/20-coredumpd.conf)" = /dev/null ] ||
	die "the service manager's limit drop-in is not masked in /run"
[ "$(readlink /run/systemd/user.conf.d/20-coredumpd.conf)" = /dev/null ] ||
	die "the user managers' limit drop-in is not masked in /run"
soft=$(systemctl show -P DefaultLimitCORESoft)
[ "$soft" = 0 ] || die "the service manager's DefaultLimitCORESoft is '$soft', not 0"
cwd=$WORK/service-cwd
mkdir -p "$cwd"
on_exit "systemctl reset-failed cdt-no-core-file.service 2>/dev/null"
systemd-run --quiet --wait --unit=cdt-no-core-file -p Type=exec -p WorkingDirectory="$cwd" "$BIN/crasher" || true
say "the crashing service: $(systemctl show -P Result cdt-no-core-file.service), LimitCORESoft=$(systemctl show -P LimitCORESoft cdt-no-core-file.service)"
[ "$(systemctl show -P Result cdt-no-core-file.service)" = core-dump ] ||
	[ "$(systemctl show -P Result cdt-no-core-file.service)" = signal ] || die "the crasher did not crash"
[ -z "$(ls -A "$cwd")" ] || die "a core file in the crashing service's working directory: $(ls -l "$cwd")"
limit=$( ( ulimit -S -c 0 && su -l root -c 'ulimit -S -c' ) 2>&1 )
[ "$limit" = 0 ] || die "a login shell has soft RLIMIT_CORE '$limit' on a kernel where coredumpd is not the handler"
