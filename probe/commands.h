/* The probe's commands that measure nothing and need no MPI (handled
 * before MPI_Init, like --analyze and --check): a site's topology from
 * passes (--compose, --merge; site_cmd.c) and what a job on some hosts
 * would get from a configuration (--check FILE --hosts LIST; check_job.c).
 * Exit statuses as the probe's: 0 done, 1 an input or output file that
 * cannot be used, 2 a bad command line. */
#ifndef TBP_COMMANDS_H
#define TBP_COMMANDS_H

/* \brief Whether argv asks for --compose or --merge.
 * \return 1 or 0. */
int tbp_is_site_command(int argc, char **argv);

/* \brief Runs `--compose NET [--node-pass NAME=FILE]... [--node-type
 * NAME=LIST]... -o SITE` or `--merge A B [...] [--node-type NAME=LIST]...
 * -o SITE`: reads the inputs with the library's loader, writes the site
 * topology (topology/site.h) and loads it back; notes to stderr.
 * \return the exit status. */
int tbp_site_command(int argc, char **argv);

/* \brief Prints what a job of ppn ranks on each host of the host list
 * `hosts` (bound to its node type's PUs with bound) would get from the
 * configuration at path: each communicator's levels and groups, shape,
 * and the table's rule and algorithm per message size from 1 B to 8 MiB,
 * or the library's warning when it would fall back.
 * \return the exit status: 0, 1 when the file does not load or the job
 * would fall back to MPI_Bcast, 2 for a bad host list. */
int tbp_check_job(const char *path, const char *hosts, int ppn, int bound);

#endif
