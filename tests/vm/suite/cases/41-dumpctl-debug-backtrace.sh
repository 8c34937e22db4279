# dumpctl debug runs gdb (batch mode) on a stored, compressed dump with the
# crashed executable; the backtrace names the crashing function. dumpctl dump
# writes the same core decompressed.
. /usr/lib/coredumpd-tests/lib.sh
need_daemon
command -v dumpctl >/dev/null || skip "dumpctl is not installed"
command -v gdb >/dev/null || skip "no gdb in the image"
journal_mark
crash crasher
e=$(wait_entry "$PID" 60) || die "no journal entry for pid $PID"
[ -n "$(field COREDUMP_FILENAME "$e")" ] || die "the crash was not stored"
dumpctl info "$PID" > "$WORK/info" 2>&1 || { cat "$WORK/info"; die "dumpctl info failed"; }
cat "$WORK/info"
grep -q "Rule: builtin:keep" "$WORK/info" || die "info does not name the rule"
dumpctl debug -A '-nx -batch -ex bt' "$PID" > "$WORK/bt" 2>&1 || { cat "$WORK/bt"; die "dumpctl debug failed"; }
cat "$WORK/bt"
grep -q 'crash_here' "$WORK/bt" || die "backtrace does not name crash_here"
grep -q 'main' "$WORK/bt" || die "backtrace does not reach main"
dumpctl -o "$WORK/core" dump "$PID" || die "dumpctl dump failed"
head -c4 "$WORK/core" | grep -q ELF || die "dumpctl dump gave no ELF core"
# The store's metadata alone (as if the journal had lost the entry) finds it too.
dumpctl --no-journal --json list "$PID" | grep -q '"source":"store"' || die "--no-journal does not find the dump"
