# A first day under Debian's defaults: fs.suid_dumpable reads 2 while coredumpd owns core_pattern
# (coredumpd-register sets it), so a process that starts as root, drops to a user with
# setresuid() and crashes is dumped (as root), recorded as not dumpable, and stored readable by
# root only: no ACL for the user, who cannot read the file.
. /usr/lib/coredumpd-tests/lib.sh
need_daemon
[ "$(cat /proc/sys/fs/suid_dumpable)" = 2 ] || die "fs.suid_dumpable is $(cat /proc/sys/fs/suid_dumpable), not 2"
user=cdtdrop
userdel -r "$user" >/dev/null 2>&1 || true
useradd -m "$user" || die "useradd failed"
on_exit "userdel -r $user >/dev/null 2>&1"
uid=$(id -u "$user") gid=$(id -g "$user")

journal_mark
"$BIN/spawn" -t 120 -- "$BIN/dropcrash" "$uid" "$gid" > "$WORK/spawn.out" 2>&1 || { cat "$WORK/spawn.out"; die "dropcrash did not end"; }
cat "$WORK/spawn.out"
grep -q "^dropped uid=$uid euid=$uid dumpable=2" "$WORK/spawn.out" || die "dropcrash did not drop to $uid with dumpable 2"
read_spawn_line "$(grep '^pid=' "$WORK/spawn.out")"
[ "$SIGNAL" = 11 ] || die "dropcrash died of signal $SIGNAL"
[ "$CORE" = 1 ] || die "the kernel did not dump the process that dropped root"
e=$(wait_entry "$PID" 60) || die "no journal entry for pid $PID"
cat "$e"
[ "$(field COREDUMP_UID "$e")" = "$uid" ] || die "COREDUMP_UID is '$(field COREDUMP_UID "$e")', not $uid"
[ "$(field COREDUMPD_DUMPABLE "$e")" = 0 ] || die "COREDUMPD_DUMPABLE is '$(field COREDUMPD_DUMPABLE "$e")', not 0"
[ "$(field COREDUMPD_RESULT "$e")" = stored ] || die "COREDUMPD_RESULT is '$(field COREDUMPD_RESULT "$e")', not stored"
f=$(field COREDUMP_FILENAME "$e")
[ -n "$f" ] && [ -f "$f" ] || die "no stored dump (COREDUMP_FILENAME='$f')"
ls -l "$f"
getfacl -p "$f" 2>/dev/null | grep "^user:$user:" && die "$f has an ACL entry for $user"
[ "$(stat -c %u "$f")" = 0 ] || die "$f is owned by $(stat -c %u "$f"), not root"
case $(stat -c %a "$f") in *0) ;; *) die "$f is mode $(stat -c %a "$f"): others may read it" ;; esac
setpriv --reuid="$uid" --regid="$gid" --clear-groups cat "$f" > /dev/null 2>&1 && die "$user can read $f"
core=$(plain_core "$f") || die "cannot decompress $f"
gdb -nx -batch -ex bt "$BIN/dropcrash" "$core" > "$WORK/bt" 2>&1
cat "$WORK/bt"
grep -q crash_after_drop "$WORK/bt" || die "the backtrace does not name crash_after_drop"
exit 0
