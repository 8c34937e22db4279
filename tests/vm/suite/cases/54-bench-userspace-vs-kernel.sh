# bench/userspace-vs-kernel in the suite, at a size a TCG VM runs quickly
# (COREDUMPD_BENCH_MIB, default 64): prints the figures; it fails only if a dump fails.
. /usr/lib/coredumpd-tests/lib.sh
b=/usr/lib/coredumpd-tests/bench/userspace-vs-kernel
[ -x "$b" ] || skip "bench/ is not installed in this image ($b)"
exec "$b" "${COREDUMPD_BENCH_MIB:-64}"
