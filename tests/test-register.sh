#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# units/coredumpd-register against a fake /proc/sys/kernel, /proc/sys/fs and /run
# (COREDUMPD_REGISTER_ROOT): which kernels it registers on, what it saves, what it puts back.
# Never touches the real ones.
set -u
script=${1:?usage: test-register.sh PATH-TO-coredumpd-register PATH-TO-profile-core.sh}
profile=${2:?usage: test-register.sh PATH-TO-coredumpd-register PATH-TO-profile-core.sh}
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

# The raised RLIMIT_CORE follows the registration: the service managers' drop-in is masked in /run
# (and the manager reloaded) where coredumpd is not the handler, unmasked when it registers.
# A stub systemctl records what it was asked; $root/run/systemd/system says systemd runs.
cat > "$root/systemctl" <<'STUB'
#!/bin/sh
case $1 in
is-system-running) echo "${STUB_STATE:-running}" ;;
*) echo "$*" >> "$COREDUMPD_REGISTER_ROOT/systemctl.log" ;;
esac
STUB
chmod 755 "$root/systemctl"
export COREDUMPD_REGISTER_SYSTEMCTL="$root/systemctl"
sysconf=$root/run/systemd/system.conf.d/20-coredumpd.conf
userconf=$root/run/systemd/user.conf.d/20-coredumpd.conf
masked() { [ "$(readlink "$sysconf")" = /dev/null ] && [ "$(readlink "$userconf")" = /dev/null ]; }
reloads() { cat "$root/systemctl.log" 2>/dev/null | grep -c '^daemon-reload$'; }
systemd_fresh() { fresh "$@"; mkdir -p "$root/run/systemd/system"; rm -f "$root/systemctl.log"; }

systemd_fresh core file pipe	# a kernel without the socket
"$script" check 2>/dev/null && fail "core_modes without socket: supported"
masked || fail "check on a kernel without the socket left the limit drop-ins unmasked"
[ "$(reloads)" = 1 ] || fail "check masked the drop-ins with $(reloads) daemon-reloads, not 1"
"$script" check 2>/dev/null	# again (a restart): nothing more to do, no second reload
[ "$(reloads)" = 1 ] || fail "a second check reloaded again"

systemd_fresh core file pipe socket	# a kernel with it: nothing masked at boot, no reload
"$script" check 2>/dev/null || fail "check failed on a kernel with the socket"
"$script" start 2>/dev/null || fail "start failed"
[ -e "$sysconf" ] || [ -L "$sysconf" ] && fail "start masked the limit drop-in"
[ "$(reloads)" = 0 ] || fail "check and start on a kernel with the socket reloaded $(reloads) times"
"$script" stop 2>/dev/null || fail "stop failed"
masked || fail "stop left the limit drop-ins unmasked"
[ "$(reloads)" = 1 ] || fail "stop masked the drop-ins with $(reloads) daemon-reloads, not 1"
"$script" start 2>/dev/null
[ -e "$sysconf" ] || [ -L "$sysconf" ] && fail "start after stop left the mask"
[ -e "$userconf" ] || [ -L "$userconf" ] && fail "start after stop left the user manager's mask"
[ "$(reloads)" = 2 ] || fail "start unmasked the drop-ins with $(( $(reloads) - 1 )) daemon-reloads, not 1"

# A stop for the package's removal (its prerm leaves stop-for-removal): the drop-ins go with the
# package and dpkg reloads, so no mask and no reload; the marker is used up. A start clears a
# stale one.
systemd_fresh core file pipe socket
"$script" start 2>/dev/null
: > "$root/run/coredumpd/stop-for-removal"
"$script" stop 2>/dev/null
[ "$(pattern)" = core ] || fail "a stop for removal left '$(pattern)'"
[ -e "$sysconf" ] || [ -L "$sysconf" ] && fail "a stop for removal masked the limit drop-in"
[ "$(reloads)" = 0 ] || fail "a stop for removal reloaded the service manager"
[ -e "$root/run/coredumpd/stop-for-removal" ] && fail "the removal marker stayed after the stop"
: > "$root/run/coredumpd/stop-for-removal"
"$script" start 2>/dev/null && "$script" stop 2>/dev/null
masked || fail "a stale removal marker kept a later stop from masking"

# Somebody else's pattern at stop: coredumpd is no longer the handler, masked too.
systemd_fresh core file pipe socket
"$script" start 2>/dev/null
printf '%s\n' "$pipe" > "$root/proc/sys/kernel/core_pattern"
"$script" stop 2>/dev/null
masked || fail "stop with somebody else's pattern left the limit drop-ins unmasked"

# While the system stops: masked (harmless) but no reload of a manager that is going down.
systemd_fresh core file pipe socket
"$script" start 2>/dev/null
STUB_STATE=stopping "$script" stop 2>/dev/null
[ "$(reloads)" = 0 ] || fail "stop reloaded the service manager while the system stops"

# An admin's own file of that name in /run is theirs: neither replaced nor removed.
systemd_fresh core file pipe socket
mkdir -p "${sysconf%/*}" && printf '[Manager]\nDefaultLimitCORE=1M\n' > "$sysconf"
"$script" start 2>/dev/null && "$script" stop 2>/dev/null && "$script" start 2>/dev/null
grep -q 'DefaultLimitCORE=1M' "$sysconf" 2>/dev/null || fail "the admin's own $sysconf was replaced or removed"
[ -L "$userconf" ] && fail "the user manager's mask stayed after start"

# "limits" at boot (coredumpd-limits.service): the pattern coredumpd's (registered, or a container
# whose host's coredumpd takes its crashes): nothing; anything else (the socket disabled, a kernel
# without it): masked, reloaded once.
systemd_fresh "$ours" file pipe socket
"$script" limits 2>/dev/null || fail "limits failed"
[ -e "$sysconf" ] || [ -L "$sysconf" ] && fail "limits masked the drop-in while the pattern is coredumpd's"
[ "$(reloads)" = 0 ] || fail "limits reloaded while the pattern is coredumpd's"
systemd_fresh core file pipe socket
"$script" limits 2>/dev/null || fail "limits failed"
masked || fail "limits left the drop-ins unmasked with the pattern 'core'"
[ "$(reloads)" = 1 ] || fail "limits masked with $(reloads) daemon-reloads, not 1"
"$script" limits 2>/dev/null
[ "$(reloads)" = 1 ] || fail "a second limits reloaded again"
"$script" start 2>/dev/null	# the socket started later in the boot: raised again
[ -L "$sysconf" ] && fail "start after limits left the mask"

# Without a service manager (a chroot): masks written, nothing reloaded.
fresh core file pipe
rm -f "$root/systemctl.log"
"$script" check 2>/dev/null
masked || fail "check without systemd left the drop-ins unmasked"
[ -e "$root/systemctl.log" ] && fail "check without systemd ran systemctl: $(cat "$root/systemctl.log")"

# Login shells (/etc/profile.d/coredumpd.sh): a soft 0 raised to the hard limit while the pattern is
# ours, left at 0 otherwise; a limit that is not 0 stays. Read from a copy that looks at the fake
# /proc. Each shell that reads /etc/profile that Debian has here.
sed "s|/proc/sys/kernel/core_pattern|$root/proc/sys/kernel/core_pattern|g" "$profile" > "$root/profile.sh"
grep -q "$root/proc" "$root/profile.sh" || fail "the profile snippet does not read /proc/sys/kernel/core_pattern"
for sh in sh dash bash; do
	command -v "$sh" >/dev/null || continue
	fresh "$ours"
	got=$("$sh" -c 'ulimit -S -c 0; . "$1"; ulimit -S -c' sh "$root/profile.sh" 2>&1)
	want=$("$sh" -c 'ulimit -H -c')
	[ "$got" = "$want" ] || fail "$sh: pattern ours, soft 0: the login shell has '$got', not '$want'"
	fresh core
	got=$("$sh" -c 'ulimit -S -c 0; . "$1"; ulimit -S -c' sh "$root/profile.sh" 2>&1)
	[ "$got" = 0 ] || fail "$sh: pattern 'core': the login shell has '$got', not 0"
	if [ "$want" != 0 ]; then
		fresh "$ours"
		got=$("$sh" -c 'ulimit -S -c 1; . "$1"; ulimit -S -c' sh "$root/profile.sh" 2>&1)
		[ "$got" = 1 ] || fail "$sh: a soft limit of 1 became '$got'"
	fi
	rm -rf "$root/proc"
	got=$("$sh" -c 'ulimit -S -c 0; . "$1"; ulimit -S -c' sh "$root/profile.sh" 2>&1)
	[ "$got" = 0 ] || fail "$sh: no /proc/sys/kernel/core_pattern: '$got'"
done

[ "$failed" = 0 ] && echo "ok - coredumpd-register"
exit "$failed"
