#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Every background command of the guest scripts closes the result descriptor.

Usage: check-guest-bg.py DIR...

A guest test reports its cases on fd 8 (tests/guest/lib.sh); a command
started in the background (`cmd &`, `( ... ) &`, `done &`) would inherit it
and could write results of its own, or after the script ended. Each such
line must say 8>&- (lib.sh's spawn_cmd does). Here documents (the Python or
awk a script feeds a program) are not shell. Prints one line per offender
and exits 1 if there is one; prints nothing otherwise. The guest runner
(scripts/guest-init.sh) also FAILs a script whose descriptor outlived it.
"""
import glob
import os
import re
import sys

BG = re.compile(r'(?<![&><|])&(?![&>])')
HEREDOC = re.compile(r'<<(-?)\s*([\'"]?)(\w+)\2')


def strip(text, state):
    """TEXT without quoted strings and comments; STATE ('' or the open
    quote) carries a quote that spans lines."""
    out = []
    q = state[0]
    i = 0
    while i < len(text):
        c = text[i]
        if q == "'":
            if c == "'":
                q = ''
            i += 1
            continue
        if c == '\\':
            i += 2
            continue
        if q == '"':
            if c == '"':
                q = ''
            i += 1
            continue
        if c in '\'"':
            q = c
        elif c == '#' and (i == 0 or text[i - 1] in ' \t;'):
            break
        else:
            out.append(c)
        i += 1
    state[0] = q
    return ''.join(out)


def offenders(path):
    out = []
    end = None
    state = ['']
    with open(path, errors='replace') as f:
        for n, line in enumerate(f, 1):
            text = line.rstrip('\n')
            if end is not None:
                if (text.lstrip('\t') if end[0] else text) == end[1]:
                    end = None
                continue
            m = HEREDOC.search(text) if not state[0] else None
            code = strip(text, state)
            if m:
                end = (m.group(1) == '-', m.group(3))
            if BG.search(code) and '8>&-' not in code:
                out.append(f'{path}:{n}: background command without 8>&-: {text.strip()}')
    return out


def main():
    bad = []
    for d in sys.argv[1:]:
        for path in sorted(glob.glob(os.path.join(d, '*.sh'))):
            bad += offenders(path)
    for b in bad:
        print(b)
    sys.exit(1 if bad else 0)


if __name__ == '__main__':
    main()
