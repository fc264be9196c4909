/* Rig module on the shared real models (skips when ../shared/models is absent): each
 * notail/X.glb gets one chain, nothing outside the re-weighted skin changes (joints, weights,
 * positions, node transforms, clips), and running on the output again builds no new chain.
 *
 * How well the chain matches the artist's tail skin (recall, precision, stretch as three.js
 * plays it) is the acceptance test's job (tests/acceptance/tail_acceptance.mjs, with its list
 * of known shortfalls); the figures are printed here for a quick look. */
#include "test_util.h"

#include <ctype.h>
#include <math.h>

#include <cjson/cJSON.h>

#include "bind_space.h"
#include "one_chain.h"
#include "sinew/document.h"
#include "sinew/rig.h"
#include "split_mesh.h"
#ifdef SINEW_TEST_SIMPLIFY
#include "simplify_mesh.h"
#endif

static int has_tail(const char *name)
{
    for (const char *p = name; p && p[0] && p[1] && p[2] && p[3]; p++)
        if (tolower((unsigned char)p[0]) == 't' && tolower((unsigned char)p[1]) == 'a' &&
            tolower((unsigned char)p[2]) == 'i' && tolower((unsigned char)p[3]) == 'l')
            return 1;
    return 0;
}

/* Dominant joint of vertex v (the first slot: slots are sorted descending). */
static int dominant_is_tail(const sinew_model *m, uint32_t v)
{
    uint16_t j = m->mesh.influence_joints[(size_t)v * SINEW_MAX_INFLUENCES];
    return has_tail(m->nodes[m->skin.joints[j].node].name);
}

/* The weight the plan gives vertex v on joints the chain added. */
static float chain_share(const sinew_rig_plan *plan, const sinew_model *m, uint32_t v)
{
    float w = 0;
    for (int s = 0; s < SINEW_MAX_INFLUENCES; s++) {
        const size_t o = (size_t)v * SINEW_MAX_INFLUENCES + (size_t)s;
        if (plan->joints[o] >= m->skin.joint_count) w += plan->weights[o];
    }
    return w;
}

/* The chain's share of a vertex ramps across the tail's root: the largest change of it along
 * a triangle edge. Blended into the body skin, the ramp runs on both sides of the border: on
 * the 11 notail files the largest step is 0.35-0.76 (before the ramp was measured from the
 * border too, 0.44-1.00: on the quaternius TRex it stepped from 0.94 to 0.04 over one edge,
 * which tore at twice its length in Walk). Into the pelvis the ramp runs inside the tail only
 * (its border ring shares half with the pelvis, the body beyond keeps its rigger's weights),
 * so a large step is by design there: printed, not judged. */
#define STEP_BODY 0.8f
static float root_step(const sinew_model *m, sinew_rig_root_blend blend)
{
    sinew_rig_options opt = {0};
    opt.root_blend = blend;
    sinew_rig_report rep;
    sinew_rig_plan plan;
    sinew_error err;
    assert_int_equal(sinew_rig_find_appendages(m, &opt, &rep, &err), SINEW_OK);
    assert_int_equal(sinew_rig_build_chain(m, &opt, &rep, &plan, &err), SINEW_OK);
    float step = 0;
    for (uint32_t i = 0; i < 3 * m->mesh.triangle_count; i++) {
        const uint32_t a = m->mesh.triangles[i], b = m->mesh.triangles[i - i % 3 + (i + 1) % 3];
        step = fmaxf(step, fabsf(chain_share(&plan, m, a) - chain_share(&plan, m, b)));
    }
    sinew_rig_plan_free(&plan);
    sinew_rig_report_free(&rep);
    return step;
}

static sinew_model *load(const char *path, sinew_document **doc)
{
    sinew_error err;
    sinew_document *d = NULL;
    sinew_model *m = NULL;
    if (sinew_document_load_file(path, NULL, &d, &err) != SINEW_OK ||
        sinew_model_from_document(d, NULL, &m, &err) != SINEW_OK) {
        fprintf(stderr, "%s: %s\n", path, err.message);
        sinew_document_free(d);
        return NULL;
    }
    if (doc)
        *doc = d;
    else
        sinew_document_free(d);
    return m;
}

/* Finds the appendages, builds exactly one chain and writes it into the document. */
static void tail_one_chain(sinew_document *doc, const sinew_model *m, sinew_rig_report *rep,
                           sinew_rig_plan *plan)
{
    sinew_error err;
    test_one_chain(m, rep, plan);
    assert_int_equal(sinew_rig_apply_document(doc, m, plan, &err), SINEW_OK);
}

static void check_one(const char *dir, const char *name, const char *tmp)
{
    char in[8800], orig[8800], out[8800];
    snprintf(in, sizeof in, "%s/notail/%s", dir, name);
    snprintf(orig, sizeof orig, "%s/%s", dir, name);
    snprintf(out, sizeof out, "%s/%s", tmp, name);
    sinew_document *doc = NULL;
    sinew_model *m = load(in, &doc);
    assert_non_null(m);
    sinew_model *truth = load(orig, NULL);
    if (!truth) { /* Fox_parent.glb has no original of its own name: use Fox.glb */
        char alt[1024];
        snprintf(alt, sizeof alt, "%s/Fox.glb", dir);
        truth = load(alt, NULL);
    }
    assert_non_null(truth);
    assert_int_equal(truth->mesh.vertex_count, m->mesh.vertex_count);
    sinew_rig_report rep;
    sinew_rig_plan plan;
    sinew_error err;
    tail_one_chain(doc, m, &rep, &plan);
    assert_int_equal(sinew_document_write_file(doc, out, &err), SINEW_OK);
    sinew_model *res = load(out, NULL);
    assert_non_null(res);
    const uint32_t nv = m->mesh.vertex_count;
    uint32_t t = 0, f = 0, both = 0, changed_outside = 0, moved = 0;
    for (uint32_t v = 0; v < nv; v++) {
        int is_t = dominant_is_tail(truth, v);
        uint16_t j = res->mesh.influence_joints[(size_t)v * SINEW_MAX_INFLUENCES];
        int is_f = j >= m->skin.joint_count; /* one of the new joints */
        t += (uint32_t)is_t, f += (uint32_t)is_f, both += (uint32_t)(is_t && is_f);
        size_t o = (size_t)v * SINEW_MAX_INFLUENCES;
        /* Outside the appendage: same joints, same weights. Rewritten primitives go through
         * the loader's normalisation again, which may move a weight by an ulp or so. */
        if (!plan.changed[v]) {
            int differs = memcmp(res->mesh.influence_joints + o, m->mesh.influence_joints + o,
                                 SINEW_MAX_INFLUENCES * sizeof(uint16_t)) != 0;
            for (int s = 0; s < SINEW_MAX_INFLUENCES; s++)
                differs |= fabsf(res->mesh.influence_weights[o + s] -
                                 m->mesh.influence_weights[o + s]) > 1e-6f;
            changed_outside += (uint32_t)differs;
        }
        moved += memcmp(&res->mesh.positions[v], &m->mesh.positions[v], sizeof(sinew_vec3)) != 0;
    }
    const float step_pelvis = root_step(m, SINEW_RIG_ROOT_PELVIS),
                step_body = root_step(m, SINEW_RIG_ROOT_BODY);
    double recall = t ? (double)both / t : 0, precision = f ? (double)both / f : 0;
    uint32_t tp = plan.chains[0].piece;
    fprintf(stderr,
            "  %-28s tail %4u owned %4u recall %.3f precision %.3f K %u L %.4g H %.4g "
            "dist %.4g -> %.4g step %.2f/%.2f\n",
            name, t, f, recall, precision, rep.pieces[tp].segments, (double)rep.pieces[tp].length,
            (double)rep.scale, (double)rep.pieces[tp].distance_before,
            (double)rep.pieces[tp].distance_after, (double)step_pelvis, (double)step_body);
    assert_true(step_body <= STEP_BODY);

    assert_int_equal(changed_outside, 0);
    assert_int_equal(moved, 0);
    /* Nothing else changes: node count grows by K + 1, every old node keeps name and TRS,
     * the clips are the same. */
    assert_int_equal(res->skin.joint_count, m->skin.joint_count + plan.chains[0].bone_count);
    assert_int_equal(res->clip_count, m->clip_count);
    for (uint32_t c = 0; c < m->clip_count; c++) {
        assert_string_equal(res->clips[c].name, m->clips[c].name);
        assert_int_equal(res->clips[c].channel_count, m->clips[c].channel_count);
    }
    for (uint32_t j = 0; j < m->skin.joint_count; j++) {
        const sinew_node *a = &m->nodes[m->skin.joints[j].node];
        const sinew_node *b = &res->nodes[res->skin.joints[j].node];
        assert_string_equal(a->name, b->name);
        assert_memory_equal(&a->local, &b->local, sizeof a->local);
        assert_memory_equal(&m->skin.joints[j].inverse_bind, &res->skin.joints[j].inverse_bind,
                            sizeof(sinew_mat4));
    }
    test_no_chain(res); /* again: the tail has bones now, so nothing new */
    sinew_rig_plan_free(&plan);
    sinew_rig_report_free(&rep);
    sinew_model_free(res);
    sinew_model_free(truth);
    sinew_model_free(m);
    sinew_document_free(doc);
}

/* The .glb files in the models' notail/ folder (at least four), into names; skips the test
 * when the models are absent. Returns how many, and the models' folder in *dir. */
static int notail_names(const char **dir, char names[32][TEST_NAME_SIZE])
{
    *dir = test_models_dir();
    if (!*dir) test_skip();
    char sub[1024];
    snprintf(sub, sizeof sub, "%s/notail", *dir);
    const int n = test_glb_files(sub, "", names, 32);
    if (n < 0) {
        fprintf(stderr, "note: %s is absent: skipping\n", sub);
        test_skip();
    }
    assert_true(n >= 4);
    return n;
}

static void test_notail_models(void **state)
{
    (void)state;
    const char *dir;
    char names[32][TEST_NAME_SIZE];
    const int n = notail_names(&dir, names);
    char tmp[256];
    assert_non_null(test_tmpdir(tmp, sizeof tmp));
    for (int i = 0; i < n; i++)
        check_one(dir, names[i], tmp);
    char cmd[512];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmp);
    assert_int_equal(system(cmd), 0);
}

/* The model of notail/`name` under `dir`. */
static sinew_model *load_notail(const char *dir, const char *name)
{
    char in[8800];
    snprintf(in, sizeof in, "%s/notail/%s", dir, name);
    sinew_model *m = load(in, NULL);
    assert_non_null(m);
    return m;
}

/* check(name, model) on every notail model (none when ../shared/models is absent). */
static void each_notail(void (*check)(const char *name, sinew_model *m))
{
    const char *dir;
    char names[32][TEST_NAME_SIZE];
    const int n = notail_names(&dir, names);
    for (int i = 0; i < n; i++) {
        sinew_model *m = load_notail(dir, names[i]);
        check(names[i], m);
        sinew_model_free(m);
    }
}

/* The skin of the one chain sinew builds on m: mask[v] = 1 when v's heaviest joint is one of
 * the chain's (as the acceptance test reads a played file), else 0. */
static void chain_mask(const sinew_model *m, uint8_t *mask)
{
    sinew_rig_report rep;
    sinew_rig_plan plan;
    test_one_chain(m, &rep, &plan);
    for (uint32_t v = 0; v < m->mesh.vertex_count; v++) {
        const size_t o = (size_t)v * SINEW_MAX_INFLUENCES;
        int heaviest = 0;
        for (int k = 1; k < SINEW_MAX_INFLUENCES; k++)
            if (plan.weights[o + (size_t)k] > plan.weights[o + (size_t)heaviest]) heaviest = k;
        mask[v] = plan.joints[o + (size_t)heaviest] >= m->skin.joint_count;
    }
    sinew_rig_plan_free(&plan);
    sinew_rig_report_free(&rep);
}

/* Asserts that the chain sinew builds on `copy` takes the skin `first` (the original's chain
 * skin carried onto the copy; SPLIT_EITHER where it could go either way, not counted) to
 * within `drift` in recall and precision; prints both beside `what`. */
static void assert_chain_kept(const char *what, const sinew_model *copy, const uint8_t *first,
                              double drift)
{
    const uint32_t nv = copy->mesh.vertex_count;
    uint8_t *mask = malloc(nv);
    assert_non_null(mask);
    chain_mask(copy, mask);
    uint32_t t = 0, f = 0, both = 0;
    for (uint32_t v = 0; v < nv; v++) {
        if (first[v] == SPLIT_EITHER) continue;
        t += first[v], f += mask[v], both += first[v] && mask[v];
    }
    free(mask);
    const double recall = (double)both / t, precision = (double)both / f;
    fprintf(stderr, "  %-44s (%6u vertices): recall %.3f precision %.3f\n", what, nv, recall,
            precision);
    assert_true(recall >= 1 - drift && precision >= 1 - drift);
}

/* The border does not move with the mesh's resolution: on copies of every notail model split
 * one to three times at edge midpoints (the same surface, 4, 16 and 64 times the triangles),
 * the chain's skin is the original's, split the same way (a midpoint between the original's
 * tail and body skin may go either way and is not counted), to within SPLIT_DRIFT in recall
 * and precision. Twice a rule reading folds from the mesh's vertices passed the random
 * creatures and failed here: the midpoints along a low-poly crease all read as folds where
 * the coarse mesh's vertices did not (docs/appendages.md); the second, measured here, gave
 * the Khronos fox split once precision 0.847; so did a bridge read from the ring's own
 * vertices (the fox split twice 0.892). Measured today on the twelve notail files, the least
 * is 0.943 (the Khronos fox's precision split twice: its crossing moves 0.005 H out as the
 * finer edges shorten the walk's geodesic distances; 0.961 split three times), then 0.956
 * (the TRex's split once) and 0.974 (the wolf's recall); everything else 0.985 or more. */
#define SPLIT_DRIFT 0.07
static void split_copies_of(const char *name, sinew_model *m)
{
    uint8_t *first = malloc(m->mesh.vertex_count);
    assert_non_null(first);
    chain_mask(m, first);
    for (int level = 1; level <= 3; level++) {
        assert_true(split_mesh(m, &first));
        char what[TEST_NAME_SIZE + 16];
        snprintf(what, sizeof what, "%s split %d", name, level);
        assert_chain_kept(what, m, first, SPLIT_DRIFT);
    }
    free(first);
}

static void test_split_copies(void **state)
{
    (void)state;
    each_notail(split_copies_of);
}

#ifdef SINEW_TEST_SIMPLIFY
/* Coarser copies keep their tail: every notail model and the UM bunny simplified to 60% and
 * 40% of their triangles (meshoptimizer's edge collapses, seams welded first) get one chain,
 * whose skin is the original's on the vertices kept, to within SIMPLIFY_DRIFT in recall and
 * precision. A coarser mesh moves the border by a ring of its longer edges, and a tail of few
 * rings loses or gains a larger share. Before, the bunny's copy at 60% got no chain: its
 * tail's root moved from 0.336 to 0.342 of the way up the spine, over the 0.34 that then said
 * "low on the spine" (classify.c, LOWER_SPINE). Measured today: the least is 0.800 (the
 * Quaternius fox's recall at 60%: a neck read 1.2 radii before the crossing, NECK_REACH in
 * protrusion.c, ends it a ring early), then 0.870 (the ToonCat's recall at 40%) and 0.881 (the
 * bunny's precision at 40%); a lost or doubled chain, or a border moved by several rings,
 * fails. */
#define SIMPLIFY_DRIFT 0.25
static void check_simplified(const char *name, const char *path)
{
    for (int percent = 60; percent >= 40; percent -= 20) {
        sinew_model *m = load(path, NULL);
        assert_non_null(m);
        uint8_t *first = malloc(m->mesh.vertex_count);
        assert_non_null(first);
        chain_mask(m, first);
        assert_true(simplify_mesh(m, (float)percent / 100, &first));
        char what[TEST_NAME_SIZE + 16];
        snprintf(what, sizeof what, "%s at %d%%", name, percent);
        assert_chain_kept(what, m, first, SIMPLIFY_DRIFT);
        free(first);
        sinew_model_free(m);
    }
}

static void test_simplified_copies(void **state)
{
    (void)state;
    const char *dir;
    char names[32][TEST_NAME_SIZE], path[8800];
    const int n = notail_names(&dir, names);
    for (int i = 0; i < n; i++) {
        snprintf(path, sizeof path, "%s/notail/%s", dir, names[i]);
        check_simplified(names[i], path);
    }
    snprintf(path, sizeof path, "%s/quaternius_UM_Bunny.glb", dir);
    check_simplified("quaternius_UM_Bunny.glb", path);
}
#endif

/* Files come in any orientation and unit: every notail model with its bind space turned 45
 * degrees about up, tilted a quarter turn, moved by a body length and scaled 100 times (skin
 * and skeleton together, so it plays as before) gets the same chain skin, to float noise at
 * its border (measured: none differs). */
static void turned_copy_of(const char *name, sinew_model *m)
{
    const uint32_t nv = m->mesh.vertex_count;
    uint8_t *first = malloc(nv), *mask = malloc(nv);
    assert_true(first && mask);
    chain_mask(m, first);
    sinew_rig_landmarks lm;
    sinew_error err;
    assert_int_equal(sinew_rig_find_landmarks(m, &lm, NULL, &err), SINEW_OK);
    const sinew_vec3 across =
        fabsf(lm.up.x) < 0.9f ? sinew_vec3_make(1, 0, 0) : sinew_vec3_make(0, 0, 1);
    sinew_transform t = sinew_transform_identity();
    t.rotation = sinew_quat_mul(sinew_quat_from_axis_angle(across, 1.5707963f),
                                sinew_quat_from_axis_angle(lm.up, 0.785398f));
    t.translation = sinew_vec3_scale(sinew_vec3_make(1, 0.3f, -1), 100 * m->size.scale);
    t.scale = sinew_vec3_make(100, 100, 100);
    const sinew_mat4 T = sinew_mat4_from_transform(t);
    move_bind_space(m, &T);
    chain_mask(m, mask);
    uint32_t differ = 0, chained = 0;
    for (uint32_t v = 0; v < nv; v++)
        differ += first[v] != mask[v], chained += first[v];
    fprintf(stderr, "  %-32s turned, moved, x100: %u of %u chained vertices differ\n", name, differ,
            chained);
    assert_true(chained > 0 && differ <= chained / 100);
    free(first);
    free(mask);
}

static void test_turned_copies(void **state)
{
    (void)state;
    each_notail(turned_copy_of);
}

/* notail/Fox.glb with a second node showing its mesh through an exact copy of its skin, as
 * exporters write a character of several meshes: the GLB's JSON gets skins[1] = skins[0] and
 * a node {mesh, skin: 1} in the scene. */
static sinew_document *with_skin_copy(const char *path)
{
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    fseek(f, 0, SEEK_END);
    long size = ftell(f);
    fseek(f, 0, SEEK_SET);
    uint8_t *in = malloc((size_t)size);
    assert_int_equal(fread(in, 1, (size_t)size, f), (size_t)size);
    fclose(f);
    uint32_t json_len;
    memcpy(&json_len, in + 12, 4);
    cJSON *root = cJSON_ParseWithLength((const char *)in + 20, json_len);
    assert_non_null(root);
    cJSON *skins = cJSON_GetObjectItem(root, "skins"), *nodes = cJSON_GetObjectItem(root, "nodes");
    cJSON_AddItemToArray(skins, cJSON_Duplicate(cJSON_GetArrayItem(skins, 0), 1));
    int mesh = -1;
    cJSON *n;
    cJSON_ArrayForEach(n, nodes) if (cJSON_GetObjectItem(n, "skin")) mesh =
        cJSON_GetObjectItem(n, "mesh")->valueint;
    assert_true(mesh >= 0);
    cJSON *copy = cJSON_CreateObject();
    cJSON_AddNumberToObject(copy, "mesh", mesh);
    cJSON_AddNumberToObject(copy, "skin", 1);
    cJSON_AddItemToArray(nodes, copy);
    cJSON *scene = cJSON_GetArrayItem(cJSON_GetObjectItem(root, "scenes"), 0);
    cJSON_AddItemToArray(cJSON_GetObjectItem(scene, "nodes"),
                         cJSON_CreateNumber(cJSON_GetArraySize(nodes) - 1));
    char *text = cJSON_PrintUnformatted(root);
    cJSON_Delete(root);
    size_t tl = strlen(text), padded = (tl + 3) & ~(size_t)3, rest = (size_t)size - 20 - json_len;
    size_t total = 20 + padded + rest;
    uint8_t *out = malloc(total);
    memcpy(out, in, 12);
    uint32_t v = (uint32_t)total;
    memcpy(out + 8, &v, 4);
    v = (uint32_t)padded;
    memcpy(out + 12, &v, 4);
    memcpy(out + 16, in + 16, 4);
    memcpy(out + 20, text, tl);
    memset(out + 20 + tl, ' ', padded - tl);
    memcpy(out + 20 + padded, in + 20 + json_len, rest);
    sinew_document *doc = NULL;
    sinew_error err;
    if (sinew_document_load_memory(out, total, NULL, &doc, &err))
        fail_msg("%s with a skin copy: %s", path, err.message);
    free(text);
    free(in);
    free(out);
    return doc;
}

/* A tail on a mesh shown through two copies of one skin: the new joints go into both, so the
 * written file loads through either skin with the same re-weighted influences. */
static void test_tail_on_skin_copies(void **state)
{
    (void)state;
    const char *dir = test_models_dir();
    if (!dir) test_skip();
    char path[1024];
    test_path(path, sizeof path, dir, "notail/Fox.glb");
    sinew_document *doc = with_skin_copy(path);
    sinew_model *m = NULL;
    sinew_error err;
    assert_int_equal(sinew_model_from_document(doc, NULL, &m, &err), SINEW_OK);
    assert_int_equal(m->mesh.range_count, 2);
    assert_int_equal(m->mesh.ranges[1].gltf_skin, 1);
    sinew_rig_report rep;
    sinew_rig_plan plan;
    tail_one_chain(doc, m, &rep, &plan);
    sinew_bytes bytes;
    assert_int_equal(sinew_document_write_glb_memory(doc, &bytes, &err), SINEW_OK);
    sinew_document *again = NULL;
    if (sinew_document_load_memory(bytes.data, bytes.size, NULL, &again, &err))
        fail_msg("the tailed file does not load: %s", err.message);
    sinew_model *through[2];
    for (int s = 0; s < 2; s++) {
        sinew_model_options opt = {.skin = s, .skin_is_set = 1};
        if (sinew_model_from_document(again, &opt, &through[s], &err))
            fail_msg("skin %d: %s", s, err.message);
        assert_int_equal(through[s]->skin.joint_count,
                         m->skin.joint_count + plan.chains[0].bone_count);
    }
    const sinew_mesh *a = &through[0]->mesh, *b = &through[1]->mesh;
    assert_int_equal(a->vertex_count, b->vertex_count);
    size_t slots = (size_t)a->vertex_count * SINEW_MAX_INFLUENCES;
    assert_memory_equal(a->influence_joints, b->influence_joints, slots * sizeof(uint16_t));
    uint32_t tail = 0;
    for (uint32_t v = 0; v < a->vertex_count; v++)
        tail += a->influence_joints[(size_t)v * SINEW_MAX_INFLUENCES] >= m->skin.joint_count;
    assert_true(tail > 0);
    sinew_model_free(through[0]);
    sinew_model_free(through[1]);
    sinew_document_free(again);
    sinew_bytes_free(&bytes);
    sinew_rig_plan_free(&plan);
    sinew_rig_report_free(&rep);
    sinew_model_free(m);
    sinew_document_free(doc);
}

/* Pelvis, head and thighs on the shared skeletons: Khronos names, Quaternius names (whose
 * "Hips" is the upper torso on the dinosaurs), and CesiumMan's unnamed joints. */
static void test_landmarks(void **state)
{
    (void)state;
    const char *dir = test_models_dir();
    if (!dir) test_skip();
    static const struct {
        const char *file, *pelvis, *head;
    } cases[] = {
        {"Fox.glb", "b_Hip_01", "b_Head_05"},
        {"notail/Fox.glb", "b_Hip_01", "b_Head_05"},
        {"quaternius_Fox.glb", "Back", "Head"},
        {"quaternius_TRex.glb", "Body", "Head"},
        {"notail/quaternius_Velociraptor.glb", "Body", "Head"},
        {"CesiumMan.glb", NULL, NULL},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char path[8800];
        snprintf(path, sizeof path, "%s/%s", dir, cases[i].file);
        sinew_model *m = load(path, NULL);
        assert_non_null(m);
        sinew_rig_landmarks lm;
        assert_int_equal(sinew_rig_find_landmarks(m, &lm, NULL, NULL), SINEW_OK);
        const char *pelvis = m->nodes[m->skin.joints[lm.pelvis].node].name;
        const char *head = lm.head >= 0 ? m->nodes[m->skin.joints[lm.head].node].name : "-";
        fprintf(stderr, "  %-36s pelvis %-10s head %-10s thighs %s %s spine %u\n", cases[i].file,
                pelvis, head, m->nodes[m->skin.joints[lm.thigh[0]].node].name,
                m->nodes[m->skin.joints[lm.thigh[1]].node].name, lm.spine_count);
        assert_true(lm.thigh[0] >= 0 && lm.thigh[1] >= 0 && lm.thigh[0] != lm.thigh[1]);
        assert_true(lm.head >= 0);
        assert_true(lm.spine_count >= 1);
        if (cases[i].pelvis) {
            assert_string_equal(pelvis, cases[i].pelvis);
            assert_string_equal(head, cases[i].head);
        } else {
            /* Unnamed: the pelvis is the joint both legs hang from, the head is above it. */
            sinew_vec3 pp = sinew_mat4_translation(&m->skin.joints[lm.pelvis].bind);
            sinew_vec3 hp = sinew_mat4_translation(&m->skin.joints[lm.head].bind);
            assert_true(sinew_vec3_dot(sinew_vec3_sub(hp, pp), lm.up) > 0);
        }
        sinew_model_free(m);
    }
}

/* Models whose tails already have bones, or that have no tail: no chain is built. */
static void test_nothing_to_do(void **state)
{
    (void)state;
    const char *dir = test_models_dir();
    if (!dir) test_skip();
    const char *files[] = {
        "Fox.glb",       "quaternius_Fox.glb", "quaternius_TRex.glb", "quaternius_Velociraptor.glb",
        "CesiumMan.glb", "RiggedSimple.glb",   "SimpleSkin.gltf",     "RobotExpressive.glb"};
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
        char path[8800];
        snprintf(path, sizeof path, "%s/%s", dir, files[i]);
        sinew_model *m = load(path, NULL);
        assert_non_null(m);
        sinew_rig_report rep;
        sinew_rig_plan plan;
        assert_int_equal(sinew_rig_find_appendages(m, NULL, &rep, NULL), SINEW_OK);
        assert_int_equal(sinew_rig_build_chain(m, NULL, &rep, &plan, NULL), SINEW_OK);
        fprintf(stderr, "  %-28s %u pieces, %u chains, %u vertices changed\n", files[i],
                rep.piece_count, plan.chain_count, plan.changed_count);
        assert_int_equal(plan.chain_count, 0);
        assert_int_equal(plan.changed_count, 0);
        sinew_rig_plan_free(&plan);
        sinew_rig_report_free(&rep);
        sinew_model_free(m);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_landmarks),         cmocka_unit_test(test_nothing_to_do),
        cmocka_unit_test(test_notail_models),     cmocka_unit_test(test_tail_on_skin_copies),
        cmocka_unit_test(test_split_copies),      cmocka_unit_test(test_turned_copies),
#ifdef SINEW_TEST_SIMPLIFY
        cmocka_unit_test(test_simplified_copies),
#endif
    };
    return test_exit_code(cmocka_run_group_tests(tests, NULL, NULL));
}
