# bench/userspace-vs-kernel in the suite, at a size a TCG VM runs quickly (64 MiB, or
# coredumpd.bench_mib=N on the kernel command line, e.g.
#   tests/vm/run --only bench-userspace-vs-kernel --append coredumpd.bench_mib=512):
# prints the figures; it fails only if a dump fails.
. /usr/lib/coredumpd-tests/lib.sh
b=/usr/lib/coredumpd-tests/bench/userspace-vs-kernel
[ -x "$b" ] || skip "bench/ is not installed in this image ($b)"
mib=$(sed -n 's/.*coredumpd\.bench_mib=\([0-9][0-9]*\).*/\1/p' /proc/cmdline)
exec "$b" "${mib:-${COREDUMPD_BENCH_MIB:-64}}"
