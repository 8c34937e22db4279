# After a known set of crashes of a regular user — one rejected by a rule, one by
# builtin:rlimit-zero (a shell with a soft RLIMIT_CORE of 0), two at one site with
# RateLimitBurst=1 (one kept, the repeat rejected) — what `dumpctl metrics` counted meanwhile
# equals what `dumpctl list` shows of them; the text parses as Prometheus' format would have it.
# The user's own `dumpctl list` shows each rejected crash with its reason (a short note in their
# journal; the bound on notes is the host tests'); the system journal's records are PRIORITY=2
# for the kept crash only, 5 for the rejected ones. The shipped coredumpd-metrics.service is inert
# without node-exporter's textfile directory, and with it writes the counters in its sandbox;
# bookworm's prometheus-node-exporter (its shipped unit, on 127.0.0.1 only) then serves them: no
# textfile error, every family of dumpctl metrics with its type, the samples of the file, the
# counters dumpctl metrics printed and the crashes as dumpctl list shows them.
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
# node-exporter. The shipped unit is inert without node-exporter's textfile directory (the image
# has Debian's prometheus-node-exporter with the directory taken away, mkosi.postinst): it succeeds,
# skipped by its condition, and writes nothing.
command -v prometheus-node-exporter >/dev/null || die "the image has no prometheus-node-exporter (mkosi.conf)"
systemctl is-active -q prometheus-node-exporter.service && die "node-exporter runs since boot (mkosi.postinst disables it)"
tdir=/var/lib/prometheus/node-exporter prom=/var/lib/prometheus/node-exporter/coredumpd.prom
[ ! -e $tdir ] || die "$tdir is in the image (mkosi.postinst takes it away)"
systemctl start coredumpd-metrics.service || die "coredumpd-metrics.service failed without $tdir"
[ "$(systemctl show -P ConditionResult coredumpd-metrics.service)" = no ] ||
	die "coredumpd-metrics.service ran without $tdir"
[ ! -e $tdir ] || die "coredumpd-metrics.service made $tdir"
# With the directory as the package ships it, the unit (as its timer would start it) writes the
# counters in its sandbox, a whole file readable by node-exporter's user.
install -d -o root -g root -m 0755 $tdir
on_exit "rm -rf $tdir"
systemctl start coredumpd-metrics.service || { journalctl -b -u coredumpd-metrics.service | tail; die "coredumpd-metrics.service failed"; }
[ "$(stat -c %a $prom)" = 644 ] || die "$prom is mode $(stat -c %a $prom)"
ls $tdir | grep -v '^coredumpd.prom$' && die "a temporary file was left"
# node-exporter, by its shipped unit (as its user prometheus) with the arguments an operator puts in
# /etc/default/prometheus-node-exporter: the textfile collector alone, on the loopback only. Its
# directory is Debian's default, the one the unit writes into.
cp -a /etc/default/prometheus-node-exporter "$WORK/node-exporter.default"
on_exit "cp -a '$WORK/node-exporter.default' /etc/default/prometheus-node-exporter"
echo 'ARGS="--web.listen-address=127.0.0.1:9100 --collector.disable-defaults --collector.textfile"' \
	> /etc/default/prometheus-node-exporter
on_exit "systemctl stop prometheus-node-exporter.service"
systemctl start prometheus-node-exporter.service || die "prometheus-node-exporter.service did not start"
# One scrape as Prometheus makes it (HTTP on 127.0.0.1:9100), bounded; the first waits for the listener.
timeout 30 bash -c '
	until exec 3<>/dev/tcp/127.0.0.1/9100; do sleep 0.1; done 2>/dev/null
	printf "GET /metrics HTTP/1.0\r\nHost: 127.0.0.1:9100\r\n\r\n" >&3
	tr -d "\r" <&3' > "$WORK/scrape" ||
	{ journalctl -b -u prometheus-node-exporter.service | tail; die "no answer from node-exporter on 127.0.0.1:9100"; }
head -n1 "$WORK/scrape" | grep -q '^HTTP/1\.[01] 200 ' || { head -n5 "$WORK/scrape"; die "node-exporter did not answer 200"; }
sed '1,/^$/d' "$WORK/scrape" > "$WORK/served"
# Listening on the loopback only (/proc/net/tcp{,6}: state 0A, port 9100 = 238C).
awk '$4 == "0A" && $2 ~ /:238C$/ && $2 != "0100007F:238C" { bad = 1; print } END { exit bad }' \
	/proc/net/tcp $(ls /proc/net/tcp6 2>/dev/null) || {
	cat /etc/default/prometheus-node-exporter; systemctl status --no-pager prometheus-node-exporter.service
	tr '\0' ' ' < "/proc/$(systemctl show -P MainPID prometheus-node-exporter.service)/cmdline"; echo
	die "node-exporter listens beyond 127.0.0.1"; }
grep -qx 'node_textfile_scrape_error 0' "$WORK/served" ||
	{ grep '^node_textfile' "$WORK/served"; journalctl -b -u prometheus-node-exporter.service | tail; die "node-exporter could not read the textfile directory"; }
grep -q '^node_textfile_mtime_seconds{file="[^"]*coredumpd\.prom"}' "$WORK/served" || die "node-exporter did not read $prom"
# The families dumpctl metrics prints, each served with its type.
fams() { awk '/^# TYPE coredumpd_/ { print $3, $4 }' "$1" | sort; }
fams "$WORK/after" > "$WORK/fams"
[ "$(wc -l < "$WORK/fams")" -ge 10 ] || die "dumpctl metrics printed $(wc -l < "$WORK/fams") families"
fams "$WORK/served" | diff "$WORK/fams" - || die "node-exporter does not serve coredumpd's families as dumpctl metrics has them"
# The samples as node-exporter writes them (labels sorted, numbers as Go formats floats) made
# comparable: "name{labels in order} value", the value and le as numbers.
norm() {
	awk '/^coredumpd_/ {
		v = $NF; s = $0; sub(/ [^ ]*$/, "", s); name = s; sub(/\{.*/, "", name); lab = ""
		if (s ~ /\{/) { lab = s; sub(/^[^{]*\{/, "", lab); sub(/\}$/, "", lab) }
		n = split(lab, l, ",")
		for (i = 2; i <= n; i++) { x = l[i]; for (j = i - 1; j >= 1 && l[j] > x; j--) l[j + 1] = l[j]; l[j + 1] = x }
		out = ""
		for (i = 1; i <= n; i++) {
			if (l[i] ~ /^le="[0-9]/) { q = l[i]; gsub(/^le="|"$/, "", q); l[i] = sprintf("le=\"%.12g\"", q + 0) }
			out = out (i > 1 ? "," : "") l[i]
		}
		printf "%s%s %.17g\n", name, (n ? "{" out "}" : ""), v + 0 }' "$1" | sort
}
for f in before after served; do norm "$WORK/$f" > "$WORK/$f.n"; done
norm $prom > "$WORK/prom.n"
diff "$WORK/prom.n" "$WORK/served.n" > "$WORK/diff" || { cat "$WORK/diff"; die "node-exporter serves other samples than $prom holds"; }
# The counters served are dumpctl metrics' (no crash since; the gauges of the store may move).
counters() { grep -E '^coredumpd_registered |_total[{ ]|_(bucket|sum|count)[{ ]' "$1"; }
counters "$WORK/after.n" > "$WORK/after.c"
[ "$(wc -l < "$WORK/after.c")" -ge 20 ] || die "only $(wc -l < "$WORK/after.c") counter samples"
counters "$WORK/served.n" | diff "$WORK/after.c" - || die "node-exporter serves other counts than dumpctl metrics"
# And the crashes served, against dumpctl list.
nval() { awk -v s="$2" '$1 == s { v = $2 } END { print v + 0 }' "$1"; }
C='coredumpd_crashes_total{action="kernel",reason="none",result="stored"}'
R='coredumpd_crashes_total{action="reject",reason='
for check in "$C|stored|" "${R}\"rule\",result=\"rejected\"}|rejected|rule" \
	     "${R}\"rlimit-zero\",result=\"rejected\"}|rejected|rlimit-zero" \
	     "${R}\"repeat\",result=\"rejected\"}|rejected|repeat"; do
	IFS='|' read -r sample result reason <<<"$check"
	d=$(( $(nval "$WORK/served.n" "$sample") - $(nval "$WORK/before.n" "$sample") )) l=$(n_list "$result" "$reason")
	grep -q "^$sample " "$WORK/served.n" || die "node-exporter does not serve $sample"
	[ "$d" = "$l" ] || die "node-exporter serves $sample +$d, dumpctl list shows $l"
done
[ "$(nval "$WORK/served.n" coredumpd_registered)" = 1 ] || die "node-exporter serves coredumpd_registered $(nval "$WORK/served.n" coredumpd_registered)"
t2=$(date +%s%N)
say "# report: metrics: 4 crashes of uid 59141 counted as dumpctl list shows them, served so by node-exporter ($(wc -l < "$WORK/fams") families, $(wc -l < "$WORK/served.n") samples); the user sees 3 rejected with their reason (ms: crashes $(( (t1 - t0) / 1000000 )), format $(( (ta - t1) / 1000000 )), list $(( (tb - ta) / 1000000 )), priorities $(( (tc - tb) / 1000000 )), user list $(( (td - tc) / 1000000 )), unit and node-exporter $(( (t2 - td) / 1000000 )))"
