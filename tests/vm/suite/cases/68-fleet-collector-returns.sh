# only-when-named
# Fleet machine B, after case fleet-collector-down: journal-upload is tried again until the
# collector is back (the host starts it when that case has reported), which takes the crash made
# while it was down; then another crash, at a site of B's own (crasher's abort), and an upload that
# resumes at the saved cursor. The host checks that every crash arrived exactly once.
# case-timeout: 420
. /usr/lib/coredumpd-tests/lib.sh
fleet_machine_up
tries=1 end=$((SECONDS + 240))
until fleet_upload; do
	[ $SECONDS -lt $end ] || die "the collector did not come back within 240 s: $(tail -n 3 "$WORK/upload.out")"
	tries=$((tries + 1))
	sleep 3
done
first=$(fleet_cursor)
[ -n "$first" ] || die "journal-upload saved no cursor in $FLEET_STATE"
say "uploaded at try $tries; cursor $first"
fleet_crash abort crasher -k 6
fleet_upload || die "the upload after the collector came back failed: $(tail -n 5 "$WORK/upload.out")"
[ -n "$(fleet_cursor)" ] && [ "$(fleet_cursor)" != "$first" ] || die "the second upload did not move the cursor ($(fleet_cursor))"
exit 0
