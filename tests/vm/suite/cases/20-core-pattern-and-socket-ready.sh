# With coredumpd installed: coredumpd-register.service (not systemd-coredump's sysctl.d snippet)
# set core_pattern to "@@/run/coredump.socket", saved the one before, and coredumpd.socket listens
# there.
. /usr/lib/coredumpd-tests/lib.sh
need_daemon
[ -S "$SOCK" ] || die "$SOCK is not a socket"
systemctl show -p Listen coredumpd.socket | grep -q "$SOCK" || die "coredumpd.socket does not listen on $SOCK"
! systemctl is-active -q systemd-coredump.socket || die "systemd-coredump.socket is active too"
systemctl is-active -q coredumpd-register.service || die "coredumpd-register.service is not active"
[ -r /run/coredumpd/core_pattern.previous ] || die "the previous core_pattern was not saved"
say "core_pattern=$(cat /proc/sys/kernel/core_pattern), before: $(cat /run/coredumpd/core_pattern.previous)"
