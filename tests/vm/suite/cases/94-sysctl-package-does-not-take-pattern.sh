# A package that ships a sysctl.d snippet setting kernel.core_pattern and applies it by path in its
# postinst — what systemd-coredump 252's postinst does with 50-coredump.conf, which the
# registration's runtime mask in /run/sysctl.d cannot stop — used to take the pattern for good
# while coredumpd-register.service still showed active: every later crash went elsewhere. The
# package's dpkg trigger on /usr/lib/sysctl.d registers coredumpd again at once: after the
# install the pattern is coredumpd's and a crash is stored. Stopping coredumpd (its socket, as
# apt remove does) puts back the pattern that package set, and removing that package leaves
# coredumpd's in place.
# daemon-only
. /usr/lib/coredumpd-tests/lib.sh
need_daemon
dpkg -s coredumpd > /dev/null 2>&1 || skip "coredumpd is not installed as a Debian package in this image"
pattern() { cat /proc/sys/kernel/core_pattern; }
await_pattern() {
	for _ in $(seq 100); do [ "$(pattern)" = "$1" ] && return 0; sleep 0.1; done
	return 1
}
ours="@@$SOCK"
[ "$(pattern)" = "$ours" ] || die "the pattern is '$(pattern)' before the case"
theirs='|/bin/false %P'
# The pattern from before coredumpd, which stopping it puts back: the same after this case.
cp /run/coredumpd/core_pattern.previous "$WORK/previous" || die "no saved core_pattern"

pkg=$WORK/pkg
mkdir -p "$pkg/DEBIAN" "$pkg/usr/lib/sysctl.d"
printf 'kernel.core_pattern=%s\n' "$theirs" > "$pkg/usr/lib/sysctl.d/60-cdt-pattern.conf"
cat > "$pkg/DEBIAN/control" <<C
Package: cdt-sysctl-pattern
Version: 1
Architecture: all
Maintainer: coredumpd tests <root@localhost>
Description: test package that applies its own core_pattern, as systemd-coredump's postinst does
C
cat > "$pkg/DEBIAN/postinst" <<'P'
#!/bin/sh
set -e
/lib/systemd/systemd-sysctl /usr/lib/sysctl.d/60-cdt-pattern.conf
P
chmod 0755 "$pkg/DEBIAN/postinst"
dpkg-deb --build --root-owner-group "$pkg" "$WORK/cdt.deb" > /dev/null || die "dpkg-deb failed"
on_exit "dpkg -P cdt-sysctl-pattern >/dev/null 2>&1; systemctl start coredumpd.socket; cp '$WORK/previous' /run/coredumpd/core_pattern.previous"

dpkg -i "$WORK/cdt.deb" > "$WORK/dpkg.out" 2>&1 || { cat "$WORK/dpkg.out"; die "dpkg -i failed"; }
cat "$WORK/dpkg.out"
await_pattern "$ours" || die "after installing a package that applies its pattern, it is '$(pattern)', not coredumpd's"
grep -q "registering coredumpd again" "$WORK/dpkg.out" || die "the trigger did not say it registered coredumpd again"
journal_mark
crash crasher
e=$(wait_entry "$PID" 60) || die "no record of a crash after the package's install"
[ "$(field COREDUMPD_RESULT "$e")" = stored ] || die "a crash after the package's install was not stored"

# coredumpd going away puts back the pattern the other package set.
systemctl stop coredumpd.socket coredumpd.service
[ "$(pattern)" = "$theirs" ] || die "after stopping coredumpd the pattern is '$(pattern)', not the package's '$theirs'"
systemctl start coredumpd.socket
await_pattern "$ours" || die "after starting the socket again the pattern is '$(pattern)'"
dpkg -P cdt-sysctl-pattern > "$WORK/dpkg.out" 2>&1 || { cat "$WORK/dpkg.out"; die "dpkg -P failed"; }
[ "$(pattern)" = "$ours" ] || die "after removing the package the pattern is '$(pattern)'"
