# Shared by the scheduler backends' tests (mpi, pbs, lsf, sagemaker): a
# scratch directory, a config per backend, runs of `muster` under a given
# environment, and the checks of tests/lib/tap.sh.
# Sourced by tests/hpc/*.sh; needs MUSTER_BIN, MUSTER_TEST_SRCDIR.
set -u

. "$MUSTER_TEST_SRCDIR/tests/lib/tap.sh"

# libpmix's own allocations outlive PMIx_Finalize (see lsan.supp).
LSAN_OPTIONS="suppressions=$here/lsan.supp${LSAN_OPTIONS:+:$LSAN_OPTIONS}"
export LSAN_OPTIONS

# Every test starts outside any scheduler, whatever ran it.
unset TF_CONFIG MUSTER_CONF LSB_JOBID LSB_DJOB_RANKFILE LSB_MCPU_HOSTS \
	JSM_NAMESPACE_RANK JSM_NAMESPACE_SIZE JSM_NAMESPACE_LOCAL_RANK \
	PBS_NODEFILE PBS_TASKNUM PBS_NODENUM PBS_JOBID SM_HOSTS SM_CURRENT_HOST \
	PMIX_RANK PMIX_NAMESPACE PMI_RANK PMI_SIZE MPI_LOCALNRANKS MPI_LOCALRANKID MUSTER_NO_DETECT
for v in $(env | sed -n 's/^\(OMPI_[A-Za-z0-9_]*\)=.*/\1/p;s/^\(SLURM_[A-Za-z0-9_]*\)=.*/\1/p'); do
	unset "$v"
done

# conf PLUGIN BODY: a muster.conf whose only entry is PLUGIN with BODY as
# its config group; prints its path.
conf() {
	f=$(mktemp "$tmp/conf.XXXXXX")
	printf 'chain = ( { plugin = "%s"; config = { %s }; } );\n' "$1" "$2" >"$f"
	echo "$f"
}

# mu CONF ARGS...: run muster; results in files, so that a subshell that
# exported the case's variables can run it.  Read them back with `got`.
mu() {
	c=$1
	shift
	"$MUSTER_BIN" -c "$c" "$@" >"$tmp/out" 2>"$tmp/err"
	echo $? >"$tmp/rc"
}

# placed CONF: what the answer tells a launch (tests/hpc/placement:
# placement, nodes, job, task, the noted inputs), read back with `got`.
placed() {
	"$MUSTER_TEST_BUILDDIR/tests/hpc/placement" -c "$1" --explain >"$tmp/out" 2>"$tmp/err"
	echo $? >"$tmp/rc"
}

# got: $out, $err and $rc of the last mu; a sanitizer report fails.
got() {
	out=$(cat "$tmp/out")
	err=$(cat "$tmp/err")
	rc=$(cat "$tmp/rc")
	no_sanitizer_report "muster under the case's environment"
}
