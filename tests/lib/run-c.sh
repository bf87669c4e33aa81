# Runs a C test program for the TAP driver: cmocka's TAP output, with a
# skipped test, which cmocka 1.1 prints as "not ok N # SKIP", reported as
# the skip it is ("ok N # SKIP").  The program's exit status is kept.
CMOCKA_MESSAGE_OUTPUT=TAP
export CMOCKA_MESSAGE_OUTPUT
{ rc=$( { { "$@"; echo $? >&3; } | sed 's/^not ok \([0-9][0-9]*\) # SKIP/ok \1 # SKIP/' >&4; } 3>&1); } 4>&1
exit "$rc"
