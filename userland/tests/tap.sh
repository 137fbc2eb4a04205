# SPDX-License-Identifier: GPL-2.0
#
# TAP for the userland shell tests (test_names.sh, test_tools.sh,
# test_rcgen*.sh, test_packzip.sh), sourced after they set TMP, their
# scratch directory.
# Results are numbered as they come; the test prints the plan at the end:
#
#   tap_end    # "1..N", then exit 0 if nothing failed, 1 otherwise

n=0
failed=0

ok() {
	n=$((n + 1))
	echo "ok $n - $1"
}

# not_ok NAME [FILE]: a failed check, FILE shown as its diagnostic
not_ok() {
	n=$((n + 1))
	echo "not ok $n - $1"
	failed=$((failed + 1))
	[ -z "${2:-}" ] || sed 's/^/#   /' "$2"
}

skip() {
	n=$((n + 1))
	echo "ok $n - # SKIP $1"
}

# check NAME EXPECTED_STATUS CMD...: run CMD (output in $TMP/out and
# $TMP/err), compare its exit status
check() {
	name=$1 want=$2
	shift 2
	"$@" >"$TMP/out" 2>"$TMP/err"
	got=$?
	if [ "$got" = "$want" ]; then
		ok "$name"
	else
		not_ok "$name (exit $got, want $want)" "$TMP/err"
	fi
}

# grep_check NAME FILE PATTERN: $TMP/FILE matches the extended regex
grep_check() {
	if grep -Eq -- "$3" "$TMP/$2"; then
		ok "$1"
	else
		not_ok "$1 (no /$3/ in $2)" "$TMP/$2"
	fi
}

tap_end() {
	echo "1..$n"
	[ "$failed" = 0 ] && exit 0
	exit 1
}
