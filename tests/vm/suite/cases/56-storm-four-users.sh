# A storm: four users crash 12 times each, all at once (48 crashes: three times MaxConcurrent=16,
# and each user's 12 over MaxConcurrentPerUser=8 yet within MaxQueuedPerUser=32, so crashes queue;
# the 1000-crash version is bench/storm, outside CI). Every crasher
# ends, every crash the kernel announced is recorded exactly once (queued, not rejected, under the
# default limits), and the daemon's peak memory stays bounded.
# daemon-only
. /usr/lib/coredumpd-tests/lib.sh
need_daemon
per=12 total=48
journal_mark
for u in 2001 2002 2003 2004; do
	setpriv --reuid=$u --regid=$u --clear-groups "$BIN/spawn" -n $per -t 140 -- "$BIN/crasher" > "$WORK/spawn.$u" &
done
wait || true
cat "$WORK"/spawn.2* | awk '{print $2, $5, $6}' | sort | uniq -c
pids=$(sed -n 's/^pid=\([0-9]*\) .*/\1/p' "$WORK"/spawn.2*)
announced=$(grep -c ' core=1 ' "$WORK"/spawn.2* | awk -F: '{s += $2} END {print s}')
[ "$(wc -w <<<"$pids")" = $total ] || die "spawn reported $(wc -w <<<"$pids") of $total crashers (one did not end?)"
end=$((SECONDS + 100))
while :; do
	pid_results | awk 'NR == FNR {ours[$1] = 1; next} $1 in ours' <(tr ' ' '\n' <<<"$pids") - > "$WORK/entries"
	recorded=0 missing=()
	for p in $pids; do
		n=$(awk -v p="$p" '$1 == p' "$WORK/entries" | wc -l)
		[ "$n" -gt 1 ] && die "pid $p recorded $n times"
		[ "$n" = 1 ] && recorded=$((recorded + 1)) || missing+=("$p")
	done
	[ ${#missing[@]} = 0 ] && break
	[ $SECONDS -lt $end ] || die "$recorded of $total crashes recorded; missing: ${missing[*]}"
	sleep 1
done
stored=$(awk '$2 == "stored"' "$WORK/entries" | wc -l)
main=$(systemctl show -P MainPID coredumpd.service)
hwm=$(sed -n 's/^VmHWM:[[:space:]]*//p' /proc/"$main"/status 2>/dev/null)
say "storm: $total crashers, $announced dumped (WCOREDUMP), $recorded recorded, $stored stored; daemon VmHWM ${hwm:-?}"
[ "$stored" = $total ] || die "$stored of $total stored: $(cut -d' ' -f2 "$WORK/entries" | sort | uniq -c | tr -s ' \n' ' ')"
kb=${hwm%% *}
[ -z "$kb" ] || [ "$kb" -lt 131072 ] || die "daemon VmHWM $hwm is over 128 MiB"
