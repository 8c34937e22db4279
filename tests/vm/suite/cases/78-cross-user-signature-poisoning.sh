# Attack: a user crashes their copy of a program root runs, at the same site, until its signature
# is over the rate limit, so that root's real crash there within the hour would be a "repeat" and
# get no core. Repeat counters are per owner: the user's own crashes become repeats, and root's count
# at the same site (the same signature) moves by root's crashes alone (earlier cases may have crashed
# there as root: the case compares root's count before and after the user's burst). Then the same
# from a container root made (a user namespace root owns, as systemd-nspawn -U makes one): its
# crashes count as its own tenant (COREDUMPD_TENANT=0:INODE), never as root's (issue 38: they did).
. /usr/lib/coredumpd-tests/lib.sh
need_daemon
user=cdtsig
del_user "$user"
useradd -m "$user" || die "useradd failed"
on_exit "del_user $user"
uid=$(id -u "$user")
as_user() { setpriv --reuid="$uid" --regid="$(id -g "$user")" --init-groups env HOME=/home/$user "$@"; }
add_policy test-signature-owner <<'P'
[Rule]
Name=signature-owner
MatchComm=poisoner
Action=kernel
RateLimitBurst=1
OnRepeat=reject
P
# (A burst of 1: the user's second crash at the site is over the limit, as a fourth was over one of 2.)
chmod 0755 "$WORK"
journal_mark
crash uscrash -n poisoner -c wild
e=$(wait_entry "$PID" 60) || die "root's first crash was not recorded"
before=$(field COREDUMPD_REPEAT "$e")
say "root's crash before: repeat $before, signature $(field COREDUMPD_SIGNATURE "$e")"
sig=
for i in 1 2; do
	as_user "$BIN/spawn" -t 120 -- "$BIN/uscrash" -n poisoner -c wild > "$WORK/spawn.out" || die "the user's crash $i did not end"
	read_spawn_line "$(head -n1 "$WORK/spawn.out")"
	e=$(wait_entry "$PID" 60) || die "the user's crash $i was not recorded"
	sig=$(field COREDUMPD_SIGNATURE "$e")
	say "user crash $i: repeat $(field COREDUMPD_REPEAT "$e"), result $(field COREDUMPD_RESULT "$e"), signature $sig"
done
[ "$(field COREDUMPD_RESULT "$e")" = rejected ] || die "the user's 2nd crash at one site is no repeat"
crash uscrash -n poisoner -c wild
e=$(wait_entry "$PID" 60) || die "root's crash was not recorded"
say "root's crash: repeat $(field COREDUMPD_REPEAT "$e"), result $(field COREDUMPD_RESULT "$e"), signature $(field COREDUMPD_SIGNATURE "$e")"
[ "$(field COREDUMPD_SIGNATURE "$e")" = "$sig" ] || die "root's crash has another signature: the case shows nothing"
[ "$(field COREDUMPD_REPEAT "$e")" = $((before + 1)) ] ||
	die "root's crash is repeat $(field COREDUMPD_REPEAT "$e"), not $((before + 1)): the user's crashes were counted as root's"

before=$(field COREDUMPD_REPEAT "$e")
for i in 1 2; do
	"$BIN/spawn" -t 120 -- "$(command -v unshare)" --user --map-root-user "$BIN/uscrash" -n poisoner -c wild > "$WORK/spawn.out" ||
		die "the container's crash $i did not end"
	read_spawn_line "$(head -n1 "$WORK/spawn.out")"
	e=$(wait_entry "$PID" 60) || die "the container's crash $i was not recorded"
	tenant=$(field COREDUMPD_TENANT "$e")
	say "container crash $i: repeat $(field COREDUMPD_REPEAT "$e"), result $(field COREDUMPD_RESULT "$e"), tenant $tenant, signature $(field COREDUMPD_SIGNATURE "$e")"
	case "$tenant" in 0:[0-9]*) ;; *) die "the container's crash counts as tenant '$tenant', not its user namespace" ;; esac
done
[ "$(field COREDUMPD_RESULT "$e")" = rejected ] || die "the container's 2nd crash at one site is no repeat"
crash uscrash -n poisoner -c wild
e=$(wait_entry "$PID" 60) || die "root's crash after the container's was not recorded"
say "root's crash: repeat $(field COREDUMPD_REPEAT "$e"), result $(field COREDUMPD_RESULT "$e"), tenant $(field COREDUMPD_TENANT "$e")"
[ "$(field COREDUMPD_SIGNATURE "$e")" = "$sig" ] || die "root's crash has another signature: the case shows nothing"
[ "$(field COREDUMPD_TENANT "$e")" = 0 ] || die "root's crash counts as tenant $(field COREDUMPD_TENANT "$e")"
[ "$(field COREDUMPD_REPEAT "$e")" = $((before + 1)) ] ||
	die "root's crash is repeat $(field COREDUMPD_REPEAT "$e"), not $((before + 1)): the container's crashes were counted as root's"
