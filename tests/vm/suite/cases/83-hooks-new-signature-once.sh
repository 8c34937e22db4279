# Hooks (coredumpd(8), HOOKS): a unit of the image wanted by coredumpd-new-signature@.service, and
# one wanted by coredumpd-crash@.service, each note their instance. A crash loop of one signature
# (a rule with RateLimitBurst=1, the suite's own being off) starts each once: its first crash
# (COREDUMPD_FIRST_SEEN=1), not its repeat. A crash of a second signature afterwards starts its
# own pair, and, the hooks being started in order, tells that the repeats' turn is past. The crash
# hook reads its crash with dumpctl --json=short info COREDUMPD_CRASH_ID=%I: the instance
# (systemd-escaped) gives the crash id back.
# daemon-only
# case-timeout: 60
. /usr/lib/coredumpd-tests/lib.sh
need_daemon
command -v dumpctl >/dev/null || skip "no dumpctl"
[ -e /usr/lib/systemd/system/coredumpd-crash@.service ] || die "coredumpd-crash@.service is not installed"
[ -S /run/dbus/system_bus_socket ] || skip "no system bus in this image"

H=/run/cdt-hooks
mkdir -p "$H" /etc/systemd/system/coredumpd-new-signature@.service.wants /etc/systemd/system/coredumpd-crash@.service.wants
cat > /etc/systemd/system/cdt-newsig@.service <<U
[Service]
Type=oneshot
ExecStart=/bin/sh -c 'echo %I >> $H/newsig'
U
cat > /etc/systemd/system/cdt-crash@.service <<U
[Service]
Type=oneshot
ExecStart=/bin/sh -c 'dumpctl --json=short info COREDUMPD_CRASH_ID=%I > $H/info.%I; echo %I >> $H/crash'
U
ln -sf ../cdt-newsig@.service /etc/systemd/system/coredumpd-new-signature@.service.wants/cdt-newsig@.service
ln -sf ../cdt-crash@.service /etc/systemd/system/coredumpd-crash@.service.wants/cdt-crash@.service
on_exit "rm -rf $H /etc/systemd/system/cdt-newsig@.service /etc/systemd/system/cdt-crash@.service /etc/systemd/system/coredumpd-new-signature@.service.wants /etc/systemd/system/coredumpd-crash@.service.wants; systemctl daemon-reload"
systemctl daemon-reload
add_policy test-hooks <<'P'
[Rule]
Name=hooks
MatchComm=cdthook
Action=kernel
RateLimitBurst=1
OnRepeat=reject
P
cp /bin/sleep "$WORK/cdthook"

# sleep_crash SIGNAL — a copy of sleep, killed with SIGNAL once it sleeps; sets PID.
sleep_crash() {
	"$WORK/cdthook" 100 &
	PID=$!
	for _ in $(seq 200); do
		[ "$(cut -d' ' -f3 "/proc/$PID/stat" 2>/dev/null)" = S ] && [ "$(cat /proc/$PID/comm)" = cdthook ] && break
		sleep 0.05
	done
	kill "-$1" "$PID"
	wait "$PID" 2>/dev/null
}

journal_mark
ids=()
for i in 1 2; do
	sleep_crash SYS
	e=$(wait_entry "$PID" 30) || die "no record of crash $i (pid $PID)"
	ids+=("$(field COREDUMPD_CRASH_ID "$e")")
	sig=$(field COREDUMPD_SIGNATURE "$e")
	[ -n "$sig" ] || die "crash $i has no signature"
	[ "$(field COREDUMPD_REPEAT "$e")" = "$i" ] || die "crash $i is repeat '$(field COREDUMPD_REPEAT "$e")'"
	if [ "$i" = 1 ]; then
		sig1=$sig
		[ "$(field COREDUMPD_FIRST_SEEN "$e")" = 1 ] || die "the first crash of $sig1 is not first seen (a case before crashed sleep with SIGSYS?)"
	else
		[ "$sig" = "$sig1" ] || die "crash $i signed $sig, not $sig1"
		[ -z "$(field COREDUMPD_FIRST_SEEN "$e")" ] || die "repeat $i is first seen too"
	fi
done
# The barrier: a second signature, whose hooks come after any the repeats started.
sleep_crash XCPU
e=$(wait_entry "$PID" 30) || die "no record of the second signature's crash (pid $PID)"
sig2=$(field COREDUMPD_SIGNATURE "$e")
id2=$(field COREDUMPD_CRASH_ID "$e")
[ -n "$sig2" ] && [ "$sig2" != "$sig1" ] || die "the second crash signed '$sig2'"
for _ in $(seq 200); do
	[ "$(wc -l < "$H/newsig" 2>/dev/null)" -ge 2 ] && [ "$(wc -l < "$H/crash" 2>/dev/null)" -ge 2 ] && break
	sleep 0.05
done
say "new-signature hooks: $(tr '\n' ' ' < "$H/newsig" 2>/dev/null); crash hooks: $(tr '\n' ' ' < "$H/crash" 2>/dev/null)"
printf '%s\n%s\n' "$sig1" "$sig2" | cmp -s - "$H/newsig" ||
	die "new-signature hooks ran for '$(cat "$H/newsig" 2>/dev/null)', not once for $sig1 and $sig2 (daemon: $(journalctl -q -b -u coredumpd --no-pager | grep -i hook | tail -5))"
printf '%s\n%s\n' "${ids[0]}" "$id2" | cmp -s - "$H/crash" ||
	die "crash hooks ran for '$(cat "$H/crash" 2>/dev/null)', not once for ${ids[0]} and $id2"
grep -q "\"crash_id\":\"${ids[0]}\"" "$H/info.${ids[0]}" && grep -q '"first_seen":true' "$H/info.${ids[0]}" ||
	die "the hook's dumpctl --json=short info said: $(cat "$H/info.${ids[0]}")"
say "the first crash's hook read: $(head -c 300 "$H/info.${ids[0]}")"
