# COREDUMP_REJECT: no dump data, and the parent sees no WCOREDUMP.
. /usr/lib/coredumpd-tests/lib.sh
crash_with_probe_server reject
grep -q '^mark=0$' "$WORK/probe.out" || die "kernel did not accept the ack"
grep -q 'dump_bytes=0 ' "$WORK/probe.out" || die "kernel sent dump data after REJECT"
[ "$SIGNAL" = 11 ] || die "crasher died of signal $SIGNAL, not SIGSEGV"
[ "$CORE" = 0 ] || die "parent saw WCOREDUMP after REJECT"
