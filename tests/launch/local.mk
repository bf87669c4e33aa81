# tests/launch: muster env, hostfile and run with real shells, Open MPI
# and PyTorch, and local device detection on sysfs trees.
TESTS += \
	tests/launch/env.sh \
	tests/launch/ranks.sh \
	tests/launch/hostfile.sh \
	tests/launch/run.sh \
	tests/launch/devices.sh \
	tests/launch/torch.sh \
	tests/launch/spark-port.sh
EXTRA_DIST += \
	tests/launch/env.sh \
	tests/launch/ranks.sh \
	tests/launch/hostfile.sh \
	tests/launch/run.sh \
	tests/launch/devices.sh \
	tests/launch/topo-tree.sh \
	tests/launch/torch.sh \
	tests/launch/spark-port.sh \
	tests/launch/procs.sh \
	tests/launch/allreduce.py \
	tests/launch/cluster.conf
