# dumpctl remove (dumpctl(1)): a regular user in no group removes their own crash's core through
# coredumpd-remove.socket (the package enables it; its helper runs per connection, sandboxed, as
# root); the record stays and shows the core missing. Root's core is not the user's to remove; root
# removes it.
# daemon-only
# case-timeout: 60
. /usr/lib/coredumpd-tests/lib.sh
need_daemon
command -v dumpctl >/dev/null || skip "dumpctl is not installed"
systemctl is-active -q coredumpd-remove.socket || die "coredumpd-remove.socket is not active: $(systemctl status --no-pager coredumpd-remove.socket 2>&1 | head -5)"
add_user cdtremove 59094
chmod 0755 "$WORK"

journal_mark
as_user cdtremove "$BIN/spawn" -t 60 -- "$BIN/crasher" > "$WORK/spawn.out" || die "the user's crasher did not end"
read_spawn_line "$(head -n1 "$WORK/spawn.out")"
upid=$PID
e=$(wait_entry "$upid" 60) || die "no record of the user's crash $upid"
ufile=$(field COREDUMP_FILENAME "$e")
[ "$(field COREDUMPD_RESULT "$e")" = stored ] && [ -f "$ufile" ] || die "the user's crash was not stored ('$ufile')"
crash crasher
rpid=$PID
e=$(wait_entry "$rpid" 60) || die "no record of root's crash $rpid"
rfile=$(field COREDUMP_FILENAME "$e")
[ -f "$rfile" ] || die "root's crash was not stored ('$rfile')"

# The user's own copy of the record reaches their journal shortly after root's.
for _ in $(seq 60); do
	as_user cdtremove dumpctl --json=short list "$upid" 2>/dev/null | grep -q '"present":"present"' && break
	sleep 0.25
done
as_user cdtremove dumpctl remove "$rpid" > "$WORK/deny.out" 2>&1
st=$?
[ "$st" = 5 ] || [ "$st" = 1 ] || die "the user's dumpctl remove of root's crash exited $st: $(cat "$WORK/deny.out")"
[ -f "$rfile" ] || die "the user removed root's core"
as_user cdtremove dumpctl remove "$upid" > "$WORK/remove.out" 2>&1 ||
	die "the user cannot remove their own core: $(cat "$WORK/remove.out"); $(journalctl -q -b --no-pager -u 'coredumpd-remove@*' | tail -5)"
cat "$WORK/remove.out"
[ ! -e "$ufile" ] || die "$ufile is still there"
as_user cdtremove dumpctl --json=short list "$upid" | grep -q '"present":"missing"' || die "the record does not show the core missing"
dumpctl remove "$rpid" > /dev/null || die "root cannot remove root's core"
[ ! -e "$rfile" ] || die "$rfile is still there"
say "user $upid's core removed by the user through coredumpd-remove.socket, root's refused to them and removed by root"
