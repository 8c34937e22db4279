# only-when-named
# The boot after case patched-kernel-removed (tests/run-all boots the same disk copy again): the
# machine came up on Debian's cloud kernel, which has no coredump socket, and coredumpd, still
# installed, knows it is not the kernel's handler: core_pattern is not its own, coredumpd-register
# check says the kernel lacks the socket, dumpctl check warns that crashes are not collected.
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
