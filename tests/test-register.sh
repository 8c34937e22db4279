#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# units/coredumpd-register against a fake /proc/sys/kernel, /proc/sys/fs and /run
# (COREDUMPD_REGISTER_ROOT): which kernels it registers on, what it saves, what it puts back.
# Never touches the real ones.
set -u
script=${1:?usage: test-register.sh PATH-TO-coredumpd-register}
root=$(mktemp -d)
trap 'rm -rf "$root"' EXIT
export COREDUMPD_REGISTER_ROOT=$root
failed=0
fail() { echo "FAIL: $*"; failed=1; }
pattern() { cat "$root/proc/sys/kernel/core_pattern"; }
dumpable() { cat "$root/proc/sys/fs/suid_dumpable"; }
fresh() {	# PATTERN [CORE_MODES…] (fs.suid_dumpable: $SUID, else 0, Debian's default)
	rm -rf "$root/proc" "$root/run"
	mkdir -p "$root/proc/sys/kernel" "$root/proc/sys/fs" "$root/run"
	printf '%s\n' "$1" > "$root/proc/sys/kernel/core_pattern"
	printf '%s\n' "${SUID:-0}" > "$root/proc/sys/fs/suid_dumpable"
	shift
	[ $# -eq 0 ] || printf '%s\n' "$@" > "$root/proc/sys/kernel/core_modes"
}
ours=@@/run/coredump.socket
pipe='|/lib/systemd/systemd-coredump %P %u %g %s %t 9223372036854775808 %h'

# Which kernels: core_modes decides; without it, the release.
fresh core file pipe socket
"$script" check 2>/dev/null || fail "core_modes with socket: not supported"
fresh core file pipe
"$script" check 2>"$root/err" && fail "core_modes without socket: supported"
grep -q "has no coredump socket" "$root/err" || fail "no reason given: $(cat "$root/err")"
fresh core
COREDUMPD_REGISTER_RELEASE=6.1.0-28-cloud-amd64 "$script" check 2>/dev/null && fail "6.1 without core_modes: supported"
COREDUMPD_REGISTER_RELEASE=6.17.0 "$script" check 2>/dev/null || fail "6.17 without core_modes: not supported"
COREDUMPD_REGISTER_RELEASE=7.2.13+deb14-cloud-amd64 "$script" check 2>/dev/null || fail "7.2: not supported"
COREDUMPD_REGISTER_RELEASE=garbage "$script" check 2>/dev/null && fail "unparsable release: supported"

# start saves and sets; stop puts back and removes its mask.
fresh core file pipe socket
"$script" start 2>/dev/null || fail "start failed"
[ "$(pattern)" = "$ours" ] || fail "start set '$(pattern)'"
[ "$(readlink "$root/run/sysctl.d/50-coredump.conf")" = /dev/null ] || fail "no runtime mask of 50-coredump.conf"
[ "$(dumpable)" = 2 ] || fail "start left fs.suid_dumpable=$(dumpable), not 2"
[ "$(cat "$root/run/coredumpd/suid_dumpable.previous")" = 0 ] || fail "fs.suid_dumpable=0 was not saved"
"$script" start 2>/dev/null	# again (a restarted socket): the saved pattern stays "core", the saved 0 stays
[ "$(cat "$root/run/coredumpd/suid_dumpable.previous")" = 0 ] || fail "a second start overwrote the saved fs.suid_dumpable"
"$script" stop 2>/dev/null || fail "stop failed"
[ "$(pattern)" = core ] || fail "stop left '$(pattern)', not core"
[ "$(dumpable)" = 0 ] || fail "stop left fs.suid_dumpable=$(dumpable), not 0"
[ -e "$root/run/sysctl.d/50-coredump.conf" ] && fail "the mask stayed after stop"
[ -e "$root/run/coredumpd/suid_dumpable.previous" ] && fail "suid_dumpable.previous stayed after stop"

# fs.suid_dumpable: 2 already (systemd-coredump's sysctl ran) stays 2; 1 comes back as 1; a value
# an admin changed since start is left alone.
SUID=2 fresh core file pipe socket
"$script" start 2>/dev/null && "$script" stop 2>/dev/null
[ "$(dumpable)" = 2 ] || fail "fs.suid_dumpable=2 before start came back as $(dumpable)"
SUID=1 fresh core file pipe socket
"$script" start 2>/dev/null && "$script" stop 2>/dev/null
[ "$(dumpable)" = 1 ] || fail "fs.suid_dumpable=1 before start came back as $(dumpable)"
fresh core file pipe socket
"$script" start 2>/dev/null
echo 1 > "$root/proc/sys/fs/suid_dumpable"
"$script" stop 2>/dev/null
[ "$(dumpable)" = 1 ] || fail "stop overwrote an admin's fs.suid_dumpable=1 with $(dumpable)"

# systemd-coredump's pipe comes back as it was (its helper installed).
fresh "$pipe" file pipe socket
mkdir -p "$root/lib/systemd" && printf '#!/bin/sh\n' > "$root/lib/systemd/systemd-coredump" &&
	chmod 755 "$root/lib/systemd/systemd-coredump"
"$script" start 2>/dev/null && "$script" stop 2>/dev/null
[ "$(pattern)" = "$pipe" ] || fail "the pipe pattern came back as '$(pattern)'"

# Somebody else's pattern since: left alone; an admin's own mask: left alone.
fresh core file pipe socket
mkdir -p "$root/run/sysctl.d" && echo 'kernel.core_pattern=core' > "$root/run/sysctl.d/50-coredump.conf"
"$script" start 2>/dev/null
printf '%s\n' '/var/crash/core.%p' > "$root/proc/sys/kernel/core_pattern"
"$script" stop 2>/dev/null
[ "$(pattern)" = /var/crash/core.%p ] || fail "stop overwrote somebody else's pattern with '$(pattern)'"
[ "$(dumpable)" = 2 ] || fail "stop took fs.suid_dumpable from somebody else's pattern: $(dumpable)"
grep -q core_pattern "$root/run/sysctl.d/50-coredump.conf" 2>/dev/null || fail "stop removed the admin's own 50-coredump.conf"

# Nothing saved (ours already at first start): stop falls back to "core".
fresh "$ours" file pipe socket
"$script" start 2>/dev/null && "$script" stop 2>/dev/null
[ "$(pattern)" = core ] || fail "with nothing saved, stop left '$(pattern)'"

# A saved pipe helper that is gone meanwhile (systemd-coredump purged) is not put back; one that
# is there is.
fresh "|/usr/lib/systemd/systemd-coredump %P %u %g %s %t %c %h" file pipe socket
"$script" start 2>/dev/null && "$script" stop 2>/dev/null
[ "$(pattern)" = core ] || fail "stop put back a pipe to a helper that is gone: '$(pattern)'"
fresh "|/usr/lib/systemd/systemd-coredump %P %u %g %s %t %c %h" file pipe socket
mkdir -p "$root/usr/lib/systemd" && printf '#!/bin/sh\n' > "$root/usr/lib/systemd/systemd-coredump" &&
	chmod 755 "$root/usr/lib/systemd/systemd-coredump"
"$script" start 2>/dev/null && "$script" stop 2>/dev/null
[ "$(pattern)" = "|/usr/lib/systemd/systemd-coredump %P %u %g %s %t %c %h" ] ||
	fail "stop did not put back the pipe to a helper that is there: '$(pattern)'"

[ "$failed" = 0 ] && echo "ok - coredumpd-register"
exit "$failed"
