# shellcheck shell=bash
# tests/vm/collector.sh — the fleet's collector on the host, for tests/vm/run --collector PORT
# (sourced by tests/run-all's fleet step and bench/run --fleet; bash, run as root).
#
#   collector_port                      a free TCP port on 127.0.0.1 (printed; status 1 if none)
#   collector_start DIR PORT LOG PIDFILE SECONDS
#                                       systemd-journal-remote as nobody, plain HTTP on
#                                       127.0.0.1:PORT, writing journal files to DIR/ (one per
#                                       sender, --split-mode=host), killed after SECONDS; its
#                                       output is appended to LOG, its pid written to PIDFILE.
#                                       Waits (10 s at most) until it listens: status 1 if not.
#   collector_stop PIDFILE              TERM, then KILL after 10 s
#   journal_used_bytes DIR              the bytes the journal files in DIR hold (each file's
#                                       objects up to the end of its tail object), not the space
#                                       the files take (journald grows them in 8 MiB steps)
#
# Plain HTTP on the loopback is for tests only: a fleet's collector listens with HTTPS
# (man/coredumpd-fleet.7). DIR must be writable by nobody.

collector_port() {
	local p
	for _ in $(seq 50); do
		p=$(shuf -i 20000-59999 -n 1)
		# (ss lists what listens; nothing of ours may take the port meanwhile)
		[ -n "$(ss -Hltn "sport = :$p" 2>/dev/null)" ] || { echo "$p"; return 0; }
	done
	return 1
}

collector_start() {	# DIR PORT LOG PIDFILE SECONDS
	local dir=$1 port=$2 log=$3 pidfile=$4 limit=$5
	timeout -k 5 "$limit" setpriv --reuid=nobody --regid=nogroup --clear-groups --no-new-privs \
		/lib/systemd/systemd-journal-remote --listen-http="127.0.0.1:$port" --output="$dir/" \
		--split-mode=host >> "$log" 2>&1 &
	echo $! > "$pidfile"
	for _ in $(seq 100); do
		[ -z "$(ss -Hltn "sport = :$port" 2>/dev/null)" ] || return 0
		sleep 0.1
	done
	return 1
}

collector_stop() {	# PIDFILE
	local pid
	pid=$(cat "$1" 2>/dev/null) || return 0
	kill -TERM "$pid" 2>/dev/null
	for _ in $(seq 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
	kill -KILL "$pid" 2>/dev/null
	rm -f "$1"
}

# The journal file format (systemd's docs/JOURNAL_FILE_FORMAT.md): the header's
# tail_object_offset is the little-endian 64-bit word at byte 136; an object starts with its type,
# flags and 6 reserved bytes, then its size (64 bits, at byte 8), and objects are 8-byte aligned.
journal_used_bytes() {	# DIR
	local f tail size sum=0
	for f in "$1"/*.journal; do
		[ -f "$f" ] || continue
		tail=$(od -An -t u8 -j 136 -N 8 --endian=little "$f" 2>/dev/null | tr -d ' ')
		[[ $tail =~ ^[1-9][0-9]*$ ]] || continue
		size=$(od -An -t u8 -j $((tail + 8)) -N 8 --endian=little "$f" 2>/dev/null | tr -d ' ')
		[[ $size =~ ^[0-9]+$ ]] || continue
		sum=$((sum + tail + (size + 7) / 8 * 8))
	done
	echo "$sum"
}
