# Attack: a core that trickles. An unprivileged user's crasher maps a file of a FUSE mount that
# answers one page every 2 s and asks for its file pages in the core (coredump_filter), so the
# kernel streams its core at about 2 KiB/s: always moving (never a whole Deadline= without a byte),
# so the progress deadline alone would let it hold its task and a slot for the hours a 16 MiB
# mapping takes. Must hold, under the shipped MinRate=1M and MaxDuration=5min (daemon/config/config.c)
# with Deadline= lowered from the shipped 60s to 20s by a drop-in (the rule is this case's subject,
# not the default's value: 60 s only made the case wait 40 s longer for the same cut): after its
# first Deadline= its average is below MinRate= and the connection is cut at the next rate check
# (every 5 s), well before MaxDuration=; the task is released within Deadline= + 30 s; the crash has exactly one record that says why (the deadline:
# an average below MinRate=, with the bytes received), and no partial core is left in the store; the slot comes back: the same
# user's next crash is stored; the daemon is the same process and root's next crash is stored.
# case-timeout: 300
# daemon-only
. /usr/lib/coredumpd-tests/lib.sh
need_daemon
deadline=20 maxduration=300
bound=$((deadline + 30))
user=cdttrickle
add_user $user
uid=$NEW_UID
trickle_mount 2
dropin=/etc/coredumpd/coredumpd.conf.d/50-cdt-trickling-core.conf
mkdir -p "${dropin%/*}"
printf '[Coredump]\nDeadlineSec=%ss\n' $deadline > "$dropin"
on_exit "rm -f '$dropin'; reload_policy"
reload_policy	# (SIGHUP: coredumpd.conf and its drop-ins too; a daemon not running reads them at start)
attack_begin
journal_mark

start=$SECONDS
as_user $user "$BIN/spawn" -t 280 -- "$SLOWCRASH" trickler > "$WORK/spawn.out" || die "the trickling crasher did not end within 280 s"
held=$((SECONDS - start))
read_spawn_line "$(head -n1 "$WORK/spawn.out")"
reads=$(grep -c '^read ' "$WORK/trickle.err")
say "crasher $PID held ${held} s ($reads pages read from FUSE meanwhile): $(cat "$WORK/spawn.out")"
[ "$reads" -ge 5 ] || die "the FUSE file was read $reads times: the core did not trickle (coredump_filter?)"
[ "$held" -ge $((deadline - 5)) ] || die "released after ${held} s, before its first Deadline= (${deadline} s): not cut by the rate floor"
[ "$held" -le $bound ] || die "the trickling crash held its task ${held} s (MaxDuration= is ${maxduration} s; the rate floor allows ${bound} s)"

e=$(wait_entry "$PID" 60) || die "the trickling crash has no record"
n=$(_jq -o export $SYSTEM_RECORD COREDUMP_PID="$PID" | grep -c '^MESSAGE_ID=')
[ "$n" = 1 ] || die "$n records for one crash"
result=$(field COREDUMPD_RESULT "$e") error=$(field COREDUMPD_ERROR "$e")
say "record: RESULT=$result ERROR=$error TRUNCATED=$(field COREDUMP_TRUNCATED "$e")"
if [ "$result" = stored ]; then
	[ "$(field COREDUMP_TRUNCATED "$e")" = 1 ] || die "stored, yet not marked truncated"
else
	grep -q 'deadline reached (an average below MinRate=)' <<<"$error" ||
		die "not stored, and the record does not say the rate floor cut it: '$error'"
	[ -z "$(store_file_for "$PID")" ] || die "a partial core is left in the store: $(store_file_for "$PID")"
fi

# The slot came back: the same user's next (ordinary) crash is served and stored.
as_user $user "$BIN/spawn" -t 120 -- "$BIN/crasher" > "$WORK/spawn.out" || die "the user's next crasher did not end"
read_spawn_line "$(head -n1 "$WORK/spawn.out")"
e=$(wait_entry "$PID" 60) || die "the user's next crash has no record"
[ "$(field COREDUMPD_RESULT "$e")" = stored ] || die "the user's next crash: $(field COREDUMPD_RESULT "$e") $(field COREDUMPD_ERROR "$e")"
attack_survived
say "the daemon survived: same pid $ATTACK_MAIN, root's crash stored"
