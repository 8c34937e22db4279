# Action=userspace: coredumpd writes its own core (UserspaceDump=stacks, the default) while the
# kernel holds the task. gdb loads it with the binary, the backtrace names the crashing function
# and its caller, and the crashing thread's rip/rsp in gdb are the crash-context probe's values
# (COREDUMPD_PROBE_RIP/RSP in the journal entry).
. /usr/lib/coredumpd-tests/lib.sh
need_daemon
daemon_warm     # the probe must be attached before the crash
add_policy test-uscrash-own-core <<'P'
[Rule]
Name=uscrash-own-core
MatchExe=*/uscrash
Action=userspace
P
journal_mark
crash uscrash -c wild
cat "$WORK/spawn.out"
[ "$SIGNAL" = 11 ] || die "uscrash died of signal $SIGNAL"
[ "$CORE" = 1 ] || die "parent did not see WCOREDUMP under Action=userspace"
e=$(wait_entry "$PID" 60) || die "no journal entry for pid $PID"
cat "$e"
[ "$(field COREDUMPD_ACTION "$e")" = userspace ] || die "COREDUMPD_ACTION is '$(field COREDUMPD_ACTION "$e")'"
[ "$(field COREDUMPD_RESULT "$e")" = stored ] || die "COREDUMPD_RESULT is '$(field COREDUMPD_RESULT "$e")'"
[ "$(field COREDUMPD_USERSPACE_MODE "$e")" = stacks ] || die "COREDUMPD_USERSPACE_MODE is '$(field COREDUMPD_USERSPACE_MODE "$e")'"
[ "$(field COREDUMPD_PROBE "$e")" = yes ] || die "the crash-context probe did not see the crash (COREDUMPD_PROBE='$(field COREDUMPD_PROBE "$e")')"
[ "$(field COREDUMPD_FAULT_ADDRESS "$e")" = 0x1000000 ] || die "COREDUMPD_FAULT_ADDRESS is '$(field COREDUMPD_FAULT_ADDRESS "$e")'"
rip=$(field COREDUMPD_PROBE_RIP "$e")
rsp=$(field COREDUMPD_PROBE_RSP "$e")
[ -n "$rip" ] && [ -n "$rsp" ] || die "no COREDUMPD_PROBE_RIP/RSP"
f=$(field COREDUMP_FILENAME "$e")
[ -n "$f" ] && [ -f "$f" ] || die "no stored dump (COREDUMP_FILENAME='$f'); store: $(store_files)"
core=$(plain_core "$f") || die "cannot decompress $f"
say "core: $(stat -c %s "$core") bytes"
gdb -nx -batch -ex bt -ex 'info registers rip rsp' "$BIN/uscrash" "$core" > "$WORK/gdb" 2>&1
cat "$WORK/gdb"
grep -q 'in crash_here\|^#0 *crash_here' "$WORK/gdb" || die "backtrace does not name crash_here"
grep -q 'crash_caller' "$WORK/gdb" || die "backtrace does not name crash_caller"
grep -qE "^rip +$rip( |$)" "$WORK/gdb" || die "gdb's rip is not the probe's $rip"
grep -qE "^rsp +$rsp( |$)" "$WORK/gdb" || die "gdb's rsp is not the probe's $rsp"
