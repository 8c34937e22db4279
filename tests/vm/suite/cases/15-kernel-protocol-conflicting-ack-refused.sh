# An ack asking for KERNEL and REJECT at once is refused with
# COREDUMP_MARK_CONFLICTING (4) and no dump is made.
. /usr/lib/coredumpd-tests/lib.sh
s=/run/coredumpd-probe.socket
"$BIN/probe" "$s" bad-flags > "$WORK/probe.out" 2>&1 &
ppid=$!
for _ in $(seq 50); do [ -S "$s" ] && break; sleep 0.1; done
set_core_pattern "@@$s"
crash crasher
wait $ppid
cat "$WORK/probe.out" "$WORK/spawn.out"
grep -q '^mark=4$' "$WORK/probe.out" || die "expected mark 4 (conflicting)"
grep -q 'dump_bytes=0 ' "$WORK/probe.out" || die "kernel sent dump data after a refused ack"
[ "$CORE" = 0 ] || die "parent saw WCOREDUMP after a refused ack"
