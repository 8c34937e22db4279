# COREDUMP_WAIT: after the dump, the crashing task is held (alive, not a
# zombie) until the server closes the connection.
. /usr/lib/coredumpd-tests/lib.sh
crash_with_probe_server kernel-wait 3
grep -q '^mark=0$' "$WORK/probe.out" || die "kernel did not accept the ack"
grep -q 'elf=1' "$WORK/probe.out" || die "dump is not an ELF core"
st=$(sed -n 's/.*held_state_end=\(.\).*/\1/p' "$WORK/probe.out")
case $st in
	-|Z|X|'') die "task was gone (state '$st') while the server held the socket" ;;
esac
# spawn polls /proc/PID/status: "CoreDumping: 1" for about the hold time.
[ "${DUMPING_MS:-0}" -ge 2000 ] || die "task was seen dumping only ${DUMPING_MS}ms during a 3 s hold"
[ "$CORE" = 1 ] || die "parent did not see WCOREDUMP"
