# After a known set of crashes of a regular user — one rejected by a rule, one by
# builtin:rlimit-zero (a shell with a soft RLIMIT_CORE of 0), two at one site with
# RateLimitBurst=1 (one kept, the repeat rejected) — what `dumpctl metrics` counted meanwhile
# equals what `dumpctl list` shows of them; the text parses as Prometheus' format would have it.
# The user's own `dumpctl list` shows each rejected crash with its reason (a short note in their
# journal; the bound on notes is the host tests'); the system journal's records are PRIORITY=2
# for the kept crash only, 5 for the rejected ones. The shipped unit writes the counters for
# node-exporter in its sandbox.
# daemon-only
. /usr/lib/coredumpd-tests/lib.sh
need_daemon
command -v dumpctl >/dev/null || skip "dumpctl is not installed"
[ -d /var/log/journal ] || die "no persistent journal (/var/log/journal): journald keeps no journal per user"
u=cdtmetrics
add_user $u 59141
add_policy test-metrics <<'P'
[Rule]
Name=metrics-no
MatchComm=mreject
Action=reject
Wait=no

[Rule]
Name=metrics-loop
MatchComm=mloop
Action=kernel
RateLimitBurst=1
OnRepeat=reject
P
chmod 0755 "$WORK"
: > "$WORK/pids"
ucrash() {	# [ulimit -c] ARGS... — uscrash as the user; sets PID
	local limit=$1
	shift
	as_user $u sh -c "ulimit -S -c $limit && exec \"\$@\"" sh "$BIN/spawn" -t 120 -- "$BIN/uscrash" "$@" \
		> "$WORK/spawn.out" || die "uscrash $* did not end"
	read_spawn_line "$(head -n1 "$WORK/spawn.out")"
	echo "$PID" >> "$WORK/pids"
}
# The value of sample NAME in FILE (0 when absent).
val() { awk -v s="$2" '$1 == s { v = $2 } END { print v + 0 }' "$1"; }
delta() { echo $(( $(val "$WORK/after" "$1") - $(val "$WORK/before" "$1") )); }

t0=$(date +%s%N)
dumpctl metrics > "$WORK/before" || die "dumpctl metrics failed"
journal_mark
ucrash unlimited -n mreject -c null; rej=$PID
ucrash 0 -n mnocore -c null; nocore=$PID
ucrash unlimited -n mloop -c wild; loop1=$PID
ucrash unlimited -n mloop -c wild; loop2=$PID
wait_all_recorded "$WORK/pids" 60
t1=$(date +%s%N)
dumpctl metrics > "$WORK/after" || die "dumpctl metrics failed"

# The format: HELP and TYPE before each family's samples, a number after each sample.
awk '
	/^# HELP / { help[$3] = 1; next }
	/^# TYPE / { if (!help[$3]) bad = bad " TYPE-before-HELP:" $3; type[$3] = $4; next }
	/^#/ { bad = bad " comment:" $0; next }
	{ n = $1; sub(/\{.*/, "", n); f = n; sub(/_(bucket|sum|count)$/, "", f)
	  if (!(n in type) && !(f in type && type[f] == "histogram")) bad = bad " undeclared:" n
	  if (type[n] == "counter" && n !~ /_total$/) bad = bad " counter-without-_total:" n
	  if ($2 !~ /^[0-9]+(\.[0-9]+)?$/) bad = bad " value:" $0 }
	END { if (bad) { print bad; exit 1 } }' "$WORK/after" || die "dumpctl metrics is not in Prometheus' text format"
[ "$(val "$WORK/after" coredumpd_registered)" = 1 ] || die "coredumpd_registered is not 1 while core_pattern is ours"

ta=$(date +%s%N)
# The counts meanwhile against what dumpctl list shows of these crashes.
dumpctl --json=short list > "$WORK/list" || die "dumpctl list failed"
n_list() {	# RESULT [REASON]
	tr '{' '\n' < "$WORK/list" | grep -E "\"pid\":($(paste -sd'|' "$WORK/pids"))," | grep "\"result\":\"$1\"" |
		{ if [ -n "${2:-}" ]; then grep "\"reason\":\"$2\""; else grep '"reason":null'; fi; } | wc -l
}
C='coredumpd_crashes_total{action="kernel",result="stored",reason="none"}'
R='coredumpd_crashes_total{action="reject",result="rejected",reason='
for check in "$C|stored|" "${R}\"rule\"}|rejected|rule" "${R}\"rlimit-zero\"}|rejected|rlimit-zero" \
	     "${R}\"repeat\"}|rejected|repeat"; do
	IFS='|' read -r sample result reason <<<"$check"
	d=$(delta "$sample") l=$(n_list "$result" "$reason")
	say "$sample: +$d, dumpctl list: $l"
	[ "$d" = "$l" ] || die "$sample counted $d, dumpctl list shows $l"
done
[ "$(n_list stored)" = 1 ] && [ "$(n_list rejected repeat)" = 1 ] && [ "$(n_list rejected rule)" = 1 ] &&
	[ "$(n_list rejected rlimit-zero)" = 1 ] || { cat "$WORK/list"; die "not the crashes this case made"; }
[ "$(delta coredumpd_cores_stored_total)" = 1 ] || die "cores stored: +$(delta coredumpd_cores_stored_total), not 1"
[ "$(delta coredumpd_ack_latency_seconds_count)" = 4 ] || die "acks timed: +$(delta coredumpd_ack_latency_seconds_count)"
[ "$(delta coredumpd_release_latency_seconds_count)" = 4 ] || die "releases timed: +$(delta coredumpd_release_latency_seconds_count)"
[ "$(delta coredumpd_user_notes_total)" = 3 ] || die "user notes: +$(delta coredumpd_user_notes_total), not 3"

tb=$(date +%s%N)
# Priorities in the system journal (one query: "PID PRIORITY" lines).
# shellcheck disable=SC2086
_jq -o json $SYSTEM_RECORD 2>/dev/null | awk '
	function val(k,   m) {
		if (!match($0, "\"" k "\":\"[^\"]*\"")) return "-"
		m = substr($0, RSTART, RLENGTH); sub(/^[^:]*:"/, "", m); sub(/"$/, "", m); return m
	}
	{ print val("COREDUMP_PID"), val("PRIORITY") }' > "$WORK/priorities"
for p in $loop1:2 $rej:5 $nocore:5 $loop2:5; do
	grep -qx "${p%:*} ${p#*:}" "$WORK/priorities" ||
		{ cat "$WORK/priorities"; die "crash ${p%:*}: not PRIORITY=${p#*:}"; }
done

tc=$(date +%s%N)
# The user's own list: the rejected crashes with their reason (the notes come off the crash's path).
seen=
for _ in $(seq 60); do
	as_user $u dumpctl --json=short list > "$WORK/ulist" 2>&1 || true
	if grep -q "\"pid\":$rej,.*" "$WORK/ulist" && grep -q "\"pid\":$nocore," "$WORK/ulist" &&
	   grep -q "\"pid\":$loop2," "$WORK/ulist"; then
		seen=1
		break
	fi
	sleep 0.5
done
[ -n "$seen" ] || { cat "$WORK/ulist"; die "$u does not see their rejected crashes with dumpctl list"; }
for p in $rej:rule $nocore:rlimit-zero $loop2:repeat; do
	tr '{' '\n' < "$WORK/ulist" | grep "\"pid\":${p%:*}," | grep -q "\"result\":\"rejected\".*\"reason\":\"${p#*:}\"" ||
		{ cat "$WORK/ulist"; die "the user's list shows ${p%:*} without its reason ${p#*:}"; }
done

td=$(date +%s%N)
# The shipped unit writes them, in its sandbox, into node-exporter's textfile directory (made here:
# prometheus-node-exporter is not in the image), a whole file readable by node-exporter's user.
if systemctl cat coredumpd-metrics.service >/dev/null 2>&1 && [ ! -e /var/lib/prometheus ]; then
	mkdir -p /var/lib/prometheus/node-exporter
	on_exit "rm -rf /var/lib/prometheus"
	systemctl start coredumpd-metrics.service || { journalctl -b -u coredumpd-metrics.service | tail; die "coredumpd-metrics.service failed"; }
	prom=/var/lib/prometheus/node-exporter/coredumpd.prom
	[ "$(stat -c %a "$prom")" = 644 ] || die "$prom is mode $(stat -c %a "$prom")"
	[ "$(val "$prom" coredumpd_cores_stored_total)" -ge "$(val "$WORK/after" coredumpd_cores_stored_total)" ] ||
		die "$prom holds other counts than dumpctl metrics"
	[ "$(val "$prom" coredumpd_registered)" = 1 ] || die "$prom says coredumpd is not registered"
	ls /var/lib/prometheus/node-exporter | grep -v '^coredumpd.prom$' && die "a temporary file was left"
fi
t2=$(date +%s%N)
say "# report: metrics: 4 crashes of uid 59141 counted as dumpctl list shows them; the user sees 3 rejected with their reason (ms: crashes $(( (t1 - t0) / 1000000 )), format $(( (ta - t1) / 1000000 )), list $(( (tb - ta) / 1000000 )), priorities $(( (tc - tb) / 1000000 )), user list $(( (td - tc) / 1000000 )), unit $(( (t2 - td) / 1000000 )))"
