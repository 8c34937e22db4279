# A crash under the default policy is stored in /var/lib/coredumpd and logged
# with systemd-coredump's MESSAGE_ID; gdb's backtrace of the stored dump names
# the crashing function.
. /usr/lib/coredumpd-tests/lib.sh
need_daemon
journal_mark
crash crasher
cat "$WORK/spawn.out"
[ "$SIGNAL" = 11 ] || die "crasher died of signal $SIGNAL"
[ "$CORE" = 1 ] || die "parent did not see WCOREDUMP"
e=$(wait_entry "$PID" 60) || die "no journal entry for pid $PID"
cat "$e"
[ "$(field COREDUMP_SIGNAL "$e")" = 11 ] || die "COREDUMP_SIGNAL is not 11"
[ "$(field COREDUMPD_ACTION "$e")" = kernel ] || die "COREDUMPD_ACTION is '$(field COREDUMPD_ACTION "$e")', not kernel"
case $(field COREDUMP_EXE "$e") in */crasher) ;; *) die "COREDUMP_EXE is '$(field COREDUMP_EXE "$e")'" ;; esac
f=$(field COREDUMP_FILENAME "$e")
[ -n "$f" ] || f=$(store_file_for "$PID")
[ -n "$f" ] && [ -f "$f" ] || die "no stored dump (COREDUMP_FILENAME='$f'); store: $(store_files)"
case $f in "$STORE"/*) ;; *) die "dump stored outside $STORE: $f" ;; esac
core=$(plain_core "$f") || die "cannot decompress $f"
gdb -nx -batch -ex bt "$BIN/crasher" "$core" > "$WORK/bt" 2>&1
cat "$WORK/bt"
grep -q 'crash_here' "$WORK/bt" || die "backtrace does not name crash_here"
grep -q 'main' "$WORK/bt" || die "backtrace does not reach main"
