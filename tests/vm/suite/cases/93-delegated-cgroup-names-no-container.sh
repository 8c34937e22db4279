# Attack: a user names their own cgroup like a machine. systemd delegates user@UID.service's cgroup
# to the user (chowns it), so they may make "machine-prod.scope" under it and crash a program
# there. Before, the whole cgroup path was read for container names: the crash was recorded as
# machine "prod" (COREDUMPD_CONTAINER=prod) and an operator's MatchMachine=prod rule applied to it.
# Now names are taken only from the part of the path root named: the crash names no container,
# records COREDUMPD_CGROUP_DELEGATED_TO=UID, and the rule for the machine does not apply. A real
# container's name (case nspawn-container-crash) is still taken, from a cgroup root named.
. /usr/lib/coredumpd-tests/lib.sh
need_daemon
attack_begin
user=cdtdeleg
userdel -r "$user" >/dev/null 2>&1 || true
useradd -m "$user" || die "useradd failed"
uid=$(id -u "$user")
on_exit "loginctl disable-linger $user 2>/dev/null; systemctl stop user@$uid.service 2>/dev/null; userdel -r $user >/dev/null 2>&1"
loginctl enable-linger "$user" || die "loginctl enable-linger failed"
systemctl start "user@$uid.service" || die "user@$uid.service did not start"
svc=/sys/fs/cgroup/user.slice/user-$uid.slice/user@$uid.service
[ -d "$svc" ] || die "no cgroup $svc"
[ "$(stat -c %u "$svc")" = "$uid" ] || die "$svc is not delegated to $uid (owner $(stat -c %u "$svc"))"
as_user() { setpriv --reuid="$uid" --regid="$(id -g "$user")" --init-groups env HOME=/home/$user "$@"; }
as_user mkdir "$svc/machine-prod.scope" || die "the user cannot make a cgroup in their own subtree"

add_policy test-delegated <<'P'
[Rule]
Name=prod-machine-rejected
MatchMachine=prod
Action=reject
P

journal_mark
chmod 0755 "$WORK"
pids=/home/$user/pids
as_user "$BIN/spawn" -t 120 -p "$pids" -- "$BIN/crasher" -s 2 > "$WORK/spawn.out" &
spawn=$!
for _ in $(seq 100); do [ -s "$pids" ] && break; sleep 0.05; done
PID=$(head -n1 "$pids")
[ -n "$PID" ] || die "the crasher did not start"
# The user's own doing (root writes it here only because the case's shell is not in the subtree).
echo "$PID" > "$svc/machine-prod.scope/cgroup.procs" || die "cannot move $PID into the user's cgroup"
grep -q "machine-prod.scope" "/proc/$PID/cgroup" || die "the crasher is not in machine-prod.scope"
wait $spawn || die "the crasher did not end"
read_spawn_line "$(head -n1 "$WORK/spawn.out")"
e=$(wait_entry "$PID" 60) || die "no record of the crash in the delegated cgroup"
say "record: CGROUP=$(field COREDUMP_CGROUP "$e") CONTAINER=$(field COREDUMPD_CONTAINER "$e") DELEGATED_TO=$(field COREDUMPD_CGROUP_DELEGATED_TO "$e") RULE=$(field COREDUMPD_RULE "$e") RESULT=$(field COREDUMPD_RESULT "$e")"
[ -z "$(field COREDUMPD_CONTAINER "$e")" ] || die "a user's cgroup named the container $(field COREDUMPD_CONTAINER "$e")"
[ "$(field COREDUMPD_CGROUP_DELEGATED_TO "$e")" = "$uid" ] || die "COREDUMPD_CGROUP_DELEGATED_TO is not $uid"
[ "$(field COREDUMPD_RULE "$e")" != prod-machine-rejected ] || die "the machine's rule applied to a user's crash"
[ "$(field COREDUMPD_RESULT "$e")" = stored ] || die "the user's crash was not stored"
rmdir "$svc/machine-prod.scope" 2>/dev/null
attack_survived
