#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""coredumpd-drkonqi against a stand-in for DrKonqi's launcher socket.

What bookworm's drkonqi-coredump-launcher (DrKonqi 5.27) reads, as coredumpd(8) DESKTOP says: a
SOCK_SEQPACKET connection on /run/user/UID/drkonqi-coredump-launcher (the user's, mode 0600), read
packet by packet until the peer hangs up (a packet longer than its buffer is cut: DrKonqi's
processor writes at most 8192 bytes at a time, and so does the bridge); the bytes are one JSON object, a record's
fields name -> string. Of those it uses COREDUMP_PID, COREDUMP_UID, COREDUMP_EXE, COREDUMP_SIGNAL,
COREDUMP_FILENAME and _SYSTEMD_UNIT, and hands on to DrKonqi (which reads COREDUMP_TIMESTAMP,
COREDUMP_EXE, COREDUMP_SIGNAL, COREDUMP_PROC_MAPS) the whole object.

Usage: test-drkonqi.py PATH-TO-coredumpd-drkonqi [NAME...]
"""
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile

BRIDGE = sys.argv[1]
PACKET_MAX = 8192
SOCKET = 'drkonqi-coredump-launcher'
CRASH_ID = '0123456789abcdef0123456789abcdef-p4242-s987654'
LAUNCHER_FIELDS = ['COREDUMP_PID', 'COREDUMP_UID', 'COREDUMP_EXE', 'COREDUMP_SIGNAL',
                   'COREDUMP_FILENAME', '_SYSTEMD_UNIT', 'COREDUMP_TIMESTAMP', 'COREDUMP_PROC_MAPS']
failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print(f'FAIL: {what}', flush=True)


def fixture(uid, gid, crash_id=CRASH_ID):
    # A record as coredumpd writes it (systemd-coredump's names), with a COREDUMP_PROC_MAPS longer
    # than one packet and values the JSON must escape.
    maps = ''.join(f'7f{i:010x}-7f{i + 1:010x} r-xp 00000000 fe:01 {i} /usr/lib/x86_64-linux-gnu/libQt5Core.so.5.15.8\\n'
                   for i in range(200))
    fields = [
        ('MESSAGE_ID', 'fc2e22bc6ee647b6b90729ab34a250b1'),
        ('MESSAGE', 'Process 4242 (kate) of user %d dumped core.' % uid),
        ('PRIORITY', '2'),
        ('SYSLOG_IDENTIFIER', 'coredumpd'),
        ('_SYSTEMD_UNIT', 'coredumpd.service'),
        ('COREDUMPD_CRASH_ID', crash_id),
        ('COREDUMP_PID', '4242'),
        ('COREDUMP_UID', str(uid)),
        ('COREDUMP_GID', str(gid)),
        ('COREDUMP_SIGNAL', '11'),
        ('COREDUMP_SIGNAL_NAME', 'SIGSEGV'),
        ('COREDUMP_TIMESTAMP', '1765130000123456'),
        ('COREDUMP_EXE', '/usr/bin/kate'),
        ('COREDUMP_COMM', 'kate'),
        ('COREDUMP_CMDLINE', 'kate "a file" \\back\\slash\ttab'),
        ('COREDUMP_FILENAME', '/var/lib/coredumpd/core.kate.%d.0123.4242.1765130000.zst' % uid),
        ('COREDUMP_PROC_MAPS', maps),
    ]
    return fields


def write_record(tmp, fields, extra=b''):
    path = os.path.join(tmp, 'record')
    with open(path, 'wb') as f:
        for name, value in fields:
            f.write(f'{name}={value}\n'.encode())
        f.write(extra)
    return path


def listen(path, owner=None):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    s.bind(path)
    os.chmod(path, 0o600)
    if owner is not None:
        os.chown(path, owner, owner)
    s.listen(4)
    s.settimeout(10)
    return s


def receive(listener, proc):
    """What one connection carries: its packets, the peer's uid."""
    conn, _ = listener.accept()
    conn.settimeout(10)
    creds = conn.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, 12)
    peer_uid = int.from_bytes(creds[4:8], sys.byteorder)
    packets = []
    while True:
        data, _, flags, _ = conn.recvmsg(65536)
        check(not flags & socket.MSG_TRUNC, 'a packet cut')
        if not data:
            break
        packets.append(data)
    conn.close()
    proc.wait(timeout=20)
    return packets, peer_uid


def run(record, runtime, crash_id=CRASH_ID):
    return subprocess.Popen([BRIDGE, f'--record={record}', f'--runtime-dir={runtime}', crash_id],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)


def nothing_connected(listener):
    listener.settimeout(0)
    try:
        listener.accept()
        return False
    except BlockingIOError:
        return True


def setup(uid):
    tmp = tempfile.mkdtemp(prefix='drkonqi-')
    os.chmod(tmp, 0o755)
    runtime = os.path.join(tmp, 'run-user')
    os.mkdir(runtime, 0o755)
    d = os.path.join(runtime, str(uid))
    os.mkdir(d, 0o700)
    if os.getuid() == 0:
        os.chown(d, uid, uid)
    return tmp, runtime, d


def test_record_reaches_launcher(uid, gid):
    """Every field the launcher and DrKonqi read arrives with its value, all in packets of <= 8192
    bytes, as the user whose crash it is."""
    tmp, runtime, d = setup(uid)
    try:
        fields = fixture(uid, gid)
        fields.append(('COREDUMP_HOSTNAME', 'h\xe9st'))      # UTF-8 stays as it is
        rec = write_record(tmp, fields, b'COREDUMP_ROOT=/\xff/x\n' b'COREDUMP=binary core\n')
        listener = listen(os.path.join(d, SOCKET), uid if os.getuid() == 0 else None)
        proc = run(rec, runtime)
        packets, peer = receive(listener, proc)
        check(proc.returncode == 0, f'exit status {proc.returncode}: {proc.stderr.read().decode()}')
        check(len(packets) >= 2, f'a record longer than a packet sent in {len(packets)} packet(s)')
        check(all(len(p) <= PACKET_MAX for p in packets), 'a packet over 8192 bytes')
        check(peer == uid, f'connected as uid {peer}, not the crash\'s user {uid}')
        got = json.loads(b''.join(packets).decode('utf-8'))
        check(isinstance(got, dict), 'not one JSON object')
        want = dict(fields)
        for name in LAUNCHER_FIELDS:
            check(got.get(name) == want[name], f'{name}: {got.get(name)!r:.80} != {want[name]!r:.80}')
        for name, value in want.items():
            check(got.get(name) == value, f'{name} not as recorded')
        check(got.get('COREDUMP_ROOT') == '/\ufffd/x', 'a byte outside UTF-8 not replaced by U+FFFD')
        check('COREDUMP' not in got, 'the binary COREDUMP= sent')
        check(all(isinstance(v, str) for v in got.values()), 'a value that is not a string')
    finally:
        shutil.rmtree(tmp)


def expect_nothing_sent(what, uid, gid, mangle, crash_id=CRASH_ID, status=0):
    tmp, runtime, d = setup(uid)
    try:
        rec = write_record(tmp, fixture(uid, gid))
        listener = listen(os.path.join(d, SOCKET), uid if os.getuid() == 0 else None)
        mangle(tmp, runtime, d)
        proc = run(rec, runtime, crash_id)
        proc.wait(timeout=20)
        check(proc.returncode == status, f'{what}: exit status {proc.returncode}, not {status}')
        check(nothing_connected(listener), f'{what}: the bridge connected')
    finally:
        shutil.rmtree(tmp)


def test_refusals(uid, gid):
    """No session, a symlink for the runtime directory or the socket, another crash's record, a
    directory someone else owns: nothing is sent."""
    def no_session(tmp, runtime, d):
        os.rename(d, d + '.gone')
        os.mkdir(d + '.gone2')

    def dir_symlink(tmp, runtime, d):
        os.rename(d, os.path.join(tmp, 'elsewhere'))
        os.symlink(os.path.join(tmp, 'elsewhere'), d)

    def socket_symlink(tmp, runtime, d):
        os.rename(os.path.join(d, SOCKET), os.path.join(d, 'real'))
        os.symlink(os.path.join(d, 'real'), os.path.join(d, SOCKET))

    expect_nothing_sent('no /run/user/UID', uid, gid, no_session)
    expect_nothing_sent('/run/user/UID a symlink', uid, gid, dir_symlink)
    expect_nothing_sent('the socket a symlink', uid, gid, socket_symlink)
    expect_nothing_sent('another crash\'s record', uid, gid, lambda *a: None,
                        crash_id='0123456789abcdef0123456789abcdef-p4243-s987654', status=1)
    expect_nothing_sent('not a crash id', uid, gid, lambda *a: None, crash_id='../../x', status=1)
    if os.getuid() == 0:
        expect_nothing_sent('the directory another user\'s', uid, gid,
                            lambda tmp, runtime, d: os.chown(d, 12345, 12345))


def test_real_launcher(root):
    """Bookworm's own drkonqi-coredump-launcher (from the drkonqi .deb, extracted under root with
    libQt5Core and what it links, tests/drkonqi-fetch) behind systemd-socket-activate as the
    user's socket unit would run it: it takes the record, finds the crash's KCrash metadata by
    COREDUMP_PID, checks COREDUMP_EXE against it, writes the record into the metadata's [Journal]
    group and starts DrKonqi (a stand-in here, via LIBEXEC_PATH) for the coredumpd backend with
    --pid and --signal."""
    # KCrash's metadata of the crash (as KCrash writes it in ~/.cache/kcrash-metadata/PID.ini); the
    # launcher reads no crash without one as DrKonqi's.
    launcher = os.path.join(root, 'usr/lib/x86_64-linux-gnu/libexec/drkonqi-coredump-launcher')
    activate = shutil.which('systemd-socket-activate')
    if not os.access(launcher, os.X_OK) or not activate:
        print(f'SKIP real launcher: no {launcher} or no systemd-socket-activate')
        return
    uid, gid = os.getuid(), os.getgid()
    tmp, runtime, d = setup(uid)
    try:
        home = os.path.join(tmp, 'home')
        os.makedirs(os.path.join(home, '.cache/kcrash-metadata'))
        exe = shutil.which('true')
        with open(os.path.join(home, '.cache/kcrash-metadata/4242.ini'), 'w') as f:
            f.write(f'[KCrash]\nexe={exe}\nappname=kate\nbugaddress=submit@bugs.kde.org\nsignal=11\npid=4242\n')
        core = os.path.join(tmp, 'core.kate.zst')
        open(core, 'w').close()
        os.mkdir(os.path.join(tmp, 'libexec'))
        ran = os.path.join(tmp, 'drkonqi-ran')
        stand_in = os.path.join(tmp, 'libexec', 'drkonqi')
        with open(stand_in, 'w') as f:
            f.write(f'#!/bin/sh\n{{ echo "$*"; env | grep ^DRKONQI_ | sort; }} > {ran}\n')
        os.chmod(stand_in, 0o755)
        wrapper = os.path.join(tmp, 'launcher.sh')
        with open(wrapper, 'w') as f:
            f.write('#!/bin/sh\n'
                    f'export LD_LIBRARY_PATH={root}/usr/lib/x86_64-linux-gnu HOME={home} '
                    f'XDG_CACHE_HOME={home}/.cache LIBEXEC_PATH={tmp}/libexec QT_QPA_PLATFORM=offscreen\n'
                    f'exec {launcher}\n')
        os.chmod(wrapper, 0o755)
        sock = os.path.join(d, SOCKET)
        act = subprocess.Popen([activate, '--seqpacket', '--accept', '--listen', sock, wrapper],
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        try:
            for _ in range(100):
                if os.path.exists(sock):
                    break
                subprocess.run(['sleep', '0.05'])
            fields = [(k, core if k == 'COREDUMP_FILENAME' else exe if k == 'COREDUMP_EXE' else v)
                      for k, v in fixture(uid, gid)]
            proc = run(write_record(tmp, fields), runtime)
            proc.wait(timeout=20)
            check(proc.returncode == 0, f'real launcher: exit status {proc.returncode}')
            for _ in range(200):
                if os.path.exists(ran) and os.path.getsize(ran) > 0:
                    break
                subprocess.run(['sleep', '0.05'])
        finally:
            act.terminate()
            out = act.communicate(timeout=10)[0].decode(errors='replace')
        check(os.path.exists(ran), f'real launcher: DrKonqi not started; it said: {out}')
        if os.path.exists(ran):
            got = open(ran).read()
            check('--pid 4242 --signal 11' in got, f'real launcher: DrKonqi started with {got!r}')
            check('DRKONQI_BACKEND=COREDUMPD' in got, f'real launcher: not the coredumpd backend: {got!r}')
            meta = open(os.path.join(home, '.cache/kcrash-metadata/4242.ini')).read()
            check('[Journal]' in meta and f'COREDUMPD_CRASH_ID=@ByteArray({CRASH_ID})' in meta,
                  'real launcher: the record not in the metadata\'s [Journal] group')
            print('real launcher: DrKonqi started with', got.splitlines()[0])
    finally:
        shutil.rmtree(tmp)


def main():
    if os.getuid() == 0:
        # As root: the bridge must become the crash's user (nobody here) before it connects.
        tests = [(65534, 65534)]
    else:
        tests = [(os.getuid(), os.getgid())]
    for uid, gid in tests:
        test_record_reaches_launcher(uid, gid)
        test_refusals(uid, gid)
    root = os.environ.get('COREDUMPD_DRKONQI_ROOT')
    if root:
        test_real_launcher(root)
    else:
        print('SKIP real launcher: COREDUMPD_DRKONQI_ROOT not set (tests/drkonqi-fetch DIR makes one)')
    if failures:
        print(f'{len(failures)} failure(s)')
        sys.exit(1)
    print('ok')


main()
