# A store slower than the deadline: the store is ext4 on a loop device whose backing file lives on a
# FUSE server that writes 256 KiB/s (and little dirty page cache, so the store's speed is what the
# daemon sees).  With Deadline=4s, MaxSize=8M, MinRate=1M a dump may take Deadline= + MaxSize= /
# MinRate= = 12 s in all, but the 32 MiB crasher's core would need over 30 s: the deadline ends the
# dump, the crasher is released within that cap (plus a margin), the crash gets exactly one record
# with its reason, no partial file stays in the store, and once the store is fast again the next
# crash is stored.
# case-timeout: 240
# daemon-only
. /usr/lib/coredumpd-tests/lib.sh
need_daemon
cap=12 margin=10

modprobe loop 2>/dev/null
[ -e /dev/loop-control ] || die "no loop devices in kernel $(uname -r)"
grep -qw fuse /proc/filesystems || die "no FUSE in kernel $(uname -r)"

fmnt=/run/slowdisk
mkdir -p "$fmnt"
"$BIN/fusestall" --disk 256 --rate 256 "$fmnt" > "$WORK/fuse.out" 2> "$WORK/fuse.err" &
fpid=$!
on_exit "kill $fpid; umount -l $fmnt"
for _ in $(seq 50); do grep -q ready "$WORK/fuse.out" && break; sleep 0.1; done
grep -q ready "$WORK/fuse.out" || die "fusestall did not mount: $(cat "$WORK/fuse.err")"
loop=$(losetup -f --show "$fmnt/disk") || die "losetup failed"
on_exit "losetup -d $loop"
mkfs.ext4 -q -F -E nodiscard,lazy_itable_init=0,lazy_journal_init=0 "$loop" || die "mkfs.ext4 failed"

# The daemon sees the slow store once it starts again (its own mount namespace).
systemctl stop coredumpd.service
mount -o acl,user_xattr "$loop" "$STORE" || die "cannot mount the slow store"
on_exit "systemctl stop coredumpd.service; umount -l $STORE"
chmod 0751 "$STORE"
cp "$CONF" "$WORK/conf.orig"
on_exit "cp '$WORK/conf.orig' '$CONF'"
printf '\n# case store-slower-than-deadline\nDeadline=4s\nMaxSize=8M\nMinRate=1M\nCompress=none\n' >> "$CONF"
old_dirty=$(sysctl -n vm.dirty_bytes) old_bg=$(sysctl -n vm.dirty_background_bytes)
old_ratio=$(sysctl -n vm.dirty_ratio) old_bg_ratio=$(sysctl -n vm.dirty_background_ratio)
on_exit "sysctl -q vm.dirty_ratio=$old_ratio vm.dirty_background_ratio=$old_bg_ratio; [ $old_dirty = 0 ] || sysctl -q vm.dirty_bytes=$old_dirty; [ $old_bg = 0 ] || sysctl -q vm.dirty_background_bytes=$old_bg"
sysctl -q vm.dirty_bytes=2097152 vm.dirty_background_bytes=524288
daemon_warm
kill -USR1 "$fpid"	# from now on 256 KiB/s

journal_mark
start=$SECONDS
crash uscrash -m 32 -n slow-store
held=$((SECONDS - start))
cat "$WORK/spawn.out"
say "crasher $PID (32 MiB) ended after ${held} s; the cap is ${cap} s"
[ "$held" -le $((cap + margin)) ] || die "crasher held ${held} s, more than the cap + ${margin} s"

e=$(wait_entry "$PID" 120) || die "the crash was not recorded"
result=$(field COREDUMPD_RESULT "$e")
say "record: RESULT=$result ERROR=$(field COREDUMPD_ERROR "$e") TRUNCATED=$(field COREDUMP_TRUNCATED "$e")"
n=$(_jq -o export $SYSTEM_RECORD COREDUMP_PID="$PID" | grep -c '^MESSAGE_ID=')
[ "$n" = 1 ] || die "$n records for one crash"
if [ "$result" = stored ]; then
	f=$(field COREDUMP_FILENAME "$e")
	[ -f "$f" ] || die "recorded as stored, but $f is not there"
else
	field COREDUMPD_ERROR "$e" | grep -qi deadline || die "not stored, and the reason is not the deadline"
	[ -z "$(store_file_for "$PID")" ] || die "a partial file is left: $(store_file_for "$PID")"
fi

kill -USR2 "$fpid"	# fast again
crash crasher
e=$(wait_entry "$PID" 120) || die "the next crash was not recorded"
[ "$(field COREDUMPD_RESULT "$e")" = stored ] || die "the next crash: $(field COREDUMPD_RESULT "$e") $(field COREDUMPD_ERROR "$e")"
