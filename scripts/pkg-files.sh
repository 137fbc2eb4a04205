#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Print the files that make up the ringcap source package, one relative
# path per line: what git tracks plus new files not ignored, i.e. the
# source without build products. Used for the DKMS copy in /usr/src and
# the staging trees of scripts/build-module.sh.
#
#   pkg-files.sh [DIR]   DIR: the checkout (default: this script's repo)
set -euo pipefail

top=${1:-$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)}
cd "$top"
if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
	# A file deleted but still in the index is listed too; skip it.
	git ls-files -co --exclude-standard | while IFS= read -r f; do
		[ -f "$f" ] && printf '%s\n' "$f"
	done
else
	# An exported tarball: everything but build output.
	find . -type f ! -path './build/*' ! -path '*/build/*' ! -path './.git/*' | sed 's|^\./||'
fi
