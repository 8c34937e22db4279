# Protocol check without coredumpd: a minimal server answers COREDUMP_KERNEL;
# the kernel offers KERNEL|USERSPACE|REJECT|WAIT, marks the ack as accepted
# (mark 0), streams an ELF core, and the parent sees WCOREDUMP.
. /usr/lib/coredumpd-tests/lib.sh
crash_with_probe_server kernel
grep -q '^done=1' "$WORK/probe.out" || die "probe did not complete"
mask=$(sed -n 's/.*req_mask=\(0x[0-9a-f]*\).*/\1/p' "$WORK/probe.out")
(( (mask & 0xf) == 0xf )) || die "kernel offers mask $mask, expected KERNEL|USERSPACE|REJECT|WAIT"
grep -q '^mark=0$' "$WORK/probe.out" || die "kernel did not accept the ack"
grep -q 'elf=1' "$WORK/probe.out" || die "dump is not an ELF core"
[ "$CORE" = 1 ] || die "parent did not see WCOREDUMP"
[ "$SIGNAL" = 11 ] || die "crasher died of signal $SIGNAL, not SIGSEGV"
