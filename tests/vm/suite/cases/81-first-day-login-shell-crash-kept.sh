# A first day under Debian's defaults: a crash in a login shell (su -l) is
# stored, for a user and for root, even when the session starts from Debian's soft RLIMIT_CORE
# of 0 (a getty or sshd that ran before the package came): the package's
# /etc/profile.d/coredumpd.sh raises it while coredumpd is the kernel's handler. The user's core
# carries its read ACL.
# daemon-only
. /usr/lib/coredumpd-tests/lib.sh
need_daemon
[ -r /etc/profile.d/coredumpd.sh ] || die "no /etc/profile.d/coredumpd.sh"
user=cdtlogin
del_user "$user"
useradd -m -s /bin/bash "$user" || die "useradd failed"
on_exit "del_user $user"
uid=$(id -u "$user")

# login WHO — su -l WHO from a shell whose soft RLIMIT_CORE is 0; the session prints its limit and
# crashes the crasher under spawn. Sets PID.
login() {
	local out=$WORK/login.$1
	( ulimit -S -c 0 && su -l "$1" -c "echo limit=\$(ulimit -S -c); $BIN/spawn -t 120 -- $BIN/crasher" ) > "$out" 2>&1 ||
		{ cat "$out"; die "su -l $1 failed"; }
	cat "$out"
	grep -qx 'limit=unlimited' "$out" || die "the login session of $1 has soft RLIMIT_CORE $(sed -n 's/^limit=//p' "$out")"
	read_spawn_line "$(grep '^pid=' "$out")"
	[ "$CORE" = 1 ] || die "the crasher of $1 did not dump core"
}

journal_mark
login "$user"
e=$(wait_entry "$PID" 60) || die "no journal entry for $user's crash $PID"
cat "$e"
[ "$(field COREDUMP_UID "$e")" = "$uid" ] || die "COREDUMP_UID is '$(field COREDUMP_UID "$e")', not $uid"
[ "$(field COREDUMPD_RESULT "$e")" = stored ] || die "$user's crash: '$(field COREDUMPD_RESULT "$e")', not stored"
f=$(field COREDUMP_FILENAME "$e")
[ -n "$f" ] && [ -f "$f" ] || die "no stored dump for $user (COREDUMP_FILENAME='$f')"
getfacl -p "$f" 2>/dev/null | grep -q "^user:$user:r" || die "no read ACL for $user on $f"

login root
e=$(wait_entry "$PID" 60) || die "no journal entry for root's crash $PID"
[ "$(field COREDUMP_UID "$e")" = 0 ] || die "COREDUMP_UID is '$(field COREDUMP_UID "$e")', not 0"
[ "$(field COREDUMPD_RESULT "$e")" = stored ] || die "root's crash: '$(field COREDUMPD_RESULT "$e")', not stored"
exit 0
