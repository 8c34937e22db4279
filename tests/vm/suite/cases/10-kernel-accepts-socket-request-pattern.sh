# The running kernel takes "@@/path" (the socket request protocol) as
# core_pattern and reads it back unchanged; "@/path" (plain socket) too.
. /usr/lib/coredumpd-tests/lib.sh
set_core_pattern "@@/run/coredumpd-probe.socket"
got=$(cat /proc/sys/kernel/core_pattern)
[ "$got" = "@@/run/coredumpd-probe.socket" ] || die "core_pattern reads back '$got'"
echo "@/run/coredumpd-probe.socket" > /proc/sys/kernel/core_pattern || die "kernel refused '@/path'"
got=$(cat /proc/sys/kernel/core_pattern)
[ "$got" = "@/run/coredumpd-probe.socket" ] || die "core_pattern reads back '$got'"
say "kernel $(uname -r) accepts @@ and @ socket patterns"
