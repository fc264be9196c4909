/* Repairs skin weights that have one sensible reading, as players do, instead of refusing the
 * file: a NaN, infinite or negative weight becomes 0, a joint listed twice for one vertex gets
 * the sum of its weights in its first slot, and such a vertex's weights are renormalised. The
 * repaired influences are written back into the document (new accessors: the file written
 * carries them), with a warning saying what changed and how often. Weights that are only off
 * a sum of 1 are left in the file and normalised by the model view, with a warning. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "io/internal.h"
#include "sinew/model.h"

typedef struct weight_findings {
    uint32_t bad;        /* weights NaN, infinite or negative */
    uint32_t duplicated; /* vertices that list one joint in two weighted slots */
    uint32_t off;        /* vertices whose weights do not sum to 1 (beyond 1e-3) */
    uint32_t zero;       /* vertices without any weight */
} weight_findings;

/* Repairs one vertex's slots in place; returns 1 when it changed anything. */
static int repair_vertex(uint16_t *joints, float *weights, weight_findings *f)
{
    int changed = 0;
    for (int s = 0; s < SINEW_MAX_INFLUENCES; s++)
        if (!(weights[s] >= 0.0f) || !isfinite(weights[s])) {
            weights[s] = 0.0f;
            f->bad++;
            changed = 1;
        }
    int duplicated = 0;
    for (int s = 1; s < SINEW_MAX_INFLUENCES; s++)
        for (int t = 0; t < s && weights[s] > 0.0f; t++)
            if (weights[t] > 0.0f && joints[t] == joints[s]) {
                weights[t] += weights[s];
                weights[s] = 0.0f;
                duplicated = 1;
            }
    f->duplicated += (uint32_t)duplicated;
    changed |= duplicated;
    double sum = 0;
    for (int s = 0; s < SINEW_MAX_INFLUENCES; s++)
        sum += weights[s];
    if (sum == 0)
        f->zero++;
    else if (changed)
        for (int s = 0; s < SINEW_MAX_INFLUENCES; s++)
            weights[s] = (float)(weights[s] / sum);
    else if (fabs(sum - 1.0) > 1e-3)
        f->off++;
    return changed;
}

/* Decodes VEC4 attribute `name` of `attrs` (absent: left as zeros) into slots first_slot ..
 * first_slot + 3 of each vertex's SINEW_MAX_INFLUENCES: weights into `wout` or joints into
 * `jout` (the other NULL). */
static sinew_result read_set(const sinew_document *doc, const cJSON *attrs, const char *name,
                             uint32_t vcount, int first_slot, float *wout, uint16_t *jout,
                             sinew_error *err)
{
    const cJSON *index = cJSON_GetObjectItemCaseSensitive(attrs, name);
    if (!index) return SINEW_OK;
    io_accessor acc;
    sinew_result r = io_accessor_resolve(doc, (uint32_t)index->valuedouble, &acc, err);
    if (r) return r;
    const size_t n = (size_t)vcount * 4;
    void *tmp = sinew_alloc(&doc->alloc, n, wout ? sizeof(float) : sizeof(uint32_t));
    if (!tmp) return sinew_error_set(err, SINEW_ERR_OUT_OF_MEMORY, "%s: out of memory", doc->name);
    if (wout) io_accessor_read_float(&acc, tmp);
    if (jout) io_accessor_read_u32(&acc, tmp);
    for (uint32_t v = 0; v < vcount; v++)
        for (int k = 0; k < 4; k++) {
            const size_t at = (size_t)v * SINEW_MAX_INFLUENCES + (size_t)first_slot + (size_t)k;
            if (wout) wout[at] = ((const float *)tmp)[(size_t)v * 4 + (size_t)k];
            if (jout) jout[at] = (uint16_t)((const uint32_t *)tmp)[(size_t)v * 4 + (size_t)k];
        }
    sinew_free(&doc->alloc, tmp);
    return SINEW_OK;
}

static void warn_findings(sinew_document *doc, const char *ctx, const weight_findings *f)
{
    if (f->bad)
        io_warn(doc,
                "%s: %s: %u weights were NaN, infinite or negative: set to 0, their vertices "
                "renormalised",
                doc->name, ctx, f->bad);
    if (f->duplicated)
        io_warn(doc, "%s: %s: %u vertices list one joint twice: its weights added in one slot",
                doc->name, ctx, f->duplicated);
    if (f->off)
        io_warn(doc, "%s: %s: weights of %u vertices do not sum to 1: normalised", doc->name, ctx,
                f->off);
    if (f->zero)
        io_warn(doc, "%s: %s: %u vertices have no weight: bound to joint 0", doc->name, ctx,
                f->zero);
}

static sinew_result repair_primitive(sinew_document *doc, uint32_t m, uint32_t p,
                                     const cJSON *attrs, sinew_error *err)
{
    const cJSON *w0 = cJSON_GetObjectItemCaseSensitive(attrs, "WEIGHTS_0");
    const cJSON *pos = cJSON_GetObjectItemCaseSensitive(attrs, "POSITION");
    if (!w0 || !pos || !cJSON_GetObjectItemCaseSensitive(attrs, "JOINTS_0")) return SINEW_OK;
    io_accessor pacc;
    sinew_result r = io_accessor_resolve(doc, (uint32_t)pos->valuedouble, &pacc, err);
    if (r) return r;
    const uint32_t vcount = pacc.count;
    const size_t n = (size_t)vcount * SINEW_MAX_INFLUENCES;
    float *weights = sinew_alloc(&doc->alloc, n + 1, sizeof *weights);
    uint16_t *joints = sinew_alloc(&doc->alloc, n + 1, sizeof *joints);
    if (!weights || !joints)
        r = sinew_error_set(err, SINEW_ERR_OUT_OF_MEMORY, "%s: out of memory", doc->name);
    if (!r) r = read_set(doc, attrs, "WEIGHTS_0", vcount, 0, weights, NULL, err);
    if (!r) r = read_set(doc, attrs, "JOINTS_0", vcount, 0, NULL, joints, err);
    if (!r && cJSON_GetObjectItemCaseSensitive(attrs, "JOINTS_1")) {
        r = read_set(doc, attrs, "WEIGHTS_1", vcount, 4, weights, NULL, err);
        if (!r) r = read_set(doc, attrs, "JOINTS_1", vcount, 4, NULL, joints, err);
    }
    weight_findings f = {0};
    uint32_t changed = 0;
    for (uint32_t v = 0; !r && v < vcount; v++)
        changed += (uint32_t)repair_vertex(joints + (size_t)v * SINEW_MAX_INFLUENCES,
                                           weights + (size_t)v * SINEW_MAX_INFLUENCES, &f);
    if (!r && changed)
        r = sinew_document_set_influences(doc, (int32_t)m, (int32_t)p, vcount, joints, weights,
                                          err);
    if (!r) {
        char ctx[64];
        snprintf(ctx, sizeof ctx, "mesh %u primitive %u", m, p);
        warn_findings(doc, ctx, &f);
    }
    sinew_free(&doc->alloc, weights);
    sinew_free(&doc->alloc, joints);
    return r;
}

sinew_result io_repair_weights(sinew_document *doc, sinew_error *err)
{
    const uint32_t meshes = io_count(doc, IO_MESHES);
    for (uint32_t m = 0; m < meshes; m++) {
        uint32_t p = 0;
        const cJSON *prim;
        cJSON_ArrayForEach(prim, io_array(io_item(doc, IO_MESHES, m), "primitives"))
        {
            sinew_result r = repair_primitive(
                doc, m, p++, cJSON_GetObjectItemCaseSensitive(prim, "attributes"), err);
            if (r) return r;
        }
    }
    return SINEW_OK;
}

/* skins[].skeleton must be the joints' closest common root or one of its ancestors (glTF 2.0,
 * skin.skeleton); exporters that keep IK helpers beside the deforming hierarchy (the
 * Quaternius animal pack: IKBackLeg.L outside "Body") name a node that misses some joints,
 * and the Khronos validator rejects the file. The property only hints where the skeleton
 * starts, so it is set to the joints' closest common root, or dropped when they have none
 * (joints in different scene roots), with a warning. */
sinew_result io_repair_skeletons(sinew_document *doc, sinew_error *err)
{
    const uint32_t nodes = io_count(doc, IO_NODES), skins = io_count(doc, IO_SKINS);
    if (!skins) return SINEW_OK;
    int32_t *parent = sinew_alloc(&doc->alloc, nodes + 1, sizeof *parent);
    uint32_t *mark = sinew_alloc(&doc->alloc, nodes + 1, sizeof *mark);
    if (!parent || !mark) {
        sinew_free(&doc->alloc, parent);
        sinew_free(&doc->alloc, mark);
        return sinew_error_set(err, SINEW_ERR_OUT_OF_MEMORY, "%s: out of memory", doc->name);
    }
    for (uint32_t i = 0; i < nodes; i++)
        parent[i] = -1, mark[i] = 0;
    for (uint32_t i = 0; i < nodes; i++) {
        const cJSON *c;
        cJSON_ArrayForEach(c, io_array(io_item(doc, IO_NODES, i), "children"))
        {
            if (cJSON_IsNumber(c) && c->valuedouble >= 0 && c->valuedouble < nodes)
                parent[(uint32_t)c->valuedouble] = (int32_t)i;
        }
    }
    for (uint32_t s = 0; s < skins; s++) {
        cJSON *skin = io_item(doc, IO_SKINS, s);
        const cJSON *sk = cJSON_GetObjectItemCaseSensitive(skin, "skeleton");
        if (!cJSON_IsNumber(sk) || sk->valuedouble < 0 || sk->valuedouble >= nodes) continue;
        /* count, per node, the joints at or below it: a common root holds all of them */
        uint32_t count = 0;
        for (uint32_t i = 0; i < nodes; i++)
            mark[i] = 0;
        const cJSON *j;
        cJSON_ArrayForEach(j, io_array(skin, "joints"))
        {
            if (!cJSON_IsNumber(j) || j->valuedouble < 0 || j->valuedouble >= nodes) continue;
            count++;
            for (int32_t a = (int32_t)j->valuedouble, steps = 0; a >= 0 && steps <= (int32_t)nodes;
                 a = parent[a], steps++)
                mark[a]++;
        }
        const uint32_t named = (uint32_t)sk->valuedouble;
        if (!count || mark[named] == count) continue;
        /* the closest common root: the node holding all joints whose children do not */
        int32_t root = -1;
        for (uint32_t i = 0; i < nodes && root < 0; i++)
            if (mark[i] == count) {
                int32_t down = (int32_t)i, moved = 1;
                while (moved) {
                    moved = 0;
                    const cJSON *c;
                    cJSON_ArrayForEach(c,
                                       io_array(io_item(doc, IO_NODES, (uint32_t)down), "children"))
                    {
                        if (cJSON_IsNumber(c) && c->valuedouble >= 0 && c->valuedouble < nodes &&
                            mark[(uint32_t)c->valuedouble] == count) {
                            down = (int32_t)c->valuedouble, moved = 1;
                            break;
                        }
                    }
                }
                root = down;
            }
        const char *name = cJSON_GetStringValue(
            cJSON_GetObjectItemCaseSensitive(io_item(doc, IO_NODES, named), "name"));
        if (root >= 0) {
            io_set(skin, "skeleton", cJSON_CreateNumber(root));
            io_warn(doc,
                    "skin %u: skeleton node %u (%s) is not a common root of its joints: set to "
                    "node %d, their closest common root",
                    s, named, name ? name : "unnamed", root);
        } else {
            cJSON_DeleteItemFromObjectCaseSensitive(skin, "skeleton");
            io_warn(doc,
                    "skin %u: skeleton node %u (%s) is not a common root of its joints, and "
                    "they have none: skeleton dropped",
                    s, named, name ? name : "unnamed");
        }
    }
    sinew_free(&doc->alloc, parent);
    sinew_free(&doc->alloc, mark);
    return SINEW_OK;
}
