# Attack: a user with a subuid range (/etc/subuid) fans their crashes out over many subuids, each
# its own kernel uid, to get a fresh per-user share for every one. The user makes a user namespace
# mapping their range; root writes its uid_map and gid_map as newuidmap/newgidmap (setuid root,
# not in this image) would after checking /etc/subuid. Must hold: every crash counts as the range's
# owner — the record's COREDUMPD_OWNER_UID= is the user's uid whatever COREDUMP_UID= (the subuid)
# says, and the stored core carries the owner (user.coredumpd.owner_uid, what MaxUsePerUser= and the
# vacuum count by) — so the per-user bounds apply once to the whole range: 48 slow crashes as 48
# subuids get the user's 8 slots (MaxConcurrentPerUser=) and 32 queued (MaxQueuedPerUser=), the 8
# beyond are rejected with the per-user quota; another user's crash meanwhile is stored at once;
# every crash ends as one record; the daemon is the same process and root's next crash is stored.
# case-timeout: 300
# daemon-only
. /usr/lib/coredumpd-tests/lib.sh
need_daemon
n=48 running=8 queued=32 base=200000
user=cdtsub other=cdtother2
add_user $user
uid=$NEW_UID gid=$(id -g $user)
add_user $other
for f in /etc/subuid /etc/subgid; do
	cp "$f" "$WORK/${f##*/}.orig" 2>/dev/null || : > "$WORK/${f##*/}.orig"
	on_exit "cp '$WORK/${f##*/}.orig' $f"
	echo "$user:$base:65536" >> "$f"
done
trickle_mount 2
mkdir -p "$WORK/sub" && chmod 1777 "$WORK/sub"

# in_range SCRIPT — run SCRIPT (sh) as the user, in a user namespace of theirs: inner 0 is the user,
# inner 1..65536 their subuids base..base+65535; SCRIPT runs with the namespace's capabilities.
in_range() {
	rm -f "$WORK/sub/mapped"
	# (no function in between: $! is the process that becomes the namespace's sh)
	setpriv --reuid=$uid --regid=$gid --init-groups env HOME=/home/$user \
		unshare -U sh -c 'while [ ! -e "$0/mapped" ]; do sleep 0.1; done; exec sh -c "$1"' "$WORK/sub" "$1" &
	local p=$!
	for _ in $(seq 100); do [ "$(readlink /proc/$p/ns/user)" != "$(readlink /proc/self/ns/user)" ] && break; sleep 0.1; done
	# (coreutils' printf: one write(2), as the map takes; bash's printf writes line by line)
	/usr/bin/printf '0 %s 1\n1 %s 65536\n' $uid $base > /proc/$p/uid_map || die "cannot write the uid_map"
	/usr/bin/printf '0 %s 1\n1 %s 65536\n' $gid $base > /proc/$p/gid_map || die "cannot write the gid_map"
	touch "$WORK/sub/mapped"
	wait $p
}
attack_begin

# One crash as subuid 7 (kernel uid base + 6): stored, counted as the user's.
journal_mark
in_range "setpriv --reuid=7 --regid=7 --clear-groups $BIN/spawn -t 120 -- $BIN/crasher > $WORK/sub/one.out" || die "the subuid crash did not run"
read_spawn_line "$(head -n1 "$WORK/sub/one.out")"
e=$(wait_entry "$PID" 60) || die "no record of the crash as a subuid ($(cat "$WORK/sub/one.out"))"
say "record: UID=$(field COREDUMP_UID "$e") OWNER_UID=$(field COREDUMPD_OWNER_UID "$e") NS_UID=$(field COREDUMPD_NS_UID "$e") RESULT=$(field COREDUMPD_RESULT "$e")"
[ "$(field COREDUMP_UID "$e")" = $((base + 6)) ] || die "COREDUMP_UID is not the subuid $((base + 6))"
[ "$(field COREDUMPD_OWNER_UID "$e")" = $uid ] || die "COREDUMPD_OWNER_UID is not the range's user $uid"
[ "$(field COREDUMPD_RESULT "$e")" = stored ] || die "the subuid crash was not stored: $(field COREDUMPD_ERROR "$e")"
f=$(field COREDUMP_FILENAME "$e")
store_settle
f=$(ls "${f%.zst}"* 2>/dev/null | head -n1)
[ -n "$f" ] || die "the stored core is gone"
if getfattr -n user.coredump.uid "$f" > /dev/null 2>&1; then
	o=$(getfattr --only-values -n user.coredumpd.owner_uid "$f" 2>/dev/null)
	[ "$o" = $uid ] || die "the stored core's owner attribute is '$o', not $uid"
else
	say "the store's file system keeps no user.* attributes (tmpfs before 6.6): the owner attribute is not checked"
fi

# The fan-out: 48 slow crashes, each as a subuid of its own.
journal_mark
on_exit "kill_pids '$WORK/sub/pids'"
# One spawn for all (spawn polls its children: 48 of them would starve the VM); each crasher becomes
# the subuid its pid names (inner uid pid % 60000 + 1: pids are distinct, so are the subuids).
cat > "$WORK/sub/subcrash" <<SH
#!/bin/sh
i=\$((\$\$ % 60000 + 1))
exec setpriv --reuid=\$i --regid=\$i --clear-groups $SLOWCRASH fanout
SH
chmod 0755 "$WORK/sub/subcrash"
in_range "$BIN/spawn -n $n -t 280 -p $WORK/sub/pid.all -- $WORK/sub/subcrash > /dev/null" &
flood=$!
want=$((n - running - queued))
for _ in $(seq 90); do
	cat "$WORK"/sub/pid.* > "$WORK/sub/pids" 2>/dev/null
	got=$(records | awk -F'|' -v u=$uid '$4 == u && $2 == "overload"' | wc -l)
	[ "$got" -ge $want ] && break
	sleep 1
done
cat "$WORK"/sub/pid.* > "$WORK/sub/pids" 2>/dev/null
records | awk -F'|' -v b=$base '$3 >= b && $3 < b + 65536' > "$WORK/sub/records"
uids=$(cut -d'|' -f3 "$WORK/sub/records" | sort -u | wc -l)
held=$(for p in $(cat "$WORK/sub/pids"); do grep -q '^CoreDumping:[[:space:]]*1' /proc/$p/status 2>/dev/null && echo $p; done | wc -l)
say "fan-out of $n over $(sort -u "$WORK/sub/pids" | wc -l) crashers: $(cut -d'|' -f2,4,5 "$WORK/sub/records" | sort | uniq -c | tr -s ' \n' ' ') ($uids subuids); $held still dumping"
[ "$held" -ge $((running + queued)) ] || die "only $held crashes still held: the fan-out ended too soon to show anything"
quota=$(awk -F'|' -v u=$uid '$2 == "overload" && $4 == u && $5 == "queue quota of the user"' "$WORK/sub/records" | wc -l)
[ "$quota" = $want ] || die "$quota of the subuid crashes rejected for the user's queue quota, not $want: the range is not counted as one user"
[ "$uids" = $want ] || die "the rejected crashes are of $uids subuids, not $want different ones"
awk -F'|' -v u=$uid '$4 != u' "$WORK/sub/records" | grep -q . && die "a subuid crash not counted as $uid's: $(awk -F'|' -v u=$uid '$4 != u' "$WORK/sub/records" | head -3)"

# Another user meanwhile: taken at once, stored.
as_user $other "$BIN/spawn" -t 120 -- "$BIN/crasher" > "$WORK/other.out" || die "the other user's crasher did not end"
read_spawn_line "$(head -n1 "$WORK/other.out")"
e=$(wait_entry "$PID" 40) || die "the other user's crash $PID during the fan-out has no record within 40 s"
[ "$(field COREDUMPD_RESULT "$e")" = stored ] || die "the other user's crash during the fan-out: $(field COREDUMPD_RESULT "$e") $(field COREDUMPD_ERROR "$e")"

kill_pids "$WORK/sub/pids"
wait $flood
[ "$(sort -u "$WORK/sub/pids" | wc -l)" = $n ] || die "$(sort -u "$WORK/sub/pids" | wc -l) of $n subuid crashers started"
wait_all_recorded "$WORK/sub/pids" 120
[ "$(awk -F'|' -v u=$uid '$4 != u' "$WORK/records" | grep -cf <(sed 's/^/^/; s/$/|/' "$WORK/sub/pids"))" = 0 ] || die "a subuid crash is recorded with another owner"
attack_survived
say "the daemon survived: same pid $ATTACK_MAIN, root's crash stored"
