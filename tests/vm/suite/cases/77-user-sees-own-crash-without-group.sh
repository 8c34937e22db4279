# A regular user in no group at all crashes a program: they list it and fetch its core with dumpctl,
# and bookworm's coredumpctl lists it too. The daemon's record is root's, in the system journal,
# which such a user cannot read; a copy is filed in the user's own journal (coredumpd-parser
# --record, as the user), as systemd-coredump's record is. The user's dumpctl takes only their own
# entries from it and opens what they name with the user's rights, inside the store; root's
# dumpctl ignores them (it lists the crash once, from root's record); bookworm's coredumpctl lists
# it once for root and adm too.
# daemon-only
. /usr/lib/coredumpd-tests/lib.sh
need_daemon
command -v dumpctl >/dev/null || skip "dumpctl is not installed"
[ -d /var/log/journal ] || die "no persistent journal (/var/log/journal): journald keeps no journal per user"
user=cdtplain
del_user "$user"
useradd -m "$user" || die "useradd failed"
on_exit "del_user $user"
uid=$(id -u "$user")
[ "$(id -G "$user")" = "$(id -g "$user")" ] || die "$user is in groups $(id -Gn "$user")"
as_user() { setpriv --reuid="$uid" --regid="$(id -g "$user")" --init-groups env HOME=/home/$user "$@"; }

journal_mark
chmod 0755 "$WORK"
as_user "$BIN/spawn" -t 120 -- "$BIN/crasher" > "$WORK/spawn.out" || die "the user's crasher did not end"
read_spawn_line "$(head -n1 "$WORK/spawn.out")"
e=$(wait_entry "$PID" 60) || die "no record of the user's crash $PID"
[ "$(field COREDUMPD_RESULT "$e")" = stored ] || die "the user's crash was not stored"

# The copy reaches the user's journal shortly after root's record.
seen=
for _ in $(seq 60); do
	as_user dumpctl --json list > "$WORK/ulist" 2>&1 && grep -q "\"pid\":$PID," "$WORK/ulist" && { seen=1; break; }
	sleep 0.5
done
cat "$WORK/ulist"
[ -n "$seen" ] || die "$user does not see their own crash with dumpctl (no group)"
as_user dumpctl -o "/home/$user/own.core" dump "$PID" || die "$user cannot fetch their own core"
head -c4 "/home/$user/own.core" | grep -q ELF || die "the fetched core is no ELF core"
as_user coredumpctl --no-pager list "$PID" > "$WORK/cdctl" 2>&1 || { cat "$WORK/cdctl"; die "coredumpctl list as $user found nothing"; }
cat "$WORK/cdctl"
grep -q " $PID " "$WORK/cdctl" || die "coredumpctl does not list $PID for $user"
# Root's dumpctl shows the crash once.
n=$(dumpctl --json list | grep -o "\"pid\":$PID," | wc -l)
[ "$n" = 1 ] || die "root's dumpctl lists the crash $n times"
# Each crash once in bookworm's coredumpctl for root and a member of adm too, who read the system
# journal and the user's: the copy alone carries coredumpctl's id (dumpctl(1), EACH CRASH ONCE);
# adm's dumpctl shows every crash, as coredumpctl does.
n=$(coredumpctl --no-pager --no-legend list "$PID" 2>/dev/null | grep -c " $PID ")
[ "$n" = 1 ] || die "root's coredumpctl lists the crash $n times"
admin=cdtadm
del_user "$admin"
useradd -m -G adm "$admin" || die "useradd $admin failed"
on_exit "del_user $admin"
as_admin() { setpriv --reuid="$(id -u "$admin")" --regid="$(id -g "$admin")" --init-groups env HOME=/home/$admin "$@"; }
n=$(as_admin coredumpctl --no-pager --no-legend list "$PID" 2>/dev/null | grep -c " $PID ")
[ "$n" = 1 ] || die "coredumpctl of a member of adm lists the crash $n times"
n=$(as_admin dumpctl --json list 2>/dev/null | grep -o "\"pid\":$PID," | wc -l)
[ "$n" = 1 ] || die "dumpctl of a member of adm lists the crash $n times"
say "# report: user-own-crash: uid $uid without groups lists and fetches crash $PID (dumpctl, coredumpctl); root and adm see it once"
