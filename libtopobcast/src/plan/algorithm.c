#include "algorithm.h"

#include "plan/alg_desc.h"
#include "hash.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *tb_alg_name(tb_alg_id id)
{
    const tb_alg_desc *d = tb_alg_desc_of(id);
    return d ? d->name : "?";
}

int tb_alg_lookup(const char *name)
{
    for (int i = 0; i < TB_ALG_COUNT; i++)
        if (strcmp(tb_alg_desc_of((tb_alg_id)i)->name, name) == 0)
            return i;
    return -1;
}

void tb_alg_spec_default(tb_alg_spec *s, tb_alg_id id)
{
    memset(s, 0, sizeof *s);
    s->id = id;
    s->nonblocking = 1;
    s->outstanding = 8;
    s->chains = 1;
    s->feeds = 1;
    s->leaders = 1;
    s->radix = 4;
    s->allgather = TB_AG_RING;
    s->ring = TB_RING_RANK;
    const tb_alg_desc *d = tb_alg_desc_of(id);
    if (d) {
        s->segment = d->segment;
        if (d->base != TB_ALG_DEFAULT)
            s->nbase = 1, s->base[0] = d->base;
    }
}

int tb_alg_spec_uses_shm(const tb_alg_spec *s)
{
    if (s->id == TB_ALG_SHM)
        return 1;
    const tb_alg_desc *d = tb_alg_desc_of(s->id);
    for (int i = 0; d && (d->params & TB_PARAM_BASE) && i < s->nbase && i < TB_MAX_LEVELS; i++)
        if (s->base[i] == TB_ALG_SHM)
            return 1;
    return 0;
}

void tb_alg_spec_without_shm(const tb_alg_spec *s, tb_alg_spec *out)
{
    if (s->id == TB_ALG_SHM) {
        tb_alg_spec_default(out, TB_ALG_BINOMIAL);
        return;
    }
    *out = *s;
    for (int i = 0; i < s->nbase && i < TB_MAX_LEVELS; i++)
        if (out->base[i] == TB_ALG_SHM)
            out->base[i] = TB_ALG_BINOMIAL;
}

int tb_parse_size(const char *text, size_t *out)
{
    if (!text || !isdigit((unsigned char)*text))
        return -1;
    errno = 0;
    char *end;
    unsigned long long v = strtoull(text, &end, 10);
    if (errno)
        return -1;
    /* an optional fraction, exact once scaled: "1.5K" = 1536 */
    unsigned long long num = 0, den = 1;
    if (*end == '.') {
        end++;
        if (!isdigit((unsigned char)*end))
            return -1;
        for (; isdigit((unsigned char)*end); end++) {
            if (den > 100000000ULL)
                return -1; /* more than 9 decimals */
            num = num * 10 + (unsigned long long)(*end - '0');
            den *= 10;
        }
    }
    unsigned long long mul = 1;
    switch (*end) {
    case '\0': case 'b': case 'B': break;
    case 'k': case 'K': mul = 1ULL << 10; end++; break;
    case 'm': case 'M': mul = 1ULL << 20; end++; break;
    case 'g': case 'G': mul = 1ULL << 30; end++; break;
    default: return -1;
    }
    if (mul > 1 && (*end == 'i' || *end == 'I')) /* accept KiB-style "Ki" */
        end++;
    if (*end == 'b' || *end == 'B')
        end++;
    if (*end != '\0' || v > (unsigned long long)SIZE_MAX / mul || (num * mul) % den != 0)
        return -1;
    unsigned long long frac = num * mul / den, whole = v * mul;
    if (frac > (unsigned long long)SIZE_MAX - whole)
        return -1;
    *out = (size_t)(whole + frac);
    return 0;
}

int tb_parse_int(const char *text, long lo, long hi, int *out)
{
    char *end;
    errno = 0;
    long x = strtol(text, &end, 10);
    if (end == text || *end || errno || x < lo || x > hi || x < INT_MIN || x > INT_MAX)
        return -1;
    *out = (int)x;
    return 0;
}

static int parse_base_list(const char *v, tb_alg_spec *s, char *err, size_t errlen)
{
    char tmp[256];
    snprintf(tmp, sizeof tmp, "%s", v);
    s->nbase = 0;
    char *save = NULL;
    for (char *tok = strtok_r(tmp, "/", &save); tok; tok = strtok_r(NULL, "/", &save)) {
        int id = tb_alg_lookup(tok);
        if (id < 0 || !tb_alg_desc_is_base((tb_alg_id)id)) {
            char names[256] = "";
            for (int i = 0; i < TB_ALG_COUNT; i++)
                if (tb_alg_desc_is_base((tb_alg_id)i))
                    snprintf(names + strlen(names), sizeof names - strlen(names), "%s%s", names[0] ? ", " : "",
                             tb_alg_desc_of((tb_alg_id)i)->name);
            snprintf(err, errlen, "base '%s' is not a per-level algorithm (expected one of: %s)", tok, names);
            return -1;
        }
        if (s->nbase == TB_MAX_LEVELS) {
            snprintf(err, errlen, "more than %d per-level bases", TB_MAX_LEVELS);
            return -1;
        }
        s->base[s->nbase++] = (tb_alg_id)id;
    }
    if (s->nbase == 0) {
        snprintf(err, errlen, "base: expected one or more algorithm names separated by '/'");
        return -1;
    }
    return 0;
}

/* segment=SIZE, or SIZE/SIZE/... per level (coarsest first) for the
 * hierarchical algorithms (per_level). */
static int parse_segments(tb_alg_spec *s, const char *val, unsigned per_level, char *err, size_t errlen)
{
    char tmp[256];
    snprintf(tmp, sizeof tmp, "%s", val);
    int n = 0;
    char *save = NULL;
    for (char *tok = strtok_r(tmp, "/", &save); tok; tok = strtok_r(NULL, "/", &save)) {
        if (n == TB_MAX_LEVELS) {
            snprintf(err, errlen, "segment=%s: more than %d per-level segments", val, TB_MAX_LEVELS);
            return -1;
        }
        if (tb_parse_size(tok, &s->level_seg[n]) != 0) {
            snprintf(err, errlen, "segment=%s: expected a byte count like 65536, 64K or 1M%s", val,
                     per_level ? ", or one per level like 128K/16K" : "");
            return -1;
        }
        n++;
    }
    if (n == 0 || strchr(val, '/') == val || val[strlen(val) - 1] == '/' || strstr(val, "//")) {
        snprintf(err, errlen, "segment=%s: expected a byte count like 65536, 64K or 1M", val);
        return -1;
    }
    if (n > 1 && !per_level) {
        snprintf(err, errlen, "segment=%s: one segment per level needs a hierarchical algorithm", val);
        return -1;
    }
    s->segment = s->level_seg[0];
    s->nlevel_seg = n > 1 ? n : 0;
    if (n == 1)
        s->level_seg[0] = 0;
    return 0;
}

/* key=val where val is one of two words: *out = 0 for w0, 1 for w1
 * (send=, and allgather= and ring= whose enums count the same way). */
_Static_assert(TB_AG_RING == 0 && TB_AG_RECURSIVE_DOUBLING == 1, "allgather= words in enum order");
_Static_assert(TB_RING_RANK == 0 && TB_RING_DISTANCE == 1, "ring= words in enum order");
static int parse_either(const char *key, const char *val, const char *w0, const char *w1, int *out, char *err,
                        size_t errlen)
{
    if (strcmp(val, w0) == 0)
        *out = 0;
    else if (strcmp(val, w1) == 0)
        *out = 1;
    else {
        snprintf(err, errlen, "%s=%s: expected %s or %s", key, val, w0, w1);
        return -1;
    }
    return 0;
}

static int apply_param(tb_alg_spec *s, const char *key, const char *val, char *err, size_t errlen)
{
    unsigned allowed = tb_alg_desc_of(s->id)->params;
    const char *name = tb_alg_desc_of(s->id)->name;
    struct { const char *key; unsigned flag; } keys[] = {
        {"segment", TB_PARAM_SEGMENT}, {"send", TB_PARAM_SEND},     {"outstanding", TB_PARAM_OUTSTANDING},
        {"chains", TB_PARAM_CHAINS},   {"radix", TB_PARAM_RADIX},   {"allgather", TB_PARAM_ALLGATHER},
        {"ring", TB_PARAM_RING},       {"levels", TB_PARAM_LEVELS}, {"base", TB_PARAM_BASE},
        {"feeds", TB_PARAM_FEEDS},     {"leaders", TB_PARAM_LEADERS},
    };
    unsigned flag = 0;
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++)
        if (strcmp(keys[i].key, key) == 0)
            flag = keys[i].flag;
    if (!flag || !(allowed & flag)) {
        snprintf(err, errlen, "algorithm '%s' has no parameter '%s'", name, key);
        return -1;
    }
    switch (flag) {
    case TB_PARAM_SEGMENT:
        return parse_segments(s, val, allowed & TB_PARAM_LEVELS, err, errlen);
    case TB_PARAM_SEND:
        return parse_either("send", val, "blocking", "nonblocking", &s->nonblocking, err, errlen);
    case TB_PARAM_OUTSTANDING:
        if (tb_parse_int(val, 1, 64, &s->outstanding) != 0) {
            snprintf(err, errlen, "outstanding=%s: expected an integer from 1 to 64", val);
            return -1;
        }
        return 0;
    case TB_PARAM_CHAINS:
        if (tb_parse_int(val, 1, 1 << 20, &s->chains) != 0) {
            snprintf(err, errlen, "chains=%s: expected a positive integer", val);
            return -1;
        }
        return 0;
    case TB_PARAM_RADIX:
        if (tb_parse_int(val, 2, 1 << 20, &s->radix) != 0) {
            snprintf(err, errlen, "radix=%s: expected an integer >= 2", val);
            return -1;
        }
        return 0;
    case TB_PARAM_ALLGATHER:
        return parse_either("allgather", val, "ring", "recursive_doubling", &s->allgather, err, errlen);
    case TB_PARAM_RING:
        return parse_either("ring", val, "rank", "distance", &s->ring, err, errlen);
    case TB_PARAM_LEVELS:
        if (strlen(val) >= sizeof s->levels || !*val) {
            snprintf(err, errlen, "levels=%s: expected level names separated by '/'", val);
            return -1;
        }
        snprintf(s->levels, sizeof s->levels, "%s", val);
        return 0;
    case TB_PARAM_BASE:
        return parse_base_list(val, s, err, errlen);
    case TB_PARAM_FEEDS:
        if (tb_parse_int(val, 1, TB_MAX_FEEDS, &s->feeds) != 0) {
            snprintf(err, errlen, "feeds=%s: expected an integer from 1 to %d", val, TB_MAX_FEEDS);
            return -1;
        }
        return 0;
    case TB_PARAM_LEADERS:
        if (tb_parse_int(val, 1, TB_MAX_LEADERS, &s->leaders) != 0) {
            snprintf(err, errlen, "leaders=%s: expected 1 (one per group) or 2 (one per tree of a two-tree base)", val);
            return -1;
        }
        return 0;
    }
    return -1;
}

/* The base list as written: "a/b/c". */
static void format_bases(const tb_alg_spec *s, char *buf, size_t len)
{
    size_t o = 0;
    buf[0] = 0;
    for (int i = 0; i < s->nbase && i < TB_MAX_LEVELS && o < len; i++)
        o += (size_t)snprintf(buf + o, len - o, "%s%s", i ? "/" : "", tb_alg_name(s->base[i]));
}

/* Level names in levels= ("" = every level: 0). */
static int count_levels(const char *levels)
{
    int n = 0;
    for (const char *p = levels; *p; p++)
        if (*p != '/' && (p == levels || p[-1] == '/'))
            n++;
    return n;
}

/* segment=A/B/...: no more per-level segments than fans (one per level,
 * then one inside the finest groups), as for bases */
static int check_segments(const tb_alg_spec *s, int nlevels, const char *what, char *err, size_t errlen)
{
    if (nlevels < 0 || s->nlevel_seg <= nlevels + 1)
        return 0;
    char list[TB_MAX_LEVELS * 24];
    size_t n = 0;
    for (int i = 0; i < s->nlevel_seg && n < sizeof list; i++)
        n += (size_t)snprintf(list + n, sizeof list - n, "%s%zu", i ? "/" : "", s->level_seg[i]);
    snprintf(err, errlen,
             "segment=%s lists %d segments, but with %s at most %d are used (one per level, coarsest first, then "
             "one inside the finest groups)",
             list, s->nlevel_seg, what, nlevels + 1);
    return -1;
}

int tb_alg_spec_check_bases(const tb_alg_spec *s, int nlevels, const char *what, char *err, size_t errlen)
{
    if (check_segments(s, nlevels, what, err, errlen) != 0)
        return -1;
    const tb_alg_desc *d = tb_alg_desc_of(s->id);
    if (!d || !(d->params & TB_PARAM_BASE) || s->nbase <= 0)
        return 0;
    char list[TB_MAX_LEVELS * 24];
    format_bases(s, list, sizeof list);
    int shm = -1, two = -1;
    for (int i = 0; i < s->nbase && i < TB_MAX_LEVELS; i++) {
        if (s->base[i] == TB_ALG_SHM)
            shm = i;
        if (tb_alg_ntrees(s->base[i]) == 2)
            two = i;
        /* an exchange among leaders runs before every tree: only the
         * coarsest level's leaders have the message then (plan_hierarchical.c) */
        if (tb_alg_level_xchg(s->base[i]) != TB_XCHG_NONE && (i > 0 || s->nbase == 1)) {
            snprintf(err, errlen,
                     "base=%s: %s can only be the coarsest level's base, the first of two or more "
                     "(e.g. base=%s/binomial)",
                     list, tb_alg_name(s->base[i]), tb_alg_name(s->base[i]));
            return -1;
        }
    }
    if (shm >= 0 && two >= 0) {
        snprintf(err, errlen,
                 "base=%s: shm cannot be combined with %s, which makes two trees (a two-tree plan has no "
                 "shared-memory stage); use one-tree bases with shm (e.g. base=binomial/shm)",
                 list, tb_alg_name(s->base[two]));
        return -1;
    }
    /* one base per level used, coarsest first, and one inside the finest
     * groups (the last base serves every slot past the list) */
    if (nlevels >= 0 && s->nbase > nlevels + 1) {
        snprintf(err, errlen,
                 "base=%s lists %d bases, but with %s at most %d are used (one per level, coarsest first, then "
                 "one inside the finest groups)",
                 list, s->nbase, what, nlevels + 1);
        return -1;
    }
    return 0;
}

int tb_alg_spec_parse(const char *text, tb_alg_spec *out, char *err, size_t errlen)
{
    char buf[512];
    if (!text) {
        snprintf(err, errlen, "empty algorithm");
        return -1;
    }
    while (isspace((unsigned char)*text))
        text++;
    if (strlen(text) >= sizeof buf) {
        snprintf(err, errlen, "algorithm specification longer than %zu characters", sizeof buf - 1);
        return -1;
    }
    snprintf(buf, sizeof buf, "%s", text);
    for (char *e = buf + strlen(buf); e > buf && isspace((unsigned char)e[-1]);)
        *--e = '\0';
    char *params = strchr(buf, ':');
    if (params)
        *params++ = '\0';
    int id = tb_alg_lookup(buf);
    if (id < 0) {
        char names[512] = "";
        for (int i = 0; i < TB_ALG_COUNT; i++) {
            strncat(names, tb_alg_desc_of((tb_alg_id)i)->name, sizeof names - strlen(names) - 1);
            if (i + 1 < TB_ALG_COUNT)
                strncat(names, ", ", sizeof names - strlen(names) - 1);
        }
        snprintf(err, errlen, "unknown algorithm '%s' (expected one of: %s)", buf, names);
        return -1;
    }
    tb_alg_spec s;
    tb_alg_spec_default(&s, (tb_alg_id)id);
    if (params && *params) {
        char *save = NULL;
        const char *seen[sizeof buf / 4]; /* keys so far: "k=v," takes 4 characters at least */
        int nseen = 0;
        for (char *kv = strtok_r(params, ",", &save); kv; kv = strtok_r(NULL, ",", &save)) {
            char *eq = strchr(kv, '=');
            if (!eq || eq == kv || !eq[1]) {
                snprintf(err, errlen, "'%s': expected key=value after '%s:'", kv, tb_alg_desc_of((tb_alg_id)id)->name);
                return -1;
            }
            *eq = '\0';
            /* a key given twice is a typo or a merge gone wrong: which one
             * would hold is not for the reader to guess */
            for (int k = 0; k < nseen; k++)
                if (!strcmp(seen[k], kv)) {
                    snprintf(err, errlen, "'%s' given twice", kv);
                    return -1;
                }
            if (nseen < (int)(sizeof seen / sizeof seen[0]))
                seen[nseen++] = kv;
            if (apply_param(&s, kv, eq + 1, err, errlen) != 0)
                return -1;
        }
    } else if (params) {
        snprintf(err, errlen, "'%s:': expected key=value after ':'", buf);
        return -1;
    }
    /* a spec runs as written or is refused here: levels= given, it says
     * how many bases can be used (without it, tb_config_parse_spec knows
     * the configuration's levels) */
    char what[sizeof s.levels + 16];
    snprintf(what, sizeof what, "levels=%s", s.levels);
    if (tb_alg_spec_check_bases(&s, s.levels[0] ? count_levels(s.levels) : -1, what, err, errlen) != 0)
        return -1;
    *out = s;
    return 0;
}

void tb_alg_spec_format(const tb_alg_spec *s, char *buf, size_t len)
{
    unsigned p = tb_alg_desc_of(s->id)->params;
    size_t n = (size_t)snprintf(buf, len, "%s", tb_alg_name(s->id));
#define ADD(...)                                                   \
    do {                                                           \
        if (n < len)                                               \
            n += (size_t)snprintf(buf + n, len - n, __VA_ARGS__);  \
    } while (0)
    char sep = ':';
    if (p & TB_PARAM_SEGMENT) {
        ADD("%csegment=%zu", sep, s->segment);
        for (int i = 1; i < s->nlevel_seg; i++)
            ADD("/%zu", s->level_seg[i]);
        sep = ',';
    }
    /* a hierarchical algorithm's chains, feeds and leaders only when set: its
     * canonical text (and hash) without them is what it was before them */
    if ((p & TB_PARAM_CHAINS) && (!(p & TB_PARAM_LEVELS) || s->chains != 1)) { ADD("%cchains=%d", sep, s->chains); sep = ','; }
    if (p & TB_PARAM_RADIX) { ADD("%cradix=%d", sep, s->radix); sep = ','; }
    if (p & TB_PARAM_ALLGATHER) { ADD("%callgather=%s", sep, s->allgather == TB_AG_RING ? "ring" : "recursive_doubling"); sep = ','; }
    if (p & TB_PARAM_RING) { ADD("%cring=%s", sep, s->ring == TB_RING_RANK ? "rank" : "distance"); sep = ','; }
    if ((p & TB_PARAM_LEVELS) && s->levels[0]) { ADD("%clevels=%s", sep, s->levels); sep = ','; }
    if ((p & TB_PARAM_BASE) && s->nbase > 0) {
        ADD("%cbase=", sep);
        for (int i = 0; i < s->nbase; i++)
            ADD("%s%s", i ? "/" : "", tb_alg_name(s->base[i]));
        sep = ',';
    }
    if ((p & TB_PARAM_FEEDS) && s->feeds != 1) { ADD("%cfeeds=%d", sep, s->feeds); sep = ','; }
    if ((p & TB_PARAM_LEADERS) && s->leaders != 1) { ADD("%cleaders=%d", sep, s->leaders); sep = ','; }
    if (p & TB_PARAM_SEND) { ADD("%csend=%s", sep, s->nonblocking ? "nonblocking" : "blocking"); sep = ','; }
    if ((p & TB_PARAM_OUTSTANDING) && s->nonblocking) { ADD("%coutstanding=%d", sep, s->outstanding); sep = ','; }
#undef ADD
}

uint64_t tb_alg_spec_hash(const tb_alg_spec *s)
{
    char buf[512];
    tb_alg_spec_format(s, buf, sizeof buf);
    return tb_hash_str(TB_FNV_BASIS, buf);
}

int tb_alg_spec_equal(const tb_alg_spec *a, const tb_alg_spec *b)
{
    if (a->id != b->id || a->segment != b->segment || a->nonblocking != b->nonblocking ||
        a->outstanding != b->outstanding || a->chains != b->chains || a->feeds != b->feeds || a->leaders != b->leaders ||
        a->radix != b->radix ||
        a->allgather != b->allgather || a->ring != b->ring || strcmp(a->levels, b->levels) != 0 ||
        a->nbase != b->nbase || a->nlevel_seg != b->nlevel_seg)
        return 0;
    for (int i = 0; i < a->nlevel_seg; i++)
        if (a->level_seg[i] != b->level_seg[i])
            return 0;
    for (int i = 0; i < a->nbase; i++)
        if (a->base[i] != b->base[i])
            return 0;
    return 1;
}
