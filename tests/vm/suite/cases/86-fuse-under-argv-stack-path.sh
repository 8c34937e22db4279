# Attack: an unprivileged user puts a file whose reads never answer (a FUSE file system, here
# src/fusestall.c mounted by root with allow_other, as a user's own sshfs or fuse mount would be)
# under what the daemon and its parser read of a crash (src/hostile.c):
#   argv   a page inside the task's arguments maps that file: /proc/PID/cmdline, which the daemon
#          reads for the record, reads across it (the kernel reads arguments only from anonymous
#          memory: the read stops there)
#   stack  %rsp and %rbp point into that file's mapping: the unwinder's first reads of the stack
#   frame  a return address points into that file mapped executable: the unwinder looks its module
#          up, and would open and read that file by its path
# Whoever touched one of those pages would wait for the server, in the kernel, unkillable once the
# READ is taken. Must hold for each: the crash gets exactly one record, stored, in less than
# UnwindTimeout= (3 s) + 1 s + a margin of 16 s; the FUSE server never saw a READ; no process of
# the daemon (the daemon, a parser) is left in D state; and at the end the daemon is the same
# process and root's next crash is stored (attack_survived).
. /usr/lib/coredumpd-tests/lib.sh
need_daemon
[ "$(uname -m)" = x86_64 ] || skip "hostile stack/frame are x86_64 only"
grep -qw fuse /proc/filesystems || modprobe fuse 2>/dev/null
grep -qw fuse /proc/filesystems || die "no FUSE in kernel $(uname -r) (CONFIG_FUSE_FS)"
bound_ms=20000

user=cdtfuse
userdel -r "$user" >/dev/null 2>&1 || true
useradd -m "$user" || die "useradd failed"
on_exit "userdel -r $user >/dev/null 2>&1"
uid=$(id -u "$user")
as_user() { setpriv --reuid="$uid" --regid="$(id -g "$user")" --init-groups env HOME=/home/$user "$@"; }

mnt=/run/cdt-fuse86
mkdir -p "$mnt"
"$BIN/fusestall" "$mnt" > "$WORK/fuse.out" 2> "$WORK/fuse.err" &
fpid=$!
on_exit "kill $fpid 2>/dev/null; for a in /sys/fs/fuse/connections/*/abort; do echo 1 > \$a; done; umount -l $mnt 2>/dev/null"
for _ in $(seq 50); do grep -q ready "$WORK/fuse.out" && break; sleep 0.1; done
grep -q ready "$WORK/fuse.out" || die "fusestall did not mount: $(cat "$WORK/fuse.err")"
as_user test -r "$mnt/stall" || die "$user cannot open the FUSE file"


attack_begin
pad=$(head -c 12288 /dev/zero | tr '\0' p)
journal_mark
report=
for kind in argv stack frame; do
	args=("$mnt/stall")
	[ $kind = argv ] && args+=("$pad")
	as_user "$BIN/spawn" -t 60 -- "$BIN/hostile" "$kind" "${args[@]}" > "$WORK/spawn.out" ||
		{ cut -c1-200 "$WORK/spawn.out"; die "hostile $kind did not end within 60 s"; }
	read_spawn_line "$(grep -m1 '^pid=' "$WORK/spawn.out")"
	grep -v '^pid=' "$WORK/spawn.out" | grep -v '^pid [0-9]' | cut -c1-200
	ms=$(sed -n 's/^pid=.* ms=\([0-9]*\).*/\1/p' "$WORK/spawn.out")
	say "hostile $kind: pid $PID, signal $SIGNAL, released after $ms ms"
	case $SIGNAL in 4|7|11) ;; *) die "hostile $kind died of signal '$SIGNAL'" ;; esac
	[ "$ms" -le $bound_ms ] || die "hostile $kind was held $ms ms, more than $bound_ms"
	e=$(wait_entry "$PID" 30) || die "no record of hostile $kind ($PID)"
	sleep 1
	n=$(_jq -o json $SYSTEM_RECORD COREDUMP_PID="$PID" 2>/dev/null | wc -l)
	[ "$n" = 1 ] || die "hostile $kind has $n records"
	e=$(wait_entry "$PID" 5)
	say "  record: RESULT=$(field COREDUMPD_RESULT "$e") ERROR=$(field COREDUMPD_ERROR "$e") UNWIND_USEC=$(field COREDUMPD_UNWIND_USEC "$e") CMDLINE=$(field COREDUMP_CMDLINE "$e" | cut -c1-120)"
	sed -n 's/^COREDUMPD_FRAME=/  frame /p' "$e" | cut -c1-200
	[ "$(field COREDUMPD_RESULT "$e")" = stored ] || die "hostile $kind was not stored"
	s=$(daemon_stuck)
	[ -z "$s" ] || die "after hostile $kind, processes of the daemon wait in D state:$s"
	! grep -q "read stalled" "$WORK/fuse.err" || die "after hostile $kind, something read the FUSE file (it waits forever)"
	report+=" $kind: ${ms} ms;"
done
journalctl -q --no-pager -b --since=@$CASE_START -u coredumpd.service 2>/dev/null | grep -iE "backtrace|cmdline|parser" | sed 's/^/  daemon: /' | cut -c1-200
attack_survived
say "# report: fuse-under-argv-stack-path:${report%;}; no READ reached the server, nothing in D state"
