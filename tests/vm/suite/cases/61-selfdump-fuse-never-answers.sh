# Action=userspace on a crasher that mapped (private, writable, untouched) a file of a FUSE server
# that never answers a READ.  Reading such a page through /proc/PID/mem would wait for that server
# in the kernel, where after the request was taken not even SIGKILL ends the wait.  The daemon
# never asks: files on FUSE/network file systems are neither faulted in by the self-dump (only
# their pages in memory are read) nor opened by the unwinder.  So the crasher is released and
# its core stored well within Deadline=, the server never saw a READ, no process of the daemon
# but its main one is left, and the next crash is stored.
. /usr/lib/coredumpd-tests/lib.sh
need_daemon
deadline=5 margin=10

grep -qw fuse /proc/filesystems || modprobe fuse 2>/dev/null
grep -qw fuse /proc/filesystems || die "no FUSE in kernel $(uname -r) (CONFIG_FUSE_FS)"

mnt=/run/fusestall
mkdir -p "$mnt"
"$BIN/fusestall" "$mnt" > "$WORK/fuse.out" 2> "$WORK/fuse.err" &
fpid=$!
# At exit: end the server and the mount (aborting the connection ends every request still waiting).
on_exit "kill $fpid; for a in /sys/fs/fuse/connections/*/abort; do echo 1 > \$a; done; umount -l $mnt"
for _ in $(seq 50); do grep -q ready "$WORK/fuse.out" && break; sleep 0.1; done
grep -q ready "$WORK/fuse.out" || die "fusestall did not mount: $(cat "$WORK/fuse.err")"
[ "$(stat -c %s "$mnt/stall")" = $((16 << 20)) ] || die "the FUSE file is not there"

# Deadline=5s for this case: the next crash starts the daemon with it.
cp "$CONF" "$WORK/conf.orig"
on_exit "cp '$WORK/conf.orig' '$CONF'; systemctl stop coredumpd.service"
printf '\n# case selfdump-fuse-never-answers\nDeadline=%ss\n' "$deadline" >> "$CONF"
systemctl stop coredumpd.service
add_policy test-fuse-stall <<'P'
[Rule]
Name=fuse-stall
MatchComm=fuse-stall
Action=userspace
UserspaceDump=all-writable
P
daemon_warm

journal_mark
start=$SECONDS
crash uscrash -f "$mnt/stall" -n fuse-stall
held=$((SECONDS - start))
cat "$WORK/spawn.out"
say "crasher $PID ended after ${held} s (Deadline=${deadline}s)"
[ "$held" -le $((deadline + margin)) ] || die "crasher held ${held} s, more than Deadline= + ${margin} s"
e=$(wait_entry "$PID" 30) || die "the crash was not recorded"
say "record: RESULT=$(field COREDUMPD_RESULT "$e") ERROR=$(field COREDUMPD_ERROR "$e") FILE=$(field COREDUMP_FILENAME "$e")"
[ "$(field COREDUMPD_RESULT "$e")" = stored ] || die "the crash was not stored"
! grep -q "read stalled" "$WORK/fuse.err" || die "the daemon asked the FUSE server for data (it would wait forever)"
say "the FUSE server saw no READ"

# No writer left behind: the service's cgroup holds its main process only.
main=$(systemctl show -P MainPID coredumpd.service)
cg=/sys/fs/cgroup$(awk -F: '$1 == "0" {print $3}' "/proc/$main/cgroup")
# The tenant's reader (coredumpd-read: the site key's maps and stack words) may idle on between
# crashes, waiting in poll() for the next request: that one is not left behind, a stuck one is.
left=
while [ $((SECONDS - start)) -le $((deadline + margin)) ]; do
	# (a stuck child is moved into a coredumpd-stuck-PID.scope of its own: still the daemon's)
	left=$(for p in $(cat "$cg/cgroup.procs" /sys/fs/cgroup/system.slice/coredumpd-stuck-*.scope/cgroup.procs 2>/dev/null | grep -vx "$main"); do
		# (its wait in poll(): do_sys_poll on 6.1, poll_schedule_timeout on 7.2)
		[ "$(cat /proc/$p/comm 2>/dev/null)" = coredumpd-read ] && case $(cat /proc/$p/wchan 2>/dev/null) in *poll*) true ;; *) false ;; esac && continue
		echo "$p"
	done)
	[ -z "$left" ] && break
	sleep 0.5
done
if [ -n "$left" ]; then
	for p in $left; do say "left: $p $(cat /proc/$p/comm 2>/dev/null) state $(awk '/^State/ {print $2}' /proc/$p/status 2>/dev/null) wchan $(cat /proc/$p/wchan 2>/dev/null)"; done
	die "a process of the daemon outlived Deadline= + ${margin} s"
fi
say "after $((SECONDS - start)) s the daemon's cgroup holds its main process only"

crash crasher
e=$(wait_entry "$PID" 60) || die "the next crash was not recorded"
[ "$(field COREDUMPD_RESULT "$e")" = stored ] || die "the next crash: $(field COREDUMPD_RESULT "$e")"
