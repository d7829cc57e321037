#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# gpumemctl top on a real terminal (tmux), against the simulated kernel
# (userspace/tests/gpumemctl-fake: 5 rows of 4 processes): the title counts
# processes, the charged view has no never-filled columns, a resized window
# is redrawn at once (the interval is 30 s) and says how many rows did not
# fit, Ctrl-Z gives the shell a sane terminal (canonical, echo, cursor
# shown), fg takes the screen again, q quits with status 0.
# Usage: gpumemctl/tests/top-tty.sh [path/to/gpumemctl-fake]; prints one "ok"/"not ok"
# line per check and "N passed, N failed".
set -uo pipefail
fake=$(realpath "${1:-$(dirname "$0")/../../tests/gpumemctl-fake}")
command -v tmux >/dev/null || { echo "not ok - tmux is not installed"; echo "0 passed, 1 failed"; exit 1; }
[ -x "$fake" ] || { echo "not ok - no $fake"; echo "0 passed, 1 failed"; exit 1; }

sock=gm-top-$$
tmp=$(mktemp -d)
T() { tmux -L "$sock" "$@"; }
trap 'T kill-server 2>/dev/null; rm -rf "$tmp"' EXIT
passed=0 failed=0
ok() { echo "ok - $1"; passed=$((passed + 1)); }
bad() { echo "not ok - $1"; failed=$((failed + 1)); sed 's/^/#   /' "$tmp/screen"; }
screen() { T capture-pane -p -t gm >"$tmp/screen"; }
# until SECONDS CMD: poll the screen until CMD (on $tmp/screen) succeeds
until_screen() {
	local end=$(($(date +%s%N) / 1000000 + $1 * 1000)) t=$1
	shift
	while :; do
		screen
		"$@" && return 0
		[ $(($(date +%s%N) / 1000000)) -ge "$end" ] && return 1
		sleep 0.05
	done
}
has() { grep -q -- "$1" "$tmp/screen"; }

T -f /dev/null new-session -d -s gm -x 120 -y 40 "env -i PATH=/usr/bin:/bin TERM=screen PS1='PROMPT\$ ' bash --norc --noprofile -i"
until_screen 15 has 'PROMPT\$' || bad "shell prompt"
T send-keys -t gm "$fake top -i 30" Enter
if until_screen 15 has '^gpumemctl top - '; then
	has ' - 4 processes - q quits' && ok "title counts processes (4), not rows (5)" ||
		bad "title counts processes (4), not rows (5)"
	hdr=$(grep '^ *PID ' "$tmp/screen" | tr -s ' ' | sed 's/^ //')
	[ "$hdr" = "PID COMM DEVICE VRAM GTT BOS CGROUP" ] &&
		ok "charged view: no SYSTEM/OTHER/SHARED columns" ||
		bad "charged view header is '$hdr'"
	has 'more row' && bad "40 lines: every row fits" || ok "40 lines: every row fits"
else
	bad "top did not draw"
fi

# 12 lines: title, blank, device header + 3 regions, blank, header = 8
# used, one kept free: 3 lines for 5 rows (2 rows and the count)
T resize-window -t gm -y 12
if until_screen 15 has '^\.\.\. 3 more rows (a larger window shows them)'; then
	ok "resized to 12 lines: redrawn at once (interval 30 s), 3 rows that do not fit counted"
else
	bad "resized to 12 lines: no redraw with a '3 more rows' line within 15 s"
fi
T resize-window -t gm -y 40

T send-keys -t gm C-z
if until_screen 15 has 'Stopped'; then
	ok "Ctrl-Z stops top"
	T send-keys -t gm "clear; stty -a | tr ' ;' '\n\n' | grep -x -e icanon -e -icanon -e echo -e -echo | tr '\n' ' '; echo" Enter
	if until_screen 15 grep -q -e '^icanon echo' -e '^-icanon' -e '-echo ' "$tmp/screen"; then
		grep -q '^icanon echo' "$tmp/screen" && ok "after Ctrl-Z the terminal is canonical with echo" ||
			bad "after Ctrl-Z the terminal is not restored"
	else
		bad "stty after Ctrl-Z printed nothing"
	fi
	T send-keys -t gm "fg" Enter
	if until_screen 15 has '^gpumemctl top - '; then
		ok "fg: top draws again"
		T send-keys -t gm "x"
		sleep 0.3
		screen
		has '^gpumemctl top - ' && ! grep -q '^x' "$tmp/screen" &&
			ok "after fg keys are read raw again (no echo)" || bad "after fg the terminal is not raw"
	else
		bad "fg: top did not draw again"
	fi
else
	bad "Ctrl-Z did not stop top"
fi

T send-keys -t gm q
T send-keys -t gm "echo rc=\$?" Enter
if until_screen 15 has '^rc=0'; then
	ok "q quits with status 0"
else
	bad "q did not quit with status 0"
fi
echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
