#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The module's side of the gpumem netlink family, from uapi/gpumem.yaml.

  gen-kernel-nl.py YNL_GEN_C SPEC --source OUT.c   kmod/netlink_gen.c
  gen-kernel-nl.py YNL_GEN_C SPEC --header OUT.h   kmod/netlink_gen.h

YNL_GEN_C is the kernel's own generator, tools/net/ynl/ynl-gen-c.py of
linux-source-6.12; SPEC must sit where that generator finds its schema (one
directory below genetlink.yaml and a MAINTAINERS file: scripts/gen-uapi.sh,
which runs this, arranges it). Run gen-uapi.sh, not this.

What ynl-gen-c's `--mode kernel` renders is used as it renders it: the
request policies (one per operation, named gpumem_<op>_nl_policy, with the
spec's `checks:` as NLA_POLICY_* ranges and enums bounded by their last
entry), the range structs, the handler and .start/.done prototypes, the
multicast group enum. Three things it renders are replaced here:

  - the op table: ynl-gen-c writes struct genl_split_ops (one entry per
    do and per dump, kernel 6.2+); 6.1 has only struct genl_ops, which
    works on every kernel gpumem supports: one entry per command with its
    doit, start/dumpit/done (a dump's `pre:`/`post:` in the spec), policy,
    maxattr and GENL_ADMIN_PERM (`flags: [ admin-perm ]`). A command's
    do and dump share that one policy, so the spec may give only one of
    them a request (the generator refuses otherwise), and a dump without a
    request of its own accepts the do's attributes (and ignores them).
  - the multicast groups: ynl-gen-c 6.12 ignores a group's `flags`; here a
    group's `admin-perm` admits CAP_SYS_ADMIN listeners only
    (GPUMEM_MCAST_ADMIN_ONLY from kmod/compat.h, GENL_MCAST_CAP_SYS_ADMIN).
  - the family: ynl-gen-c's is netns-aware and runs ops in parallel; gpumem's
    family lives in the initial netns only (netnsok false: it reports the
    whole machine) and its ops run under genl_mutex, as before.

Two touches keep the output building and checkpatch-clean on every kernel:
the range structs are `static GPUMEM_NL_RANGE_CONST` (kmod/compat.h: 6.7
made the policy's range pointer const, 6.1 takes a plain one), and a line
longer than 100 columns is broken after its `=`. Includes follow the
module's layout ("../uapi/gpumem.h", "compat.h").
"""
import importlib.machinery
import importlib.util
import os
import sys

# The family settings ynl-gen-c's family struct does not take from the spec.
FAMILY_NETNSOK = 'false'
MCGRP_FLAGS = {'admin-perm': 'GPUMEM_MCAST_ADMIN_ONLY'}
OP_FLAGS = {'admin-perm': 'GENL_ADMIN_PERM'}


def load_ynl(path):
    """ynl-gen-c.py as a module (its `lib` package next to it)."""
    sys.path.insert(0, os.path.dirname(os.path.abspath(path)))
    loader = importlib.machinery.SourceFileLoader('ynl_gen_c', path)
    spec = importlib.util.spec_from_loader('ynl_gen_c', loader)
    mod = importlib.util.module_from_spec(spec)
    loader.exec_module(mod)
    return mod


def banner(cw, family, spec_name, header):
    if header:
        cw.p(f'/* SPDX-License-Identifier: {family.license} */')
    else:
        cw.p(f'// SPDX-License-Identifier: {family.license}')
    cw.p('/* Do not edit directly, auto-generated from: */')
    cw.p(f'/*\t{spec_name} */')
    cw.p(f"/* YNL-GEN kernel {'header' if header else 'source'} */")
    cw.p('/* (scripts/gen-kernel-nl.py: genl_ops, for 6.1 and later) */')
    cw.nl()


def kernel_headers(family):
    """Headers the spec's kernel-scope definitions name (PID_MAX_LIMIT)."""
    out = []
    for d in family['definitions']:
        if 'header' in d and d.get('scope', 'uapi') == 'kernel':
            out.append(d['header'])
    return out


def render_header(y, family, cw):
    prot = f'_LINUX_{family.c_name.upper()}_GEN_H'
    cw.p('#ifndef ' + prot)
    cw.p('#define ' + prot)
    cw.nl()
    cw.p('#include <net/netlink.h>')
    cw.p('#include <net/genetlink.h>')
    cw.nl()
    cw.p(f'#include "../uapi/{family.uapi_header_name}.h"')
    cw.nl()
    y.render_scoped_consts(family, cw, 'kernel')
    y.print_kernel_op_table_hdr(family, cw)
    y.print_kernel_mcgrp_hdr(family, cw)
    y.print_kernel_family_struct_hdr(family, cw)
    cw.p(f'#endif /* {prot} */')


def op_table(y, family, cw):
    c_lower = y.c_lower
    cw.p(f'/* Ops table for {family.ident_name} */')
    cw.block_start(line=f'static const struct genl_ops {family.c_name}_nl_ops[] =')
    for op_name, op in family.ops.items():
        if op.is_async:
            continue
        if op.dual_policy:
            sys.exit(f'{op_name}: do and dump both take a request; genl_ops has one policy')
        if 'do' in op and ('pre' in op['do'] or 'post' in op['do']):
            sys.exit(f'{op_name}: pre/post of a do need genl_split_ops (6.2+)')
        if op.get('config-cond') or op.get('dont-validate'):
            sys.exit(f'{op_name}: config-cond and dont-validate are not supported')
        members = [('cmd', op.enum_name)]
        if 'do' in op:
            members.append(('doit', c_lower(f'{family.ident_name}-nl-{op_name}-doit')))
        if 'dump' in op:
            if 'pre' in op['dump']:
                members.append(('start', c_lower(op['dump']['pre'])))
            members.append(('dumpit', c_lower(f'{family.ident_name}-nl-{op_name}-dumpit')))
            if 'post' in op['dump']:
                members.append(('done', c_lower(op['dump']['post'])))
        for mode in ('do', 'dump'):
            if mode in op and 'request' in op[mode]:
                ri = y.RenderInfo(cw, family, 'kernel', op, mode)
                members.append(('policy', f'{op.render_name}_nl_policy'))
                members.append(('maxattr', ri.struct['request'].attr_max_val.enum_name))
        flags = op.get('flags') or []
        for f in flags:
            if f not in OP_FLAGS:
                sys.exit(f'{op_name}: flag {f} is not supported')
        if flags:
            members.append(('flags', ' | '.join(OP_FLAGS[f] for f in flags)))
        cw.block_start()
        cw.write_struct_init(members)
        cw.block_end(line=',')
    cw.block_end(line=';')
    cw.nl()


def mcgrps(y, family, cw):
    if not family.mcgrps['list']:
        return
    cw.block_start(line=f'static const struct genl_multicast_group {family.c_name}_nl_mcgrps[] =')
    for grp in family.mcgrps['list']:
        grp_id = y.c_upper(f"{family.ident_name}-nlgrp-{grp['name']}")
        define = y.c_upper(grp.get('c-define-name',
                                   f"{family.ident_name}-mcgrp-{grp['name']}"))
        members = [('name', define)]
        flags = grp.get('flags') or []
        for f in flags:
            if f not in MCGRP_FLAGS:
                sys.exit(f"group {grp['name']}: flag {f} is not supported")
        if flags:
            members.append(('flags', ' | '.join(MCGRP_FLAGS[f] for f in flags)))
        cw.block_start(line=f'[{grp_id}] =')
        cw.write_struct_init(members)
        cw.block_end(line=',')
    cw.block_end(line=';')
    cw.nl()


def family_struct(family, cw):
    members = [('name', family.fam_key), ('version', family.ver_key),
               ('netnsok', FAMILY_NETNSOK), ('module', 'THIS_MODULE'),
               ('ops', f'{family.c_name}_nl_ops'),
               ('n_ops', f'ARRAY_SIZE({family.c_name}_nl_ops)')]
    if family.mcgrps['list']:
        members += [('mcgrps', f'{family.c_name}_nl_mcgrps'),
                    ('n_mcgrps', f'ARRAY_SIZE({family.c_name}_nl_mcgrps)')]
    cw.block_start(line=f'struct genl_family {family.ident_name}_nl_family __ro_after_init =')
    cw.write_struct_init(members)
    cw.block_end(line=';')


def render_source(y, family, cw, out_file):
    cw.p('#include <net/netlink.h>')
    cw.p('#include <net/genetlink.h>')
    for h in kernel_headers(family):
        cw.p(f'#include <{h}>')
    cw.nl()
    cw.p('#include "compat.h"')
    cw.p(f'#include "{os.path.basename(out_file)[:-2]}.h"')
    cw.nl()
    y.print_kernel_policy_ranges(family, cw)
    for _, struct in sorted(family.pure_nested_structs.items()):
        if struct.request:
            sys.exit('nested request attributes are not supported')
    for op_name, op in family.ops.items():
        for mode in ('do', 'dump'):
            if mode in op and 'request' in op[mode]:
                cw.p(f'/* {op.enum_name} - {mode} */')
                ri = y.RenderInfo(cw, family, 'kernel', op, mode)
                y.print_req_policy(cw, ri.struct['request'], ri=ri)
                cw.nl()
    op_table(y, family, cw)
    mcgrps(y, family, cw)
    family_struct(family, cw)


def columns(line):
    return len(line.expandtabs(8))


def touch_up(text):
    """6.1's non-const range pointer; no line beyond 100 columns."""
    text = text.replace('static const struct netlink_range_validation',
                        'static GPUMEM_NL_RANGE_CONST struct netlink_range_validation')
    out = []
    for line in text.split('\n'):
        if columns(line) > 100 and ' = ' in line:
            head, tail = line.split(' = ', 1)
            ind = line[:len(line) - len(line.lstrip('\t'))]
            line = f'{head} =\n{ind}\t{tail}'
            if any(columns(x) > 100 for x in line.split('\n')):
                sys.exit(f'cannot break: {line}')
        out.append(line)
    return '\n'.join(out)


def main():
    if len(sys.argv) != 6 or sys.argv[3] not in ('--source', '--header') or sys.argv[4] != '-o':
        sys.exit(__doc__)
    ynl_path, spec_path, mode, _, out_file = sys.argv[1:]
    y = load_ynl(ynl_path)
    family = y.Family(spec_path, [])
    if family.kernel_policy != 'split':
        sys.exit('kernel-policy must be the default (split: one policy per op)')
    cw = y.CodeWriter(y.BaseNlLib(), out_file)
    header = mode == '--header'
    banner(cw, family, 'uapi/' + os.path.basename(spec_path), header)
    if header:
        render_header(y, family, cw)
    else:
        render_source(y, family, cw, out_file)
    cw.close_out_file()
    with open(out_file) as f:
        text = f.read()
    with open(out_file, 'w') as f:
        f.write(touch_up(text))


if __name__ == '__main__':
    main()
