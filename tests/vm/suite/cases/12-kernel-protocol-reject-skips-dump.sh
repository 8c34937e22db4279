# COREDUMP_REJECT: no dump data, and the parent sees no WCOREDUMP.
. /usr/lib/coredumpd-tests/lib.sh
s=/run/coredumpd-probe.socket
"$BIN/probe" "$s" reject > "$WORK/probe.out" 2>&1 &
ppid=$!
for _ in $(seq 50); do [ -S "$s" ] && break; sleep 0.1; done
set_core_pattern "@@$s"
crash crasher
wait $ppid
cat "$WORK/probe.out" "$WORK/spawn.out"
grep -q '^mark=0$' "$WORK/probe.out" || die "kernel did not accept the ack"
grep -q 'dump_bytes=0 ' "$WORK/probe.out" || die "kernel sent dump data after REJECT"
[ "$SIGNAL" = 11 ] || die "crasher died of signal $SIGNAL, not SIGSEGV"
[ "$CORE" = 0 ] || die "parent saw WCOREDUMP after REJECT"
