#!/bin/sh
# The sagemaker backend: TensorFlow's SageMakerClusterResolver cases
# (SM_HOSTS and SM_CURRENT_HOST), SageMaker's resourceconfig.json when the
# variables are absent, and bad input.
. "${MUSTER_TEST_SRCDIR:?}/tests/hpc/lib.sh"
require_plugin sagemaker

c=$(conf sagemaker "resource_config = \"$tmp/resourceconfig.json\";")
mu "$c" resolve; got
expect_err "no variables, no file: notfound" 1 "$tmp/resourceconfig.json does not exist"

# Sorted as strings, every host at port 2223, this task at its place; no
# rpc_layer unless given, so the master has no prefix.
hosts='["algo-2","algo-10","algo-1"]'
(export SM_HOSTS="$hosts" SM_CURRENT_HOST=algo-2; mu "$c" resolve); got
expect "SM_HOSTS sorted as strings" 0 '{"cluster":{"worker":["algo-1:2223","algo-10:2223","algo-2:2223"]},"task":{"type":"worker","index":2}}'
(export SM_HOSTS="$hosts" SM_CURRENT_HOST=algo-1; mu "$c" master); got
expect "master: this task, unprefixed" 0 "algo-1:2223"
(export SM_HOSTS='["algo-1"]' SM_CURRENT_HOST=algo-1; mu "$c" master); got
expect "master of a one-task cluster is empty (TF_CONFIG's rule)" 0 ""
c2=$(conf sagemaker "port = 8000; rpc_layer = \"grpc\"; resource_config = \"$tmp/resourceconfig.json\";")
(export SM_HOSTS="$hosts" SM_CURRENT_HOST=algo-10; mu "$c2" master); got
expect "port and rpc_layer options" 0 "grpc://algo-10:8000"
(export SM_HOSTS='[ "algo-1" , "algo-2" ]' SM_CURRENT_HOST=algo-2; mu "$c" resolve --format tf_config); got
expect "tf_config of the current host" 0 '{"cluster":{"worker":["algo-1:2223","algo-2:2223"]},"task":{"type":"worker","index":1},"environment":"cloud"}'

# resourceconfig.json when the variables are absent.
cat >"$tmp/resourceconfig.json" <<'EOJ'
{"current_host": "algo-3", "current_instance_type": "ml.p3.16xlarge",
 "hosts": ["algo-1", "algo-2", "algo-3"], "network_interface_name": "eth0"}
EOJ
mu "$c" resolve; got
expect "resourceconfig.json" 0 '{"cluster":{"worker":["algo-1:2223","algo-2:2223","algo-3:2223"]},"task":{"type":"worker","index":2}}'
(export SM_HOSTS='["algo-9"]' SM_CURRENT_HOST=algo-9; mu "$c" master); got
expect "the variables win over the file" 0 ""

# Bad input.
(export SM_HOSTS='["algo-1"]'; mu "$c" resolve); got
expect_err "SM_HOSTS without SM_CURRENT_HOST" 2 "SM_HOSTS is set but SM_CURRENT_HOST is not"
(export SM_CURRENT_HOST=algo-1; mu "$c" resolve); got
expect_err "SM_CURRENT_HOST without SM_HOSTS" 2 "SM_CURRENT_HOST is set but SM_HOSTS is not"
(export SM_HOSTS='algo-1,algo-2' SM_CURRENT_HOST=algo-1; mu "$c" resolve); got
expect_err "SM_HOSTS not JSON" 2 "SM_HOSTS: not valid JSON: expecting a value at byte 0"
(export SM_HOSTS='["algo-1",' SM_CURRENT_HOST=algo-1; mu "$c" resolve); got
expect_err "SM_HOSTS cut short" 2 "SM_HOSTS: not valid JSON: unexpected end of input at byte 10"
# JSON is read as every backend reads it (the tf_config backend's strict
# reader): what Python's json.loads refuses, and a NUL that would cut a
# host name short, are errors naming SM_HOSTS, not a host "algo-1".
(export SM_HOSTS='["algo-1\u0000evil","algo-2"]' SM_CURRENT_HOST=algo-1; mu "$c" resolve); got
expect_err "SM_HOSTS with a \\u0000 escape" 2 \
	"SM_HOSTS: not valid JSON: a \\u0000 (NUL) escape in a string at byte 8"
(export SM_HOSTS="$(printf '["algo-1\t"]')" SM_CURRENT_HOST=algo-1; mu "$c" resolve); got
expect_err "SM_HOSTS with a raw tab in a string (Python refuses it)" 2 \
	"SM_HOSTS: not valid JSON: invalid control character in a string at byte 8"
(export SM_HOSTS='["algo-1"] ["algo-2"]' SM_CURRENT_HOST=algo-1; mu "$c" resolve); got
expect_err "SM_HOSTS with a second value" 2 "SM_HOSTS: not valid JSON: extra data after the value at byte 11"
(export SM_HOSTS='{"algo-1":1}' SM_CURRENT_HOST=algo-1; mu "$c" resolve); got
expect_err "SM_HOSTS an object" 2 "SM_HOSTS: the value must be a list of host names, not an object"
(export SM_HOSTS='["algo-1",2]' SM_CURRENT_HOST=algo-1; mu "$c" resolve); got
expect_err "SM_HOSTS with a number" 2 "host 1 must be a non-empty string, not a number"
(export SM_HOSTS='["algo 1"]' SM_CURRENT_HOST='algo 1'; mu "$c" resolve); got
expect_err "a host name with a space" 2 "SM_HOSTS: " "algo 1"
# TensorFlow answers an empty cluster here; a resolver that cannot say who
# this process is answers unavail.
(export SM_HOSTS='' SM_CURRENT_HOST=algo-1; mu "$c" resolve); got
expect_err "SM_HOSTS empty" 2 'SM_CURRENT_HOST "algo-1" is not one of the 0 hosts of SM_HOSTS'
(export SM_HOSTS='["algo-1"]' SM_CURRENT_HOST=algo-2; mu "$c" resolve); got
expect_err "the current host not listed" 2 'SM_CURRENT_HOST "algo-2" is not one of the 1 hosts'
echo '{"hosts": ["algo-1"]}' >"$tmp/resourceconfig.json"
mu "$c" resolve; got
expect_err "resourceconfig.json without current_host" 2 "$tmp/resourceconfig.json: \"current_host\" must be a non-empty string, not missing"
echo '{"current_host": "algo-1"}' >"$tmp/resourceconfig.json"
mu "$c" resolve; got
expect_err "resourceconfig.json without hosts" 2 '"hosts" is missing'
echo '{"current_host": "algo-1", "hosts": "algo-1"}' >"$tmp/resourceconfig.json"
mu "$c" resolve; got
expect_err "resourceconfig.json hosts a string" 2 '"hosts" must be a list of host names, not a string'
echo 'not json' >"$tmp/resourceconfig.json"
mu "$c" resolve; got
expect_err "resourceconfig.json not JSON" 2 "$tmp/resourceconfig.json: not valid JSON: expecting a value at byte 0"
# A key given twice: the last counts, as in Python's json.loads (cJSON's
# own lookup took the first).
echo '{"current_host": "algo-2", "hosts": ["algo-1"], "hosts": ["algo-1", "algo-2"]}' \
	>"$tmp/resourceconfig.json"
mu "$c" resolve; got
expect "resourceconfig.json with \"hosts\" twice: the last" 0 '{"cluster":{"worker":["algo-1:2223","algo-2:2223"]},"task":{"type":"worker","index":1}}'
if have_python3; then
	check_eq "... the hosts Python's json.loads keeps" \
		"$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["hosts"])' \
			"$tmp/resourceconfig.json")" "['algo-1', 'algo-2']"
fi
rm "$tmp/resourceconfig.json"
mkdir "$tmp/resourceconfig.json"
mu "$c" resolve; got
expect_err "resourceconfig.json a directory" 2 "$tmp/resourceconfig.json: not a regular file but a directory"
c=$(conf sagemaker 'resource_config = "/dev/zero";')
mu "$c" resolve; got
expect_err "resourceconfig.json a device" 2 "/dev/zero: not a regular file but a character device"

# Detection: MUSTER_NO_DETECT turns it off; what decided is noted.
c=$(conf sagemaker "")
(export SM_HOSTS='["algo-1"]' SM_CURRENT_HOST=algo-1 MUSTER_NO_DETECT=1; mu "$c" resolve); got
expect_err "MUSTER_NO_DETECT=1: notfound, unrun" 1 "MUSTER_NO_DETECT is set"
(export SM_HOSTS='["algo-1"]' SM_CURRENT_HOST=algo-1; placed "$c"); got
expect_out_match '^input SM_HOSTS=\["algo-1"\]$' "SM_HOSTS noted"
expect_out_match '^input SM_CURRENT_HOST=algo-1$' "SM_CURRENT_HOST noted"

finish
