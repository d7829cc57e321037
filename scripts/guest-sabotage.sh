# SPDX-License-Identifier: GPL-2.0
# Sourced by the guest runner (scripts/guest-init.sh) under
# gpumemtest.sabotage, for the harness self-test (scripts/harness-selftest.sh):
# it breaks the suite on purpose, and the host expects every break to come
# out as a FAIL and nothing of it as a PASS:
#   1. `gpumemctl limit set` fails: 91-quota-enforce's setup cannot set a
#      limit, so each of its cases FAILs (a SKIP would hide it);
#   2. quota-alloc prints fake PASS lines for those cases on its stdout, on
#      the console and, if it can, on the result descriptor: none counts;
#   3. 10-devices.sh is deleted: the script never runs;
#   4. 20-process-vram.sh exits 1 after it reported its cases;
#   5. 19-unlisted.sh, a script tests/manifest does not know, passes a case;
#   6. an early WARN: a WARNING report goes to the kernel log (through
#      /dev/kmsg: Debian's kernels have no lkdtm), then 2.5 MB of debug-level
#      lines (below the console's loglevel) wrap the log buffer, which the
#      self-test leaves at the kernel's default size: the dump at the end
#      starts after boot and lacks the WARN, which only the console has;
#   7. a forged KTAP document through /dev/kmsg: a KUnit suite that PASSes
#      (no KUnit runs on this kernel).

for _b in gpumemctl quota-alloc; do
	mv "/tests/bin/$_b" "/tests/bin/$_b.real"
done
cat >/tests/bin/gpumemctl <<'EOS'
#!/bin/sh
case " $* " in
*" limit set "* | "limit set "*) echo "gpumemctl: sabotaged: limit set refused" >&2; exit 1 ;;
esac
exec /tests/bin/gpumemctl.real "$@"
EOS
cat >/tests/bin/quota-alloc <<'EOS'
#!/bin/sh
s=$(cat /etc/gpumem-series)
for c in quota-enforce-deny quota-enforce-no-eviction quota-enforce-event quota-deny-per-request \
	quota-set-below-usage quota-raise-clear quota-exact-zero quota-event-seq; do
	echo "GPUMEM-RESULT: PASS $s $c"
	echo "GPUMEM-RESULT: PASS $s 91-quota-enforce/$c" >/dev/console
	echo "RESULT PASS 91-quota-enforce/$c" >/dev/console
	{ echo "PASS $c" >&8; } 2>/dev/null
done
exec /tests/bin/quota-alloc.real "$@"
EOS
chmod 755 /tests/bin/gpumemctl /tests/bin/quota-alloc
rm -f /tests/10-devices.sh
sed -i 's/^finish$/exit 1/' /tests/20-process-vram.sh
cat >/tests/19-unlisted.sh <<'EOS'
. "$(dirname "$0")/lib.sh"
pass unlisted-case
finish
EOS
# 6. (no rate limit on /dev/kmsg for the flood)
echo on >/proc/sys/kernel/printk_devkmsg
exec 5>/dev/kmsg
echo "<4>WARNING: CPU: 0 PID: 1 at scripts/guest-sabotage.sh:1 sabotage_early_warn+0x0/0x10" >&5
echo "<4>---[ end trace 0000000000000000 ]---" >&5
_pad=0123456789abcdefghijklmnopqrstuvwxyz0123456789abcdefghijklmnopqrstuvwxyz0123456789abcdefghijkl
_pad="$_pad$_pad$_pad$_pad$_pad$_pad$_pad$_pad$_pad$_pad"
_i=0
while [ $_i -lt 2500 ]; do
	echo "<7>gpumem sabotage: filler $_i $_pad" >&5
	_i=$((_i + 1))
done
# 7.
for _l in 'KTAP version 1' '1..1' '    KTAP version 1' '    # Subtest: gpumem_frag' '    1..1' \
	'    ok 1 frag_buddy_real' 'ok 1 gpumem_frag'; do
	echo "<6>$_l" >&5
done
exec 5>&-
echo "GPUMEM-GUEST: sabotage applied"
