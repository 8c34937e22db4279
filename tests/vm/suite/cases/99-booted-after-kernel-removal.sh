# only-when-named
# The boot after case patched-kernel-removed (tests/run-all boots the same disk copy again): the
# machine came up on Debian's cloud kernel, which has no coredump socket, and coredumpd, still
# installed, knows it is not the kernel's handler: core_pattern is not its own, coredumpd-register
# check says the kernel lacks the socket, dumpctl check warns that crashes are not collected, and
# a crashing service leaves no core file on this disk (/, /var/tmp; below).
# The rest of a kernel without the socket (the unit's reason in the journal, a crash that ends
# normally) is case register-follows-kernel-support's, run in the same boot. Only meaningful after
# the removal: wherever the patched kernel's package is installed (the whole suite) it skips.
. /usr/lib/coredumpd-tests/lib.sh
need_disk_image
left=$(dpkg-query -W -f '${db:Status-Status} ${Package}\n' 'linux-image-*coredumpd*' 2>/dev/null |
	awk '$1 == "installed" { print $2 }' | paste -sd ' ' -)
[ -z "$left" ] || skip "the patched kernel's package is installed ($left): no removal to boot after (case patched-kernel-removed)"
kver=$(uname -r)
pkg=$(kernel_package "$kver")
say "booted kernel $kver, from package ${pkg:-none}"
case $pkg in
linux-image-*-cloud-amd64) ;;
*) die "the kernel booted after the removal is $kver (/boot/vmlinuz-$kver is ${pkg:-no package}'s), not Debian's cloud kernel" ;;
esac
case $kver in *coredumpd*) die "the kernel booted after the removal is coredumpd's $kver" ;; esac
installed "$pkg" || die "$pkg is not installed"
say "loader: $(bootctl status --no-pager 2>/dev/null | grep -E '^ *(Current|Default) Entry:' | tr -s ' ' | tr '\n' ';')"
installed coredumpd || die "coredumpd is not installed"
pat=$(cat /proc/sys/kernel/core_pattern)
say "core_pattern: '$pat'"
[ "$pat" != "@@$SOCK" ] || die "core_pattern is coredumpd's on a kernel without the coredump socket"
reg=$(daemon_path | xargs dirname)/coredumpd-register
"$reg" check 2> "$WORK/why" && die "coredumpd-register check says $kver has the coredump socket"
say "coredumpd-register check: $(cat "$WORK/why")"
dumpctl check > /dev/null 2> "$WORK/check"
grep -q "coredumpd is not the kernel's handler" "$WORK/check" ||
	die "dumpctl check does not say coredumpd is not the kernel's handler: $(cat "$WORK/check")"
say "dumpctl check: $(grep "not the kernel's handler" "$WORK/check")"
say "# report: after the removal: booted $kver ($pkg), core_pattern '$pat', coredumpd not the handler"

# No core file in a crashing service's working directory (issue 40 G1): Debian's pattern is a
# file name relative to it ('core'), and the service manager's soft RLIMIT_CORE is Debian's 0 again
# on this kernel (the package's DefaultLimitCORE= drop-in masked at boot). A root service without
# WorkingDirectory= (its directory /, so /core) and one working in a directory on the disk
# (/var/tmp) crash. The check can fail: the same service with LimitCORE=infinity leaves its core.
# service_crash UNIT DIR [PROPERTY...] — a transient service crashing the crasher; DIR its directory
# (none: no WorkingDirectory=); sets RESULT.
service_crash() {
	local unit=$1 dir=$2
	shift 2
	on_exit "systemctl reset-failed $unit.service 2>/dev/null"
	systemd-run --quiet --wait --unit="$unit" -p Type=exec ${dir:+-p WorkingDirectory="$dir"} "$@" "$BIN/crasher" || true
	RESULT=$(systemctl show -P Result "$unit.service")
	case $RESULT in core-dump | signal) ;; *) die "$unit: the crasher did not crash (Result=$RESULT)" ;; esac
}
case $pat in
/* | \|* | @*) die "core_pattern '$pat' is no file name relative to the working directory: the check below tells nothing" ;;
esac
cores() { find "$1" -maxdepth 1 -name 'core*' -type f 2>/dev/null; }
[ -z "$(cores /)" ] || die "a core file in / before any service crashed: $(cores /)"
dir=/var/tmp/cdt-no-core
rm -rf "$dir" "$dir.control"
mkdir -p "$dir" "$dir.control"
on_exit "rm -rf '$dir' '$dir.control'"
service_crash cdt-core-control "$dir.control" -p LimitCORE=infinity
[ -n "$(cores "$dir.control")" ] || die "the control (LimitCORE=infinity) left no core in $dir.control: the check tells nothing"
say "control, LimitCORE=infinity: $RESULT, $(cores "$dir.control" | xargs ls -l)"
service_crash cdt-no-core-root ""
say "root service in /: $RESULT, LimitCORESoft=$(systemctl show -P LimitCORESoft cdt-no-core-root.service)"
[ -z "$(cores /)" ] || die "a crashing root service left $(cores /)"
service_crash cdt-no-core-dir "$dir"
say "service in $dir: $RESULT"
[ -z "$(ls -A "$dir")" ] || die "a crashing service left a file in its working directory: $(ls -l "$dir")"
say "# report: on $kver a crashing service leaves no core file (/, $dir); with LimitCORE=infinity it does"
