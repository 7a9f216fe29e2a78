/* A SimGrid platform and hostfile as a tt_net; see platform.h. */
#include "platform.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- what the file declares ------------------------------------------------ */

typedef struct plink {
    char id[TT_NET_NAME_MAX];
    double bw, lat;
    int policy; /* 0 SHARED, 1 SPLITDUPLEX, 2 FATPIPE */
    int res[2]; /* resource ids: [0] UP (or the only one), [1] DOWN */
} plink;

typedef struct proute {
    int src, dst;   /* netpoints */
    int *res, len;  /* resources in order */
    double lat;
} proute;

typedef struct pdoc {
    char (*np)[TT_NET_NAME_MAX]; /* netpoints: hosts and routers, file order */
    char *is_host;
    int nnp, capnp;
    plink *link;
    int nlink, caplink;
    proute *route;
    int nroute, caproute;
    int floyd, zones, in_route;
    int cur_sym;
} pdoc;

static void doc_free(pdoc *d)
{
    free(d->np);
    free(d->is_host);
    free(d->link);
    for (int i = 0; i < d->nroute; i++)
        free(d->route[i].res);
    free(d->route);
    memset(d, 0, sizeof *d);
}

/* Grows *arr (elements of size sz) to hold one more than n. */
static int grow(void **arr, int *cap, int n, size_t sz)
{
    if (n < *cap)
        return 0;
    int c = *cap ? 2 * *cap : 64;
    void *a = realloc(*arr, (size_t)c * sz);
    if (!a)
        return -1;
    *arr = a;
    *cap = c;
    return 0;
}

static int find_np(const pdoc *d, const char *id)
{
    for (int i = 0; i < d->nnp; i++)
        if (!strcmp(d->np[i], id))
            return i;
    return -1;
}

static int find_link(const pdoc *d, const char *id)
{
    for (int i = 0; i < d->nlink; i++)
        if (!strcmp(d->link[i].id, id))
            return i;
    return -1;
}

/* ---- values with units (SimGrid's tables) ---------------------------------- */

typedef struct unit {
    const char *suffix;
    double scale;
} unit;

static const unit bw_units[] = {
    {"TiBps", 1099511627776.0}, {"GiBps", 1073741824.0}, {"MiBps", 1048576.0}, {"KiBps", 1024.0},
    {"Tibps", 1099511627776.0 / 8}, {"Gibps", 1073741824.0 / 8}, {"Mibps", 1048576.0 / 8}, {"Kibps", 1024.0 / 8},
    {"TBps", 1e12}, {"GBps", 1e9}, {"MBps", 1e6}, {"kBps", 1e3}, {"Bps", 1},
    {"Tbps", 1e12 / 8}, {"Gbps", 1e9 / 8}, {"Mbps", 1e6 / 8}, {"kbps", 1e3 / 8}, {"bps", 1.0 / 8},
    {NULL, 0}};
static const unit time_units[] = {{"ps", 1e-12}, {"ns", 1e-9}, {"us", 1e-6}, {"ms", 1e-3}, {"s", 1},
                                  {"m", 60},     {"h", 3600},  {"d", 86400}, {"w", 604800}, {NULL, 0}};

/* A number with one of the units (no unit: scale 1). */
static int with_unit(const char *v, const unit *u, double *out)
{
    char *end;
    errno = 0;
    double x = strtod(v, &end);
    if (end == v || errno || !isfinite(x) || x < 0)
        return -1;
    if (*end == 0) {
        *out = x;
        return 0;
    }
    for (; u->suffix; u++)
        if (!strcmp(end, u->suffix)) {
            *out = x * u->scale;
            return 0;
        }
    return -1;
}

/* ---- a small XML scanner ---------------------------------------------------- */

#define MAX_ATTR 12

typedef struct tag {
    char name[32];
    int closing, empty, nattr;
    char key[MAX_ATTR][32];
    char val[MAX_ATTR][256];
} tag;

static const char *attr(const tag *t, const char *k)
{
    for (int i = 0; i < t->nattr; i++)
        if (!strcmp(t->key[i], k))
            return t->val[i];
    return NULL;
}

static int line_of(const char *text, const char *p)
{
    int l = 1;
    for (const char *q = text; q < p; q++)
        l += *q == '\n';
    return l;
}

/* Parses the tag starting at *p (just after '<'); *p moves past '>'.
 * Returns 0, or -1 if it is malformed. */
static int scan_tag(const char **pp, tag *t)
{
    const char *p = *pp;
    memset(t, 0, sizeof *t);
    if (*p == '/') {
        t->closing = 1;
        p++;
    }
    size_t n = 0;
    while (*p && (isalnum((unsigned char)*p) || *p == '_' || *p == '-' || *p == ':')) {
        if (n + 1 < sizeof t->name)
            t->name[n++] = *p;
        p++;
    }
    if (n == 0)
        return -1;
    for (;;) {
        while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')
            p++;
        if (*p == '>') {
            *pp = p + 1;
            return 0;
        }
        if (p[0] == '/' && p[1] == '>') {
            t->empty = 1;
            *pp = p + 2;
            return 0;
        }
        if (!*p || t->nattr == MAX_ATTR)
            return -1;
        size_t k = 0;
        while (*p && *p != '=' && *p != ' ' && *p != '>' && *p != '/') {
            if (k + 1 < sizeof t->key[0])
                t->key[t->nattr][k++] = *p;
            p++;
        }
        while (*p == ' ')
            p++;
        if (*p != '=')
            return -1;
        p++;
        while (*p == ' ')
            p++;
        char q = *p;
        if (q != '"' && q != '\'')
            return -1;
        p++;
        size_t v = 0;
        while (*p && *p != q) {
            if (v + 1 >= sizeof t->val[0])
                return -1;
            t->val[t->nattr][v++] = *p++;
        }
        if (*p != q)
            return -1;
        p++;
        t->nattr++;
    }
}

/* ---- elements ---------------------------------------------------------------- */

static int add_np(pdoc *d, const char *id, int host)
{
    if (!id || !*id || find_np(d, id) >= 0)
        return -1;
    if (grow((void **)&d->np, &d->capnp, d->nnp, sizeof *d->np) != 0)
        return -1;
    char *h = realloc(d->is_host, (size_t)d->capnp);
    if (!h)
        return -1;
    d->is_host = h;
    snprintf(d->np[d->nnp], TT_NET_NAME_MAX, "%s", id);
    d->is_host[d->nnp++] = (char)host;
    return 0;
}

static int on_link(pdoc *d, const tag *t, tt_net *n, char *why, size_t wl)
{
    const char *id = attr(t, "id"), *bw = attr(t, "bandwidth"), *lat = attr(t, "latency");
    const char *pol = attr(t, "sharing_policy");
    if (!id || !bw || find_link(d, id) >= 0) {
        snprintf(why, wl, "a link needs a new id and a bandwidth");
        return -1;
    }
    if (grow((void **)&d->link, &d->caplink, d->nlink, sizeof *d->link) != 0) {
        snprintf(why, wl, "out of memory");
        return -1;
    }
    plink *l = &d->link[d->nlink];
    snprintf(l->id, sizeof l->id, "%s", id);
    if (with_unit(bw, bw_units, &l->bw) != 0 || (lat && with_unit(lat, time_units, &l->lat) != 0)) {
        snprintf(why, wl, "link %s: bandwidth '%s' or latency '%s' not understood", id, bw, lat ? lat : "");
        return -1;
    }
    if (!lat)
        l->lat = 0;
    if (!pol || !strcmp(pol, "SHARED"))
        l->policy = 0;
    else if (!strcmp(pol, "SPLITDUPLEX"))
        l->policy = 1;
    else if (!strcmp(pol, "FATPIPE"))
        l->policy = 2;
    else {
        snprintf(why, wl, "link %s: sharing policy %s not supported", id, pol);
        return -1;
    }
    char name[TT_NET_NAME_MAX];
    if (l->policy == 1) {
        snprintf(name, sizeof name, "%.58s UP", id);
        l->res[0] = tt_net_add_res(n, name, l->bw);
        snprintf(name, sizeof name, "%.56s DOWN", id);
        l->res[1] = tt_net_add_res(n, name, l->bw);
    } else {
        l->res[0] = l->res[1] = tt_net_add_res(n, id, l->policy == 2 ? INFINITY : l->bw);
    }
    if (l->res[0] < 0 || l->res[1] < 0) {
        snprintf(why, wl, "out of memory");
        return -1;
    }
    d->nlink++;
    return 0;
}

static int on_route(pdoc *d, const tag *t, char *why, size_t wl)
{
    const char *s = attr(t, "src"), *ds = attr(t, "dst"), *sym = attr(t, "symmetrical");
    int a = s ? find_np(d, s) : -1, b = ds ? find_np(d, ds) : -1;
    if (a < 0 || b < 0) {
        snprintf(why, wl, "route %s -> %s: unknown netpoint", s ? s : "?", ds ? ds : "?");
        return -1;
    }
    for (int i = 0; i < d->nroute; i++)
        if (d->route[i].src == a && d->route[i].dst == b) {
            snprintf(why, wl, "route %s -> %s declared twice", s, ds);
            return -1;
        }
    if (grow((void **)&d->route, &d->caproute, d->nroute + 1, sizeof *d->route) != 0) {
        snprintf(why, wl, "out of memory");
        return -1;
    }
    d->route[d->nroute] = (proute){a, b, NULL, 0, 0};
    d->cur_sym = !sym || !(strcmp(sym, "NO") == 0 || strcmp(sym, "no") == 0 || strcmp(sym, "false") == 0);
    d->in_route = 1;
    d->nroute++;
    return 0;
}

static int on_link_ctn(pdoc *d, const tag *t, char *why, size_t wl)
{
    const char *id = attr(t, "id"), *dir = attr(t, "direction");
    int k = id ? find_link(d, id) : -1;
    if (!d->in_route || k < 0) {
        snprintf(why, wl, "link_ctn %s: %s", id ? id : "?", d->in_route ? "unknown link" : "outside a route");
        return -1;
    }
    proute *r = &d->route[d->nroute - 1];
    int *x = realloc(r->res, sizeof(int) * (size_t)(r->len + 1));
    if (!x) {
        snprintf(why, wl, "out of memory");
        return -1;
    }
    r->res = x;
    int down = dir && !strcmp(dir, "DOWN");
    /* bit 30 keeps the direction until close_route has made the reverse */
    r->res[r->len++] = d->link[k].res[down] | (down << 30);
    r->lat += d->link[k].lat;
    return 0;
}

/* The reverse of the last route, when symmetrical (and not a self-route). */
static int close_route(pdoc *d, char *why, size_t wl)
{
    d->in_route = 0;
    proute *r = &d->route[d->nroute - 1];
    const int N = 1 << 30;
    if (!d->cur_sym || r->src == r->dst) {
        for (int i = 0; i < r->len; i++)
            r->res[i] &= N - 1;
        return 0;
    }
    for (int i = 0; i < d->nroute - 1; i++)
        if (d->route[i].src == r->dst && d->route[i].dst == r->src) {
            snprintf(why, wl, "route %s -> %s: its reverse is declared too (routes are symmetrical by default)",
                     d->np[r->src], d->np[r->dst]);
            return -1;
        }
    proute back = {r->dst, r->src, malloc(sizeof(int) * (size_t)(r->len + 1)), r->len, r->lat};
    if (!back.res) {
        snprintf(why, wl, "out of memory");
        return -1;
    }
    for (int i = 0; i < r->len; i++) {
        int v = r->res[r->len - 1 - i], down = (v & N) != 0, res = v & (N - 1);
        /* the other direction of a split-duplex link: its other resource */
        int other = res;
        for (int k = 0; k < d->nlink; k++)
            if (d->link[k].res[0] == res || d->link[k].res[1] == res) {
                other = d->link[k].res[!down];
                break;
            }
        back.res[i] = other;
    }
    for (int i = 0; i < r->len; i++)
        r->res[i] &= N - 1;
    d->route[d->nroute++] = back;
    return 0;
}

/* ---- Floyd, as SimGrid computes it ----------------------------------------- */

static int build_routes(pdoc *d, tt_net *n, char *err, size_t errlen)
{
    const int V = d->nnp;
    int *decl = malloc(sizeof(int) * (size_t)V * (size_t)V);
    long *pred = malloc(sizeof(long) * (size_t)V * (size_t)V);
    unsigned long *cost = malloc(sizeof(unsigned long) * (size_t)V * (size_t)V);
    int *hid = malloc(sizeof(int) * (size_t)V), rc = -1;
    int *hop_from = malloc(sizeof(int) * ((size_t)V + 1)), *hop_to = malloc(sizeof(int) * ((size_t)V + 1));
    int *ids = NULL, cap = 0;
    if (!decl || !pred || !cost || !hid || !hop_from || !hop_to)
        goto oom;
#define AT(a, b) ((size_t)(a) * (size_t)V + (size_t)(b))
    for (size_t i = 0; i < (size_t)V * (size_t)V; i++) {
        decl[i] = -1;
        pred[i] = -1;
        cost[i] = ULONG_MAX;
    }
    for (int i = 0; i < d->nroute; i++) {
        proute *r = &d->route[i];
        decl[AT(r->src, r->dst)] = i;
        pred[AT(r->src, r->dst)] = r->src;
        cost[AT(r->src, r->dst)] = (unsigned long)r->len;
    }
    /* the loopback of hosts without a self-route: unlimited, no latency */
    for (int a = 0; a < V; a++)
        if (decl[AT(a, a)] < 0) {
            pred[AT(a, a)] = a;
            cost[AT(a, a)] = 1;
        }
    if (d->floyd)
        for (int c = 0; c < V; c++)
            for (int a = 0; a < V; a++)
                for (int b = 0; b < V; b++)
                    if (cost[AT(a, c)] < ULONG_MAX && cost[AT(c, b)] < ULONG_MAX &&
                        (cost[AT(a, b)] == ULONG_MAX || cost[AT(a, c)] + cost[AT(c, b)] < cost[AT(a, b)])) {
                        cost[AT(a, b)] = cost[AT(a, c)] + cost[AT(c, b)];
                        pred[AT(a, b)] = pred[AT(c, b)];
                    }
    int H = 0;
    for (int v = 0; v < V; v++) {
        hid[v] = d->is_host[v] ? H : -1;
        if (d->is_host[v])
            snprintf(n->host[H++], TT_NET_NAME_MAX, "%s", d->np[v]);
    }
    for (int a = 0; a < V; a++) {
        if (hid[a] < 0)
            continue;
        for (int b = 0; b < V; b++) {
            if (hid[b] < 0)
                continue;
            /* as SimGrid's get_local_route: the hops from b back to a,
             * each the declared route from its predecessor */
            int ns = 0, cur = b, ok = 1;
            do {
                long p = pred[AT(a, cur)];
                if (p < 0 || ns >= V) {
                    ok = 0;
                    break;
                }
                hop_from[ns] = (int)p;
                hop_to[ns++] = cur;
                cur = (int)p;
            } while (cur != a);
            if (!ok)
                continue; /* no route: left missing */
            int len = 0;
            double lat = 0;
            for (int k = ns - 1; k >= 0; k--) {
                int di = decl[AT(hop_from[k], hop_to[k])]; /* -1: the loopback, no resource */
                int nl = di >= 0 ? d->route[di].len : 0;
                if (len + nl > cap) {
                    cap = 2 * (len + nl) + 16;
                    int *x = realloc(ids, sizeof(int) * (size_t)cap);
                    if (!x)
                        goto oom;
                    ids = x;
                }
                for (int q = 0; q < nl; q++)
                    ids[len++] = d->route[di].res[q];
                if (di >= 0)
                    lat += d->route[di].lat;
            }
            if (tt_net_set_route(n, hid[a], hid[b], ids, len, lat) != 0)
                goto oom;
        }
    }
    tt_net_finish(n);
    rc = 0;
    goto out;
oom:
    snprintf(err, errlen, "out of memory computing the routes");
out:
#undef AT
    free(decl), free(pred), free(cost), free(hid), free(hop_from), free(hop_to), free(ids);
    return rc;
}

/* ---- the parser ------------------------------------------------------------- */

int tt_platform_parse(const char *text, const char *name, tt_net *n, char *err, size_t errlen)
{
    pdoc d = {0};
    tt_net tmp = {0};
    char why[256] = "";
    memset(n, 0, sizeof *n);
    /* resources are collected before the hosts are counted: a scratch net */
    if (tt_net_init(&tmp, 1) != 0) {
        snprintf(err, errlen, "%s: out of memory", name);
        return -1;
    }
    const char *p = text, *at = text;
    while ((p = strchr(p, '<')) != NULL) {
        at = p;
        if (!strncmp(p, "<!--", 4)) {
            const char *e = strstr(p + 4, "-->");
            if (!e) {
                snprintf(why, sizeof why, "unterminated comment");
                goto fail;
            }
            p = e + 3;
            continue;
        }
        if (p[1] == '?' || p[1] == '!') {
            const char *e = strchr(p, '>');
            if (!e) {
                snprintf(why, sizeof why, "unterminated declaration");
                goto fail;
            }
            p = e + 1;
            continue;
        }
        p++;
        tag t;
        if (scan_tag(&p, &t) != 0) {
            snprintf(why, sizeof why, "malformed tag");
            goto fail;
        }
        if (t.closing) {
            if (!strcmp(t.name, "route") && d.in_route && close_route(&d, why, sizeof why) != 0)
                goto fail;
            continue;
        }
        int rc = 0;
        if (!strcmp(t.name, "zone") || !strcmp(t.name, "AS")) {
            const char *r = attr(&t, "routing");
            if (d.zones++ > 0) {
                snprintf(why, sizeof why, "nested or several zones are not supported");
                goto fail;
            }
            if (r && !strcmp(r, "Floyd"))
                d.floyd = 1;
            else if (!r || strcmp(r, "Full") != 0) {
                snprintf(why, sizeof why, "zone routing '%s' is not supported (Floyd or Full)", r ? r : "");
                goto fail;
            }
        } else if (!strcmp(t.name, "host")) {
            rc = add_np(&d, attr(&t, "id"), 1);
            if (rc)
                snprintf(why, sizeof why, "host without a new id");
        } else if (!strcmp(t.name, "router")) {
            rc = add_np(&d, attr(&t, "id"), 0);
            if (rc)
                snprintf(why, sizeof why, "router without a new id");
        } else if (!strcmp(t.name, "link")) {
            rc = on_link(&d, &t, &tmp, why, sizeof why);
        } else if (!strcmp(t.name, "route")) {
            rc = on_route(&d, &t, why, sizeof why);
            if (!rc && t.empty)
                rc = close_route(&d, why, sizeof why);
        } else if (!strcmp(t.name, "link_ctn")) {
            rc = on_link_ctn(&d, &t, why, sizeof why);
        } else if (!strcmp(t.name, "cluster") || !strcmp(t.name, "cabinet") || !strcmp(t.name, "peer") ||
                   !strcmp(t.name, "zoneRoute") || !strcmp(t.name, "ASroute") || !strcmp(t.name, "bypassRoute") ||
                   !strcmp(t.name, "bypassZoneRoute") || !strcmp(t.name, "backbone") ||
                   !strcmp(t.name, "host_link") || !strcmp(t.name, "include")) {
            snprintf(why, sizeof why, "<%s> is not supported (one Floyd or Full zone with explicit routes)", t.name);
            goto fail;
        }
        if (rc)
            goto fail;
    }
    int H = 0;
    for (int v = 0; v < d.nnp; v++)
        H += d.is_host[v];
    if (H == 0 || d.zones == 0) {
        snprintf(err, errlen, "%s: no %s", name, H == 0 ? "host" : "zone");
        doc_free(&d);
        tt_net_free(&tmp);
        return -1;
    }
    if (tt_net_init(n, H) != 0)
        goto oom;
    for (int i = 0; i < tmp.nres; i++)
        if (tt_net_add_res(n, tmp.res[i], tmp.cap[i]) != i)
            goto oom;
    if (build_routes(&d, n, err, errlen) != 0) {
        doc_free(&d);
        tt_net_free(&tmp);
        tt_net_free(n);
        return -1;
    }
    doc_free(&d);
    tt_net_free(&tmp);
    return 0;
oom:
    snprintf(why, sizeof why, "out of memory");
fail:
    snprintf(err, errlen, "%s:%d: %s", name, line_of(text, at), why);
    doc_free(&d);
    tt_net_free(&tmp);
    tt_net_free(n);
    return -1;
}

char *tt_read_text(const char *path, char *err, size_t errlen)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        snprintf(err, errlen, "%s: %s", path, strerror(errno));
        return NULL;
    }
    size_t len = 0, cap = 0;
    char *text = NULL, chunk[65536];
    size_t got;
    while ((got = fread(chunk, 1, sizeof chunk, f)) > 0) {
        if (len + got + 1 > cap) {
            cap = 2 * (len + got + 1);
            char *t = realloc(text, cap);
            if (!t) {
                free(text);
                fclose(f);
                snprintf(err, errlen, "%s: out of memory", path);
                return NULL;
            }
            text = t;
        }
        memcpy(text + len, chunk, got);
        len += got;
    }
    fclose(f);
    if (!text) {
        snprintf(err, errlen, "%s: empty file", path);
        return NULL;
    }
    text[len] = 0;
    return text;
}

int tt_platform_read(const char *path, tt_net *n, char *err, size_t errlen)
{
    char *text = tt_read_text(path, err, errlen);
    memset(n, 0, sizeof *n);
    if (!text)
        return -1;
    int rc = tt_platform_parse(text, path, n, err, errlen);
    free(text);
    return rc;
}

int tt_hostfile_read(const char *path, const tt_net *n, int P, int **host_of, char *err, size_t errlen)
{
    *host_of = NULL;
    char *text = tt_read_text(path, err, errlen);
    if (!text)
        return -1;
    int *h = malloc(sizeof(int) * (size_t)(P > 0 ? P : 1)), got = 0, lineno = 0;
    if (!h) {
        free(text);
        snprintf(err, errlen, "%s: out of memory", path);
        return -1;
    }
    for (char *save = NULL, *line = strtok_r(text, "\n", &save); line && got < P; line = strtok_r(NULL, "\n", &save)) {
        lineno++;
        line += strspn(line, " \t\r");
        size_t len = strcspn(line, " \t\r#");
        if (len == 0)
            continue;
        line[len] = 0;
        long count = 1;
        char *colon = strchr(line, ':');
        if (colon) {
            char *end;
            *colon = 0;
            count = strtol(colon + 1, &end, 10);
            if (*end || count < 1) {
                snprintf(err, errlen, "%s:%d: bad count", path, lineno);
                goto fail;
            }
        }
        int id = -1;
        for (int k = 0; k < n->nhost && id < 0; k++)
            if (!strcmp(n->host[k], line))
                id = k;
        if (id < 0) {
            snprintf(err, errlen, "%s:%d: host %s is not in the platform", path, lineno, line);
            goto fail;
        }
        for (long c = 0; c < count && got < P; c++)
            h[got++] = id;
    }
    if (got < P) {
        snprintf(err, errlen, "%s: %d ranks, fewer than %d", path, got, P);
        goto fail;
    }
    free(text);
    *host_of = h;
    return 0;
fail:
    free(text);
    free(h);
    return -1;
}
