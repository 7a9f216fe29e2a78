/* topobcast-probe --compose and --merge: the command lines of a site's
 * calibration (probe/README.md, "Site calibration").  The inputs are read
 * with the library's loader, put together by topology/ (site.h), written
 * with the library's writer and loaded back, as every topology the probe
 * writes.  No MPI. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "config.h"
#include "site.h"
#include "topology.h"

#define MAX_INPUTS 256
#define MAX_PASSES 64

typedef struct site_cli {
    int merge;                   /* 0: --compose */
    const char *input[MAX_INPUTS]; /* --compose: input[0] is the network pass */
    int ninput;
    char pass_type[MAX_PASSES][TB_LEVEL_NAME_MAX + 1];
    const char *pass_file[MAX_PASSES];
    int npass;
    char named_type[MAX_PASSES][TB_LEVEL_NAME_MAX + 1];
    const char *named_list[MAX_PASSES];
    int nnamed;
    const char *output;
} site_cli;

int tbp_is_site_command(int argc, char **argv)
{
    for (int i = 1; i < argc; i++)
        if (strcmp(argv[i], "--compose") == 0 || strncmp(argv[i], "--compose=", 10) == 0 ||
            strcmp(argv[i], "--merge") == 0 || strncmp(argv[i], "--merge=", 8) == 0)
            return 1;
    return 0;
}

/* NAME=VALUE of option opt into name (at most cap - 1 characters) and
 * *value; -1 with the message when it is not of that form. */
static int name_value(const char *opt, const char *arg, char *name, size_t cap, const char **value, char *err,
                      size_t errlen)
{
    const char *eq = arg ? strchr(arg, '=') : NULL;
    if (!eq || eq == arg || !eq[1] || (size_t)(eq - arg) >= cap) {
        snprintf(err, errlen, "%s: expected NAME=%s, got '%s'", opt,
                 strcmp(opt, "--node-pass") == 0 ? "FILE" : "HOSTLIST", arg ? arg : "");
        return -1;
    }
    memcpy(name, arg, (size_t)(eq - arg));
    name[eq - arg] = 0;
    *value = eq + 1;
    return 0;
}

static int parse(int argc, char **argv, site_cli *c, char *err, size_t errlen)
{
    memset(c, 0, sizeof *c);
    int mode = 0; /* 1 compose, 2 merge: where plain arguments go */
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *val = NULL;
        char name[64];
        snprintf(name, sizeof name, "%s", a);
        char *eq = strchr(name, '=');
        if (eq && a[0] == '-' && a[1] == '-') {
            *eq = 0;
            val = a + (eq - name) + 1;
        }
        int is_opt = a[0] == '-' && a[1] != 0;
        if (!is_opt) {
            if (mode != 2 || c->ninput == MAX_INPUTS) {
                snprintf(err, errlen, "unexpected argument '%s' (see --help)", a);
                return -1;
            }
            c->input[c->ninput++] = a;
            continue;
        }
        int takes = strcmp(name, "--compose") == 0 || strcmp(name, "--merge") == 0 || strcmp(name, "-o") == 0 ||
                    strcmp(name, "--output") == 0 || strcmp(name, "--node-pass") == 0 ||
                    strcmp(name, "--node-type") == 0;
        if (!takes) {
            snprintf(err, errlen, "%s: unknown option with --compose or --merge (see --help)", a);
            return -1;
        }
        if (!val) {
            if (i + 1 >= argc) {
                snprintf(err, errlen, "%s needs a value", name);
                return -1;
            }
            val = argv[++i];
        }
        if (strcmp(name, "--compose") == 0 || strcmp(name, "--merge") == 0) {
            int m = name[2] == 'm' ? 2 : 1;
            if (mode) {
                snprintf(err, errlen, "%s: expected one of --compose and --merge, once", name);
                return -1;
            }
            mode = m;
            c->merge = m == 2;
            c->input[c->ninput++] = val;
        } else if (strcmp(name, "-o") == 0 || strcmp(name, "--output") == 0) {
            c->output = val;
        } else if (strcmp(name, "--node-pass") == 0) {
            if (c->npass == MAX_PASSES) {
                snprintf(err, errlen, "--node-pass: expected at most %d", MAX_PASSES);
                return -1;
            }
            if (name_value(name, val, c->pass_type[c->npass], sizeof c->pass_type[0], &c->pass_file[c->npass], err,
                           errlen) != 0)
                return -1;
            c->npass++;
        } else {
            if (c->nnamed == MAX_PASSES) {
                snprintf(err, errlen, "--node-type: expected at most %d", MAX_PASSES);
                return -1;
            }
            if (name_value(name, val, c->named_type[c->nnamed], sizeof c->named_type[0], &c->named_list[c->nnamed],
                           err, errlen) != 0)
                return -1;
            c->nnamed++;
        }
    }
    if (c->merge && c->npass) {
        snprintf(err, errlen, "--node-pass is --compose's: compose a new node type's pass with its network pass, then "
                              "merge the result");
        return -1;
    }
    if (c->merge && c->ninput < 2) {
        snprintf(err, errlen, "--merge: expected at least two files to merge, got %d", c->ninput);
        return -1;
    }
    if (!c->output) {
        snprintf(err, errlen, "%s: expected -o SITE.yaml, the site topology to write", c->merge ? "--merge" : "--compose");
        return -1;
    }
    for (int i = 0; i < c->ninput + c->npass; i++) {
        const char *in = i < c->ninput ? c->input[i] : c->pass_file[i - c->ninput];
        if (tt_same_file(c->output, in)) {
            snprintf(err, errlen, "-o %s is also an input: name another file", c->output);
            return -1;
        }
    }
    return 0;
}

/* The topology of path, loaded as the library loads it. */
static int load(const char *path, tb_config *cfg, char *err, size_t errlen)
{
    if (tb_config_load(path, cfg, err, errlen) != 0)
        return -1;
    if (!cfg->has_topology) {
        snprintf(err, errlen, "%s: expected a topology (topobcast-probe -o FILE, or a site file), it has none", path);
        tb_config_free(cfg);
        return -1;
    }
    return 0;
}

/* Writes t to path ("-": standard output) and loads it back. */
static int write_site(const site_cli *c, const tb_topology *t)
{
    int out_stdout = strcmp(c->output, "-") == 0;
    FILE *f = out_stdout ? stdout : fopen(c->output, "w");
    if (!f) {
        fprintf(stderr, "topobcast-probe: %s: cannot write it\n", c->output);
        return 1;
    }
    fprintf(f, "# A site's topology written by topobcast-probe %s (schema: config/README.md).\n",
            c->merge ? "--merge" : "--compose");
    fprintf(f, "topobcast: 2\n");
    fprintf(f, "meta: {written-by: topobcast-probe, made-by: %s, inputs: %d, hosts: %d, node-types: %d}\n",
            c->merge ? "merge" : "compose", c->ninput + c->npass, t->nhosts, t->ntypes);
    int bad = tb_topology_write(f, t) != 0;
    if (tt_out_close(f, c->output, "topobcast-probe") != 0 || bad) {
        fprintf(stderr, "topobcast-probe: %s: cannot write the site topology\n", c->output);
        return 1;
    }
    if (out_stdout)
        return 0;
    tb_config cfg;
    char err[512];
    if (tb_config_load(c->output, &cfg, err, sizeof err) != 0) {
        fprintf(stderr, "topobcast-probe: the site topology written does not load: %s\n", err);
        return 1;
    }
    printf("topobcast-probe: %s: a site's topology of %d host%s, levels:", c->output, cfg.topo.nhosts,
           cfg.topo.nhosts == 1 ? "" : "s");
    for (int l = 0; l < cfg.topo.nlevels; l++)
        printf(" %s(%d)", cfg.topo.level_name[l], cfg.topo.ngroups[l]);
    printf("; %d node type%s\n", cfg.topo.ntypes, cfg.topo.ntypes == 1 ? "" : "s");
    tb_config_free(&cfg);
    return 0;
}

int tbp_site_command(int argc, char **argv)
{
    site_cli c;
    char err[1024];
    if (parse(argc, argv, &c, err, sizeof err) != 0) {
        fprintf(stderr, "topobcast-probe: %s\n", err);
        return 2;
    }
    int n = c.ninput + c.npass, rc = 1;
    tb_config *cfg = calloc((size_t)(n > 0 ? n : 1), sizeof *cfg);
    tt_site_file *files = calloc((size_t)(n > 0 ? n : 1), sizeof *files);
    tt_node_pass pass[MAX_PASSES];
    tt_type_hosts named[MAX_PASSES];
    int loaded = 0;
    if (!cfg || !files) {
        fprintf(stderr, "topobcast-probe: out of memory\n");
        goto out;
    }
    for (; loaded < n; loaded++) {
        const char *path = loaded < c.ninput ? c.input[loaded] : c.pass_file[loaded - c.ninput];
        if (load(path, &cfg[loaded], err, sizeof err) != 0) {
            fprintf(stderr, "topobcast-probe: %s\n", err);
            goto out;
        }
        files[loaded] = (tt_site_file){path, &cfg[loaded].topo};
    }
    for (int i = 0; i < c.npass; i++)
        pass[i] = (tt_node_pass){c.pass_type[i], files[c.ninput + i]};
    for (int i = 0; i < c.nnamed; i++)
        named[i] = (tt_type_hosts){c.named_type[i], c.named_list[i]};
    tb_topology site;
    int made = c.merge ? tt_site_merge(files, c.ninput, named, c.nnamed, stderr, &site, err, sizeof err)
                       : tt_site_compose(&files[0], pass, c.npass, named, c.nnamed, stderr, &site, err, sizeof err);
    if (made != 0) {
        fprintf(stderr, "topobcast-probe: %s\n", err);
        goto out;
    }
    rc = write_site(&c, &site);
    tb_topology_release(&site);
out:
    for (int i = 0; i < loaded; i++)
        tb_config_free(&cfg[i]);
    free(cfg);
    free(files);
    return rc;
}
