# SPDX-License-Identifier: LGPL-2.1-or-later
# Installed by coredumpd as /etc/profile.d/coredumpd.sh, read by every login shell that reads
# /etc/profile (login, su -l, runuser -l, sshd's login shells: sh, bash, dash, ksh).
#
# Debian starts login sessions with a soft RLIMIT_CORE of 0 when their service (getty, sshd) was
# started with it, and coredumpd's built-in policy rejects a crash whose RLIMIT_CORE is 0. While
# coredumpd is the kernel's coredump handler (and only then: on a kernel without the coredump
# socket the pattern stays the kernel's "core", which would write a core file into the working
# directory), a login shell whose soft limit is 0 raises it to its hard limit. A limit that is not
# 0 stays as it is. To keep Debian's 0, empty this file. See coredumpd(8), LIMITS.
if [ -r /proc/sys/kernel/core_pattern ] && [ "$(ulimit -S -c 2>/dev/null)" = 0 ]; then
	read -r coredumpd_pattern < /proc/sys/kernel/core_pattern || coredumpd_pattern=
	if [ "$coredumpd_pattern" = @@/run/coredump.socket ]; then
		ulimit -S -c "$(ulimit -H -c)" 2>/dev/null || :
	fi
	unset coredumpd_pattern
fi
