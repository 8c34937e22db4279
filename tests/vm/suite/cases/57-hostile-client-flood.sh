# A local client floods the socket with connects and junk while users crash: every junk connection
# is refused (no record), and every crash is still recorded and stored.
# daemon-only
. /usr/lib/coredumpd-tests/lib.sh
need_daemon
journal_mark
n0=$(entry_count)
( for i in $(seq 200); do "$BIN/sockclient" "$SOCK" 5 > /dev/null & done; wait ) &
flood=$!
"$BIN/spawn" -n 10 -t 120 -- "$BIN/crasher" > "$WORK/spawn.out" || { cat "$WORK/spawn.out"; die "not all crashers ended"; }
wait $flood
pids=$(sed -n 's/^pid=\([0-9]*\) .*/\1/p' "$WORK/spawn.out")
for p in $pids; do
	e=$(wait_entry "$p" 60) || die "crash $p not recorded during the flood"
	[ "$(field COREDUMPD_RESULT "$e")" = stored ] || die "crash $p: $(field COREDUMPD_RESULT "$e") $(field COREDUMPD_ERROR "$e")"
done
n1=$(entry_count)
[ $((n1 - n0)) = 10 ] || die "$((n1 - n0)) entries for 10 crashes and 200 junk connections"
say "200 junk connections refused without a record; 10 crashes stored"
