#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""coredumpd.conf(5) states each key's default, and that is the code's: every key of OPTIONS has a
"Default: X", a "Defaults: X, Y, Z" (for the keys of its group, the last ones up to it) or an
"X (the default)"; a file setting each key to the page's default, read by the daemon
(--check-config), prints the same settings as an empty file.

usage: check-defaults.py BUILT-coredumpd.conf.5 COREDUMPD
"""
import os
import re
import subprocess
import sys
import tempfile

page, coredumpd = sys.argv[1:3]
failures = []


def plain(line):
    line = re.sub(r'\\f[BIRP]', '', line)
    line = line.replace('\\-', '-').replace('\\&', '')
    line = re.sub(r'^\.(B|I|BI|IB|BR|RB|IR|RI)\s+', '', line)
    return line.replace('"', '')


# The OPTIONS section's entries: (key, text of its paragraph); nested .RS lists belong to the entry.
entries, key, body, in_options, depth, take = [], None, [], False, 0, False
with open(page) as f:
    for line in f.read().splitlines():
        if line.startswith('.SH '):
            in_options = line[4:].strip() == 'OPTIONS'
            if key:
                entries.append((key, ' '.join(body)))
                key = None
            continue
        if not in_options:
            continue
        if line.startswith('.RS'):
            depth += 1
        elif line.startswith('.RE'):
            depth -= 1
        if take:
            take = False
            m = re.match(r'([A-Z][A-Za-z]*)=', plain(line))
            if m:
                if key:
                    entries.append((key, ' '.join(body)))
                key, body = m.group(1), []
                continue
        if line.startswith('.TP') and depth == 0:
            take = True
            continue
        if key and not line.startswith('.') or line.startswith(('.B ', '.I ', '.BR ', '.RB ', '.IR ', '.BI ')):
            body.append(plain(line))
if key:
    entries.append((key, ' '.join(body)))

defaults, pending = {}, []
for key, text in entries:
    pending.append(key)
    m = re.search(r'\bDefaults: ((?:[^,:;]+, )+[^,:;. ]+)', text)
    if m:
        values = m.group(1).split(', ')
        if len(values) > len(pending):
            failures.append(f"{key}=: 'Defaults: {m.group(1)}' names more values than keys before it")
            continue
        for k, v in zip(pending[-len(values):], values):
            defaults[k] = v
        pending = []
        continue
    m = re.search(r'\bDefault: (\S+?)[.,;:]?(?:\s|$)', text) or re.search(r'(\S+) \(the default\)', text)
    if m:
        defaults[key] = m.group(1)
        pending = [k for k in pending if k != key]
for k in pending:
    failures.append(f"{k}=: coredumpd.conf(5) states no default")


def settings(path):
    out = subprocess.run([coredumpd, '--check-config', f'--config={path}'], capture_output=True, text=True)
    lines = [l for l in out.stdout.splitlines() if '=' in l and not l.startswith('#')]
    return out.returncode, dict(l.split('=', 1) for l in lines), out.stdout + out.stderr


with tempfile.TemporaryDirectory() as tmp:
    empty, documented = os.path.join(tmp, 'empty.conf'), os.path.join(tmp, 'documented.conf')
    open(empty, 'w').write('[Coredump]\n')
    open(documented, 'w').write('[Coredump]\n' + ''.join(f'{k}={v}\n' for k, v in defaults.items()))
    rc0, code, out0 = settings(empty)
    rc1, doc, out1 = settings(documented)
    if rc1 != 0:
        failures.append(f"the page's defaults are not all valid values:\n{out1}")
    for k in sorted(set(code) - set(defaults)):
        failures.append(f"{k}=: the code has it (default {code[k]}), coredumpd.conf(5) states no default")
    for k in sorted(set(code) & set(doc)):
        if code[k] != doc[k]:
            failures.append(f"{k}=: coredumpd.conf(5) says the default is {defaults.get(k)}, the code's is {code[k]}")

if failures:
    print('\n'.join(failures))
    sys.exit(1)
print(f"ok - the defaults of {len(defaults)} keys in coredumpd.conf(5) are the code's")
