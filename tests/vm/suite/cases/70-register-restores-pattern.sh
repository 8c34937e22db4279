# coredumpd-register.service: stopping coredumpd.socket puts the core_pattern and the
# fs.suid_dumpable from before back, starting it sets coredumpd's (and 2) again; removing the
# package (dpkg -r) puts them back too, and installing it again sets coredumpd's and the next
# crash is stored.
# daemon-only
. /usr/lib/coredumpd-tests/lib.sh
need_daemon
pattern() { cat /proc/sys/kernel/core_pattern; }
# The socket's start job ends when it listens; coredumpd-register.service, which it pulls in, runs
# right after: wait for the pattern (at most 10 s).
await_pattern() {
	for _ in $(seq 100); do [ "$(pattern)" = "$1" ] && return 0; sleep 0.1; done
	return 1
}
dumpable() { cat /proc/sys/fs/suid_dumpable; }
# ... which sets fs.suid_dumpable right after the pattern.
await_dumpable() {
	for _ in $(seq 100); do [ "$(dumpable)" = "$1" ] && return 0; sleep 0.1; done
	return 1
}
prev=$(cat /run/coredumpd/core_pattern.previous) || die "no saved core_pattern"
[ "$(dumpable)" = 2 ] || die "fs.suid_dumpable is $(dumpable), not 2"
# The image masks systemd-coredump's sysctl.d snippet, so the boot left the kernel's 0.
sprev=$(cat /run/coredumpd/suid_dumpable.previous) || die "no saved fs.suid_dumpable"
say "saved: '$prev', fs.suid_dumpable=$sprev"
[ "$sprev" != 2 ] || die "the saved fs.suid_dumpable is 2"
on_exit "systemctl start coredumpd.socket"
systemctl stop coredumpd.socket coredumpd.service
[ "$(pattern)" = "$prev" ] || die "after stopping the socket the pattern is '$(pattern)', not '$prev'"
[ "$(dumpable)" = "$sprev" ] || die "after stopping the socket fs.suid_dumpable is $(dumpable), not $sprev"
systemctl start coredumpd.socket
await_pattern "@@$SOCK" || die "after starting the socket the pattern is '$(pattern)'"
await_dumpable 2 || die "after starting the socket fs.suid_dumpable is $(dumpable), not 2"

deb=$T/coredumpd.deb
dpkg -s coredumpd > /dev/null 2>&1 || { say "not installed as a package: dpkg part left out"; exit 0; }
[ -r "$deb" ] || die "the image has no $deb to reinstall"
on_exit "dpkg -s coredumpd >/dev/null 2>&1 || dpkg -i '$deb' >/dev/null"
dpkg -r coredumpd > "$WORK/dpkg.out" 2>&1 || { cat "$WORK/dpkg.out"; die "dpkg -r failed"; }
[ "$(pattern)" = "$prev" ] || die "after dpkg -r the pattern is '$(pattern)', not '$prev'"
[ "$(dumpable)" = "$sprev" ] || die "after dpkg -r fs.suid_dumpable is $(dumpable), not $sprev"
say "dpkg -r: core_pattern='$(pattern)' fs.suid_dumpable=$(dumpable)"
dpkg -i "$deb" > "$WORK/dpkg.out" 2>&1 || { cat "$WORK/dpkg.out"; die "dpkg -i failed"; }
await_pattern "@@$SOCK" || die "after dpkg -i the pattern is '$(pattern)'"
await_dumpable 2 || die "after dpkg -i fs.suid_dumpable is $(dumpable), not 2"
crash crasher
e=$(wait_entry "$PID" 60) || die "the crash after reinstalling was not recorded"
[ "$(field COREDUMPD_RESULT "$e")" = stored ] || die "the crash after reinstalling: $(field COREDUMPD_RESULT "$e")"
