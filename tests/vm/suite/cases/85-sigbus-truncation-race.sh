# Attack: an unprivileged user crashes a program that dlopen()ed a library from a directory the
# user owns (src/hostile.c dlcrash, src/hostile/libhostile.c), and truncates the library to 0 the
# moment anyone opens it after the crash (inotify IN_OPEN: hostile truncwatch) — that is the parser
# (coredumpd-parser, as the user) opening the module to unwind through it. A reader that mapped the
# file would take SIGBUS on the pages now past its end; in the daemon that would end the daemon.
# Must hold: the parser reads modules with read() (ELF_C_READ), so it does not die of SIGBUS; the
# crash ends as exactly one record, stored; the daemon is the same process and root's next crash is
# stored (attack_survived).
. /usr/lib/coredumpd-tests/lib.sh
need_daemon
user=cdttrunc
userdel -r "$user" >/dev/null 2>&1 || true
useradd -m "$user" || die "useradd failed"
on_exit "userdel -r $user >/dev/null 2>&1"
uid=$(id -u "$user")
as_user() { setpriv --reuid="$uid" --regid="$(id -g "$user")" --init-groups env HOME=/home/$user "$@"; }
home=/home/$user
lib=$home/lib/libhostile.so

attack_begin
as_user mkdir -p "$home/lib" || die "cannot make the user's lib directory"
as_user cp "$T/lib/libhostile.so" "$lib" || die "cannot copy the library"
rm -f "$home/go" "$home/pids"

journal_mark
as_user "$BIN/spawn" -t 120 -p "$home/pids" -- "$BIN/hostile" dlcrash "$lib" "$home/go" > "$WORK/spawn.out" &
spawn=$!
for _ in $(seq 100); do [ -s "$home/pids" ] && break; sleep 0.1; done
PID=$(head -n1 "$home/pids" 2>/dev/null)
[ -n "$PID" ] || die "the crasher did not start"
for _ in $(seq 100); do grep -q "$lib" "/proc/$PID/maps" 2>/dev/null && break; sleep 0.1; done
grep -q "$lib" "/proc/$PID/maps" || die "the crasher did not map $lib: $(cat "$WORK/spawn.out")"

as_user "$BIN/hostile" truncwatch "$lib" > "$WORK/watch.out" 2>&1 &
watch=$!
on_exit "kill $watch 2>/dev/null"
for _ in $(seq 100); do grep -q watching "$WORK/watch.out" && break; sleep 0.1; done
grep -q watching "$WORK/watch.out" || die "the watcher did not start: $(cat "$WORK/watch.out")"
as_user touch "$home/go"

wait $spawn || { cat "$WORK/spawn.out"; die "the crasher was not released within 120 s"; }
read_spawn_line "$(grep -m1 '^pid=' "$WORK/spawn.out")"
cat "$WORK/spawn.out"
[ "$SIGNAL" = 11 ] || die "the crasher died of signal '$SIGNAL', not SIGSEGV"
e=$(wait_entry "$PID" 60) || die "the crash $PID was not recorded"
for _ in $(seq 10); do grep -q closed "$WORK/watch.out" && break; sleep 0.2; done
say "watcher: $(tr '\n' ' ' < "$WORK/watch.out")"
grep -q truncated "$WORK/watch.out" || die "nobody opened the library after the crash: nothing was attacked"
[ "$(stat -c %s "$lib")" = 0 ] || die "the library was not truncated"
if grep -q closed "$WORK/watch.out"; then
	say "the library was truncated while its opener held it open"
else
	say "the library was truncated after its opener closed it (the race was lost this time)"
fi

sleep 1
n=$(_jq -o json $SYSTEM_RECORD COREDUMP_PID="$PID" 2>/dev/null | wc -l)
[ "$n" = 1 ] || die "the crash has $n records, not 1"
e=$(wait_entry "$PID" 5)
say "record: RESULT=$(field COREDUMPD_RESULT "$e") ERROR=$(field COREDUMPD_ERROR "$e") UNWIND_USEC=$(field COREDUMPD_UNWIND_USEC "$e")"
sed -n 's/^COREDUMPD_FRAME=/  frame /p' "$e"
[ "$(field COREDUMPD_RESULT "$e")" = stored ] || die "the crash was not stored"
log=$(journalctl -q --no-pager -b --since=@$CASE_START -u coredumpd.service 2>/dev/null)
echo "$log" | grep -i "without a backtrace" | sed 's/^/  daemon: /'
! echo "$log" | grep -q "died of signal 7" || die "the parser died of SIGBUS: it mapped the truncated library"
attack_survived
say "# report: sigbus-truncation-race: library truncated at the parser's open ($(grep -c closed "$WORK/watch.out") close after); one stored record, daemon $ATTACK_MAIN served on"
