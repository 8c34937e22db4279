# A crash whose stack cannot be unwound: badsp points %rsp and %rbp at garbage (0x10, then a
# non-canonical address) and faults in code without CFI. Each crasher ends well within the
# deadline, gets exactly one record with an empty or one-frame backtrace, and the daemon still
# stores the next ordinary crash.
. /usr/lib/coredumpd-tests/lib.sh
need_daemon
[ "$(uname -m)" = x86_64 ] || skip "badsp is x86_64 only"
journal_mark
report=
for kind in low noncanonical; do
	"$BIN/spawn" -t 60 -- "$BIN/badsp" "$kind" > "$WORK/spawn.out" || { cat "$WORK/spawn.out"; die "badsp $kind did not end within 60 s"; }
	read_spawn_line "$(head -n1 "$WORK/spawn.out")"
	cat "$WORK/spawn.out"
	ms=$(sed -n 's/.* ms=\([0-9]*\).*/\1/p' "$WORK/spawn.out")
	[ "$ms" -lt 20000 ] || die "badsp $kind took $ms ms to end (bound 20000)"
	case $SIGNAL in 11|7) ;; *) die "badsp $kind died of signal $SIGNAL" ;; esac
	e=$(wait_entry "$PID" 60) || die "no record for badsp $kind (pid $PID)"
	sleep 1
	n=$(_jq -o json $SYSTEM_RECORD COREDUMP_PID="$PID" 2>/dev/null | wc -l)
	[ "$n" = 1 ] || die "badsp $kind has $n records"
	e=$(wait_entry "$PID" 5)
	frames=$(grep -c '^COREDUMPD_FRAME=' "$e")
	say "badsp $kind: signal $SIGNAL, ended after $ms ms; result $(field COREDUMPD_RESULT "$e"), COREDUMPD_UNWIND_USEC=$(field COREDUMPD_UNWIND_USEC "$e"), $frames frame(s):"
	sed -n 's/^COREDUMPD_FRAME=/  /p' "$e"
	_jq -o cat $SYSTEM_RECORD COREDUMP_PID="$PID" 2>/dev/null | sed 's/^/  | /'
	[ "$(field COREDUMPD_RESULT "$e")" = stored ] || die "badsp $kind: result '$(field COREDUMPD_RESULT "$e")', not stored"
	[ "$frames" -le 1 ] || die "badsp $kind: $frames frames unwound from a garbage stack"
	report+=" $kind: $frames frame(s) in $(field COREDUMPD_UNWIND_USEC "$e") us, ended after $ms ms;"
done
crash crasher
e=$(wait_entry "$PID" 60) || die "the ordinary crash after the garbage stacks was not recorded"
[ "$(field COREDUMPD_RESULT "$e")" = stored ] || die "the ordinary crash: result '$(field COREDUMPD_RESULT "$e")'"
grep -q '^COREDUMPD_FRAME=0 .* crash_here+' "$e" || die "the ordinary crash's frame 0 is not crash_here"
say "the next ordinary crash (pid $PID) was stored, unwound in $(field COREDUMPD_UNWIND_USEC "$e") us"
say "# report: garbage-stack:${report%;}"
