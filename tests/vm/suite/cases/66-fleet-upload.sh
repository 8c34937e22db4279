# only-when-named
# Fleet machine A (tests/run-all's fleet step; booted with tests/vm/run --collector PORT, the
# collector up): one crash at the site both machines share (crasher's crash_here) and one at a
# site of its own (fleetcrash, crasher stripped of its symbols: its debug file is only on the
# collector), uploaded with systemd-journal-upload to the host's systemd-journal-remote. The host
# checks what arrived: each crash once, the groups, the compact cores.
# case-timeout: 300
. /usr/lib/coredumpd-tests/lib.sh
fleet_machine_up
fleet_crash shared crasher
fleet_crash stripped fleetcrash
grep -q '^COREDUMPD_FRAME=0 [0-9a-f]\{40\}+0x[0-9a-f]* -+' "$WORK/entry.$PID" ||
	die "frame 0 of the stripped program is not an unnamed frame with a build-id: $(grep -m1 '^COREDUMPD_FRAME=0' "$WORK/entry.$PID")"
rm -f "$FLEET_STATE"
fleet_upload || die "the upload to $FLEET_URL failed: $(tail -n 5 "$WORK/upload.out")"
[ -n "$(fleet_cursor)" ] || die "journal-upload saved no cursor in $FLEET_STATE"
say "uploaded; cursor $(fleet_cursor)"
say "# report: fleet-machine $(cat /etc/machine-id) $(uname -r)"
exit 0
