# COREDUMP_USERSPACE: no dump data from the kernel, yet the parent is told a
# core was dumped (userspace made it).
. /usr/lib/coredumpd-tests/lib.sh
s=/run/coredumpd-probe.socket
"$BIN/probe" "$s" userspace > "$WORK/probe.out" 2>&1 &
ppid=$!
for _ in $(seq 50); do [ -S "$s" ] && break; sleep 0.1; done
set_core_pattern "@@$s"
crash crasher
wait $ppid
cat "$WORK/probe.out" "$WORK/spawn.out"
grep -q '^mark=0$' "$WORK/probe.out" || die "kernel did not accept the ack"
grep -q 'dump_bytes=0 ' "$WORK/probe.out" || die "kernel sent dump data after USERSPACE"
[ "$CORE" = 1 ] || die "parent did not see WCOREDUMP after USERSPACE"
