# The operator's commands do what the docs say, on the host as installed (no test-only override):
# dumpctl check is on the PATH, names a typo in a coredumpd.conf drop-in and a broken policy rule at
# file:line and exits 1; the daemon goes on collecting with the rest (the broken rule left out, the
# good one in force). dumpctl reload re-reads coredumpd.conf and its drop-ins in the running daemon
# (same PID, the next crash has the new Compress=), logging the typo once. After IdleExit= the
# daemon is gone: systemctl reload fails there (why the docs do not name it), while dumpctl reload
# and systemctl try-reload-or-restart succeed without starting it, and the next crash gets the new
# configuration. A Storage= change, which needs a restart, is said once and not applied.
# daemon-only
. /usr/lib/coredumpd-tests/lib.sh
need_daemon
[ "$(command -v dumpctl)" = /usr/bin/dumpctl ] || die "dumpctl is not on the PATH as /usr/bin/dumpctl: '$(command -v dumpctl)'"

DROPINS=/etc/coredumpd/coredumpd.conf.d
DROPIN=$DROPINS/50-cdt-operator.conf
POLICY=$POLICY_DIR/50-cdt-operator.conf
mkdir -p "$DROPINS" "$POLICY_DIR"
on_exit "rm -f '$DROPIN' '$POLICY'; dumpctl reload >/dev/null 2>&1"

main_pid() { systemctl show -P MainPID coredumpd.service; }
crash_record() {	# PROGRAM — crashes it, waits for its record; sets PID RESULT FORM
	local e
	crash "$1"
	e=$(wait_entry "$PID" 60) || die "no record of $1's crash $PID"
	RESULT=$(field COREDUMPD_RESULT "$e")
	FORM=$(field COREDUMPD_CORE_FORM "$e")
}
# daemon_log — what coredumpd logged since journal_mark.
daemon_log() { _jq -o cat _SYSTEMD_UNIT=coredumpd.service 2>/dev/null; }

# 1. A typo in a drop-in, a rule with a typo beside a good one.  The drop-in is what an operator
# writes, the subject of this case; its IdleExit=5s only shortens the shipped 30 s so that step 3
# does not wait half a minute for the daemon to go idle (the behaviour is the same).
printf '[Coredump]\nCompress=none\nMaxSise=1G\nIdleExit=5s\n' > "$DROPIN"
cat > "$POLICY" <<'P'
[Rule]
Name=cdt-good
MatchExe=*/crasher-hup
Action=reject

[Rule]
Name=cdt-broken
MatchExe=*/crasher-kill
MatchUIDD=0
Action=reject
P
dumpctl check > "$WORK/check.out" 2> "$WORK/check.err"
rc=$?
cat "$WORK/check.err"
[ $rc = 1 ] || die "dumpctl check exited $rc with a typo in $DROPIN, not 1"
grep -qF "$DROPIN:3: unknown key 'MaxSise' in [Coredump], ignored (hint: did you mean MaxSize=?)" "$WORK/check.err" ||
	die "dumpctl check does not name the typo at its file:line"
grep -qF "$POLICY:9: unknown key 'MatchUIDD' in [Rule]" "$WORK/check.err" || die "dumpctl check does not name the rule's typo"
grep -qF "$POLICY:6: rule 'cdt-broken' ignored for its errors" "$WORK/check.err" || die "dumpctl check does not say the rule is left out"
grep -qx 'Compress=none' "$WORK/check.out" || die "dumpctl check does not show Compress=none in force"
grep -qx 'Name=cdt-good' "$WORK/check.out" && ! grep -qx 'Name=cdt-broken' "$WORK/check.out" ||
	die "dumpctl check's rules in force are not the good one without the broken one"

# 2. The daemon runs: dumpctl reload re-reads coredumpd.conf too; the same process.
daemon_warm
pid1=$(main_pid)
journal_mark
dumpctl reload > "$WORK/reload.out" 2>&1
rc=$?
cat "$WORK/reload.out"
[ $rc = 1 ] || die "dumpctl reload exited $rc with a line left out, not 1"
grep -q 'reloaded its configuration' "$WORK/reload.out" || die "dumpctl reload did not say the daemon reloaded"
for _ in $(seq 50); do daemon_log | grep -q 'Policy reloaded' && break; sleep 0.2; done
daemon_log | grep -q 'Configuration reloaded (with lines left out' || die "the daemon did not reload coredumpd.conf"
[ "$(daemon_log | grep -cF "$DROPIN:3: unknown key 'MaxSise'")" = 1 ] || die "the typo is not logged exactly once at its file:line"
crash_record crasher
[ "$RESULT $FORM" = "stored plain" ] || die "after the reload: '$RESULT $FORM', not 'stored plain' (Compress=none not applied)"
crash_record crasher-hup
[ "$RESULT" = rejected ] || die "the good rule beside the broken one did not apply: '$RESULT'"
crash_record crasher-kill
[ "$RESULT" = stored ] || die "the broken rule applied (it must be left out): '$RESULT'"
[ "$(main_pid)" = "$pid1" ] || die "the daemon was restarted ($pid1 -> $(main_pid)): the reload was not what applied"

# 3. Idle: IdleExit=5s (from the drop-in) ends the daemon; the unit is inactive.
for _ in $(seq 60); do systemctl is-active -q coredumpd.service || break; sleep 0.5; done
! systemctl is-active -q coredumpd.service || die "coredumpd did not exit after IdleExit=5s"
# IdleExit=0 from here on: the daemon the next crash starts stays for step 4.
printf '[Coredump]\nCompress=zstd\nIdleExit=0\nBogus=1\n' > "$DROPIN"
if systemctl reload coredumpd.service 2> "$WORK/sysreload.err"; then
	die "systemctl reload succeeded on the inactive unit: coredumpd.conf(5) says it fails there"
fi
say "systemctl reload on the idle unit: $(cat "$WORK/sysreload.err")"
dumpctl reload > "$WORK/reload2.out" 2>&1
rc=$?
cat "$WORK/reload2.out"
[ $rc = 1 ] || die "dumpctl reload on the idle host exited $rc with the Bogus= line, not 1"
grep -q 'not running (idle)' "$WORK/reload2.out" || die "dumpctl reload did not say the daemon is idle"
systemctl try-reload-or-restart coredumpd.service || die "systemctl try-reload-or-restart failed on the idle unit"
! systemctl is-active -q coredumpd.service || die "a reload started the idle daemon"
journal_mark
crash_record crasher
[ "$RESULT $FORM" = "stored zstd" ] || die "the crash after the idle reload: '$RESULT $FORM', not 'stored zstd'"
daemon_log | grep -qF "$DROPIN:4: unknown key 'Bogus' in [Coredump], ignored" ||
	die "the daemon started with a typo in a drop-in without naming it at its file:line"

# 4. Storage= cannot change while the daemon runs: said once, the store stays.
pid2=$(main_pid)
rm -f "$POLICY"        # the broken rule would make every reload exit 1
printf '[Coredump]\nCompress=zstd\nIdleExit=0\nStorage=/var/lib/coredumpd-elsewhere\n' > "$DROPIN"
journal_mark
dumpctl reload >/dev/null 2>&1 || die "dumpctl reload failed with a valid drop-in"
dumpctl reload >/dev/null 2>&1 || die "dumpctl reload failed the second time"
for _ in $(seq 50); do [ "$(daemon_log | grep -c 'Policy reloaded')" -ge 2 ] && break; sleep 0.2; done
[ "$(daemon_log | grep -c 'Storage=/var/lib/coredumpd-elsewhere needs a restart')" = 1 ] ||
	die "a changed Storage= is not said exactly once to need a restart"
crash_record crasher
[ "$RESULT" = stored ] || die "after the Storage= reload the crash was not stored: '$RESULT'"
[ -n "$(store_file_for "$PID")" ] || die "the crash after the Storage= reload is not in $STORE"
[ "$(main_pid)" = "$pid2" ] || die "the daemon was restarted by the reload"
rm -f "$DROPIN"
dumpctl reload >/dev/null 2>&1
exit 0
