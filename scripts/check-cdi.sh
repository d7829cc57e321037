#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Host check cdi-spec: `gpumemctl cdi generate` on a made-up sysfs (two PCI
# GPUs, one with a render node, a platform device and a connector that are
# not described) is valid against the CDI project's own JSON schema (from
# Debian's golang-github-container-orchestrated-devices-container-device-
# interface-dev, downloaded and unpacked into the cache, not installed), its
# device names pass CDI's name rule, and it says exactly which nodes and
# hook each device gets.
#
# Usage: check-cdi.sh GPUMEMCTL      prints one GPUMEM-RESULT line
set -uo pipefail
. "$(dirname "$0")/lib.sh"
ctl=$1
pkg=golang-github-container-orchestrated-devices-container-device-interface-dev
dir=$GPUMEM_CACHE/debs/cdi
fail() { echo "GPUMEM-RESULT: FAIL host cdi-spec: $*"; exit 1; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/gpumem-cdi.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

mkdir -p "$dir"
if ! done_stamp "$dir"; then
	rm -rf "$dir"/*
	(cd "$dir" && apt-get download -q "$pkg" >/dev/null 2>&1) || fail "apt-get download $pkg"
	dpkg-deb -x "$dir"/*.deb "$dir/x" || fail "cannot unpack $pkg"
	mark_done "$dir"
fi
schema=$(find "$dir/x" -path '*/container-device-interface/schema/schema.json' | head -n1)
[ -n "$schema" ] || fail "no schema/schema.json in $pkg"

root=$tmp/root
d=$root/sys/devices
mkdir -p "$d/pci0000:00/0000:00:02.0/drm/renderD128" "$d/pci0000:00/0000:00:01.0/drm" \
	"$d/platform/vgem" "$root/sys/class/drm/card1-Virtual-1"
for c in "card0 pci0000:00/0000:00:02.0" "card1 pci0000:00/0000:00:01.0" "card2 platform/vgem"; do
	set -- $c
	mkdir -p "$root/sys/class/drm/$1"
	ln -s "../../../devices/$2" "$root/sys/class/drm/$1/device"
done
GPUMEM_SYSROOT=$root "$ctl" cdi generate -o "$tmp/gpumem.json" --hook /opt/gm/hook ||
	fail "gpumemctl cdi generate exited $?"
out=$(python3 - "$schema" "$tmp/gpumem.json" <<'PY' 2>&1
import json, os, re, sys
import jsonschema
schema_path, spec_path = sys.argv[1], sys.argv[2]
schema = json.load(open(schema_path))
base = 'file://' + os.path.dirname(os.path.abspath(schema_path)) + '/'
resolver = jsonschema.RefResolver(base, schema)
text = open(spec_path).read()
# CDI reads a spec with a YAML 1.1 parser (go-yaml through sigs.k8s.io/yaml),
# which refuses JSON's "\/" escape: podman 4.3 then finds no device at all
assert '\\/' not in text, 'a "\\/" escape: CDI cannot parse the spec'
spec = json.loads(text)
jsonschema.validate(spec, schema, resolver=resolver)
# CDI's ValidateDeviceName (pkg/cdi/qualified-device.go) and kind rule
name_ok = re.compile(r'^[A-Za-z0-9]([A-Za-z0-9_.:-]*[A-Za-z0-9])?$')
for d in spec['devices']:
    assert name_ok.match(d['name']), 'bad device name %r' % d['name']
assert re.match(r'^[A-Za-z0-9][A-Za-z0-9_.-]*/[A-Za-z0-9][A-Za-z0-9_.-]*$', spec['kind'])
got = [(d['name'], [n['path'] for n in d['containerEdits']['deviceNodes']],
        [(h['hookName'], h['path'], h['args']) for h in d['containerEdits']['hooks']])
       for d in spec['devices']]
want = [
    ('0000:00:01.0', ['/dev/dri/card1'],
     [('createRuntime', '/opt/gm/hook', ['gpumem-oci-hook', '--device', '0000:00:01.0'])]),
    ('0000:00:02.0', ['/dev/dri/card0', '/dev/dri/renderD128'],
     [('createRuntime', '/opt/gm/hook', ['gpumem-oci-hook', '--device', '0000:00:02.0'])]),
    ('all', ['/dev/dri/card1', '/dev/dri/card0', '/dev/dri/renderD128'],
     [('createRuntime', '/opt/gm/hook', ['gpumem-oci-hook', '--device', 'all'])]),
]
assert spec['cdiVersion'] == '0.5.0' and spec['kind'] == 'gpumem.io/gpu', spec
assert got == want, 'got %r' % (got,)
print('ok')
PY
) || fail "$(printf '%s' "$out" | tail -n 3 | tr '\n' ' ' | cut -c1-300)"
[ "$(stat -c %a "$tmp/gpumem.json")" = 644 ] || fail "the spec file is not mode 0644"
echo "GPUMEM-RESULT: PASS host cdi-spec"
