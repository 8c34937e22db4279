# Editing the policy and sending SIGHUP changes what happens to the next crash.
# daemon-only
. /usr/lib/coredumpd-tests/lib.sh
need_daemon
journal_mark
crash crasher-hup
e=$(wait_entry "$PID" 60) || die "first crash not recorded"
[ "$(field COREDUMPD_ACTION "$e")" = kernel ] || die "first crash: action '$(field COREDUMPD_ACTION "$e")', expected kernel"
pid1=$(systemctl show -p MainPID --value coredumpd.service)
[ "${pid1:-0}" != 0 ] || die "coredumpd is not running after the first crash"
mkdir -p "$POLICY_DIR"
printf '[Rule]\nName=hup-reject\nMatchExe=*/crasher-hup\nAction=reject\n' > "$POLICY_DIR/test-hup.conf"
on_exit "rm -f '$POLICY_DIR/test-hup.conf'"
reload_policy
crash crasher-hup
[ "$CORE" = 0 ] || die "after SIGHUP the new reject rule did not apply"
e=$(wait_entry "$PID" 30) || die "second crash not recorded"
[ "$(field COREDUMPD_ACTION "$e")" = reject ] || die "second crash: action '$(field COREDUMPD_ACTION "$e")'"
pid2=$(systemctl show -p MainPID --value coredumpd.service)
[ "$pid2" = "$pid1" ] || die "coredumpd was restarted ($pid1 -> $pid2): the reload was not what applied the rule"
rm -f "$POLICY_DIR/test-hup.conf"
reload_policy
crash crasher-hup
[ "$CORE" = 1 ] || die "after removing the rule and SIGHUP crashes are still rejected"
