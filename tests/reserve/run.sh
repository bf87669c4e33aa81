# Sourced by each tests/reserve/*.sh: runs the scenario of
# reserve_test.py (or of $scenarios, another script there) named like the
# script (basic.sh runs "basic").  Python clients written from the protocol
# description drive `muster reserve`.
: "${MUSTER_BIN:?MUSTER_BIN is not set: run this test with make check}"
: "${MUSTER_TEST_SRCDIR:?MUSTER_TEST_SRCDIR is not set: run this test with make check}"
if ! py=$(command -v python3); then
	echo "python3 not found: skipping"
	exit 77
fi
name=$(basename "$0" .sh)
exec "$py" "$MUSTER_TEST_SRCDIR/tests/reserve/${scenarios:-reserve_test.py}" "$name"
