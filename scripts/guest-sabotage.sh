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
#   5. 19-unlisted.sh, a script tests/manifest does not know, passes a case.

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
echo "GPUMEM-GUEST: sabotage applied"
