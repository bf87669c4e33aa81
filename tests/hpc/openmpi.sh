#!/bin/sh
# The mpi backend under a real Open MPI: `mpirun -np 4` on this host runs
# four `muster resolve`; all print the same cluster, each its own task,
# from the hosts mpirun's PMIx server gives.  Skipped without mpirun.
. "${MUSTER_TEST_SRCDIR:?}/tests/hpc/lib.sh"
require_plugin mpi

mpirun=$(command -v mpirun) || skip_all "mpirun not found (install openmpi-bin)"
"$mpirun" --version 2>/dev/null | grep -q 'Open MPI' || skip_all "$mpirun is not Open MPI's"
# Loopback only; no shared-memory transport negotiation needed for four
# processes that never talk MPI.
OMPI_MCA_btl=self,tcp
OMPI_MCA_btl_tcp_if_include=lo
OMPI_MCA_oob_tcp_if_include=lo
export OMPI_MCA_btl OMPI_MCA_btl_tcp_if_include OMPI_MCA_oob_tcp_if_include

c=$(conf mpi "")
# Each rank writes its own answer; the shell wrapper keeps them apart.
cat >"$tmp/rank.sh" <<EOS
#!/bin/sh
"$MUSTER_BIN" -c "$c" resolve >"$tmp/out.\$OMPI_COMM_WORLD_RANK" 2>"$tmp/err.\$OMPI_COMM_WORLD_RANK"
echo \$? >"$tmp/rc.\$OMPI_COMM_WORLD_RANK"
EOS
chmod +x "$tmp/rank.sh"
timeout 120 "$mpirun" -np 4 --oversubscribe --allow-run-as-root "$tmp/rank.sh" \
	>"$tmp/mpirun.out" 2>&1
rc=$?
check_eq "mpirun -np 4 exits 0" "$rc" 0
[ "$rc" = 0 ] || sed 's/^/# mpirun: /' "$tmp/mpirun.out"

first=
for r in 0 1 2 3; do
	rc=$(cat "$tmp/rc.$r" 2>/dev/null)
	out=$(cat "$tmp/out.$r" 2>/dev/null)
	err=$(cat "$tmp/err.$r" 2>/dev/null)
	expect_err "rank $r resolves" 0
	if grep -E -q 'runtime error:|AddressSanitizer|LeakSanitizer' "$tmp/err.$r" 2>/dev/null; then
		fail "rank $r: a sanitizer report"
		sed 's/^/# stderr: /' "$tmp/err.$r"
	fi
	cluster=$(printf '%s' "$out" | sed 's/,"task":.*//')
	task=$(printf '%s' "$out" | sed -n 's/.*"task":\({[^}]*}\).*/\1/p')
	check_eq "rank $r is its own task" "$task" "{\"type\":\"worker\",\"index\":$r}"
	if [ -z "$first" ]; then
		first=$cluster
	else
		check_eq "rank $r sees rank 0's cluster" "$cluster" "$first"
	fi
done
# Four distinct addresses: one host, ports 8888 to 8891, hosts from PMIx.
n=$(printf '%s' "$first" | tr ',' '\n' | grep -c ':88[89][0-9]"')
check_eq "four tasks" "$n" 4
addrs=$(printf '%s' "$first" | grep -o '"[^"]*:[0-9]*"' | sort -u | wc -l)
check_eq "four distinct addresses" "$addrs" 4

finish
