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
kunit/gpumem_s/case_a @test
kunit/gpumem_s/case_b @test
'''


BOOT = '[    0.000000] Linux version 7.3.0-test (gcc) #1 SMP'


def channel(*body, done=True, dmesg=('[    1.0] booted',), ktap=None, kmemleak=None):
    lines = ['START 7.3 7.3.0-test', 'RESULT PASS init/guest-gpus', 'RESULT PASS init/module-load']
    lines += list(body)
    lines += ['RAN 2']
    if ktap is not None:
        lines += ['KTAP-BEGIN', *ktap, 'KTAP-END']
    lines += ['RESULT PASS init/module-unload']
    if kmemleak is not None:
        lines += ['KMEMLEAK-BEGIN', *kmemleak, 'KMEMLEAK-END']
    lines += ['DMESG-BEGIN', BOOT, *dmesg, 'DMESG-END']
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


# KUnit's debugfs results file of one suite (lib/kunit/debugfs.c, 6.12)
KTAP_S = ('KTAP version 1', '1..1', '    KTAP version 1', '    # Subtest: gpumem_s', '    1..2',
          '    ok 1 case_a', '    # case_b: EXPECTATION FAILED at kunit/s.c:9',
          '    not ok 2 case_b', 'not ok 1 gpumem_s')
# ... and what KUnit printed to the kernel log
KLOG_S = ('[    9.000000] KTAP version 1', '[    9.000000] 1..1',
          '[    9.000000]     KTAP version 1', '[    9.000000]     # Subtest: gpumem_s',
          '[    9.000000]     1..2', '[    9.000000]     ok 1 case_a',
          '[    9.000000]     not ok 2 case_b', '[    9.000000] not ok 1 gpumem_s')
# A KTAP document written into the kernel log through /dev/kmsg
FORGED = ('[   10.000000] KTAP version 1', '[   10.000000] 1..1',
          '[   10.000000]     # Subtest: gpumem_s', '[   10.000000]     1..1',
          '[   10.000000]     ok 1 case_b', '[   10.000000] ok 1 gpumem_s')
LEAK = ('unreferenced object 0xffff888004a1b000 (size 64):',
        '  comm "modprobe", pid 90, jiffies 4294900000',
        '  backtrace (crc 0):',
        '    [<ffffffff81234567>] kmemleak_alloc+0x4a/0x80',
        '    [<ffffffff81345678>] __kmalloc_noprof+0x1a0/0x2f0',
        '    [<ffffffffc0123456>] drm_gem_object_init+0x20/0x60 [drm]')

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
    'dump-wrapped': (channel(*GOOD).replace(BOOT + '\r\n', ''), '', '7.3', '*', 1,
                     ['FAIL 7.3 kernel-log/dump: the kernel-log dump does not start at boot'], []),
    'console-warning-not-in-dump': (
        channel(*GOOD), 'WARNING: a test printed this\n[    3.000000] WARNING: CPU: 0 PID: 1 at x.c:1 f+0x1/0x2\n'
        '[    3.000000] ---[ end trace 0000000000000000 ]---\n', '7.3', '*', 1,
        ['FAIL 7.3 kernel-log: WARNING: CPU: 0 PID: 1 at x.c:1 f+0x1/0x2 [on the console'], []),
    'console-test-output-ignored': (channel(*GOOD), 'WARNING: a test printed this\nCall Trace:\n', '7.3', '*',
                                    0, [], ['FAIL']),
    'console-and-dump-once': (
        channel(*GOOD, dmesg=('[    3.000000] WARNING: CPU: 0 PID: 1 at x.c:1 f+0x1/0x2',
                              '[    3.000000] ---[ end trace 0000000000000000 ]---')),
        'junk[    3.000000] WARNING: CPU: 0 PID: 1 at x.c:1 f+0x1/0x2\n'
        '[    3.000000] ---[ end trace 0000000000000000 ]---\n', '7.3', '*', 1,
        ['FAIL 7.3 kernel-log: WARNING: CPU: 0 PID: 1 at x.c:1 f+0x1/0x2', 'summary 7.3: 5 passed, 1 failed'],
        ['on the console']),
    'kmemleak-outside-gpumem': (channel(*GOOD, kmemleak=LEAK), '', '7.3', '*', 1,
                                ['FAIL 7.3 kernel-log: unreferenced object X (size 64): drm_gem_object_init'
                                 .replace('X', '0xffff888004a1b000')], []),
    'ktap-forwarded': (channel(ktap=KTAP_S, dmesg=KLOG_S).replace('START 7.3', 'START test'), '',
                       'test', '-', 1, ['PASS test kunit/gpumem_s/case_a',
                                        'FAIL test kunit/gpumem_s/case_b: EXPECTATION FAILED',
                                        'summary test: 4 passed, 1 failed'], ['forged']),
    'ktap-from-log-ignored': (channel(dmesg=KLOG_S).replace('START 7.3', 'START test'), '', 'test', '-', 1,
                              ['FAIL test kunit/gpumem_s/case_a: never reported',
                               'FAIL test kernel-log/forged-ktap: the kernel log has "PASS kunit/gpumem_s/case_a"'],
                              ['PASS test kunit/']),
    'ktap-forged': (channel(ktap=KTAP_S, dmesg=KLOG_S + FORGED).replace('START 7.3', 'START test'), '',
                    'test', '-', 1, ['FAIL test kernel-log/forged-ktap: the kernel log has "PASS kunit/gpumem_s/case_b"',
                                     'FAIL test kunit/gpumem_s/case_b: EXPECTATION FAILED'],
                    ['PASS test kunit/gpumem_s/case_b']),
    'ktap-forged-console': (channel(ktap=KTAP_S, dmesg=KLOG_S, done=False).split('DMESG-BEGIN')[0]
                            .replace('START 7.3', 'START test'), '\n'.join(KLOG_S + FORGED) + '\n', 'test', '-',
                            1, ['FAIL test kernel-log/forged-ktap: the kernel log has "PASS kunit/gpumem_s/case_b"'],
                            ['PASS test kunit/gpumem_s/case_b']),
    'no-kunit': (channel().replace('START 7.3', 'START test'), '', 'test', '-', 0, [], ['FAIL'], ['--no-kunit']),
    'no-kunit-but-reported': (channel(ktap=KTAP_S).replace('START 7.3', 'START test'), '', 'test', '-', 1,
                              ['FAIL test kunit/gpumem_s/case_a [PASS, but tests/manifest does not expect it'],
                              [], ['--no-kunit']),
    'artifact-unknown-kind': (channel(*with_artifact(*PROM_GOOD, name='30-m/scrape.txt')), '', '6.12',
                              '30-*', 1, ['FAIL 6.12 30-m/scrape: artifact scrape.txt: no check'], []),
}


def run_case(name, case):
    chan, console, series, only, want_rc, must, mustnt = case[:7]
    extra = list(case[7]) if len(case) > 7 else []
    with tempfile.TemporaryDirectory() as d:
        paths = {}
        for f, text in (('console.log', console), ('chan', chan), ('manifest', MANIFEST)):
            paths[f] = os.path.join(d, f)
            with open(paths[f], 'w') as fh:
                fh.write(text)
        p = subprocess.run([sys.executable, CHECK_LOG, paths['console.log'], paths['chan'], series,
                            '--only', only, '--manifest', paths['manifest'], *extra],
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
