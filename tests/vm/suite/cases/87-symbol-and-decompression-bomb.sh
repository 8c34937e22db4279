# Attack: an unprivileged user crashes in libraries made to exhaust whoever names the frames:
#   symbol  a copy of libhostile whose .dynsym names the crashing function (hostile_target) with a
#           string of 16 MiB (src/elfbomb.c, made here): the unwinder's name for frame 0
#   xzbomb  libhostile-xzbomb.so: a .gnu_debugdata section (the MiniDebugInfo symbols an unwinder
#           decompresses when a module has no .symtab) that is xz of 1 GiB of zeros, ~150 KiB
#   jump    that xz file itself mapped executable, the crash's pc inside it: a module that is no ELF
#           file but a compressed one
# Must hold: the names in the record are bounded — the 16 MiB name arrives cut to the daemon's cap
# (PARSER_SYMBOL_MAX, 512 bytes, parser/wire.h) and the whole journal entry stays under 64 KiB; the
# parser ends or is killed within its budget (UnwindTimeout= 3 s + 1 s; its RLIMIT_AS is 1 GiB)
# while the daemon's own peak memory (VmHWM) grows by at most 64 MiB; each crash has exactly one
# record, stored; the daemon is the same process and root's next crash is stored (attack_survived).
# daemon-only
. /usr/lib/coredumpd-tests/lib.sh
need_daemon
# case-timeout: 300
symbol_max=512
bound_ms=20000

user=cdtbomb
userdel -r "$user" >/dev/null 2>&1 || true
useradd -m "$user" || die "useradd failed"
on_exit "userdel -r $user >/dev/null 2>&1"
uid=$(id -u "$user")
as_user() { setpriv --reuid="$uid" --regid="$(id -g "$user")" --init-groups env HOME=/home/$user "$@"; }
home=/home/$user
as_user mkdir -p "$home/lib" || die "cannot make the user's lib directory"
as_user "$BIN/elfbomb" "$T/lib/libhostile.so" "$home/lib/libbomb.so" hostile_target $((16 << 20)) ||
	die "elfbomb failed"
as_user cp "$T/lib/libhostile-xzbomb.so" "$T/lib/bomb.xz" "$home/lib/" || die "cannot copy the bombs"

hwm() { awk '/^VmHWM:/ {print $2}' "/proc/$1/status"; }	# kB

attack_begin
hwm0=$(hwm "$ATTACK_MAIN")
journal_mark
report=
for kind in symbol xzbomb jump; do
	case $kind in
	symbol) args=(dlcrash "$home/lib/libbomb.so") ;;
	xzbomb) args=(dlcrash "$home/lib/libhostile-xzbomb.so") ;;
	jump) args=(jump "$home/lib/bomb.xz") ;;
	esac
	as_user "$BIN/spawn" -t 60 -- "$BIN/hostile" "${args[@]}" > "$WORK/spawn.out" ||
		{ cat "$WORK/spawn.out"; die "hostile $kind did not end within 60 s"; }
	read_spawn_line "$(grep -m1 '^pid=' "$WORK/spawn.out")"
	ms=$(sed -n 's/^pid=.* ms=\([0-9]*\).*/\1/p' "$WORK/spawn.out")
	say "$kind: pid $PID, signal $SIGNAL, released after $ms ms"
	case $SIGNAL in 4|7|11) ;; *) die "$kind died of signal '$SIGNAL'" ;; esac
	[ "$ms" -le $bound_ms ] || die "$kind was held $ms ms, more than $bound_ms"
	e=$(wait_entry "$PID" 60) || die "no record of $kind ($PID)"
	sleep 1
	n=$(_jq -o json $SYSTEM_RECORD COREDUMP_PID="$PID" 2>/dev/null | wc -l)
	[ "$n" = 1 ] || die "$kind has $n records"
	e=$(wait_entry "$PID" 5)
	size=$(_jq -o export $SYSTEM_RECORD COREDUMP_PID="$PID" 2>/dev/null | wc -c)
	usec=$(field COREDUMPD_UNWIND_USEC "$e")
	say "  record: RESULT=$(field COREDUMPD_RESULT "$e") ERROR=$(field COREDUMPD_ERROR "$e") UNWIND_USEC=${usec:-none}, $size bytes exported"
	sed -n 's/^COREDUMPD_FRAME=/  frame /p' "$e" | cut -c1-160
	[ "$(field COREDUMPD_RESULT "$e")" = stored ] || die "$kind was not stored"
	[ "$size" -lt 65536 ] || die "the record of $kind takes $size bytes"
	[ -z "$usec" ] || [ "$usec" -le 4000000 ] || die "$kind: the parser unwound for $usec us, past its budget"
	max=$(sed -n 's/^COREDUMPD_FRAME=//p' "$e" | awk '{ if (length($0) > m) m = length($0) } END { print m + 0 }')
	[ "$max" -le $((symbol_max + 1024 + 200)) ] || die "$kind: a frame of $max bytes"
	if [ $kind = symbol ]; then
		f=$(grep -m1 '^COREDUMPD_FRAME=.*hostile_bomb_' "$e") ||
			die "no frame is named by the 16 MiB name (the unwinder never read it): nothing was attacked"
		sym=$(echo "$f" | awk '{print $3}')
		sym=${sym%+0x*}
		say "  frame 0's name: ${#sym} bytes, ${sym:0:24}..."
		[ "${#sym}" = $symbol_max ] || die "the 16 MiB name arrived as ${#sym} bytes, not cut to $symbol_max"
	fi
	report+=" $kind: ${ms} ms, unwound in ${usec:-no} us;"
done
journalctl -q --no-pager -b --since=@$CASE_START -u coredumpd.service 2>/dev/null | grep -iE "backtrace|parser" | sed 's/^/  daemon: /' | cut -c1-200
for _ in $(seq 20); do pgrep -x coredumpd-parse >/dev/null || break; sleep 0.5; done
! pgrep -x coredumpd-parse >/dev/null || die "a parser is left: $(pgrep -a -x coredumpd-parse)"
hwm1=$(hwm "$ATTACK_MAIN")
say "daemon VmHWM: $hwm0 kB before, $hwm1 kB after"
[ $((hwm1 - hwm0)) -le $((64 * 1024)) ] || die "the daemon's peak memory grew by $((hwm1 - hwm0)) kB"
attack_survived
say "# report: symbol-and-decompression-bomb:${report%;}; daemon VmHWM +$((hwm1 - hwm0)) kB"
