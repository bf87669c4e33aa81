# Sourced by each tests/reserve/*.sh: runs the scenario of
# reserve_test.py (or of $scenarios, another script there) named like the
# script (basic.sh runs "basic").  Python clients written from the protocol
# description drive `muster reserve`.
. "${MUSTER_TEST_SRCDIR:?run me with make check}/tests/lib/tap.sh"
require_tools python3
"$MUSTER_BIN" reserve --help >/dev/null 2>&1 || skip_all "muster reserve is not built"
name=$(basename "$0" .sh)
exec python3 "$MUSTER_TEST_SRCDIR/tests/reserve/${scenarios:-reserve_test.py}" "$name"
