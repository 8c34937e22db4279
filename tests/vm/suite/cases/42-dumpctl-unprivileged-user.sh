# An unprivileged user in systemd-journal (it reads the system journal) sees every
# crash in dumpctl list, as coredumpctl shows them (root's as inaccessible), and
# can fetch its own dump, which coredumpd made readable by ACL; dumpctl dump of
# root's dump is refused (5).
# daemon-only
. /usr/lib/coredumpd-tests/lib.sh
need_daemon
command -v dumpctl >/dev/null || skip "dumpctl is not installed"
user=cdtuser
del_user "$user"
useradd -m -G systemd-journal "$user" || die "useradd failed"
on_exit "del_user $user"
uid=$(id -u "$user")
as_user() { setpriv --reuid="$uid" --regid="$(id -g "$user")" --init-groups env HOME=/home/$user "$@"; }

journal_mark
crash crasher
root_pid=$PID
wait_entry "$root_pid" 60 >/dev/null || die "no journal entry for root's crash $root_pid"
chmod 0755 "$WORK"
as_user "$BIN/spawn" -t 120 -- "$BIN/crasher" > "$WORK/spawn.out" || die "user crasher did not end"
read_spawn_line "$(head -n1 "$WORK/spawn.out")"
user_pid=$PID
e=$(wait_entry "$user_pid" 60) || die "no journal entry for the user's crash $user_pid"
[ "$(field COREDUMP_UID "$e")" = "$uid" ] || die "COREDUMP_UID is not $uid"
f=$(field COREDUMP_FILENAME "$e")
[ -n "$f" ] || die "the user's crash was not stored"
getfacl -p "$f" 2>/dev/null | grep -q "^user:$user:r" || die "no read ACL for $user on $f: $(getfacl -p "$f" 2>&1)"

as_user dumpctl --json list > "$WORK/ulist" 2>&1 || { cat "$WORK/ulist"; die "dumpctl list as $user failed"; }
cat "$WORK/ulist"
grep -q "\"pid\":$user_pid," "$WORK/ulist" || die "$user does not see its own crash"
grep "\"pid\":$root_pid," "$WORK/ulist" | grep -q '"corefile":"inaccessible"' ||
	die "$user (systemd-journal) does not see root's crash as inaccessible"
as_user dumpctl -o /tmp/cdt-own.core dump "$user_pid" || die "$user cannot fetch its own dump"
on_exit "rm -f /tmp/cdt-own.core /tmp/cdt-root.core"
head -c4 /tmp/cdt-own.core | grep -q ELF || die "the user's dump is no ELF core"
as_user dumpctl -o /tmp/cdt-root.core dump "$root_pid" > "$WORK/refused" 2>&1
rc=$?
cat "$WORK/refused"
[ $rc = 5 ] || die "dumpctl dump of root's crash as $user exited $rc, not 5 (permission denied)"
[ -s /tmp/cdt-root.core ] && die "root's core was written for $user"
# Reading the file directly is refused by the kernel too.
as_user cat "$(field COREDUMP_FILENAME "$(wait_entry "$root_pid" 5)")" > /dev/null 2>&1 && die "$user can read root's dump file"
as_user dumpctl vacuum > /dev/null 2>&1
[ $? = 5 ] || die "dumpctl vacuum as $user was not refused with 5"
exit 0
