# case-timeout: 300
# only-when-named
# An upgrade of the coredumpd package during a crash storm loses nothing (issue 40 G2): a higher
# version of the installed .deb (the image's own package repacked with Version: V+cdt1, no
# rebuild) is installed with dpkg -i while crashers of three users (root, 2001, 2002) start, from
# before dpkg starts until it has ended (15 at 0.2 s, then one every 1.5 s; 30 to 80). core_pattern and the
# socket are sampled every ~20 ms from before the upgrade to after the storm. What must hold:
#  - the pattern was coredumpd's in every sample and the socket file never missing; the socket
#    is the same (inode, and coredumpd.socket and coredumpd-register.service not restarted: their
#    ActiveEnterTimestampMonotonic unchanged) — the package neither stops nor restarts the socket
#    on upgrade (debian/rules: --no-stop-on-upgrade --no-restart-after-upgrade);
#  - every crash of the storm ends as exactly one record (stored, or not stored with its reason),
#    and none wrote a core file where the kernel's own pattern would have put it;
#  - dpkg -s shows the new version;
#  - the daemon that ran before the upgrade keeps running after it (the package does not restart
#    coredumpd.service either), its executable the replaced one ("(deleted)"); once it ends (at
#    IdleExitSec=; here stopped as that would end it) the next crash starts the new binary, and
#    that crash is stored.
# Can fail: with coredumpd.test.upgrade-restarts-socket=1 (tests/vm/run --append) the repacked
# postinst restarts coredumpd.socket on upgrade as the package built with a plain
# "dh_installsystemd coredumpd.socket" did (before 00422a3): the register unit, bound to the
# socket, puts the previous pattern back meanwhile, and the case fails.
# It changes the installed package for good: it runs only when named (tests/run-all's first disk
# boot, before case patched-kernel-removed).
. /usr/lib/coredumpd-tests/lib.sh
only_when_named "it upgrades the installed coredumpd package for good"
need_disk_image
need_daemon
installed coredumpd || die "coredumpd is not installed as a package"
old=$(dpkg-query -W -f '${Version}' coredumpd)
new=$old+cdt1
deb=$T/coredumpd.deb
[ "$(dpkg-deb -f "$deb" Version)" = "$old" ] || die "$deb is version $(dpkg-deb -f "$deb" Version), the installed one $old"
dpkg --compare-versions "$new" gt "$old" || die "$new is not higher than $old"

# The higher version: the same files, another Version.
dpkg-deb -R "$deb" "$WORK/pkg" || die "dpkg-deb -R $deb failed"
sed -i "s/^Version: .*/Version: $new/" "$WORK/pkg/DEBIAN/control"
opts=$(cat /run/coredumpd-tests/options 2>/dev/null || cat /proc/cmdline)
case " $opts " in
*" coredumpd.test.upgrade-restarts-socket=1 "*)
	# What "dh_installsystemd coredumpd.socket" generated: restart on upgrade, start on install.
	sed -i "s/deb-systemd-invoke start 'coredumpd.socket'/deb-systemd-invoke restart 'coredumpd.socket'/" \
		"$WORK/pkg/DEBIAN/postinst"
	grep -q "deb-systemd-invoke restart 'coredumpd.socket'" "$WORK/pkg/DEBIAN/postinst" ||
		die "the postinst has no start of coredumpd.socket to turn into a restart"
	say "coredumpd.test.upgrade-restarts-socket=1: the repacked postinst restarts coredumpd.socket"
	;;
esac
dpkg-deb -Zgzip -z1 -b "$WORK/pkg" "$WORK/new.deb" > /dev/null || die "dpkg-deb -b failed"

# Before: a running daemon, the socket, the registration.
cd "$WORK" || die "no $WORK"
daemon_warm
main=$(systemctl show -P MainPID coredumpd.service)
[ -n "$main" ] && [ "$main" != 0 ] || die "coredumpd is not running before the upgrade"
exe_before=$(readlink "/proc/$main/exe")
ino=$(stat -c %i "$SOCK")
sock_since=$(systemctl show -P ActiveEnterTimestampMonotonic coredumpd.socket)
reg_since=$(systemctl show -P ActiveEnterTimestampMonotonic coredumpd-register.service)
journal_mark

# The sampler: builtins only (read, [ ], $EPOCHREALTIME), a 20 ms wait on a fifo nobody writes.
mkfifo "$WORK/tick"
sampler() {
	trap - EXIT
	local n=0 bad=0 p now last gap maxgap=0
	exec 9<> "$WORK/tick"
	last=${EPOCHREALTIME/./}
	while [ ! -e "$WORK/stop" ]; do
		read -r p < /proc/sys/kernel/core_pattern
		n=$((n + 1))
		if [ "$p" != "@@$SOCK" ]; then
			bad=$((bad + 1))
			[ $bad -le 5 ] && echo "core_pattern '$p' at $EPOCHREALTIME" >> "$WORK/bad"
		fi
		if [ ! -S "$SOCK" ]; then
			bad=$((bad + 1))
			[ $bad -le 5 ] && echo "no $SOCK at $EPOCHREALTIME" >> "$WORK/bad"
		fi
		now=${EPOCHREALTIME/./}
		gap=$((now - last)) last=$now
		[ $gap -gt $maxgap ] && maxgap=$gap
		read -r -t 0.02 -u 9 _ || true
	done
	echo "$n $bad $((maxgap / 1000))" > "$WORK/samples"
}
# The storm: the users in turn, 15 crashers 0.2 s apart, then one every 1.5 s until dpkg has ended
# and 30 were started (at most 80). dpkg -i takes 40 to 80 s under TCG (deb-systemd-helper and
# deb-systemd-invoke, Perl, for every unit); a storm the daemon keeps up with spans it, where one
# of 5 crashes a second (150) starved dpkg and the daemon alike on a loaded host.
storm() {
	trap - EXIT
	local i=0 u users=(0 2001 2002)
	exec 8<> "$WORK/tick"
	while [ $i -lt 30 ] || [ ! -e "$WORK/dpkg.done" ]; do
		[ $i -lt 80 ] || break
		u=${users[i % 3]}
		setpriv --reuid="$u" --regid="$u" --clear-groups "$BIN/spawn" -t 150 -- "$BIN/crasher" > "$WORK/storm.$i" &
		i=$((i + 1))
		if [ $i -lt 15 ]; then read -r -t 0.2 -u 8 _ || true; else read -r -t 1.5 -u 8 _ || true; fi
	done
	echo "$i" > "$WORK/started"
	wait
}
sampler &
sampler_pid=$!
on_exit "touch '$WORK/stop'; wait $sampler_pid"
storm &
storm_pid=$!
# Crashes in flight before dpkg starts.
read -r -t 1 _ <> "$WORK/tick" || true
t0=$SECONDS
DEBIAN_FRONTEND=noninteractive dpkg -i --force-confold "$WORK/new.deb" < /dev/null > "$WORK/dpkg.out" 2>&1
rc=$?
dpkg_s=$((SECONDS - t0))
touch "$WORK/dpkg.done"
main_after=$(systemctl show -P MainPID coredumpd.service)
exe_after=$(readlink "/proc/$main/exe" 2>/dev/null)
wait $storm_pid
touch "$WORK/stop"
wait $sampler_pid
cat "$WORK/dpkg.out"
[ "$rc" = 0 ] || die "dpkg -i of $new failed (exit status $rc)"
started=$(cat "$WORK/started")
read -r samples bad maxgap < "$WORK/samples"
say "upgrade $old -> $new: dpkg -i took ${dpkg_s}s; $started crashers started; $samples samples (longest gap ${maxgap} ms), $bad bad"

# The pattern and the socket, throughout.
[ "$bad" = 0 ] || die "$bad bad samples during the upgrade, the first: $(tr '\n' ';' < "$WORK/bad")"
[ "$samples" -ge 50 ] || die "only $samples samples"
[ "$(cat /proc/sys/kernel/core_pattern)" = "@@$SOCK" ] || die "core_pattern is '$(cat /proc/sys/kernel/core_pattern)' after the upgrade"
[ "$(stat -c %i "$SOCK" 2>/dev/null)" = "$ino" ] || die "$SOCK is another file after the upgrade (the socket was made anew)"
[ "$(systemctl show -P ActiveEnterTimestampMonotonic coredumpd.socket)" = "$sock_since" ] ||
	die "coredumpd.socket was restarted by the upgrade"
[ "$(systemctl show -P ActiveEnterTimestampMonotonic coredumpd-register.service)" = "$reg_since" ] ||
	die "coredumpd-register.service was restarted by the upgrade"

# Every crash: exactly one record, stored or not stored with its reason; no core file left.
sed -n 's/^pid=\([0-9]*\) .*/\1/p' "$WORK"/storm.* > "$WORK/pids"
[ "$(wc -l < "$WORK/pids")" = "$started" ] || die "spawn reported $(wc -l < "$WORK/pids") of $started crashers (one did not end?)"
wait_all_recorded "$WORK/pids" 180
awk -F'|' 'NR == FNR { ours[$1] = 1; next } $1 in ours' "$WORK/pids" "$WORK/records" > "$WORK/ours"
for p in $(awk -F'|' '$2 != "stored" { print $1 }' "$WORK/ours"); do
	e=$(wait_entry "$p" 10) || die "crash $p: its record went"
	r=$(field COREDUMPD_REASON "$e")
	[ -n "$r" ] || die "crash $p not stored ($(field COREDUMPD_RESULT "$e")) without a reason"
	echo "$p $r" >> "$WORK/reasons"
done
say "records (result, uid): $(cut -d'|' -f2,3 "$WORK/ours" | sort | uniq -c | tr -s ' \n' ' ')"
[ ! -s "$WORK/reasons" ] || say "not stored, reasons: $(cut -d' ' -f2 "$WORK/reasons" | sort | uniq -c | tr -s ' \n' ' ')"
# (-mindepth 1: $WORK itself, /run/coredumpd-case.*, matches core*)
cores=$(find "$WORK" -mindepth 1 -maxdepth 1 -name 'core*')
[ -z "$cores" ] || die "a core file where the kernel's own pattern put it: $(ls -l $cores)"

# The package and the daemon.
ver=$(dpkg-query -W -f '${db:Status-Status} ${Version}' coredumpd)
[ "$ver" = "installed $new" ] || die "dpkg says coredumpd is '$ver', not 'installed $new'"
[ "$main_after" = "$main" ] || die "coredumpd.service was restarted by the upgrade (MainPID $main -> $main_after)"
case $exe_after in
*" (deleted)") ;;
*) die "the daemon running through the upgrade runs '$exe_after', not the replaced $exe_before" ;;
esac
say "the daemon $main ran through the upgrade: $exe_after"
# It ends at IdleExitSec= (stopped here as that would end it): the next crash starts the new one.
systemctl stop coredumpd.service
crash crasher
e=$(wait_entry "$PID" 120) || die "the crash after the upgrade (pid $PID) has no record"
[ "$(field COREDUMPD_RESULT "$e")" = stored ] || die "the crash after the upgrade was not stored: $(field COREDUMPD_ERROR "$e")"
main=$(systemctl show -P MainPID coredumpd.service)
exe=$(readlink "/proc/$main/exe" 2>/dev/null)
[ "$exe" = "$(daemon_path)" ] || die "the daemon started after the upgrade runs '$exe', not $(daemon_path)"
systemctl is-active -q coredumpd.socket || die "coredumpd.socket is not active after the upgrade"
say "# report: upgrade $old -> $new in ${dpkg_s}s during $started crashes: all recorded, core_pattern coredumpd's in $samples samples (gap <= ${maxgap} ms), socket kept, daemon $main_after kept, new binary at the next start"
