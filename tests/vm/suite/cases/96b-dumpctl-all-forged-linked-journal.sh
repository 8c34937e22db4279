# A container's root forges a linked journal (issue 38, gap 6). systemd-nspawn --link-journal=host
# gives the container /var/log/journal/ITS-ID, which its root (here host uid 230555648, as
# nspawn -U maps it) writes byte by byte: it writes there, with systemd-journal-remote, records
# that claim to be coredumpd's on this machine — (a) without _UID, (b) with _UID=0 and this
# machine's _MACHINE_ID=, (c) like (a) with a compact core (COREDUMP=) — each naming root's real
# local core as COREDUMP_FILENAME and as COREDUMP_EXE a root-owned program with a gdb script beside
# it that would run if gdb auto-loaded it (root's gdb allows scripts anywhere: safe-path /, as many
# a developer sets). Root's `dumpctl --all` lists them as foreign (COREFILE remote/journal), info
# says so, dump hands out neither root's core nor anything else they name (exit 4; for (c) its
# compact core only), debug runs gdb without the executable and without auto-load (the script's
# marker file never appears), and says why. At fd4adf7 such records were trusted: dump handed out
# root's core, debug gave gdb the executable with auto-load on. Then the usual survival: the daemon
# the same process, root's next crash stored, `systemctl stop coredumpd` within 10 s.
# daemon-only
. /usr/lib/coredumpd-tests/lib.sh
need_daemon
command -v dumpctl >/dev/null || skip "dumpctl is not installed"
command -v gdb >/dev/null || skip "no gdb in the image"
remote=/lib/systemd/systemd-journal-remote
[ -x "$remote" ] || skip "no $remote in the image"

attack_begin
local_id=$(cat /etc/machine-id)
ct_id=5eed0c0ffee0c0ffee0c0ffee0c0ffee
[ "$local_id" != "$ct_id" ] || ct_id=0ddba11c0ffee0c0ffee0c0ffee0c0ff
ct_uid=230555648
dir=/run/cdt-forged
marker=$dir/auto-loaded
made_var=0
[ -d /var/log/journal ] || { mkdir -p /var/log/journal; made_var=1; }
on_exit "rm -rf $dir /var/log/journal/$ct_id /etc/gdb/gdbinit.d/zz-cdt-safe-path.gdb; [ $made_var = 0 ] || rm -rf /var/log/journal"

# Root's real crash: its core is what the forged records name.
journal_mark
crash crasher
e=$(wait_entry "$PID" 60) || die "no record of root's crash $PID"
root_pid=$PID
local_core=$(field COREDUMP_FILENAME "$e")
[ -f "$local_core" ] || die "root's crash has no core ($local_core)"
# The crasher's build-id, as the unwinder read it (a frame in $BIN/crasher).
build_id=$(sed -n "s|^COREDUMPD_FRAME=[0-9]* \([0-9a-f]\{40\}\)+.* $BIN/crasher\$|\1|p" "$e" | head -n1)
[ -n "$build_id" ] || die "no frame of root's crash names a build-id of $BIN/crasher: $(grep '^COREDUMPD_FRAME=' "$e")"

# The executable they name: a root-owned copy of the crasher (the build recorded), and beside it
# the script gdb auto-loads for it (<objfile>-gdb.gdb).
mkdir -p "$dir/bin" /etc/gdb/gdbinit.d
cp "$BIN/crasher" "$dir/bin/crasher"
chmod 0755 "$dir/bin/crasher"
printf 'shell touch %s\n' "$marker" > "$dir/bin/crasher-gdb.gdb"
echo 'set auto-load safe-path /' > /etc/gdb/gdbinit.d/zz-cdt-safe-path.gdb
# The premise: gdb by itself runs that script here.
gdb -batch "$dir/bin/crasher" > "$WORK/premise.out" 2>&1
[ -e "$marker" ] || die "gdb alone does not auto-load $dir/bin/crasher-gdb.gdb (the premise is wrong): $(cat "$WORK/premise.out")"
rm -f "$marker"

# The container root's journal file, written as it would be: its uid, its directory.
mkdir -p "/var/log/journal/$ct_id"
chown "$ct_uid:$ct_uid" "/var/log/journal/$ct_id"
now=$(date +%s%6N)
record() {	# PID UID-LINE — one record in journal export format
	printf '__REALTIME_TIMESTAMP=%s\n__MONOTONIC_TIMESTAMP=%s\n_BOOT_ID=00112233445566778899aabbccddeeff\n' \
		$((now + $1 % 10)) $(($1 % 10))
	[ -z "$2" ] || printf '%s\n' "$2"
	printf '_MACHINE_ID=%s\nMESSAGE_ID=%s\nMESSAGE=Process %s (crasher) of user 0 dumped core.\n' "$local_id" "$MSGID" "$1"
	printf 'COREDUMPD_ACTION=kernel\nCOREDUMPD_RESULT=stored\nCOREDUMP_PID=%s\nCOREDUMP_UID=0\nCOREDUMP_GID=0\n' "$1"
	printf 'COREDUMP_SIGNAL=11\nCOREDUMP_TIMESTAMP=%s\nCOREDUMP_COMM=crasher\n' "$now"
	printf 'COREDUMP_FILENAME=%s\nCOREDUMP_EXE=%s\n' "$local_core" "$dir/bin/crasher"
	printf 'COREDUMPD_FRAME=0 %s+0x1139 main+0x10 %s\n' "$build_id" "$dir/bin/crasher"
}
{
	record 4711001 ""
	echo
	record 4711002 "_UID=0"
	echo
	record 4711003 ""
	# A compact core: an ELF core header (64 bytes) is all dumpctl checks.
	printf 'COREDUMP\n\100\0\0\0\0\0\0\0'
	printf '\177ELF\2\1\1\0\0\0\0\0\0\0\0\0\4\0\76\0\1\0\0\0'
	head -c 24 /dev/zero
	printf '\0\0\0\0\100\0'
	head -c 10 /dev/zero
	printf '\n\n'
} > "$WORK/forged.export"
chmod 0644 "$WORK/forged.export"
setpriv --reuid=$ct_uid --regid=$ct_uid --clear-groups \
	"$remote" --output="/var/log/journal/$ct_id/system.journal" - < "$WORK/forged.export" > "$WORK/remote.out" 2>&1 ||
	die "systemd-journal-remote as uid $ct_uid failed: $(cat "$WORK/remote.out")"
[ "$(stat -c %u "/var/log/journal/$ct_id/system.journal")" = $ct_uid ] || die "the forged file is not the container's"

# list: the three, foreign (remote, or journal for the compact core); root's own crash present.
dumpctl --no-pager --all --json=short list > "$WORK/list.json" 2>&1 || die "dumpctl --all list failed: $(cat "$WORK/list.json")"
corefile() {	# PID — the corefile the JSON list gives it
	grep -o "\"pid\":$1,[^}]*" "$WORK/list.json" | grep -o '"corefile":"[a-z]*"' | cut -d'"' -f4
}
for p in 4711001 4711002; do
	[ "$(corefile $p)" = remote ] || die "record $p is listed with corefile '$(corefile $p)', not remote: $(cat "$WORK/list.json")"
done
[ "$(corefile 4711003)" = journal ] || die "record 4711003 is listed with corefile '$(corefile 4711003)', not journal"
[ "$(corefile "$root_pid")" = present ] || die "root's own crash $root_pid is not present: $(cat "$WORK/list.json")"

# info: whose word it is.
for p in 4711001 4711002; do
	dumpctl --no-pager --all info $p > "$WORK/info.$p" 2>&1 || die "dumpctl --all info $p failed: $(cat "$WORK/info.$p")"
	grep -q "Source: journal (foreign: not this machine's own system journal; no path it names is opened)" "$WORK/info.$p" ||
		die "info $p does not say the record is foreign: $(cat "$WORK/info.$p")"
done

# dump: neither root's core nor anything else they name.
for p in 4711001 4711002; do
	dumpctl --all -o "$WORK/out.$p" dump $p > "$WORK/dump.$p" 2>&1
	rc=$?
	cat "$WORK/dump.$p"
	[ $rc = 4 ] || die "dumpctl --all dump $p exited $rc, not 4"
	[ ! -e "$WORK/out.$p" ] || die "dumpctl --all dump $p handed out a file ($(stat -c %s "$WORK/out.$p") bytes)"
	grep -q "not from this machine's own system journal" "$WORK/dump.$p" || die "dump $p does not say why"
done
dumpctl --all -o "$WORK/out.c" dump 4711003 > "$WORK/dump.c" 2>&1 || die "dump of the compact core failed: $(cat "$WORK/dump.c")"
[ "$(stat -c %s "$WORK/out.c")" = 64 ] || die "dump 4711003 wrote $(stat -c %s "$WORK/out.c") bytes, not its 64-byte compact core"

# debug: no core for (a) and (b); for (c) gdb on its compact core alone, no auto-load.
dumpctl --all --debugger-arguments=-batch debug 4711001 > "$WORK/debug.a" 2>&1
rc=$?
[ $rc = 4 ] || die "dumpctl --all debug 4711001 exited $rc, not 4: $(cat "$WORK/debug.a")"
dumpctl --all --debugger-arguments=-batch debug 4711003 > "$WORK/debug.c" 2>&1
cat "$WORK/debug.c"
[ ! -e "$marker" ] || die "gdb auto-loaded the script beside the executable a forged record names"
grep -q "^Debugging pid 4711003 " "$WORK/debug.c" || die "debug 4711003 did not run the debugger"
! grep "^Debugging pid 4711003 " "$WORK/debug.c" | grep -q ", executable" || die "debug handed gdb the executable a forged record names"
grep -q "Not looking at $dir/bin/crasher: it is named by a foreign record" "$WORK/debug.c" || die "debug does not say why it goes without the executable"
# Root's own crash: its core as ever.
dumpctl --all -o "$WORK/root.core" dump "$root_pid" > /dev/null 2>&1 || die "dumpctl --all dump of root's own crash failed"

attack_survived
t0=$(date +%s%N)
timeout 30 systemctl stop coredumpd.service || die "systemctl stop coredumpd failed"
ms=$((($(date +%s%N) - t0) / 1000000))
[ "$ms" -le 10000 ] || die "systemctl stop coredumpd took $ms ms (more than 10 s)"
say "# report: dumpctl-all-forged-linked-journal: 3 forged records foreign, nothing they name opened, no auto-load; stop in $ms ms"
exit 0
