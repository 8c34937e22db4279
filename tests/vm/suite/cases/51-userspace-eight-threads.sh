# Action=userspace with an 8-thread crasher whose last thread crashes: the core coredumpd writes
# has all 8 threads, the crashing one current (first NT_PRSTATUS) with crash_here on its stack.
. /usr/lib/coredumpd-tests/lib.sh
need_daemon
daemon_warm     # the probe must be attached before the crash
add_policy test-uscrash-threads <<'P'
[Rule]
Name=uscrash-threads
MatchExe=*/uscrash
Action=userspace
P
journal_mark
crash uscrash -c wild -t 8
cat "$WORK/spawn.out"
[ "$SIGNAL" = 11 ] || die "uscrash died of signal $SIGNAL"
e=$(wait_entry "$PID" 60) || die "no journal entry for pid $PID"
cat "$e"
[ "$(field COREDUMPD_RESULT "$e")" = stored ] || die "COREDUMPD_RESULT is '$(field COREDUMPD_RESULT "$e")'"
[ "$(field COREDUMPD_USERSPACE_THREADS "$e")" = 8 ] || die "COREDUMPD_USERSPACE_THREADS is '$(field COREDUMPD_USERSPACE_THREADS "$e")'"
tid=$(field COREDUMPD_CRASH_TID "$e")
[ -n "$tid" ] && [ "$tid" != "$PID" ] || die "COREDUMPD_CRASH_TID '$tid' is not a worker thread of $PID"
f=$(field COREDUMP_FILENAME "$e")
[ -n "$f" ] && [ -f "$f" ] || die "no stored dump"
core=$(plain_core "$f") || die "cannot decompress $f"
gdb -nx -batch -ex 'info threads' -ex bt -ex 'thread apply all bt 3' "$BIN/uscrash" "$core" > "$WORK/gdb" 2>&1
cat "$WORK/gdb"
n=$(grep -cE '^[* ] +[0-9]+ +(LWP|Thread) ' "$WORK/gdb")
[ "$n" = 8 ] || die "gdb shows $n threads, not 8"
grep -qE "^\* +1 +(LWP $tid|Thread .*LWP $tid)" "$WORK/gdb" || die "the current thread is not the crashing LWP $tid"
grep -q 'crash_here' "$WORK/gdb" || die "backtrace does not name crash_here"
grep -q 'crash_caller' "$WORK/gdb" || die "backtrace does not name crash_caller"
