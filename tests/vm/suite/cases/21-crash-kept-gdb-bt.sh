# A crash under the default policy is stored in /var/lib/coredumpd and logged
# with systemd-coredump's MESSAGE_ID; gdb's backtrace of the stored dump names
# the crashing function; the record has the crash's status, maps and limits.
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
# The record's /proc texts for its readers (COREDUMP_PROC_*=, read by the tenant's reader while the
# task was held): of many lines, so not in the export above; each read with -o cat.
proc_text() { _jq -o cat --all --output-fields="$1" $SYSTEM_RECORD COREDUMP_PID="$PID" 2>/dev/null; }
proc_text COREDUMP_PROC_MAPS > "$WORK/maps"
grep -q ' r-xp .*/crasher$' "$WORK/maps" || die "COREDUMP_PROC_MAPS names no code of crasher: $(head -c 800 "$WORK/maps")"
proc_text COREDUMP_PROC_LIMITS > "$WORK/limits"
grep -q '^Max core file size  ' "$WORK/limits" || die "COREDUMP_PROC_LIMITS: $(cat "$WORK/limits")"
proc_text COREDUMP_PROC_STATUS > "$WORK/status"
grep -q "^Name:	crasher$" "$WORK/status" && grep -q '^Uid:	0	' "$WORK/status" ||
	die "COREDUMP_PROC_STATUS: $(head -c 800 "$WORK/status")"
