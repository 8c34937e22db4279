# The same crash site 10 times: with RateLimitBurst=3 and OnRepeat=reject, the first three
# crashes are stored, the repeats are answered REJECT before the kernel writes a byte (WCOREDUMP
# clear), and every one is recorded with the same signature and its repeat number. Every run (its
# own load addresses) has the same site key; the repeats are known by it, not unwound (no parser:
# no COREDUMPD_UNWIND_USEC=, COREDUMPD_SIGNATURE_FROM=site). Another crash site in the same binary
# (abort() instead of a bad write) has another signature and another site key.
# case-timeout: 400
. /usr/lib/coredumpd-tests/lib.sh
need_daemon
add_policy test-repeats <<'P'
[Rule]
Name=repeats
MatchComm=repeater
Action=kernel
RateLimitBurst=3
OnRepeat=reject
P
# (10: seven repeats show what seventeen did, in half the time.)
n_crashes=10
journal_mark
sig= site=
for i in $(seq $n_crashes); do
	crash uscrash -n repeater -c wild
	e=$(wait_entry "$PID" 60) || die "crash $i (pid $PID) not recorded"
	s=$(field COREDUMPD_SIGNATURE "$e")
	n=$(field COREDUMPD_REPEAT "$e")
	r=$(field COREDUMPD_RESULT "$e")
	[ -n "$s" ] || die "crash $i has no signature"
	[ -z "$sig" ] || [ "$s" = "$sig" ] || die "crash $i: signature $s, not $sig"
	sig=$s
	k=$(field COREDUMPD_SITE "$e")
	[ -n "$k" ] || die "crash $i has no site key"
	[ -z "$site" ] || [ "$k" = "$site" ] || die "crash $i: site key $k, not $site (the same code, another run)"
	site=$k
	from=$(field COREDUMPD_SIGNATURE_FROM "$e")
	usec=$(field COREDUMPD_UNWIND_USEC "$e")
	if [ "$i" -le 3 ]; then
		[ -z "$from" ] && [ -n "$usec" ] || die "crash $i within the burst was not unwound (from '$from')"
	else
		[ "$from" = site ] && [ -z "$usec" ] || die "repeat $i was unwound (from '$from', $usec us), not known by its site"
	fi
	[ "$n" = "$i" ] || die "crash $i recorded as repeat '$n'"
	if [ "$i" -le 3 ]; then
		[ "$r" = stored ] && [ "$CORE" = 1 ] || die "crash $i: result $r, WCOREDUMP $CORE; want a stored core"
	else
		[ "$r" = rejected ] && [ "$CORE" = 0 ] || die "crash $i: result $r, WCOREDUMP $CORE; want a rejection before any data"
		[ "$(field COREDUMPD_ACK_MASK "$e")" = 0x4 ] || die "crash $i: ack mask $(field COREDUMPD_ACK_MASK "$e")"
	fi
done
msg=$(_jq -o cat $SYSTEM_RECORD COREDUMP_PID="$PID" 2>/dev/null | head -n1)
grep -q "repeat $n_crashes of signature $sig" <<<"$msg" || die "the last message does not say which repeat: $msg"
# null and wild fault at the same instruction (the same site); abort() is another.
crash uscrash -n repeater -c abort
e=$(wait_entry "$PID" 60) || die "the other crash site was not recorded"
other=$(field COREDUMPD_SIGNATURE "$e")
[ -n "$other" ] && [ "$other" != "$sig" ] || die "another crash site has signature '$other' (the first was $sig)"
[ "$(field COREDUMPD_SITE "$e")" != "$site" ] || die "another crash site has the same site key $site"
say "$n_crashes crashes of signature $sig (site $site): 3 stored and unwound, $((n_crashes - 3)) rejected before the dump, known by their site; the other site is $other"
say "$(field COREDUMPD_BACKTRACE "$e" | head -n 4)"
