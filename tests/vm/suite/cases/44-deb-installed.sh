# When the image installed coredumpd from its .deb, dpkg -L shows the daemon,
# dumpctl, the units, the registration script, the tmpfiles snippet, the RLIMIT_CORE drop-ins
# (the login shells' snippet, a conffile in /etc/profile.d) and the man pages, and the package enabled the
# socket.
# daemon-only
. /usr/lib/coredumpd-tests/lib.sh
dpkg -s coredumpd > /dev/null 2>&1 || skip "coredumpd is not installed as a Debian package in this image"
dpkg -L coredumpd > "$WORK/files"
for f in /usr/libexec/coredumpd /usr/libexec/coredumpd-register /usr/bin/dumpctl coredumpd.service \
	coredumpd.socket coredumpd-register.service coredumpd-probe.service coredumpd-limits.service \
	coredumpd-metrics.service coredumpd-metrics.timer \
	/usr/lib/tmpfiles.d/coredumpd.conf /etc/coredumpd/coredumpd.conf \
	/usr/lib/systemd/system.conf.d/20-coredumpd.conf /usr/lib/systemd/user.conf.d/20-coredumpd.conf \
	/etc/profile.d/coredumpd.sh \
	man8/coredumpd.8 man8/coredumpd-register.8 man5/coredumpd.conf.5 man5/coredumpd.policy.5 man1/dumpctl.1 \
	bash-completion/completions/dumpctl zsh/vendor-completions/_dumpctl; do
	grep -q -- "$f" "$WORK/files" || die "dpkg -L coredumpd lacks $f"
done
dpkg-query -W -f='${Conffiles}\n' coredumpd | grep -q ' /etc/profile.d/coredumpd.sh ' ||
	die "/etc/profile.d/coredumpd.sh is no conffile"
grep -q -- /etc/security/limits.d "$WORK/files" && die "the package still ships a limits.d file (pam_limits, every kernel)"
systemctl is-enabled -q coredumpd.socket || die "the package did not enable coredumpd.socket"
systemctl is-enabled -q coredumpd-limits.service || die "the package did not enable coredumpd-limits.service"
systemctl is-enabled -q coredumpd-metrics.timer || die "the package did not enable coredumpd-metrics.timer"
# Inert without node-exporter's textfile directory.
[ -d /var/lib/prometheus/node-exporter ] || ! systemctl is-active -q coredumpd-metrics.timer ||
	die "coredumpd-metrics.timer runs where node-exporter is not installed"
[ "$(stat -c %a /var/lib/coredumpd)" = 751 ] || die "/var/lib/coredumpd is $(stat -c %a /var/lib/coredumpd), not 751"
