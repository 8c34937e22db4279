# bench/run in the suite: a smoke at a size a TCG VM runs quickly (every row at 8 MiB once —
# both systemd-coredump rows too: sdcd with the package's own 50-coredump.conf applied, which
# fails the case when the image has no copy of it, and sdcd-nolimit with core_pipe_limit=0 —,
# 10 REJECT crashes and their floor, a burst of 10).  bench/run on the host boots the VM with
# the full figures through coredumpd.bench.{sizes,reps,reject,burst}= on the kernel command
# line (e.g. coredumpd.bench.sizes=64,512,1024 coredumpd.bench.reps=3).
# It prints the figures; it fails only if a row could not be set up or its dump was not stored.
# About 90 s under TCG; room for a loaded host:
# case-timeout: 300
# Benchmarks run outside CI: the suite runs it only when named (bench/run's boot,
# tests/vm/run --only bench-run).
# only-when-named
. /usr/lib/coredumpd-tests/lib.sh
b=/usr/lib/coredumpd-tests/bench/run
[ -x "$b" ] || skip "bench/ is not installed in this image ($b)"
# bench/run --growth on the host: crashers at once and the crash loop, in place of the rows
# (coredumpd.bench.growth=1 with .crashers, .sizes, .loop, .loop_par, .loop_mib); either on the
# scratch disk with bench/run --store disk (coredumpd.bench.store=disk).
store=$(bench_arg store tmpfs)
if [ "$(bench_arg growth 0)" = 1 ]; then
	exec "$b" --growth --store "$store" --sizes "$(bench_arg sizes 512)" --crashers "$(bench_arg crashers 1,4,16)" \
		--loop "$(bench_arg loop 1000)" --loop-par "$(bench_arg loop_par 1)" --loop-mib "$(bench_arg loop_mib 0)"
fi
exec "$b" --store "$store" --sizes "$(bench_arg sizes 8)" --reps "$(bench_arg reps 1)" --reject "$(bench_arg reject 10)" \
	--burst "$(bench_arg burst 10)"
