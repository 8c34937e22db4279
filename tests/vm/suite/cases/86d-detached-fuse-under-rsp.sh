# Attack (issue 38, gap 3's last line): a regular user in a user and mount namespace of their own
# (unshare -Urm) runs a FUSE server that never answers a READ (src/fusestall.c), maps its file,
# lazily unmounts it (umount -l) and dies with %rsp and %rbp inside that mapping (src/hostile.c
# detached). The file's device is then in no line of the task's mountinfo: a reader that calls a
# file local unless its mount says "remote" faults that page in and waits, in the kernel and
# unkillable once the READ is taken, for the server. The rule (selfdump/proc-maps.c): a mapping is
# local only when its device is in the task's mountinfo on a file system known to be local. Twice:
# (1) the default action (the parser unwinds the stack), (2) Action=userspace with
# UserspaceDump=all-writable (the self-dump reads writable mappings). Must hold for each: exactly
# one record, stored, within UnwindTimeout= + 1 s + a margin; the FUSE server never saw a READ;
# nothing of the daemon's in D state. Then the daemon is the same process, root's next crash is
# stored (attack_survived) and `systemctl stop coredumpd` completes within 10 s.
# The kernel's part: 6.1 and 7.2 both leave a detached mount out of mountinfo while its file stays
# mapped (the case checks that the device is in no line before it counts on it).
. /usr/lib/coredumpd-tests/lib.sh
need_daemon
[ "$(uname -m)" = x86_64 ] || skip "hostile's stack is x86_64 only"
grep -qw fuse /proc/filesystems || modprobe fuse 2>/dev/null
grep -qw fuse /proc/filesystems || die "no FUSE in kernel $(uname -r) (CONFIG_FUSE_FS)"
bound_ms=20000

add_user cdtdetach
as_user cdtdetach unshare -Urm true 2>/dev/null || die "unprivileged user namespaces are off"
chmod 0755 "$WORK"


report=
attack() {	# KIND: one crash, and what must hold after it
	local kind=$1 out=$WORK/$1.out err=$WORK/$1.err server ms e n s
	as_user cdtdetach "$BIN/spawn" -t 60 -- "$BIN/hostile" detached "$BIN/fusestall" > "$out" 2> "$err" ||
		die "hostile detached ($kind) did not end within 60 s: $(cut -c1-200 "$out" "$err")"
	server=$(sed -n 's/^server //p' "$out")
	[ -n "$server" ] || die "no FUSE server ($kind): $(cut -c1-200 "$out" "$err")"
	# The user's server, in the user's namespaces: its end aborts the connection (any READ waiting).
	on_exit "kill -KILL $server 2>/dev/null"
	read_spawn_line "$(grep -m1 '^pid=' "$out")"
	ms=$(sed -n 's/^pid=.* ms=\([0-9]*\).*/\1/p' "$out")
	grep -m1 '^stack at' "$out" | cut -c1-200
	say "$kind: pid $PID, signal $SIGNAL, released after $ms ms"
	[ "$SIGNAL" = 4 ] || die "hostile detached ($kind) died of signal '$SIGNAL': $(cut -c1-200 "$err")"
	[ "$ms" -le $bound_ms ] || die "$kind: the crash was held $ms ms, more than $bound_ms"
	e=$(wait_entry "$PID" 30) || die "$kind: no record of the crash ($PID)"
	sleep 1
	n=$(_jq -o json $SYSTEM_RECORD COREDUMP_PID="$PID" 2>/dev/null | wc -l)
	[ "$n" = 1 ] || die "$kind: $n records"
	say "  record: ACTION=$(field COREDUMPD_ACTION "$e") RESULT=$(field COREDUMPD_RESULT "$e") ERROR=$(field COREDUMPD_ERROR "$e") UNWIND_USEC=$(field COREDUMPD_UNWIND_USEC "$e")"
	[ "$(field COREDUMPD_RESULT "$e")" = stored ] || die "$kind: the crash was not stored"
	s=$(daemon_stuck)
	[ -z "$s" ] || die "$kind: threads or processes of the daemon wait in D state:$s"
	! grep -q "read stalled" "$err" || die "$kind: something of the daemon's read the detached FUSE file (it waits forever)"
	report+=" $kind: ${ms} ms;"
}

# The kernel's side: a detached mount is in no line of its task's mountinfo while its file stays
# in use. Shown once by a shell in such namespaces that holds the file open, reads its own mountinfo
# and ends.
as_user cdtdetach unshare -Urm sh -c '
	d=$(mktemp -d) && { '"$BIN"'/fusestall "$d" >/dev/null 2>&1 & } && server=$! &&
	for i in $(seq 100); do [ -e "$d/stall" ] && break; sleep 0.05; done &&
	exec 3< "$d/stall" && dev=$(stat -c %Hd:%Ld "$d/stall") && umount -l "$d" &&
	echo "dev=$dev" && echo "lines=$(awk -v d="$dev" "\$3 == d" /proc/self/mountinfo | wc -l)"
	kill -KILL $server' > "$WORK/kernel.out" 2>&1
grep -q '^lines=' "$WORK/kernel.out" || die "the detached mount could not be shown: $(cat "$WORK/kernel.out")"
say "kernel: a detached FUSE file's device, $(sed -n 's/^dev=//p' "$WORK/kernel.out"), in $(sed -n 's/^lines=//p' "$WORK/kernel.out") line(s) of its task's mountinfo"
[ "$(sed -n 's/^lines=//p' "$WORK/kernel.out")" = 0 ] || die "the kernel lists the detached mount: the case shows nothing"

attack_begin
journal_mark
attack parser
add_policy test-detached-userspace <<'P'
[Rule]
Name=detached-userspace
MatchComm=hostile
Action=userspace
UserspaceDump=all-writable
P
reload_policy
attack selfdump
e=$(wait_entry "$PID" 5)
[ "$(field COREDUMPD_ACTION "$e")" = userspace ] || die "the second crash was not self-dumped: $(field COREDUMPD_ACTION "$e")"
attack_survived

t0=$(date +%s%N)
timeout 30 systemctl stop coredumpd.service || die "systemctl stop coredumpd failed"
ms=$((($(date +%s%N) - t0) / 1000000))
[ "$ms" -le 10000 ] || die "systemctl stop coredumpd took $ms ms (more than 10 s)"
say "# report: detached-fuse-under-rsp:${report%;}; no READ reached the server, nothing in D state, stop in $ms ms"
