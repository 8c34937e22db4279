# A crash larger than the store (a 4 MiB tmpfs over /var/lib/coredumpd, 32 MiB of memory): room is
# reserved before the kernel writes a byte — the free space less KeepFree= (auto: 15%) — and the core
# is cut there, stored and marked truncated; the file system is never filled (no partial file, no
# ENOSPC for whatever else writes there), and the crash is recorded.
# daemon-only
. /usr/lib/coredumpd-tests/lib.sh
need_daemon
daemon_signal TERM
systemctl stop 'coredumpd.service' 'coredumpd@*.service' 2>/dev/null
mkdir -p "$STORE"
mount -t tmpfs -o size=4m,mode=0755 coredumpd-tiny "$STORE" || die "cannot mount a tmpfs on $STORE"
on_exit "systemctl stop 'coredumpd.service' 'coredumpd@*.service' 2>/dev/null; umount '$STORE'"
size=$((4 << 20))
keep_free=$((size * 15 / 100))
journal_mark
crash crasher-store -m 32
cat "$WORK/spawn.out"
e=$(wait_entry "$PID" 60) || die "the crash was not recorded"
say "record: RESULT=$(field COREDUMPD_RESULT "$e") TRUNCATED=$(field COREDUMP_TRUNCATED "$e") SIZE=$(field COREDUMPD_CORE_SIZE "$e") ERROR=$(field COREDUMPD_ERROR "$e")"
[ "$(field COREDUMPD_RESULT "$e")" = stored ] || die "not stored: $(field COREDUMPD_ERROR "$e")"
[ "$(field COREDUMP_TRUNCATED "$e")" = 1 ] || die "the core is not marked truncated"
f=$(field COREDUMP_FILENAME "$e")
[ -f "$f" ] || die "no stored core"
store_settle
used=$(du -B1 -s "$STORE" | cut -f1)
avail=$(df -B1 --output=avail "$STORE" | tail -n1 | tr -d ' ')
say "store: $used bytes used, $avail free (KeepFree= $keep_free)"
[ "$avail" -gt $((keep_free / 2)) ] || die "the store's file system was filled: $avail bytes free"
# The daemon's own state files (.signatures, .signatures-seen, .metrics: dot-files) are no cores.
[ "$(find "$STORE" -mindepth 1 ! -name ".*" | wc -l)" -le 1 ] || die "more than the core in the store: $(store_files)"
