# An ack asking for KERNEL and REJECT at once is refused with
# COREDUMP_MARK_CONFLICTING (4) and no dump is made.
. /usr/lib/coredumpd-tests/lib.sh
crash_with_probe_server bad-flags
grep -q '^mark=4$' "$WORK/probe.out" || die "expected mark 4 (conflicting)"
grep -q 'dump_bytes=0 ' "$WORK/probe.out" || die "kernel sent dump data after a refused ack"
[ "$CORE" = 0 ] || die "parent saw WCOREDUMP after a refused ack"
