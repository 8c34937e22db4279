# Attack (issue 38, item 1): a regular user in a user and mount namespace of their own (unshare -Urm)
# runs a program (crasher, -g -O0) from a directory of theirs, then mounts their own FUSE server, one
# that never answers a LOOKUP (src/fusestall.c --stall-lookups), over the directory on the way to it
# — without allow_other (--private): a mount of theirs that only their own ids may use, so that the
# parser of their crash, which runs as them, is let in (with allow_other, a mount made in a user
# namespace admits only processes of that namespace: the parser, in a user namespace of its own,
# would be refused at once, unasked).
# The program's file itself is local (its device is in the task's mountinfo, on a local file
# system: the one rule calls it local), but the path its maps name now leads through the user's
# FUSE directory. The unwinder used to open every mapped file by that path in the task's root: the
# parser's lookup waited on the user's server until the daemon killed it at UnwindTimeout= + 1 s,
# and the program's frames stayed unnamed. Now the parser takes a mapped file only through
# /proc/<pid>/map_files (the mapped file itself, no path walked; parser/map-files.c). Must hold:
# the crash stored and released before UnwindTimeout= + 1 s; the program's frame crash_here named
# in COREDUMPD_FRAME; the user's server never saw a LOOKUP; no parser killed; nothing of the
# daemon's in D state; then the daemon is the same process, root's next crash is stored
# (attack_survived) and `systemctl stop coredumpd` completes within 10 s.
# daemon-only
. /usr/lib/coredumpd-tests/lib.sh
need_daemon
grep -qw fuse /proc/filesystems || modprobe fuse 2>/dev/null
grep -qw fuse /proc/filesystems || die "no FUSE in kernel $(uname -r) (CONFIG_FUSE_FS)"

add_user cdtcover
as_user cdtcover unshare -Urm true 2>/dev/null || die "unprivileged user namespaces are off"
chmod 0755 "$WORK"
dir=$WORK/cover out=$WORK/cover-out
mkdir -p "$dir/bin" "$out"
cp "$BIN/crasher" "$dir/bin/crasher"
chown -R cdtcover "$dir" "$out"

attack_begin
journal_mark
# In the user's namespaces: the program started and mapped, the FUSE mounted over its directory,
# the crash (after 3 s), the server killed once the crash is released.
as_user cdtcover unshare -Urm sh -c '
	dir=$1 out=$2 bin=$3
	"$bin/spawn" -t 60 -p "$out/pids" -- "$dir/bin/crasher" -s 3 > "$out/spawn.out" 2> "$out/spawn.err" &
	spawn=$!
	for i in $(seq 100); do [ -s "$out/pids" ] && break; sleep 0.05; done
	pid=$(head -n1 "$out/pids")
	for i in $(seq 100); do grep -q "$dir/bin/crasher" "/proc/$pid/maps" 2>/dev/null && break; sleep 0.05; done
	"$bin/fusestall" --stall-lookups --private "$dir" > "$out/fuse.out" 2> "$out/fuse.err" &
	server=$!
	echo "server $server"
	for i in $(seq 50); do grep -q ready "$out/fuse.out" && break; sleep 0.1; done
	grep -q ready "$out/fuse.out" || echo "no mount"
	wait $spawn
	kill -KILL $server' sh "$dir" "$out" "$BIN" > "$WORK/user.out" 2>&1
cat "$WORK/user.out" | cut -c1-200
! grep -q "no mount" "$WORK/user.out" || die "fusestall did not mount: $(cut -c1-200 "$out/fuse.err")"
read_spawn_line "$(grep -m1 '^pid=' "$out/spawn.out")"
held=$(sed -n 's/^pid=.* coredumping_ms=\([0-9]*\).*/\1/p' "$out/spawn.out")
say "crash: pid $PID, signal $SIGNAL, held $held ms"
[ "$SIGNAL" = 11 ] || die "crasher died of signal '$SIGNAL': $(cut -c1-200 "$out/spawn.err")"
e=$(wait_entry "$PID" 60) || die "no record of the crash ($PID)"
say "record: RESULT=$(field COREDUMPD_RESULT "$e") ERROR=$(field COREDUMPD_ERROR "$e") UNWIND_USEC=$(field COREDUMPD_UNWIND_USEC "$e")"
sed -n 's/^COREDUMPD_FRAME=//p' "$e" | head -n4
[ "$(field COREDUMPD_RESULT "$e")" = stored ] || die "the crash was not stored"
grep -q '^COREDUMPD_FRAME=0 .* crash_here+0x' "$e" || die "frame 0 is not crash_here (the program's file was not read)"
! grep -q "lookup stalled" "$out/fuse.err" ||
	die "something walked a path through the user's FUSE directory: $(head -c 300 "$out/fuse.err")"
! journalctl -q --no-pager -b --since=@$CASE_START -u coredumpd.service | grep -q "killed at its deadline" ||
	die "a parser was killed at its deadline"
[ -n "$held" ] && [ "$held" -lt 4000 ] || die "the crash was held ${held:-?} ms, not less than UnwindTimeout= + 1 s"
s=$(daemon_stuck)
[ -z "$s" ] || die "threads or processes of the daemon wait in D state:$s"
attack_survived

t0=$(date +%s%N)
timeout 30 systemctl stop coredumpd.service || die "systemctl stop coredumpd failed"
ms=$((($(date +%s%N) - t0) / 1000000))
[ "$ms" -le 10000 ] || die "systemctl stop coredumpd took $ms ms (more than 10 s)"
say "# report: fuse-over-mapped-file-path: held $held ms, crash_here named, no LOOKUP reached the user's server, stop in $ms ms"
