# RLIMIT_CORE is a size, as the kernel takes it for core files: a task with a soft limit of 1 MiB
# that crashes holding 8 MiB gets a core cut at 1 MiB, marked truncated (it was only ever compared
# with 0, so any user's limit was ignored and MaxSize= alone bounded the core).
. /usr/lib/coredumpd-tests/lib.sh
need_daemon
limit=$((1 << 20))
add_policy test-rlimit-size <<'P'
[Rule]
Name=rlimit-size
MatchComm=crasher-big
Action=kernel
Compress=none
P
journal_mark
( ulimit -S -c $((limit / 1024)); "$BIN/spawn" -t 120 -- "$BIN/crasher-big" -m 8 ) > "$WORK/spawn.out" ||
	die "the crasher did not end"
read_spawn_line "$(head -n1 "$WORK/spawn.out")"
e=$(wait_entry "$PID" 60) || die "no journal entry for pid $PID"
say "record: RESULT=$(field COREDUMPD_RESULT "$e") TRUNCATED=$(field COREDUMP_TRUNCATED "$e") RLIMIT=$(field COREDUMP_RLIMIT "$e")"
[ "$(field COREDUMPD_RESULT "$e")" = stored ] || die "not stored"
[ "$(field COREDUMP_RLIMIT "$e")" = "$limit" ] || die "COREDUMP_RLIMIT is not $limit"
[ "$(field COREDUMP_TRUNCATED "$e")" = 1 ] || die "the core is not marked truncated"
f=$(field COREDUMP_FILENAME "$e")
[ -n "$f" ] && [ -f "$f" ] || die "no stored core"
size=$(stat -c %s "$f")
say "stored $size bytes"
[ "$size" -le "$limit" ] || die "the core is $size bytes, more than RLIMIT_CORE=$limit"
[ "$size" -gt 0 ] || die "the core is empty"
