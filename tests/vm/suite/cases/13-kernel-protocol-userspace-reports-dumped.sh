# COREDUMP_USERSPACE: no dump data from the kernel, yet the parent is told a
# core was dumped (userspace made it).
. /usr/lib/coredumpd-tests/lib.sh
crash_with_probe_server userspace
grep -q '^mark=0$' "$WORK/probe.out" || die "kernel did not accept the ack"
grep -q 'dump_bytes=0 ' "$WORK/probe.out" || die "kernel sent dump data after USERSPACE"
[ "$CORE" = 1 ] || die "parent did not see WCOREDUMP after USERSPACE"
