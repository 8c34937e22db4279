#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# Every unit the package ships, as systemd reads it (systemd-analyze, offline: no manager is asked
# or changed):
#  - verify says nothing: a key in the wrong section ("Unknown key ... in section [Service]") is
#    ignored by systemd without a word at run time, so a setting that reads well but does nothing
#    (RefuseManualStart= under [Service], RuntimeMaxSec= on a oneshot) fails here;
#  - the exposure systemd-analyze security gives each service stays at or under its bound below
#    (x10, as --threshold= takes it): a unit that loses part of its sandbox fails here.
# The units' programs are replaced by /bin/true (verify checks that they exist; the installed paths
# need not). Usage: test-units.sh BUILT-UNITS-DIR SOURCE-UNITS-DIR
set -u
built=${1:?usage: test-units.sh BUILT-UNITS-DIR SOURCE-UNITS-DIR}
src=${2:?}
command -v systemd-analyze >/dev/null || { echo "systemd-analyze not found"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failed=0
fail() { echo "FAIL: $*"; failed=1; }

for f in "$built"/*.service "$src"/*.service "$src"/*.socket "$src"/*.timer; do
	[ -f "$f" ] || continue
	sed -E 's#^(Exec[A-Za-z]*=[-@:+!]*)[^ ]+#\1/bin/true#' "$f" > "$tmp/${f##*/}"
done

# Exposure bounds (systemd 252's scale x10). coredumpd.service: 2.9 (issue 38: no worse than that).
bounds="coredumpd.service:29 coredumpd-probe.service:18 coredumpd-register.service:28
coredumpd-limits.service:11 coredumpd-vacuum.service:13 coredumpd-metrics.service:17
coredumpd-remove@.service:9 coredumpd-drkonqi@.service:13"

units=
for f in "$tmp"/*; do
	u=${f##*/}
	case $u in *@.*) u=${u%%@*}@x.${u##*.} ;; esac
	units="$units $u"
done
# shellcheck disable=SC2086
(cd "$tmp" && SYSTEMD_LOG_LEVEL=warning systemd-analyze verify --man=no $units) > "$tmp/verify" 2>&1 ||
	fail "systemd-analyze verify failed: $(cat "$tmp/verify")"
grep -v -e 'Failed to resolve unit alias' -e 'is not a symlink' "$tmp/verify" | grep -q . &&
	fail "systemd-analyze verify has things to say: $(cat "$tmp/verify")"

for f in "$tmp"/*.service; do
	u=${f##*/}
	bound=
	for b in $bounds; do
		[ "${b%%:*}" = "$u" ] && bound=${b##*:}
	done
	case $u in coredumpd-crash@.service|coredumpd-new-signature@.service) continue ;; esac # run /bin/true
	[ -n "$bound" ] || { fail "$u has no exposure bound in this test"; continue; }
	out=$(systemd-analyze security --offline=true --no-pager --threshold="$bound" "$f" 2>&1)
	rc=$?
	level=$(printf '%s\n' "$out" | sed -n 's/.*exposure level for .*: \([0-9.]*\).*/\1/p')
	[ "$rc" = 0 ] || fail "$u: exposure ${level:-?} is above $(echo "$bound" | sed 's/.$/.&/')"
	echo "$u: exposure $level"
done
exit $failed
