/* Loads one configuration file the way each process of a job does
 * (tb_config_load) and exits: run under /usr/bin/time by
 * bench/scale/run.sh for the load time and peak RSS of one process. */
#include <stdio.h>

#include "config.h"

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: scale_load FILE\n");
        return 2;
    }
    tb_config cfg;
    char err[1024];
    if (tb_config_load(argv[1], &cfg, err, sizeof err) != 0) {
        fprintf(stderr, "scale_load: %s\n", err);
        return 1;
    }
    printf("loaded %d leaves on %d hosts, %d levels, %d rules\n", cfg.topo.nleaves, cfg.topo.nhosts,
           cfg.topo.nlevels, cfg.nrules);
    tb_config_free(&cfg);
    return 0;
}
