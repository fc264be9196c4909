/* bench_solve_animals: the published rig comparison on real animals. For each shared
 * quadruped with Walk and Gallop clips (quaternius Fox, Wolf, Horse, Cow, Deer), the artist's
 * clips are solved onto four rigs of the same mesh:
 *   artist  the artist's rig itself (the control run: a perfect answer exists);
 *   notail  notail/<animal>.glb, the tail joints deleted and their skin handed to the two
 *           nearest remaining bones, as a humanoid-template auto-rigger leaves it;
 *   tail    the rig `sinew tail` makes from notail (sinew_tail_run, as the CLI runs it);
 *   coarse  the artist's rig with every other joint of each chain merged into its parent
 *           (built here by editing the document: the joint's skin weights go to its
 *           parent, which is what merging a bone into its parent does to the surface);
 * each free and rotation-only, and prints Q, mean and max error as a glTF player shows the
 * written clip (sinew_solve_quality_written; keys reduced as `sinew solve` writes them), and Q
 * of the same solve keyed at every frame (--keys all) beside it, and the published figures:
 * Sidorkin, "Solve the surface, not the skeleton": the artist's rig 99.8% / 99.9%, the best
 * third-party auto-rigs 92-94% on Walk.
 *
 * Usage: bench_solve_animals. The shared folder is ../shared/models unless
 * SINEW_MODELS says otherwise; without it there is nothing to compare (exit 0, said so).
 * Deterministic (no timing enters a figure); the run's seconds are printed at the end. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../bench_util.h"
#include "sinew/document.h"
#include "sinew/pipeline.h"
#include "sinew/solve.h"

static const char *const animals[] = {"Fox", "Wolf", "Horse", "Cow", "Deer"};
static const char *const clip_names[] = {"Walk", "Gallop"};
enum { ANIMALS = 5, CLIPS = 2, RIGS = 4, MODES = 2 };
static const char *const rig_names[RIGS] = {"artist", "notail", "tail", "coarse"};
static const char *const mode_names[MODES] = {"free", "rot-only"};

/* The clip named `name`, or "<armature>|name" as FBX exports call it; -1 when absent. */
static int32_t find_clip(const sinew_model *m, const char *name)
{
    const size_t n = strlen(name);
    for (uint32_t c = 0; c < m->clip_count; c++) {
        const char *s = m->clips[c].name;
        const size_t k = strlen(s);
        if (!strcmp(s, name) || (k > n && s[k - n - 1] == '|' && !strcmp(s + k - n, name)))
            return (int32_t)c;
    }
    return -1;
}

static int load(const char *path, sinew_document **doc, sinew_model **model)
{
    sinew_error err = {0};
    if (sinew_document_load_file(path, NULL, doc, &err) ||
        sinew_model_from_document(*doc, NULL, model, &err)) {
        fprintf(stderr, "bench_solve_animals: %s\n", err.message);
        return 0;
    }
    return 1;
}

/* The joint node above joint node n (-1 at a root joint). */
static int32_t joint_parent(const sinew_model *m, int32_t n)
{
    for (int32_t p = m->nodes[n].parent; p >= 0; p = m->nodes[p].parent)
        if (m->nodes[p].joint >= 0) return p;
    return -1;
}

/* Merges every other joint of each chain (a run of joints each the only joint child of the
 * one above) into its parent: for joint node n at an odd place in its chain, the skin weight
 * of n goes to its parent joint, in the model and in the document (one edit per primitive),
 * then the model is rebuilt from the document. Returns the joints merged, or -1. */
static int coarsen(sinew_document *doc, sinew_model **model)
{
    sinew_model *m = *model;
    const uint32_t N = m->node_count, J = m->skin.joint_count;
    int32_t *kids = calloc(N, sizeof *kids), *place = malloc(N * sizeof *place);
    int32_t *into = malloc(J * sizeof *into);
    if (!kids || !place || !into) return -1;
    for (uint32_t n = 0; n < N; n++)
        if (m->nodes[n].joint >= 0 && joint_parent(m, (int32_t)n) >= 0)
            kids[joint_parent(m, (int32_t)n)]++;
    int merged = 0;
    for (uint32_t j = 0; j < J; j++)
        into[j] = (int32_t)j;
    /* nodes are stored parent before child (the model view's order) */
    for (uint32_t n = 0; n < N; n++) {
        place[n] = 0;
        if (m->nodes[n].joint < 0) continue;
        const int32_t p = joint_parent(m, (int32_t)n);
        place[n] = p >= 0 && kids[p] == 1 ? place[p] + 1 : 0;
        if (place[n] % 2 == 1) {
            into[m->nodes[n].joint] = m->nodes[p].joint;
            merged++;
        }
    }
    sinew_mesh *mesh = &m->mesh;
    for (uint32_t v = 0; v < mesh->vertex_count; v++) {
        uint16_t *jv = &mesh->influence_joints[(size_t)v * SINEW_MAX_INFLUENCES];
        float *wv = &mesh->influence_weights[(size_t)v * SINEW_MAX_INFLUENCES];
        for (int s = 0; s < SINEW_MAX_INFLUENCES; s++) {
            if (!(wv[s] > 0)) continue;
            jv[s] = (uint16_t)into[jv[s]];
            for (int t = 0; t < s; t++) /* one slot per joint */
                if (wv[t] > 0 && jv[t] == jv[s]) {
                    wv[t] += wv[s];
                    wv[s] = 0;
                    jv[s] = 0;
                    break;
                }
        }
    }
    sinew_error err = {0};
    int ok = 1;
    for (uint32_t r = 0; r < mesh->range_count && ok; r++) {
        const sinew_primitive_range *pr = &mesh->ranges[r];
        const size_t first = (size_t)pr->first_vertex * SINEW_MAX_INFLUENCES;
        ok = sinew_document_set_influences(doc, pr->gltf_mesh, pr->gltf_primitive, pr->vertex_count,
                                           &mesh->influence_joints[first],
                                           &mesh->influence_weights[first], &err) == SINEW_OK;
    }
    sinew_model *rebuilt = NULL;
    if (ok) ok = sinew_model_from_document(doc, NULL, &rebuilt, &err) == SINEW_OK;
    if (!ok) fprintf(stderr, "bench_solve_animals: coarse rig: %s\n", err.message);
    free(kids);
    free(place);
    free(into);
    if (!ok) return -1;
    sinew_model_free(m);
    *model = rebuilt;
    return merged;
}

/* The rig `sinew tail` makes from the document (in place). */
static int grow_tail(sinew_document *doc, sinew_model **model)
{
    sinew_tail_options opt;
    memset(&opt, 0, sizeof opt);
    opt.no_bake = 1; /* the rig's own clips are not what is solved */
    sinew_tail_result res;
    sinew_error err = {0};
    sinew_model *rebuilt = NULL;
    int ok = sinew_tail_run(doc, &opt, &res, &err) == SINEW_OK && res.model &&
             sinew_model_from_document(doc, NULL, &rebuilt, &err) == SINEW_OK;
    if (!ok)
        fprintf(stderr, "bench_solve_animals: sinew tail: %s\n",
                err.message[0] ? err.message : "nothing grown");
    sinew_tail_result_free(&res);
    if (!ok) return 0;
    sinew_model_free(*model);
    *model = rebuilt;
    return 1;
}

typedef struct cell {
    int done;
    sinew_solve_quality played;     /* the clip as written (keys reduced) */
    sinew_solve_quality played_all; /* the same solve keyed at every frame */
    uint64_t keys, frame_keys;
} cell;

int main(int argc, char **argv)
{
    (void)argv;
    if (argc > 1) {
        fprintf(stderr, "usage: bench_solve_animals (no arguments)\n");
        return 2;
    }
    const double t0 = bench_seconds(CLOCK_MONOTONIC);
    static cell table[ANIMALS][RIGS][MODES][CLIPS];
    printf("bench_solve_animals: the artist's Walk and Gallop solved onto four rigs of the same "
           "mesh; Q, mean and max (%% of the diagonal) as played with the keys reduced as sinew "
           "solve writes them (\"keys\": their share of one per frame), and Q keyed at every "
           "frame\n");
    printf("%-6s %-7s %-7s %-9s %6s %7s %9s %9s %9s %10s\n", "animal", "clip", "rig", "solve",
           "frames", "keys", "Q", "mean", "max", "Q all keys");
    int ran = 0;
    for (int a = 0; a < ANIMALS; a++) {
        char file[64], path[512], notail_path[512];
        snprintf(file, sizeof file, "quaternius_%s.glb", animals[a]);
        bench_model_path(path, sizeof path, file, SINEW_MODELS_DIR);
        snprintf(file, sizeof file, "notail/quaternius_%s.glb", animals[a]);
        bench_model_path(notail_path, sizeof notail_path, file, SINEW_MODELS_DIR);
        sinew_document *src_doc = NULL;
        sinew_model *src = NULL;
        FILE *probe = fopen(path, "rb");
        if (!probe) {
            fprintf(stderr, "bench_solve_animals: %s is absent (the shared models are needed)\n",
                    path);
            continue;
        }
        fclose(probe);
        if (!load(path, &src_doc, &src)) return 1;
        for (int r = 0; r < RIGS; r++) {
            sinew_document *doc = NULL;
            sinew_model *rig = NULL;
            if (r == 0) {
                rig = src;
            } else if (!load(r == 3 ? path : notail_path, &doc, &rig)) {
                return 1;
            }
            const uint32_t joints_before = rig->skin.joint_count;
            if (r == 2 && !grow_tail(doc, &rig)) return 1;
            const int merged = r == 3 ? coarsen(doc, &rig) : 0;
            if (merged < 0) return 1;
            if (r == 2)
                printf("%s: sinew tail grew %u joints on the notail rig (%u -> %u)\n", animals[a],
                       rig->skin.joint_count - joints_before, joints_before, rig->skin.joint_count);
            if (r == 3)
                printf("%s: coarse rig: %d of %u joints merged into their parents\n", animals[a],
                       merged, rig->skin.joint_count);
            uint32_t *nearest = NULL;
            sinew_correspondence_stats cs;
            memset(&cs, 0, sizeof cs);
            sinew_error err = {0};
            if (r > 0) {
                nearest = malloc((size_t)rig->mesh.vertex_count * sizeof *nearest);
                if (!nearest ||
                    sinew_solve_correspond_aligned(src, rig, NULL, NULL, nearest, &cs, &err)) {
                    fprintf(stderr, "bench_solve_animals: %s onto %s: %s\n", animals[a],
                            rig_names[r], err.message);
                    return 1;
                }
            }
            for (int mode = 0; mode < MODES; mode++)
                for (int c = 0; c < CLIPS; c++) {
                    const int32_t clip = find_clip(src, clip_names[c]);
                    if (clip < 0) continue;
                    sinew_solve_options opt = {0};
                    opt.rotation_only = mode;
                    opt.alignment = cs.aligned ? &cs.alignment : NULL;
                    sinew_solve_clip_result res;
                    cell *e = &table[a][r][mode][c];
                    if (sinew_solve_clip(src, &src->clips[clip], rig, nearest, &opt, &res, &err) ||
                        sinew_solve_quality_written(src, &src->clips[clip], rig, nearest, &opt,
                                                    &res, &e->played, NULL, &err)) {
                        fprintf(stderr, "bench_solve_animals: %s %s onto %s: %s\n", animals[a],
                                clip_names[c], rig_names[r], err.message);
                        return 1;
                    }
                    res.keys.all = 1; /* the same solve, played keyed at every frame */
                    if (sinew_solve_quality_played(src, &src->clips[clip], rig, nearest, &opt, &res,
                                                   &e->played_all, NULL, &err)) {
                        fprintf(stderr, "bench_solve_animals: %s\n", err.message);
                        return 1;
                    }
                    e->done = 1;
                    e->keys = res.keys.written;
                    e->frame_keys = res.keys.frame_keys;
                    printf("%-6s %-7s %-7s %-9s %6u %6.1f%% %8.3f%% %8.4f%% %8.4f%% %9.3f%%\n",
                           animals[a], clip_names[c], rig_names[r], mode_names[mode],
                           res.frame_count, 100.0 * (double)e->keys / (double)e->frame_keys,
                           100 * e->played.q, 100 * e->played.mean_error, 100 * e->played.max_error,
                           100 * e->played_all.q);
                    fflush(stdout);
                    sinew_solve_clip_result_free(&res);
                    ran++;
                }
            free(nearest);
            if (rig != src) sinew_model_free(rig);
            sinew_document_free(doc);
        }
        sinew_model_free(src);
        sinew_document_free(src_doc);
    }
    if (!ran) {
        printf("nothing to compare: the shared models are absent\n");
        return 0;
    }
    /* Q over the animals: the samples of every animal's clip pooled (sinew_solve_quality_merge),
     * with the lowest and highest single animal beside it. */
    printf("\nover the animals: Q as written, pooled over their samples [lowest, highest animal]; "
           "Q keyed at every frame, pooled; keys written, %% of one per frame\n");
    printf("%-7s %-9s %-38s %-38s\n", "rig", "solve", "Walk", "Gallop");
    for (int r = 0; r < RIGS; r++)
        for (int mode = 0; mode < MODES; mode++) {
            printf("%-7s %-9s", rig_names[r], mode_names[mode]);
            for (int c = 0; c < CLIPS; c++) {
                sinew_solve_quality pooled, pooled_all;
                memset(&pooled, 0, sizeof pooled);
                memset(&pooled_all, 0, sizeof pooled_all);
                double lo = 2, hi = -2, keys = 0, frame_keys = 0;
                for (int a = 0; a < ANIMALS; a++) {
                    const cell *e = &table[a][r][mode][c];
                    if (!e->done) continue;
                    sinew_solve_quality_merge(&pooled, &e->played);
                    sinew_solve_quality_merge(&pooled_all, &e->played_all);
                    keys += (double)e->keys;
                    frame_keys += (double)e->frame_keys;
                    if (e->played.q < lo) lo = e->played.q;
                    if (e->played.q > hi) hi = e->played.q;
                }
                char text[64];
                snprintf(text, sizeof text, "%.2f%% [%.2f, %.2f]; %.2f%%; %.0f%%", 100 * pooled.q,
                         100 * lo, 100 * hi, 100 * pooled_all.q,
                         frame_keys > 0 ? 100 * keys / frame_keys : 0.0);
                printf(" %-38s", text);
            }
            printf("\n");
        }
    printf("published (Sidorkin, \"Solve the surface, not the skeleton\"): the artist's rig "
           "99.8%% / 99.9%%; the best third-party auto-rigs 92-94%% on Walk\n");
    printf("%d solves in %.1f s\n", ran, bench_seconds(CLOCK_MONOTONIC) - t0);
    return 0;
}
