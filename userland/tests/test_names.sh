#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# libringcap's names: the API is rcap_* (LIBRINGCAP_1.2) and the names
# before it, ringcap_*, stay exported at their old versions as aliases
# of the same functions, so programs linked against libringcap.so.1
# before the rename run unchanged; a source that uses them still builds,
# warned. Reads the list from RCAP_OLD_NAMES in libringcap.h. TAP.
#
#   LIB=userland/build/lib SRC=userland userland/tests/test_names.sh

set -u
SRC=${SRC:-$(dirname "$0")/..}
LIB=${LIB:-$SRC/build/lib}
TOP=$SRC/..
CC=${CC:-cc}
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
. "$(dirname "$0")/tap.sh"

so=$LIB/libringcap.so.1
# The X(name) lines of RCAP_OLD_NAMES, and the 1.1 node's names.
sed -n '/^#define RCAP_OLD_NAMES/,/^$/s/^\tX(\([a-z_]*\)).*/\1/p' \
	"$SRC/lib/libringcap.h" >"$TMP/names"
sed -n '/^LIBRINGCAP_1.1 {/,/}/s/^\t\tringcap_\([a-z_]*\);/\1/p' \
	"$SRC/lib/libringcap.map" >"$TMP/v11"
# Functions new since 1.2 have no old name: "name node" for each.
awk '/^LIBRINGCAP_1\.[3-9] {/ { node = $1 } /^}/ { node = "" }
     node && /^\t\trcap_[a-z_]*;$/ { gsub(/[\t;]/, ""); print substr($0, 6), node }' \
	"$SRC/lib/libringcap.map" >"$TMP/v13"
nm -D --with-symbol-versions --defined-only "$so" |
	awk '$2 == "T" { print $1, $3 }' >"$TMP/syms"

if [ "$(wc -l <"$TMP/names")" -ge 30 ] && [ -s "$TMP/v11" ]; then
	ok "RCAP_OLD_NAMES lists $(wc -l <"$TMP/names") functions"
else
	not_ok "RCAP_OLD_NAMES or the 1.1 node not found" "$TMP/names"
fi

: >"$TMP/bad"
while read -r f; do
	new=$(awk -v s="rcap_$f@@LIBRINGCAP_1.2" '$2 == s { print $1 }' "$TMP/syms")
	v=LIBRINGCAP_1
	grep -qx "$f" "$TMP/v11" && v=LIBRINGCAP_1.1
	old=$(awk -v s="ringcap_$f@@$v" '$2 == s { print $1 }' "$TMP/syms")
	if [ -z "$new" ] || [ "$old" != "$new" ]; then
		echo "$f: rcap_ at '${new}', ringcap_ ($v) at '${old}'" >>"$TMP/bad"
	fi
done <"$TMP/names"
if [ -s "$TMP/bad" ]; then
	not_ok "each old name is its new one's alias, at its old version" "$TMP/bad"
else
	ok "each old name is its new one's alias, at its old version"
fi

: >"$TMP/bad"
while read -r f node; do
	awk -v s="rcap_$f@@$node" '$2 == s { found = 1 } END { exit !found }' \
		"$TMP/syms" || echo "rcap_$f not at $node" >>"$TMP/bad"
done <"$TMP/v13"
if grep -q LIBRINGCAP_1.4 "$TMP/v13" && [ ! -s "$TMP/bad" ]; then
	ok "the functions since 1.2 ($(wc -l <"$TMP/v13")) are each at their own node"
else
	not_ok "the functions of the nodes since 1.3" "$TMP/bad"
fi

# Nothing else is exported: the rc_* helpers stay private.
awk '{ sub(/@.*/, "", $2); print $2 }' "$TMP/syms" | sort >"$TMP/exported"
{ sed 's/^/rcap_/' "$TMP/names"; awk '{ print "rcap_" $1 }' "$TMP/v13"; sed 's/^/ringcap_/' "$TMP/names"; } |
	sort >"$TMP/want"
if cmp -s "$TMP/exported" "$TMP/want"; then
	ok "the library exports those two names of each function, nothing else"
else
	diff "$TMP/want" "$TMP/exported" >"$TMP/diff"
	not_ok "exports differ from the two names of each function" "$TMP/diff"
fi

# An old source: builds with a warning naming the new function, and the
# old name calls the same code, from the shared and the static library.
cat >"$TMP/old.c" <<'EOC'
#include <stdio.h>
#include <string.h>
#include "libringcap.h"

int main(void)
{
	char ifname[32];
	int q = -2;

	if (ringcap_parse_spec("eth0@3", ifname, sizeof(ifname), &q) ||
	    strcmp(ifname, "eth0") || q != 3)
		return 1;
	if (strcmp(ringcap_cluster_policy_name(RINGCAP_CLUSTER_FLOW),
		   rcap_cluster_policy_name(RINGCAP_CLUSTER_FLOW)))
		return 1;
	puts("same");
	return 0;
}
EOC
cflags="-I$SRC/lib -I$TOP/include/uapi -Wall"
check "an old source builds against the shared library" 0 \
	$CC $cflags -o "$TMP/old" "$TMP/old.c" -L"$LIB" -lringcap
grep_check "the old names are deprecated, naming the new ones" err \
	"ringcap_parse_spec.*deprecated.*renamed rcap_parse_spec"
nm -D --with-symbol-versions "$TMP/old" >"$TMP/undef" 2>&1
grep_check "it binds to the old version, as a binary from before does" undef \
	" U ringcap_parse_spec@LIBRINGCAP_1$"
check "and runs, the old names calling the same code" 0 \
	env LD_LIBRARY_PATH="$LIB" "$TMP/old"
check "an old source links the static library too" 0 \
	$CC $cflags -o "$TMP/old_static" "$TMP/old.c" "$LIB/libringcap.a" -lbpf
check "LIBRINGCAP_NO_OLD_NAMES leaves them undeclared" 1 \
	$CC $cflags -Werror -DLIBRINGCAP_NO_OLD_NAMES -c -o "$TMP/x.o" "$TMP/old.c"
tap_end
