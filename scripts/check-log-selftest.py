#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Self-test of scripts/check-log on made-up guest runs (no guest booted).

Each case writes a console log, a result channel and a manifest, runs
check-log on them and asserts its verdicts. Prints one result line per case,
GPUMEM-RESULT: PASS|FAIL host check-log/<case>[: <why>].
"""
import os
import subprocess
import sys
import tempfile

CHECK_LOG = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'check-log')

MANIFEST = '''\
init/guest-gpus
init/module-load
init/module-unload
10-a/one
10-a/two
20-b/only-old @6.1
20-b/skippy
skip 7.3 20-b/skippy bochs is a shmem driver on 7.x
30-m/scrape @6.12
'''


def channel(*body, done=True, dmesg=('[    1.0] booted',)):
    lines = ['START 7.3 7.3.0-test', 'RESULT PASS init/guest-gpus', 'RESULT PASS init/module-load']
    lines += list(body)
    lines += ['RAN 2', 'RESULT PASS init/module-unload', 'DMESG-BEGIN', *dmesg, 'DMESG-END']
    if done:
        lines.append('DONE')
    return '\r\n'.join(lines) + '\r\n'


def script(name, *results, rc=0, secs=3, timeout=0):
    return [f'BEGIN {name}', *[f'RESULT {r}' for r in results],
            f'END {name} rc={rc} secs={secs} timeout={timeout}']


GOOD = (script('10-a', 'PASS 10-a/one', 'PASS 10-a/two')
        + script('20-b', 'SKIP 20-b/skippy: bochs is a shmem driver on 7.x (bochs-drm)'))


def with_artifact(*body, end=True, name='30-m/scrape.prom'):
    """Script 30-m, which reported nothing itself and left an artifact."""
    art = [f'ARTIFACT-BEGIN {name}', *body] + (['ARTIFACT-END'] if end else [])
    return ['BEGIN 30-m', *art, 'END 30-m rc=0 secs=2 timeout=0']


PROM_GOOD = ('# HELP gpumem_up 1 when the module answers.', '# TYPE gpumem_up gauge', 'gpumem_up 1')
PROM_BAD = ('# HELP gpumem_up 1 when the module answers.', '# TYPE gpumem_up gauge',
            'gpumem_up{device="card0" 1')

# name -> (channel, console, series, only, want exit, lines that must appear,
#          lines that must not appear)
CASES = {
    'clean-run': (channel(*GOOD), '', '7.3', '*', 0,
                  ['summary 7.3: 5 passed, 0 failed, 1 skipped'], ['FAIL']),
    'console-result-ignored': (
        channel(*script('10-a', 'PASS 10-a/one'),
                *script('20-b', 'SKIP 20-b/skippy: bochs is a shmem driver on 7.x')),
        'GPUMEM-RESULT: PASS 7.3 10-a/two\nRESULT PASS 10-a/two\n', '7.3', '*', 1,
        ['FAIL 7.3 10-a/two: never reported'], ['PASS 7.3 10-a/two']),
    'exit-after-pass': (channel(*script('10-a', 'PASS 10-a/one', 'PASS 10-a/two', rc=1),
                                *script('20-b', 'SKIP 20-b/skippy: bochs is a shmem driver on 7.x')),
                        '', '7.3', '*', 1, ['FAIL 7.3 10-a: exited 1'], []),
    'timeout': (channel(*script('10-a', 'PASS 10-a/one', 'PASS 10-a/two', rc=143, secs=120, timeout=1),
                        *script('20-b', 'SKIP 20-b/skippy: bochs is a shmem driver on 7.x')),
                '', '7.3', '*', 1, ['FAIL 7.3 10-a: timed out after 120s'], []),
    'script-never-ran': (channel(*script('20-b', 'SKIP 20-b/skippy: bochs is a shmem driver on 7.x')),
                         '', '7.3', '*', 1, ['FAIL 7.3 10-a: never ran'], []),
    'script-not-selected': (channel(*script('20-b', 'SKIP 20-b/skippy: bochs is a shmem driver on 7.x')),
                            '', '7.3', '2*', 0, [], ['FAIL']),
    'case-never-reported': (channel(*script('10-a', 'PASS 10-a/one'), *GOOD[5:]), '', '7.3', '*', 1,
                            ['FAIL 7.3 10-a/two: never reported'], []),
    'skip-without-leave': (channel(*script('10-a', 'PASS 10-a/one', 'SKIP 10-a/two: cannot create cgroup'),
                                   *GOOD[5:]), '', '7.3', '*', 1,
                           ['FAIL 7.3 10-a/two: cannot create cgroup [SKIP not allowed'], ['SKIP 7.3 10-a/two']),
    'skip-other-reason': (channel(*GOOD[:4], *script('20-b', 'SKIP 20-b/skippy: helper failed')),
                          '', '7.3', '*', 1, ['FAIL 7.3 20-b/skippy: helper failed [SKIP reason differs'], []),
    'skip-other-series': (channel(*GOOD[:4], *script('20-b', 'SKIP 20-b/skippy: bochs is a shmem driver on 7.x',
                                                     'PASS 20-b/only-old')).replace('START 7.3', 'START 6.1'),
                          '', '6.1', '*', 1, ['FAIL 6.1 20-b/skippy: bochs is a shmem driver on 7.x [SKIP not allowed'],
                          []),
    'reported-twice': (channel(*script('10-a', 'PASS 10-a/one', 'FAIL 10-a/one: broken', 'PASS 10-a/two'),
                               *GOOD[5:]), '', '7.3', '*', 1, ['FAIL 7.3 10-a/one: reported 2 times'],
                       ['PASS 7.3 10-a/one']),
    'unknown-case': (channel(*GOOD, *script('30-c', 'PASS 30-c/new')), '', '7.3', '*', 1,
                     ['FAIL 7.3 30-c: ran, but tests/manifest expects nothing', 'FAIL 7.3 30-c/new [PASS, but'], []),
    'guest-died': (channel(*GOOD[:2], done=False).split('RAN')[0], 'Kernel panic - not syncing: boom\n',
                   '7.3', '*', 1, ['FAIL 7.3 10-a: did not finish', 'FAIL 7.3 guest: the runner never finished',
                                   'FAIL 7.3 kernel-log: Kernel panic'], []),
    'no-channel': ('', 'GPUMEM-RESULT: PASS 7.3 10-a/one\n', '7.3', '*', 1,
                   ['FAIL 7.3 guest: never reached /init'], ['PASS 7.3 10-a/one']),
    'kernel-warning': (channel(*GOOD, dmesg=('[    2.0] WARNING: CPU: 1 PID: 7 at kmod/hooks.c:10 x+0x1/0x2',
                                             '[    2.0] ---[ end trace 0000000000000000 ]---')),
                       '', '7.3', '*', 1, ['FAIL 7.3 kernel-log: WARNING: CPU'], []),
    'forged-dmesg-done': (channel(*script('10-a', 'PASS 10-a/one', 'PASS 10-a/two'), done=False)
                          .replace('RAN 2', 'RAN 1'), '', '7.3', '*', 1,
                          ['FAIL 7.3 20-b: never ran', 'FAIL 7.3 guest: the runner never finished'], []),
    'artifact-prom-pass': (channel(*with_artifact(*PROM_GOOD)), '', '6.12', '30-*', 0,
                           ['PASS 6.12 30-m/scrape', 'summary 6.12: 4 passed, 0 failed'], ['FAIL']),
    'artifact-prom-fail': (channel(*with_artifact(*PROM_BAD)), '', '6.12', '30-*', 1,
                           ['FAIL 6.12 30-m/scrape: promtool check metrics'], ['PASS 6.12 30-m/scrape']),
    'artifact-prom-empty': (channel(*with_artifact('# HELP x y')), '', '6.12', '30-*', 1,
                            ['FAIL 6.12 30-m/scrape: artifact scrape.prom: no sample'], []),
    'artifact-cut-off': (channel(*with_artifact(*PROM_GOOD, end=False), done=False), '', '6.12', '30-*', 1,
                         ['FAIL 6.12 30-m/scrape: artifact scrape.prom cut off'], ['PASS 6.12 30-m/scrape']),
    'artifact-missing': (channel('BEGIN 30-m', 'END 30-m rc=0 secs=2 timeout=0'), '', '6.12', '30-*', 1,
                         ['FAIL 6.12 30-m/scrape: never reported'], []),
    'artifact-unknown-kind': (channel(*with_artifact(*PROM_GOOD, name='30-m/scrape.txt')), '', '6.12',
                              '30-*', 1, ['FAIL 6.12 30-m/scrape: artifact scrape.txt: no check'], []),
}


def run_case(name, case):
    chan, console, series, only, want_rc, must, mustnt = case
    with tempfile.TemporaryDirectory() as d:
        paths = {}
        for f, text in (('console.log', console), ('chan', chan), ('manifest', MANIFEST)):
            paths[f] = os.path.join(d, f)
            with open(paths[f], 'w') as fh:
                fh.write(text)
        p = subprocess.run([sys.executable, CHECK_LOG, paths['console.log'], paths['chan'], series,
                            '--only', only, '--manifest', paths['manifest']],
                           capture_output=True, text=True, check=False)
        out = p.stdout
        why = []
        if p.returncode != want_rc:
            why.append(f'exit {p.returncode}, want {want_rc}')
        for m in must:
            if not any(m in l for l in out.splitlines()):
                why.append(f'no line with {m!r}')
        for m in mustnt:
            if any(m in l for l in out.splitlines() if l.startswith('GPUMEM-RESULT: ')):
                why.append(f'a line with {m!r}')
        if why:
            sys.stderr.write(f'--- check-log output for {name}:\n{out}{p.stderr}')
            print(f'GPUMEM-RESULT: FAIL host check-log/{name}: ' + '; '.join(why))
            return False
        print(f'GPUMEM-RESULT: PASS host check-log/{name}')
        return True


def main():
    ok = all([run_case(n, c) for n, c in CASES.items()])
    sys.exit(0 if ok else 1)


if __name__ == '__main__':
    main()
