#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""The man pages and the code agree: every option a --help lists is documented in the page and every
option the page documents is in --help; every key the config and policy parsers accept
(strcmp(key, "...") in config.c / policy.c) is documented in coredumpd.conf(5) /
coredumpd.policy(5) and the reverse; every dumpctl command is documented and the reverse.

usage: check-options.py SRCDIR DUMPCTL COREDUMPD
"""
import re
import subprocess
import sys

srcdir, dumpctl, coredumpd = sys.argv[1:4]
failures = []


def page_text(name):
    with open(f"{srcdir}/man/{name}") as f:
        return f.read()


def plain(line):
    """troff line → text: font escapes dropped, \\- → -."""
    line = re.sub(r'\\f[BIRP]', '', line)
    line = line.replace('\\-', '-').replace('\\&', '')
    line = re.sub(r'^\.(B|I|BI|IB|BR|RB|IR|RI)\s+', '', line)
    return line.replace('"', '')


def headings(text, section=None):
    """The tag lines of .TP entries (optionally only inside .SH section)."""
    out, current, take = [], None, False
    for line in text.splitlines():
        if line.startswith('.SH '):
            current = line[4:].strip().strip('"')
        if take:
            if section is None or current == section:
                out.append(plain(line))
            take = False
        if line.startswith('.TP'):
            take = True
    return out


def compare(what, documented, implemented):
    for x in sorted(implemented - documented):
        failures.append(f"{what}: '{x}' is in the code but not documented")
    for x in sorted(documented - implemented):
        failures.append(f"{what}: '{x}' is documented but not in the code")


def help_options(binary):
    out = subprocess.run([binary, '--help'], capture_output=True, text=True, check=True).stdout
    return set(re.findall(r'(?<![\w-])(--[a-z][a-z-]*|-[a-zA-Z])\b', out)), out


def page_options(name):
    opts = set()
    for h in headings(page_text(name), 'OPTIONS'):
        opts |= set(re.findall(r'(?<![\w-])(--[a-z][a-z-]*|-[a-zA-Z])\b', h))
    return opts


def code_keys(source):
    with open(f"{srcdir}/daemon/{source}") as f:
        return set(re.findall(r'strcmp\(key, "(\w+)"\)', f.read()))


def hint_keys(source, array):
    """The keys listed in a parser's array for the hint on a misspelt key."""
    with open(f"{srcdir}/daemon/{source}") as f:
        text = f.read()
    m = re.search(array + r'\[\] = \{(.*?)\};', text, re.S)
    return set(re.findall(r'"(\w+)"', m.group(1))) if m else set()


def page_keys(name, sections):
    keys = set()
    for s in sections:
        for h in headings(page_text(name), s):
            m = re.match(r'\s*(\w+)=', h)
            if m:
                keys.add(m.group(1))
    return keys


# Command-line options.
for binary, page in ((dumpctl, 'dumpctl.1'), (coredumpd, 'coredumpd.8')):
    implemented, _ = help_options(binary)
    compare(f"{page} options", page_options(page), implemented)

# dumpctl's commands: the Commands: block of --help vs the COMMANDS section.
_, help_text = help_options(dumpctl)
block = help_text.split('Commands:', 1)[1].split('\n\n', 1)[0]
implemented = set(re.findall(r'^\s+([a-z]+)\b', block, re.M))
documented = {h.split()[0] for h in headings(page_text('dumpctl.1'), 'COMMANDS') if h.split()}
compare("dumpctl.1 commands", documented, implemented)

# Configuration and policy keys.
compare("coredumpd.conf.5 keys", page_keys('coredumpd.conf.5', ['OPTIONS']), code_keys('config/config.c'))
compare("coredumpd.policy.5 keys", page_keys('coredumpd.policy.5', ['MATCHES', 'SETTINGS']),
        code_keys('config/policy-parse.c'))

# The keys the parsers suggest for a misspelt one are the keys they take.
compare("config.c config_keys[]", hint_keys('config/config.c', 'config_keys'), code_keys('config/config.c'))
compare("policy-parse.c policy_keys[]", hint_keys('config/policy-parse.c', 'policy_keys'),
        code_keys('config/policy-parse.c'))

# The documented exit statuses are the ones dumpctl defines.
with open(f"{srcdir}/cli/dumpctl.h") as f:
    code_exits = set(re.findall(r'EXIT_\w+ = (\d+),', f.read()))
doc_exits = {h.strip() for h in headings(page_text('dumpctl.1'), 'EXIT STATUS')}
compare("dumpctl.1 exit statuses", doc_exits, code_exits)

for f in failures:
    print(f"FAIL: {f}")
print(f"{'FAIL' if failures else 'ok'}: {len(failures)} mismatch(es)")
sys.exit(1 if failures else 0)
