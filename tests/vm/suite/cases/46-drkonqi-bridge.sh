# The desktop's crash dialog (coredumpd(8), DESKTOP): coredumpd-drkonqi@.service, enabled as the
# package enables it where DrKonqi is (its launcher's socket unit, a stand-in file here), hands a
# user's crash to the launcher socket in the user's /run/user/UID — a stand-in for bookworm's
# drkonqi-coredump-launcher.socket (SOCK_SEQPACKET, the user's, one process per connection) —
# through its sandbox, as that user: the record's fields arrive as DrKonqi's launcher reads them.
# (Bookworm's own launcher receiving the bridge's record: tests/test-drkonqi.py on the host.)
# daemon-only
# case-timeout: 60
. /usr/lib/coredumpd-tests/lib.sh
need_daemon
U=/usr/lib/systemd/system/coredumpd-drkonqi@.service
[ -e "$U" ] || [ -e /lib/systemd/system/coredumpd-drkonqi@.service ] || die "coredumpd-drkonqi@.service is not installed"
[ -S /run/dbus/system_bus_socket ] || skip "no system bus in this image"
command -v systemd-socket-activate >/dev/null || skip "no systemd-socket-activate"

add_user cdtdrkonqi 59095
uid=$NEW_UID
D=/run/user/$uid
if [ ! -d "$D" ]; then
	mkdir -m 0700 "$D" && chown "$uid:$(id -g cdtdrkonqi)" "$D"
	on_exit "rm -rf $D"
fi
L=/usr/lib/systemd/user/drkonqi-coredump-launcher.socket
if [ ! -e "$L" ]; then
	mkdir -p "${L%/*}" && : > "$L"
	on_exit "rm -f $L"
fi
# (enable and disable reload the service manager themselves: no daemon-reload of our own)
systemctl enable coredumpd-drkonqi@.service 2>&1 || die "systemctl enable coredumpd-drkonqi@.service failed"
on_exit "systemctl disable coredumpd-drkonqi@.service >/dev/null 2>&1"
[ -L /etc/systemd/system/coredumpd-crash@.service.wants/coredumpd-drkonqi@.service ] ||
	die "enabling the template made no link in coredumpd-crash@.service.wants"

as_user cdtdrkonqi systemd-socket-activate --seqpacket --accept --inetd -l "$D/drkonqi-coredump-launcher" \
	sh -c "cat > $D/received.part && mv $D/received.part $D/received" > "$WORK/activate.log" 2>&1 &
apid=$!
on_exit "kill $apid 2>/dev/null"
for _ in $(seq 100); do [ -S "$D/drkonqi-coredump-launcher" ] && break; sleep 0.05; done
[ -S "$D/drkonqi-coredump-launcher" ] || die "the stand-in launcher socket is not there: $(cat "$WORK/activate.log")"

# The suite runs without a rate limit; a hook is started by the rule's Notify=.
add_policy test-drkonqi <<'P'
[Rule]
Name=drkonqi
MatchUID=59095
Action=kernel
Notify=every
P
chmod 0755 "$WORK"
journal_mark
as_user cdtdrkonqi "$BIN/spawn" -t 60 -- "$BIN/crasher" > "$WORK/spawn.out" || die "the user's crasher did not end"
read_spawn_line "$(head -n1 "$WORK/spawn.out")"
e=$(wait_entry "$PID" 60) || die "no record of the user's crash $PID"
id=$(field COREDUMPD_CRASH_ID "$e")
for _ in $(seq 200); do [ -e "$D/received" ] && break; sleep 0.05; done
[ -e "$D/received" ] || die "nothing reached the launcher socket: $(journalctl -q -b --no-pager -u 'coredumpd-drkonqi@*' | tail -5); $(cat "$WORK/activate.log")"
say "the launcher got $(wc -c < "$D/received") bytes: $(head -c 200 "$D/received" | tr '\n' ' ')"
for kv in "COREDUMPD_CRASH_ID\":\"$id" "COREDUMP_PID\":\"$PID" "COREDUMP_UID\":\"$uid" "MESSAGE_ID\":\"" \
	"COREDUMP_SIGNAL\":\"" "COREDUMP_EXE\":\"" "COREDUMP_TIMESTAMP\":\""; do
	grep -q "\"$kv" "$D/received" || die "the launcher did not get \"$kv…"
done
# The system record under either id (crash/record.h): coredumpd's own where the user's copy was filed.
grep -Eq '"MESSAGE_ID":"(fc2e22bc6ee647b6b90729ab34a250b1|3ffbd697b6d74dbc8eb757accc447f8b)"' "$D/received" ||
	die "the launcher got no coredump record's MESSAGE_ID"
grep -q "Connection from PID [0-9]*/UID $uid " "$WORK/activate.log" ||
	die "the bridge did not connect as the user: $(grep Connection "$WORK/activate.log")"
