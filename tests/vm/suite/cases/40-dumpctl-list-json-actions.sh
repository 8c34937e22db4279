# dumpctl list --json lists every crash coredumpd recorded in this boot (every
# case's, plus one fresh crash per action made here) with the action the
# journal entry says.
# daemon-only
. /usr/lib/coredumpd-tests/lib.sh
need_daemon
command -v dumpctl >/dev/null || skip "dumpctl is not installed"
add_policy test-dumpctl-actions <<'P'
[Rule]
Name=dumpctl-reject
MatchExe=*/crasher-reject
Action=reject

[Rule]
Name=dumpctl-userspace
MatchExe=*/crasher-user
Action=userspace
P
declare -A want
journal_mark
for c in crasher crasher-reject crasher-user; do
	crash "$c"
	e=$(wait_entry "$PID" 60) || die "no journal entry for $c (pid $PID)"
	want[$PID]=$(field COREDUMPD_ACTION "$e")
done
[ "${want[*]}" ] || die "no fresh crashes"

# Every coredumpd entry of this boot, as pid → action.
CURSOR= _jq -b -o export $SYSTEM_RECORD | grep -a -E '^(COREDUMP_PID|COREDUMPD_ACTION)=|^$' |
	awk -F= '/^COREDUMP_PID=/{p=$2} /^COREDUMPD_ACTION=/{a=$2} /^$/{if (p != "" && a != "") print p, a; p=""; a=""}' \
	> "$WORK/journal"
dumpctl --json list > "$WORK/json" || die "dumpctl --json list failed: $(cat "$WORK/json")"
say "dumpctl list --json: $(wc -l < "$WORK/json") crashes, journal: $(wc -l < "$WORK/journal")"
head -n 5 "$WORK/json"
sed -n 's/.*"pid":\([0-9]*\),.*"action":"\([a-z]*\)".*/\1 \2/p' "$WORK/json" > "$WORK/listed"
[ "$(wc -l < "$WORK/listed")" = "$(wc -l < "$WORK/json")" ] || die "lines of dumpctl --json without pid/action"
missing=0
while read -r pid action; do
	got=$(awk -v p="$pid" '$1 == p {print $2}' "$WORK/listed" | head -n1)
	if [ "$got" != "$action" ]; then
		say "pid $pid: journal says $action, dumpctl says '${got:-nothing}'"
		missing=$((missing + 1))
	fi
done < "$WORK/journal"
[ $missing = 0 ] || die "$missing crashes missing or wrong in dumpctl list --json"
for pid in "${!want[@]}"; do
	grep -q "^$pid ${want[$pid]}\$" "$WORK/listed" || die "fresh crash $pid (${want[$pid]}) not listed"
done
# Each action appears, and the table form works too.
for a in kernel reject userspace; do grep -q " $a\$" "$WORK/listed" || die "no $a crash listed"; done
dumpctl --no-pager list > "$WORK/table" || die "dumpctl list failed"
tail -n 3 "$WORK/table"
