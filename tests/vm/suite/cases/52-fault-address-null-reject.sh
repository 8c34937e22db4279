# MatchFaultAddress=null with Action=reject: a NULL-pointer write is rejected before anything is
# dumped (no WCOREDUMP, nothing stored); a fault elsewhere and an abort() of the same program are
# not, and fall through to the next rule.
. /usr/lib/coredumpd-tests/lib.sh
need_daemon
daemon_warm     # the probe must be attached before the crash
add_policy test-uscrash-null <<'P'
[Rule]
Name=null-page-rejected
MatchExe=*/uscrash
MatchFaultAddress=null
Action=reject

[Rule]
Name=uscrash-others
MatchExe=*/uscrash
Action=userspace
P
journal_mark
crash uscrash -c null
cat "$WORK/spawn.out"
[ "$SIGNAL" = 11 ] || die "uscrash -c null died of signal $SIGNAL"
[ "$CORE" = 0 ] || die "parent saw WCOREDUMP although the NULL-page rule rejects"
e=$(wait_entry "$PID" 60) || die "no journal entry for pid $PID"
cat "$e"
[ "$(field COREDUMPD_RULE "$e")" = null-page-rejected ] || die "NULL write: rule '$(field COREDUMPD_RULE "$e")'"
[ "$(field COREDUMPD_ACTION "$e")" = reject ] || die "NULL write: action '$(field COREDUMPD_ACTION "$e")'"
[ "$(field COREDUMPD_FAULT_ADDRESS "$e")" = 0x0 ] || die "NULL write: COREDUMPD_FAULT_ADDRESS '$(field COREDUMPD_FAULT_ADDRESS "$e")'"
[ -z "$(field COREDUMP_FILENAME "$e")" ] || die "NULL write: a dump was stored"

for how in wild abort; do
	journal_mark
	crash uscrash -c $how
	cat "$WORK/spawn.out"
	[ "$CORE" = 1 ] || die "$how: parent did not see WCOREDUMP"
	e=$(wait_entry "$PID" 60) || die "$how: no journal entry for pid $PID"
	cat "$e"
	[ "$(field COREDUMPD_RULE "$e")" = uscrash-others ] || die "$how: rule '$(field COREDUMPD_RULE "$e")'"
	[ "$(field COREDUMPD_RESULT "$e")" = stored ] || die "$how: result '$(field COREDUMPD_RESULT "$e")'"
done
