# The store turns read-only: the crash is still recorded, as not stored and with the reason, the
# crasher is released at once; once the store is writable again the next crash is stored.
# daemon-only
. /usr/lib/coredumpd-tests/lib.sh
need_daemon
mkdir -p "$STORE"
mount --bind "$STORE" "$STORE" || die "cannot bind-mount $STORE"
mount -o remount,bind,ro "$STORE" || die "cannot make $STORE read-only"
on_exit "systemctl stop 'coredumpd.service' 'coredumpd@*.service' 2>/dev/null; umount '$STORE' 2>/dev/null"
# A new daemon opens the store as it is now.
systemctl stop 'coredumpd.service' 'coredumpd@*.service' 2>/dev/null
journal_mark
crash crasher
cat "$WORK/spawn.out"
e=$(wait_entry "$PID" 60) || die "crash with a read-only store not recorded"
[ "$(field COREDUMPD_RESULT "$e")" = failed ] || die "result '$(field COREDUMPD_RESULT "$e")' with a read-only store"
err=$(field COREDUMPD_ERROR "$e")
say "recorded: $err"
grep -qi 'read-only' <<<"$err" || die "the reason does not say read-only: $err"
# The daemon holds the store open: stop it to unmount.
systemctl stop 'coredumpd.service' 'coredumpd@*.service' 2>/dev/null
umount "$STORE" || die "cannot unmount the read-only bind mount"
crash crasher
e=$(wait_entry "$PID" 60) || die "crash after the store became writable not recorded"
[ "$(field COREDUMPD_RESULT "$e")" = stored ] || die "result '$(field COREDUMPD_RESULT "$e")' once writable again"
