# One crash site, one signature (issue 25, part 0): the crash that socket-activates coredumpd (the
# daemon was away: IdleExit=, or never started since boot) and the same crash with the daemon
# warm are unwound alike. coredumpd-probe.service pinned the crash-context probe in bpffs at boot,
# so it saw the cold crash before any daemon ran, and the daemon started by that crash takes the
# probe's registers from the pinned map. Must hold: the same binary crashing at the same site cold,
# warm, cold again has one signature and the same frames, each from the probe's full registers,
# none cut short, none partial. Then, with the pins removed (coredumpd-probe.service stopped), a
# cold crash that no probe saw is unwound from its sp and pc only and that trace is cut after one
# frame: it is marked so (COREDUMPD_BACKTRACE_CUT=error, COREDUMPD_SIGNATURE_PARTIAL=1) and signed
# apart, never as the complete trace's signature.
. /usr/lib/coredumpd-tests/lib.sh
need_daemon
systemctl is-active -q coredumpd-probe.service ||
	die "coredumpd-probe.service is not active: $(journalctl -b -q --no-pager -u coredumpd-probe.service | tail -n 5)"
pins=$(ls /sys/fs/bpf/coredumpd 2>&1 | tr '\n' ' ')
say "pinned: $pins"
for p in stash crashes link-stash-arch_do_signal_or_restart; do
	[ -e "/sys/fs/bpf/coredumpd/$p" ] || die "no /sys/fs/bpf/coredumpd/$p (pinned: $pins)"
done
ls /sys/fs/bpf/coredumpd/link-crash-* >/dev/null 2>&1 || die "no kprobe link on the coredump's entry pinned ($pins)"
[ "$(stat -c %a /sys/fs/bpf/coredumpd)" = 700 ] || die "the pin directory is mode $(stat -c %a /sys/fs/bpf/coredumpd), not 700"
# The unit that pins it is sandboxed too.
line=$(systemd-analyze security coredumpd-probe.service 2>&1 | tail -n1)
say "$line"
score=$(sed -n 's/.*exposure level for coredumpd-probe.service: \([0-9.]*\).*/\1/p' <<< "$line")
[ -n "$score" ] && awk -v s="$score" 'BEGIN { exit !(s <= 3.0) }' || die "coredumpd-probe.service: exposure '$score' (at most 3.0)"

daemon_stop() {
	systemctl stop coredumpd.service
	local end=$((SECONDS + 30))
	while [ "$(systemctl show -P MainPID coredumpd.service)" != 0 ]; do
		[ $SECONDS -lt $end ] || die "coredumpd.service did not stop"
		sleep 0.2
	done
}
on_exit "systemctl start coredumpd-probe.service; systemctl stop coredumpd.service"

# crash_once LABEL — crashes the crasher; leaves its record's signature in SIG, its frames in
# $WORK/frames.LABEL, and checks what the record says of its unwind.
crash_once() {
	local label=$1 e
	crash crasher
	[ "$SIGNAL" = 11 ] || die "$label: signal $SIGNAL"
	e=$(wait_entry "$PID" 60) || die "$label: crash (pid $PID) not recorded"
	SIG=$(field COREDUMPD_SIGNATURE "$e")
	sed -n 's/^COREDUMPD_FRAME=//p' "$e" > "$WORK/frames.$label"
	PROBE=$(field COREDUMPD_PROBE "$e") REGS=$(field COREDUMPD_UNWIND_REGISTERS "$e")
	CUT=$(field COREDUMPD_BACKTRACE_CUT "$e") PARTIAL=$(field COREDUMPD_SIGNATURE_PARTIAL "$e")
	say "$label: pid $PID, daemon $(systemctl show -P MainPID coredumpd.service), probe $PROBE, registers $REGS," \
		"cut '${CUT}', partial '${PARTIAL}', signature $SIG, $(wc -l < "$WORK/frames.$label") frames"
	sed 's/^/  /' "$WORK/frames.$label" | head -n 8
	[[ $SIG =~ ^[0-9a-f]{16}$ ]] || die "$label: signature '$SIG'"
}

# crash_complete LABEL — a crash unwound in full from the probe's registers.
crash_complete() {
	crash_once "$1"
	[ "$PROBE" = yes ] || die "$1: COREDUMPD_PROBE=$PROBE: the probe did not see the crash"
	[ "$REGS" = full ] || die "$1: unwound from '$REGS', not the probe's full registers"
	[ -z "$PARTIAL" ] || die "$1: signature marked partial"
	[ -z "$CUT" ] || die "$1: trace cut short ($CUT)"
	grep -q '^0 .* crash_here+' "$WORK/frames.$1" || die "$1: frame 0 is not crash_here"
	grep -q '^[0-9]* .* main+' "$WORK/frames.$1" || die "$1: the trace does not reach main"
}

journal_mark
# Cold: no daemon; the crash starts one.
daemon_stop
crash_complete cold1
sig=$SIG
main=$(systemctl show -P MainPID coredumpd.service)
_jq _PID="$main" 2>/dev/null | grep -q "Crash-context probe attached (.*), pinned in /sys/fs/bpf/coredumpd" ||
	die "the daemon the crash started did not take the pinned probe: $(_jq _PID="$main" | grep -i probe | tail -n 2)"

# Warm: the same daemon serves the next crash.
crash_complete warm
[ "$(systemctl show -P MainPID coredumpd.service)" = "$main" ] || die "warm: not the same daemon"
[ "$SIG" = "$sig" ] || die "warm signature $SIG, cold $sig"
cmp -s "$WORK/frames.cold1" "$WORK/frames.warm" || die "warm frames differ from cold: $(diff "$WORK/frames.cold1" "$WORK/frames.warm")"

# Cold again.
daemon_stop
crash_complete cold2
[ "$(systemctl show -P MainPID coredumpd.service)" != "$main" ] || die "cold2: the daemon was not restarted"
[ "$SIG" = "$sig" ] || die "second cold signature $SIG, first $sig"
cmp -s "$WORK/frames.cold1" "$WORK/frames.cold2" || die "cold2 frames differ: $(diff "$WORK/frames.cold1" "$WORK/frames.cold2")"
say "cold, warm, cold: one signature $sig, the same $(wc -l < "$WORK/frames.cold1") frames"

# No pinned probe: the crash that starts the daemon is seen by no probe, its trace is cut short,
# and it is marked, not signed as complete.
systemctl stop coredumpd-probe.service
[ ! -e /sys/fs/bpf/coredumpd ] || die "stopping coredumpd-probe.service left $(ls /sys/fs/bpf/coredumpd | tr '\n' ' ')"
daemon_stop
crash_once unprobed
[ "$PROBE" = no ] || die "unprobed: COREDUMPD_PROBE=$PROBE with nothing pinned before the daemon started"
[ "$REGS" = sp+pc ] || die "unprobed: unwound from '$REGS', not sp and pc"
[ "$CUT" = error ] || die "unprobed: COREDUMPD_BACKTRACE_CUT='$CUT', not error"
if [ "$(wc -l < "$WORK/frames.unprobed")" -lt 5 ]; then
	[ "$PARTIAL" = 1 ] || die "unprobed: a trace cut after $(wc -l < "$WORK/frames.unprobed") frame(s) is not marked partial"
	[ "$SIG" != "$sig" ] || die "unprobed: a partial trace signed $SIG like the complete one"
else
	[ "$SIG" = "$sig" ] || die "unprobed: $(wc -l < "$WORK/frames.unprobed") frames, signature $SIG, not $sig"
fi
# The daemon it started attached a probe of its own (and said why): the next crash is complete again.
_jq _PID="$(systemctl show -P MainPID coredumpd.service)" 2>/dev/null | grep -q "by this daemon only: nothing pinned" ||
	die "the daemon did not say it attached a probe of its own"
crash_complete warm-own-probe
[ "$SIG" = "$sig" ] || die "warm (own probe) signature $SIG, not $sig"
systemctl start coredumpd-probe.service
systemctl is-active -q coredumpd-probe.service || die "coredumpd-probe.service did not start again"
[ -e /sys/fs/bpf/coredumpd/crashes ] || die "coredumpd-probe.service started without pinning"
daemon_stop
say "# report: signature-cold-warm: $sig"
