# Attack: one unprivileged user monopolises the queue. Their crashes are made slow (each maps a file
# of a FUSE mount of theirs that trickles, and asks for its file pages in the core), so that they
# hold every slot a user may hold (MaxConcurrentPerUser=) for a whole Deadline= and more; 48 of them
# at once keep the queue filled behind. Must hold, under the shipped defaults (MaxConcurrent=16,
# MaxConcurrentPerUser=8, ReservedConcurrent=2, MaxQueued=256, MaxQueuedPerUser=32): the user's
# crashes beyond their 8 running and 32 queued are answered REJECT at once, recorded as overload
# with the per-user reason ("queue quota of the user"), none for a full queue; meanwhile a crash of
# another user and one of root are taken at once and stored (not queued behind the flood, never
# rejected); once the attacker gives up, every one of their crashes has exactly one record; the
# daemon is the same process and root's next crash is stored.
# case-timeout: 300
# daemon-only
. /usr/lib/coredumpd-tests/lib.sh
need_daemon
n=48 running=8 queued=32	# 8 beyond what the user may hold and queue (the case subuid-fan-out has as many)
attacker=cdtflood other=cdtother
add_user $attacker
auid=$NEW_UID
add_user $other
trickle_mount 2
attack_begin
journal_mark

mkdir -p "$WORK/att" && chmod 0777 "$WORK/att"
as_user $attacker "$BIN/spawn" -n $n -t 280 -p "$WORK/att/pids" -- "$SLOWCRASH" flood > "$WORK/att/spawn.out" 2>&1 &
flood=$!
on_exit "kill_pids '$WORK/att/pids'"
# The excess is answered at once: wait for n - running - queued rejections (at most 90 s).
want=$((n - running - queued))
for _ in $(seq 90); do
	got=$(records | awk -F'|' -v u=$auid '$3 == u && $2 == "overload"' | wc -l)
	[ "$got" -ge $want ] && break
	sleep 1
done
# What the attacker got, before any of their slots could come back (their first cut is a
# Deadline= and more after it began).
records | awk -F'|' -v u=$auid '$3 == u' > "$WORK/att/records"
held=$(for p in $(cat "$WORK/att/pids"); do grep -q '^CoreDumping:[[:space:]]*1' /proc/$p/status 2>/dev/null && echo $p; done | wc -l)
say "flood of $n: $(cut -d'|' -f2,5 "$WORK/att/records" | sort | uniq -c | tr -s ' \n' ' '); $held still dumping"
[ "$held" -ge $((running + queued)) ] || die "only $held of the attacker's crashes still held: the flood ended too soon to show anything"
quota=$(grep -c '|overload|.*|queue quota of the user$' "$WORK/att/records")
[ "$quota" = $want ] || die "$quota of the attacker's crashes rejected for their queue quota, not $want"
[ "$(wc -l < "$WORK/att/records")" = $want ] || die "records of the attacker's crashes other than the quota's: $(grep -v 'queue quota' "$WORK/att/records" | head -5)"
start=$SECONDS

# Another user's crash and root's, during the flood: taken at once and stored.
as_user $other "$BIN/spawn" -t 120 -- "$BIN/crasher" > "$WORK/other.out" || die "the other user's crasher did not end"
read_spawn_line "$(head -n1 "$WORK/other.out")"
e=$(wait_entry "$PID" 40) || die "the other user's crash $PID during the flood has no record within 40 s"
[ "$(field COREDUMPD_RESULT "$e")" = stored ] || die "the other user's crash during the flood: $(field COREDUMPD_RESULT "$e") $(field COREDUMPD_ERROR "$e")"
crash crasher
e=$(wait_entry "$PID" 40) || die "root's crash $PID during the flood has no record within 40 s"
[ "$(field COREDUMPD_RESULT "$e")" = stored ] || die "root's crash during the flood: $(field COREDUMPD_RESULT "$e") $(field COREDUMPD_ERROR "$e")"
took=$((SECONDS - start))
held=$(for p in $(cat "$WORK/att/pids"); do grep -q '^CoreDumping:[[:space:]]*1' /proc/$p/status 2>/dev/null && echo $p; done | wc -l)
say "the other user's and root's crashes stored within ${took} s, $held of the attacker's still held"
[ "$held" -ge $running ] || die "only $held of the attacker's crashes still held after the others' crashes"
records | grep -q '|queue full$' && die "a crash was rejected for a full queue"

# The attacker gives up: every crash of theirs ends as one record.
kill_pids "$WORK/att/pids"
wait $flood
[ "$(sort -u "$WORK/att/pids" | wc -l)" = $n ] || die "spawn started $(wc -l < "$WORK/att/pids") of $n crashers"
wait_all_recorded "$WORK/att/pids" 120
attack_survived
say "the daemon survived: same pid $ATTACK_MAIN, root's crash stored"
