# bookworm's coredumpctl finds coredumpd's entries: list, info (with the
# storage path) and dump.
# daemon-only
. /usr/lib/coredumpd-tests/lib.sh
need_daemon
journal_mark
crash crasher
e=$(wait_entry "$PID" 60) || die "no journal entry for pid $PID"
coredumpctl --no-pager list "$PID" > "$WORK/list" 2>&1 || { cat "$WORK/list"; die "coredumpctl list $PID failed"; }
cat "$WORK/list"
grep -q "crasher" "$WORK/list" || die "coredumpctl list does not show the crasher"
coredumpctl --no-pager info "$PID" > "$WORK/info" 2>&1 || { cat "$WORK/info"; die "coredumpctl info failed"; }
cat "$WORK/info"
grep -q "Signal: 11" "$WORK/info" || die "coredumpctl info lacks the signal"
grep -q "Storage: $STORE/" "$WORK/info" || die "coredumpctl info shows no storage in $STORE"
coredumpctl --no-pager -o "$WORK/core" dump "$PID" >/dev/null 2>&1 || die "coredumpctl dump failed"
head -c4 "$WORK/core" | grep -q ELF || die "coredumpctl dump gave no ELF core"
