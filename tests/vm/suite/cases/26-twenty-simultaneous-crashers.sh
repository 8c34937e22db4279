# Twenty crashers at once: every one ends, and every one is recorded (stored,
# or logged as not stored when over a concurrency limit).
. /usr/lib/coredumpd-tests/lib.sh
need_daemon
journal_mark
"$BIN/spawn" -n 20 -t 120 -- "$BIN/crasher" > "$WORK/spawn.out" || { cat "$WORK/spawn.out"; die "not all crashers ended"; }
cat "$WORK/spawn.out"
pids=$(sed -n 's/^pid=\([0-9]*\) .*/\1/p' "$WORK/spawn.out")
[ "$(wc -w <<<"$pids")" = 20 ] || die "spawn reported $(wc -w <<<"$pids") crashers"
end=$((SECONDS + 100))
while :; do
	_jq -o export $SYSTEM_RECORD 2>/dev/null |
		grep -a -E '^(COREDUMP_PID|COREDUMPD_ACTION|COREDUMPD_RESULT)=' > "$WORK/entries" || true
	missing=()
	for p in $pids; do
		grep -qx "COREDUMP_PID=$p" "$WORK/entries" || missing+=("$p")
	done
	[ ${#missing[@]} = 0 ] && break
	[ $SECONDS -lt $end ] || die "${#missing[@]} of 20 crashes not recorded: ${missing[*]}"
	sleep 1
done
say "all 20 recorded; results: $(grep COREDUMPD_RESULT= "$WORK/entries" | sort | uniq -c | tr -s ' \n' ' ')"
