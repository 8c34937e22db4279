#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""The man pages carry the project's version: each built page's .TH says "coredumpd VERSION" with
meson's project version, which is debian/changelog's newest upstream version; no page speaks of
a coredumpd version later than that (a "before coredumpd 0.3" in 0.2's pages).

usage: check-version.py SRCDIR BUILDDIR VERSION PAGE...
"""
import re
import sys

srcdir, builddir, version, *pages = sys.argv[1:]
failures = []


def key(v):
    return [int(x) for x in re.findall(r'\d+', v)]


with open(f"{srcdir}/debian/changelog") as f:
    m = re.match(r'\S+ \(([^)]+)\)', f.readline())
debian = m.group(1) if m else None
upstream = re.sub(r'-[^-]*$', '', re.sub(r'^\d+:', '', debian)) if debian else None
if upstream != version:
    failures.append(f"debian/changelog's version is {debian}, meson's project version {version}")

for page in pages:
    with open(f"{builddir}/{page}") as f:
        text = f.read()
    th = [l for l in text.splitlines() if l.startswith('.TH ')]
    if len(th) != 1:
        failures.append(f"{page}: {len(th)} .TH lines")
        continue
    fields = re.findall(r'"[^"]*"|\S+', th[0])
    if len(fields) < 5 or fields[4].strip('"') != f"coredumpd {version}":
        failures.append(f"{page}: .TH says {fields[4] if len(fields) > 4 else 'no version'}, not \"coredumpd {version}\"")
    for later in re.findall(r'coredumpd (\d+\.\d+(?:\.\d+)?)', text.replace('\\-', '-')):
        if key(later) > key(version):
            failures.append(f"{page}: speaks of coredumpd {later}, later than this version, {version}")

if failures:
    print('\n'.join(failures))
    sys.exit(1)
print(f"ok - {len(pages)} pages say coredumpd {version}, as debian/changelog")
