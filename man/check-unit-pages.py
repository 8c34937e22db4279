#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Each unit the package ships (units/*.service, *.socket, *.timer, their .in templates) and the
generator has a man page under its name, as Debian's systemd has systemd-coredump@.service(8): a
page (or a .so link to one) whose NAME line names it. Every Documentation=man:PAGE(N) of a unit is
a page of the package.

usage: check-unit-pages.py SRCDIR BUILT-MANDIR PAGE-NAME...
"""
import glob
import os
import re
import sys

srcdir, mandir, *names = sys.argv[1:]
failures = []

units = set()
for f in glob.glob(f"{srcdir}/units/*"):
    base = os.path.basename(f).removesuffix('.in')
    if re.search(r'\.(service|socket|timer)$', base):
        units.add(base)
units.add('coredumpd-storage-generator')
for u in sorted(units - set(names)):
    failures.append(f"{u}: no page under its name (man/meson.build unit_pages)")


def page(name, section):
    path = os.path.join(mandir, f"{name}.{section}")
    if not os.path.exists(path):
        path = os.path.join(srcdir, 'man', f"{name}.{section}")
    if not os.path.exists(path):
        return None
    with open(path) as f:
        text = f.read()
    m = re.match(r'\.so man\d/(.+)\.(\d)\s*$', text)
    return page(m.group(1), m.group(2)) if m else text


def name_line(text):
    lines = text.splitlines()
    i = lines.index('.SH NAME')
    return lines[i + 1].replace('\\-', '-')


for u in sorted(units):
    text = page(u, 8)
    if text is None:
        failures.append(f"{u}: no {u}.8")
        continue
    names_in = re.split(r',\s*|\s+-\s+', name_line(text))
    if u not in names_in:
        failures.append(f"{u}: the NAME line of its page does not name it: {name_line(text)}")

for f in glob.glob(f"{srcdir}/units/*"):
    with open(f) as fh:
        for line in fh:
            if line.startswith('Documentation='):
                for name, section in re.findall(r'man:([\w.@-]+)\((\d)\)', line):
                    if page(name, section) is None:
                        failures.append(f"{os.path.basename(f)}: Documentation=man:{name}({section}) is no page of the package")

if failures:
    print('\n'.join(failures))
    sys.exit(1)
print(f"ok - {len(units)} units have their pages")
