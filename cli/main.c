/*
 * muster [-c FILE] [-v|-q] COMMAND [options]
 *
 * Global options come before the command (POSIXLY_CORRECT-style: parsing
 * stops at the first operand); each command parses its own options.
 */
#include <config.h>

#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"

const struct cli_command cli_commands[] = {
	{ "resolve",
	  "resolve [--explain] [--format json|tf_config|text | --exec [--] COMMAND [ARGS...]]",
	  "resolve the cluster and print it, or run COMMAND with it",
	  "  --format FORMAT  json (default): the whole result as JSON;\n"
	  "                   tf_config: the TF_CONFIG of this process's own task;\n"
	  "                   text: one line per task, JOB INDEX ADDRESS [KIND=COUNT...],\n"
	  "                   then 'task: TYPE INDEX', 'rpc_layer: L', 'environment: E'\n"
	  "                   and 'source: INSTANCE' lines for what is known\n"
	  "  --exec           instead of printing, run COMMAND with MUSTER_CLUSTER (the\n"
	  "                   JSON), TF_CONFIG (own task, when known) and, when a backend\n"
	  "                   reserved a port, MUSTER_RESERVED_PORT and TENSORFLOW_PORT set;\n"
	  "                   the port is held until right before COMMAND starts.\n"
	  "                   Exit status 127: COMMAND not found; 126: cannot run it\n"
	  "  --explain        also print on stderr what each entry of the chain\n"
	  "                   answered and the variables and files that decided,\n"
	  "                   secrets redacted (see muster(1))\n"
	  "  -h, --help       print this help and exit\n",
	  cmd_resolve },
	{ "status", "status [--format table|json] [--watch [--settle-ms N]]",
	  "show the cluster as a table: its nodes, tasks, accelerators, what is not ready",
	  "  --format FORMAT  table (default): which backend answered and which task this\n"
	  "                   process is, then a row per node (host) with its tasks as\n"
	  "                   JOB:INDEX runs, their ports and accelerators, and a row per\n"
	  "                   member the backend reports not ready; fitted to $COLUMNS or\n"
	  "                   the terminal, coloured on a terminal unless TERM=dumb or\n"
	  "                   NO_COLOR is set; json: the same as one JSON object\n"
	  "  --watch          draw it again on each change; while no backend answers,\n"
	  "                   every second\n"
	  "  --settle-ms N    with --watch: as watch's (default 100)\n"
	  "  -h, --help       print this help and exit\n"
	  "A chain that answers tryagain shows what is ready so far and what is not;\n"
	  "one that found nothing shows each entry's answer.  Exit status as resolve's.\n",
	  cmd_status },
	{ "master", "master [--task TYPE:ID] [--rpc-layer LAYER]",
	  "print the master URL (may be an empty line)",
	  "  --task TYPE:ID     the task whose address is wanted (default: the rule of\n"
	  "                     the backend that answered)\n"
	  "  --rpc-layer LAYER  the URL's scheme instead of the backend's rpc layer\n"
	  "  -h, --help         print this help and exit\n",
	  cmd_master },
	{ "accelerators", "accelerators [--task TYPE:ID] | --local [--sysroot DIR]",
	  "print a task's accelerators, or this machine's, as JSON",
	  "  --task TYPE:ID  the task (default: this process's own task)\n"
	  "  --local         this machine's devices, counted by kind ({\"GPU\": 4}; {} for\n"
	  "                  none): NVIDIA from /proc/driver/nvidia/gpus (NVML for MIG);\n"
	  "                  AMD from the KFD topology; /sys/class/accel; TPUs from\n"
	  "                  /dev/accelN or VFIO groups.  CUDA_VISIBLE_DEVICES,\n"
	  "                  ROCR_VISIBLE_DEVICES and HIP_VISIBLE_DEVICES filter them\n"
	  "  --sysroot DIR   read DIR/sys, DIR/dev and DIR/proc instead of the machine's\n"
	  "                  (NVML is not used); default $MUSTER_SYSROOT\n"
	  "  -h, --help      print this help and exit\n",
	  cmd_accelerators },
	{ "topo", "topo [--format table|json] [--sysroot DIR]",
	  "show where this machine's accelerators sit: NUMA node, CPUs, NIC, links",
	  "  --format FORMAT  table (default): a row per device (bus id, NUMA node, its\n"
	  "                   CPUs, the nearest network interface, UUID), then the link\n"
	  "                   level between each two, fitted to $COLUMNS or the\n"
	  "                   terminal; json: per device kind, vendor, id, pci_bus_id,\n"
	  "                   uuid, numa_node, cpus, socket_cpus, nic, nic_link, links\n"
	  "  --sysroot DIR    read DIR/sys, DIR/dev and DIR/proc instead of the machine's\n"
	  "                   (NVML is not used); default $MUSTER_SYSROOT\n"
	  "  -h, --help       print this help and exit\n"
	  "The devices are those of accelerators --local.  Links are NCCL's levels: NVL\n"
	  "(NVLink, looked for through NVML), PIX (one PCIe switch), PXB (several), PHB\n"
	  "(through the CPU), SYS (across NUMA nodes).\n",
	  cmd_topo },
	{ "tf-config", "tf-config --task TYPE:ID [--sparse]",
	  "print the TF_CONFIG that task should get",
	  "  --task TYPE:ID  the task (required)\n"
	  "  --sparse        Kubeflow's dynamic-worker (sparse) form\n"
	  "  -h, --help      print this help and exit\n",
	  cmd_tf_config },
	{ "env",
	  "env --for FRAMEWORK [--task TYPE:ID] [--jobs J,...] [--nproc-per-node N|gpu]\n"
	  "              [--format sh|json|dotenv] [--no-ifname] [--explain]",
	  "print the environment a framework's process reads",
	  "  --for FRAMEWORK          tensorflow (TF_CONFIG), pytorch (MASTER_ADDR,\n"
	  "                           MASTER_PORT, WORLD_SIZE, RANK, LOCAL_RANK,\n"
	  "                           LOCAL_WORLD_SIZE, GROUP_RANK, NODE_RANK and\n"
	  "                           torchrun's PET_* arguments) or jax\n"
	  "                           (JAX_COORDINATOR_ADDRESS, JAX_NUM_PROCESSES,\n"
	  "                           JAX_PROCESS_ID)\n"
	  "  --task TYPE:ID           the node (default: this process's own task)\n"
	  "  --jobs JOB[,JOB...]      the jobs that train (default: every job but ps\n"
	  "                           and evaluator)\n"
	  "  --nproc-per-node N|gpu   processes per task (default 1); gpu: one per\n"
	  "                           GPU of the task, as its backend counts them\n"
	  "                           (else this machine's: accelerators --local)\n"
	  "  --format FORMAT          sh (default): export NAME='VALUE' lines, safe to\n"
	  "                           eval in any POSIX shell; json: one object;\n"
	  "                           dotenv: NAME=VALUE lines\n"
	  "  --no-ifname              leave out the interface variables (GLOO_,\n"
	  "                           NCCL_, TP_SOCKET_IFNAME, Open MPI's if_include)\n"
	  "                           and keep a loopback master address\n"
	  "  --explain                print on stderr why the chain answered as it\n"
	  "                           did, as resolve --explain\n"
	  "  -h, --help               print this help and exit\n"
	  "The master task (chief, else master, else the first training job's task\n"
	  "0) holds rank 0; ranks count each task's processes in turn.  Where a\n"
	  "scheduler started the tasks, several to a host, a node is a host, in the\n"
	  "scheduler's order.  MASTER_PORT: $MUSTER_MASTER_PORT, else the config's\n"
	  "master_port, else one derived from the job id, else the master task's.\n",
	  cmd_env },
	{ "hostfile", "hostfile --for openmpi|mpich|horovod|deepspeed [--jobs J,...]\n"
	  "              [--nproc-per-node N|gpu]",
	  "print a hostfile for an MPI-style launcher",
	  "  --for FRAMEWORK          openmpi, deepspeed, horovod (HOST slots=N lines)\n"
	  "                           or mpich (HOST:N lines)\n"
	  "  --jobs JOB[,JOB...]      the jobs that train (default: every job but ps\n"
	  "                           and evaluator)\n"
	  "  --nproc-per-node N|gpu   processes per task (default 1); gpu: one per\n"
	  "                           GPU of the task, as its backend counts them\n"
	  "                           (else this machine's: accelerators --local)\n"
	  "  -h, --help               print this help and exit\n"
	  "One line per host, in node order; its slots are the processes of all its\n"
	  "tasks.\n",
	  cmd_hostfile },
	{ "run",
	  "run --for FRAMEWORK [--task TYPE:ID] [--jobs J,...] [--nproc-per-node N|gpu]\n"
	  "              [--gpus-per-proc K] [--numa-binding node|socket|exclusive]\n"
	  "              [--tee-prefix] [--no-ifname] [--doctor] [--allow-nested]\n"
	  "              [--master-timeout S] [--wait-master]\n"
	  "              [--elastic [--min-nodes A] [--max-nodes B] [--settle-ms N]]\n"
	  "              [--] COMMAND [ARGS...]",
	  "start this node's worker processes of a training job",
	  "  --for FRAMEWORK          tensorflow, pytorch or jax, as for env\n"
	  "  --task TYPE:ID           the node (default: this process's own task)\n"
	  "  --jobs JOB[,JOB...]      the jobs that train (default: every job but ps\n"
	  "                           and evaluator)\n"
	  "  --nproc-per-node N|gpu   processes per task (default 1); gpu: one per\n"
	  "                           GPU of the task, as its backend counts them\n"
	  "                           (else this machine's: accelerators --local)\n"
	  "  --gpus-per-proc K        give each process its own K local GPUs through\n"
	  "                           CUDA_VISIBLE_DEVICES (ROCR_VISIBLE_DEVICES on AMD)\n"
	  "  --numa-binding MODE      pin each process to the CPUs near its GPUs (its\n"
	  "                           --gpus-per-proc slice, else the GPU at its local\n"
	  "                           rank), as torchrun does: node (their NUMA nodes'\n"
	  "                           CPUs), socket (their packages'), exclusive (a\n"
	  "                           share of the node's cores per GPU); -v says what\n"
	  "                           each is pinned to\n"
	  "  --tee-prefix             prefix each output line with \"[RANK]: \"\n"
	  "  --no-ifname              as for env: no interface variables\n"
	  "  --doctor                 run muster doctor's checks first (5 s at most);\n"
	  "                           on a problem, print them and exit 6\n"
	  "  --allow-nested           run even inside a torchrun worker (refused\n"
	  "                           otherwise: processes under each of torchrun's)\n"
	  "  --master-timeout S       on a node other than the master's, wait up to S\n"
	  "                           seconds (default 300, at most 86400; 0: do not\n"
	  "                           wait) for the master's name to resolve\n"
	  "  --wait-master            ... and for its port to accept a connection\n"
	  "  --elastic                follow the cluster (pytorch, jax): restart the\n"
	  "                           workers with new ranks when this node's launch\n"
	  "                           changes\n"
	  "  --min-nodes A            --elastic: start once A nodes train (default 1)\n"
	  "  --max-nodes B            --elastic: the first B nodes train, the others\n"
	  "                           wait as spares (default: all)\n"
	  "  --settle-ms N            --elastic: act on a change once the cluster has\n"
	  "                           been quiet N ms (default 1000)\n"
	  "  -h, --help               print this help and exit\n"
	  "Each process gets the environment of 'muster env' for its local rank.  One\n"
	  "process without --tee-prefix: muster run execs COMMAND.  Otherwise it\n"
	  "passes SIGINT, SIGTERM and SIGHUP on to the workers; when one fails it sends\n"
	  "the others SIGTERM, SIGKILL 10 s later, and exits with the first failure's\n"
	  "status (128+N for signal N).  Nothing the workers start outlives the run,\n"
	  "even a SIGKILL of muster run (see muster(1), the keeper).  Exit status\n"
	  "127: COMMAND not found; 126: cannot run it; 3: the master was not ready\n"
	  "within --master-timeout.  --elastic restarts workers by\n"
	  "SIGTERM to their process group, SIGKILL 10 s later, and gives the new ones\n"
	  "TORCHELASTIC_RESTART_COUNT and MUSTER_RESTART_COUNT.\n",
	  cmd_run },
	{ "doctor",
	  "doctor [--for FRAMEWORK] [--task TYPE:ID] [--jobs J,...] [--nproc-per-node N|gpu]\n"
	  "              [--timeout S] [--format table|json]",
	  "check this node's launch before the job starts",
	  "  --for FRAMEWORK          tensorflow, pytorch (default) or jax, as for env\n"
	  "  --task TYPE:ID           the node (default: this process's own task)\n"
	  "  --jobs JOB[,JOB...]      the jobs that train (default: every job but ps\n"
	  "                           and evaluator)\n"
	  "  --nproc-per-node N|gpu   processes per node (default 1)\n"
	  "  --timeout S              finish within S seconds (default 5): name\n"
	  "                           lookups and connections still pending then are\n"
	  "                           problems\n"
	  "  --format FORMAT          table (default): STATUS CHECK SUBJECT DETAIL,\n"
	  "                           one line per check; json: one object\n"
	  "  -h, --help               print this help and exit\n"
	  "Checks, all at once: every peer's name resolves here (a loopback answer\n"
	  "for another node is a problem); the interface env and run choose, and why;\n"
	  "each peer answers on it (a refused connection is fine); on the master's\n"
	  "node, the master port is free; proxy variables without a no_proxy that\n"
	  "covers the peers; the world size against the scheduler's tasks; duplicate\n"
	  "nodes and task addresses; visible GPUs against this node's processes.\n"
	  "Exit status 0: no problem (notes are no problems); 6: a problem.\n",
	  cmd_doctor },
	{ "plugins", "plugins",
	  "list the chain's entries and the state of their plugins",
	  "  -h, --help  print this help and exit\n", cmd_plugins },
	{ "check", "check",
	  "validate the configuration and load the plugins",
	  "  -h, --help  print this help and exit\n", cmd_check },
	{ "reserve",
	  "reserve --size N [--port P | --port-range A-B] [--host H] [--timeout S]\n"
	  "              [--output FILE] [--port-file FILE] [--auth-key-file FILE]\n"
	  "              [--idle-timeout S] [--max-connections N] [--max-per-address N]\n"
	  "              [--metrics-port P [--metrics-host H]]",
	  "run a TensorFlowOnSpark-compatible reservation server",
	  "  --size N              executors to wait for (required)\n"
	  "  --port P              the port to listen on (default: any free port)\n"
	  "  --port-range A-B      the first free port from A to B, as TFOS_SERVER_PORT\n"
	  "  --host H              the address to listen on (default: all IPv4 interfaces)\n"
	  "  --timeout S           give up after S seconds (default 600; 0: never)\n"
	  "  --output FILE         write the ClusterSpec to FILE instead of stdout\n"
	  "  --port-file FILE      write the port to FILE once listening\n"
	  "  --auth-key-file FILE  authenticate every frame (both ends muster);\n"
	  "                        without it anyone who reaches the port can register\n"
	  "  --idle-timeout S      close a connection without a complete request for S\n"
	  "                        seconds (default 10; 0: never)\n"
	  "  --max-connections N   connections open at once (default: --size + 1024)\n"
	  "  --max-per-address N   from one address (default: --size + 16)\n"
	  "  --metrics-port P      serve Prometheus metrics at http://H:P/metrics while\n"
	  "                        waiting (0: any free port, said on stderr)\n"
	  "  --metrics-host H      the address for --metrics-port (default 127.0.0.1)\n"
	  "  -h, --help            print this help and exit\n"
	  "Progress goes to stderr; the ClusterSpec (JSON) is printed once every\n"
	  "executor has fetched the complete list.  Exit status 3: timed out (the\n"
	  "message names the missing executor ids); 2: stopped before complete or\n"
	  "cannot listen; 4: bad key file; 5: duplicate executor ids.\n",
	  cmd_reserve },
	{ "watch",
	  "watch [--format json|tf_config|text] [--settle-ms N]\n"
	  "            [--metrics-port P [--metrics-host H]]",
	  "print the cluster, then one line each time it changes",
	  "  --format FORMAT  json (default): the result with 'added', 'removed',\n"
	  "                   'moved' and 'accelerators_changed' task lists;\n"
	  "                   tf_config: the own task's TF_CONFIG;\n"
	  "                   text: +JOB:INDEX=ADDRESS added, - removed, ~ moved,\n"
	  "                   ! accelerators changed ('=' when only identity changed)\n"
	  "  --settle-ms N    report a change once the cluster has been quiet for N ms\n"
	  "                   (default 100; 0: at once)\n"
	  "  --metrics-port P serve Prometheus metrics at http://H:P/metrics (0: any\n"
	  "                   free port, said on stderr)\n"
	  "  --metrics-host H the address for --metrics-port (default 127.0.0.1)\n"
	  "  -h, --help       print this help and exit\n"
	  "The first line is the current cluster, every task 'added'.  Config edits\n"
	  "are followed; a broken edit or a failing backend is one stderr line and\n"
	  "the last good result stays.  SIGINT or SIGTERM ends it with status 0.\n",
	  cmd_watch },
};
const size_t cli_command_count = sizeof cli_commands / sizeof cli_commands[0];

static int version(void)
{
	out_printf("muster %s (libmuster %s)\n", MUSTER_VERSION, muster_version());
	return out_finish(CLI_EXIT_OK);
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "config", required_argument, NULL, 'c' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 }
	};
	struct cli_global g = { NULL, 0 };
	const struct cli_command *cmd;
	int c;

	if (argc < 1)
		return cli_usage_error("no arguments at all");

	opterr = 0;
	while ((c = getopt_long(argc, argv, "+:c:vqhV", longopts, NULL)) != -1) {
		switch (c) {
		case 'c':
			if (optarg[0] == '\0')
				return cli_usage_error("-c/--config: the file name is empty");
			g.config = optarg;
			break;
		case 'v': /* the later of -v and -q wins */
			g.verbosity = g.verbosity < 0 ? 1 : g.verbosity + 1;
			break;
		case 'q':
			g.verbosity = -1;
			break;
		case 'h':
			return cli_usage(0);
		case 'V':
			return version();
		default:
			return cli_getopt_default(c, argv, NULL);
		}
	}

	if (optind >= argc)
		return cli_usage_error("no command given");
	cmd = cli_find_command(argv[optind]);
	if (cmd == NULL)
		return cli_usage_error("unknown command '%s'", argv[optind]);
	return cmd->run(&g, argc - optind, argv + optind);
}
