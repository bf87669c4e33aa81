# Work bounded by the budget: the large shapes of bench/budget, and
# timeout_ms bounding CPU work.
shell_tests += tests/budget/shapes.sh
