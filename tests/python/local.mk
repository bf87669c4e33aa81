# The Python package's tests (python/): pytest files, each run as TAP by the
# script of the same name under the configured Python (tests/python/lib.sh).
shell_tests += tests/python/api.sh
shell_tests += tests/python/errors.sh
shell_tests += tests/python/threads.sh
shell_tests += tests/python/tensorflow.sh
shell_tests += tests/python/torch.sh
shell_tests += tests/python/reserve.sh
EXTRA_DIST += tests/python/lib.sh tests/python/preload.sh tests/python/conftest.py \
	tests/python/test_api.py tests/python/test_errors.py tests/python/test_threads.py \
	tests/python/test_tensorflow.py tests/python/test_torch.py tests/python/test_reserve.py
AM_TESTS_ENVIRONMENT += MUSTER_PYTHON='$(PYTHON)'; export MUSTER_PYTHON;
