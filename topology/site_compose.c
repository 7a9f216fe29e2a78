/* topobcast-probe --compose: a network pass and node passes into one
 * site topology (site.h, tt_site_compose; probe/README.md, "Site
 * calibration").  The network pass gives the levels of hosts and their
 * classes; each node pass a node type (the levels inside its host, its
 * PUs, its classes); the administrator's lists, the passes' own hosts and
 * hwloc's summaries say which host is of which type. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "site_internal.h"

/* At most as many node types as the loader reads. */
#define MAX_TYPES 64

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The median of the known (not NaN) values of v[0..n), NaN if none. */
static double median_known(const double *v, int n)
{
    double k[MAX_TYPES];
    int m = 0;
    for (int i = 0; i < n; i++)
        if (!isnan(v[i]))
            k[m++] = v[i];
    if (m == 0)
        return NAN;
    qsort(k, (size_t)m, sizeof *k, cmp_double);
    return m % 2 ? k[m / 2] : 0.5 * (k[m / 2 - 1] + k[m / 2]);
}

static int valid_type_name(const char *s)
{
    size_t n = strlen(s);
    int ok = n > 0 && n < TB_LEVEL_NAME_MAX;
    for (size_t i = 0; ok && i < n; i++)
        ok = (s[i] >= 'a' && s[i] <= 'z') || (s[i] >= 'A' && s[i] <= 'Z') || (s[i] >= '0' && s[i] <= '9') ||
             s[i] == '_' || s[i] == '-';
    return ok;
}

/* Each pass's type: checked names, then the levels inside hosts that all
 * types share (sub[0..*nsub)), each type filled to them. */
static int read_types(const tt_node_pass *pass, int npass, FILE *notes, tt_type_part *types, tt_level_name *sub,
                      int *nsub, char *err, size_t errlen)
{
    if (npass > MAX_TYPES) {
        snprintf(err, errlen, "expected at most %d node passes, got %d", MAX_TYPES, npass);
        return -1;
    }
    for (int i = 0; i < npass; i++) {
        if (!valid_type_name(pass[i].type)) {
            snprintf(err, errlen, "--node-pass %s=%s: expected a type name of 1 to %d letters, digits, '_' or '-'",
                     pass[i].type, pass[i].file.path, TB_LEVEL_NAME_MAX - 1);
            return -1;
        }
        for (int j = 0; j < i; j++)
            if (strcmp(pass[j].type, pass[i].type) == 0) {
                snprintf(err, errlen, "--node-pass %s=%s: expected each node type once: %s is type '%s' already",
                         pass[i].type, pass[i].file.path, pass[j].file.path, pass[j].type);
                return -1;
            }
        if (tt_type_of_node_pass(&pass[i], notes, &types[i], err, errlen) != 0)
            return -1;
    }
    const tt_level_name *lists[MAX_TYPES];
    int counts[MAX_TYPES];
    const char *files[MAX_TYPES];
    for (int i = 0; i < npass; i++) {
        lists[i] = types[i].lev;
        counts[i] = types[i].nlev;
        files[i] = types[i].file;
    }
    *nsub = 0;
    if (npass > 0 && tt_levels_union(lists, counts, files, npass, sub, TB_MAX_LEVELS, nsub, err, errlen) != 0)
        return -1;
    for (int i = 0; i < npass; i++)
        if (tt_type_fill_levels(&types[i], sub, *nsub) != 0) {
            snprintf(err, errlen, "%s: out of memory", types[i].file);
            return -1;
        }
    return 0;
}

/* type[h] for each host of the network pass: a pass's own host, then the
 * administrator's lists (which override), then hwloc's summaries. */
static int host_types(const tt_site_file *net, const tt_site_part *p, const tt_type_part *types, int ntypes,
                      const tt_type_hosts *named, int nnamed, FILE *notes, int *type, char *err, size_t errlen)
{
    tt_host_index idx;
    if (tt_host_index_build(&idx, (const char *const *)p->host, p->nhosts) != 0) {
        snprintf(err, errlen, "%s: out of memory", net->path);
        return -1;
    }
    int rc = 0;
    for (int h = 0; h < p->nhosts; h++)
        type[h] = -1;
    for (int k = 0; k < ntypes && rc == 0; k++) {
        int h = tt_host_index_find(&idx, types[k].host);
        if (h < 0) {
            if (notes)
                fprintf(notes,
                        "topobcast-probe: note: %s: its host %s is not in %s: type '%s' goes to the hosts named or "
                        "found by hwloc only\n",
                        types[k].file, types[k].host, net->path, types[k].name);
        } else if (type[h] >= 0) {
            snprintf(err, errlen, "%s: expected node passes of different hosts: %s measured %s too", types[k].file,
                     types[type[h]].file, p->host[h]);
            rc = -1;
        } else {
            type[h] = k;
        }
    }
    if (rc == 0)
        rc = tt_types_by_list(named, nnamed, types, ntypes, &idx, net->path, type, notes, err, errlen);
    if (rc == 0)
        rc = tt_types_by_hwloc(types, ntypes, p->hwloc, p->nhosts, (const char *const *)p->host, type, err, errlen);
    tt_host_index_free(&idx);
    return rc;
}

int tt_site_compose(const tt_site_file *net, const tt_node_pass *pass, int npass, const tt_type_hosts *named,
                    int nnamed, FILE *notes, tb_topology *out, char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    tt_site_part p;
    if (tt_part_of_network_pass(net, &p, err, errlen) != 0)
        return -1;
    tt_type_part *types = calloc((size_t)(npass > 0 ? npass : 1), sizeof *types);
    int *type = malloc(sizeof(int) * (size_t)p.nhosts);
    tt_site_build b;
    memset(&b, 0, sizeof b);
    int rc = -1;
    if (!types || !type) {
        snprintf(err, errlen, "%s: out of memory", net->path);
        goto out;
    }
    if (read_types(pass, npass, notes, types, b.sub, &b.nsub, err, errlen) != 0 ||
        host_types(net, &p, types, npass, named, nnamed, notes, type, err, errlen) != 0)
        goto out;
    tt_note_untyped(notes, type, (const char *const *)p.host, p.nhosts, npass);
    b.nhosts = p.nhosts;
    b.host = (const char **)p.host;
    b.nlev = p.nlev;
    for (int l = 0; l < p.nlev; l++) {
        snprintf(b.lev[l], sizeof b.lev[l], "%s", p.lev[l]);
        b.group[l] = p.group[l];
        b.cls[l] = p.cls[l];
    }
    b.perhost_cls = p.perhost_cls;
    /* inside hosts: the median over the types that measured it */
    double v[MAX_TYPES];
    for (int k = 0; k < b.nsub; k++) {
        for (int i = 0; i < npass; i++)
            v[i] = types[i].cls[k];
        b.sub_cls[k] = median_known(v, npass);
    }
    for (int i = 0; i < npass; i++)
        v[i] = types[i].within;
    b.within = median_known(v, npass);
    b.ntypes = npass;
    b.types = types;
    b.host_type = type;
    if (tt_site_assemble(&b, net->path, out, err, errlen) != 0)
        goto out;
    rc = 0;
out:
    for (int i = 0; types && i < npass; i++)
        tt_type_part_free(&types[i]);
    free(types);
    free(type);
    tt_site_part_free(&p);
    return rc;
}
