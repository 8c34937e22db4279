# Attack: eat the daemon's file descriptors. Two unprivileged users keep 40 slow crashes each in
# flight (a trickling FUSE file in every core: each held or queued crash keeps its connection and
# pidfd open), while a root process opens 50 connections of its own to the socket and holds them
# (non-kernel peers are refused at accept, once accepted). The running daemon's RLIMIT_NOFILE is
# lowered to 256 for this case (prlimit: what LimitNOFILE=256 gives at start, without the two
# daemon-reloads of a drop-in; the daemon is stopped at the end, its next start has the unit's):
# the shipped 16384 is beyond what the shipped bounds (MaxQueued= and the rest) let crashes take,
# and the point is what the daemon does at its limit. Must hold: the
# listener pauses before the last fds (the journal says so) instead of accepting a crash it then
# cannot authenticate (no fd for its pidfd: closed without a record), and it does not spin (the
# daemon's utime+stime over 5 s while paused stays low); a crash of root's made meanwhile waits in
# the backlog and is stored once the listener resumes; when the attackers give up, every crash the
# kernel announced ends as exactly one record; the junk connections get none; the daemon is the
# same process and root's next crash is stored.
# case-timeout: 300
# daemon-only
. /usr/lib/coredumpd-tests/lib.sh
need_daemon
n=40 nofile=256 junk=50
u1=cdtfd1 u2=cdtfd2
add_user $u1
add_user $u2
trickle_mount 2

on_exit "systemctl stop coredumpd.service"
attack_begin
main=$ATTACK_MAIN
prlimit --pid "$main" --nofile=$nofile:$nofile || die "cannot lower the daemon's RLIMIT_NOFILE"
grep -q "^Max open files *$nofile " /proc/$main/limits || die "the daemon's LimitNOFILE is not $nofile: $(grep 'open files' /proc/$main/limits)"
journal_mark
n0=$(entry_count)

mkdir -p "$WORK/att" && chmod 0777 "$WORK/att"
on_exit "kill_pids '$WORK/att/pids.$u1'; kill_pids '$WORK/att/pids.$u2'"
for u in $u1 $u2; do
	as_user $u "$BIN/spawn" -n $n -t 280 -p "$WORK/att/pids.$u" -- "$SLOWCRASH" fdeater > /dev/null 2>&1 &
done
( for i in $(seq $junk); do "$BIN/sockclient" "$SOCK" 120 > /dev/null & done; wait ) &
junkers=$!

# The listener pauses before its last fds.
paused=
for _ in $(seq 120); do
	journalctl -q --no-pager -b --since=@$SINCE _PID=$main 2>/dev/null | grep -q 'pausing for' && { paused=1; break; }
	sleep 1
done
nfd=$(ls /proc/$main/fd | wc -l)
[ -n "$paused" ] || die "the listener never paused ($nfd fds open of $nofile)"
say "paused with $nfd fds open of $nofile"

# No busy loop meanwhile: CPU of the daemon over 5 s.
t0=$(awk '{print $14 + $15}' /proc/$main/stat)
sleep 5
t1=$(awk '{print $14 + $15}' /proc/$main/stat)
hz=$(getconf CLK_TCK)
say "daemon CPU while out of fds: $((t1 - t0)) ticks in 5 s (CLK_TCK $hz)"
[ $((t1 - t0)) -le $((hz * 5 / 4)) ] || die "the daemon used $((t1 - t0)) ticks of CPU in 5 s while out of fds: it spins"

# Root's crash meanwhile: waits in the backlog, stored once the listener resumes.
"$BIN/spawn" -t 280 -p "$WORK/att/pids.root" -- "$BIN/crasher" > "$WORK/root.out" &
rootspawn=$!
sleep 3
# The attackers give up (and so do the junk connections): fds come back, the listener resumes.
kill_pids "$WORK/att/pids.$u1"
kill_pids "$WORK/att/pids.$u2"
wait $rootspawn || die "root's crasher did not end: $(cat "$WORK/root.out")"
read_spawn_line "$(head -n1 "$WORK/root.out")"
e=$(wait_entry "$PID" 120) || die "root's crash $PID made while the daemon was out of fds has no record"
[ "$(field COREDUMPD_RESULT "$e")" = stored ] || die "root's crash made while out of fds: $(field COREDUMPD_RESULT "$e") $(field COREDUMPD_ERROR "$e")"
wait $junkers

cat "$WORK/att/pids.$u1" "$WORK/att/pids.$u2" "$WORK/att/pids.root" > "$WORK/att/all"
[ "$(sort -u "$WORK/att/all" | wc -l)" = $((2 * n + 1)) ] || die "$(sort -u "$WORK/att/all" | wc -l) of $((2 * n + 1)) crashers started"
wait_all_recorded "$WORK/att/all" 150
say "every crash one record: $(cut -d'|' -f2 "$WORK/records" | sort | uniq -c | tr -s ' \n' ' ')"
n1=$(entry_count)
[ $((n1 - n0)) = $((2 * n + 1)) ] || die "$((n1 - n0)) records for $((2 * n + 1)) crashes and $junk junk connections"
journalctl -q --no-pager -b --since=@$SINCE _PID=$main 2>/dev/null | grep -q 'Refusing connection' ||
	die "the junk connections were never refused"
attack_survived
say "the daemon survived: same pid $ATTACK_MAIN, root's crash stored"
