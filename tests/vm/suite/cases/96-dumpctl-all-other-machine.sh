# dumpctl --all means what coredumpctl --all means: every journal file of the system, also those of
# other machines (/var/log/journal/MACHINE-ID), not only this machine's. Another machine's journal is
# made here as systemd makes one: a journald namespace instance that sees another machine id
# records a coredump entry naming a core path that exists on this host. Without --all neither
# dumpctl nor coredumpctl lists it; with --all both do, dumpctl calls its core "remote", and
# dump refuses it (exit 4) instead of handing out this host's file of that name.
# daemon-only
. /usr/lib/coredumpd-tests/lib.sh
need_daemon
command -v coredumpctl >/dev/null || skip "no coredumpctl in the image"

other=0123456789abcdef0123456789abcdef
[ "$(cat /etc/machine-id)" != "$other" ] || other=fedcba9876543210fedcba9876543210
ns=cdtfar

# A local crash with a core: its path is what the other machine's record will name.
journal_mark
crash crasher
e=$(wait_entry "$PID" 60) || die "no record of the local crash $PID"
local_core=$(field COREDUMP_FILENAME "$e")
[ -f "$local_core" ] || die "the local crash has no core ($local_core)"

# The other machine: journald for namespace $ns, with /etc/machine-id saying $other.
mkdir -p /run/cdt-far /run/systemd/system/systemd-journald@$ns.service.d
echo "$other" > /run/cdt-far/machine-id
printf '[Service]\nBindReadOnlyPaths=/run/cdt-far/machine-id:/etc/machine-id\n' \
	> /run/systemd/system/systemd-journald@$ns.service.d/50-cdt-machine-id.conf
made_var=0
[ -d /var/log/journal ] || { mkdir -p /var/log/journal; made_var=1; }
on_exit "systemctl stop systemd-journald@$ns.service systemd-journald@$ns.socket systemd-journald-varlink@$ns.socket systemd-journald-audit@$ns.socket 2>/dev/null; rm -rf /run/systemd/system/systemd-journald@$ns.service.d /run/cdt-far /var/log/journal/$other /var/log/journal/*.$ns /run/log/journal/*.$ns; [ $made_var = 0 ] || rm -rf /var/log/journal; systemctl daemon-reload"
systemctl daemon-reload
cat > /run/cdt-far/entry <<E
MESSAGE=Process 4242 (faraway) of user 0 dumped core.
MESSAGE_ID=$MSGID
COREDUMP_PID=4242
COREDUMP_UID=0
COREDUMP_GID=0
COREDUMP_SIGNAL=11
COREDUMP_TIMESTAMP=$(date +%s%6N)
COREDUMP_COMM=faraway
COREDUMP_EXE=/usr/bin/faraway
COREDUMP_HOSTNAME=far
COREDUMP_FILENAME=$local_core
COREDUMPD_ACTION=kernel
COREDUMPD_RESULT=stored
E
systemd-run --quiet --wait -p LogNamespace=$ns -p Type=oneshot logger --journald=/run/cdt-far/entry ||
	die "logger in log namespace $ns failed"
jpid=$(systemctl show -P MainPID systemd-journald@$ns.service)
[ "$(cat /proc/$jpid/root/etc/machine-id 2>&1)" = "$other" ] || die "journald@$ns does not see machine id $other"
systemctl stop systemd-journald@$ns.service
# (Its directory is named by systemd, LogsDirectory=journal/%m.%i: this machine's id; the entries
# carry journald's own, the other.)
f=$(ls /var/log/journal/*.$ns/*.journal /run/log/journal/*.$ns/*.journal 2>/dev/null | head -n1)
[ -n "$f" ] || die "journald for namespace $ns wrote no file: $(ls -R /var/log/journal /run/log/journal 2>&1 | head -20)"
journalctl --file="$f" -o export MESSAGE_ID=$MSGID | grep -qx "_MACHINE_ID=$other" ||
	die "the entry in $f is not of machine $other"
# Where another machine's files are read from: its machine-id directory.
mkdir -p /var/log/journal/$other
mv "$f" /var/log/journal/$other/system.journal

# Without --all: this machine's files only, for both.
dumpctl --no-pager list faraway > "$WORK/local.out" 2>&1 && die "dumpctl lists another machine's crash without --all: $(cat "$WORK/local.out")"
coredumpctl --no-pager list faraway > /dev/null 2>&1 && die "coredumpctl lists it without --all (the premise is wrong)"

# With --all: both list it; its core is the other machine's.
coredumpctl --no-pager --all list faraway > "$WORK/cdctl.out" 2>&1 || die "coredumpctl --all does not list it: $(cat "$WORK/cdctl.out")"
dumpctl --no-pager --all --json=short list faraway > "$WORK/all.out" 2>&1 || die "dumpctl --all does not list it: $(cat "$WORK/all.out")"
cat "$WORK/all.out"
grep -q '"corefile":"remote"' "$WORK/all.out" || die "dumpctl --all does not call the other machine's core remote"
dumpctl --no-pager --all list "$PID" > /dev/null 2>&1 || die "dumpctl --all lost this machine's crash $PID"
dumpctl --all -o "$WORK/far.core" dump faraway > "$WORK/dump.out" 2>&1
rc=$?
cat "$WORK/dump.out"
[ $rc = 4 ] || die "dumpctl --all dump of another machine's crash exited $rc, not 4"
grep -q 'on the machine that recorded it (far' "$WORK/dump.out" || die "dump does not say where the core is"
[ ! -s "$WORK/far.core" ] || die "dump handed out this host's $local_core for another machine's record"
dumpctl --all list --file=/dev/null > /dev/null 2>&1
[ $? = 2 ] || die "--all with --file= is not a usage error"
exit 0
