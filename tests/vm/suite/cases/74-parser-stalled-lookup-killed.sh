# Attack: a path a parser resolves leads into a file system whose server never answers.
# The crasher runs from /var/lib/cdt-fz/bin/crasher; while it sleeps, a FUSE file system that never
# answers a LOOKUP is mounted over /var/lib/cdt-fz. Its mapping still names the file underneath
# (not on FUSE, so not marked remote), but whoever opens that path now waits for the server.
# Before the parser, the daemon's own worker opened it (libdwfl, by path) and waited forever: the
# crash was never recorded, its slot never came back. The unwinder now takes the mapped files only
# through /proc/<pid>/map_files (no path walked, parser/map-files.c): the crash is released within
# UnwindTimeout= and its frame crash_here is named. What still walks the path is the package lookup
# after the release (`coredumpd-parser --package`, the executable's package note, in the daemon's
# root, where the mount is too): while it waits this case reads its /proc/PID/status: not root,
# nor nobody (an id no other process has: nobody cannot signal it), no capability, no_new_privs, a
# seccomp filter of its own (Seccomp_filters one more than the daemon's: the unit's filters, which
# every child inherits, and the daemon's own do not count), a user namespace of its own. The daemon
# kills it at its deadline and goes on: the crash is stored, the daemon is the same process, and
# the next (root's) crash is stored. A FUSE request the server has taken is waited for even by a
# killed process: the parser stays, SIGKILLed, until the file system goes away, and is then reaped
# by the daemon (no zombie is left).
. /usr/lib/coredumpd-tests/lib.sh
need_daemon
grep -qw fuse /proc/filesystems || modprobe fuse 2>/dev/null
grep -qw fuse /proc/filesystems || die "no FUSE in kernel $(uname -r) (CONFIG_FUSE_FS)"

daemon_warm
main=$(systemctl show -P MainPID coredumpd.service)
dir=/var/lib/cdt-fz
rm -rf "$dir"
mkdir -p "$dir/bin"
cp "$BIN/crasher" "$dir/bin/crasher"
on_exit "for a in /sys/fs/fuse/connections/*/abort; do echo 1 > \$a; done; umount -l $dir 2>/dev/null; rm -rf $dir"

journal_mark
rm -f "$WORK/pids"
"$BIN/spawn" -t 120 -p "$WORK/pids" -- "$dir/bin/crasher" -s 3 > "$WORK/spawn.out" &
spawn=$!
for _ in $(seq 100); do [ -s "$WORK/pids" ] && break; sleep 0.05; done
PID=$(head -n1 "$WORK/pids")
[ -n "$PID" ] || die "the crasher did not start"
# Loaded and sleeping (its exe mapped) before the mount covers its directory.
for _ in $(seq 100); do grep -q "$dir/bin/crasher" "/proc/$PID/maps" 2>/dev/null && break; sleep 0.05; done
"$BIN/fusestall" --stall-lookups "$dir" > "$WORK/fuse.out" 2> "$WORK/fuse.err" &
fpid=$!
on_exit "kill $fpid 2>/dev/null"
for _ in $(seq 50); do grep -q ready "$WORK/fuse.out" && break; sleep 0.1; done
grep -q ready "$WORK/fuse.out" || die "fusestall did not mount: $(cat "$WORK/fuse.err")"

# The (package) parser, while it waits in the path walk.
status=
for _ in $(seq 800); do
	p=$(pgrep -x coredumpd-parse | head -n1)
	if [ -n "$p" ] && grep -q "lookup stalled" "$WORK/fuse.err"; then
		status=$(cat "/proc/$p/status" 2>/dev/null) && [ -n "$status" ] && break
	fi
	sleep 0.05
done
[ -n "$status" ] || die "no coredumpd-parser caught waiting in the path walk (fuse: $(cat "$WORK/fuse.err"))"
echo "$status" | grep -E '^(Name|Uid|Gid|Groups|CapInh|CapPrm|CapEff|CapBnd|CapAmb|NoNewPrivs|Seccomp|Seccomp_filters):' | sed 's/^/parser: /'
# Root's crash: not the crashing user's ids, nor nobody's (which any nobody service shares), but an id
# of its own from the cells' range (meson's cell_ids_first/_count: 0x7FFD0000 and the 65535 above).
uids=$(echo "$status" | awk '/^Uid:/ {print $2, $3, $4, $5}')
gids=$(echo "$status" | awk '/^Gid:/ {print $2, $3, $4, $5}')
set -- $uids
uid=$1
[ "$1" = "$2" ] && [ "$1" = "$3" ] && [ "$1" = "$4" ] && [ "$1" -ge 2147287040 ] && [ "$1" -le 2147352575 ] ||
	die "the parser of root's crash runs as uids '$uids', not an id of the cells' range"
[ "$gids" = "$uids" ] || die "the parser's gids '$gids' are not its uids '$uids'"
# What the shared nobody allowed: any process of nobody's could signal (or prlimit) the parser.
if setpriv --reuid=65534 --regid=65534 --clear-groups kill -0 "$p" 2>/dev/null; then
	die "a process of nobody's may signal the parser of root's crash"
fi
for set in CapPrm CapEff CapAmb; do
	v=$(echo "$status" | awk -v s="$set:" '$1 == s {print $2}')
	[ "$v" = 0000000000000000 ] || die "the parser holds capabilities: $set $v"
done
echo "$status" | grep -q '^NoNewPrivs:[[:space:]]*1' || die "the parser lacks no_new_privs"
echo "$status" | grep -q '^Seccomp:[[:space:]]*2' || die "the parser has no system call filter"
# Seccomp: 2 alone would hold with the filters inherited from the unit (SystemCallFilter= and the
# others systemd installs) and from the daemon; the parser's own is one more than its parent has.
parser_filters=$(echo "$status" | awk '/^Seccomp_filters:/ {print $2}')
daemon_filters=$(awk '/^Seccomp_filters:/ {print $2}' "/proc/$main/status")
say "parser: $parser_filters system call filters, the daemon $daemon_filters"
[ -n "$parser_filters" ] && [ -n "$daemon_filters" ] || die "no Seccomp_filters in /proc/PID/status (Linux >= 5.9)"
[ "$daemon_filters" -ge 2 ] || die "the daemon has $daemon_filters filters: not the unit's and its own"
[ "$parser_filters" -eq $((daemon_filters + 1)) ] ||
	die "the parser has $parser_filters filters, the daemon $daemon_filters: none of the parser's own"
# Its own user namespace (the kernel allows unprivileged user namespaces here).
for ns in user; do
	mine=$(readlink /proc/1/ns/$ns) theirs=$(readlink "/proc/$p/ns/$ns")
	say "parser: $ns namespace $theirs (init: $mine)"
	[ -n "$theirs" ] && [ "$theirs" != "$mine" ] || die "the parser shares the host's $ns namespace"
done

wait $spawn || die "the crasher was not released within 120 s"
read_spawn_line "$(head -n1 "$WORK/spawn.out")"
held=$(sed -n 's/^pid=.* coredumping_ms=\([0-9]*\).*/\1/p' "$WORK/spawn.out" | head -n1)
e=$(wait_entry "$PID" 60) || die "the crash was not recorded"
say "record: RESULT=$(field COREDUMPD_RESULT "$e") ERROR=$(field COREDUMPD_ERROR "$e") held ${held:-?} ms"
[ "$(field COREDUMPD_RESULT "$e")" = stored ] || die "the crash was not stored"
grep -q '^COREDUMPD_FRAME=0 .* crash_here+0x' "$e" || die "frame 0 is not crash_here: the unwinder did not reach the file"
[ -n "$held" ] && [ "$held" -lt 4000 ] || die "the crash was held ${held:-?} ms: the unwinder waited on the path"
journalctl -q --no-pager -b --since=@$CASE_START -u coredumpd.service | grep -q "killed at its deadline" ||
	die "the daemon did not say it killed the parser at its deadline"
[ "$(systemctl show -P MainPID coredumpd.service)" = "$main" ] || die "the daemon is not the same process (was $main)"
for p in $(pgrep -x coredumpd-parse); do
	sig=$(awk '/^SigPnd:/ {print $2}' "/proc/$p/status" 2>/dev/null)
	shd=$(awk '/^ShdPnd:/ {print $2}' "/proc/$p/status" 2>/dev/null)
	[ -n "$sig$shd" ] || continue # ended meanwhile
	# SIGKILL (9) is bit 8 of the pending sets.
	[ $(((0x${sig:-0} | 0x${shd:-0}) & 0x100)) != 0 ] ||
		die "parser $p outlived its deadline without a SIGKILL: $(grep -E '^(State|SigPnd|ShdPnd)' "/proc/$p/status")"
	say "parser $p waits in the kernel, killed: $(grep -E '^State' "/proc/$p/status")"
done
# The file system gone, the killed parser ends and is reaped.
for a in /sys/fs/fuse/connections/*/abort; do echo 1 > "$a"; done
for _ in $(seq 40); do pgrep -x coredumpd-parse >/dev/null || break; sleep 0.25; done
! pgrep -x coredumpd-parse >/dev/null || die "a parser is left after its file system went away: $(pgrep -a -x coredumpd-parse)"

crash crasher
e=$(wait_entry "$PID" 60) || die "the next crash was not recorded"
[ "$(field COREDUMPD_RESULT "$e")" = stored ] || die "the next crash: $(field COREDUMPD_RESULT "$e")"
say "# report: parser-stalled-lookup: the unwinder named crash_here without the path (held $held ms); the package parser as uid $uid (an id of its own, not nobody: nobody cannot signal it), no capabilities, a seccomp filter of its own; killed at its deadline; the daemon served on"
