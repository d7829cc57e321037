#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""gpumemctl's wire model, from the netlink spec (uapi/gpumem.yaml).

  gen-nlspec.py SPEC --source OUT.c --header OUT.h   write the two files
  gen-nlspec.py SPEC --check OUT.c OUT.h             exit 1 (and say which)
                                                     when they are not what
                                                     SPEC generates

The files (userspace/libgpumem/nlspec.[ch]) hold what query.c used to spell
out by hand:

  - one libnl `struct nla_policy` array per attribute set
    (gm_spec_<set>_policy), the attribute types taken from the spec;
  - the spec's name of every attribute of every set (gm_spec_<set>_names),
    and which set each command's request uses (gm_spec_cmd_attr_names), for
    error messages that name a missing attribute;
  - the names of every enum's entries (gm_spec_<enum>_names) with their
    count (GM_SPEC_<ENUM>_COUNT): regions, limit modes, views, event types.

The C names follow the kernel's YNL generator (ynl-gen-c), which writes
uapi/gpumem.h from the same spec: GPUMEM_A_<SET>_<ATTR>, GPUMEM_<ENUM>_<ENTRY>,
GPUMEM_CMD_<OP>; `name-prefix`, `enum-name` and `attr-max-name` are honoured.
Keys this generator does not use (`checks:`, `doc:` ...) are ignored: the
ranges in `checks:` are the kernel's business, a reply is parsed by type.
The userspace Makefile's `check` target and scripts/host-checks.sh run
--check, so the committed files cannot drift from the spec.
"""
import os
import re
import sys

import yaml

NLA_TYPES = {
    'u8': 'NLA_U8', 'u16': 'NLA_U16', 'u32': 'NLA_U32', 'u64': 'NLA_U64',
    's8': 'NLA_S8', 's16': 'NLA_S16', 's32': 'NLA_S32', 's64': 'NLA_S64',
    'uint': 'NLA_U64', 'sint': 'NLA_S64',
    'string': 'NLA_STRING', 'flag': 'NLA_FLAG', 'nest': 'NLA_NESTED',
    'binary': 'NLA_UNSPEC', 'pad': None,
}


def c_upper(name):
    return re.sub(r'[^A-Za-z0-9]', '_', name).upper()


def c_lower(name):
    return re.sub(r'[^A-Za-z0-9]', '_', name).lower()


class Spec:
    def __init__(self, path):
        with open(path) as f:
            self.y = yaml.safe_load(f)
        # as the files name it, whatever the caller's directory
        self.path = 'uapi/' + path.rsplit('/', 1)[-1]
        self.file = path
        self.family = self.y['name']
        self.fam_c = c_upper(self.family)

    def enums(self):
        for d in self.y.get('definitions', []):
            if d.get('type') not in ('enum', 'flags'):
                continue
            prefix = d.get('name-prefix', f'{self.family}-{d["name"]}-')
            entries = []
            for i, e in enumerate(d['entries']):
                name = e['name'] if isinstance(e, dict) else e
                value = e.get('value') if isinstance(e, dict) else None
                entries.append((name, c_upper(prefix + name), value, i))
            yield d, entries

    def attr_sets(self):
        for s in self.y.get('attribute-sets', []):
            prefix = s.get('name-prefix', f'{self.family}-a-{s["name"]}-')
            max_name = s.get('attr-max-name', f'{c_upper(prefix)}MAX')
            attrs = [(a, c_upper(prefix + a['name'])) for a in s['attributes']]
            yield s, attrs, max_name

    def ops(self):
        prefix = self.y.get('operations', {}).get('name-prefix', f'{self.family}-cmd-')
        for o in self.y.get('operations', {}).get('list', []):
            yield o, c_upper(prefix + o['name'])


HEADER_TOP = '''/* SPDX-License-Identifier: GPL-2.0 */
/* Generated from {spec} by scripts/gen-nlspec.py: do not edit. */
/*
 * gpumemctl's wire model: the attribute policies and names of every
 * attribute set and the names of every enum of the "{family}" family.
 */
#ifndef GM_NLSPEC_H
#define GM_NLSPEC_H

#include <netlink/attr.h>

#include "{uapi}"
'''


def header(spec, hdr):
    # the uapi header beside the spec, as the generated header's directory reaches it
    uapi = os.path.relpath(os.path.join(os.path.dirname(spec.file), 'gpumem.h'),
                           os.path.dirname(hdr) or '.')
    out = [HEADER_TOP.format(spec=spec.path, family=spec.family, uapi=uapi)]
    out.append('/* --- enums: the name of each value (NULL: a value the spec does not name) */')
    for d, entries in spec.enums():
        n = c_upper(d['name'])
        out.append(f'#define GM_SPEC_{n}_COUNT {len(entries)}')
        out.append(f'extern const char *const gm_spec_{c_lower(d["name"])}_names[GM_SPEC_{n}_COUNT];')
    out.append('')
    out.append('/* --- attribute sets: a policy for nla_parse() and the spec\'s names */')
    for s, attrs, max_name in spec.attr_sets():
        low = c_lower(s['name'])
        out.append(f'extern const struct nla_policy gm_spec_{low}_policy[{max_name} + 1];')
        out.append(f'extern const char *const gm_spec_{low}_names[{max_name} + 1];')
    out.append('')
    out.append('/* the attribute names of the set command CMD uses; NULL for another CMD */')
    out.append('const char *gm_spec_attr_name(unsigned int cmd, int type);')
    out.append('')
    out.append('#endif')
    out.append('')
    return '\n'.join(out)


def source(spec, hdr_name):
    out = ['// SPDX-License-Identifier: GPL-2.0',
           f'/* Generated from {spec.path} by scripts/gen-nlspec.py: do not edit. */',
           f'#include "{hdr_name}"', '', '#include <stddef.h>', '']
    for d, entries in spec.enums():
        n = c_upper(d['name'])
        out.append(f'const char *const gm_spec_{c_lower(d["name"])}_names[GM_SPEC_{n}_COUNT] = {{')
        for name, cname, value, i in entries:
            # flags are bit values: index by position
            idx = cname if d.get('type') == 'enum' else str(i)
            out.append(f'\t[{idx}] = "{name}",')
        out.append('};')
        out.append('')
    for s, attrs, max_name in spec.attr_sets():
        low = c_lower(s['name'])
        out.append(f'const struct nla_policy gm_spec_{low}_policy[{max_name} + 1] = {{')
        for a, cname in attrs:
            t = a['type']
            if t not in NLA_TYPES:
                sys.exit(f'{spec.path}: attribute {s["name"]}.{a["name"]}: type {t} unknown to '
                         'scripts/gen-nlspec.py')
            if NLA_TYPES[t]:
                out.append(f'\t[{cname}] = {{ .type = {NLA_TYPES[t]} }},')
        out.append('};')
        out.append('')
        out.append(f'const char *const gm_spec_{low}_names[{max_name} + 1] = {{')
        for a, cname in attrs:
            out.append(f'\t[{cname}] = "{a["name"]}",')
        out.append('};')
        out.append('')
    sets = {s['name']: (max_name, c_lower(s['name'])) for s, _, max_name in spec.attr_sets()}
    out.append('const char *gm_spec_attr_name(unsigned int cmd, int type)')
    out.append('{')
    out.append('\tswitch (cmd) {')
    by_set = {}
    for o, cname in spec.ops():
        if 'attribute-set' in o and ('do' in o or 'dump' in o):
            by_set.setdefault(o['attribute-set'], []).append(cname)
    for set_name, cmds in by_set.items():
        max_name, low = sets[set_name]
        for c in cmds:
            out.append(f'\tcase {c}:')
        out.append(f'\t\treturn type > 0 && type <= {max_name} ? gm_spec_{low}_names[type] : NULL;')
    out.append('\tdefault:')
    out.append('\t\treturn NULL;')
    out.append('\t}')
    out.append('}')
    out.append('')
    return '\n'.join(out)


def main():
    a = sys.argv[1:]
    if len(a) == 5 and a[1] == '--source' and a[3] == '--header':
        spec_path, _, src, _, hdr = a
        mode = 'write'
    elif len(a) == 4 and a[1] == '--check':
        spec_path, _, src, hdr = a
        mode = 'check'
    else:
        sys.exit(__doc__)
    spec = Spec(spec_path)
    hdr_name = hdr.rsplit('/', 1)[-1]
    want = {src: source(spec, hdr_name), hdr: header(spec, hdr)}
    if mode == 'write':
        for path, text in want.items():
            with open(path, 'w') as f:
                f.write(text)
        return
    bad = []
    for path, text in want.items():
        try:
            with open(path) as f:
                have = f.read()
        except OSError as e:
            bad.append(f'{path}: {e.strerror}')
            continue
        if have != text:
            bad.append(f'{path}: not what {spec_path} generates '
                       f'(python3 scripts/gen-nlspec.py {spec_path} --source {src} --header {hdr})')
    if bad:
        print('\n'.join(bad))
        sys.exit(1)


if __name__ == '__main__':
    main()
