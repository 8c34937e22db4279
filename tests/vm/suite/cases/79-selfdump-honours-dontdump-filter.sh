# A crasher that marked memory MADV_DONTDUMP and set /proc/self/coredump_filter, under
# Action=userspace (UserspaceDump=all-writable): the core coredumpd makes itself must honour both
# as the kernel's vma_dump_size() does. Must hold: the MADV_DONTDUMP secret is in no core; memory
# the filter keeps (anonymous private) is in the core; a file mapped private and only read is left
# out while the filter lacks bit 2 (file private) and kept once it has it; what is left out is still
# a PT_LOAD with p_filesz 0, as the kernel writes it; and the kernel's own core of the same program
# under the same filter agrees on which of these segments have bytes (each byte of ours is one of
# the kernel's too).
. /usr/lib/coredumpd-tests/lib.sh
need_daemon
daemon_warm
add_policy test-filtercrash <<'P'
[Rule]
Name=filtercrash-userspace
MatchComm=fc-self
Action=userspace
UserspaceDump=all-writable
P

SIZE=0x10000
mkdir -p "$WORK/files"
printf 'FILEPRIV-MARK---%.0s' $(seq 4096) > "$WORK/files/private"
printf 'FILESHARED-MARK-%.0s' $(seq 4096) > "$WORK/files/shared"
[ "$(stat -c %s "$WORK/files/private")" = 65536 ] || die "the private file is $(stat -c %s "$WORK/files/private") bytes"
SETARCH=$(command -v setarch) || skip "no setarch in the image"

# filtercrash COMM FILTER — crashes it; sets E (its entry), C (its plain core), and S A P F.
run_crash() {
	local addrs=$WORK/addrs.$1.$2 f
	journal_mark
	# Without address randomisation: both cores of one filter have the same layout.
	"$BIN/spawn" -t 120 -- "$SETARCH" x86_64 -R "$BIN/filtercrash" "$1" "$2" "$addrs" \
		"$WORK/files/private" "$WORK/files/shared" > "$WORK/spawn.out" || die "filtercrash did not end"
	read_spawn_line "$(head -n1 "$WORK/spawn.out")"
	cat "$WORK/spawn.out"
	[ "$SIGNAL" = 11 ] || die "filtercrash $1 $2 died of signal '$SIGNAL'"
	[ -s "$addrs" ] || die "filtercrash $1 $2 wrote no addresses"
	read -r S A P F < "$addrs"
	S=${S#S=} A=${A#A=} P=${P#P=} F=${F#F=}
	E=$(wait_entry "$PID" 90) || die "no record of filtercrash $1 ($PID)"
	[ "$(field COREDUMPD_RESULT "$E")" = stored ] || die "filtercrash $1 not stored: $(field COREDUMPD_RESULT "$E") $(field COREDUMPD_ERROR "$E")"
	f=$(field COREDUMP_FILENAME "$E")
	[ -n "$f" ] && [ -f "$f" ] || die "no stored core for filtercrash $1 ('$f')"
	C=$WORK/core.$1.$2
	cp "$(plain_core "$f")" "$C" || die "cannot decompress $f"
	"$BIN/coresegs" "$C" > "$C.segs" || die "coresegs cannot read the core of filtercrash $1"
	say "filtercrash $1 filter $2: S=$S A=$A P=$P F=$F; core $(stat -c %s "$C") bytes, $(wc -l < "$C.segs") PT_LOADs"
}
has() { grep -aqF "$2" "$1"; }
# seg CORE ADDR — "FILESZ MEMSZ" of the PT_LOAD starting at ADDR, or nothing.
seg() { awk -v a="$2" '$1 == a { print $2, $3; exit }' "$1.segs"; }
# bytes_at CORE ADDR [SIZE] — whether a PT_LOAD has bytes (p_filesz) for [ADDR, ADDR + SIZE).
bytes_at() {
	local a=$(( $2 )) n=$(( ${3:-1} )) v fs ms
	while read -r v fs ms; do
		(( a >= v && a + n <= v + fs )) && return 0
	done < "$1.segs"
	return 1
}

# 1. ours, filter 0x1b: anonymous private + shared, file shared, ELF headers; no file private.
run_crash fc-self 0x1b
[ "$(field COREDUMPD_ACTION "$E")" = userspace ] || die "the rule did not apply: action '$(field COREDUMPD_ACTION "$E")'"
self=$C
has "$self" DONTDUMP-SECRET- && die "our core holds the MADV_DONTDUMP secret"
has "$self" ANONPRIV-KEPT--- || die "our core lacks the anonymous private memory the filter keeps"
has "$self" FILEPRIV-MARK--- && die "our core holds the file mapped private though the filter lacks bit 2"
[ "$(seg "$self" "$S")" = "0x0 $SIZE" ] || die "our core's segment at S ($S) is '$(seg "$self" "$S")', not p_filesz 0 p_memsz $SIZE"
[ "$(seg "$self" "$P")" = "0x0 $SIZE" ] || die "our core's segment at P ($P) is '$(seg "$self" "$P")', not p_filesz 0 p_memsz $SIZE"
bytes_at "$self" "$A" || die "our core has no bytes at A ($A)"
gdb -nx -batch -ex "x/4xb $S" -ex "x/4xb $A" "$BIN/filtercrash" "$self" > "$WORK/gdb" 2>&1
cat "$WORK/gdb"
grep -qiE '0x44[[:space:]]+0x4f[[:space:]]+0x4e[[:space:]]+0x54' "$WORK/gdb" && die "gdb reads the secret from our core"
grep -qiE '0x41[[:space:]]+0x4e[[:space:]]+0x4f[[:space:]]+0x4e' "$WORK/gdb" || die "gdb does not read A from our core"

# 2. the kernel's, same program, same filter.
run_crash fc-kernel 0x1b
[ "$(field COREDUMPD_ACTION "$E")" = kernel ] || die "the kernel crash was '$(field COREDUMPD_ACTION "$E")'"
kern=$C
has "$kern" DONTDUMP-SECRET- && die "the kernel's core holds the MADV_DONTDUMP secret (the test is wrong)"
has "$kern" ANONPRIV-KEPT--- || die "the kernel's core lacks A"
has "$kern" FILEPRIV-MARK--- && die "the kernel's core holds P though the filter lacks bit 2"
has "$kern" FILESHARED-MARK- || die "the kernel's core lacks F though the filter has bit 3"
[ "$(seg "$kern" "$S")" = "0x0 $SIZE" ] || die "the kernel's segment at S is '$(seg "$kern" "$S")'"
[ "$(seg "$kern" "$P")" = "0x0 $SIZE" ] || die "the kernel's segment at P is '$(seg "$kern" "$P")'"
bytes_at "$kern" "$A" || die "the kernel's core has no bytes at A"
# Same program, same filter, same layout: every range of bytes in ours is one the kernel's holds
# too (ours is a subset: its mode picks, the filter only leaves out), and of the test's mappings
# each core has bytes for the same ones.
[ "$S $A $P $F" = "$(cat "$WORK/addrs.fc-self.0x1b" | sed 's/[SAPF]=//g')" ] ||
	die "the layouts differ without randomisation: $(cat "$WORK/addrs.fc-self.0x1b") vs S=$S A=$A P=$P F=$F"
n=0
while read -r v fs ms; do
	(( fs > 0 )) || continue
	n=$((n + 1))
	bytes_at "$kern" "$v" "$fs" || die "our core has bytes at $v (+$fs) that the kernel's does not: $(cat "$kern.segs")"
done < "$self.segs"
say "our $n ranges with bytes are all in the kernel's core ($(awk '$2 != "0x0"' "$kern.segs" | wc -l) of its $(wc -l < "$kern.segs") segments have bytes)"

# 3. ours, filter 0x1f: file private too.
run_crash fc-self 0x1f
has "$C" DONTDUMP-SECRET- && die "our core (0x1f) holds the MADV_DONTDUMP secret"
has "$C" FILEPRIV-MARK--- || die "our core lacks the file mapped private though the filter has bit 2"
[ "$(seg "$C" "$P")" = "$SIZE $SIZE" ] || die "our core's (0x1f) segment at P is '$(seg "$C" "$P")', not all of it"
[ "$(seg "$C" "$S")" = "0x0 $SIZE" ] || die "our core's (0x1f) segment at S is '$(seg "$C" "$S")'"
say "MADV_DONTDUMP and coredump_filter honoured by our core as by the kernel's"
