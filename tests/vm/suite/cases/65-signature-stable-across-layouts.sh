# The crash signature does not depend on where ASLR put things: the same crasher crashing at the
# same site in two processes (two address-space layouts: frame #0's pc differs) has one
# signature. The case reports it to the host as "# signature-stability: SIG" (through run-suite's
# "# report: " lines); tests/run-all compares the signatures of the 6.1 and the 7.2 boot.
. /usr/lib/coredumpd-tests/lib.sh
need_daemon
daemon_warm     # the crash-context probe sees both crashes: their stacks are unwound in full
journal_mark
sigs=() pcs=()
for i in 1 2; do
	crash crasher
	[ "$SIGNAL" = 11 ] || die "crash $i: signal $SIGNAL"
	e=$(wait_entry "$PID" 60) || die "crash $i (pid $PID) not recorded"
	s=$(field COREDUMPD_SIGNATURE "$e")
	[[ $s =~ ^[0-9a-f]{16}$ ]] || die "crash $i: signature '$s'"
	grep -q '^COREDUMPD_FRAME=0 .* crash_here+' "$e" || die "crash $i: frame 0 is not crash_here"
	grep -q '^COREDUMPD_FRAME=[0-9]* .* main+' "$e" || die "crash $i: the backtrace does not reach main (probe: $(field COREDUMPD_PROBE "$e"))"
	_jq -o cat $SYSTEM_RECORD COREDUMP_PID="$PID" 2>/dev/null > "$WORK/message.$i"
	pc=$(sed -nE 's/^ *#0 +(0x[0-9a-f]+) .*/\1/p' "$WORK/message.$i" | head -n1)
	say "crash $i: pid $PID, probe $(field COREDUMPD_PROBE "$e"), frame #0 at $pc, signature $s"
	sed -n 's/^COREDUMPD_FRAME=/  /p' "$e" | head -n 5
	sigs+=("$s") pcs+=("$pc")
done
if [ "$(cat /proc/sys/kernel/randomize_va_space)" != 0 ]; then
	[ -n "${pcs[0]}" ] && [ "${pcs[0]}" != "${pcs[1]}" ] || die "frame #0 at '${pcs[0]}' both times: not two layouts"
fi
[ "${sigs[0]}" = "${sigs[1]}" ] || die "two crashes at one site have signatures ${sigs[0]} and ${sigs[1]}"
say "# report: signature-stability: ${sigs[0]}"
