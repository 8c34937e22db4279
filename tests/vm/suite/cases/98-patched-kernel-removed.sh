# case-timeout: 600
# only-when-named
# Removing the patched kernel's package leaves a system that boots: an administrator on the patched
# kernel removes its package (the running kernel) the way Debian's are removed without a terminal
# (DEBIAN_FRONTEND=noninteractive apt-get remove -y, the running-kernel question answered first).
# Its postrm runs Debian's /etc/kernel/postrm.d hooks: zz-systemd-boot has kernel-install take its
# systemd-boot entry, kernel and initrd off the ESP. What must hold then: Debian's cloud kernel
# keeps its entry, kernel and initrd; systemd-boot will boot that entry (loader.conf's default, or
# systemd-boot's own choice when that names an entry no longer there: the case says which, the next
# boot shows it took it); coredumpd stays installed.
# Destructive: it runs only when named, on the disk image booted from a copy that is kept
# (tests/run-all: tests/vm/run --disk --disk-copy FILE --only patched-kernel-removed, then the
# same FILE booted again for case booted-after-kernel-removal), and the suite powers the VM off.
. /usr/lib/coredumpd-tests/lib.sh
only_when_named "it removes the running kernel's package for good"
need_disk_image
kver=$(uname -r)
pkg=$(kernel_package "$kver")
case $pkg in
linux-image-*coredumpd*) ;;
*) skip "the running kernel $kver is not the patched package's (/boot/vmlinuz-$kver is ${pkg:-no package}'s)" ;;
esac
cloud_pkg=$(dpkg-query -W -f '${db:Status-Status} ${Package}\n' 'linux-image-*-cloud-amd64' 2>/dev/null |
	awk '$1 == "installed" { print $2 }' | head -n1)
[ -n "$cloud_pkg" ] || die "Debian's cloud kernel is not installed: nothing would be left to boot"
cloud_kver=${cloud_pkg#linux-image-}
[ -e "/boot/vmlinuz-$cloud_kver" ] || die "$cloud_pkg installed, but no /boot/vmlinuz-$cloud_kver"

esp=$(bootctl --print-esp-path 2>"$WORK/esp.err") || die "no ESP found: $(cat "$WORK/esp.err")"
entries=$esp/loader/entries
say "ESP $esp ($(findmnt -n -o FSTYPE,SOURCE --target "$esp" | tr -s ' '))"
# entry_of KVER — the Type #1 entry file of that kernel version
entry_of() { awk -v v="$1" '$1 == "version" && $2 == v { print FILENAME; exit }' "$entries"/*.conf 2>/dev/null; }
# entry_files ENTRY — the ESP files its linux and initrd lines name
entry_files() { sed -n -E "s#^(linux|initrd) +#$esp#p" "$1"; }
# the_default — the id of the Type #1 entry bootctl marks default (it chooses as systemd-boot does)
the_default() {
	bootctl list --no-pager 2>/dev/null | awk '
		/^ *type:/ { t = /Type #1/ } /^ *title:/ { d = t && / \(default\)/ } /^ *id:/ && d { print $2; exit }'
}

say "--- before: bootctl list"
bootctl list --no-pager 2>&1 | tee "$WORK/list.before"
say "--- loader.conf"
cat "$esp/loader/loader.conf"
ours=$(entry_of "$kver")
cloud=$(entry_of "$cloud_kver")
[ -n "$ours" ] || die "no boot entry for the running kernel $kver in $entries"
[ -n "$cloud" ] || die "no boot entry for Debian's $cloud_kver in $entries"
entry_files "$ours" > "$WORK/ours.files"
entry_files "$cloud" > "$WORK/cloud.files"
while read -r f; do [ -f "$f" ] || die "$(basename "$ours") names $f, which is missing before the removal"; done < "$WORK/ours.files"
[ "$(the_default)" = "$(basename "$ours")" ] || die "before the removal bootctl's default is '$(the_default)', not the running kernel's $(basename "$ours")"

dpkg-query -W -f '${db:Status-Status} ${Package} ${Version}\n' coredumpd > "$WORK/ours.before" 2>/dev/null
installed coredumpd || die "coredumpd is not installed as a package before the removal"

# What the package's prerm does about removing the running kernel: Debian's own kernel packages run
# linux-check-removal, which asks debconf (linux-base/removing-running-kernel) and, where no one can
# answer, aborts; bindeb-pkg's prerm runs only the /etc/kernel/prerm.d hooks. Either way the answer
# is given first, as an administrator without a terminal gives it.
if grep -q linux-check-removal "/var/lib/dpkg/info/$pkg.prerm" 2>/dev/null; then
	say "# report: $pkg's prerm runs linux-check-removal"
else
	say "# report: $pkg's prerm runs only /etc/kernel/prerm.d: [$(ls /etc/kernel/prerm.d 2>/dev/null | tr '\n' ' ')]"
fi
if installed linux-base; then
	echo 'linux-base linux-base/removing-running-kernel boolean false' | debconf-set-selections ||
		die "debconf-set-selections failed"
fi
say "--- DEBIAN_FRONTEND=noninteractive apt-get remove -y $pkg"
DEBIAN_FRONTEND=noninteractive apt-get remove -y "$pkg" > "$WORK/remove.out" 2>&1
rc=$?
cat "$WORK/remove.out"
[ "$rc" = 0 ] || die "apt-get remove $pkg failed (exit status $rc)"
! installed "$pkg" || die "$pkg is still installed"

say "--- after: bootctl list"
bootctl list --no-pager 2>&1 | tee "$WORK/list.after"
ls -l "$entries"
# The patched kernel: no entry, none of its files on the ESP, no directory of them left.
[ -z "$(entry_of "$kver")" ] || die "the entry $(entry_of "$kver") of the removed kernel is still there"
[ ! -e "$ours" ] || die "$ours is still there"
while read -r f; do [ ! -e "$f" ] || die "$f of the removed kernel is still on the ESP"; done < "$WORK/ours.files"
[ ! -e "$(dirname "$(head -n1 "$WORK/ours.files")")" ] || die "$(dirname "$(head -n1 "$WORK/ours.files")") is still on the ESP"
[ ! -e "/boot/vmlinuz-$kver" ] || die "/boot/vmlinuz-$kver is still there"
# Debian's kernel: its entry as it was, its kernel and initrd on the ESP.
[ "$(entry_of "$cloud_kver")" = "$cloud" ] || die "Debian's entry $cloud is gone"
while read -r f; do [ -s "$f" ] || die "$(basename "$cloud") names $f, which is missing after the removal"; done < "$WORK/cloud.files"
grep -q '^initrd ' "$cloud" || die "Debian's entry $cloud has no initrd"
# What systemd-boot boots next: the entry a one-shot or default EFI variable names (none is set
# here), else loader.conf's default if it matches an entry, else the first entry in its order.
# bootctl list cannot tell in this boot: it also lists the entries the loader reported when this boot
# began, the removed one among them ("reported/absent"), and marks that one default.
for v in LoaderEntryOneShot LoaderEntryDefault; do
	[ ! -e "/sys/firmware/efi/efivars/$v-4a67b082-0a4c-41cf-b6c7-440b29bb8c4f" ] ||
		die "the EFI variable $v is set: it, not loader.conf, chooses the next boot's entry"
done
default=$(sed -n -E 's/^default[[:space:]]+//p' "$esp/loader/loader.conf" | tail -n1)
matched=
for e in "$entries"/*.conf; do
	# shellcheck disable=SC2053 # default is a glob
	[[ $(basename "$e") == $default ]] && matched=$(basename "$e") && break
done
if [ -n "$matched" ]; then
	[ "$matched" = "$(basename "$cloud")" ] || die "loader.conf's default '$default' matches $matched, not Debian's entry"
	how="loader.conf's default '$default' matches Debian's entry"
else
	how="loader.conf's default '$default' matches no entry now: systemd-boot falls back to the first entry in its order, the only one left"
fi
[ "$(ls "$entries"/*.conf | wc -l)" = 1 ] || [ -n "$matched" ] || die "$how, but more than one entry is left"
say "$how"
say "# report: patched kernel removed: $how"
# coredumpd stays.
dpkg-query -W -f '${db:Status-Status} ${Package} ${Version}\n' coredumpd > "$WORK/ours.after" 2>/dev/null
cmp -s "$WORK/ours.before" "$WORK/ours.after" || die "coredumpd's package changed: $(cat "$WORK/ours.before") -> $(cat "$WORK/ours.after")"
systemctl is-enabled -q coredumpd.socket || die "coredumpd.socket is no longer enabled"
sync
