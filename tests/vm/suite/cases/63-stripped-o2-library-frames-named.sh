# A -O2 -fomit-frame-pointer program, stripped, crashes three calls deep inside a shared library
# stripped to its .dynsym (src/deep/: deep_a -> deep_b -> deep_c, which writes through NULL).
# Without frame pointers or .symtab, coredumpd's pre-ack unwinding (.eh_frame, .dynsym) names
# the top three frames deep_c, deep_b, deep_a — the names gdb gives frames #0..#2 of the
# stored core.
. /usr/lib/coredumpd-tests/lib.sh
need_daemon
command -v gdb >/dev/null || skip "no gdb in the image"
[ -x "$BIN/deep" ] && [ -f "$T/lib/libdeep.so" ] || die "deep or libdeep.so is not in the image"
add_policy test-deep <<'P'
[Rule]
Name=deep
MatchComm=deep-o2
Action=kernel
P
journal_mark
crash deep -n deep-o2
cat "$WORK/spawn.out"
[ "$SIGNAL" = 11 ] && [ "$CORE" = 1 ] || die "deep died of signal $SIGNAL, WCOREDUMP $CORE; want 11 and a core"
e=$(wait_entry "$PID" 60) || die "no journal entry for pid $PID"
[ "$(field COREDUMPD_RULE "$e")" = deep ] || die "rule '$(field COREDUMPD_RULE "$e")', not deep"
[ "$(field COREDUMPD_RESULT "$e")" = stored ] || die "result '$(field COREDUMPD_RESULT "$e")', not stored"
say "--- coredumpd's backtrace (MESSAGE):"
_jq -o cat $SYSTEM_RECORD COREDUMP_PID="$PID" 2>/dev/null | tee "$WORK/message"
say "--- COREDUMPD_FRAME:"
sed -n 's/^COREDUMPD_FRAME=//p' "$e" | tee "$WORK/frames"
# "N BUILDID+OFF SYMBOL+0xOFF MODULE": the symbols of frames 0, 1, 2.
ours=$(awk '$1 <= 2 { sub(/\+0x[0-9a-f]*$/, "", $3); print $3 }' "$WORK/frames" | paste -sd' ')
f=$(field COREDUMP_FILENAME "$e")
[ -n "$f" ] && [ -f "$f" ] || die "no stored dump (COREDUMP_FILENAME='$f')"
core=$(plain_core "$f") || die "cannot decompress $f"
gdb -nx -batch -ex bt "$BIN/deep" "$core" > "$WORK/bt" 2>&1
say "--- gdb -batch -ex bt on the stored core:"
cat "$WORK/bt"
# "#N  0x... in NAME () from LIB" (or "#N  NAME () ..."): the names of frames #0..#2 of the
# backtrace (gdb shows frame #0 once before it, when it loads the core: the last #0 starts it).
awk '/^#0 / { n = 0 } /^#[0-9]+ / { bt[n++] = $0 } END { for (i = 0; i < n; i++) print bt[i] }' "$WORK/bt" > "$WORK/bt.frames"
theirs=$(sed -nE 's/^#([0-2]) +(0x[0-9a-f]+ in )?([^ ]+) \(.*/\3/p' "$WORK/bt.frames" | paste -sd' ')
their_pcs=$(sed -nE 's/^#[0-2] +(0x[0-9a-f]+) in .*/\1/p' "$WORK/bt.frames" | paste -sd' ')
our_pcs=$(sed -nE 's/^#[0-2] +(0x[0-9a-f]+) .*/\1/p' "$WORK/message" | paste -sd' ')
say "coredumpd: $ours at $our_pcs"
say "gdb:       $theirs at $their_pcs"
[ "$theirs" = "deep_c deep_b deep_a" ] || die "gdb names frames #0..#2 '$theirs', not 'deep_c deep_b deep_a'"
[ "$ours" = "$theirs" ] || die "coredumpd's top frames are '$ours', gdb's '$theirs'"
[ "$our_pcs" = "$their_pcs" ] || die "coredumpd's frames #0..#2 are at '$our_pcs', gdb's at '$their_pcs'"
grep -qE '^#0 +0x[0-9a-f]+ deep_c \+ 0x[0-9a-f]+ \(libdeep\.so \+ 0x' "$WORK/message" ||
	die "MESSAGE has no '#0 ... deep_c + 0x.. (libdeep.so + 0x..)' line"
[ -n "$(field COREDUMPD_SIGNATURE "$e")" ] || die "no signature"
say "# report: stripped-o2-library: frames #0..#2 $ours, as gdb names them"
