# With coredumpd installed: its sysctl.d snippet (not systemd-coredump's) set
# core_pattern to "@@/run/coredump.socket" and coredumpd.socket listens there.
. /usr/lib/coredumpd-tests/lib.sh
need_daemon
[ -S "$SOCK" ] || die "$SOCK is not a socket"
systemctl show -p Listen coredumpd.socket | grep -q "$SOCK" || die "coredumpd.socket does not listen on $SOCK"
! systemctl is-active -q systemd-coredump.socket || die "systemd-coredump.socket is active too"
say "core_pattern=$(cat /proc/sys/kernel/core_pattern)"
