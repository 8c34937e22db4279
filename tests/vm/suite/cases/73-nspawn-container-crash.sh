# A crash in a systemd-nspawn container (registered with systemd-machined as "ctest") of a program
# that exists only inside it (/opt/ct/bin/ctcrash): the record names the machine
# (COREDUMPD_CONTAINER=ctest), the pid inside, the in-container executable, why it has no package
# (the container has no dpkg database); the daemon unwound
# the container's file, not the host's (the backtrace names ct_inner and ct_outer), and kept a
# copy of it with the core (the loader and libc, the same as the host's, are not copied). After
# the container is gone, dumpctl debug still gives gdb the right binaries: its backtrace names
# ct_inner and ct_outer. A MatchContainer=ctest rule rejects the next crash there.
# case-timeout: 600
. /usr/lib/coredumpd-tests/lib.sh
need_daemon
command -v systemd-nspawn >/dev/null || skip "no systemd-nspawn in the image"
command -v gdb >/dev/null || skip "no gdb in the image"
command -v dumpctl >/dev/null || skip "dumpctl is not installed"

root=/var/lib/machines/ctest
exe=/opt/ct/bin/ctcrash
rm -rf "$root"
on_exit "rm -rf $root"
[ ! -e "$exe" ] || die "$exe exists on the host"

# A minimal OS tree: os-release, the loader and libc (copies of the VM's), the program.
mkdir -p "$root/etc" "$root/usr/lib" "$root/opt/ct/bin"
cp /usr/lib/os-release "$root/usr/lib/os-release"
cp /usr/lib/os-release "$root/etc/os-release"
for f in $(ldd "$BIN/ctcrash" | grep -o '/[^ ]*'); do
	real=$(readlink -f "$f")
	mkdir -p "$root$(dirname "$real")"
	[ -e "$root$real" ] || cp "$real" "$root$real"
	if [ "$f" != "$real" ] && [ ! -e "$root$f" ]; then
		mkdir -p "$root$(dirname "$f")"
		ln -s "$real" "$root$f"
	fi
done
cp "$BIN/ctcrash" "$root$exe"
chmod 0755 "$root$exe"
find "$root" | sort

run_container() {	# runs ctcrash in the container; its output in $WORK/nspawn.out
	# The daemon runs first: the crash-context probe (the crash's registers) must see the crash.
	daemon_warm
	timeout 300 systemd-nspawn -q -M ctest -D "$root" --as-pid2 --console=pipe --resolv-conf=off \
		--rlimit=RLIMIT_CORE=infinity \
		--timezone=off --link-journal=no "$exe" > "$WORK/nspawn.out" 2>&1
	say "systemd-nspawn exited with $?"
	cat "$WORK/nspawn.out"
}
wait_comm_entry() {	# waits for the record of ctcrash since journal_mark; prints its file
	local f=$WORK/entry.ct end=$((SECONDS + 120))
	while [ $SECONDS -lt $end ]; do
		_jq -o export $SYSTEM_RECORD COREDUMP_COMM=ctcrash 2>/dev/null |
			grep -a -E '^[A-Z_][A-Z0-9_]*=' > "$f" || true
		[ -s "$f" ] && { echo "$f"; return 0; }
		sleep 0.5
	done
	return 1
}

# 0. What the host sees of a task in the container (shown if the case fails).
systemd-nspawn -q -M ctest -D "$root" --as-pid2 --console=pipe --resolv-conf=off --timezone=off \
	--link-journal=no "$exe" sleep > "$WORK/sleep.out" 2>&1 &
nspawn_pid=$!
sp=
for _ in $(seq 240); do
	sp=$(pgrep -x ctcrash | head -n1)
	[ -n "$sp" ] && grep -q sleeping "$WORK/sleep.out" && break
	sleep 0.25
done
if [ -n "$sp" ]; then
	say "sleeping ctcrash: pid $sp, root $(stat -L -c '%d:%i' /proc/$sp/root) (ours $(stat -c '%d:%i' /)), exe $(readlink /proc/$sp/exe)"
	say "file: $(stat -c '%d %i %t:%T' "$root$exe")"
	grep -E 'ctcrash|libc' /proc/$sp/maps | head -n 3
	head -n 12 /proc/$sp/mountinfo
	kill "$sp"
fi
wait "$nspawn_pid"

# 1. Stored, attributed, unwound with the container's binary, the binary kept.
journal_mark
run_container
grep -q "crashing at depth 3" "$WORK/nspawn.out" || die "ctcrash did not run in the container"
e=$(wait_comm_entry) || die "no record of the crash in the container"
sleep 2
n=$(_jq -o export $SYSTEM_RECORD COREDUMP_COMM=ctcrash | grep -a -c '^COREDUMP_PID=')
pid=$(field COREDUMP_PID "$e")
say "record: PID=$pid NS_PID=$(field COREDUMPD_NS_PID "$e") CONTAINER=$(field COREDUMPD_CONTAINER "$e") KIND=$(field COREDUMPD_CONTAINER_KIND "$e") EXE=$(field COREDUMP_EXE "$e") RESULT=$(field COREDUMPD_RESULT "$e") CGROUP=$(field COREDUMP_CGROUP "$e")"
grep -a -E '^COREDUMP(D)?_[A-Z_]*=' "$e" | grep -a -v -E '^COREDUMP(D)?_(CMDLINE|ENVIRON|PROC_MAPS)=' | cut -c1-200
[ "$n" = 1 ] || die "$n records of the crash, not one"
[ "$(field COREDUMPD_CONTAINER "$e")" = ctest ] || die "COREDUMPD_CONTAINER is not the machine name ctest"
nspid=$(field COREDUMPD_NS_PID "$e")
[ -n "$nspid" ] && [ "$nspid" != "$pid" ] && [ "$nspid" -le 10 ] || die "COREDUMPD_NS_PID=$nspid is not the small pid inside"
[ "$(field COREDUMP_EXE "$e")" = "$exe" ] || die "COREDUMP_EXE is not $exe"
[ ! -e "$exe" ] || die "$exe exists on the host"
[ "$(field COREDUMPD_RESULT "$e")" = stored ] || die "not stored: $(field COREDUMPD_RESULT "$e") $(field COREDUMPD_ERROR "$e")"
core=$(field COREDUMP_FILENAME "$e")
[ -f "$core" ] || die "the core $core is not there"
# The container has no dpkg database: no package, and why.
[ -z "$(field COREDUMP_PACKAGE_NAME "$e")" ] || die "a package for a container without dpkg"
field COREDUMPD_PACKAGE_ERROR "$e" | grep -q "the container's root has no dpkg database" ||
	die "COREDUMPD_PACKAGE_ERROR is '$(field COREDUMPD_PACKAGE_ERROR "$e")'"
grep -a '^COREDUMPD_FRAME=' "$e" | head -n 8
grep -a '^COREDUMPD_FRAME=' "$e" | grep -q ' ct_inner+' || die "the record's frames do not name ct_inner"
grep -a '^COREDUMPD_FRAME=' "$e" | grep -q ' ct_outer+' || die "the record's frames do not name ct_outer"
grep -a '^COREDUMPD_SAVED_FILE=' "$e"
grep -a -E "^COREDUMPD_SAVED_FILE=[0-9a-f]+ core\..*\.file-0 $exe\$" "$e" || die "the record does not list $exe as kept"
dumpctl info "$pid" > "$WORK/info" 2>&1 || { cat "$WORK/info"; die "dumpctl info failed"; }
cat "$WORK/info"
grep -q "Backtrace:" "$WORK/info" && grep -q "ct_middle" "$WORK/info" || die "dumpctl info shows no backtrace through ct_middle"
grep -E "Saved Files: $exe \(kept as core\..*\.file-0\)" "$WORK/info" || die "dumpctl info does not show $exe kept"
grep -E "libc\.so\.6 \(same as the host's\)" "$WORK/info" || die "libc is not recorded as the host's"
kept=$(dirname "$core")/$(sed -n "s|^ *Saved Files: $exe (kept as \(.*\))\$|\1|p" "$WORK/info")
[ -f "$kept" ] || die "the kept copy $kept is not there"
cmp "$kept" "$BIN/ctcrash" || die "the kept copy differs from the container's file"
say "kept: $(stat -c '%a %U:%G %s' "$kept") $kept"
[ "$(stat -c '%a %U' "$kept")" = "640 root" ] || die "the kept copy is not 0640 root"
ls "$STORE" | grep -c '\.file-' | grep -qx 1 || die "more than the executable was kept: $(ls "$STORE")"

# 2. A MatchContainer=ctest rule rejects the next crash there (nothing kept with it).
add_policy test-no-ctest <<'P'
[Rule]
Name=no-ctest
MatchComm=ctcrash
MatchContainer=ctest
Action=reject
P
sleep 1
journal_mark
run_container
e2=$(wait_comm_entry) || die "no record of the second crash in the container"
say "second record: CONTAINER=$(field COREDUMPD_CONTAINER "$e2") RULE=$(field COREDUMPD_RULE "$e2") RESULT=$(field COREDUMPD_RESULT "$e2")"
[ "$(field COREDUMPD_RULE "$e2")" = no-ctest ] && [ "$(field COREDUMPD_RESULT "$e2")" = rejected ] ||
	die "MatchContainer=ctest did not reject it"
[ "$(ls "$STORE" | grep -c '\.file-')" = 1 ] || die "files were kept for a rejected crash"

# 3. The container gone: dumpctl debug gives gdb the kept executable and the host's libraries.
rm -rf "$root"
[ ! -e "$root$exe" ] || die "the container's root is still there"
dumpctl debug -A '-nx -batch -ex bt' "$pid" > "$WORK/bt" 2>&1 || { cat "$WORK/bt"; die "dumpctl debug failed"; }
cat "$WORK/bt"
grep -q 'ct_inner' "$WORK/bt" || die "gdb's backtrace does not name ct_inner"
grep -q 'ct_outer' "$WORK/bt" || die "gdb's backtrace does not name ct_outer"
leftover=$(ls -d /var/tmp/dumpctl-root.* 2>/dev/null)
[ -z "$leftover" ] || die "dumpctl debug left $leftover behind"
