/* Body grounding from support samples (after Sidorkin, "Animating tails the auto-rigger never
 * gave a bone": S sampled from the skin grouped by dominant bone). The whole-array
 * functions (sinew_dyn_ground_*) are the reference:
 *   - on the dyn fixture, sampled f_body / c(t) / L_raw equal the whole-array ones, the tail
 *     is excluded from both minima ("tail skin never lifts the pelvis", on samples), limb
 *     contact skin only from the clearance, and empty sets ask for nothing;
 *   - on every shared model with clips, every clip at 30 samples per second, the sampled
 *     clearance stays within a small fraction of the model's world size of the whole-mesh
 *     clearance, with a small fraction of the vertices (both printed, per resolution). */
#include "test_util.h"

#include <dirent.h>
#include <math.h>

#include "dyn_fixture.h"
#include "sinew/document.h"

/* ---- the fixture ---- */

/* World transforms of every fixture node with the hips at `hw` and the tail's local
 * rotations `tail_rot`, then the skinning matrices the caller of the support functions
 * already has (sinew_skin_matrices). */
static void fixture_skin(const fixture *fx, const sinew_mat4 *hw, const sinew_quat *tail_rot,
                         sinew_mat4 *skin)
{
    sinew_mat4 world[FX_MAX_NODES];
    fx_world_posed(fx, hw, tail_rot, world);
    sinew_skin_matrices(&fx->model, world, skin);
}

/* Builds samples into `out` (capacity FX_MAX_VERTS) and checks the query agrees. */
static uint32_t build(const fixture *fx, const uint8_t *tail, const uint8_t *limbs,
                      sinew_dyn_support_sample *out)
{
    uint32_t need = sinew_dyn_support_build(&fx->model, tail, limbs, NULL, NULL, 0);
    assert_true(need <= FX_MAX_VERTS);
    assert_int_equal(sinew_dyn_support_build(&fx->model, tail, limbs, NULL, out, FX_MAX_VERTS),
                     need);
    return need;
}

static void test_samples_match_whole_array(void **state)
{
    (void)state;
    static fixture fx;
    fixture_build_hanging_tail(&fx);
    /* and 64 points strictly inside the body box, rigid on the hips: never extreme along any
     * direction, so never samples, and never the lowest either */
    const uint32_t first_inside = fx.model.mesh.vertex_count;
    uint32_t seed = 777;
    for (uint32_t i = 0; i < 64; i++) {
        float r[3];
        for (int k = 0; k < 3; k++) {
            seed = seed * 1664525u + 1013904223u;
            r[k] = (float)(seed >> 8) / 16777216.0f * 0.9f + 0.05f; /* (0.05, 0.95) */
        }
        const uint32_t v = first_inside + i;
        fx.positions[v] =
            sinew_vec3_make(-0.2f + 0.4f * r[0], 0.3f + 0.9f * r[1], -0.2f + 0.4f * r[2]);
        fx_weight(&fx, v, fx.hips, 1, 0, 0);
    }
    fx.model.mesh.vertex_count += 64;
    sinew_dyn_rig *rig;
    sinew_error err;
    assert_int_equal(sinew_dyn_rig_create(&fx.model, NULL, NULL, NULL, &rig, &err), SINEW_OK);
    const uint32_t n = fx.model.mesh.vertex_count;
    uint8_t tail[FX_MAX_VERTS], limbs[FX_MAX_VERTS];
    sinew_dyn_tail_mask(&fx.model, rig, tail);
    for (uint32_t v = 0; v < n; v++) {
        int dominant = fx.inf_joints[v * SINEW_MAX_INFLUENCES];
        limbs[v] = dominant == fx.left_leg || dominant == fx.right_leg;
    }
    static sinew_dyn_support_sample s_excl[FX_MAX_VERTS], s_incl[FX_MAX_VERTS];
    const uint32_t n_excl = build(&fx, tail, limbs, s_excl);
    const uint32_t n_incl = build(&fx, NULL, limbs, s_incl);
    print_message("samples: %u with the tail excluded, %u counted, of %u vertices\n", n_excl,
                  n_incl, n);
    assert_true(n_excl > 0 && n_excl < n_incl && n_incl <= first_inside);
    /* membership: no tail vertex, limb flags exactly E, and each sample is its mesh vertex */
    for (uint32_t i = 0; i < n_excl; i++) {
        uint32_t v = s_excl[i].vertex;
        assert_true(v < n);
        assert_false(tail[v]);
        assert_int_equal(!!(s_excl[i].flags & SINEW_DYN_SUPPORT_LIMB), limbs[v]);
        assert_memory_equal(&s_excl[i].position, &fx.positions[v], sizeof(sinew_vec3));
        assert_true(v < first_inside);
        if (i > 0) assert_true(s_excl[i - 1].vertex != v);
    }

    /* calibration at bind: sampled f_body equals the whole-array one, tail excluded or not */
    sinew_mat4 skin[FX_MAX_NODES];
    sinew_quat rot[5];
    for (int k = 0; k < 5; k++)
        rot[k] = fx.nodes[fx.tail0 + k].rest.rotation;
    sinew_mat4 bind_hips = fx.bind[fx.hips];
    fixture_skin(&fx, &bind_hips, rot, skin);
    static sinew_vec3 posed[FX_MAX_VERTS], sposed[FX_MAX_VERTS];
    sinew_skin_positions(&fx.model, skin, posed);
    const float ref_excl = sinew_dyn_support_reference(s_excl, n_excl, skin);
    const float ref_incl = sinew_dyn_support_reference(s_incl, n_incl, skin);
    const float all_excl = sinew_dyn_ground_reference(posed, n, NULL, tail);
    const float all_incl = sinew_dyn_ground_reference(posed, n, NULL, NULL);
    print_message("f_body: samples %.6f / %.6f, every vertex %.6f / %.6f (tail excluded / "
                  "counted)\n",
                  (double)ref_excl, (double)ref_incl, (double)all_excl, (double)all_incl);
    assert_true(fabsf(ref_excl - all_excl) <= 1e-6f);
    assert_true(fabsf(ref_incl - all_incl) <= 1e-6f);
    assert_true(fabsf(ref_excl) < 1e-5f); /* the soles */
    assert_true(ref_incl < -0.1f);        /* the tail would drag the floor below them */

    /* the floor test's crouch frame: the pelvis drops 0.25, the tail dips under the floor */
    rot[0] = sinew_quat_from_axis_angle(sinew_vec3_make(1, 0, 0), -0.35f);
    sinew_mat4 hw = fx_hips_world(sinew_vec3_make(0, 0.75f, 0), sinew_quat_identity());
    fixture_skin(&fx, &hw, rot, skin);
    sinew_skin_positions(&fx.model, skin, posed);
    /* the samples' own skinning is the mesh's, vertex for vertex */
    sinew_dyn_support_pose(s_incl, n_incl, skin, sposed);
    for (uint32_t i = 0; i < n_incl; i++)
        assert_true(sinew_vec3_distance(sposed[i], posed[s_incl[i].vertex]) <= 1e-6f);
    const float c_excl = sinew_dyn_support_clearance(s_excl, n_excl, skin, ref_excl);
    const float c_incl = sinew_dyn_support_clearance(s_incl, n_incl, skin, ref_incl);
    const float c_half = sinew_dyn_support_clearance(s_excl, n_excl, skin, ref_incl);
    const float a_excl = sinew_dyn_ground_clearance(posed, n, NULL, tail, limbs, all_excl);
    const float a_incl = sinew_dyn_ground_clearance(posed, n, NULL, NULL, limbs, all_incl);
    print_message("c(t): samples %.6f / %.6f, every vertex %.6f / %.6f; L_raw %.4f / %.4f\n",
                  (double)c_excl, (double)c_incl, (double)a_excl, (double)a_incl,
                  (double)sinew_dyn_ground_lift(0, c_excl),
                  (double)sinew_dyn_ground_lift(0, c_incl));
    assert_true(fabsf(c_excl - a_excl) <= 1e-5f);
    assert_true(fabsf(c_incl - a_incl) <= 1e-5f);
    assert_true(sinew_dyn_ground_lift(0, c_excl) == 0.0f); /* tail skin never lifts the pelvis */
    assert_true(sinew_dyn_ground_lift(0, c_incl) > 0.1f);  /* it would, counted */
    /* excluded from the probe only, not from the reference: still a wrong answer */
    assert_true(c_half > 0.1f);
    /* with the body itself through the floor, the lift is what the body needs */
    sinew_mat4 deep = fx_hips_world(sinew_vec3_make(0, 0.6f, 0), sinew_quat_identity());
    fixture_skin(&fx, &deep, rot, skin);
    const float lift_deep =
        sinew_dyn_ground_lift(0, sinew_dyn_support_clearance(s_excl, n_excl, skin, ref_excl));
    assert_true(fabsf(lift_deep - 0.1f) < 1e-5f);

    /* random poses (fixed seed): sampled clearance equals the whole-array one */
    seed = 12345;
    float worst = 0;
    for (int trial = 0; trial < 200; trial++) {
        float r[7];
        for (int i = 0; i < 7; i++) {
            seed = seed * 1664525u + 1013904223u;
            r[i] = (float)(seed >> 8) / 16777216.0f * 2.0f - 1.0f;
        }
        sinew_quat q = sinew_quat_from_axis_angle(
            sinew_vec3_normalize_or(sinew_vec3_make(r[0], r[1], r[2]), sinew_vec3_make(1, 0, 0)),
            3.0f * r[3]);
        for (int k = 0; k < 5; k++)
            rot[k] = sinew_quat_from_axis_angle(sinew_vec3_make(1, 0, 0), 0.6f * r[(4 + k) % 7]);
        hw = fx_hips_world(sinew_vec3_make(r[4], 1.0f + 0.5f * r[5], r[6]), q);
        fixture_skin(&fx, &hw, rot, skin);
        sinew_skin_positions(&fx.model, skin, posed);
        float cs = sinew_dyn_support_clearance(s_excl, n_excl, skin, ref_excl);
        float ca = sinew_dyn_ground_clearance(posed, n, NULL, tail, limbs, all_excl);
        worst = fmaxf(worst, fabsf(cs - ca));
    }
    print_message("200 random poses: largest |c_samples - c_all| %.3g\n", (double)worst);
    assert_true(worst <= 1e-5f);

    /* a buffer too small: the count is still the whole set's, nothing written past it */
    static sinew_dyn_support_sample few[4];
    memset(few, 0xab, sizeof few);
    assert_int_equal(sinew_dyn_support_build(&fx.model, tail, limbs, NULL, few, 3), n_excl);
    uint8_t sentinel[sizeof few[3]];
    memset(sentinel, 0xab, sizeof sentinel);
    assert_memory_equal(&few[3], sentinel, sizeof sentinel);
    assert_memory_equal(few, s_excl, 3 * sizeof few[0]);

    /* empty sets ask for nothing */
    uint8_t all[FX_MAX_VERTS];
    memset(all, 1, sizeof all);
    assert_int_equal(sinew_dyn_support_build(&fx.model, all, NULL, NULL, NULL, 0), 0);
    assert_true(sinew_dyn_support_reference(s_excl, 0, skin) == INFINITY);
    assert_true(sinew_dyn_ground_lift(0, sinew_dyn_support_clearance(s_excl, 0, skin, 0)) == 0.0f);
    static sinew_dyn_support_sample only_limbs[FX_MAX_VERTS];
    const uint32_t n_limbs = build(&fx, NULL, all, only_limbs); /* everything in E */
    assert_true(n_limbs > 0);
    assert_true(sinew_dyn_support_clearance(only_limbs, n_limbs, skin, 0) == INFINITY);
    assert_true(sinew_dyn_ground_lift(
                    0, sinew_dyn_support_clearance(only_limbs, n_limbs, skin, 0)) == 0.0f);
    assert_int_equal(sinew_dyn_support_build(NULL, NULL, NULL, NULL, NULL, 0), 0);
    sinew_dyn_rig_free(rig);
}

/* ---- the shared models ---- */

#define MAX_SAMPLES 65536u
#define RESOLUTIONS 6 /* n = 1..6 measured and printed; the default (6) is asserted */

typedef struct frame_buffers {
    sinew_transform *pose;
    sinew_mat4 *world, *skin;
    sinew_vec3 *posed;
} frame_buffers;

/* Skinning matrices and every vertex skinned, for `clip` at `time` (NULL clip: the file's
 * pose, where the reference floor is calibrated). */
static void pose_frame(const sinew_model *m, const sinew_clip *clip, float time,
                       const frame_buffers *b)
{
    if (clip)
        sinew_clip_sample(m, clip, time, b->pose);
    else
        sinew_pose_file(m, b->pose);
    sinew_pose_to_world(m, b->pose, b->world);
    sinew_skin_matrices(m, b->world, b->skin);
    sinew_skin_positions(m, b->skin, b->posed);
}

/* Largest |c_samples(t) - c_all(t)| over every clip at 30 per second, in world units, with
 * f_body calibrated at the file's pose. `limbs` is E or NULL; the caller passes every third
 * vertex, a set that splits every bone's group (any set works: what is checked is that the
 * samples and the whole mesh agree on the same S \ (T u E)). */
static float clip_error(const sinew_model *m, const sinew_dyn_support_sample *s, uint32_t count,
                        const uint8_t *limbs, const frame_buffers *b, uint32_t *frames)
{
    const uint32_t n = m->mesh.vertex_count;
    pose_frame(m, NULL, 0, b);
    const float ref_s = sinew_dyn_support_reference(s, count, b->skin);
    const float ref_a = sinew_dyn_ground_reference(b->posed, n, NULL, NULL);
    float worst = 0;
    *frames = 0;
    for (uint32_t c = 0; c < m->clip_count; c++) {
        const sinew_clip *clip = &m->clips[c];
        const uint32_t steps = (uint32_t)ceilf(clip->duration * 30.0f);
        for (uint32_t f = 0; f <= steps; f++) {
            float t = steps ? clip->duration * (float)f / (float)steps : 0;
            pose_frame(m, clip, t, b);
            float cs = sinew_dyn_support_clearance(s, count, b->skin, ref_s);
            float ca = sinew_dyn_ground_clearance(b->posed, n, NULL, NULL, limbs, ref_a);
            worst = fmaxf(worst, fabsf(cs - ca));
            (*frames)++;
        }
    }
    return worst;
}

static void check_model(const char *path, const char *name, float *worst_fraction)
{
    sinew_error err;
    sinew_document *doc = NULL;
    sinew_model *m = NULL;
    if (sinew_document_load_file(path, NULL, &doc, &err) != SINEW_OK ||
        sinew_model_from_document(doc, NULL, &m, &err) != SINEW_OK) {
        print_error("%s: %s\n", path, err.message);
        fail();
    }
    if (m->clip_count == 0 || m->mesh.vertex_count == 0) {
        sinew_model_free(m);
        sinew_document_free(doc);
        return;
    }
    const uint32_t n = m->mesh.vertex_count;
    frame_buffers b = {
        calloc(m->node_count, sizeof(sinew_transform)), calloc(m->node_count, sizeof(sinew_mat4)),
        calloc(m->skin.joint_count, sizeof(sinew_mat4)), calloc(n, sizeof(sinew_vec3))};
    uint8_t *limbs = calloc(n, 1);
    sinew_dyn_support_sample *s = calloc(MAX_SAMPLES, sizeof *s);
    assert_true(b.pose && b.world && b.skin && b.posed && limbs && s);
    for (uint32_t v = 0; v < n; v++)
        limbs[v] = v % 3 == 0;
    const float size = m->world_size.scale;
    for (uint32_t res = 1; res <= RESOLUTIONS; res++) {
        sinew_dyn_support_options opt = {.resolution = res};
        uint32_t frames = 0, counts[2];
        float err_frac[2];
        for (int e = 0; e < 2; e++) {
            const uint8_t *E = e ? limbs : NULL;
            counts[e] = sinew_dyn_support_build(m, NULL, E, &opt, NULL, 0);
            assert_true(counts[e] <= MAX_SAMPLES);
            assert_int_equal(sinew_dyn_support_build(m, NULL, E, &opt, s, MAX_SAMPLES), counts[e]);
            err_frac[e] = clip_error(m, s, counts[e], E, &b, &frames) / size;
        }
        print_message("%-28s n=%u (%3u dirs): %5u and %5u samples of %5u vertices (%4.1f%%), "
                      "%u clips, %4u frames: max |c_s - c_all| %.4f%% / %.4f%% of size %.4g\n",
                      name, res, 24 * res * res + 2, counts[0], counts[1], n, 100.0 * counts[0] / n,
                      m->clip_count, frames, 100.0 * err_frac[0], 100.0 * err_frac[1],
                      (double)size);
        if (res == 6) { /* the default */
            worst_fraction[0] = fmaxf(worst_fraction[0], fmaxf(err_frac[0], err_frac[1]));
            /* a few hundred vertices are all hull: the fraction means something from 500 */
            if (n >= 500) worst_fraction[1] = fmaxf(worst_fraction[1], (float)counts[0] / (float)n);
            sinew_dyn_support_options zero = {0};
            assert_int_equal(sinew_dyn_support_build(m, NULL, limbs, &zero, NULL, 0), counts[1]);
        }
    }
    free(s);
    free(limbs);
    free(b.pose);
    free(b.world);
    free(b.skin);
    free(b.posed);
    sinew_model_free(m);
    sinew_document_free(doc);
}

static int by_name(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static void test_shared_models(void **state)
{
    (void)state;
    const char *dir = test_models_dir();
    if (!dir) test_skip();
    DIR *d = opendir(dir);
    assert_non_null(d);
    static char names[64][256];
    const char *sorted[64];
    int count = 0;
    struct dirent *e;
    while ((e = readdir(d)) && count < 64) {
        size_t len = strlen(e->d_name);
        if (len >= sizeof names[0]) continue;
        if ((len > 4 && !strcmp(e->d_name + len - 4, ".glb")) ||
            (len > 5 && !strcmp(e->d_name + len - 5, ".gltf"))) {
            memcpy(names[count], e->d_name, len + 1);
            sorted[count] = names[count];
            count++;
        }
    }
    closedir(d);
    qsort(sorted, (size_t)count, sizeof sorted[0], by_name);
    float worst[2] = {0, 0}; /* error / world size, samples / vertices */
    for (int i = 0; i < count; i++) {
        char path[4096];
        check_model(test_path(path, sizeof path, dir, sorted[i]), sorted[i], worst);
    }
    print_message("default (n=6), over every model: max |c_s - c_all| %.4f%% of the world size, "
                  "at most %.1f%% of the vertices sampled (models of 500 vertices or more)\n",
                  100.0 * worst[0], 100.0 * worst[1]);
    /* measured (19 shared files): 0.090% (quaternius_TRex), samples at most 55% (ToonCat and
     * quaternius_UM_Bunny, whose skin is mostly blended groups), 15-25% on the Quaternius
     * animals. The bounds leave room for new files, not for sampling every vertex. */
    assert_true(worst[0] <= 0.0025f);
    assert_true(worst[1] <= 0.60f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_samples_match_whole_array),
        cmocka_unit_test(test_shared_models),
    };
    return test_exit_code(cmocka_run_group_tests_name("dyn_ground", tests, NULL, NULL));
}
