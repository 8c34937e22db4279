# coredumpd.service runs sandboxed: systemd-analyze security rates it at most
# 3.0, and the sandbox is in force in the running daemon (the other cases show
# it still stores, rejects and records under it).
# daemon-only
. /usr/lib/coredumpd-tests/lib.sh
need_daemon
systemd-analyze security coredumpd.service > "$WORK/security" 2>&1 || true
grep '✗' "$WORK/security" | cut -c1-140
line=$(tail -n1 "$WORK/security")
say "$line"
score=$(sed -n 's/.*exposure level for coredumpd.service: \([0-9.]*\).*/\1/p' <<< "$line")
[ -n "$score" ] || die "no exposure score in: $line"
awk -v s="$score" 'BEGIN { exit !(s <= 3.0) }' || die "exposure $score is above 3.0"

# A crash starts the daemon; its bounding set and file system view are the unit's.
journal_mark
crash crasher
wait_entry "$PID" 60 >/dev/null || die "no journal entry for pid $PID"
pid=$(systemctl show -p MainPID --value coredumpd.service)
[ -n "$pid" ] && [ "$pid" != 0 ] || skip "the daemon exited before it could be inspected"
capbnd=$(sed -n 's/^CapBnd:\t*//p' "/proc/$pid/status")
say "CapBnd of coredumpd: $capbnd ($(capsh --decode="$capbnd" 2>/dev/null | cut -d= -f2))"
# The unit's set (plus CAP_SETPCAP) is for setting up; serving crashes, the daemon has shrunk its
# bounding set to CAP_DAC_READ_SEARCH (2) and CAP_SYS_PTRACE (19), and CAP_SETGID (6) and CAP_SETUID (7),
# with which only its parser drops to the crashing user's ids, and CAP_KILL (5) to end it at its deadline;
# CAP_CHECKPOINT_RESTORE (40) is passed on to the parser (map_files, before its cell): bounding and
# permitted, never effective.
kept=$(((1 << 2) | (1 << 5) | (1 << 6) | (1 << 7) | (1 << 19) | (1 << 40)))
[ $((0x$capbnd & ~kept)) = 0 ] ||
	die "bounding set $capbnd still holds setup capabilities"
# The probe's capabilities are dropped once it is attached: serving crashes needs
# CAP_DAC_READ_SEARCH and CAP_SYS_PTRACE (and the parser's CAP_SETGID, CAP_SETUID and CAP_KILL) alone.
capprm=$(sed -n 's/^CapPrm:\t*//p' "/proc/$pid/status")
say "CapPrm of coredumpd: $capprm ($(capsh --decode="$capprm" 2>/dev/null | cut -d= -f2))"
[ $((0x$capprm & ~kept)) = 0 ] || die "permitted set $capprm still holds setup capabilities"
capeff=$(sed -n 's/^CapEff:\t*//p' "/proc/$pid/status")
[ $((0x$capeff & (1 << 40))) = 0 ] || die "effective set $capeff holds CAP_CHECKPOINT_RESTORE (only passed on)"
grep -q NoNewPrivs:.*1 "/proc/$pid/status" || die "NoNewPrivileges is not in force"
grep -q '^Seccomp:.*2' "/proc/$pid/status" || die "no seccomp filter in force"
nsenter -t "$pid" -m sh -c 'touch /usr/cdt-probe 2>/dev/null' && { rm -f /usr/cdt-probe; die "/usr is writable for the daemon"; }
# Unwinding that crash (the image has no debug files) looked for libc's by build-id and stopped
# there: no debuginfod client, no libcurl or TLS library is loaded into the daemon.
net=$(grep -o -E 'lib(debuginfod|curl[^ ]*|gnutls|ssl|crypto)\.so[^ ]*' "/proc/$pid/maps" | sort -u | tr '\n' ' ')
[ -z "$net" ] || die "the daemon loaded network client libraries: $net"
exit 0
