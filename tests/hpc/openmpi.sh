#!/bin/sh
# The mpi backend under a real Open MPI: `mpirun -np 4` on this host runs
# four `muster resolve`; all print the same cluster, each its own task,
# from the hosts mpirun's PMIx server gives; `muster env --for pytorch`
# gives each the rank, local rank and local size Open MPI gave it, one
# node, and one master port (from the launch's PMIX_NAMESPACE).  Skipped
# without mpirun.
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
# Another launch for muster env: Open MPI 4.1's PMIx server answers one
# client a rank (a second process of the same rank gets no host names).
cat >"$tmp/env.sh" <<EOS
#!/bin/sh
"$MUSTER_BIN" -c "$c" env --for pytorch --format dotenv >"$tmp/env.\$OMPI_COMM_WORLD_RANK" 2>"$tmp/enverr.\$OMPI_COMM_WORLD_RANK"
echo "\$OMPI_COMM_WORLD_RANK \$OMPI_COMM_WORLD_LOCAL_RANK 0 \$OMPI_COMM_WORLD_LOCAL_SIZE \$OMPI_COMM_WORLD_SIZE" \
	>"$tmp/ompi.\$OMPI_COMM_WORLD_RANK"
EOS
chmod +x "$tmp/rank.sh" "$tmp/env.sh"
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

# muster env: Open MPI's numbers, node 0, one agreed master port.
timeout 120 "$mpirun" -np 4 --oversubscribe --allow-run-as-root "$tmp/env.sh" >"$tmp/mpirun.out" 2>&1
check_eq "mpirun -np 4 muster env exits 0" "$?" 0
ports=
for r in 0 1 2 3; do
	got=$( (. "$tmp/env.$r" && echo "$RANK $LOCAL_RANK $NODE_RANK $LOCAL_WORLD_SIZE $WORLD_SIZE") 2>&1)
	check_eq "rank $r: muster env gives Open MPI's rank, local rank and sizes" "$got" \
		"$(cat "$tmp/ompi.$r")"
	ports="$ports $( (. "$tmp/env.$r" && echo "$MASTER_PORT") 2>&1)"
done
set -- $ports
if [ "$1" = "$2" ] && [ "$1" = "$3" ] && [ "$1" = "$4" ] && [ "$1" != 8888 ]; then
	pass "one master port for the four, derived from the launch (not port_base)"
else
	fail "one master port for the four, derived from the launch" "ports:$ports"
fi

finish
