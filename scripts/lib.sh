# SPDX-License-Identifier: GPL-2.0
# Common settings for gpumem's host scripts. Source, do not run.

GPUMEM_CACHE=${GPUMEM_CACHE:-/var/cache/gpumem}
GPUMEM_TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
DEBIAN_MIRROR=${DEBIAN_MIRROR:-http://deb.debian.org/debian}

# The Debian kernels the suite boots, as "series" names.
GPUMEM_SERIES=${GPUMEM_SERIES:-"6.1 6.12 7.3"}

log() { printf '[%s] %s\n' "$(date +%T)" "$*" >&2; }
die() { printf 'error: %s\n' "$*" >&2; exit 1; }

# Stamp-file helpers: a step that finished writes its stamp last, so an
# interrupted step is redone on the next run instead of being trusted.
done_stamp() { [ -e "$1/.gpumem-done" ]; }
mark_done() { touch "$1/.gpumem-done"; }
