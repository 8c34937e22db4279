# lib.sh — helpers for the in-VM cases (sourced by each case under bash).
#
# A case exits 0 (pass), 77 (skip; the reason is its last line "SKIP: …") or
# anything else (fail; its output goes to the host).  Each case runs in a
# fresh bash, as root, in the VM's initial mount namespace (the kernel only
# connects to the coredump socket for tasks in that namespace).
set -uo pipefail

T=/usr/lib/coredumpd-tests
BIN=$T/bin
MSGID=fc2e22bc6ee647b6b90729ab34a250b1
# The system journal's record of a crash whose copy was filed in the user's journal carries
# coredumpd's own id, the copy coredumpctl's (each crash once in coredumpctl: crash/record.h).
MSGID_OWN=3ffbd697b6d74dbc8eb757accc447f8b
# Every match below takes the daemon's own records (_UID=0), under either id: a stored crash a user
# may read has a copy in that user's journal too, which root's journalctl also reads. Unquoted: the
# words are journalctl's matches (the two ids alternatives).
SYSTEM_RECORD="MESSAGE_ID=$MSGID MESSAGE_ID=$MSGID_OWN _UID=0"
STORE=/var/lib/coredumpd
POLICY_DIR=/etc/coredumpd/policy.d
CONF=/etc/coredumpd/coredumpd.conf
SOCK=/run/coredump.socket
WORK=$(mktemp -d /run/coredumpd-case.XXXXXX)

say() { printf '%s\n' "$*"; }
# On failure, show what coredumpd said during this case.
diag() {
	say "--- coredumpd journal during this case:"
	journalctl -q --no-pager -b -o short-monotonic --since=@$CASE_START \
		_SYSTEMD_UNIT=coredumpd.service + _COMM=coredumpd + UNIT=coredumpd.service + UNIT=coredumpd.socket \
		2>/dev/null | tail -n 40 | cut -c1-300
	say "--- coredumpd.service is $(systemctl is-active coredumpd.service 2>&1); store holds $(store_files | wc -l) entries, newest:"
	ls -lt "$STORE" 2>/dev/null | sed -n '2,4p'

}
die() { say "FAIL: $*"; diag; exit 1; }
skip() { say "SKIP: $*"; exit 77; }

# Cleanup hooks, run in reverse order at exit.
_cleanups=()
on_exit() { _cleanups+=("$*"); }
_run_cleanups() {
	local i
	for ((i = ${#_cleanups[@]} - 1; i >= 0; i--)); do eval "${_cleanups[i]}" || true; done
	rm -rf "$WORK"
}
trap _run_cleanups EXIT

daemon_path() {
	local p
	for p in /usr/bin/coredumpd /usr/libexec/coredumpd /usr/lib/coredumpd/coredumpd /usr/sbin/coredumpd; do
		[ -x "$p" ] && { echo "$p"; return 0; }
	done
	return 1
}

need_daemon() {
	case $(cat "$T/daemon-build" 2>/dev/null) in
	failed) skip "coredumpd failed to build (image made with --daemon optional)" ;;
	none) skip "coredumpd not built into this image (--daemon none, or no meson.build)" ;;
	esac
	daemon_path >/dev/null || skip "coredumpd is not installed in this image"
	[ -e /usr/lib/systemd/system/coredumpd.socket ] || skip "coredumpd.socket is not installed"
	systemctl is-active -q coredumpd.socket || die "coredumpd.socket is not active: $(systemctl status --no-pager coredumpd.socket 2>&1 | head -20)"
	[ "$(cat /proc/sys/kernel/core_pattern)" = "@@$SOCK" ] ||
		die "core_pattern is '$(cat /proc/sys/kernel/core_pattern)', not '@@$SOCK'"
}

# The coredumpd service units (Accept=no: coredumpd.service; Accept=yes:
# coredumpd@*.service instances).
daemon_units() {
	systemctl list-units --no-legend --plain --all 'coredumpd.service' 'coredumpd@*.service' 2>/dev/null |
		awk '{print $1}'
}

daemon_signal() {	# SIGNAL — signal every running coredumpd service
	local u
	for u in $(daemon_units); do
		systemctl kill -s "$1" "$u" 2>/dev/null || true
	done
}

# Make the daemon re-read its policy: SIGHUP a running daemon and wait until it logs the reload
# ("Policy reloaded: N rules." or "Policy reload failed", daemon/server/server.c; at most 10 s);
# a daemon that is not running reads the policy when the socket next activates it.
reload_policy() {
	local u main since end
	for u in $(daemon_units); do
		main=$(systemctl show -P MainPID "$u" 2>/dev/null)
		[ -n "$main" ] && [ "$main" != 0 ] || continue
		since=$(date +%s.%6N)
		systemctl kill -s HUP "$u" 2>/dev/null || continue
		end=$((SECONDS + 10))
		until journalctl -q --no-pager -b --since=@$since _PID="$main" -o cat 2>/dev/null | grep -q '^Policy reload'; do
			[ $SECONDS -lt $end ] || { say "coredumpd ($u, pid $main) logged no policy reload within 10 s"; break; }
			sleep 0.1
		done
	done
}

add_policy() {	# NAME (content on stdin) — installs $POLICY_DIR/NAME.conf, removed at exit
	mkdir -p "$POLICY_DIR"
	cat > "$POLICY_DIR/$1.conf"
	on_exit "rm -f '$POLICY_DIR/$1.conf'; reload_policy"
	reload_policy
}

# Journal helpers.  journal_mark remembers the time, to the microsecond (a
# whole second let the previous case's last entries in); later queries only
# look at this boot's entries from then on.  (Entries are matched by PID,
# which is unique within a boot here; cursors proved unreliable together with
# field matches.)
journal_mark() {
	SINCE=$(date +%s.%6N)
}
_jq() {
	journalctl -q --no-pager -b ${SINCE:+--since=@$SINCE} "$@"
}
# pid_results — "PID RESULT" for every coredump entry since journal_mark
# (callers keep their own pids: a daemon may still record an earlier crash).
pid_results() {	# one JSON object per line: a MESSAGE's blank lines cannot split an entry
	_jq -o json $SYSTEM_RECORD 2>/dev/null | awk '
		function val(k,   m) {
			if (!match($0, "\"" k "\":\"[^\"]*\"")) return "-"
			m = substr($0, RSTART, RLENGTH); sub(/^[^:]*:"/, "", m); sub(/"$/, "", m); return m
		}
		{ p = val("COREDUMP_PID"); if (p != "-") print p, val("COREDUMPD_RESULT") }'
}
# Number of coredump entries in this boot so far (one JSON object per entry: messages span lines).
entry_count() {
	journalctl -q --no-pager -b -o json $SYSTEM_RECORD 2>/dev/null | wc -l
}

# wait_entry PID [TIMEOUT_S] — wait for the coredump entry of PID; leaves its
# fields (KEY=VALUE lines, text fields only) in $WORK/entry.PID and prints the
# path.  Returns 1 on timeout.
wait_entry() {
	local pid=$1 t=${2:-60} f=$WORK/entry.$1 end
	end=$((SECONDS + t))
	while [ $SECONDS -lt $end ]; do
		_jq -o export $SYSTEM_RECORD COREDUMP_PID="$pid" 2>/dev/null |
			grep -a -E '^[A-Z_][A-Z0-9_]*=' > "$f" || true
		if [ -s "$f" ]; then
			echo "$f"
			return 0
		fi
		sleep 0.25
	done
	return 1
}
field() {	# NAME ENTRYFILE
	sed -n "s/^$1=//p" "$2" | head -n1
}

# crash NAME [ARGS...] — run $BIN/NAME under spawn; sets PID CORE SIGNAL and
# leaves spawn's line in $WORK/spawn.out.
crash() {
	local name=$1
	shift
	"$BIN/spawn" -t 120 -- "$BIN/$name" "$@" > "$WORK/spawn.out" || {
		cat "$WORK/spawn.out"
		die "$name did not end within 120 s"
	}
	read_spawn_line "$(head -n1 "$WORK/spawn.out")"
}
read_spawn_line() {
	local kv
	PID= CORE= SIGNAL= DUMPING_MS=
	for kv in $1; do
		case $kv in
		pid=*) PID=${kv#pid=} ;;
		core=*) CORE=${kv#core=} ;;
		signal=*) SIGNAL=${kv#signal=} ;;
		coredumping_ms=*) DUMPING_MS=${kv#coredumping_ms=} ;;
		esac
	done
}

# daemon_stuck — the daemon's threads and its processes (readers, parsers, writers: those of its
# unit's cgroup, and the stuck children it moved into coredumpd-stuck-PID.scope units) in D state at
# each of five looks over a second, as " PID(comm, wchan)" each; nothing when none. Reads no
# process's cmdline (no ps, pgrep): that would wait behind a crasher's locked mm as the daemon would.
daemon_stuck() {
	local main cg t i out=
	local -A d=()
	main=$(systemctl show -P MainPID coredumpd.service)
	cg=/sys/fs/cgroup$(awk -F: '$1 == "0" {print $3}' "/proc/$main/cgroup" 2>/dev/null)
	for i in 1 2 3 4 5; do
		for t in /proc/$main/task/* $(cat "$cg/cgroup.procs" /sys/fs/cgroup/system.slice/coredumpd-stuck-*.scope/cgroup.procs 2>/dev/null | sed 's|^|/proc/|'); do
			[ "$(sed 's/.*) //' "$t/stat" 2>/dev/null | cut -c1)" = D ] && d[$t]=$((${d[$t]:-0} + 1))
		done
		sleep 0.2
	done
	for t in "${!d[@]}"; do
		[ "${d[$t]}" = 5 ] && out+=" ${t#/proc/}($(cat "$t/comm" 2>/dev/null), wchan $(cat "$t/wchan" 2>/dev/null))"
	done
	echo "$out"
}
# store_files — the store's cores and whatever else is in it, less the daemon's own books, which
# any crash may touch, a rejected one too (.metrics' counters, .signatures-seen, .dpkg-index).
store_files() {
	find "$STORE" -mindepth 1 -maxdepth 2 ! -name .metrics ! -name .signatures-seen ! -name .dpkg-index 2>/dev/null | sort
}
# daemon_warm — makes sure coredumpd runs before a case's own crash (a case that looks at the
# daemon's process). The crash-context probe is pinned at boot (coredumpd-probe.service) and sees
# a crash that socket-activates the daemon too (case signature-same-cold-and-warm). Crashes a
# crasher and waits for its record.
daemon_warm() {
	local main
	main=$(systemctl show -P MainPID coredumpd.service 2>/dev/null)
	[ -n "$main" ] && [ "$main" != 0 ] && return 0
	crash crasher
	wait_entry "$PID" 60 > /dev/null || die "the warm-up crash was not recorded"
}

# spawn_dumping SPAWN_OUT -- PROGRAM [ARGS...] — starts PROGRAM under spawn in the background and
# waits until the kernel is dumping it (the daemon has the connection); sets SPAWN (spawn's pid)
# and PID (the crasher's).
spawn_dumping() {
	local out=$1
	shift 2
	rm -f "$WORK/pids"
	"$BIN/spawn" -t 120 -p "$WORK/pids" -- "$@" > "$out" &
	SPAWN=$!
	for _ in $(seq 600); do [ -s "$WORK/pids" ] && break; sleep 0.1; done
	PID=$(head -n1 "$WORK/pids")
	for _ in $(seq 1200); do
		grep -q '^CoreDumping:[[:space:]]*1' /proc/$PID/status 2>/dev/null && return 0
		sleep 0.05
	done
	die "crasher $PID never started dumping"
}

# Waits until the store stops changing (cores of earlier cases are compressed after their tasks
# are released): two listings a second apart the same, for at most 120 s.
store_settle() {
	local a b end=$((SECONDS + 120))
	a=$(store_files)
	while [ $SECONDS -lt $end ]; do
		sleep 1
		b=$(store_files)
		[ "$a" = "$b" ] && return 0
		a=$b
	done
}

# A file in the store that mentions PID in its name (systemd-coredump style
# names: core.COMM.UID.BOOTID.PID.USEC[.zst]).
store_file_for() {
	find "$STORE" -maxdepth 2 -type f -name "*.$1.*" 2>/dev/null | head -n1
}

# Decompress a stored dump (zstd, xz, lz4 or plain) to $WORK/core; prints the path.
plain_core() {
	local f=$1 out=$WORK/core
	case $f in
	*.zst) zstd -q -d -f -o "$out" "$f" || return 1 ;;
	*.xz) xz -d -c "$f" > "$out" || return 1 ;;
	*) cp "$f" "$out" ;;
	esac
	echo "$out"
}

CASE_START=$(date +%s)

set_core_pattern() {	# PATTERN — for kernel-only cases; restored at exit
	local old
	old=$(cat /proc/sys/kernel/core_pattern)
	on_exit "echo '$old' > /proc/sys/kernel/core_pattern"
	echo "$1" > /proc/sys/kernel/core_pattern
}

# Kernel-only protocol cases: point core_pattern ("@@") at the probe server (src/probe.c)
# answering MODE [ARGS...], crash the crasher and wait for both.  The server's report is in
# $WORK/probe.out, the crash's in $WORK/spawn.out and PID, SIGNAL, CORE (see crash).
crash_with_probe_server() {
	local s=/run/coredumpd-probe.socket ppid
	"$BIN/probe" "$s" "$@" > "$WORK/probe.out" 2>&1 &
	ppid=$!
	for _ in $(seq 50); do [ -S "$s" ] && break; sleep 0.1; done
	set_core_pattern "@@$s"
	crash crasher
	wait $ppid
	cat "$WORK/probe.out" "$WORK/spawn.out"
}

# attack_begin / attack_survived — bracket an attack case. attack_begin warms the daemon and
# remembers its PID; attack_survived then checks what every attack case must leave true: the daemon
# is the same process (nothing the attacker did ended or restarted it), and a crash of root's made
# afterwards is still answered and stored.
attack_begin() {
	daemon_warm
	ATTACK_MAIN=$(systemctl show -P MainPID coredumpd.service)
	[ -n "$ATTACK_MAIN" ] && [ "$ATTACK_MAIN" != 0 ] || die "coredumpd is not running before the attack"
}
attack_survived() {
	local now e
	now=$(systemctl show -P MainPID coredumpd.service)
	[ "$now" = "$ATTACK_MAIN" ] || die "the daemon is not the same process after the attack (was $ATTACK_MAIN, now ${now:-none})"
	crash crasher
	e=$(wait_entry "$PID" 120) || die "root's crash $PID after the attack has no record"
	[ "$(field COREDUMPD_RESULT "$e")" = stored ] || die "root's crash $PID after the attack was not stored: $(field COREDUMPD_ERROR "$e")"
	now=$(systemctl show -P MainPID coredumpd.service)
	[ "$now" = "$ATTACK_MAIN" ] || die "the daemon is not the same process after root's crash (was $ATTACK_MAIN, now ${now:-none})"
}

# trickle_mount SECONDS — a FUSE file, $TRICKLE (16 MiB), of which every page takes SECONDS to read
# (src/fusestall.c --trickle), mounted allow_other as a user's own FUSE mount would be; and
# $SLOWCRASH, a crasher any user can run that maps it and is dumped with its file pages
# (coredump_filter 0x37): its core streams at a few hundred bytes a second and never stalls for a
# whole Deadline=. The server's connection is aborted and the mount gone at exit.
trickle_mount() {
	local mnt=/run/trickle
	grep -qw fuse /proc/filesystems || modprobe fuse 2>/dev/null
	grep -qw fuse /proc/filesystems || die "no FUSE in kernel $(uname -r) (CONFIG_FUSE_FS)"
	mkdir -p "$mnt"
	"$BIN/fusestall" --trickle "$1" "$mnt" > "$WORK/trickle.out" 2> "$WORK/trickle.err" &
	TRICKLE_PID=$!
	on_exit "kill $TRICKLE_PID; for a in /sys/fs/fuse/connections/*/abort; do echo 1 > \$a; done; umount -l $mnt"
	for _ in $(seq 50); do grep -q ready "$WORK/trickle.out" && break; sleep 0.1; done
	grep -q ready "$WORK/trickle.out" || die "fusestall --trickle did not mount: $(cat "$WORK/trickle.err")"
	TRICKLE=$mnt/trickle
	chmod 0755 "$WORK"
	SLOWCRASH=$WORK/slowcrash
	cat > "$SLOWCRASH" <<SH
#!/bin/sh
echo 0x37 > /proc/self/coredump_filter || exit 3
exec $BIN/uscrash -f $TRICKLE -n "\${1:-slowcrash}"
SH
	chmod 0755 "$SLOWCRASH"
}

# add_user NAME — a fresh unprivileged user (removed at exit); sets NEW_UID.
add_user() {	# NAME [UID] — UID: one no other case's user had in this boot (useradd reuses the lowest free)
	del_user "$1"
	useradd -m ${2:+-u "$2"} "$1" || die "useradd $1 failed"
	on_exit "del_user $1"
	NEW_UID=$(id -u "$1")
}
# del_user NAME — userdel refuses a user with a process left: the tenant's reader (coredumpd-read,
# running as the crashing user) idles 10 s after the user's last crash, so the user's processes go
# first (pkill -U matches by uid without reading any process's command line).
del_user() {
	id -u "$1" >/dev/null 2>&1 || return 0
	local uid
	uid=$(id -u "$1")
	pkill -KILL -U "$uid" 2>/dev/null || true
	for _ in $(seq 20); do pgrep -U "$uid" >/dev/null || break; sleep 0.1; done
	userdel -r "$1" >/dev/null 2>&1 || true
}
as_user() {	# NAME COMMAND... — run as that user, in no group but their own
	local u=$1
	shift
	setpriv --reuid="$(id -u "$u")" --regid="$(id -g "$u")" --init-groups env HOME=/home/$u "$@"
}

# records — "PID|RESULT|UID|OWNER|ERROR" for every coredump entry since journal_mark.
records() {
	_jq -o json $SYSTEM_RECORD 2>/dev/null | awk '
		function val(k,   m) {
			if (!match($0, "\"" k "\":\"[^\"]*\"")) return "-"
			m = substr($0, RSTART, RLENGTH); sub(/^[^:]*:"/, "", m); sub(/"$/, "", m); return m
		}
		{ p = val("COREDUMP_PID"); if (p != "-") print p "|" val("COREDUMPD_RESULT") "|" val("COREDUMP_UID") "|" val("COREDUMPD_OWNER_UID") "|" val("COREDUMPD_ERROR") }'
}
# wait_all_recorded PIDFILE TIMEOUT — every pid in PIDFILE ends as exactly one record (dies if one
# has two, or one has none after TIMEOUT seconds); leaves the records in $WORK/records.
wait_all_recorded() {
	local pids end p n missing
	pids=$(sort -u "$1")
	end=$((SECONDS + $2))
	while :; do
		records > "$WORK/records"
		missing=
		for p in $pids; do
			n=$(grep -c "^$p|" "$WORK/records")
			[ "$n" -gt 1 ] && die "crash $p has $n records"
			[ "$n" = 0 ] && missing="$missing $p"
		done
		[ -z "$missing" ] && return 0
		[ $SECONDS -lt $end ] || die "$(wc -w <<<"$pids") crashes, no record for:$missing"
		sleep 1
	done
}
# kill_pids PIDFILE — SIGKILL the attacker's own processes listed (a dumping task ends its dump).
kill_pids() {
	local p
	for p in $(sort -u "$1"); do kill -KILL "$p" 2>/dev/null; done
	return 0
}

# only_when_named WHY — skips the case unless coredumpd.test.only= names it: one of its |-separated
# globs is the case's own name, written out (no wildcard matches it). For cases that change the
# machine for good (case patched-kernel-removed removes the running kernel's package): the whole
# suite, any glob and any other selection skip them.
only_when_named() {
	local me w g globs
	me=$(basename "$0" .sh)
	me=${me#[0-9][0-9]-}
	for w in $(cat /run/coredumpd-tests/options 2>/dev/null || cat /proc/cmdline); do
		case $w in
		coredumpd.test.only=*)
			IFS='|' read -ra globs <<< "${w#*=}"
			for g in "${globs[@]}"; do [ "$g" = "$me" ] && return 0; done
			;;
		esac
	done
	skip "runs only when named (--only $me): $1"
}

# need_disk_image — skips unless this is the bootable disk image (tests/vm/run --disk): kernel
# packages installed by dpkg, systemd-boot on an ESP. The cpio image boots a kernel it does not own.
need_disk_image() {
	[ -e "$T/disk-image" ] || skip "not the disk image (tests/vm/run --disk): no kernel package, no boot loader"
}

# kernel_package KVER — the package that installed /boot/vmlinuz-KVER (empty if none).
kernel_package() {
	dpkg-query -S "/boot/vmlinuz-$1" 2>/dev/null | sed -n 's/^\([^:,]*\): .*/\1/p' | head -n1
}
# installed PACKAGE — whether dpkg has PACKAGE installed (not merely its configuration files).
installed() {
	[ "$(dpkg-query -W -f '${db:Status-Status}' "$1" 2>/dev/null)" = installed ]
}

# bench_arg NAME DEFAULT — the word coredumpd.bench.NAME= that bench/run put on the kernel command
# line (the disk image: in /run/coredumpd-tests/options, from its control disk), or DEFAULT.
bench_arg() {
	local opts=/run/coredumpd-tests/options v
	[ -f "$opts" ] || opts=/proc/cmdline
	v=$(sed -n "s/.*coredumpd\.bench\.$1=\([0-9A-Za-z,-][0-9A-Za-z,-]*\).*/\1/p" "$opts")
	echo "${v:-$2}"
}

# ---- the fleet cases (fleet-*: tests/run-all's fleet step boots two machines with
# tests/vm/run --collector PORT; 10.0.2.100:19532 is QEMU's forward to a systemd-journal-remote
# the runner runs on the host). Each crash is handed to the host in a line
# "# report: fleet-crash MACHINE-ID SITE CRASH-ID SIGNATURE PID".
FLEET_URL=http://10.0.2.100:19532
FLEET_STATE=/var/lib/cdt-fleet/upload.state

# fleet_net_up — the guest's address on QEMU's user network (10.0.2.15/24 on its Ethernet
# interface, set by src/netup.c: no DHCP, udev or networkd in the way): the only thing it reaches
# there is the collector's forward. (sit0 and lo are there anyway: an Ethernet one is the NIC.)
fleet_net_up() {
	local end=$((SECONDS + 60)) i nic=
	while :; do
		for i in /sys/class/net/*; do
			[ "$(cat "$i/type" 2>/dev/null)" = 1 ] && { nic=${i##*/}; break; }
		done
		[ -z "$nic" ] || break
		[ $SECONDS -lt $end ] || die "no Ethernet interface (boot with tests/vm/run --collector PORT): $(ls /sys/class/net); PCI $(cat /sys/bus/pci/devices/*/device 2>/dev/null | tr '\n' ' '); $(modprobe -v virtio_net 2>&1 | tail -n1)"
		sleep 1
	done
	"$BIN/netup" "$nic" 10.0.2.15 255.255.255.0 || die "could not configure $nic"
	say "network: $nic 10.0.2.15/24"
}

# fleet_policy — the fleet crashers' rule: a rate limit, so that a signature's first crash carries
# its compact core (COREDUMP=) in the record (the suite's global limit is off), and
# JournalCore=system: the crashers run as root, whose compact core stays out of the system journal
# (the one journal-upload sends here) unless a fleet opts in, as coredumpd-fleet(7) says to.
fleet_policy() {
	add_policy test-fleet <<-'P'
	[Rule]
	Name=fleet
	MatchComm=crasher
	MatchComm=fleetcrash
	Action=kernel
	RateLimitBurst=5
	JournalCore=system
	P
}

# fleet_machine_up — what every fleet machine's case starts with: the daemon, the uploader in the
# image, the network to the collector, the fleet's rule, and a journal mark for its records.
fleet_machine_up() {
	need_daemon
	[ -x /lib/systemd/systemd-journal-upload ] || die "no systemd-journal-upload in the image"
	fleet_net_up
	fleet_policy
	journal_mark
}

# fleet_crash SITE PROGRAM [ARGS...] — crash $BIN/PROGRAM, wait for its record (stored, signed, with
# its compact core) and report it to the host.
fleet_crash() {
	local site=$1 e id sig
	shift
	crash "$@"
	e=$(wait_entry "$PID" 90) || die "the crash of $1 (pid $PID) was not recorded"
	id=$(field COREDUMPD_CRASH_ID "$e")
	sig=$(field COREDUMPD_SIGNATURE "$e")
	[ "$(field COREDUMPD_RESULT "$e")" = stored ] || die "$1 (pid $PID): result '$(field COREDUMPD_RESULT "$e")' $(field COREDUMPD_ERROR "$e")"
	[ -n "$id" ] || die "$1 (pid $PID): no COREDUMPD_CRASH_ID"
	[[ $sig =~ ^[0-9a-f]{16}$ ]] || die "$1 (pid $PID): signature '$sig'"
	[ -n "$(field COREDUMPD_JOURNAL_CORE_SIZE "$e")" ] ||
		die "$1 (pid $PID): no compact core in the record: $(field COREDUMPD_JOURNAL_CORE_ERROR "$e")"
	say "crash $site: $* pid $PID, crash $id, signature $sig, probe $(field COREDUMPD_PROBE "$e")"
	grep '^COREDUMPD_FRAME=' "$e" | head -n 4
	say "# report: fleet-crash $(cat /etc/machine-id) $site $id $sig $PID"
}

# fleet_upload — one bounded run of systemd-journal-upload: the whole journal from the saved cursor
# on, then it exits (--follow=no); status 0 iff the collector took it. A marker entry goes last:
# journal-upload 252 sends the entry at its saved cursor once more when it starts again (measured
# on the host), so a crash record is never that entry.
fleet_upload() {
	local tag=cdt-fleet-upload-$RANDOM$RANDOM end=$((SECONDS + 20))
	mkdir -p "${FLEET_STATE%/*}"
	echo "fleet upload marker" | systemd-cat -t "$tag"
	until journalctl -q --no-pager -b -t "$tag" | grep -q marker; do
		[ $SECONDS -lt $end ] || die "the marker entry $tag did not reach the journal"
		sleep 0.2
	done
	timeout -k 5 120 /lib/systemd/systemd-journal-upload --url="$FLEET_URL" --save-state="$FLEET_STATE" \
		--follow=no > "$WORK/upload.out" 2>&1
}
fleet_cursor() { sed -n 's/^LAST_CURSOR=//p' "$FLEET_STATE" 2>/dev/null; }
