# Attack (issue 38 gap 1): a regular user's container maps a file of the user's own FUSE server
# (run in the user's namespaces), which never answers a READ, reached through an overlay of two
# lower layers (overlayfs reaches its layers with the mounter's credentials), the FUSE mount lazily
# unmounted, in a root of its own (pivot_root into a tmpfs, the old root lazily unmounted:
# src/keepstall.c). The daemon keeps a container's files for the debugger; whoever
# opens that file and reads its ELF header waits on the server. Must hold: the crash is stored and
# recorded within Deadline= + a margin, without that file and with COREDUMPD_SAVED_FILE_ERROR=; the
# daemon's own processes are not in D state (its cell, coredumpd-parser, may be: it is left to the
# reaper); systemctl restart coredumpd returns; root's next crash is stored (attack_survived).
. /usr/lib/coredumpd-tests/lib.sh
need_daemon
grep -qw fuse /proc/filesystems || modprobe fuse 2>/dev/null
grep -qw fuse /proc/filesystems || die "no FUSE in kernel $(uname -r) (CONFIG_FUSE_FS)"
grep -qw overlay /proc/filesystems || modprobe overlay 2>/dev/null
grep -qw overlay /proc/filesystems || skip "no overlayfs"
bound_ms=30000

user=cdtkeep
userdel -r "$user" >/dev/null 2>&1 || true
useradd -m "$user" || die "useradd failed"
on_exit "pkill -KILL -u $user 2>/dev/null; sleep 0.3; userdel -r $user >/dev/null 2>&1"
uid=$(id -u "$user")
as_user() { setpriv --reuid="$uid" --regid="$(id -g "$user")" --init-groups env HOME=/home/$user "$@"; }
as_user unshare -Urm true 2>/dev/null || skip "unprivileged user namespaces are off"

attack_begin
main_before=$ATTACK_MAIN
journal_mark
start=$(date +%s%3N)
as_user "$BIN/keepstall" "$BIN/fusestall" > "$WORK/keep.out" 2> "$WORK/keep.err"
server=$(sed -n 's/^server=//p' "$WORK/keep.out")
# The user's FUSE server, in the user's namespaces: ended with the case (its end aborts its mount).
[ -z "$server" ] || on_exit "kill -KILL $server 2>/dev/null"
pid=$(sed -n 's/^pid=//p' "$WORK/keep.out")
[ -n "$pid" ] || die "keepstall did not crash in its container: $(cat "$WORK/keep.err")"
ms=$(( $(date +%s%3N) - start ))
say "keepstall: pid $pid, released after $ms ms"
[ "$ms" -le $bound_ms ] || die "the crash was held $ms ms, more than $bound_ms"
e=$(wait_entry "$pid" 40) || die "no record of the container's crash ($pid)"
say "  record: RESULT=$(field COREDUMPD_RESULT "$e") SAVED_FILE_ERROR=$(field COREDUMPD_SAVED_FILE_ERROR "$e")"
grep -a '^COREDUMPD_SAVED_FILE=' "$e" | cut -c1-200
[ "$(field COREDUMPD_RESULT "$e")" = stored ] || die "the container's crash was not stored"
! grep -a -q '^COREDUMPD_SAVED_FILE=.* core\..*\.file-[0-9]* .*stall$' "$e" || die "a copy of the stalled file was kept"
main=$(systemctl show -P MainPID coredumpd.service)
[ "$(awk '/^State:/ {print $2}' "/proc/$main/status")" != D ] || die "the daemon waits in D state"
for t in /proc/"$main"/task/*; do
	[ "$(awk '/^State:/ {print $2}' "$t/status")" != D ] || die "a thread of the daemon waits in D state: $(cat "$t/wchan")"
done
grep -q "read stalled" "$WORK/keep.err" && say "  the FUSE server took a READ (the cell's, left to the reaper)"
[ "$main" = "$main_before" ] || die "the daemon was restarted ($main_before -> $main)"
attack_survived
timeout 30 systemctl restart coredumpd.service || die "systemctl restart coredumpd did not return within 30 s"
say "# report: keep-files-fuse-overlay: held ${ms} ms, stored without the file, the daemon restarts"
