#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Who may do what, from the netlink spec (uapi/gpumem.yaml).

  gen-perms.py SPEC --header OUT.h     a C table for userspace/tests' fake
                                       kernel: which commands need admin
  gen-perms.py SPEC --check-kmod DIR   the module in DIR (kmod) grants what
                                       the spec says; prints nothing and
                                       exits 0 when so

An operation needs admin (CAP_NET_ADMIN) when the spec gives it
`flags: [ admin-perm ]`; a multicast group with `flags: [ admin-perm ]`
admits CAP_SYS_ADMIN listeners only (the events name every tenant's cgroups
and pids). The module's op table and groups are generated from the spec
(kmod/netlink_gen.c, scripts/gen-uapi.sh, whose --check catches a hand edit);
--check-kmod checks what that cannot:
  - netlink_gen.c's ops carry GENL_ADMIN_PERM exactly where the spec says,
    and its groups GPUMEM_MCAST_ADMIN_ONLY exactly where the spec says;
  - kmod/compat.h defines GPUMEM_MCAST_ADMIN_ONLY as GENL_MCAST_CAP_SYS_ADMIN
    on every kernel (and refuses to build where there is none);
  - no other file of DIR declares an op table, policy or group of its own.
"""
import os
import re
import sys

import yaml


def c_cmd(name):
    return 'GPUMEM_CMD_' + re.sub(r'[^A-Za-z0-9]', '_', name).upper()


def admin_ops(spec):
    ops = spec.get('operations', {}).get('list', [])
    return {c_cmd(o['name']): 'admin-perm' in (o.get('flags') or [])
            for o in ops if ('do' in o or 'dump' in o)}


def admin_groups(spec):
    grps = spec.get('mcast-groups', {}).get('list', [])
    return {g['name']: 'admin-perm' in (g.get('flags') or []) for g in grps}


def header(ops, events_admin, spec_path):
    out = [f'/* Generated from {spec_path} by scripts/gen-perms.py: do not edit. */',
           '#ifndef GM_SPEC_PERMS_H', '#define GM_SPEC_PERMS_H', '',
           '#include <stdbool.h>', '#include "../../uapi/gpumem.h"', '',
           '/* Commands a caller without CAP_NET_ADMIN is refused (EPERM). */',
           'static const bool gm_spec_admin_perm[GPUMEM_CMD_MAX + 1] = {']
    out += [f'\t[{c}] = true,' for c, admin in sorted(ops.items()) if admin]
    out += ['};', '',
            '/* The events group admits CAP_SYS_ADMIN listeners only. */',
            f'#define GM_SPEC_EVENTS_ADMIN {str(events_admin).lower()}', '', '#endif', '']
    return '\n'.join(out)


def kmod_admin(text):
    """{GPUMEM_CMD_X: has GENL_ADMIN_PERM} from the ops array's entries."""
    res = {}
    for m in re.finditer(r'\{[^{}]*?\.cmd\s*=\s*(GPUMEM_CMD_\w+)[^{}]*?\}', text):
        admin = 'GENL_ADMIN_PERM' in m.group(0)
        res[m.group(1)] = res.get(m.group(1), False) or admin
    return res


def kmod_groups(text):
    """{group name: has GPUMEM_MCAST_ADMIN_ONLY} from the groups array."""
    res = {}
    for m in re.finditer(r'\[GPUMEM_NLGRP_(\w+)\]\s*=\s*\{([^{}]*)\}', text):
        name = m.group(1).lower().replace('_', '-')
        res[name] = 'GPUMEM_MCAST_ADMIN_ONLY' in m.group(2)
    return res


def compare(what, spec, kmod, where):
    bad = []
    for c in sorted(set(spec) | set(kmod)):
        if c not in kmod:
            bad.append(f'{what} {c}: in the spec, not in {where}')
        elif c not in spec:
            bad.append(f'{what} {c}: in {where}, not in the spec')
        elif spec[c] != kmod[c]:
            bad.append(f'{what} {c}: the spec says admin-perm={spec[c]}, {where} says {kmod[c]}')
    return bad


# What only the generated file may declare.
HAND_MADE = re.compile(r'struct\s+(genl_ops|genl_small_ops|genl_split_ops|nla_policy|'
                       r'genl_multicast_group|genl_family|netlink_range_validation)\b[^;(]*[={]'
                       r'|GENL_ADMIN_PERM|GENL_UNS_ADMIN_PERM|GENL_MCAST_CAP_\w+')


def check_kmod(spec, kdir):
    gen = os.path.join(kdir, 'netlink_gen.c')
    text = open(gen).read()
    bad = compare('command', admin_ops(spec), kmod_admin(text), gen)
    bad += compare('group', admin_groups(spec), kmod_groups(text), gen)
    compat = os.path.join(kdir, 'compat.h')
    ctext = open(compat).read()
    if not re.search(r'#define\s+GPUMEM_MCAST_ADMIN_ONLY\s+GENL_MCAST_CAP_SYS_ADMIN\s*\n#else\s*\n#error',
                     ctext):
        bad.append(f'{compat}: GPUMEM_MCAST_ADMIN_ONLY is not GENL_MCAST_CAP_SYS_ADMIN '
                   '(or #error without it)')
    for name in sorted(os.listdir(kdir)):
        path = os.path.join(kdir, name)
        if name in ('netlink_gen.c', 'netlink_gen.h', 'compat.h') or \
                not name.endswith(('.c', '.h')):
            continue
        for n, line in enumerate(open(path), 1):
            if HAND_MADE.search(line):
                bad.append(f'{path}:{n}: declares netlink ops, policies or groups by hand '
                           f'(they come from the spec): {line.strip()}')
    return bad


def main():
    if len(sys.argv) != 4 or sys.argv[2] not in ('--header', '--check-kmod'):
        sys.exit(__doc__)
    spec_path, mode, arg = sys.argv[1:]
    with open(spec_path) as f:
        spec = yaml.safe_load(f)
    if mode == '--header':
        with open(arg, 'w') as f:
            f.write(header(admin_ops(spec), admin_groups(spec).get('events', False),
                           spec_path))
        return
    bad = check_kmod(spec, arg)
    if bad:
        print('\n'.join(bad))
        sys.exit(1)


if __name__ == '__main__':
    main()
