# The Python package's tests (python/): pytest files, each run by the script of the same name under
# the configured Python (tests/python/lib.sh stages the package).
python_tests = \
	tests/python/api.sh \
	tests/python/errors.sh \
	tests/python/threads.sh \
	tests/python/tensorflow.sh \
	tests/python/torch.sh \
	tests/python/reserve.sh
TESTS += $(python_tests)
EXTRA_DIST += $(python_tests) tests/python/lib.sh tests/python/conftest.py \
	tests/python/test_api.py tests/python/test_errors.py tests/python/test_threads.py \
	tests/python/test_tensorflow.py tests/python/test_torch.py tests/python/test_reserve.py
AM_TESTS_ENVIRONMENT += MUSTER_PYTHON='$(PYTHON)'; export MUSTER_PYTHON;
