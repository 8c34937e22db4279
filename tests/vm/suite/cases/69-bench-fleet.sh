# only-when-named
# bench/fleet in the VM, booted by bench/run --fleet with tests/vm/run --collector PORT (the
# host's systemd-journal-remote, plain HTTP on its loopback): bytes per crash record as uploaded,
# and a burst of crashes while systemd-journal-upload follows the journal. It prints figures; it
# fails only when the network, the collector or the upload do not work at all. The sizes come from
# the kernel command line (coredumpd.bench.burst=, .wave=, .ratelimit=, .baseline=, .nonce=);
# without them a smoke of 50 crashes in waves of 25.
# case-timeout: 1500
. /usr/lib/coredumpd-tests/lib.sh
b=/usr/lib/coredumpd-tests/bench/fleet
[ -x "$b" ] || skip "bench/ is not installed in this image ($b)"
base=()
[ "$(bench_arg baseline 1)" != 0 ] || base=(--no-baseline)
exec "$b" --burst "$(bench_arg burst 50)" --wave "$(bench_arg wave 25)" \
	--rate-limit-burst "$(bench_arg ratelimit 5)" "${base[@]}" --nonce "$(bench_arg nonce -)"
