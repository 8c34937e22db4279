# A crash in an unprivileged user namespace (unshare -Ur, as a normal user) is attributed to the
# real uid (COREDUMP_UID=), with uid 0 inside (COREDUMPD_NS_UID=) and its own user namespace; its
# core is readable by that user (ACL) and by no other. With its own pid namespace as well
# (unshare -Urpf) the crash counts as in a container: a MatchContainer=yes rule rejects it, while
# the same binary crashing on the host is stored.
. /usr/lib/coredumpd-tests/lib.sh
need_daemon
user=cdtns other=cdtother
for u in $user $other; do
	del_user "$u"
	useradd -m "$u" || die "useradd $u failed"
	on_exit "del_user $u"
done
uid=$(id -u $user)
as() { local u=$1; shift; setpriv --reuid="$(id -u "$u")" --regid="$(id -g "$u")" --init-groups env HOME=/home/$u "$@"; }
chmod 0755 "$WORK"
cp "$BIN/crasher" "$WORK/nscrasher"
chmod 0755 "$WORK/nscrasher"

# 1. user namespace only
journal_mark
as $user "$BIN/spawn" -t 120 -- /usr/bin/unshare -Ur "$WORK/nscrasher" > "$WORK/spawn.out" || die "the crasher in a user namespace did not end"
read_spawn_line "$(head -n1 "$WORK/spawn.out")"
e=$(wait_entry "$PID" 60) || die "no record of the crash in a user namespace ($(cat "$WORK/spawn.out"))"
say "record: UID=$(field COREDUMP_UID "$e") NS_UID=$(field COREDUMPD_NS_UID "$e") OWN_NAMESPACES=$(field COREDUMPD_OWN_NAMESPACES "$e") IN_CONTAINER=$(field COREDUMPD_IN_CONTAINER "$e") RESULT=$(field COREDUMPD_RESULT "$e")"
[ "$(field COREDUMP_UID "$e")" = "$uid" ] || die "COREDUMP_UID is not the real uid $uid"
[ "$(field COREDUMPD_NS_UID "$e")" = 0 ] || die "COREDUMPD_NS_UID is not 0"
field COREDUMPD_OWN_NAMESPACES "$e" | grep -qw user || die "the own user namespace is not recorded"
f=$(field COREDUMP_FILENAME "$e")
[ -n "$f" ] && [ -f "$f" ] || die "the crash was not stored"
getfacl -p "$f" 2>/dev/null | grep -q "^user:$user:r" || die "no read ACL for $user on $f"
as $user head -c4 "$f" > /dev/null || die "$user cannot read its own core"
as $other head -c4 "$f" > /dev/null 2>&1 && die "$other can read $user's core"
say "stored as $f, readable by $user only"

# 2. user and pid namespace: a container for MatchContainer=
add_policy test-no-containers <<'P'
[Rule]
Name=no-containers
MatchComm=nscrasher
MatchContainer=yes
Action=reject
P
journal_mark
as $user "$BIN/spawn" -t 120 -- /usr/bin/unshare -Urpf "$WORK/nscrasher" > "$WORK/spawn.out" || die "the crasher in a pid namespace did not end"
cat "$WORK/spawn.out"
e=
for _ in $(seq 240); do
	_jq -o export $SYSTEM_RECORD COREDUMP_UID="$uid" COREDUMP_COMM=nscrasher 2>/dev/null |
		grep -a -E '^[A-Z_][A-Z0-9_]*=' > "$WORK/entry.ns" || true
	[ -s "$WORK/entry.ns" ] && { e=$WORK/entry.ns; break; }
	sleep 0.25
done
[ -n "$e" ] || die "no record of the crash in a pid namespace"
say "record: NS_PID=$(field COREDUMPD_NS_PID "$e") IN_CONTAINER=$(field COREDUMPD_IN_CONTAINER "$e") RULE=$(field COREDUMPD_RULE "$e") RESULT=$(field COREDUMPD_RESULT "$e")"
[ "$(field COREDUMPD_NS_PID "$e")" = 1 ] || die "the pid inside is not 1"
[ "$(field COREDUMPD_IN_CONTAINER "$e")" = 1 ] || die "not counted as in a container"
[ "$(field COREDUMPD_RULE "$e")" = no-containers ] && [ "$(field COREDUMPD_RESULT "$e")" = rejected ] ||
	die "MatchContainer=yes did not reject it"

# The same binary on the host: stored.
journal_mark
"$BIN/spawn" -t 120 -- "$WORK/nscrasher" > "$WORK/spawn.out" || die "the host crasher did not end"
read_spawn_line "$(head -n1 "$WORK/spawn.out")"
e=$(wait_entry "$PID" 60) || die "no record of the host crash"
[ "$(field COREDUMPD_IN_CONTAINER "$e")" = 0 ] || die "the host crash counts as in a container"
[ "$(field COREDUMPD_RESULT "$e")" = stored ] || die "the host crash: $(field COREDUMPD_RESULT "$e")"
