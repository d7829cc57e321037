#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Who may do what, from the netlink spec (uapi/gpumem.yaml).

  gen-perms.py SPEC --header OUT.h     a C table for userspace/tests' fake
                                       kernel: which commands need admin
  gen-perms.py SPEC --check-kmod FILE  the kernel's ops table (kmod/netlink.c)
                                       marks exactly those GENL_ADMIN_PERM;
                                       prints nothing and exits 0 when so

An operation needs admin when the spec gives it `flags: [ admin-perm ]`.
The events multicast group is CAP_SYS_ADMIN-only on every kernel gpumem
builds for (kmod/compat.h); the spec has no flag for a group, so that rule
is stated here once, for the fake.
"""
import re
import sys

import yaml


def c_cmd(name):
    return 'GPUMEM_CMD_' + re.sub(r'[^A-Za-z0-9]', '_', name).upper()


def admin_ops(spec):
    ops = spec.get('operations', {}).get('list', [])
    return {c_cmd(o['name']): 'admin-perm' in (o.get('flags') or [])
            for o in ops if ('do' in o or 'dump' in o)}


def header(ops, spec_path):
    out = [f'/* Generated from {spec_path} by scripts/gen-perms.py: do not edit. */',
           '#ifndef GM_SPEC_PERMS_H', '#define GM_SPEC_PERMS_H', '',
           '#include <stdbool.h>', '#include "../../uapi/gpumem.h"', '',
           '/* Commands a caller without CAP_NET_ADMIN is refused (EPERM). */',
           'static const bool gm_spec_admin_perm[GPUMEM_CMD_MAX + 1] = {']
    out += [f'\t[{c}] = true,' for c, admin in sorted(ops.items()) if admin]
    out += ['};', '',
            '/* The events group admits CAP_SYS_ADMIN listeners only. */',
            '#define GM_SPEC_EVENTS_ADMIN true', '', '#endif', '']
    return '\n'.join(out)


def kmod_admin(path):
    """{GPUMEM_CMD_X: has GENL_ADMIN_PERM} from the ops array's entries."""
    text = open(path).read()
    res = {}
    for m in re.finditer(r'\{[^{}]*?\.cmd\s*=\s*(GPUMEM_CMD_\w+)[^{}]*?\}', text):
        admin = 'GENL_ADMIN_PERM' in m.group(0)
        res[m.group(1)] = res.get(m.group(1), False) or admin
    return res


def main():
    if len(sys.argv) != 4 or sys.argv[2] not in ('--header', '--check-kmod'):
        sys.exit(__doc__)
    spec_path, mode, arg = sys.argv[1:]
    with open(spec_path) as f:
        ops = admin_ops(yaml.safe_load(f))
    if mode == '--header':
        with open(arg, 'w') as f:
            f.write(header(ops, spec_path))
        return
    kmod = kmod_admin(arg)
    bad = []
    for c in sorted(set(ops) | set(kmod)):
        if c not in kmod:
            bad.append(f'{c}: in the spec, not in {arg}')
        elif c not in ops:
            bad.append(f'{c}: in {arg}, not in the spec')
        elif ops[c] != kmod[c]:
            bad.append(f'{c}: the spec says admin-perm={ops[c]}, {arg} says {kmod[c]}')
    if bad:
        print('\n'.join(bad))
        sys.exit(1)


if __name__ == '__main__':
    main()
