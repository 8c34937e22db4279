#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Every dumpctl command line the documentation shows works as written: each "dumpctl ..." line of
the man pages' example blocks (.nf ... .fi) and of the README's indented blocks is run, and
dumpctl must not find it invalid usage (exit status 2: an unknown command or option, an invalid
time or number). It runs against this machine's journal, read only; what it finds does not matter.
dumpctl's SYNOPSIS names every command its --help lists.

Nothing it runs changes the machine: systemctl (reload) and the debugger are stubs on PATH that
only succeed, a core is written into a temporary directory, and vacuum is refused here (a line
that vacuums gets --store= of an empty temporary directory). Placeholders of the pages (PID, SIG)
are given values.

usage: check-examples.py BUILT-MANDIR README DUMPCTL PAGE...
"""
import os
import re
import shlex
import subprocess
import sys
import tempfile

mandir, readme, dumpctl, *pages = sys.argv[1:]
dumpctl = os.path.abspath(dumpctl)
failures = []
PLACEHOLDERS = {'PID': '1234', 'SIG': '0123456789abcdef', 'EXE': '/usr/bin/true'}


def plain(line):
    line = re.sub(r'\\f[BIRP]', '', line)
    line = line.replace('\\-', '-').replace('\\&', '').replace('\\(em', '--').replace('\\e', '\\')
    return line


def command_lines(where, text, in_block):
    """(where, dumpctl command line) for each shell line that runs dumpctl."""
    out = []
    for n, line in enumerate(text.splitlines(), 1):
        if not in_block(line):
            continue
        line = plain(line).strip()
        line = re.sub(r'^\$ ', '', line)
        try:
            words = shlex.split(line, comments=True)
        except ValueError:
            continue
        # The dumpctl command of a shell line: from "dumpctl" to the next ; && || |.
        for i, w in enumerate(words):
            if w == 'dumpctl' and (i == 0 or words[i - 1] in (';', '&&', '||', '|') or words[i - 1].endswith(';')):
                cmd = []
                for x in words[i + 1:]:
                    if x in (';', '&&', '||', '|'):
                        break
                    cmd.append(x.rstrip(';'))
                    if x.endswith(';'):
                        break
                out.append((f"{where}:{n}", cmd))
    return out


examples = []
for page in pages:
    with open(os.path.join(mandir, page)) as f:
        text = f.read()
    state = {'nf': False}

    def in_nf(line, state=state):
        if line.startswith('.nf'):
            state['nf'] = True
            return False
        if line.startswith('.fi'):
            state['nf'] = False
            return False
        return state['nf'] and not line.startswith('.')
    examples += command_lines(page, text, in_nf)
    if page == 'dumpctl.1':
        synopsis = plain(text.split('.SH SYNOPSIS', 1)[1].split('.SH ', 1)[0])
        help_text = subprocess.run([dumpctl, '--help'], capture_output=True, text=True).stdout
        commands = re.findall(r'^  ([a-z]+) ', help_text.split('Commands:', 1)[1].split('\n\n', 1)[0], re.M)
        if not commands:
            failures.append("dumpctl --help lists no commands")
        for c in commands:
            if not re.search(rf'(?<![\w-]){c}(?![\w-])', synopsis):
                failures.append(f"dumpctl.1: SYNOPSIS lacks the command {c}")
with open(readme) as f:
    examples += command_lines('README.md', f.read(), lambda line: line.startswith('    '))

if len(examples) < 10:
    failures.append(f"only {len(examples)} dumpctl command lines found: the extraction is broken")

with tempfile.TemporaryDirectory() as tmp:
    stubs = os.path.join(tmp, 'bin')
    os.mkdir(stubs)
    for name in ('systemctl', 'gdb'):
        with open(os.path.join(stubs, name), 'w') as f:
            f.write('#!/bin/sh\nexit 0\n')
        os.chmod(os.path.join(stubs, name), 0o755)
    store = os.path.join(tmp, 'store')
    os.mkdir(store)
    env = dict(os.environ, PATH=stubs + ':' + os.environ.get('PATH', '/usr/bin:/bin'),
               DUMPCTL_DEBUGGER=os.path.join(stubs, 'gdb'), SYSTEMD_PAGER='cat', NO_COLOR='1',
               DEBUGINFOD_URLS='', HOME=tmp)
    for where, cmd in examples:
        cmd = [re.sub(r'\b(' + '|'.join(PLACEHOLDERS) + r')\b', lambda m: PLACEHOLDERS[m.group(1)], w) for w in cmd]
        if 'vacuum' in cmd:
            cmd = [f'--store={store}'] + cmd
        try:
            r = subprocess.run([dumpctl] + cmd, cwd=tmp, env=env, capture_output=True, text=True,
                               timeout=60, stdin=subprocess.DEVNULL)
        except subprocess.TimeoutExpired:
            failures.append(f"{where}: dumpctl {shlex.join(cmd)}: no end within 60 s")
            continue
        if r.returncode == 2:
            failures.append(f"{where}: dumpctl {shlex.join(cmd)}: invalid usage: {r.stderr.strip()}")
        else:
            print(f"{where}: dumpctl {shlex.join(cmd)}: exit status {r.returncode}")

if failures:
    print('\n'.join(failures))
    sys.exit(1)
print(f"ok - {len(examples)} documented dumpctl command lines are valid usage")
