#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Install everything gpumem's build, guest harness and tests need on a
# Debian 12 (bookworm) host. Idempotent; run as root.
set -euo pipefail

PKGS=(build-essential make gcc bc bison flex libelf-dev libssl-dev dwarves
      kmod cpio patch busybox-static qemu-system-x86 qemu-utils xz-utils zstd
      libdrm-dev libnl-3-dev libnl-genl-3-dev libjson-c-dev libinih-dev pkg-config sparse
      debootstrap python3 python3-yaml python3-jsonschema rsync file tmux
      dkms crun podman conmon runc libmicrohttpd-dev prometheus
      python3-grpcio python3-protobuf protobuf-compiler)

if [ "$(id -u)" != 0 ]; then
	echo "setup-host: must run as root" >&2
	exit 1
fi

src=/etc/apt/sources.list.d/gpumem-backports.list
if ! grep -rqs 'bookworm-backports' /etc/apt/sources.list /etc/apt/sources.list.d/; then
	echo 'deb http://deb.debian.org/debian bookworm-backports main' > "$src"
fi

missing=()
for p in "${PKGS[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' || missing+=("$p")
done
# node and npm (deploy/check.sh's validators): Debian's, unless the host has
# its own (NodeSource's nodejs bundles npm and conflicts with Debian's npm)
command -v node >/dev/null && command -v npm >/dev/null || missing+=(nodejs npm)
stamp=/var/lib/apt/periodic/gpumem-update-stamp
if [ ${#missing[@]} -gt 0 ] || [ ! -e "$stamp" ] ||
   [ -n "$(find "$stamp" -mmin +720 2>/dev/null)" ]; then
	apt-get update -qq
	mkdir -p "$(dirname "$stamp")" && touch "$stamp"
fi
if [ ${#missing[@]} -gt 0 ]; then
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
