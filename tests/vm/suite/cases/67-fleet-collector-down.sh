# only-when-named
# Fleet machine B, first (tests/run-all's fleet step boots it with the collector down): a crash at
# the site machine A shares, then an upload that fails — the forward's far end is closed — and
# saves no cursor. The host starts the collector when it reads this case's result line.
# case-timeout: 300
. /usr/lib/coredumpd-tests/lib.sh
fleet_machine_up
fleet_crash shared crasher
rm -f "$FLEET_STATE"
fleet_upload && die "the upload succeeded while the collector is down: $(cat "$WORK/upload.out")"
say "upload while the collector is down: exit status $?; $(tail -n 1 "$WORK/upload.out")"
[ ! -s "$FLEET_STATE" ] || die "journal-upload saved a cursor though nothing was taken: $(cat "$FLEET_STATE")"
say "# report: fleet-machine $(cat /etc/machine-id) $(uname -r)"
exit 0
