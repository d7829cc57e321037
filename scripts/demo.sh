#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Demo: set the host up, fetch the Debian 6.12 kernel, build gpumem for it,
# boot a guest with qxl, bochs, vgem and virtio-gpu devices, run the demo
# (tests/guest/demo.sh, or a dump of /sys/kernel/debug/gpumem/*) and print
# what the guest printed.
# Usage: demo.sh [--append ARGS] [-v]   (arguments go to run-guest.sh)
set -euo pipefail
. "$(dirname "$0")/lib.sh"
scripts=$GPUMEM_TOP/scripts

"$scripts/setup-host.sh" >&2
"$scripts/fetch-kernels.sh" 6.12 >&2
exec "$scripts/run-guest.sh" 6.12 --demo "$@"
