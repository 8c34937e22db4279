#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""The shell completions and dumpctl agree: every option and command of `dumpctl --help` is completed
by the bash and the zsh file, every field they offer is one of the field table (daemon/shared/fields.c),
both files parse (bash -n; zsh -n where zsh is installed), and the bash completion completes what it
should for a few command lines.

usage: check-completion.py SRCDIR DUMPCTL
"""
import re
import shutil
import subprocess
import sys

srcdir, dumpctl = sys.argv[1:3]
bash_file = f"{srcdir}/shell-completion/bash/dumpctl"
zsh_file = f"{srcdir}/shell-completion/zsh/_dumpctl"
failures = []

help_text = subprocess.run([dumpctl, '--help'], capture_output=True, text=True, check=True).stdout
options = set(re.findall(r'(?<![\w-])(--[a-z][a-z-]*|-[a-zA-Z1])\b', help_text.split('Options:', 1)[1]))
block = help_text.split('Commands:', 1)[1].split('\n\n', 1)[0]
commands = set(re.findall(r'^\s+([a-z]+)\b', block, re.M))
with open(f"{srcdir}/daemon/shared/fields.c") as f:
    table_fields = set(re.findall(r'"(COREDUMPD?_[A-Z_]+)"', f.read()))

for path in (bash_file, zsh_file):
    text = open(path).read()
    words = set(re.findall(r"[\w-]+", text))
    for o in sorted(options):
        if o.lstrip('-') not in words and o not in text:
            failures.append(f"{path}: option {o} is not completed")
    for c in sorted(commands):
        if c not in words:
            failures.append(f"{path}: command {c} is not completed")
    for f in sorted(set(re.findall(r'\bCOREDUMPD?_[A-Z_]+\b', text)) - table_fields):
        failures.append(f"{path}: {f} is not a field of the field table")

r = subprocess.run(['bash', '-n', bash_file], capture_output=True, text=True)
if r.returncode != 0:
    failures.append(f"bash -n {bash_file}: {r.stderr.strip()}")
zsh = shutil.which('zsh')
if zsh:
    r = subprocess.run([zsh, '-n', zsh_file], capture_output=True, text=True)
    if r.returncode != 0:
        failures.append(f"zsh -n {zsh_file}: {r.stderr.strip()}")
else:
    print(f"note: no zsh, {zsh_file} not parsed")

# Command lines as bash splits them (at '=' too), the word completed last; what must be offered.
cases = [
    (['dumpctl', ''], ['list', 'info', 'dump', 'debug', 'gdb', 'report', 'groups', 'policy', 'check', 'reload', 'vacuum',
                    'remove', 'metrics']),
    (['dumpctl', 'me'], ['metrics']),
    (['dumpctl', 'metrics', ''], []),
    (['dumpctl', 'rep'], ['report']),
    (['dumpctl', '--co'], ['--core', '--config=', '--config-dir=']),
    (['dumpctl', 'report', 'COREDUMP_PACKAGE_N'], ['COREDUMP_PACKAGE_NAME=']),
    (['dumpctl', 'ch'], ['check']),
    (['dumpctl', '--al'], ['--all']),
    (['dumpctl', 'reload', ''], []),
    (['dumpctl', 'in'], ['info']),
    (['dumpctl', '--js'], ['--json=']),
    (['dumpctl', '--json', '=', ''], ['short', 'pretty', 'off']),
    (['dumpctl', '--json', '=', 'p'], ['pretty']),
    (['dumpctl', '--json', 'sh'], ['short']),
    (['dumpctl', '--json', 'short', 'li'], ['list']),
    (['dumpctl', '-F', 'COREDUMP_EX'], ['COREDUMP_EXE']),
    (['dumpctl', '--since', '=', 'ye'], ['yesterday']),
    (['dumpctl', '-n', '5', 'gr'], ['groups']),
    (['dumpctl', '--json', 'list', 'COREDUMPD_ACT'], ['COREDUMPD_ACTION=']),
    (['dumpctl', '-r', 'info', 'COREDUMP_PI'], ['COREDUMP_PID=']),
    (['dumpctl', 'policy', ''], []),
]
script = f"source {bash_file}\n"
for words, _ in cases:
    quoted = ' '.join("'" + w + "'" for w in words)
    script += (f"COMP_WORDS=({quoted}); COMP_CWORD={len(words) - 1}; COMPREPLY=(); _dumpctl 2>/dev/null; "
               "echo \"${COMPREPLY[*]}\"\n")
r = subprocess.run(['bash', '-c', script], capture_output=True, text=True)
got = r.stdout.split('\n')
for (words, want), line in zip(cases, got):
    offered = line.split()
    if sorted(offered) != sorted(want):
        failures.append(f"bash: {' '.join(words)!r} offers {offered}, not {want}")

for f in failures:
    print(f"FAIL: {f}")
print(f"{'FAIL' if failures else 'ok'}: {len(failures)} problem(s)")
sys.exit(1 if failures else 0)
