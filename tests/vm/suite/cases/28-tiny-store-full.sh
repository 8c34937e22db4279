# The store fills up (a 4 MiB tmpfs over /var/lib/coredumpd): no partial file
# is left, and the crash is still recorded, as not stored.
. /usr/lib/coredumpd-tests/lib.sh
need_daemon
daemon_signal TERM
systemctl stop 'coredumpd.service' 'coredumpd@*.service' 2>/dev/null
mkdir -p "$STORE"
mount -t tmpfs -o size=4m,mode=0755 coredumpd-tiny "$STORE" || die "cannot mount a tmpfs on $STORE"
on_exit "systemctl stop 'coredumpd.service' 'coredumpd@*.service' 2>/dev/null; umount '$STORE'"
before=$(store_files)
journal_mark
crash crasher-store -m 32
cat "$WORK/spawn.out"
e=$(wait_entry "$PID" 60) || die "crash with a full store not recorded"
cat "$e"
f=$(field COREDUMP_FILENAME "$e")
[ -z "$f" ] || [ ! -e "$f" ] || die "entry names a stored file $f although the store is full"
[ "$(store_files)" = "$before" ] || die "store not left clean: $(store_files) ($(df -h "$STORE" | tail -n1))"
