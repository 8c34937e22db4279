# An ordinary process (even root) connecting to /run/coredump.socket is not
# the kernel: coredumpd closes the connection and logs a refusal.
. /usr/lib/coredumpd-tests/lib.sh
need_daemon
journal_mark
n0=$(entry_count)
"$BIN/sockclient" "$SOCK" 20 > "$WORK/client.out"
rc=$?
cat "$WORK/client.out"
[ $rc = 0 ] || die "connection not closed by coredumpd (rc=$rc)"
sleep 1
_jq -o short-monotonic _COMM=coredumpd > "$WORK/log" 2>/dev/null
_jq -o short-monotonic -u 'coredumpd*' >> "$WORK/log" 2>/dev/null
cat "$WORK/log"
grep -Eiq 'refus|not (from )?the kernel|non-kernel|reject' "$WORK/log" || die "no refusal logged"
[ "$(entry_count)" = "$n0" ] || die "a coredump entry was logged for a plain client"
