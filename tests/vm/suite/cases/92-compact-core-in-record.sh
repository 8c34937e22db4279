# The record travels with a compact core: the first crash of a signature (a rule with a rate
# limit, the suite's global one being off) carries COREDUMP= of at most JournalSizeMax= (default
# 1M) and COREDUMPD_JOURNAL_CORE_SIZE=; its repeat carries none. With the stored core gone, as on
# a collector, dumpctl info says the journal holds one, dumpctl dump writes it and dumpctl debug's
# gdb unwinds it to the crashing function. The crasher is a user of its own, with a uid no other
# case's user had (useradd hands out the lowest free uid again: case 78's user crashed at this site
# as uid 1000), so that the count of its signature starts here (counts are per owner).
# That rule opts in (JournalCore=system: the system journal's record carries it, as for a fleet);
# the user's own copy carries it too. By default (JournalCore=user) a second regular user's crash
# has it in their own copy only, which their dumpctl dumps, and root's crash in no record at all.
# case-timeout: 300
# daemon-only
. /usr/lib/coredumpd-tests/lib.sh
need_daemon
command -v gdb >/dev/null || skip "no gdb in the image"
add_policy test-compact-core <<'P'
[Rule]
Name=compact-core
MatchComm=compacter
Action=kernel
RateLimitBurst=5
JournalCore=system

[Rule]
Name=compact-core-default
MatchComm=compactusr
MatchComm=crasher
Action=kernel
RateLimitBurst=5
P
add_user cdtcompact 59092
chmod 0755 "$WORK"   # the crasher runs as cdtcompact with $WORK as its working directory

crash_as_user() {
	as_user cdtcompact "$BIN/spawn" -t 120 -- "$BIN/uscrash" -c wild -m 16 -n compacter > "$WORK/spawn.out" ||
		die "the crasher did not end within 120 s: $(cat "$WORK/spawn.out")"
	read_spawn_line "$(head -n1 "$WORK/spawn.out")"
}

journal_mark
crash_as_user
e=$(wait_entry "$PID" 60) || die "no journal entry for pid $PID"
[ "$(field COREDUMPD_RESULT "$e")" = stored ] || die "result '$(field COREDUMPD_RESULT "$e")', not stored"
[ "$(field COREDUMPD_REPEAT "$e")" = 1 ] || die "repeat '$(field COREDUMPD_REPEAT "$e")', not 1"
size=$(field COREDUMPD_JOURNAL_CORE_SIZE "$e")
[ -n "$size" ] || die "no compact core: COREDUMPD_JOURNAL_CORE_ERROR=$(field COREDUMPD_JOURNAL_CORE_ERROR "$e")"
[ "$size" -gt 0 ] && [ "$size" -le 1048576 ] || die "compact core of $size bytes, not within 1M"
f=$(field COREDUMP_FILENAME "$e")
[ -n "$f" ] && [ -f "$f" ] || die "no stored core ('$f')"
full=$(dumpctl dump "$PID" | wc -c)
say "compact core $size bytes in the record; the stored core $full bytes uncompressed, $(stat -c %s "$f") on disk"
u=$WORK/user-entry
_jq -o export MESSAGE_ID=$MSGID _UID=59092 COREDUMP_PID="$PID" 2>/dev/null | grep -a -E '^[A-Z_][A-Z0-9_]*=' > "$u" || true
[ "$(field COREDUMPD_JOURNAL_CORE_SIZE "$u")" = "$size" ] ||
	die "the user's own copy carries '$(field COREDUMPD_JOURNAL_CORE_SIZE "$u")', not the compact core of $size bytes"
[ "$full" -gt "$size" ] || die "the compact core ($size) is not smaller than the core ($full)"

crash_as_user
e2=$(wait_entry "$PID" 60) || die "no journal entry for the repeat $PID"
[ "$(field COREDUMPD_REPEAT "$e2")" = 2 ] || die "the repeat is recorded as '$(field COREDUMPD_REPEAT "$e2")'"
[ -z "$(field COREDUMPD_JOURNAL_CORE_SIZE "$e2")" ] || die "the repeat carries a compact core too"
[ -z "$(field COREDUMPD_JOURNAL_CORE_ERROR "$e2")" ] || die "the repeat says $(field COREDUMPD_JOURNAL_CORE_ERROR "$e2")"

# The first crash's core gone (a collector has only the record).
first=$(field COREDUMP_PID "$e")
mv "$f" "$WORK/moved-away"
dumpctl info "$first" > "$WORK/info" 2>&1 || { cat "$WORK/info"; die "dumpctl info failed"; }
grep -q "compact core in the journal, $size bytes" "$WORK/info" || { cat "$WORK/info"; die "info does not name the compact core"; }
dumpctl --json list "$first" | grep -q '"journal_core":true' || die "list --json has no journal_core"
dumpctl -o "$WORK/jcore" dump "$first" || die "dumpctl dump of the journal's core failed"
[ "$(stat -c %s "$WORK/jcore")" = "$size" ] || die "dump wrote $(stat -c %s "$WORK/jcore") bytes, not $size"
head -c4 "$WORK/jcore" | grep -q ELF || die "the journal's core is no ELF file"
dumpctl debug -A '-nx -batch -ex bt' "$first" > "$WORK/bt" 2>&1 || { cat "$WORK/bt"; die "dumpctl debug failed"; }
cat "$WORK/bt"
grep -q 'crash_here' "$WORK/bt" || die "gdb on the compact core does not name crash_here"
grep -q 'main' "$WORK/bt" || die "gdb on the compact core does not reach main"
mv "$WORK/moved-away" "$f"

# JournalCore=user (the default): a regular user's compact core in their own copy only.
add_user cdtcompact2 59093
journal_mark
as_user cdtcompact2 "$BIN/spawn" -t 120 -- "$BIN/uscrash" -c wild -m 16 -n compactusr > "$WORK/spawn.out" ||
	die "the second user's crasher did not end within 120 s: $(cat "$WORK/spawn.out")"
read_spawn_line "$(head -n1 "$WORK/spawn.out")"
e3=$(wait_entry "$PID" 60) || die "no journal entry for pid $PID"
[ "$(field COREDUMPD_REPEAT "$e3")" = 1 ] || die "the second user's crash is repeat '$(field COREDUMPD_REPEAT "$e3")'"
[ -z "$(field COREDUMPD_JOURNAL_CORE_SIZE "$e3")" ] || die "a regular user's compact core is in the system journal by default"
field COREDUMPD_JOURNAL_CORE_ERROR "$e3" | grep -q "in the user's own journal only" ||
	die "the system record says '$(field COREDUMPD_JOURNAL_CORE_ERROR "$e3")'"
u3=$WORK/user-entry3
end=$((SECONDS + 30))
until _jq -o export MESSAGE_ID=$MSGID _UID=59093 COREDUMP_PID="$PID" 2>/dev/null | grep -a -E '^[A-Z_][A-Z0-9_]*=' > "$u3" &&
	[ -s "$u3" ]; do
	[ $SECONDS -lt $end ] || die "no copy of the crash in the user's own journal"
	sleep 0.25
done
usize=$(field COREDUMPD_JOURNAL_CORE_SIZE "$u3")
[ -n "$usize" ] && [ "$usize" -gt 0 ] || die "the user's own copy carries no compact core"
f3=$(field COREDUMP_FILENAME "$e3")
mv "$f3" "$WORK/moved-away"
as_user cdtcompact2 dumpctl dump "$PID" > "$WORK/ucore" || { mv "$WORK/moved-away" "$f3"; die "the user's dumpctl dump of their copy's core failed"; }
mv "$WORK/moved-away" "$f3"
[ "$(stat -c %s "$WORK/ucore")" = "$usize" ] || die "the user's dump wrote $(stat -c %s "$WORK/ucore") bytes, not $usize"
say "a regular user's compact core: $usize bytes in their own copy only"

# ... and root's crash: in no record.
crash crasher
e4=$(wait_entry "$PID" 60) || die "no journal entry for root's crash $PID"
[ "$(field COREDUMPD_REPEAT "$e4")" = 1 ] || die "root's crash is repeat '$(field COREDUMPD_REPEAT "$e4")'"
[ -z "$(field COREDUMPD_JOURNAL_CORE_SIZE "$e4")" ] || die "root's compact core is in the system journal by default"
field COREDUMPD_JOURNAL_CORE_ERROR "$e4" | grep -q "withheld from the system journal" ||
	die "root's record says '$(field COREDUMPD_JOURNAL_CORE_ERROR "$e4")'"
exit 0
