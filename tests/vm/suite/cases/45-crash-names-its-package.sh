# A crash of a Debian package's binary names its package: sleep of coreutils, killed with SIGSEGV,
# is recorded with COREDUMP_PACKAGE_NAME=coreutils, the version, architecture and source dpkg
# reports and COREDUMPD_PACKAGE_MODIFIED=no (its /usr/bin/sleep is coreutils' /bin/sleep on the
# merged-/usr image); the same binary changed in place (a byte appended, then put back) is flagged
# modified; dumpctl info shows the package and dumpctl report names it and the reportbug command.
# daemon-only
. /usr/lib/coredumpd-tests/lib.sh
need_daemon
command -v dpkg-query >/dev/null || skip "no dpkg-query in the image"
ver=$(dpkg-query -W -f='${Version}' coreutils 2>/dev/null) && [ -n "$ver" ] || skip "coreutils is not installed by dpkg"
arch=$(dpkg-query -W -f='${Architecture}' coreutils)
src=$(dpkg-query -W -f='${source:Package}' coreutils)
srcver=$(dpkg-query -W -f='${source:Version}' coreutils)
add_policy test-package <<'P'
[Rule]
Name=package-sleep
MatchExe=/usr/bin/sleep
Action=kernel
P

# sleep_crash — /usr/bin/sleep under spawn, SIGSEGV once it runs sleep; sets PID.
sleep_crash() {
	rm -f "$WORK/pids"
	"$BIN/spawn" -t 60 -p "$WORK/pids" -- /usr/bin/sleep 60 > "$WORK/spawn.out" &
	local s=$!
	for _ in $(seq 400); do
		PID=$(head -n1 "$WORK/pids" 2>/dev/null)
		[ -n "$PID" ] && [ "$(readlink "/proc/$PID/exe" 2>/dev/null)" = /usr/bin/sleep ] && break
		sleep 0.025
	done
	kill -SEGV "$PID"
	wait "$s" || die "sleep did not end: $(cat "$WORK/spawn.out")"
	read_spawn_line "$(head -n1 "$WORK/spawn.out")"
	[ "$SIGNAL" = 11 ] || die "sleep ended with signal '$SIGNAL'"
}

journal_mark
sleep_crash
e=$(wait_entry "$PID" 30) || die "no journal entry for pid $PID"
grep '^COREDUMPD\?_PACKAGE' "$e"
[ "$(field COREDUMPD_RESULT "$e")" = stored ] || die "result '$(field COREDUMPD_RESULT "$e")', not stored"
[ "$(field COREDUMP_PACKAGE_NAME "$e")" = coreutils ] ||
	die "package '$(field COREDUMP_PACKAGE_NAME "$e")', not coreutils (error: $(field COREDUMPD_PACKAGE_ERROR "$e"))"
[ "$(field COREDUMP_PACKAGE_VERSION "$e")" = "$ver" ] || die "version '$(field COREDUMP_PACKAGE_VERSION "$e")', dpkg says $ver"
[ "$(field COREDUMPD_PACKAGE_ARCHITECTURE "$e")" = "$arch" ] || die "architecture is not $arch"
[ "$(field COREDUMPD_PACKAGE_SOURCE "$e")" = "$src" ] || die "source '$(field COREDUMPD_PACKAGE_SOURCE "$e")', not $src"
[ "$(field COREDUMPD_PACKAGE_SOURCE_VERSION "$e")" = "$srcver" ] || die "source version is not $srcver"
[ "$(field COREDUMPD_PACKAGE_MODIFIED "$e")" = no ] || die "modified '$(field COREDUMPD_PACKAGE_MODIFIED "$e")', not no"
[ "$(field COREDUMPD_PACKAGE_FROM "$e")" = dpkg ] || die "not found by dpkg"
say "index of dpkg's lists in the store: $(stat -c %s "$STORE/.dpkg-index" 2>/dev/null || echo none) bytes"
dumpctl info "$PID" > "$WORK/info" || die "dumpctl info failed"
grep -F "Package: coreutils $ver (arch $arch, source $src $srcver, from dpkg)" "$WORK/info" ||
	die "dumpctl info does not show the package: $(grep -i package "$WORK/info")"
dumpctl report -o "$WORK/bug" "$PID" > "$WORK/report" || die "dumpctl report failed: $(cat "$WORK/report")"
cat "$WORK/report"
grep -qE "^  reportbug( --attach=$WORK/bug/[a-z.-]+)+ coreutils\$" "$WORK/report" || die "no reportbug command for coreutils"
grep -qF "Package: coreutils $ver" "$WORK/bug/summary.txt" || die "the summary does not name the package"
sig=$(field COREDUMPD_SIGNATURE "$e")
[ -z "$sig" ] || grep -qx "coredumpd-signature: $sig" "$WORK/bug/summary.txt" || die "the summary lacks the signature line"

# The same binary changed in place: modified.
cp -p /usr/bin/sleep "$WORK/sleep.orig"
on_exit "cat '$WORK/sleep.orig' > /usr/bin/sleep"
printf x >> /usr/bin/sleep
sleep_crash
# Put back only once the record is there: the package is looked up after the release, the file as
# it is then.
e=$(wait_entry "$PID" 30) || die "no journal entry for the modified sleep $PID"
cat "$WORK/sleep.orig" > /usr/bin/sleep
[ "$(field COREDUMP_PACKAGE_NAME "$e")" = coreutils ] || die "the modified sleep is not coreutils'"
[ "$(field COREDUMPD_PACKAGE_MODIFIED "$e")" = yes ] || die "modified '$(field COREDUMPD_PACKAGE_MODIFIED "$e")', not yes"
cmp -s /usr/bin/sleep "$WORK/sleep.orig" || die "sleep was not put back"
say "sleep of coreutils $ver attributed, the changed copy flagged modified"
