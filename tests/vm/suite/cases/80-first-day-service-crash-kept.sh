# A first day under Debian's defaults: a crash in a service started with the defaults (a transient
# systemd-run unit, no LimitCORE=) is stored. Debian leaves the soft RLIMIT_CORE of services at 0,
# which the built-in policy rejects; the package's system.conf.d drop-in (DefaultLimitCORE=infinity)
# is what keeps it. The same crash with Debian's 0 (LimitCORE=0:infinity, as without the drop-in)
# is rejected by builtin:rlimit-zero. The suite itself runs without LimitCORE= or ulimit -c.
# daemon-only
. /usr/lib/coredumpd-tests/lib.sh
need_daemon
systemd-analyze cat-config systemd/system.conf 2>/dev/null | grep -q '^# /usr/lib/systemd/system.conf.d/20-coredumpd.conf' ||
	die "systemd does not read /usr/lib/systemd/system.conf.d/20-coredumpd.conf"
[ -L /run/systemd/system.conf.d/20-coredumpd.conf ] && die "the limit drop-in is masked while coredumpd is the handler"
soft=$(systemctl show -P DefaultLimitCORESoft)
[ "$soft" = infinity ] || die "the service manager's DefaultLimitCORESoft is '$soft', not infinity"

# service UNIT [PROPERTY...] — runs the crasher as a transient service and waits for it; sets PID.
service() {
	local unit=$1
	shift
	on_exit "systemctl reset-failed $unit.service 2>/dev/null"
	systemd-run --quiet --wait --unit="$unit" -p Type=exec "$@" "$BIN/crasher" -p "$WORK/$unit.pid"
	PID=$(cat "$WORK/$unit.pid") || die "$unit did not start the crasher"
	say "$unit: pid $PID, LimitCORESoft=$(systemctl show -P LimitCORESoft "$unit.service")"
}

journal_mark
service cdt-first-day
[ "$(systemctl show -P LimitCORESoft cdt-first-day.service)" = infinity ] ||
	die "the service's soft RLIMIT_CORE is not infinity"
e=$(wait_entry "$PID" 60) || die "no journal entry for the service's crash $PID"
cat "$e"
[ "$(field COREDUMP_UNIT "$e")" = cdt-first-day.service ] || die "COREDUMP_UNIT is '$(field COREDUMP_UNIT "$e")'"
[ "$(field COREDUMPD_ACTION "$e")" = kernel ] || die "COREDUMPD_ACTION is '$(field COREDUMPD_ACTION "$e")', not kernel"
[ "$(field COREDUMPD_RESULT "$e")" = stored ] || die "COREDUMPD_RESULT is '$(field COREDUMPD_RESULT "$e")', not stored"
f=$(field COREDUMP_FILENAME "$e")
[ -n "$f" ] && [ -f "$f" ] || die "no stored dump (COREDUMP_FILENAME='$f')"

# Without the drop-in: Debian's 0.
service cdt-first-day-debian0 -p LimitCORE=0:infinity
e=$(wait_entry "$PID" 60) || die "no journal entry for the crash $PID with RLIMIT_CORE 0"
[ "$(field COREDUMPD_RESULT "$e")" = rejected ] || die "with RLIMIT_CORE 0: '$(field COREDUMPD_RESULT "$e")', not rejected"
[ "$(field COREDUMPD_RULE "$e")" = builtin:rlimit-zero ] ||
	die "with RLIMIT_CORE 0: rule '$(field COREDUMPD_RULE "$e")', not builtin:rlimit-zero"
[ -z "$(field COREDUMP_FILENAME "$e")" ] || die "with RLIMIT_CORE 0 the core was stored"
exit 0
