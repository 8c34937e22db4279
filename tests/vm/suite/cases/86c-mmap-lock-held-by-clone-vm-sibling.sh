# Attack (issue 38, gap 1 without overlay): a crasher's memory whose mmap_lock is held by processes
# that share it and survive the dump (clone(CLONE_VM), not threads: src/hostile.c mmaplock). One
# reads its own /proc/self/mem over a page of a FUSE file whose server never answers (src/fusestall.c,
# mounted by root with allow_other, as a user's own FUSE mount would be): it holds the lock to read
# for as long as the server likes; another munmap()s (queued to write): every later reader of the
# task's maps, mem, pagemap or cmdline waits behind them. The main process then crashes.
# The daemon opens those files but reads them through the tenant's reader (coredumpd-parser
# --reader), killed at its deadline (5 s): within 12 s the daemon says the task's memory did not
# answer and goes on; no thread of the daemon and no parser waits in D state; root's next crash is
# stored meanwhile; `systemctl stop coredumpd` completes within 10 s.
# On the code before the reader, the crash's thread read the maps itself (the site key) and waited
# on the lock in the kernel until its deadline + 2 s (62 s), a thread of the daemon in D state.
. /usr/lib/coredumpd-tests/lib.sh
need_daemon
grep -qw fuse /proc/filesystems || modprobe fuse 2>/dev/null
grep -qw fuse /proc/filesystems || die "no FUSE in kernel $(uname -r) (CONFIG_FUSE_FS)"

add_user cdtlock
mnt=/run/cdt-fuse86c
mkdir -p "$mnt"
"$BIN/fusestall" "$mnt" > "$WORK/fuse.out" 2> "$WORK/fuse.err" &
fpid=$!
on_exit "kill $fpid 2>/dev/null; for a in /sys/fs/fuse/connections/*/abort; do echo 1 > \$a; done; umount -l $mnt 2>/dev/null"
for _ in $(seq 50); do grep -q ready "$WORK/fuse.out" && break; sleep 0.1; done
grep -q ready "$WORK/fuse.out" || die "fusestall did not mount: $(cat "$WORK/fuse.err")"
chmod 0755 "$WORK"


# The crash's site key (a crash loop's repeats are told by it) is what reads its maps and stack first:
# the suite's RateLimitBurst=0 would leave it out.
add_policy test-mmap-lock <<'P'
[Rule]
Name=mmap-lock
MatchComm=hostile
Action=kernel
RateLimitBurst=5
P

attack_begin
journal_mark
go=$WORK/go
as_user cdtlock "$BIN/hostile" mmaplock "$mnt/stall" "$go" > "$WORK/hostile.out" 2>&1 &
hpid=$!
on_exit "kill -KILL $hpid \$(sed -n 's/^\(reader\|writer\) //p' '$WORK/hostile.out') 2>/dev/null"
for _ in $(seq 100); do grep -q "read stalled" "$WORK/fuse.err" && break; sleep 0.1; done
grep -q "read stalled" "$WORK/fuse.err" || die "the sibling's read of its own memory never reached the server: $(cat "$WORK/hostile.out")"
touch "$go"
for _ in $(seq 100); do grep -q armed "$WORK/hostile.out" && break; sleep 0.1; done
grep -q armed "$WORK/hostile.out" || die "hostile mmaplock never armed: $(cat "$WORK/hostile.out")"
pid=$(sed -n 's/^pid //p' "$WORK/hostile.out")
say "crasher $pid, its mmap_lock held by $(sed -n 's/^\(reader\|writer\) //p' "$WORK/hostile.out" | tr '\n' ' ')"
t0=$(date +%s%N)
while ms=$((($(date +%s%N) - t0) / 1000000)); [ "$ms" -lt 12000 ]; do
	journalctl -q --no-pager -b --since=@$CASE_START -u coredumpd.service 2>/dev/null |
		grep -q "memory did not answer its reader" && break
	sleep 0.2
done
journalctl -q --no-pager -b --since=@$CASE_START -u coredumpd.service 2>/dev/null |
	grep -iE "reader|site key|unwind" | sed 's/^/  daemon: /' | cut -c1-200
s=$(daemon_stuck)
[ -z "$s" ] || die "$ms ms after the crash, threads or processes of the daemon wait in D state:$s"
journalctl -q --no-pager -b --since=@$CASE_START -u coredumpd.service 2>/dev/null |
	grep -q "memory did not answer its reader" || die "the daemon did not let go of the task's memory within 12 s"
say "the daemon let go of the task's memory after $ms ms"
let_go=$ms

t0=$(date +%s%N)
attack_survived
ms=$((($(date +%s%N) - t0) / 1000000))
say "root's crash stored in $ms ms while the crasher is held"
root_ms=$ms
[ "$ms" -le 20000 ] || die "root's crash took $ms ms"

t0=$(date +%s%N)
timeout 30 systemctl stop coredumpd.service || die "systemctl stop coredumpd failed"
ms=$((($(date +%s%N) - t0) / 1000000))
[ "$ms" -le 10000 ] || die "systemctl stop coredumpd took $ms ms (more than 10 s)"
say "# report: mmap-lock-held-by-clone-vm-sibling: memory let go after $let_go ms (the reader's deadline), nothing in D state, root's crash stored in $root_ms ms, stop in $ms ms"
