# The package's autopkgtests (debian/tests/control, installed in the image by mkosi.build) run on
# the installed package as autopkgtest runs them: each test of the control file, as root with
# needs-root and as an unprivileged user without it, with $AUTOPKGTEST_TMP; output on stderr fails
# a test without allow-stderr; exit status 77 is a skip only with skippable. What must hold: the
# control file names a script for every test and only dependencies the image has; no test fails;
# on a kernel with the coredump socket no test skips (crash-stored must store a crash), on one
# without it only skippable ones may. The host is told what each test gave (# report:).
# daemon-only
. /usr/lib/coredumpd-tests/lib.sh
dir=$T/debian-tests
[ -f "$dir/control" ] || die "no debian/tests in the image ($dir/control)"
dpkg -s coredumpd > /dev/null 2>&1 || skip "coredumpd is not installed as a Debian package in this image"

# The control file's paragraphs, one line each: "TESTS|DEPENDS|RESTRICTIONS" (continuation lines
# joined, comments dropped).
awk '
	function flush() { if (t != "") print t "|" d "|" r; t = d = r = ""; last = "" }
	/^#/ { next }
	/^[ \t]*$/ { flush(); next }
	/^[ \t]/ { v = $0; sub(/^[ \t]+/, " ", v)
		if (last == "t") t = t v; else if (last == "d") d = d v; else if (last == "r") r = r v; next }
	{ k = tolower($0); sub(/:.*/, "", k); v = $0; sub(/^[^:]*:[ \t]*/, "", v); last = ""
	  if (k == "tests") { t = v; last = "t" } else if (k == "depends") { d = v; last = "d" }
	  else if (k == "restrictions") { r = v; last = "r" }
	  else if (k == "test-command") { print "FAIL: Test-Command is not supported here"; exit 1 } }
	END { flush() }' "$dir/control" > "$WORK/paragraphs" || die "$(cat "$WORK/paragraphs")"
[ -s "$WORK/paragraphs" ] || die "no test in $dir/control"

add_user adt
chmod 0755 "$WORK"
socket_kernel=0
"$(daemon_path | xargs dirname)/coredumpd-register" check 2>/dev/null && socket_kernel=1

results= failed= ran=0
while IFS='|' read -r tests depends restrictions; do
	# Every dependency but @ (the package itself) must be in the image, which is the testbed.
	for dep in $(tr ',' '\n' <<<"$depends" | sed -E 's/\(.*\)//; s/\[.*\]//; s/\|.*//; s/[[:space:]]//g'); do
		[ "$dep" = @ ] && continue
		dpkg -s "$dep" > /dev/null 2>&1 || die "debian/tests/control: test(s)$tests depend on $dep, which the image lacks"
	done
	restr=" $(tr ',' ' ' <<<"$restrictions" | tr -s ' ') "
	for t in $(tr ',' ' ' <<<"$tests"); do
		[ -x "$dir/$t" ] || die "debian/tests/control names $t, but $dir/$t is missing or not executable"
		tmp=$(mktemp -d "$WORK/tmp.$t.XXXXXX")
		out=$WORK/out.$t err=$WORK/err.$t
		rc=0
		if [[ $restr == *" needs-root "* ]]; then
			(cd "$tmp" && AUTOPKGTEST_TMP=$tmp ADTTMP=$tmp "$dir/$t") > "$out" 2> "$err" || rc=$?
		else
			chown adt: "$tmp"
			(cd "$tmp" && as_user adt env AUTOPKGTEST_TMP="$tmp" ADTTMP="$tmp" "$dir/$t") > "$out" 2> "$err" || rc=$?
		fi
		ran=$((ran + 1))
		verdict=pass
		if [ "$rc" = 77 ] && [[ $restr == *" skippable "* ]]; then
			verdict=skip
		elif [ "$rc" != 0 ]; then
			verdict="fail (exit status $rc)"
		elif [ -s "$err" ] && [[ $restr != *" allow-stderr "* ]]; then
			verdict="fail (stderr without allow-stderr)"
		fi
		say "--- $t [$restrictions]: $verdict"
		sed 's/^/    /' "$out" "$err" | tail -n 30
		results+="${results:+, }$t $verdict"
		case $verdict in
		fail*) failed+=" $t" ;;
		skip) [ "$socket_kernel" = 0 ] || failed+=" $t(skipped on a kernel with the socket)" ;;
		esac
	done
done < "$WORK/paragraphs"
say "# report: autopkgtest on $(uname -r): $results"
[ "$ran" -gt 0 ] || die "no test ran"
[ -z "$failed" ] || die "autopkgtests failed:$failed"
