# bench/slurm: a 4,096-node allocation, beside `scontrol show hostnames`
# (`make bench-slurm`).
EXTRA_PROGRAMS += bench/slurm/bench_slurm
bench_slurm_bench_slurm_SOURCES = bench/slurm/bench_slurm.c
bench_slurm_bench_slurm_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/plugins/slurm
bench_slurm_bench_slurm_LDADD = core/libmuster.la plugins/slurm/libslurm_lists.la lib/libutil.la
CLEANFILES += bench/slurm/bench_slurm$(EXEEXT)
EXTRA_DIST += bench/slurm/run.sh

bench-slurm: bench/slurm/bench_slurm$(EXEEXT) all
	$(SHELL) $(srcdir)/bench/slurm/run.sh '$(abs_top_builddir)'
.PHONY: bench-slurm
