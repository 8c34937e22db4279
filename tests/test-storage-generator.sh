#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# units/coredumpd-storage-generator: a Storage= elsewhere than /var/lib/coredumpd, read from the
# daemon's own configuration (the built coredumpd --check-config on a test coredumpd.conf and
# drop-in), gives coredumpd.service and coredumpd-vacuum.service (and the timer's condition) that
# path; the default, and a path systemd would read otherwise, give nothing. The built units with
# the generated drop-ins pass systemd-analyze verify (offline: no manager is asked or changed).
set -u
generator=${1:?usage: test-storage-generator.sh GENERATOR COREDUMPD UNITDIR SRCDIR}
coredumpd=${2:?}
unitdir=${3:?}
srcdir=${4:?}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failed=0
fail() { echo "FAIL: $*"; failed=1; }

cat > "$tmp/daemon" <<STUB
#!/bin/sh
exec "$coredumpd" --config="$tmp/coredumpd.conf" --config-dir="$tmp/coredumpd.conf.d" "\$@"
STUB
chmod 755 "$tmp/daemon"
export COREDUMPD_STORAGE_GENERATOR_DAEMON="$tmp/daemon"
mkdir -p "$tmp/coredumpd.conf.d"

run() {	# STORAGE-LINE-IN-A-DROP-IN (empty: none)
	rm -rf "$tmp/out" "$tmp/coredumpd.conf.d"/*
	mkdir -p "$tmp/out"
	printf '[Coredump]\nMaxUse=1G\n' > "$tmp/coredumpd.conf"
	[ -z "$1" ] || printf '[Coredump]\n%s\n' "$1" > "$tmp/coredumpd.conf.d/50-storage.conf"
	sh "$generator" "$tmp/out" "$tmp/early" "$tmp/late" 2> "$tmp/err" || fail "the generator failed: $(cat "$tmp/err")"
}

run ""
[ -z "$(ls -A "$tmp/out")" ] || fail "the default Storage= got drop-ins: $(find "$tmp/out" -type f)"
run "Storage=/var/lib/coredumpd"
[ -z "$(ls -A "$tmp/out")" ] || fail "Storage=/var/lib/coredumpd got drop-ins"

run "Storage=/srv/cores"
for unit in coredumpd.service coredumpd-vacuum.service; do
	grep -qx 'ReadWritePaths=-/srv/cores' "$tmp/out/$unit.d/50-storage.conf" 2>/dev/null ||
		fail "$unit: no ReadWritePaths=-/srv/cores: $(cat "$tmp/out/$unit.d/50-storage.conf" 2>&1)"
done
for unit in coredumpd-vacuum.service coredumpd-vacuum.timer; do
	f=$tmp/out/$unit.d/50-storage.conf
	grep -qx 'ConditionPathIsDirectory=' "$f" 2>/dev/null && grep -qx 'ConditionPathIsDirectory=/srv/cores' "$f" ||
		fail "$unit: the condition is not moved to /srv/cores: $(cat "$f" 2>&1)"
done

for bad in "Storage=/srv/my cores" "Storage=/srv/cores%n" 'Storage=/srv/co\res'; do
	run "$bad"
	[ -z "$(ls -A "$tmp/out")" ] || fail "'$bad' got drop-ins: $(cat "$tmp"/out/*/* 2>&1)"
	grep -q "by hand" "$tmp/err" || fail "'$bad': not said: $(cat "$tmp/err")"
done

# The built units and the generated drop-ins, as systemd reads them (offline). The units' programs
# are the build's; nothing else is changed.
if command -v systemd-analyze >/dev/null; then
	run "Storage=/srv/cores"
	mkdir -p "$tmp/units"
	for u in coredumpd.service coredumpd-vacuum.service; do
		sed -e "s|^ExecStart=.*/coredumpd\$|ExecStart=$coredumpd|" -e "s|^ExecStart=[^ ]*/dumpctl |ExecStart=/bin/true |" \
			"$unitdir/$u" > "$tmp/units/$u"
		cp -r "$tmp/out/$u.d" "$tmp/units/"
	done
	cp "$srcdir/units/coredumpd.socket" "$srcdir/units/coredumpd-vacuum.timer" "$tmp/units/"
	cp -r "$tmp/out/coredumpd-vacuum.timer.d" "$tmp/units/"
	(cd "$tmp/units" && SYSTEMD_LOG_LEVEL=warning systemd-analyze verify --man=no \
		coredumpd.service coredumpd-vacuum.service coredumpd-vacuum.timer) > "$tmp/verify" 2>&1 ||
		fail "systemd-analyze verify: $(cat "$tmp/verify")"
	grep -v -e 'Failed to resolve unit alias' -e 'is not a symlink' "$tmp/verify" | grep -q . &&
		fail "systemd-analyze verify has things to say: $(cat "$tmp/verify")"
	# A key systemd does not know in a drop-in is said: the drop-ins are read.
	echo 'NoSuchKey=1' >> "$tmp/units/coredumpd-vacuum.service.d/50-storage.conf"
	(cd "$tmp/units" && systemd-analyze verify --man=no coredumpd-vacuum.service) 2>&1 | grep -q NoSuchKey ||
		fail "systemd-analyze verify does not read the drop-ins next to the units"
else
	echo "systemd-analyze not found: the units are not verified"
fi

[ "$failed" = 0 ] && echo "ok - coredumpd-storage-generator"
exit "$failed"
