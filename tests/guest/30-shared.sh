#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# PRIME sharing. Exporter X allocates two BOs and passes the first as a
# dma-buf over a unix socket (SCM_RIGHTS) to Y and Z, which import it on their
# own open of the device: three processes hold a handle to one GEM object.
# Expect: X holds 2 BOs, Y and Z one; "shared" is the shared BO's size in all
# three; it is owned by X alone (oldest client, docs/accounting.md's owner rule); buffers
# lists it once.
# Self-import: one process, two files, each BO counted once.
. "$(dirname "$0")/lib.sh"
require_gpumem

# prime_case DRIVER KIND REGION
prime_case() {
	drv=$1 kind=$2 region=$3
	tc_begin "prime-$drv"
	card=$(card_of "$drv")
	if [ -z "$card" ]; then
		tc_fail "no $drv card in this guest (run-guest.sh attaches qxl-vga, modprobes vgem)"
		tc_end
		return
	fi
	sock=$GM_TMP/prime-$drv.sock
	if ! spawn x export -d "$drv" -k "$kind" -n 2 -s 1M -S "$sock" -c gm-exporter; then
		tc_fail "exporter failed: $(helper_why x)"
		tc_end
		return
	fi
	if ! spawn y import -d "$drv" -S "$sock" -c gm-importer ||
		! spawn z import -d "$drv" -S "$sock" -c gm-importer2; then
		tc_fail "importer failed: $(helper_why y) $(helper_why z)"
		stop x; stop y; stop z
		tc_end
		return
	fi
	xh=$(out_val x EXPORTED handle)
	size=$(out_val x EXPORTED size)
	other=$(out_bo x 1 size)
	yh=$(out_val y IMPORTED handle)
	zh=$(out_val z IMPORTED handle)
	tc_eq "dma-buf size seen by importer y" "$(out_val y IMPORTED size)" "$size"
	tc_eq "dma-buf size seen by importer z" "$(out_val z IMPORTED size)" "$size"
	tc_eq "exported size" "$size" "$MiB"

	snap processes
	snap buffers
	P=$GM_TMP/processes B=$GM_TMP/buffers
	pcol() { tbl_get "$P" "$2" pid="$1" device="$card"; }
	tc_eq "x $region" "$(pcol "$x_pid" "$region")" $((size + other))
	tc_eq "x bos" "$(pcol "$x_pid" bos)" 2
	tc_eq "x shared" "$(pcol "$x_pid" shared)" "$size"
	for p in "$y_pid" "$z_pid"; do
		tc_eq "importer $p $region" "$(pcol "$p" "$region")" "$size"
		tc_eq "importer $p bos" "$(pcol "$p" bos)" 1
		tc_eq "importer $p shared" "$(pcol "$p" shared)" "$size"
	done

	# Owner rule (docs/accounting.md): the process of the oldest client holding the BO;
	# x opened the device first, so x owns both its BOs, y and z nothing.
	xo=$(pcol "$x_pid" owned) yo=$(pcol "$y_pid" owned) zo=$(pcol "$z_pid" owned)
	tc_eq "x owned" "$xo" $((size + other))
	tc_eq "y owned" "$yo" 0
	tc_eq "z owned" "$zo" 0
	owner=$x_pid owner_handle=$xh

	# buffers: the shared BO once, holders x,y,z (owner first), plus x's private BO.
	R=$GM_TMP/prime-$drv.rows
	awk -v x="$x_pid" -v y="$y_pid" -v z="$z_pid" -v d="$card" '
		NR == 1 { for (i = 1; i <= NF; i++) h[$i] = i; print; next }
		$(h["device"]) == d {
			n = split($(h["holders"]), a, ",")
			for (i = 1; i <= n; i++) if (a[i] == x || a[i] == y || a[i] == z) { print; next }
		}' "$B" >"$R"
	tc_eq "buffers rows held by x/y/z" "$(tbl_count "$R")" 2
	tc_eq "shared rows" "$(tbl_count "$R" shared=yes)" 1
	tc_eq "shared BO owner" "$(tbl_get "$R" owner shared=yes)" "$owner"
	tc_eq "shared BO handle (owner's)" "$(tbl_get "$R" handle shared=yes)" "$owner_handle"
	tc_eq "shared BO size" "$(tbl_get "$R" size shared=yes)" "$size"
	tc_eq "shared BO region" "$(tbl_get "$R" region shared=yes)" "$region"
	holders=$(tbl_get "$R" holders shared=yes)
	tc_eq "shared BO holders: owner first" "${holders%%,*}" "$owner"
	tc_eq "shared BO holders" "$(echo "$holders" | tr ',' '\n' | sort -n | tr '\n' ' ')" \
		"$(printf '%s\n' "$x_pid" "$y_pid" "$z_pid" | sort -n | tr '\n' ' ')"
	tc_eq "private BO owner/size/holders" \
		"$(tbl_get "$R" owner shared=no) $(tbl_get "$R" size shared=no) $(tbl_get "$R" holders shared=no)" \
		"$x_pid $other $x_pid"
	stop z; stop y; stop x
	tc_end
}

# selfimport_case DRIVER KIND REGION
selfimport_case() {
	drv=$1 kind=$2 region=$3
	tc_begin "selfimport-$drv"
	card=$(card_of "$drv")
	if [ -z "$card" ]; then
		tc_fail "no $drv card in this guest (run-guest.sh attaches qxl-vga, modprobes vgem)"
		tc_end
		return
	fi
	if ! spawn s selfimport -d "$drv" -k "$kind" -n 2 -s 1M -c gm-selfimport; then
		tc_fail "helper failed: $(helper_why s)"
		tc_end
		return
	fi
	bytes=$(out_val s TOTAL bytes)
	tc_eq "printed total (2 x 1 MiB)" "$bytes" $((2 * MiB))
	tc_eq "second-file imports" "$(grep -c '^IMPORTED file=2' "$(out_of s)")" 2
	# Exported as dma-buf, so "shared" (docs/debugfs.md), but counted once.
	proc_check "$s_pid" "$card" "$region=$bytes" bos=2 owned="$bytes" shared="$bytes"
	snap buffers
	tc_eq "buffers rows owned by $s_pid" "$(tbl_count "$GM_TMP/buffers" owner="$s_pid")" 2
	tc_eq "holders" "$(tbl_get "$GM_TMP/buffers" holders owner="$s_pid" | sort -u)" "$s_pid"
	tc_eq "sizes" "$(tbl_get "$GM_TMP/buffers" size owner="$s_pid" | sort -u)" "$MiB"
	tc_eq "shared flags" "$(tbl_get "$GM_TMP/buffers" shared owner="$s_pid" | sort -u)" yes
	stop s
	tc_end
}

prime_case qxl vram vram
prime_case vgem dumb system
selfimport_case qxl vram vram
selfimport_case vgem dumb system

finish
