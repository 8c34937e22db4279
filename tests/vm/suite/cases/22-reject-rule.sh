# Action=reject: no dump stored, the parent sees no WCOREDUMP, and the entry
# says COREDUMPD_ACTION=reject.
. /usr/lib/coredumpd-tests/lib.sh
need_daemon
add_policy test-reject <<'P'
[Rule]
Name=no-crasher
MatchExe=*/crasher-reject
Action=reject
P
before=$(store_files)
journal_mark
crash crasher-reject
cat "$WORK/spawn.out"
[ "$SIGNAL" = 11 ] || die "crasher died of signal $SIGNAL"
[ "$CORE" = 0 ] || die "parent saw WCOREDUMP although the rule rejects"
if e=$(wait_entry "$PID" 20); then
	cat "$e"
	[ "$(field COREDUMPD_ACTION "$e")" = reject ] || die "COREDUMPD_ACTION is '$(field COREDUMPD_ACTION "$e")'"
	[ -z "$(field COREDUMP_FILENAME "$e")" ] || die "entry names a stored file"
else
	die "no journal entry for the rejected crash of pid $PID"
fi
[ "$(store_files)" = "$before" ] || die "store changed: $(store_files)"
