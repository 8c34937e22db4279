# Attack: one tenant monopolises the queue — first an unprivileged user, then a system user,
# www-data (uid 33: a web shell's crashes). Their crashes are made slow (each maps a file of a FUSE
# mount that trickles, and asks for its file pages in the core), so that they hold every slot a
# tenant may hold (MaxConcurrentPerUser=) for a whole Deadline= and more; 48 of them at once (44 of
# www-data's: 4 past its quota show it as well, in less time) keep the queue filled behind. Must
# hold for each, under the shipped defaults (MaxConcurrent=16, MaxConcurrentPerUser=8,
# ReservedConcurrent=2, MaxQueued=256, MaxQueuedPerUser=32): the tenant's crashes beyond their 8
# running and 32 queued are answered REJECT at once, recorded as overload with the per-tenant
# reason ("queue quota of the user"), none for a full queue; meanwhile a crash of another user and
# one of root are taken at once and stored (not queued behind the flood, never rejected); once the
# attacker gives up, every one of their crashes has exactly one record; the daemon is the same
# process, root's next crash is stored and `systemctl stop coredumpd` takes at most 10 s. (Before
# tenants, uids up to 999 had no queue quota: www-data's 36 crashes beyond its share all waited in
# the queue, none was answered, and the room kept for root and system users was www-data's; the 4
# quota rejections asked for here were 0.)
# case-timeout: 400
# daemon-only
. /usr/lib/coredumpd-tests/lib.sh
need_daemon
running=8 queued=32
other=cdtother
add_user cdtflood
add_user $other
[ "$(id -u www-data 2>/dev/null)" = 33 ] || die "no system user www-data with uid 33 in the image"
trickle_mount 2
attack_begin
mkdir -p "$WORK/att" && chmod 0777 "$WORK/att"

# flood USER N — USER's flood of N slow crashes against another user's and root's, as said above.
flood() {
	local attacker=$1 n=$2 auid flood got held quota want start took e
	auid=$(id -u "$attacker")
	journal_mark
	rm -f "$WORK/att/pids"
	as_user "$attacker" "$BIN/spawn" -n $n -t 280 -p "$WORK/att/pids" -- "$SLOWCRASH" flood > "$WORK/att/spawn.out" 2>&1 &
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
	say "$attacker (uid $auid), flood of $n: $(cut -d'|' -f2,5 "$WORK/att/records" | sort | uniq -c | tr -s ' \n' ' '); $held still dumping"
	[ "$held" -ge $((running + queued)) ] || die "only $held of $attacker's crashes still held: the flood ended too soon to show anything"
	quota=$(grep -c '|overload|.*|queue quota of the user$' "$WORK/att/records")
	[ "$quota" = $want ] || die "$quota of $attacker's crashes rejected for their queue quota, not $want"
	[ "$(wc -l < "$WORK/att/records")" = $want ] || die "records of $attacker's crashes other than the quota's: $(grep -v 'queue quota' "$WORK/att/records" | head -5)"
	start=$SECONDS

	# Another user's crash and root's, during the flood: taken at once and stored.
	as_user $other "$BIN/spawn" -t 120 -- "$BIN/crasher" > "$WORK/other.out" || die "the other user's crasher did not end"
	read_spawn_line "$(head -n1 "$WORK/other.out")"
	e=$(wait_entry "$PID" 40) || die "the other user's crash $PID during $attacker's flood has no record within 40 s"
	[ "$(field COREDUMPD_RESULT "$e")" = stored ] || die "the other user's crash during $attacker's flood: $(field COREDUMPD_RESULT "$e") $(field COREDUMPD_ERROR "$e")"
	crash crasher
	e=$(wait_entry "$PID" 40) || die "root's crash $PID during $attacker's flood has no record within 40 s"
	[ "$(field COREDUMPD_RESULT "$e")" = stored ] || die "root's crash during $attacker's flood: $(field COREDUMPD_RESULT "$e") $(field COREDUMPD_ERROR "$e")"
	took=$((SECONDS - start))
	held=$(for p in $(cat "$WORK/att/pids"); do grep -q '^CoreDumping:[[:space:]]*1' /proc/$p/status 2>/dev/null && echo $p; done | wc -l)
	say "the other user's and root's crashes stored within ${took} s, $held of $attacker's still held"
	[ "$held" -ge $running ] || die "only $held of $attacker's crashes still held after the others' crashes"
	records | grep -q '|queue full$' && die "a crash was rejected for a full queue"

	# The attacker gives up: every crash of theirs ends as one record.
	kill_pids "$WORK/att/pids"
	wait $flood
	[ "$(sort -u "$WORK/att/pids" | wc -l)" = $n ] || die "spawn started $(wc -l < "$WORK/att/pids") of $n crashers as $attacker"
	wait_all_recorded "$WORK/att/pids" 120
}

flood cdtflood 48	# 8 beyond what the user may hold and queue (the case subuid-fan-out has as many)
flood www-data 44
attack_survived
say "the daemon survived: same pid $ATTACK_MAIN, root's crash stored"
t0=$(date +%s%N)
timeout 30 systemctl stop coredumpd.service || die "systemctl stop coredumpd failed"
ms=$((($(date +%s%N) - t0) / 1000000))
[ "$ms" -le 10000 ] || die "systemctl stop coredumpd took $ms ms (more than 10 s)"
say "# report: queue-monopolised: a user's and www-data's floods each cut at their queue quota, the others' crashes stored, stop in $ms ms"
