/* Which node type each host of a site has: named by the administrator
 * (--node-type NAME=LIST, which overrides), or found by hwloc's summary of
 * the host (the type whose node pass reported the same words); hosts of
 * no type are said.  Hosts are looked up as the library matches a rank's
 * host: by name, else by a unique short name. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hash.h"
#include "site_internal.h"

int tt_host_index_build(tt_host_index *x, const char *const *host, int n)
{
    memset(x, 0, sizeof *x);
    x->t.nhosts = n;
    x->t.hosts = (char **)host; /* borrowed: tt_host_index_free never frees it */
    int a, b;
    if (tb_topo_index_hosts(&x->t, &a, &b) != 0) {
        tt_host_index_free(x);
        return -1;
    }
    return 0;
}

int tt_host_index_find(const tt_host_index *x, const char *name)
{
    uint64_t full, shrt;
    tb_hash_host(name, &full, &shrt);
    int h = tb_topo_find_host(&x->t, full, shrt);
    /* a hash is not a name */
    if (h >= 0 && strcmp(x->t.hosts[h], name) != 0) {
        size_t sl = strcspn(name, "."), hl = strcspn(x->t.hosts[h], ".");
        if (sl != hl || strncmp(name, x->t.hosts[h], sl) != 0)
            return -1;
    }
    return h;
}

void tt_host_index_free(tt_host_index *x)
{
    free(x->t.host_hash);
    free(x->t.short_hash);
    free(x->t.by_hash);
    free(x->t.by_short);
    memset(x, 0, sizeof *x);
}

static int type_named(const tt_type_part *types, int ntypes, const char *name)
{
    for (int k = 0; k < ntypes; k++)
        if (strcmp(types[k].name, name) == 0)
            return k;
    return -1;
}

int tt_types_by_list(const tt_type_hosts *named, int nnamed, const tt_type_part *types, int ntypes,
                     const tt_host_index *hosts, const char *site_file, int *type, FILE *notes, char *err,
                     size_t errlen)
{
    int nh = hosts->t.nhosts, rc = 0;
    int *by = malloc(sizeof(int) * (size_t)(nh > 0 ? nh : 1)); /* the list that named each host */
    if (!by) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    for (int h = 0; h < nh; h++)
        by[h] = -1;
    for (int i = 0; i < nnamed && rc == 0; i++) {
        int k = type_named(types, ntypes, named[i].type);
        char **names = NULL, e[256];
        int n = 0;
        if (k < 0) {
            snprintf(err, errlen,
                     "--node-type %s=%s: expected the name of a node type (--compose: of a --node-pass NAME=FILE; "
                     "--merge: of a file merged)",
                     named[i].type, named[i].list);
            rc = -1;
            break;
        }
        if (tt_hostlist_expand(named[i].list, &names, &n, e, sizeof e) != 0) {
            snprintf(err, errlen, "--node-type %s=%s: %s", named[i].type, named[i].list, e);
            rc = -1;
            break;
        }
        int found = 0, missing = 0;
        const char *first_missing = NULL;
        for (int j = 0; j < n && rc == 0; j++) {
            int h = tt_host_index_find(hosts, names[j]);
            if (h < 0) {
                if (!missing++)
                    first_missing = names[j];
                continue;
            }
            if (by[h] >= 0 && by[h] != i) {
                snprintf(err, errlen, "--node-type %s=%s: expected each host in one list: %s is also of type '%s'",
                         named[i].type, named[i].list, hosts->t.hosts[h], named[by[h]].type);
                rc = -1;
                break;
            }
            by[h] = i;
            type[h] = k;
            found++;
        }
        if (rc == 0 && found == 0) {
            snprintf(err, errlen, "--node-type %s=%s: expected hosts of %s, none of its %d is", named[i].type,
                     named[i].list, site_file, n);
            rc = -1;
        } else if (rc == 0 && missing && notes) {
            fprintf(notes, "topobcast-probe: note: --node-type %s: %d of its %d hosts are not in %s (%s%s)\n",
                    named[i].type, missing, n, site_file, first_missing, missing > 1 ? " ..." : "");
        }
        free(names);
    }
    free(by);
    return rc;
}

int tt_types_by_hwloc(const tt_type_part *types, int ntypes, char *const *hwloc, int nhosts, const char *const *host,
                      int *type, char *err, size_t errlen)
{
    for (int h = 0; hwloc && h < nhosts; h++) {
        if (type[h] >= 0 || !hwloc[h][0])
            continue;
        int k = -1;
        for (int j = 0; j < ntypes; j++) {
            if (strcmp(types[j].hwloc, hwloc[h]) != 0)
                continue;
            if (k >= 0) {
                snprintf(err, errlen,
                         "%s: expected node types that hwloc tells apart: '%s' and '%s' are both \"%s\", as is host %s "
                         "(name their hosts: --node-type NAME=HOSTLIST)",
                         types[j].file, types[k].name, types[j].name, hwloc[h], host[h]);
                return -1;
            }
            k = j;
        }
        type[h] = k;
    }
    return 0;
}

void tt_note_untyped(FILE *notes, const int *type, const char *const *host, int nhosts, int ntypes)
{
    if (!notes)
        return;
    if (ntypes == 0) {
        fprintf(notes, "topobcast-probe: note: no node type (--node-pass NAME=FILE): the ranks of every host are "
                       "placed by host only, with no level inside a host\n");
        return;
    }
    int n = 0;
    for (int h = 0; h < nhosts; h++)
        n += type[h] < 0;
    if (n == 0)
        return;
    fprintf(notes, "topobcast-probe: note: %d host%s of no node type (their ranks are placed by host only):", n,
            n == 1 ? "" : "s");
    for (int h = 0, said = 0; h < nhosts && said < 8; h++)
        if (type[h] < 0)
            fprintf(notes, "%s %s", said++ ? "," : "", host[h]);
    fprintf(notes, "%s\n", n > 8 ? " ..." : "");
}
