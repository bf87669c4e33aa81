/* The port a job's processes agree on without talking: a pure function of
 * the launcher's job id (SLURM_JOB_ID, LSB_JOBID, ...), the same on every
 * node. */
#ifndef MUSTER_LIB_JOB_PORT_H
#define MUSTER_LIB_JOB_PORT_H

/*
 * FNV-1a (64 bits) of the id onto the 36,280 ports 1024..32767 and
 * 61000..65535, outside Linux's default ephemeral range (32768..60999),
 * where the kernel picks the ports of outgoing connections.  Two different
 * ids share a port with probability 1/36,280 (about 0.003 %); among k jobs
 * on one host some two do with probability about k(k-1)/72,560 (0.12 % for
 * 10 jobs).
 */
int job_port(const char *job_id);

#define JOB_PORT_COUNT 36280

#endif
