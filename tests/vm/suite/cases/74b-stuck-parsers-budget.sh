# Attack (issue 38 gap 3): one user makes crash after crash whose parser SIGKILL cannot end. Their
# crasher runs from a directory of theirs, over which a FUSE file system that never answers a LOOKUP
# is mounted while it sleeps (as in case parser-stalled-lookup-killed; mounted by root with
# allow_other, as the user's own FUSE mount would be): the package lookup's walk to the executable
# after the release (the unwinder takes the file through map_files, no path walked) waits on the
# server, uninterruptibly once the request is taken, and the parser killed at its deadline
# stays. Two such crashes at once (the per-tenant stuck budget, STUCK_MAX_PER_TENANT in
# daemon/shared/child.h, is 2) are stored without those symbols, their parsers left stuck and counted
# against the user. Must hold: the user's next crash is answered REJECT at once, recorded as
# overload with the stuck reason ("2 of this tenant's crashes are stuck in the kernel"), no parser
# started for it; another user's crash and root's are stored; the unit's tasks stay below its
# TasksMax=; the daemon is the same process; `systemctl stop coredumpd` takes at most 10 s with the
# parsers still stuck. Once the FUSE connection is aborted every parser ends and is reaped (no
# zombie). (Before the budget, each such crash left a parser and a reaper thread for good, and every
# further crash of the user's started another.)
# daemon-only
. /usr/lib/coredumpd-tests/lib.sh
need_daemon
grep -qw fuse /proc/filesystems || modprobe fuse 2>/dev/null
grep -qw fuse /proc/filesystems || die "no FUSE in kernel $(uname -r) (CONFIG_FUSE_FS)"
budget=2
add_user cdtstuck
add_user cdtother2
dir=/var/lib/cdt-stuck
rm -rf "$dir"
mkdir -p "$dir/bin"
cp "$BIN/crasher" "$dir/bin/crasher"
chmod -R a+rX "$dir"
abort_fuse() { for a in /sys/fs/fuse/connections/*/abort; do echo 1 > "$a"; done 2>/dev/null; }
on_exit "abort_fuse; umount -l $dir 2>/dev/null; rm -rf $dir; systemctl reset-failed coredumpd.service 2>/dev/null"
parsers() { pgrep -x coredumpd-parse | wc -l; }
attack_begin
journal_mark

# The user's crashers, loaded and sleeping (their executable mapped) before the mount covers it.
chmod 0755 "$WORK"
mkdir -p "$WORK/u" && chmod 0777 "$WORK/u"
as_user cdtstuck "$BIN/spawn" -n $budget -t 120 -p "$WORK/u/pids" -- "$dir/bin/crasher" -s 3 > "$WORK/spawn.out" &
spawn=$!
for _ in $(seq 100); do [ "$(wc -l 2>/dev/null < "$WORK/u/pids")" = $budget ] && break; sleep 0.05; done
for p in $(cat "$WORK/u/pids"); do
	for _ in $(seq 100); do grep -q "$dir/bin/crasher" "/proc/$p/maps" 2>/dev/null && break; sleep 0.05; done
done
"$BIN/fusestall" --stall-lookups "$dir" > "$WORK/fuse.out" 2> "$WORK/fuse.err" &
fpid=$!
on_exit "kill $fpid 2>/dev/null"
for _ in $(seq 50); do grep -q ready "$WORK/fuse.out" && break; sleep 0.1; done
grep -q ready "$WORK/fuse.out" || die "fusestall did not mount: $(cat "$WORK/fuse.err")"

# Both stored (without the stalled file's symbols), both parsers left stuck.
wait $spawn || die "the user's crashers were not released within 120 s"
for p in $(cat "$WORK/u/pids"); do
	e=$(wait_entry "$p" 90) || die "the stalled crash $p was not recorded"
	[ "$(field COREDUMPD_RESULT "$e")" = stored ] || die "the stalled crash $p: $(field COREDUMPD_RESULT "$e") $(field COREDUMPD_ERROR "$e")"
done
grep -q "lookup stalled" "$WORK/fuse.err" || die "no parser reached the FUSE server: $(cat "$WORK/fuse.err")"
n=$(parsers)
say "$budget crashes stored, $n parsers left stuck: $(pgrep -x coredumpd-parse | while read -r p; do grep '^State' /proc/$p/status; done | sort | uniq -c | tr -s ' \n' ' ')"
[ "$n" -ge $budget ] || die "only $n parsers stuck: the stall did not hold them"
journalctl -q --no-pager -b --since=@$CASE_START -u coredumpd.service | grep -q "stuck in the kernel" ||
	die "the daemon never said a parser is stuck in the kernel"

# The user's next crash: answered at once for their stuck work, no parser for it.
t0=$(date +%s%N)
as_user cdtstuck "$BIN/spawn" -t 60 -- "$BIN/crasher" > "$WORK/next.out" || die "the user's next crasher did not end"
ms=$((($(date +%s%N) - t0) / 1000000))
read_spawn_line "$(head -n1 "$WORK/next.out")"
e=$(wait_entry "$PID" 30) || die "the user's next crash $PID has no record"
say "the user's next crash: $(field COREDUMPD_RESULT "$e"), $(field COREDUMPD_ERROR "$e"); released after $ms ms"
[ "$(field COREDUMPD_RESULT "$e")" = overload ] || die "the user's next crash was $(field COREDUMPD_RESULT "$e"), not rejected for overload"
why=$(field COREDUMPD_ERROR "$e")
[[ $why =~ ^([0-9]+)" of this tenant's crashes are stuck in the kernel"$ ]] && [ "${BASH_REMATCH[1]}" -ge $budget ] ||
	die "the user's next crash was rejected for '$(field COREDUMPD_ERROR "$e")', not their stuck work"
[ "$CORE" = 0 ] || die "the rejected crash has a core on the kernel's side"
[ "$ms" -le 5000 ] || die "the rejected crash was held $ms ms"
[ "$(parsers)" = "$n" ] || die "a parser was started for the rejected crash ($(parsers) now, $n before)"

# Everyone else's crashes go on.
as_user cdtother2 "$BIN/spawn" -t 60 -- "$BIN/crasher" > "$WORK/other.out" || die "the other user's crasher did not end"
read_spawn_line "$(head -n1 "$WORK/other.out")"
e=$(wait_entry "$PID" 40) || die "the other user's crash $PID has no record"
[ "$(field COREDUMPD_RESULT "$e")" = stored ] || die "the other user's crash: $(field COREDUMPD_RESULT "$e") $(field COREDUMPD_ERROR "$e")"
attack_survived
tasks=$(systemctl show -P TasksCurrent coredumpd.service) max=$(systemctl show -P TasksMax coredumpd.service)
say "the other user's and root's crashes stored; the unit has $tasks tasks of TasksMax=$max"
[ -n "$tasks" ] && [ "$tasks" != '[not set]' ] || die "no TasksCurrent for coredumpd.service"
[ "$tasks" -lt "$max" ] || die "the unit reached TasksMax= ($tasks of $max)"

# Stopped with the parsers still stuck.
t0=$(date +%s%N)
timeout 30 systemctl stop coredumpd.service || die "systemctl stop coredumpd failed"
stop_ms=$((($(date +%s%N) - t0) / 1000000))
say "systemctl stop coredumpd: $stop_ms ms, $(parsers) parsers still stuck; the unit is $(systemctl is-active coredumpd.service)"
# (Said at the end: what follows is worth seeing either way.)
[ "$stop_ms" -le 10000 ] || late="systemctl stop coredumpd took $stop_ms ms (more than 10 s)"

# The file system gone, every parser ends and is reaped.
abort_fuse
for _ in $(seq 40); do [ "$(parsers)" = 0 ] && break; sleep 0.25; done
[ "$(parsers)" = 0 ] || die "parsers left after their file system went away: $(pgrep -a -x coredumpd-parse)"
z=$(ps -eo stat=,pid=,comm= | awk '$1 ~ /^Z/ && $3 ~ /^coredumpd/')
[ -z "$z" ] || die "zombies left: $z"
[ -z "${late:-}" ] || die "$late"
say "# report: stuck-parsers-budget: $n parsers stuck, the user's next crash rejected in $ms ms, others stored, $tasks/$max tasks, stop in $stop_ms ms"
