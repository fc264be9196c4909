/* The tail job (see sinew/pipeline.h): find, chain, try on a copy, check that the skin is no
 * worse, then edit the caller's document. */
#include "sinew/pipeline.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Normal skinning distortion: an edge stretched or squashed by up to 1.3 is what a body's own
 * skin does in a walk (the reference p99 of body skin on the shared models' walks is 1.16-1.47;
 * the edge-stretch table of the published method has 1.29). Beyond it, and beyond what the
 * input did, the skin got worse. */
#define NORMAL_STRAIN 1.3f
/* Rings of root skin the check may give back: the walk's root is within a ring or two of the
 * rigger's on the shared models. */
#define GUARD_ROUNDS 4

void sinew_tail_result_free(sinew_tail_result *r)
{
    if (!r) return;
    sinew_allocator al = r->allocator;
    sinew_rig_report_free(&r->report);
    sinew_rig_plan_free(&r->plan);
    sinew_model_free(r->model);
    sinew_model_free(r->input);
    sinew_free(&al, r->bakes);
    sinew_free(&al, r->clips);
    sinew_free(&al, r->legs);
    memset(r, 0, sizeof *r);
}

/* Chains of the plan that are tails (the rest are wings, ears and garments). */
static uint32_t tail_chains(const sinew_rig_plan *plan)
{
    uint32_t n = 0;
    for (uint32_t c = 0; c < plan->chain_count; c++)
        n += plan->chains[c].wing == 0 && plan->chains[c].ear == 0 && plan->chains[c].garment == 0;
    return n;
}

/* Bakes a wing or ear chain of the plan (its bones found by the names it gave them) with its
 * kind's springs. */
static sinew_result bake_pair_chain(sinew_document *doc, sinew_model *model,
                                    const sinew_rig_chain *chain, const sinew_bake_options *options,
                                    sinew_error *err)
{
    int32_t nodes[SINEW_RIG_MAX_SEGMENTS + 1];
    for (uint32_t b = 0; b < chain->bone_count; b++)
        if ((nodes[b] = sinew_model_find_node(model, chain->bones[b].name)) < 0)
            return sinew_error_set(err, SINEW_ERR_INTERNAL, "%s: %s is not in the model",
                                   chain->wing ? "wings" : "ears", chain->bones[b].name);
    const uint32_t links = chain->bone_count - 1; /* the last bone is the unweighted end */
    const sinew_dyn_chain_desc desc = {nodes, links, nodes[links], NULL, 0, NULL, 0};
    return chain->wing ? sinew_bake_wing(doc, model, &desc, options, err)
                       : sinew_bake_ear(doc, model, &desc, options, err);
}

/* The body's capsules for the bake (*legs, may be NULL: how many are the legs'): a skeleton
 * whose landmarks cannot be found (no legs, no pelvis) has none, which is no error for the job;
 * running out of memory is. */
static sinew_result body_capsules(const sinew_model *model, sinew_dyn_capsule *out, uint32_t *count,
                                  uint32_t *legs, sinew_error *err)
{
    sinew_error local;
    sinew_result r = sinew_body_capsules(model, out, SINEW_DYN_MAX_CAPSULES, count, legs, &local);
    if (r == SINEW_ERR_OUT_OF_MEMORY) return sinew_error_set(err, r, "%s", local.message);
    if (r != SINEW_OK) {
        *count = 0;
        if (legs) *legs = 0;
    }
    return SINEW_OK;
}

/* Bakes the garment chains of the plan, coupled garment by garment (consecutive chains of
 * one piece), their bones found by the names the plan gave them. */
static sinew_result bake_garments(sinew_document *doc, sinew_model *model,
                                  const sinew_rig_plan *plan, const sinew_bake_options *options,
                                  sinew_error *err)
{
    for (uint32_t c = 0; c < plan->chain_count;) {
        const sinew_rig_chain *first = &plan->chains[c];
        if (!first->garment) {
            c++;
            continue;
        }
        const uint32_t count = first->garment_count;
        if (count > SINEW_BAKE_MAX_CHAINS || c + count > plan->chain_count)
            return sinew_error_set(err, SINEW_ERR_INTERNAL, "garment: %u chains", count);
        int32_t nodes[SINEW_BAKE_MAX_CHAINS][SINEW_RIG_MAX_SEGMENTS + 1];
        sinew_dyn_chain_desc descs[SINEW_BAKE_MAX_CHAINS];
        for (uint32_t k = 0; k < count; k++) {
            const sinew_rig_chain *ch = &plan->chains[c + k];
            for (uint32_t b = 0; b < ch->bone_count; b++)
                if ((nodes[k][b] = sinew_model_find_node(model, ch->bones[b].name)) < 0)
                    return sinew_error_set(err, SINEW_ERR_INTERNAL,
                                           "garment: %s is not in the model", ch->bones[b].name);
            const uint32_t links = ch->bone_count - 1; /* the last bone is the unweighted end */
            descs[k] = (sinew_dyn_chain_desc){nodes[k], links, nodes[k][links], NULL, 0, NULL, 0};
        }
        sinew_result r =
            sinew_bake_garment(doc, model, descs, count, first->garment_ring, options, err);
        if (r != SINEW_OK) return r;
        c += count;
    }
    return SINEW_OK;
}

/* Edits `doc` with `plan` (bones, weights, a note), rebuilds its model into *model and, when
 * `bake` and there is a chain, bakes every clip into both (summaries into `bakes`): the tail
 * chains with `tail_colliders` (the job's choice for them, see sinew_tail_run), every other
 * chain with the caller's o->bake.colliders. */
static sinew_result apply_plan(sinew_document *doc, const sinew_model *input,
                               const sinew_rig_plan *plan, const sinew_tail_options *o, int bake,
                               sinew_bake_colliders tail_colliders, sinew_model **model,
                               sinew_bake_track *bakes, sinew_error *err)
{
    *model = NULL;
    sinew_result r = sinew_rig_apply_document(doc, input, plan, err);
    if (r == SINEW_OK) {
        char note[200];
        const sinew_rig_chain *first = plan->chain_count ? &plan->chains[0] : NULL;
        snprintf(note, sizeof note, "%u chain(s) (%s%s%s), %u vertices re-weighted, mode %s",
                 plan->chain_count, first ? first->bones[0].name : "-", first ? ".." : "",
                 first ? first->bones[first->bone_count - 1].name : "", plan->changed_count,
                 o->rig.mode == SINEW_RIG_MODE_RIGID ? "rigid" : "chain");
        r = sinew_document_set_note(doc, "tail", note, err);
    }
    /* The model is rebuilt from the edited document, so the new joints carry their document
     * node indices and the bake writes into exactly what will be saved. */
    const sinew_model_options model_options = {.allocator = o->allocator};
    if (r == SINEW_OK) r = sinew_model_from_document(doc, &model_options, model, err);
    /* The body's colliders of the rebuilt model (its node indices), unless the caller brought
     * capsules or switched them off; the bake uses them on the chains that need them. */
    sinew_bake_options bo = o->bake;
    sinew_dyn_capsule capsules[SINEW_DYN_MAX_CAPSULES];
    if (r == SINEW_OK && bake && !bo.capsules &&
        (bo.colliders != SINEW_BAKE_COLLIDERS_OFF || tail_colliders != SINEW_BAKE_COLLIDERS_OFF)) {
        uint32_t count = 0;
        r = body_capsules(*model, capsules, &count, NULL, err);
        bo.capsules = count ? capsules : NULL;
        bo.capsule_count = count;
    }
    /* The tail chain (found by name) and each wing and ear with its own springs. */
    sinew_bake_options tail_bo = bo;
    tail_bo.colliders = tail_colliders;
    if (r == SINEW_OK && bake && tail_chains(plan))
        r = sinew_bake_all(doc, *model, &tail_bo, bakes, err);
    for (uint32_t c = 0; r == SINEW_OK && bake && c < plan->chain_count; c++)
        if (plan->chains[c].wing || plan->chains[c].ear)
            r = bake_pair_chain(doc, *model, &plan->chains[c], &bo, err);
    if (r == SINEW_OK && bake) r = bake_garments(doc, *model, plan, &bo, err);
    return r;
}

/* The guard's view of the skin: the edges around the re-weighted skin, and their strain.
 * Vertices are handled by position (sinew_mesh.weld): seam duplicates always move together. */
typedef struct guard {
    const sinew_allocator *al;
    const sinew_model *input;
    sinew_model *trial;
    sinew_rig_plan *plan;
    const sinew_rig_plan *alt; /* the same chains with the other root blend, or NULL */
    uint32_t edge_count;
    uint32_t *edges;      /* 2 * edge_count position representatives */
    float *excess_before; /* per edge: strain beyond normal, summed over every clip's moments:
                             sum of max(0, |ln ratio| - ln NORMAL_STRAIN), the input */
    float *excess_after;  /* the same for the trial with the current weights */
    float *torn_before, *torn_after; /* per edge: torn samples (sinew/metrics.h) over every
                                        clip's moments, input and trial */
    uint8_t *root; /* per representative: re-weighted skin in a chain's first segment */
    uint32_t samples;
} guard;

/* excess[e] = sum over every clip's moments of max(0, |ln ratio| - ln NORMAL_STRAIN) of edge e
 * in `model`: how much, and how often, its skin strains beyond normal skinning. */
static sinew_result strain(const guard *g, const sinew_model *model, float *excess, float *torn,
                           sinew_error *err)
{
    float *ratios = sinew_alloc(g->al, (size_t)g->edge_count * g->samples + 1, sizeof *ratios);
    if (!ratios) return sinew_error_set(err, SINEW_ERR_OUT_OF_MEMORY, "tail check: out of memory");
    const float normal = logf(NORMAL_STRAIN);
    for (uint32_t e = 0; e < g->edge_count; e++)
        excess[e] = torn[e] = 0;
    sinew_result r = SINEW_OK;
    for (uint32_t c = 0; c < model->clip_count && r == SINEW_OK; c++) {
        r = sinew_metrics_edge_ratios(model, &model->clips[c], g->samples, g->edges, g->edge_count,
                                      ratios, err);
        for (size_t i = 0; r == SINEW_OK && i < (size_t)g->edge_count * g->samples; i++)
            if (ratios[i] > 0) {
                excess[i % g->edge_count] += fmaxf(0, fabsf(logf(ratios[i])) - normal);
                torn[i % g->edge_count] += (float)(ratios[i] > SINEW_STRETCH_TORN_HIGH ||
                                                   ratios[i] < SINEW_STRETCH_TORN_LOW);
            }
    }
    sinew_free(g->al, ratios);
    return r;
}

/* Worse: strains more than it did in the input. */
static int worse(const guard *g, uint32_t e)
{
    return g->excess_after[e] > g->excess_before[e];
}

/* Torn samples of the trial on edges that tore less in the input: the tearing it adds. */
static double newly_torn(const guard *g)
{
    double sum = 0;
    for (uint32_t e = 0; e < g->edge_count; e++)
        sum += fmaxf(0, g->torn_after[e] - g->torn_before[e]);
    return sum;
}

/* The trial's total excess strain over the zone: what the rounds lower. */
static double total_excess(const guard *g)
{
    double sum = 0;
    for (uint32_t e = 0; e < g->edge_count; e++)
        sum += g->excess_after[e];
    return sum;
}

/* Gives every vertex whose welded position is picked its position's input (rigger's)
 * weights, in the trial model and the plan. */
static void give_back(guard *g, const uint8_t *pick)
{
    const sinew_model *in = g->input;
    const size_t n = SINEW_MAX_INFLUENCES;
    for (uint32_t v = 0; v < in->mesh.vertex_count; v++) {
        const uint32_t rep = in->mesh.weld[v];
        if (!pick[rep]) continue;
        const uint16_t *joints = in->mesh.influence_joints + (size_t)rep * n;
        const float *weights = in->mesh.influence_weights + (size_t)rep * n;
        const size_t o = (size_t)v * n;
        memcpy(g->trial->mesh.influence_joints + o, joints, n * sizeof *joints);
        memcpy(g->trial->mesh.influence_weights + o, weights, n * sizeof *weights);
        memcpy(g->plan->joints + o, joints, n * sizeof *joints);
        memcpy(g->plan->weights + o, weights, n * sizeof *weights);
        int changed = memcmp(joints, in->mesh.influence_joints + o, n * sizeof *joints) != 0 ||
                      memcmp(weights, in->mesh.influence_weights + o, n * sizeof *weights) != 0;
        g->plan->changed_count += (uint32_t)changed - g->plan->changed[v];
        g->plan->changed[v] = (uint8_t)changed;
    }
}

/* Gives the trial and the plan the weights of `src` (a plan of the same chains). */
static void use_weights(guard *g, const sinew_rig_plan *src)
{
    const size_t slots = (size_t)g->input->mesh.vertex_count * SINEW_MAX_INFLUENCES;
    memcpy(g->trial->mesh.influence_joints, src->joints, slots * sizeof *src->joints);
    memcpy(g->trial->mesh.influence_weights, src->weights, slots * sizeof *src->weights);
    memcpy(g->plan->joints, src->joints, slots * sizeof *src->joints);
    memcpy(g->plan->weights, src->weights, slots * sizeof *src->weights);
    memcpy(g->plan->changed, src->changed, g->input->mesh.vertex_count);
    g->plan->changed_count = src->changed_count;
}

/* Snapshot of every weight the guard may touch, to undo a round that did not help. */
typedef struct weights_copy {
    uint16_t *tj, *pj;
    float *tw, *pw;
    uint8_t *changed;
    uint32_t changed_count;
} weights_copy;

static void copy_free(const guard *g, weights_copy *c)
{
    sinew_free(g->al, c->tj), sinew_free(g->al, c->pj), sinew_free(g->al, c->tw);
    sinew_free(g->al, c->pw), sinew_free(g->al, c->changed);
    memset(c, 0, sizeof *c);
}

static int copy_save(const guard *g, weights_copy *c)
{
    const uint32_t nv = g->input->mesh.vertex_count;
    const size_t slots = (size_t)nv * SINEW_MAX_INFLUENCES;
    c->tj = sinew_alloc(g->al, slots, sizeof *c->tj),
    c->pj = sinew_alloc(g->al, slots, sizeof *c->pj);
    c->tw = sinew_alloc(g->al, slots, sizeof *c->tw),
    c->pw = sinew_alloc(g->al, slots, sizeof *c->pw);
    c->changed = sinew_alloc(g->al, nv, 1);
    if (!c->tj || !c->pj || !c->tw || !c->pw || !c->changed) return 0;
    memcpy(c->tj, g->trial->mesh.influence_joints, slots * sizeof *c->tj);
    memcpy(c->tw, g->trial->mesh.influence_weights, slots * sizeof *c->tw);
    memcpy(c->pj, g->plan->joints, slots * sizeof *c->pj);
    memcpy(c->pw, g->plan->weights, slots * sizeof *c->pw);
    memcpy(c->changed, g->plan->changed, nv);
    c->changed_count = g->plan->changed_count;
    return 1;
}

static void copy_restore(guard *g, const weights_copy *c)
{
    const uint32_t nv = g->input->mesh.vertex_count;
    const size_t slots = (size_t)nv * SINEW_MAX_INFLUENCES;
    memcpy(g->trial->mesh.influence_joints, c->tj, slots * sizeof *c->tj);
    memcpy(g->trial->mesh.influence_weights, c->tw, slots * sizeof *c->tw);
    memcpy(g->plan->joints, c->pj, slots * sizeof *c->pj);
    memcpy(g->plan->weights, c->pw, slots * sizeof *c->pw);
    memcpy(g->plan->changed, c->changed, nv);
    g->plan->changed_count = c->changed_count;
}

/* The root skin one round gives back: the re-weighted end of every edge between root skin and
 * input skin that strains more than it did in the input, where the rigger's weights were
 * plausible (none of its edges strained in the input: body skin the chain took; skin a
 * rigger dumped a tail on tears in the input, and giving it back would tear it again).
 * *picked gets their count. */
static void pick_round(const guard *g, uint8_t *pick, uint32_t *picked)
{
    const uint32_t nv = g->input->mesh.vertex_count;
    uint8_t *dumped = pick + nv;
    memset(pick, 0, 2 * (size_t)nv);
    *picked = 0;
    for (uint32_t e = 0; e < g->edge_count; e++)
        if (g->excess_before[e] > 0) dumped[g->edges[2 * e]] = dumped[g->edges[2 * e + 1]] = 1;
    for (uint32_t e = 0; e < g->edge_count; e++) {
        if (!worse(g, e)) continue;
        for (int k = 0; k < 2; k++) {
            uint32_t v = g->edges[2 * e + k];
            if (g->plan->changed[v] && g->root[v] && !dumped[v] && !pick[v])
                pick[v] = 1, (*picked)++;
        }
    }
}

/* Gives root skin back its rigger's weights a ring at a time, up to GUARD_ROUNDS rings, and
 * keeps the state with the least excess strain over the zone (giving back one ring can strain
 * the next before the seam settles: the total may rise before it falls). */
static sinew_result give_back_seam(guard *g, double *now, uint32_t *moved, sinew_error *err)
{
    const sinew_model *in = g->input;
    const uint32_t nv = in->mesh.vertex_count;
    uint8_t *pick = sinew_alloc(g->al, 2 * (size_t)nv + 1, 1);
    weights_copy best;
    memset(&best, 0, sizeof best);
    *moved = 0;
    sinew_result r = SINEW_OK;
    if (!pick || !copy_save(g, &best)) {
        r = sinew_error_set(err, SINEW_ERR_OUT_OF_MEMORY, "tail check: out of memory");
        goto done;
    }
    double best_cost = *now;
    uint32_t total = 0;
    for (int ring = 0; ring < GUARD_ROUNDS; ring++) {
        uint32_t picked;
        pick_round(g, pick, &picked);
        if (!picked) break;
        give_back(g, pick);
        if ((r = strain(g, g->trial, g->excess_after, g->torn_after, err)) != SINEW_OK) goto done;
        double cost = total_excess(g);
        total += picked;
        if (cost < best_cost) {
            best_cost = cost;
            *moved = total;
            copy_free(g, &best);
            if (!copy_save(g, &best)) {
                r = sinew_error_set(err, SINEW_ERR_OUT_OF_MEMORY, "tail check: out of memory");
                goto done;
            }
        }
    }
    copy_restore(g, &best);
    *now = best_cost;
    r = strain(g, g->trial, g->excess_after, g->torn_after, err);
done:
    sinew_free(g->al, pick);
    copy_free(g, &best);
    return r;
}

/* ear[v] = 1 where the plan's weights of vertex v hold a bone of an ear chain. */
static void ear_skin(const sinew_rig_plan *plan, uint32_t vertex_count, uint8_t *ear)
{
    for (uint32_t v = 0; v < vertex_count; v++) {
        ear[v] = 0;
        for (int s = 0; s < SINEW_MAX_INFLUENCES; s++) {
            const size_t o = (size_t)v * SINEW_MAX_INFLUENCES + (size_t)s;
            for (uint32_t c = 0; c < plan->chain_count && plan->weights[o] > 0; c++) {
                const sinew_rig_chain *ch = &plan->chains[c];
                ear[v] |= ch->ear && plan->joints[o] >= ch->first_joint &&
                          plan->joints[o] < ch->first_joint + ch->bone_count;
            }
        }
    }
}

/* The parts of the check's table an edge of the mesh counts in (bits 1 << part, the parts as
 * guard_tables numbers them), from `own` (a chain's bone dominates the vertex), `changed`
 * (re-weighted) and `ear` (on an ear chain's bones). */
static uint8_t edge_parts(uint32_t a, uint32_t b, const uint8_t *own, const uint8_t *changed,
                          const uint8_t *ear)
{
    const int chains = own[a] && own[b];
    return (uint8_t)(1u << chains | (ear[a] && ear[b]) << 2 |
                     (!chains && (changed[a] || changed[b])) << 3);
}

/* Per clip, before (input) and after, as the result's table: the chains' skin (edges with
 * both ends dominated by a chain's bone in the trial), the body's (every other edge: the
 * collar the root blends into, re-weighted skin a body bone still dominates, and the seam
 * between it and the chains' skin are the body's, as the acceptance and a viewer see it; a
 * tear there shows on the body), of those the collar's (an end re-weighted: where the body
 * changed, not diluted by the rest) and the ears' (both ends on an ear chain's bones). */
static sinew_result guard_tables(const guard *g, sinew_tail_result *res, sinew_error *err)
{
    const sinew_model *input = g->input, *trial = g->trial;
    const uint32_t nv = input->mesh.vertex_count;
    sinew_metrics_edges unique;
    sinew_result r = sinew_metrics_unique_edges(input, &unique, err);
    if (r != SINEW_OK) return r;
    const uint32_t *edges = unique.pairs, ne = unique.count;
    const size_t n = (size_t)ne * g->samples;
    uint32_t bones = 0;
    for (uint32_t c = 0; c < g->plan->chain_count; c++)
        bones += g->plan->chains[c].bone_count;
    float *rb = sinew_alloc(g->al, n + 1, sizeof *rb), *ra = sinew_alloc(g->al, n + 1, sizeof *ra);
    float *pick = sinew_alloc(g->al, n + 1, sizeof *pick);
    uint8_t *ear = sinew_alloc(g->al, 2 * (size_t)nv + 1, 1), *own = ear + nv;
    uint8_t *parts_of = sinew_alloc(g->al, ne + 1, 1);
    int32_t *chain_joints = sinew_alloc(g->al, bones + 1, sizeof *chain_joints);
    res->clips = sinew_alloc(g->al, input->clip_count + 1, sizeof *res->clips);
    if (!rb || !ra || !pick || !ear || !parts_of || !chain_joints || !res->clips) {
        r = sinew_error_set(err, SINEW_ERR_OUT_OF_MEMORY, "tail check: out of memory");
        goto done;
    }
    res->clip_count = input->clip_count;
    ear_skin(g->plan, nv, ear);
    bones = 0;
    for (uint32_t c = 0; c < g->plan->chain_count; c++)
        for (uint32_t b = 0; b < g->plan->chains[c].bone_count; b++)
            chain_joints[bones++] = (int32_t)(g->plan->chains[c].first_joint + b);
    sinew_metrics_dominated_by(trial, chain_joints, bones, own);
    for (uint32_t e = 0; e < ne; e++)
        parts_of[e] = edge_parts(edges[2 * e], edges[2 * e + 1], own, g->plan->changed, ear);
    for (uint32_t c = 0; c < input->clip_count && r == SINEW_OK; c++) {
        r = sinew_metrics_edge_ratios(input, &input->clips[c], g->samples, edges, ne, rb, err);
        if (r == SINEW_OK)
            r = sinew_metrics_edge_ratios(trial, &trial->clips[c], g->samples, edges, ne, ra, err);
        /* part 0: the body, 1: the chains' skin, 2: the skin the ears' chains move, 3: the
         * body's edges with a re-weighted end (the collar) */
        sinew_tail_guard_clip *gc = &res->clips[c];
        sinew_stretch_stats *parts[4][2] = {{&gc->body_before, &gc->body_after},
                                            {&gc->tail_before, &gc->tail_after},
                                            {&gc->ear_before, &gc->ear_after},
                                            {&gc->collar_before, &gc->collar_after}};
        for (int part = 0; r == SINEW_OK && part < 4; part++)
            for (int after = 0; after < 2; after++) {
                size_t m = 0;
                for (size_t i = 0; i < n; i++)
                    if (parts_of[i % ne] >> part & 1) pick[m++] = after ? ra[i] : rb[i];
                sinew_stretch_summarise(pick, m, parts[part][after]);
            }
    }
done:
    sinew_free(g->al, ear);
    sinew_free(g->al, parts_of);
    sinew_free(g->al, chain_joints);
    sinew_metrics_edges_free(&unique);
    sinew_free(g->al, rb);
    sinew_free(g->al, ra);
    sinew_free(g->al, pick);
    return r;
}

/* The edges within GUARD_ROUNDS + 2 rings of the re-weighted skin: all the seam may move
 * through, and the ring beyond. */
static sinew_result zone_edges(guard *g, sinew_error *err)
{
    const sinew_model *in = g->input;
    const uint32_t nv = in->mesh.vertex_count;
    sinew_metrics_edges unique;
    sinew_result r = sinew_metrics_unique_edges(in, &unique, err);
    if (r != SINEW_OK) return r;
    const uint32_t *all = unique.pairs, all_count = unique.count;
    uint8_t *zone = sinew_alloc(g->al, nv + 1, 1), *next = sinew_alloc(g->al, nv + 1, 1);
    g->edges = sinew_alloc(g->al, 2 * (size_t)all_count + 2, sizeof *g->edges);
    if (!zone || !next || !g->edges) {
        r = sinew_error_set(err, SINEW_ERR_OUT_OF_MEMORY, "tail check: out of memory");
        goto done;
    }
    for (uint32_t v = 0; v < nv; v++)
        if (g->plan->changed[v] || (g->alt && g->alt->changed[v])) zone[in->mesh.weld[v]] = 1;
    for (int ring = 0; ring < GUARD_ROUNDS + 2; ring++) {
        memcpy(next, zone, nv);
        for (uint32_t e = 0; e < all_count; e++)
            if (zone[all[2 * e]] || zone[all[2 * e + 1]])
                next[all[2 * e]] = next[all[2 * e + 1]] = 1;
        memcpy(zone, next, nv);
    }
    for (uint32_t e = 0; e < all_count; e++)
        if (zone[all[2 * e]] && zone[all[2 * e + 1]]) {
            g->edges[2 * g->edge_count] = all[2 * e];
            g->edges[2 * g->edge_count + 1] = all[2 * e + 1];
            g->edge_count++;
        }
done:
    sinew_metrics_edges_free(&unique);
    sinew_free(g->al, zone);
    sinew_free(g->al, next);
    return r;
}

/* The do-no-harm check on the trial (see sinew/pipeline.h). Edits `plan` (and the trial
 * model's weights) in place. */
static sinew_result check(const sinew_model *input, sinew_model *trial, sinew_rig_plan *plan,
                          const sinew_rig_plan *alt, const sinew_tail_options *o,
                          sinew_tail_result *res, sinew_error *err)
{
    const uint32_t nv = input->mesh.vertex_count;
    guard g;
    memset(&g, 0, sizeof g);
    g.al = &res->allocator;
    g.input = input;
    g.trial = trial;
    g.plan = plan;
    g.alt = alt;
    g.samples = o->guard_samples ? o->guard_samples : 24;
    sinew_result r = zone_edges(&g, err);
    g.excess_before = sinew_alloc(g.al, g.edge_count + 1, sizeof *g.excess_before);
    g.excess_after = sinew_alloc(g.al, g.edge_count + 1, sizeof *g.excess_after);
    g.torn_before = sinew_alloc(g.al, g.edge_count + 1, sizeof *g.torn_before);
    g.torn_after = sinew_alloc(g.al, g.edge_count + 1, sizeof *g.torn_after);
    g.root = sinew_alloc(g.al, nv + 1, 1);
    if (r == SINEW_OK &&
        (!g.excess_before || !g.excess_after || !g.torn_before || !g.torn_after || !g.root))
        r = sinew_error_set(err, SINEW_ERR_OUT_OF_MEMORY, "tail check: out of memory");
    if (r != SINEW_OK) goto done;
    if ((r = strain(&g, input, g.excess_before, g.torn_before, err)) != SINEW_OK) goto done;
    if ((r = strain(&g, trial, g.excess_after, g.torn_after, err)) != SINEW_OK) goto done;
    double now = total_excess(&g), tears = newly_torn(&g);
    res->blend_new_torn[plan->root_blend] = tears;
    if (alt) {
        /* The other root blend: kept when it tears less over the zone (fewer edge samples
         * torn that were not in the input), or tears as little and strains less. */
        sinew_rig_plan *mine = plan;
        weights_copy first;
        memset(&first, 0, sizeof first);
        if (!copy_save(&g, &first)) {
            r = sinew_error_set(err, SINEW_ERR_OUT_OF_MEMORY, "tail check: out of memory");
            goto done;
        }
        use_weights(&g, alt);
        if ((r = strain(&g, trial, g.excess_after, g.torn_after, err)) != SINEW_OK) {
            copy_free(&g, &first);
            goto done;
        }
        double other = total_excess(&g), other_tears = newly_torn(&g);
        res->blend_new_torn[alt->root_blend] = other_tears;
        if (other_tears < tears || (other_tears == tears && other < now)) {
            now = other;
            res->root_blend = alt->root_blend;
        } else {
            copy_restore(&g, &first);
            res->root_blend = mine->root_blend;
            r = strain(&g, trial, g.excess_after, g.torn_after, err);
        }
        copy_free(&g, &first);
        if (r != SINEW_OK) goto done;
    }
    /* Root skin: re-weighted skin that the chain's parent still holds (the first segment's
     * blend) or that its first bone moves (the root segment, the collar). */
    for (uint32_t v = 0; v < nv; v++) {
        if (!plan->changed[v]) continue;
        const uint16_t *j = plan->joints + (size_t)v * SINEW_MAX_INFLUENCES;
        const float *w = plan->weights + (size_t)v * SINEW_MAX_INFLUENCES;
        for (uint32_t c = 0; c < plan->chain_count; c++) {
            const sinew_rig_chain *ch = &plan->chains[c];
            int at_root = 0;
            for (int s = 0; s < SINEW_MAX_INFLUENCES && !at_root; s++)
                at_root =
                    w[s] > 0 && ((int32_t)j[s] == ch->parent_joint || j[s] == ch->first_joint);
            if (at_root) g.root[input->mesh.weld[v]] = 1;
        }
    }
    if ((r = give_back_seam(&g, &now, &res->returned, err)) != SINEW_OK) goto done;
    res->guarded = 1;
    r = guard_tables(&g, res, err);
done:
    sinew_free(g.al, g.edges);
    sinew_free(g.al, g.root);
    sinew_free(g.al, g.excess_before);
    sinew_free(g.al, g.excess_after);
    sinew_free(g.al, g.torn_before);
    sinew_free(g.al, g.torn_after);
    return r;
}

/* The check's bar for skin made worse: more than this share of its edge samples newly torn
 * (0.1 point), or its p99 more than this higher. */
#define WORSE_TORN 0.001f
#define WORSE_P99 0.02f

int sinew_tail_stretch_worse(const sinew_stretch_stats *before, const sinew_stretch_stats *after)
{
    return after->torn_share > before->torn_share + WORSE_TORN ||
           after->p99 > before->p99 + WORSE_P99;
}

/* A chain to drop: on some clip the body is worse than before (sinew_tail_stretch_worse)
 * while the tail's own skin is no better. */
static int harmful(const sinew_tail_result *res)
{
    for (uint32_t c = 0; c < res->clip_count; c++) {
        const sinew_tail_guard_clip *g = &res->clips[c];
        int body_worse = sinew_tail_stretch_worse(&g->body_before, &g->body_after);
        int tail_better = g->tail_after.torn_share < g->tail_before.torn_share ||
                          g->tail_after.p99 < g->tail_before.p99;
        if (body_worse && !tail_better) return 1;
    }
    return 0;
}

/* Ears to drop: on some clip the skin they move (whole and rigid on the head before, so it
 * need not get better) tears more than the input's by the body's bar (0.1 point of its edge
 * samples), or strains beyond normal skinning and beyond the body's p99 bar. Rigid skin's p99
 * is 1.00, so any swing raises it: up to NORMAL_STRAIN is what skin does (the rabbit's swinging
 * ears 1.01-1.03, nothing torn). */
static int ears_harmful(const sinew_tail_result *res)
{
    for (uint32_t c = 0; c < res->clip_count; c++) {
        const sinew_tail_guard_clip *g = &res->clips[c];
        if (g->ear_after.samples &&
            (g->ear_after.torn_share > g->ear_before.torn_share + WORSE_TORN ||
             g->ear_after.p99 > fmaxf(g->ear_before.p99 + WORSE_P99, NORMAL_STRAIN)))
            return 1;
    }
    return 0;
}

/* The plan's chains: 1 when one is an ear (`ears`), or one is not (`!ears`). */
static int has_chains(const sinew_rig_plan *plan, int ears)
{
    for (uint32_t c = 0; c < plan->chain_count; c++)
        if ((plan->chains[c].ear != 0) == (ears != 0)) return 1;
    return 0;
}

/* Forgets what the check found and builds the plan again from the report (the check may
 * have given skin back), for the check to run again on it. */
static sinew_result check_again(const sinew_tail_options *o, sinew_tail_result *res,
                                sinew_error *err)
{
    sinew_free(&res->allocator, res->clips);
    res->clips = NULL;
    res->clip_count = 0;
    res->guarded = 0;
    res->returned = 0;
    sinew_rig_plan_free(&res->plan);
    return sinew_rig_build_chain(res->input, &o->rig, &res->report, &res->plan, err);
}

/* Leaves the ears (`ears`), or every other chain (`!ears`: tails, wings, garments), unchanged
 * (SKIPPED, saying why), rebuilds the plan without them and forgets the check's findings, for the
 * check to run again on what is left. */
static sinew_result drop_chains(const sinew_tail_options *o, sinew_tail_result *res, int ears,
                                sinew_error *err)
{
    for (uint32_t p = 0; p < res->report.piece_count; p++) {
        sinew_rig_piece *pc = &res->report.pieces[p];
        const sinew_rig_verdict v = pc->verdict;
        if (ears ? v != SINEW_RIG_VERDICT_EAR
                 : v != SINEW_RIG_VERDICT_CHAIN && v != SINEW_RIG_VERDICT_WING &&
                       v != SINEW_RIG_VERDICT_GARMENT)
            continue;
        if (ears)
            snprintf(pc->reason, sizeof pc->reason,
                     "a %s ear, but its chain left the skin it moves worse than the input's "
                     "(rigid on the head) on some clip: dropped, unchanged",
                     pc->wing_side > 0 ? "left" : "right");
        else
            snprintf(pc->reason, sizeof pc->reason,
                     "a %s, but its chain left the skin around its root worse than the input on "
                     "some clip: dropped, unchanged (the ears were checked without it)",
                     v == SINEW_RIG_VERDICT_WING      ? "wing"
                     : v == SINEW_RIG_VERDICT_GARMENT ? "garment"
                                                      : "tail");
        pc->verdict = SINEW_RIG_VERDICT_SKIPPED;
        pc->distance_after = pc->distance_before;
        pc->segments = 0;
        res->dropped++;
        res->dropped_ears += (uint32_t)(ears != 0);
    }
    return check_again(o, res, err);
}

/* The chained skin (the vertices a chain's bone dominates: the body skin round a root that the
 * chain re-weights too, its collar, is the body's and may lie on a thigh) inside the hind legs'
 * capsules over every clip of `m` (the plan's chains applied; `tails_only`: the tail chains'
 * alone): per clip into `out` (NULL: not kept; m->clip_count entries), the most of any clip
 * into *worst, the leg capsules into *legs (0: no legs, nothing measured). */
static sinew_result chained_in_legs(const sinew_model *m, const sinew_rig_plan *plan,
                                    int tails_only, uint32_t samples, const sinew_allocator *al,
                                    sinew_capsule_share *out, float *worst, uint32_t *legs,
                                    sinew_error *err)
{
    sinew_dyn_capsule capsules[SINEW_DYN_MAX_CAPSULES];
    uint32_t count = 0;
    *worst = 0;
    sinew_result r = body_capsules(m, capsules, &count, legs, err);
    if (r != SINEW_OK || !*legs) return r; /* no legs: nothing to be inside */
    /* the chains' bones as skin joints of m, and the vertices they dominate */
    int32_t *chain_joints = sinew_alloc(al, m->skin.joint_count + 1, sizeof *chain_joints);
    uint8_t *chained = sinew_alloc(al, m->mesh.vertex_count + 1, 1);
    if (!chain_joints || !chained)
        r = sinew_error_set(err, SINEW_ERR_OUT_OF_MEMORY, "tail: out of memory");
    uint32_t n = 0;
    for (uint32_t c = 0; r == SINEW_OK && c < plan->chain_count; c++) {
        const sinew_rig_chain *ch = &plan->chains[c];
        if (tails_only && (ch->wing || ch->ear || ch->garment)) continue;
        for (uint32_t b = 0; b < ch->bone_count; b++) {
            const int32_t node = sinew_model_find_node(m, ch->bones[b].name);
            if (node >= 0 && m->nodes[node].joint >= 0 && n < m->skin.joint_count)
                chain_joints[n++] = m->nodes[node].joint;
        }
    }
    if (r == SINEW_OK) sinew_metrics_dominated_by(m, chain_joints, n, chained);
    for (uint32_t c = 0; r == SINEW_OK && c < m->clip_count; c++) {
        sinew_capsule_share share;
        r = sinew_metrics_capsule_share(m, &m->clips[c], samples, chained, capsules, *legs, &share,
                                        err);
        if (r == SINEW_OK && out) out[c] = share;
        if (r == SINEW_OK) *worst = fmaxf(*worst, share.share);
    }
    sinew_free(al, chain_joints);
    sinew_free(al, chained);
    return r;
}

/* The chained skin inside the hind legs' capsules over every clip of the result. */
static sinew_result leg_shares(sinew_tail_result *res, uint32_t samples, sinew_error *err)
{
    res->legs = sinew_alloc(&res->allocator, res->model->clip_count + 1, sizeof *res->legs);
    if (!res->legs) return sinew_error_set(err, SINEW_ERR_OUT_OF_MEMORY, "tail: out of memory");
    float worst;
    sinew_result r = chained_in_legs(res->model, &res->plan, 0, samples, &res->allocator, res->legs,
                                     &worst, &res->leg_capsules, err);
    if (r == SINEW_OK && !res->leg_capsules) {
        sinew_free(&res->allocator, res->legs);
        res->legs = NULL;
    }
    return r;
}

/* The chained skin a chain may leave inside a leg on a clip before the job turns the body
 * colliders on for its tail (sinew_bake_colliders AUTO): the bar of the body colliders'
 * measure on the shared models (0.5%). */
#define LEG_SHARE_BAR 0.005f

sinew_result sinew_tail_run(sinew_document *doc, const sinew_tail_options *options,
                            sinew_tail_result *res, sinew_error *err)
{
    memset(res, 0, sizeof *res);
    sinew_tail_options o;
    memset(&o, 0, sizeof o);
    if (options) o = *options;
    if (o.allocator) res->allocator = *o.allocator;
    /* One allocator for everything the job makes. */
    o.allocator = o.rig.allocator = o.bake.allocator = &res->allocator;
    const sinew_model_options model_options = {.allocator = &res->allocator};
    const int bake = !o.no_bake;
    sinew_document *trial = NULL;
    sinew_model *trial_model = NULL;
    sinew_result r = sinew_model_from_document(doc, &model_options, &res->input, err);
    if (r == SINEW_OK) r = sinew_rig_find_appendages(res->input, &o.rig, &res->report, err);
    if (r == SINEW_OK) r = sinew_rig_build_chain(res->input, &o.rig, &res->report, &res->plan, err);
    if (r != SINEW_OK || (res->plan.chain_count == 0 && res->plan.changed_count == 0)) return r;
    const sinew_model *input = res->input;
    /* The check runs again without the chains it drops one kind at a time, and with the body
     * colliders on and then off again where it weighs them (see below). */
    int colliders_stage = 0; /* 0 not weighed, 1 weighing them on, 2 settled */
    uint32_t returned_without = 0;
    /* The colliders of the tail chains: the caller's, unless the job turns them on for a tail
     * that enters a leg (below); wings, ears and garments keep the caller's choice. */
    sinew_bake_colliders tail_colliders = o.bake.colliders;
    while (!o.no_guard && input->clip_count) {
        res->root_blend = res->plan.root_blend;
        res->blend_new_torn[0] = res->blend_new_torn[1] = -1;
        /* The same chains with the other root blend, for the check to weigh. */
        sinew_rig_plan alt;
        memset(&alt, 0, sizeof alt);
        sinew_rig_options other = o.rig;
        other.root_blend =
            o.rig.root_blend == SINEW_RIG_ROOT_BODY ? SINEW_RIG_ROOT_PELVIS : SINEW_RIG_ROOT_BODY;
        const int try_other = res->plan.chain_count > 0;
        /* Building it refills the pieces' distance_after: keep this plan's to put back. */
        const uint32_t np = res->report.piece_count;
        float *reach = sinew_alloc(&res->allocator, np + 1, sizeof *reach);
        if (!reach) return sinew_error_set(err, SINEW_ERR_OUT_OF_MEMORY, "tail: out of memory");
        for (uint32_t p = 0; p < np; p++)
            reach[p] = res->report.pieces[p].distance_after;
        if (try_other) r = sinew_rig_build_chain(input, &other, &res->report, &alt, err);
        if (r == SINEW_OK && (r = sinew_document_copy(doc, &trial, err)) == SINEW_OK)
            /* The trial is baked even with no_bake: the check weighs the chain as it will
             * move once baked (by `sinew bake`, or a runtime), not standing still. */
            r = apply_plan(trial, input, &res->plan, &o, 1, tail_colliders, &trial_model, NULL,
                           err);
        if (r == SINEW_OK)
            r = check(input, trial_model, &res->plan, try_other ? &alt : NULL, &o, res, err);
        /* A tail that enters a leg on some clip with the colliders left to AUTO (off for a
         * tail at the default carry) is weighed again with them on, and they stay on unless
         * the check then has to give more of the root's skin back (the contact turns the root
         * against the thigh): the check always weighs the chain as it will be baked. */
        int again = 0;
        if (r == SINEW_OK && colliders_stage == 0 &&
            o.bake.colliders == SINEW_BAKE_COLLIDERS_AUTO && !o.bake.capsules &&
            tail_chains(&res->plan)) {
            float worst;
            uint32_t legs;
            r = chained_in_legs(trial_model, &res->plan, 1, o.guard_samples, &res->allocator, NULL,
                                &worst, &legs, err);
            if (r == SINEW_OK && worst > LEG_SHARE_BAR) {
                returned_without = res->returned;
                tail_colliders = SINEW_BAKE_COLLIDERS_ON;
                colliders_stage = again = 1;
            }
        } else if (r == SINEW_OK && colliders_stage == 1) {
            colliders_stage = 2;
            if (res->returned > returned_without)
                tail_colliders = SINEW_BAKE_COLLIDERS_AUTO, again = 1;
            else
                res->colliders_turned_on = 1;
        }
        if (res->root_blend != alt.root_blend || !try_other)
            for (uint32_t p = 0; p < np; p++)
                res->report.pieces[p].distance_after = reach[p];
        sinew_free(&res->allocator, reach);
        sinew_rig_plan_free(&alt);
        sinew_document_free(trial);
        sinew_model_free(trial_model);
        trial = NULL;
        trial_model = NULL;
        if (again) {
            if ((r = check_again(&o, res, err)) != SINEW_OK) return r;
            continue;
        }
        /* Ears whose skin came out worse go first; a tail, wing or garment that harms the body goes
         * next, the ears checked again alone; then whatever is left, all at once. Each pass
         * drops a kind, so there are at most three. */
        const int drop_ears = r == SINEW_OK && ears_harmful(res);
        const int drop_others = r == SINEW_OK && !drop_ears && harmful(res) &&
                                has_chains(&res->plan, 1) && has_chains(&res->plan, 0);
        if (drop_ears || drop_others) {
            if ((r = drop_chains(&o, res, drop_ears, err)) != SINEW_OK) return r;
            if (res->plan.chain_count == 0 && res->plan.changed_count == 0) return SINEW_OK;
            continue;
        }
        if (r == SINEW_OK && harmful(res)) {
            /* Drop every chain: give all its skin back. */
            const size_t slots = (size_t)input->mesh.vertex_count * SINEW_MAX_INFLUENCES;
            memcpy(res->plan.joints, input->mesh.influence_joints, slots * sizeof(uint16_t));
            memcpy(res->plan.weights, input->mesh.influence_weights, slots * sizeof(float));
            memset(res->plan.changed, 0, input->mesh.vertex_count);
            res->plan.changed_count = 0;
            res->dropped += res->plan.chain_count;
            res->plan.chain_count = 0;
            for (uint32_t p = 0; p < res->report.piece_count; p++) {
                sinew_rig_piece *pc = &res->report.pieces[p];
                if (pc->verdict != SINEW_RIG_VERDICT_CHAIN &&
                    pc->verdict != SINEW_RIG_VERDICT_WING && pc->verdict != SINEW_RIG_VERDICT_EAR &&
                    pc->verdict != SINEW_RIG_VERDICT_GARMENT)
                    continue;
                snprintf(pc->reason, sizeof pc->reason,
                         "%s, but its chain left the skin around its root worse than the "
                         "input on some clip: dropped, unchanged",
                         pc->verdict == SINEW_RIG_VERDICT_WING      ? "a wing"
                         : pc->verdict == SINEW_RIG_VERDICT_EAR     ? "an ear"
                         : pc->verdict == SINEW_RIG_VERDICT_GARMENT ? "a garment"
                                                                    : "a tail");
                pc->verdict = SINEW_RIG_VERDICT_SKIPPED;
            }
        }
        if (r != SINEW_OK) return r;
        if (res->plan.chain_count == 0 && res->plan.changed_count == 0) return SINEW_OK;
        break;
    }
    /* The result, on the caller's document. */
    if (bake && tail_chains(&res->plan)) {
        res->bakes = sinew_alloc(&res->allocator, input->clip_count + 1, sizeof *res->bakes);
        if (!res->bakes)
            return sinew_error_set(err, SINEW_ERR_OUT_OF_MEMORY, "tail: out of memory");
    }
    r = apply_plan(doc, input, &res->plan, &o, bake, tail_colliders, &res->model, res->bakes, err);
    res->baked = r == SINEW_OK && bake && res->plan.chain_count;
    if (r == SINEW_OK && res->baked) r = leg_shares(res, o.guard_samples, err);
    if (r == SINEW_OK && o.vrm_springs && tail_chains(&res->plan)) {
        r = sinew_vrm_fit_chain(res->model, o.bake.params, &res->vrm_fit, err);
        if (r == SINEW_OK) r = sinew_vrm_apply_document(doc, res->model, &res->vrm_fit, err);
        res->vrm = r == SINEW_OK;
    }
    return r;
}
