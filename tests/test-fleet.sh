#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# The fleet set-up the package ships (examples/fleet, coredumpd-fleet(7)) with bookworm's own
# systemd-journal-upload and systemd-journal-remote, on 127.0.0.1 only: two senders' journals
# (machines alpha and beta) reach a collector over HTTPS with the fleet's CA, and dumpctl -D on
# the collector's directory groups their crashes across hosts. The shipped drop-ins are read by
# the daemons themselves: in a private mount namespace an overlay over /etc holds only them (the
# host's /etc is untouched) and a tmpfs over /run holds the credentials, as LoadCredential= would.
# Both daemons run as nobody, bounded by timeout(1); the collector is killed at the end.
#
# Usage: test-fleet.sh SOURCE_ROOT DUMPCTL
set -euo pipefail

src=$1
dumpctl=$2
remote=/lib/systemd/systemd-journal-remote
upload=/lib/systemd/systemd-journal-upload
ex=$src/examples/fleet
MSGID=fc2e22bc6ee647b6b90729ab34a250b1

skip() { echo "skipping: $*"; exit 77; }
fail() { echo "FAIL: $*"; exit 1; }
[ "$(id -u)" = 0 ] || skip "needs root (a private mount namespace with an overlay over /etc)"
for p in "$remote" "$upload" /usr/bin/openssl /usr/bin/unshare /usr/bin/setpriv /usr/bin/python3; do
	[ -x "$p" ] || skip "needs $p"
done

work=$(mktemp -d)
chmod 0755 "$work"
collector=
# The collector is inside.sh's child, not ours: stopped by its pid, waited for by polling.
stop_collector() {
	[ -n "$collector" ] || return 0
	kill "$collector" 2>/dev/null || true
	for _ in $(seq 50); do kill -0 "$collector" 2>/dev/null || break; sleep 0.1; done
	kill -9 "$collector" 2>/dev/null || true
	collector=
}
cleanup() {
	stop_collector
	rm -rf "$work"
}
trap cleanup EXIT

# ---- the sender's coredumpd drop-in: read clean by coredumpd's own loader, JournalCore=system ----
printf '[Coredump]\n' > "$work/coredumpd.conf"
mkdir "$work/no-policy"
checked=$("$dumpctl" check --config="$work/coredumpd.conf" --config-dir="$ex/sender/coredumpd.conf.d" \
	--policy-dir="$work/no-policy" 2>&1) || fail "dumpctl check of the sender's coredumpd drop-in: $checked"
grep -qx 'JournalCore=system' <<<"$checked" || fail "the sender's drop-in does not set JournalCore=system: $checked"
rmdir "$work/no-policy"
rm "$work/coredumpd.conf"

# ---- the fleet's CA, the collector's certificate (naming 127.0.0.1), one client certificate per
# sender, and a CA that is not the fleet's (coredumpd-fleet(7), CERTIFICATES) ----
pki=$work/pki
mkdir "$pki"
ossl() { openssl "$@" >/dev/null 2>&1 || fail "openssl $*"; }
ossl req -newkey rsa:2048 -nodes -x509 -days 2 -subj /CN=fleet-ca/ -keyout "$pki/ca.key" -out "$pki/ca.pem"
ossl req -newkey rsa:2048 -nodes -x509 -days 2 -subj /CN=other-ca/ -keyout "$pki/other-ca.key" -out "$pki/other-ca.pem"
printf 'subjectAltName=IP:127.0.0.1\n' >"$pki/collector.ext"
for name in collector alpha beta; do
	ossl req -newkey rsa:2048 -nodes -subj "/CN=$name/" -keyout "$pki/$name.key" -out "$pki/$name.csr"
	ext=()
	[ "$name" = collector ] && ext=(-extfile "$pki/collector.ext")
	ossl x509 -req -in "$pki/$name.csr" -CA "$pki/ca.pem" -CAkey "$pki/ca.key" -CAcreateserial -days 2 \
		-out "$pki/$name.pem" "${ext[@]}"
done

# ---- each sender's journal: crash records as coredumpd writes them, and an ordinary log line ----
now=$(date +%s%6N)
# machine host signature pid [offset]
record() {
	printf '__REALTIME_TIMESTAMP=%s\n__MONOTONIC_TIMESTAMP=%s\n_BOOT_ID=%s\n_MACHINE_ID=%s\n_HOSTNAME=%s\n_UID=0\n' \
		$((now + $5)) $((1000 + $5)) "${1:0:30}bb" "$1" "$2"
	printf 'MESSAGE_ID=%s\nMESSAGE=Process %s (svc) of user 0 dumped core.\nCOREDUMPD_ACTION=reject\n' "$MSGID" "$4"
	printf 'COREDUMP_PID=%s\nCOREDUMP_UID=0\nCOREDUMP_COMM=svc\nCOREDUMP_EXE=/usr/bin/svc\nCOREDUMP_HOSTNAME=%s\n' "$4" "$2"
	printf 'COREDUMPD_SIGNATURE=%s\nCOREDUMP_FILENAME=/etc/shadow\n\n' "$3"
}
other() {
	printf '__REALTIME_TIMESTAMP=%s\n__MONOTONIC_TIMESTAMP=%s\n_BOOT_ID=%s\n_MACHINE_ID=%s\n_HOSTNAME=%s\n_UID=0\nMESSAGE=not a crash\n\n' \
		$((now + $3)) $((1000 + $3)) "${1:0:30}bb" "$1" "$2"
}
A=11111111111111111111111111111111
B=22222222222222222222222222222222
mkdir "$work/alpha" "$work/beta" "$work/remote" "$work/store" "$work/state"
{ record $A alpha aaaaaaaaaaaaaaaa 101 1; other $A alpha 2; record $A alpha bbbbbbbbbbbbbbbb 102 3
  record $A alpha aaaaaaaaaaaaaaaa 103 4; } >"$work/alpha.export"
{ other $B beta 5; record $B beta aaaaaaaaaaaaaaaa 201 6; } >"$work/beta.export"
for h in alpha beta; do
	"$remote" --output="$work/$h/system.journal" "$work/$h.export" >/dev/null 2>&1 || fail "journal of $h"
done
chown -R nobody "$work/remote" "$work/state"
chmod -R a+rX "$work/alpha" "$work/beta"

port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
url=https://127.0.0.1:$port

# ---- in a private mount namespace: the shipped drop-ins in /etc, credentials in /run ----
cat >"$work/inside.sh" <<'EOF'
set -euo pipefail
work=$1 ex=$2
mkdir -p "$work/ovl/upper" "$work/ovl/work"
mount -t overlay overlay -o "lowerdir=/etc,upperdir=$work/ovl/upper,workdir=$work/ovl/work" /etc
mount -t tmpfs -o mode=0755 tmpfs /run
# Only what the package ships: no other journal-upload/-remote configuration of this host.
rm -rf /etc/systemd/journal-upload.conf.d /etc/systemd/journal-remote.conf.d
: >/etc/systemd/journal-upload.conf
: >/etc/systemd/journal-remote.conf
mkdir -p /etc/systemd/journal-upload.conf.d /etc/systemd/journal-remote.conf.d /etc/coredumpd/fleet
cp "$ex/sender/journal-upload.conf.d/"*.conf /etc/systemd/journal-upload.conf.d/
# The operator's one edit: the collector's URL. (252 refuses --url= beside a URL= of the
# configuration: "cannot use more than one --url".)
grep -q '^URL=https://' /etc/systemd/journal-upload.conf.d/*.conf
sed -i "s|^URL=.*|URL=$url|" /etc/systemd/journal-upload.conf.d/*.conf
cp "$ex/collector/journal-remote.conf.d/"*.conf /etc/systemd/journal-remote.conf.d/
# LoadCredential=NAME:SOURCE of a shipped service drop-in, as systemd does it: SOURCE copied to
# /run/credentials/UNIT/NAME, the service user's own (here nobody), 0400.
credentials() { # unit drop-in
	install -d -m 0755 "/run/credentials/$1"
	sed -n 's/^LoadCredential=\([^:]*\):\(.*\)$/\1 \2/p' "$2" | while read -r name source; do
		install -m 0400 -o nobody "$source" "/run/credentials/$1/$name"
	done
}
nobody() { setpriv --reuid=nobody --regid=nogroup --clear-groups "$@"; }
# sender HOST [CA]: the fleet's files of HOST in /etc/coredumpd/fleet (CA: another one), then
# its upload of its journal with the stock unit's --save-state.
sender() {
	install -m 0600 "$work/pki/${2:-ca}.pem" /etc/coredumpd/fleet/ca.pem
	install -m 0600 "$work/pki/$1.pem" /etc/coredumpd/fleet/upload.pem
	install -m 0600 "$work/pki/$1.key" /etc/coredumpd/fleet/upload.key
	rm -rf /run/credentials/systemd-journal-upload.service
	credentials systemd-journal-upload.service "$ex/sender/systemd-journal-upload.service.d/"*.conf
	nobody timeout 30 /lib/systemd/systemd-journal-upload --save-state="$work/state/$1" \
		--file="$work/$1/system.journal" --follow=no
}
install -m 0600 "$work/pki/collector.pem" "$work/pki/collector.key" /etc/coredumpd/fleet/
credentials systemd-journal-remote.service "$ex/collector/systemd-journal-remote.service.d/"*.conf

echo "== the collector is not there yet: the upload fails, says why, keeps no cursor"
if sender alpha 2>"$work/err"; then cat "$work/err"; echo "FAIL: upload without a collector succeeded"; exit 1; fi
cat "$work/err"
grep -q "Upload to $url/upload failed" "$work/err" || { echo "FAIL: no error naming the URL"; exit 1; }
[ ! -e "$work/state/alpha" ] || { echo "FAIL: a cursor was saved"; exit 1; }

echo "== the collector: the stock command line (--output=DIR), HTTPS on 127.0.0.1"
# setpriv execs timeout(1), which passes the outer script's SIGTERM on: $! is the collector's timeout.
setpriv --reuid=nobody --regid=nogroup --clear-groups timeout 120 /lib/systemd/systemd-journal-remote \
	--listen-https="127.0.0.1:$port" --output="$work/remote/" 2>"$work/collector.log" &
echo $! >"$work/collector.pid"
for _ in $(seq 100); do
	python3 -c 'import socket, sys; socket.create_connection(("127.0.0.1", int(sys.argv[1])), 1)' "$port" 2>/dev/null && break
	sleep 0.1
done

echo "== a sender that does not trust the collector's CA: refused, says why"
if sender alpha other-ca 2>"$work/err"; then cat "$work/err"; echo "FAIL: upload to an untrusted collector"; exit 1; fi
cat "$work/err"
grep -q "SSL certificate problem" "$work/err" || { echo "FAIL: no certificate error"; exit 1; }
[ ! -e "$work/state/alpha" ] || { echo "FAIL: a cursor was saved"; exit 1; }

echo "== both senders, as shipped"
sender alpha
sender beta
grep -q '^LAST_CURSOR=' "$work/state/alpha"
grep -q '^LAST_CURSOR=' "$work/state/beta"
EOF
export url port
status=0
unshare --mount --propagation private bash "$work/inside.sh" "$work" "$ex" || status=$?
[ -s "$work/collector.pid" ] && collector=$(cat "$work/collector.pid")
[ "$status" = 0 ] || fail "the fleet set-up (above)"

# The collector has written what it received before it answered; let it finish and close.
stop_collector
cat "$work/collector.log"
ls -l "$work/remote"
ls "$work/remote"/remote-*.journal >/dev/null || fail "no split-by-host file remote-*.journal"

echo "== on the collector: dumpctl -D"
table=$(COLUMNS=120 "$dumpctl" -D "$work/remote" --store="$work/store" --no-pager groups) || fail "dumpctl groups"
echo "$table"
json=$("$dumpctl" -D "$work/remote" --store="$work/store" groups --json)
echo "$json" | grep -q '{"signature":"aaaaaaaaaaaaaaaa","count":3,"hosts":2,' || fail "group a: 3 crashes on 2 hosts"
echo "$json" | grep -q '{"signature":"bbbbbbbbbbbbbbbb","count":1,"hosts":1,' || fail "group b: 1 crash on 1 host"
echo "$json" | grep -q '"last_host":"beta"' || fail "group a's newest host"
list=$("$dumpctl" -D "$work/remote" --store="$work/store" list --json)
[ "$(echo "$list" | grep -c '"pid":')" = 4 ] || fail "4 crash records listed (not the log lines)"
echo "$list" | grep -q '"present":"remote"' || echo "$list" | grep -q '"present":"none"' || fail "a foreign file named as present"
if echo "$list" | grep -q '"present":"present"'; then fail "another machine's COREDUMP_FILENAME called present"; fi
echo "PASS"
