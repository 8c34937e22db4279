# A program run from /var/tmp — where CI jobs and developers run their builds — is symbolized like
# any other. The unit's PrivateTmp= gives the daemon a /var/tmp of its own, so a file re-opened there
# by name is not found: such crashes had "n/a" frames and no build-id. The parser opens every mapped
# file in the crashed task's own root (its mount namespace), by the name its maps give, following no
# symlink and taking only the mapped inode.
. /usr/lib/coredumpd-tests/lib.sh
need_daemon
dir=$(mktemp -d /var/tmp/cdt-build.XXXXXX)
chmod 0755 "$dir" # a build directory as mkdir makes it: root's crash is parsed as nobody, who must get in
on_exit "rm -rf $dir"
cp "$BIN/crasher" "$dir/crasher"
journal_mark
"$BIN/spawn" -t 120 -- "$dir/crasher" > "$WORK/spawn.out" || die "the crasher did not end"
read_spawn_line "$(head -n1 "$WORK/spawn.out")"
e=$(wait_entry "$PID" 60) || die "no journal entry for pid $PID"
[ "$(field COREDUMPD_RESULT "$e")" = stored ] || die "result '$(field COREDUMPD_RESULT "$e")', not stored"
say "--- COREDUMPD_FRAME:"
sed -n 's/^COREDUMPD_FRAME=//p' "$e" | tee "$WORK/frames"
# "N BUILDID+OFF SYMBOL+0xOFF MODULE": frame 0 is crash_here in our copy, with its build-id.
read -r n bid sym module < <(awk '$1 == 0' "$WORK/frames")
[ "${n:-}" = 0 ] || die "no frame 0"
case $sym in crash_here+0x*) ;; *) die "frame 0 is '$sym', not crash_here" ;; esac
case $bid in -*|'') die "frame 0 has no build-id ('$bid')" ;; esac
[ "$module" = "$dir/crasher" ] || die "frame 0's module is '$module', not $dir/crasher"
want=$(readelf -n "$dir/crasher" 2>/dev/null | sed -n 's/.*Build ID: //p')
[ -z "$want" ] || [ "${bid%%+*}" = "$want" ] || die "frame 0's build-id ${bid%%+*} is not the binary's $want"
say "# report: var-tmp-binary: frame 0 $sym in $module (build-id ${bid%%+*})"
