#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Run several requests of the kernel's YNL CLI library on one socket.

Usage: ynl-batch.py SPEC REQUESTS OUTDIR

REQUESTS has one request a line: "NAME do|dump OPERATION [JSON]". For each,
OUTDIR/NAME.out gets what tools/net/ynl/cli.py would print on stdout (the
reply pretty-printed, or the NlError text "Netlink error: ..." with the
extack), OUTDIR/NAME.err any other exception, and OUTDIR/NAME.rc the exit
status cli.py would have (0, or 1 for an NlError or any exception).

Why: tests/guest/87-ynl.sh and 95-quota-badinput.sh send a dozen requests
through the YNL library; on the KASAN/lockdep test kernel each python3
start costs 10-25 s, so one process sends them all. The requests, their
encoding and the printing are the CLI's own (the same library calls).
"""
import json
import os
import pprint
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from lib import YnlFamily, NlError  # noqa: E402


def main():
    if len(sys.argv) != 4:
        sys.exit(__doc__.strip().splitlines()[2])
    spec, reqs, outdir = sys.argv[1:]
    ynl = YnlFamily(spec, '')
    with open(reqs) as f:
        lines = [ln.rstrip('\n') for ln in f if ln.strip()]
    for line in lines:
        parts = line.split(None, 3)
        name, mode, op = parts[:3]
        attrs = json.loads(parts[3]) if len(parts) > 3 else {}
        base = os.path.join(outdir, name)
        rc = 0
        with open(base + '.out', 'w') as out, open(base + '.err', 'w') as err:
            try:
                if mode == 'do':
                    reply = ynl.do(op, attrs, None)
                elif mode == 'dump':
                    reply = ynl.dump(op, attrs)
                else:
                    raise ValueError(f'unknown mode {mode!r}')
                out.write(pprint.PrettyPrinter().pformat(reply) + '\n')
            except NlError as e:
                out.write(f'{e}\n')
                rc = 1
            except Exception as e:  # noqa: BLE001 - reported per request
                err.write(f'{type(e).__name__}: {e}\n')
                rc = 1
        with open(base + '.rc', 'w') as f:
            f.write(f'{rc}\n')


if __name__ == '__main__':
    main()
