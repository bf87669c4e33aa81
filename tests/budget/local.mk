# Work bounded by the budget: the large shapes of bench/budget, and
# timeout_ms bounding CPU work.
TESTS += tests/budget/shapes.sh
EXTRA_DIST += tests/budget/shapes.sh
