/* Surface solve (after Sidorkin, "Solve the surface, not the skeleton"): Horn's fit, the
 * control run that must reach zero, coarser rigs, rotation-only bone lengths, correspondence
 * under shuffling and resolution changes, and the similarity alignment of meshes in other
 * units, facing or place. */
#include "test_util.h"

#include "sinew/creature.h"
#include "solve/solve_internal.h"
#include "solve_fixture.h"

#include <math.h>

static void random_rotation(uint32_t *seed, double R[9], double q[4])
{
    double n = 0;
    for (int i = 0; i < 4; i++) {
        q[i] = fixture_rand(seed) - 0.5;
        n += q[i] * q[i];
    }
    n = sqrt(n);
    for (int i = 0; i < 4; i++)
        q[i] /= n;
    solve_quat_to_rot(q, R);
}

/* Points along x and their images under a random rotation `prev`: their cross-covariance S,
 * whose fit leaves the spin about x free. */
static void collinear_fit(uint32_t *seed, double prev[9], double S[9])
{
    double qp[4];
    random_rotation(seed, prev, qp);
    memset(S, 0, 9 * sizeof *S);
    for (int i = -2; i <= 2; i++) {
        double a[3] = {i, 0, 0}, b[3] = {prev[0] * i, prev[3] * i, prev[6] * i};
        for (int x = 0; x < 3; x++)
            for (int y = 0; y < 3; y++)
                S[x * 3 + y] += a[x] * b[y];
    }
}

/* Horn on exact data recovers the rotation to rounding; on collinear points the tie-break
 * keeps the previous rotation about the line. */
static void test_horn(void **state)
{
    (void)state;
    uint32_t seed = 7;
    for (int trial = 0; trial < 50; trial++) {
        double R[9], q[4];
        random_rotation(&seed, R, q);
        double S[9] = {0};
        for (int i = 0; i < 6; i++) {
            double a[3], b[3], w = 0.1 + fixture_rand(&seed);
            for (int c = 0; c < 3; c++)
                a[c] = fixture_rand(&seed) - 0.5;
            for (int r = 0; r < 3; r++)
                b[r] = R[r * 3] * a[0] + R[r * 3 + 1] * a[1] + R[r * 3 + 2] * a[2];
            for (int x = 0; x < 3; x++)
                for (int y = 0; y < 3; y++)
                    S[x * 3 + y] += w * a[x] * b[y];
        }
        double got[4], Rg[9];
        solve_horn(S, NULL, got, Rg);
        for (int i = 0; i < 9; i++)
            assert_true(fabs(Rg[i] - R[i]) < 1e-9);
    }
    /* collinear points along x: rotation about x is free; the previous rotation wins */
    double prev[9], S[9];
    collinear_fit(&seed, prev, S);
    double got[4], Rg[9];
    solve_horn(S, prev, got, Rg);
    for (int i = 0; i < 9; i++)
        assert_true(fabs(Rg[i] - prev[i]) < 1e-5);
}

/* Horn from a start rotation: the same rotation as Jacobi's, from any start, on noisy fits,
 * exact ones and the free spin of collinear points; near the answer the start carries it. */
static void test_horn_from(void **state)
{
    (void)state;
    uint32_t seed = 11;
    int near = 0, near_used = 0, far = 0;
    double worst = 0;
    for (int trial = 0; trial < 400; trial++) {
        double R[9], q[4];
        random_rotation(&seed, R, q);
        const double noise = trial % 4 == 0 ? 0.0 : 0.05 * (trial % 4);
        double S[9] = {0};
        for (int i = 0; i < 6; i++) {
            double a[3], b[3], w = 0.1 + fixture_rand(&seed);
            for (int c = 0; c < 3; c++)
                a[c] = fixture_rand(&seed) - 0.5;
            for (int r = 0; r < 3; r++)
                b[r] = R[r * 3] * a[0] + R[r * 3 + 1] * a[1] + R[r * 3 + 2] * a[2] +
                       noise * (fixture_rand(&seed) - 0.5);
            for (int x = 0; x < 3; x++)
                for (int y = 0; y < 3; y++)
                    S[x * 3 + y] += w * a[x] * b[y];
        }
        double tie[9], qt[4], ref[9], qr[4], got[9], qg[4];
        random_rotation(&seed, tie, qt);
        const double *prev = trial % 2 ? tie : NULL;
        solve_horn(S, prev, qr, ref);
        /* start: the answer turned about a random axis by up to 180 degrees */
        double axis[4] = {fixture_rand(&seed) - 0.5, fixture_rand(&seed) - 0.5,
                          fixture_rand(&seed) - 0.5, 0};
        const double len = sqrt(axis[0] * axis[0] + axis[1] * axis[1] + axis[2] * axis[2]);
        const double angle = 3.14159265358979 * (trial % 8) / 8.0 + 0.01 * fixture_rand(&seed);
        const double turn[4] = {axis[0] / len * sin(angle / 2), axis[1] / len * sin(angle / 2),
                                axis[2] / len * sin(angle / 2), cos(angle / 2)};
        double T[9], start[9];
        solve_quat_to_rot(turn, T);
        for (int r = 0; r < 3; r++)
            for (int c = 0; c < 3; c++)
                start[r * 3 + c] = T[r * 3 + 0] * ref[0 * 3 + c] + T[r * 3 + 1] * ref[1 * 3 + c] +
                                   T[r * 3 + 2] * ref[2 * 3 + c];
        const int used = solve_horn_from(S, prev, start, qg, got);
        for (int i = 0; i < 9; i++)
            worst = fmax(worst, fabs(got[i] - ref[i]));
        if (angle < 0.5) {
            near++;
            near_used += used;
        } else {
            far += !used;
        }
    }
    print_message("horn from a start: worst |R - Jacobi's| %.1e; started within 30 degrees: %d "
                  "of %d by Newton; Jacobi took %d of the others\n",
                  worst, near_used, near, far);
    assert_true(worst < 1e-9);
    assert_int_equal(near_used, near);
    /* collinear points along x: the spin is free; from the previous rotation it stays */
    double prev[9], S[9];
    collinear_fit(&seed, prev, S);
    double got[4], Rg[9];
    assert_int_equal(solve_horn_from(S, prev, prev, got, Rg), 1);
    for (int i = 0; i < 9; i++)
        assert_true(fabs(Rg[i] - prev[i]) < 1e-5);
}

static void solve_or_fail(const sinew_model *src, const sinew_model *rig, const uint32_t *nearest,
                          const sinew_solve_options *opt, sinew_solve_clip_result *res)
{
    sinew_error err = {0};
    sinew_result r = sinew_solve_clip(src, &src->clips[0], rig, nearest, opt, res, &err);
    if (r != SINEW_OK) fprintf(stderr, "solve failed: %s\n", err.message);
    assert_int_equal(r, SINEW_OK);
}

/* Solves src's first clip onto rig through their correspondence; returns Q as played, the
 * solve in *res (free it). */
static sinew_solve_quality solve_played(const sinew_model *src, const sinew_model *rig,
                                        sinew_solve_clip_result *res)
{
    uint32_t *nearest = malloc(rig->mesh.vertex_count * sizeof *nearest);
    sinew_correspondence_stats st;
    sinew_error err = {0};
    assert_int_equal(sinew_solve_correspond(src, rig, NULL, nearest, &st, &err), SINEW_OK);
    solve_or_fail(src, rig, nearest, NULL, res);
    sinew_solve_quality played;
    assert_int_equal(sinew_solve_quality_played(src, &src->clips[0], rig, nearest, NULL, res,
                                                &played, NULL, &err),
                     SINEW_OK);
    free(nearest);
    return played;
}

static void print_result(const char *what, const sinew_solve_clip_result *r)
{
    fprintf(stderr,
            "%-28s frames %u sweeps/frame %.1f (max %u) Q %.4f%% mean %.2e%% max %.2e%% "
            "reskin %.1e\n",
            what, r->frame_count, r->sweeps_per_frame, r->max_sweeps, 100 * r->quality.q,
            100 * r->quality.mean_error, 100 * r->quality.max_error,
            r->reskin_mismatch / r->diagonal);
}

/* The control run: the rig solved against its own clip must reach zero. */
static void test_control(void **state)
{
    (void)state;
    fixture_params p = fixture_default();
    sinew_model *m = fixture_creature(&p);
    sinew_solve_clip_result res;
    solve_or_fail(m, m, NULL, NULL, &res);
    print_result("control (procedural)", &res);
    assert_int_equal(res.frame_count, p.keys);
    assert_true(res.quality.mean_error <= 1e-4);
    assert_true(res.quality.max_error <= 1e-3);
    assert_true(res.quality.q >= 0.998);
    /* re-skinning from the local tracks reproduces the solved matrices */
    assert_true(res.reskin_mismatch <= 1e-5 * res.diagonal);
    sinew_solve_clip_result_free(&res);
    sinew_model_free(m);
}

/* The written clip keeps the keys a player needs (within the default tolerances) and the
 * quality as played measures that reduced clip: fewer keys, a little more error, not much;
 * --keys all (all_keys) writes one key per frame and plays the solve exactly. */
static void test_reduced_keys(void **state)
{
    (void)state;
    fixture_params p = fixture_default();
    sinew_model *m = fixture_creature(&p);
    sinew_solve_options all_opt = {0}, tight_opt = {0};
    all_opt.all_keys = 1;
    tight_opt.key_translation = 1e-7f;
    tight_opt.key_degrees = 1e-4f;
    sinew_solve_clip_result reduced, all, tight;
    solve_or_fail(m, m, NULL, NULL, &reduced);
    solve_or_fail(m, m, NULL, &all_opt, &all);
    solve_or_fail(m, m, NULL, &tight_opt, &tight);
    sinew_solve_quality pr, pa;
    sinew_error err = {0};
    assert_int_equal(
        sinew_solve_quality_played(m, &m->clips[0], m, NULL, NULL, &reduced, &pr, NULL, &err),
        SINEW_OK);
    assert_int_equal(
        sinew_solve_quality_played(m, &m->clips[0], m, NULL, &all_opt, &all, &pa, NULL, &err),
        SINEW_OK);
    fprintf(stderr,
            "keys: %llu of %llu written (tight tolerances: %llu); Q as played %.4f%% (every "
            "frame keyed: %.4f%%), max %.4f%% (%.4f%%) of the diagonal\n",
            (unsigned long long)reduced.keys.written, (unsigned long long)reduced.keys.frame_keys,
            (unsigned long long)tight.keys.written, 100 * pr.q, 100 * pa.q, 100 * pr.max_error,
            100 * pa.max_error);
    assert_true(all.keys.written == all.keys.frame_keys && all.keys.frame_keys > 0);
    assert_true(reduced.keys.frame_keys == all.keys.frame_keys);
    assert_true(reduced.keys.written < all.keys.frame_keys * 3 / 4);
    assert_true(tight.keys.written > reduced.keys.written);
    /* what is played is the reduced clip: its error is larger, but bounded */
    assert_true(pr.error > pa.error);
    assert_true(pr.q > pa.q - 0.01);
    assert_true(pr.max_error < 0.005);
    sinew_solve_clip_result_free(&reduced);
    sinew_solve_clip_result_free(&all);
    sinew_solve_clip_result_free(&tight);
    /* a tolerance below zero is refused by name */
    sinew_solve_options bad = {0};
    bad.key_degrees = -1;
    sinew_solve_clip_result none;
    assert_int_equal(sinew_solve_clip(m, &m->clips[0], m, NULL, &bad, &none, &err),
                     SINEW_ERR_ARGUMENT);
    assert_non_null(strstr(err.message, "key tolerances"));
    sinew_model_free(m);
}

/* Quality as played sees what the solve's frames do not: solved at 4 frames per second, the
 * control run is exact at its frames, but a player interpolating its keys misses the source's
 * 24 keys per second between them. At every frame of a full-rate solve the two agree. */
static void test_played_between_frames(void **state)
{
    (void)state;
    fixture_params p = fixture_default();
    sinew_model *m = fixture_creature(&p);
    sinew_solve_options opt = {0}, every = {0};
    opt.frame_rate = 4;
    every.all_keys = 1; /* a key at every frame: the reduction's own error is another test's */
    sinew_solve_clip_result coarse, full;
    solve_or_fail(m, m, NULL, &opt, &coarse);
    solve_or_fail(m, m, NULL, &every, &full);
    sinew_solve_quality played_coarse, played_full;
    sinew_error err = {0};
    assert_int_equal(sinew_solve_quality_played(m, &m->clips[0], m, NULL, &opt, &coarse,
                                                &played_coarse, NULL, &err),
                     SINEW_OK);
    float *vertex_error = malloc(m->mesh.vertex_count * sizeof *vertex_error);
    assert_int_equal(sinew_solve_quality_played(m, &m->clips[0], m, NULL, &every, &full,
                                                &played_full, vertex_error, &err),
                     SINEW_OK);
    fprintf(stderr,
            "4 fps solve: Q at its %u frames %.4f%%, as played %.4f%% (max %.3f%% at %.3f s); "
            "full rate: %.4f%% at frames, %.4f%% as played\n",
            coarse.frame_count, 100 * coarse.quality.q, 100 * played_coarse.q,
            100 * played_coarse.max_error, (double)played_coarse.worst_time, 100 * full.quality.q,
            100 * played_full.q);
    /* samples: the 25 source keys (the 4 fps frames fall on them) and the 24 midpoints */
    assert_int_equal(played_coarse.samples, (uint64_t)(2 * p.keys - 1) * m->mesh.vertex_count);
    assert_true(coarse.quality.q >= 0.998);
    assert_true(played_coarse.q < coarse.quality.q - 0.01);
    assert_true(played_full.q >= 0.998);
    assert_true(played_full.max_error <= 1e-3);
    float worst = 0;
    for (uint32_t v = 0; v < m->mesh.vertex_count; v++)
        if (vertex_error[v] > worst) worst = vertex_error[v];
    assert_true(fabs(worst / full.diagonal - played_full.max_error) <= 1e-6);
    free(vertex_error);
    sinew_solve_clip_result_free(&coarse);
    sinew_solve_clip_result_free(&full);
    sinew_model_free(m);
}

/* Largest rotation between consecutive keys of node n's rotation channel in `clip`, radians
 * (0 when the clip does not turn it). */
static float max_key_step(const sinew_clip *clip, int32_t n)
{
    float worst = 0;
    for (uint32_t c = 0; c < clip->channel_count; c++) {
        const sinew_channel *ch = &clip->channels[c];
        if (ch->node != n || ch->path != SINEW_PATH_ROTATION) continue;
        for (uint32_t k = 1; k < ch->key_count; k++) {
            sinew_quat a, b;
            memcpy(&a, &ch->values[(k - 1) * 4], sizeof a);
            memcpy(&b, &ch->values[k * 4], sizeof b);
            const float step = sinew_quat_angle(sinew_quat_mul(sinew_quat_conjugate(a), b));
            if (step > worst) worst = step;
        }
    }
    return worst;
}

/* The procedural creature with its "Armature" root made a skin joint that no vertex is
 * weighted to (as exporters leave a root bone), and a clip that swings it by up to
 * `swing` radians about the vertical and moves it, under the hips' own motion. */
static sinew_model *unweighted_root_creature(float swing)
{
    fixture_params p = fixture_default();
    sinew_model *m = fixture_creature(&p);
    const uint32_t J = m->skin.joint_count;
    m->skin.joints = sinew_realloc(NULL, m->skin.joints, J, J + 1, sizeof(sinew_joint));
    assert_non_null(m->skin.joints);
    sinew_mat4 w0 = sinew_mat4_from_transform(m->nodes[0].local);
    m->skin.joints[J].node = 0;
    assert_true(sinew_mat4_invert_affine(&w0, &m->skin.joints[J].inverse_bind));
    m->skin.joint_count = J + 1;
    m->nodes[0].joint = (int32_t)J;
    sinew_clip *clip = &m->clips[0];
    const uint32_t C = clip->channel_count, K = clip->channels[0].key_count;
    clip->channels = sinew_realloc(NULL, clip->channels, C, C + 2, sizeof(sinew_channel));
    assert_non_null(clip->channels);
    clip->channel_count = C + 2;
    for (uint32_t c = C; c < C + 2; c++) {
        sinew_channel *ch = &clip->channels[c];
        const uint32_t comps = c == C ? 4 : 3;
        ch->node = 0;
        ch->path = c == C ? SINEW_PATH_ROTATION : SINEW_PATH_TRANSLATION;
        ch->interpolation = SINEW_INTERP_LINEAR;
        ch->key_count = K;
        ch->times = sinew_alloc(NULL, K, sizeof(float));
        ch->values = sinew_alloc(NULL, (size_t)K * comps, sizeof(float));
        assert_true(ch->times && ch->values);
        for (uint32_t k = 0; k < K; k++) {
            const float t = clip->channels[0].times[k], x = 6.2831853f * t / clip->duration;
            ch->times[k] = t;
            if (c == C) {
                const sinew_quat q = sinew_quat_mul(
                    m->nodes[0].local.rotation,
                    sinew_quat_from_axis_angle(sinew_vec3_make(0, 1, 0), swing * sinf(x)));
                memcpy(&ch->values[k * 4], &q, sizeof q);
            } else {
                ch->values[k * 3 + 0] = 0.3f * sinf(x);
                ch->values[k * 3 + 1] = 0.1f * sinf(2 * x);
                ch->values[k * 3 + 2] = 0;
            }
        }
    }
    assert_int_equal(sinew_model_update_rest(m, NULL), SINEW_OK);
    sinew_model_update_size(m);
    return m;
}

/* A joint the surface does not determine (no weight anywhere: here the root above the hips)
 * follows the source's joint of the same name: its written track turns no more between keys
 * than the source's does, and the control run plays the artist's surface between keys too. */
static void test_unweighted_root(void **state)
{
    (void)state;
    sinew_model *m = unweighted_root_creature(0.9f);
    const float source_step = max_key_step(&m->clips[0], 0);
    sinew_solve_clip_result res;
    solve_or_fail(m, m, NULL, NULL, &res);
    float solved_step = 0;
    for (uint32_t f = 1; f < res.frame_count; f++) {
        const sinew_quat a = res.poses[(size_t)(f - 1) * res.node_count].rotation;
        const sinew_quat b = res.poses[(size_t)f * res.node_count].rotation;
        const float step = sinew_quat_angle(sinew_quat_mul(sinew_quat_conjugate(a), b));
        if (step > solved_step) solved_step = step;
    }
    sinew_solve_quality played;
    sinew_error err = {0};
    assert_int_equal(
        sinew_solve_quality_played(m, &m->clips[0], m, NULL, NULL, &res, &played, NULL, &err),
        SINEW_OK);
    fprintf(stderr,
            "unweighted root: source turns %.4f rad per key at most, solved %.4f; Q at frames "
            "%.4f%%, as played %.4f%% (max %.2e%%)\n",
            (double)source_step, (double)solved_step, 100 * res.quality.q, 100 * played.q,
            100 * played.max_error);
    assert_true(solved_step <= source_step + 1e-3f);
    assert_true(played.q >= 0.999);
    sinew_solve_clip_result_free(&res);
    sinew_model_free(m);
}

/* A root with a little skin (two vertices' worth, on the first vertices of the mesh) is no
 * better determined than one with none: onto a coarser rig it still follows the source's root,
 * with no jump between frames that its children would have to undo. */
static void test_barely_weighted_root(void **state)
{
    (void)state;
    sinew_model *src = unweighted_root_creature(0.9f);
    sinew_model *rig = unweighted_root_creature(0.9f);
    fixture_merge_chain(rig, "Tail", 1, 2);
    const uint16_t root = (uint16_t)(rig->skin.joint_count - 1);
    for (uint32_t v = 0; v < 4; v++) {
        float *w = &rig->mesh.influence_weights[(size_t)v * SINEW_MAX_INFLUENCES];
        uint16_t *j = &rig->mesh.influence_joints[(size_t)v * SINEW_MAX_INFLUENCES];
        for (int k = SINEW_MAX_INFLUENCES - 1; k > 0; k--)
            w[k] = 0.5f * w[k - 1], j[k] = j[k - 1];
        w[0] = 0.5f, j[0] = root;
    }
    const float source_step = max_key_step(&src->clips[0], 0);
    sinew_solve_clip_result res;
    const sinew_solve_quality played = solve_played(src, rig, &res);
    float solved_step = 0;
    for (uint32_t f = 1; f < res.frame_count; f++) {
        const sinew_quat a = res.poses[(size_t)(f - 1) * res.node_count].rotation;
        const sinew_quat b = res.poses[(size_t)f * res.node_count].rotation;
        const float step = sinew_quat_angle(sinew_quat_mul(sinew_quat_conjugate(a), b));
        if (step > solved_step) solved_step = step;
    }
    fprintf(stderr,
            "barely weighted root: source turns %.4f rad per key at most, solved %.4f; Q at "
            "frames %.4f%%, as played %.4f%%\n",
            (double)source_step, (double)solved_step, 100 * res.quality.q, 100 * played.q);
    assert_true(solved_step <= source_step + 1e-3f);
    sinew_solve_clip_result_free(&res);
    sinew_model_free(src);
    sinew_model_free(rig);
}

/* A clip that barely moves (standing, a bob and 0.2 degrees of sway) loses more Q to the
 * default key tolerances than a walk (99.80% against 100.00%):
 * the written clip's tolerances are tightened until it loses at most SINEW_SOLVE_KEY_Q_LOSS
 * against every frame keyed, and the written keys are counted again. */
static void test_keys_settle_on_a_slow_clip(void **state)
{
    (void)state;
    fixture_params p = fixture_default();
    p.amplitude = 0.004f;
    sinew_model *m = fixture_creature(&p);
    sinew_channel *hips = &m->clips[0].channels[m->clips[0].channel_count - 1];
    assert_int_equal(hips->path, SINEW_PATH_TRANSLATION);
    for (uint32_t k = 0; k < hips->key_count; k++) /* standing: no walk, a small bob */
        hips->values[3 * k + 0] = 0, hips->values[3 * k + 2] = 0;
    sinew_solve_clip_result res;
    solve_or_fail(m, m, NULL, NULL, &res);
    sinew_error err = {0};
    sinew_solve_quality loose, every, settled;
    assert_int_equal(
        sinew_solve_quality_played(m, &m->clips[0], m, NULL, NULL, &res, &loose, NULL, &err),
        SINEW_OK);
    const uint64_t loose_keys = res.keys.written;
    res.keys.all = 1;
    assert_int_equal(
        sinew_solve_quality_played(m, &m->clips[0], m, NULL, NULL, &res, &every, NULL, &err),
        SINEW_OK);
    res.keys.all = 0;
    assert_int_equal(
        sinew_solve_quality_written(m, &m->clips[0], m, NULL, NULL, &res, &settled, NULL, &err),
        SINEW_OK);
    fprintf(stderr,
            "slow clip: every frame Q %.4f%%; default tolerances %.4f%% (%llu keys); settled "
            "%.4f%% (%llu keys, %.3g degrees)\n",
            100 * every.q, 100 * loose.q, (unsigned long long)loose_keys, 100 * settled.q,
            (unsigned long long)res.keys.written, res.keys.rotation * 180 / SINEW_PI);
    assert_true(every.q - loose.q > SINEW_SOLVE_KEY_Q_LOSS); /* the case this is for */
    assert_true(every.q - settled.q <= SINEW_SOLVE_KEY_Q_LOSS);
    assert_true(res.keys.written > loose_keys);
    sinew_solve_clip_result_free(&res);
    sinew_model_free(m);
}

/* A coarser rig (tail merged into its first joint) scores below the control and above zero;
 * its rotation-only solve keeps every bone length. */
static void test_coarser_and_rotation_only(void **state)
{
    (void)state;
    fixture_params p = fixture_default();
    sinew_model *src = fixture_creature(&p);
    sinew_model *coarse = fixture_creature(&p);
    assert_int_equal(fixture_merge_chain(coarse, "Tail", 1, 2), p.tail - 1);
    sinew_solve_clip_result control, free_res, rot;
    solve_or_fail(src, src, NULL, NULL, &control);
    uint32_t *nearest = malloc(coarse->mesh.vertex_count * sizeof *nearest);
    sinew_correspondence_stats st;
    assert_int_equal(sinew_solve_correspond(src, coarse, NULL, nearest, &st, NULL), SINEW_OK);
    assert_int_equal(st.identity, 1);
    solve_or_fail(src, coarse, nearest, NULL, &free_res);
    print_result("coarse tail (free)", &free_res);
    sinew_solve_options opt = {0};
    opt.rotation_only = 1;
    solve_or_fail(src, coarse, nearest, &opt, &rot);
    print_result("coarse tail (rotation-only)", &rot);
    assert_true(free_res.quality.q < control.quality.q - 0.001);
    assert_true(free_res.quality.q > 0.5);
    assert_true(rot.quality.q > 0.0);
    assert_true(rot.quality.q <= free_res.quality.q + 1e-6);
    /* bone lengths: every joint below a weighted joint keeps its rest distance */
    sinew_mat4 *world = malloc(coarse->node_count * sizeof *world);
    sinew_mat4 rest_world[FIXTURE_MAX_NODES];
    sinew_transform rest[FIXTURE_MAX_NODES];
    sinew_pose_rest(coarse, rest);
    sinew_pose_to_world(coarse, rest, rest_world);
    double worst = 0;
    uint32_t checked = 0;
    for (uint32_t f = 0; f < rot.frame_count; f++) {
        sinew_pose_to_world(coarse, &rot.poses[(size_t)f * coarse->node_count], world);
        for (uint32_t n = 2; n < coarse->node_count; n++) {
            const int32_t parent = coarse->nodes[n].parent;
            const double len = sinew_vec3_distance(sinew_mat4_translation(&world[n]),
                                                   sinew_mat4_translation(&world[parent]));
            const double len0 = sinew_vec3_distance(sinew_mat4_translation(&rest_world[n]),
                                                    sinew_mat4_translation(&rest_world[parent]));
            if (fabs(len - len0) > worst) worst = fabs(len - len0);
            checked++;
        }
    }
    fprintf(stderr,
            "rotation-only: worst bone length change %.2e (diagonal %.3f, %u bones x frames)\n",
            worst, rot.diagonal, checked);
    assert_true(worst <= 1e-6 * rot.diagonal);
    /* the free solve does stretch bones (the article's caveat), so the check can fail */
    double stretch = 0;
    for (uint32_t f = 0; f < free_res.frame_count; f++) {
        sinew_pose_to_world(coarse, &free_res.poses[(size_t)f * coarse->node_count], world);
        for (uint32_t n = 2; n < coarse->node_count; n++) {
            const int32_t parent = coarse->nodes[n].parent;
            const double len = sinew_vec3_distance(sinew_mat4_translation(&world[n]),
                                                   sinew_mat4_translation(&world[parent]));
            const double len0 = sinew_vec3_distance(sinew_mat4_translation(&rest_world[n]),
                                                    sinew_mat4_translation(&rest_world[parent]));
            if (fabs(len - len0) > stretch) stretch = fabs(len - len0);
        }
    }
    fprintf(stderr, "free solve: worst bone length change %.2e\n", stretch);
    assert_true(stretch > 1e-4 * rot.diagonal);
    /* merged joints have no weight: they follow the source's joint of the same name (the
     * same rest here, so its own track); quaternion signs are continuous from frame to frame */
    const int32_t t5 = sinew_model_find_node(coarse, "Tail5");
    assert_true(t5 >= 0 && t5 == sinew_model_find_node(src, "Tail5"));
    sinew_transform source_pose[FIXTURE_MAX_NODES];
    for (uint32_t f = 0; f < free_res.frame_count; f++) {
        const sinew_quat qr = free_res.poses[(size_t)f * coarse->node_count + t5].rotation;
        sinew_clip_sample(src, &src->clips[0], free_res.times[f], source_pose);
        const sinew_quat q0 = source_pose[t5].rotation;
        assert_true(fabsf(fabsf(sinew_quat_dot(qr, q0)) - 1.0f) < 1e-5f);
        if (f == 0) continue;
        for (uint32_t n = 0; n < coarse->node_count; n++)
            assert_true(
                sinew_quat_dot(free_res.poses[(size_t)f * coarse->node_count + n].rotation,
                               free_res.poses[(size_t)(f - 1) * coarse->node_count + n].rotation) >=
                0);
    }
    free(world);
    free(nearest);
    sinew_solve_clip_result_free(&control);
    sinew_solve_clip_result_free(&free_res);
    sinew_solve_clip_result_free(&rot);
    sinew_model_free(src);
    sinew_model_free(coarse);
}

/* The rotation-only control: the artist rig has fixed bone lengths, so it too reaches zero. */
static void test_rotation_only_control(void **state)
{
    (void)state;
    fixture_params p = fixture_default();
    sinew_model *m = fixture_creature(&p);
    sinew_solve_options opt = {0};
    opt.rotation_only = 1;
    sinew_solve_clip_result res;
    solve_or_fail(m, m, NULL, &opt, &res);
    print_result("control (rotation-only)", &res);
    assert_true(res.quality.mean_error <= 1e-4);
    assert_true(res.quality.max_error <= 1e-3);
    assert_true(res.quality.q >= 0.998);
    sinew_solve_clip_result_free(&res);
    sinew_model_free(m);
}

static double solve_q(const sinew_model *src, const sinew_model *rig, const char *what)
{
    uint32_t *nearest = malloc(rig->mesh.vertex_count * sizeof *nearest);
    sinew_correspondence_stats st;
    sinew_error err = {0};
    assert_int_equal(sinew_solve_correspond(src, rig, NULL, nearest, &st, &err), SINEW_OK);
    fprintf(stderr, "%s: correspondence mean %.2e max %.2e of diagonal, identity %d\n", what,
            st.mean_distance / st.diagonal, st.max_distance / st.diagonal, st.identity);
    sinew_solve_clip_result res;
    solve_or_fail(src, rig, nearest, NULL, &res);
    print_result(what, &res);
    double q = res.quality.q;
    sinew_solve_clip_result_free(&res);
    free(nearest);
    return q;
}

/* Shuffled vertex order and a different resolution solve to the plain target's quality. */
static void test_shuffled_and_resolution(void **state)
{
    (void)state;
    fixture_params p = fixture_default();
    sinew_model *src = fixture_creature(&p);
    sinew_model *plain = fixture_creature(&p);
    sinew_model *shuffled = fixture_creature(&p);
    fixture_params hp = p;
    hp.rings = 17;
    hp.sides = 19;
    sinew_model *hires = fixture_creature(&hp);
    fixture_merge_chain(plain, "Tail", 1, 2);
    fixture_merge_chain(shuffled, "Tail", 1, 2);
    fixture_merge_chain(hires, "Tail", 1, 2);
    fixture_shuffle(shuffled, 99);
    const double q_plain = solve_q(src, plain, "plain coarse target");
    const double q_shuffled = solve_q(src, shuffled, "shuffled coarse target");
    const double q_hires = solve_q(src, hires, "hi-res coarse target");
    assert_true(fabs(q_shuffled - q_plain) <= 0.005);
    assert_true(fabs(q_hires - q_plain) <= 0.005);
    sinew_model_free(src);
    sinew_model_free(plain);
    sinew_model_free(shuffled);
    sinew_model_free(hires);
}

/* Appends two horns to the fixture's head: cones of `sides` x 4 vertices rising from the Head
 * joint, all on the Head (a part the source lacks). */
static void add_horns(sinew_model *m, uint32_t sides)
{
    int32_t head_node = sinew_model_find_node(m, "Head");
    assert_true(head_node >= 0);
    uint32_t head = UINT32_MAX;
    for (uint32_t j = 0; j < m->skin.joint_count; j++)
        if (m->skin.joints[j].node == head_node) head = j;
    assert_true(head != UINT32_MAX);
    const sinew_vec3 at = sinew_mat4_translation(&m->skin.joints[head].bind);
    const float s = 0.06f * m->size.scale;
    sinew_mesh *mesh = &m->mesh;
    const uint32_t V0 = mesh->vertex_count, T0 = mesh->triangle_count, rings = 4;
    const uint32_t V = V0 + 2 * sides * rings, T = T0 + 2 * 2 * sides * (rings - 1);
    mesh->positions = realloc(mesh->positions, V * sizeof *mesh->positions);
    mesh->weld = realloc(mesh->weld, V * sizeof *mesh->weld);
    mesh->influence_joints =
        realloc(mesh->influence_joints, (size_t)V * SINEW_MAX_INFLUENCES * sizeof(uint16_t));
    mesh->influence_weights =
        realloc(mesh->influence_weights, (size_t)V * SINEW_MAX_INFLUENCES * sizeof(float));
    mesh->triangles = realloc(mesh->triangles, (size_t)T * 3 * sizeof *mesh->triangles);
    uint32_t v = V0, t = T0;
    for (int side = 0; side < 2; side++) {
        const uint32_t first = v;
        for (uint32_t r = 0; r < rings; r++)
            for (uint32_t q = 0; q < sides; q++, v++) {
                const float a = 6.2831853f * (float)q / (float)sides,
                            h = (float)r / (float)(rings - 1);
                const float radius = 0.3f * s * (1.0f - 0.8f * h);
                mesh->positions[v] =
                    sinew_vec3_make(at.x + (side ? 1 : -1) * (0.5f * s + h * s) + radius * cosf(a),
                                    at.y + 0.6f * s + 2.0f * h * s, at.z + radius * sinf(a));
                mesh->weld[v] = v;
                for (int k = 0; k < SINEW_MAX_INFLUENCES; k++)
                    mesh->influence_joints[(size_t)v * SINEW_MAX_INFLUENCES +
                                           k] = (uint16_t)(k ? 0 : head),
                                           mesh->influence_weights[(size_t)v *
                                                                       SINEW_MAX_INFLUENCES +
                                                                   k] = k ? 0.0f : 1.0f;
            }
        for (uint32_t r = 0; r + 1 < rings; r++)
            for (uint32_t q = 0; q < sides; q++) {
                const uint32_t i0 = first + r * sides + q, i1 = first + r * sides + (q + 1) % sides;
                uint32_t *tri = &mesh->triangles[(size_t)t * 3];
                tri[0] = i0, tri[1] = i1, tri[2] = i0 + sides;
                tri[3] = i1, tri[4] = i1 + sides, tri[5] = i0 + sides;
                t += 2;
            }
    }
    mesh->vertex_count = V, mesh->triangle_count = T;
    mesh->ranges[0].vertex_count = V, mesh->ranges[0].triangle_count = T;
    sinew_model_update_size(m);
}

/* The same creature, other meshes: the rig's mesh is a coarser copy of the source's surface,
 * a finer one, or the source's with horns the source lacks (which follow the head, the
 * nearest source skin). Played Q (keys and midpoints) reaches 99% on each. */
static void test_other_meshes_of_one_creature(void **state)
{
    (void)state;
    fixture_params p = fixture_default();
    sinew_model *src = fixture_creature(&p);
    fixture_params coarse_p = p, fine_p = p;
    coarse_p.rings = 5, coarse_p.sides = 7;
    fine_p.rings = 23, fine_p.sides = 25;
    sinew_model *targets[3] = {fixture_creature(&coarse_p), fixture_creature(&fine_p),
                               fixture_creature(&p)};
    add_horns(targets[2], 9);
    const char *what[3] = {"decimated copy", "subdivided copy", "copy with horns"};
    for (int i = 0; i < 3; i++) {
        sinew_model *rig = targets[i];
        sinew_solve_clip_result res;
        const sinew_solve_quality played = solve_played(src, rig, &res);
        fprintf(stderr, "  %-16s %5u vertices: Q as played %.3f%%, mean %.4f%%, max %.3f%%\n",
                what[i], rig->mesh.vertex_count, 100 * played.q, 100 * played.mean_error,
                100 * played.max_error);
        assert_true(played.q >= 0.99);
        sinew_solve_clip_result_free(&res);
        sinew_model_free(rig);
    }
    sinew_model_free(src);
}

/* --max-vertices: a fit on an even subset still reaches zero in the control and the same
 * quality on a coarser rig (quality measured on every vertex). */
static void test_max_vertices(void **state)
{
    (void)state;
    fixture_params p = fixture_default();
    sinew_model *src = fixture_creature(&p);
    sinew_model *coarse = fixture_creature(&p);
    fixture_merge_chain(coarse, "Tail", 1, 2);
    sinew_solve_options opt = {0};
    opt.max_vertices = 600;
    sinew_solve_clip_result a, b, c;
    solve_or_fail(src, src, NULL, &opt, &a);
    print_result("control, 600 vertices fitted", &a);
    assert_true(a.quality.mean_error <= 1e-4 && a.quality.q >= 0.998);
    uint32_t *nearest = malloc(coarse->mesh.vertex_count * sizeof *nearest);
    assert_int_equal(sinew_solve_correspond(src, coarse, NULL, nearest, NULL, NULL), SINEW_OK);
    solve_or_fail(src, coarse, nearest, &opt, &b);
    solve_or_fail(src, coarse, nearest, NULL, &c);
    print_result("coarse, 600 vertices fitted", &b);
    assert_true(fabs(b.quality.q - c.quality.q) <= 0.005);
    assert_true(b.quality.q <= c.quality.q + 1e-3); /* fitting fewer cannot do much better */
    free(nearest);
    sinew_solve_clip_result_free(&a);
    sinew_solve_clip_result_free(&b);
    sinew_solve_clip_result_free(&c);
    sinew_model_free(src);
    sinew_model_free(coarse);
}

/* The rig moments uuT and the per-frame moments vuT of one solver against their definitions
 * summed over its constraint vertices one by one; with AVX, the AVX and portable kernels give
 * the same bits. */
static void check_moments(const sinew_model *m, sinew_solver *s, const sinew_vec3 *y)
{
    const sinew_mesh *mesh = &m->mesh;
    const uint32_t J = m->skin.joint_count, C = s->constraint_count;
    assert_true(solve_frame_moments(s, y));
    double d[3] = {0, 0, 0}, yy = 0, size = 0;
    for (uint32_t c = 0; c < C; c++) {
        const uint32_t i = s->constraints[c];
        d[0] += y[i].x, d[1] += y[i].y, d[2] += y[i].z;
        size = fmax(size, sinew_vec3_length(mesh->positions[i]));
    }
    for (int r = 0; r < 3; r++)
        d[r] /= C;
    double *vut = calloc((size_t)J * 12, sizeof *vut);
    double *uut = calloc((size_t)J * J * 16, sizeof *uut);
    for (uint32_t c = 0; c < C; c++) {
        const uint32_t i = s->constraints[c];
        const double q[3] = {y[i].x - d[0], y[i].y - d[1], y[i].z - d[2]};
        const double u[4] = {mesh->positions[i].x, mesh->positions[i].y, mesh->positions[i].z, 1};
        yy += q[0] * q[0] + q[1] * q[1] + q[2] * q[2];
        for (int k = 0; k < SINEW_MAX_INFLUENCES; k++) {
            const double w = mesh->influence_weights[(size_t)i * SINEW_MAX_INFLUENCES + k];
            const uint16_t j = mesh->influence_joints[(size_t)i * SINEW_MAX_INFLUENCES + k];
            if (!(w > 0)) continue;
            for (int r = 0; r < 3; r++)
                for (int col = 0; col < 4; col++)
                    vut[(size_t)j * 12 + (size_t)(r * 4 + col)] += w * q[r] * u[col];
            for (int l = 0; l < SINEW_MAX_INFLUENCES; l++) { /* both orders: (j, g) and (g, j) */
                const double v = mesh->influence_weights[(size_t)i * SINEW_MAX_INFLUENCES + l];
                const uint16_t g = mesh->influence_joints[(size_t)i * SINEW_MAX_INFLUENCES + l];
                if (!(v > 0)) continue;
                for (int e = 0; e < 16; e++)
                    uut[((size_t)j * J + g) * 16 + (size_t)e] += w * v * u[e / 4] * u[e % 4];
            }
        }
    }
    for (int r = 0; r < 3; r++)
        assert_true(fabs(s->centre[r] - d[r]) <= 1e-9 * fabs(d[r]) + 1e-12);
    assert_true(fabs(s->yy - yy) <= 1e-9 * yy);
    /* each entry sums C terms of at most |q| |u~| <= (2 size + 0.3) (size + 1): a bound of a
     * thousand roundings per term (the direct sums themselves differ in order) */
    const double tol = 1e-13 * C * (2 * size + 0.3) * (size + 1);
    double worst = 0;
    for (size_t i = 0; i < (size_t)J * 12; i++)
        worst = fmax(worst, fabs(s->vut[i] - vut[i]));
    double worst_uut = 0, tol_uut = 1e-13 * C * (size + 1) * (size + 1);
    uint32_t nonzero = 0;
    for (size_t jk = 0; jk < (size_t)J * J; jk++)
        for (int e = 0; e < 16; e++)
            nonzero += uut[jk * 16 + (size_t)e] != 0;
    uint32_t stored = 0;
    for (uint32_t p = 0; p < s->pair_count; p++) {
        const solve_pair *pr = &s->pairs[p];
        assert_true(pr->j <= pr->k);
        for (int e = 0; e < 16; e++) {
            worst_uut = fmax(worst_uut,
                             fabs(pr->uut[e] - uut[((size_t)pr->j * J + pr->k) * 16 + (size_t)e]));
            stored += (pr->j == pr->k ? 1u : 2u) *
                      (uut[((size_t)pr->j * J + pr->k) * 16 + (size_t)e] != 0);
        }
    }
    print_message("moments: %u constraints, worst |vuT - direct| %.2e (bound %.2e), |uuT - "
                  "direct| %.2e (bound %.2e)\n",
                  C, worst, tol, worst_uut, tol_uut);
    assert_true(worst <= tol);
    assert_true(worst_uut <= tol_uut);
    assert_int_equal(stored, nonzero); /* every pair that shares a vertex is there */
    if (s->simd) {                     /* set where moments_avx.c is built and the CPU has AVX */
        double *fast = malloc((size_t)J * 12 * sizeof *fast), centre[3], fast_yy = s->yy;
        memcpy(fast, s->vut, (size_t)J * 12 * sizeof *fast);
        memcpy(centre, s->centre, sizeof centre);
        s->simd = 0;
        assert_true(solve_frame_moments(s, y));
        s->simd = 1;
        assert_memory_equal(fast, s->vut, (size_t)J * 12 * sizeof *fast);
        assert_memory_equal(centre, s->centre, sizeof centre);
        assert_memory_equal(&fast_yy, &s->yy, sizeof fast_yy);
        free(fast);
        for (uint32_t g = 0; g < s->block_group[s->block_count]; g++) {
            double rig[2][SOLVE_GROUP_PAIRS][12], sum[2][SOLVE_GROUP_JOINTS][4];
            solve_group_rig_moments(s, 1, &s->group[g], rig[0], sum[0]);
            solve_group_rig_moments(s, 0, &s->group[g], rig[1], sum[1]);
            assert_memory_equal(rig[0], rig[1], sizeof rig[0]);
            assert_memory_equal(sum[0], sum[1], sizeof sum[0]);
        }
        print_message("moments: the AVX and portable kernels agree to the bit\n");
    }
    free(vut);
    free(uut);
}

/* The moments on a shuffled mesh of several constraint blocks (its joints' groups scattered
 * over all of them), one vertex naming a joint in two slots, two with more influences than an
 * item holds, targets far from the origin; with every vertex a constraint and with a
 * subsample. */
static void test_moments_direct(void **state)
{
    (void)state;
    fixture_params p = fixture_default();
    p.rings = 20;
    p.sides = 40; /* 34,400 vertices: nine blocks of the per-frame pass */
    sinew_model *m = fixture_creature(&p);
    fixture_shuffle(m, 7);
    sinew_mesh *mesh = &m->mesh;
    const uint32_t V = mesh->vertex_count;
    /* vertex 5: its first influence split over two slots naming the same joint */
    float *w5 = &mesh->influence_weights[5 * SINEW_MAX_INFLUENCES];
    uint16_t *j5 = &mesh->influence_joints[5 * SINEW_MAX_INFLUENCES];
    w5[SINEW_MAX_INFLUENCES - 1] = 0.5f * w5[0];
    j5[SINEW_MAX_INFLUENCES - 1] = j5[0];
    w5[0] *= 0.5f;
    /* vertices 9 and 4,000: six and seven joints, in decreasing joint order (items of four
     * and two, four and three joints) */
    const uint32_t many[2] = {9, 4000}, joints[2] = {6, 7};
    for (int v = 0; v < 2; v++)
        for (uint32_t k = 0; k < SINEW_MAX_INFLUENCES; k++) {
            mesh->influence_weights[many[v] * SINEW_MAX_INFLUENCES + k] =
                k < joints[v] ? (float)(k + 1) / 28.0f : 0;
            mesh->influence_joints[many[v] * SINEW_MAX_INFLUENCES + k] =
                (uint16_t)(k < joints[v] ? 20 - 3 * k : 0);
        }
    sinew_vec3 *y = malloc(V * sizeof *y);
    uint32_t seed = 3;
    for (uint32_t i = 0; i < V; i++)
        y[i] = (sinew_vec3){mesh->positions[i].x + 300.0f + 0.1f * fixture_rand(&seed),
                            mesh->positions[i].y - 0.1f * fixture_rand(&seed),
                            mesh->positions[i].z + 0.1f * fixture_rand(&seed)};
    sinew_solver *s = NULL;
    assert_int_equal(sinew_solver_create(m, NULL, &s, NULL), SINEW_OK);
    assert_int_equal(s->constraint_count, V);
    assert_true(s->block_count > 1);
    check_moments(m, s, y);
    sinew_solver_free(s);
    sinew_solve_options opt = {0};
    opt.max_vertices = V / 3; /* every third vertex: no block of consecutive vertices */
    assert_int_equal(sinew_solver_create(m, &opt, &s, NULL), SINEW_OK);
    assert_int_equal(s->constraint_count, V / 3);
    check_moments(m, s, y);
    free(y);
    sinew_solver_free(s);
    sinew_model_free(m);
}

/* Degenerate bones: a joint whose weighted points are collinear has a free spin about the
 * line; the tie-break keeps it where it was, so the answer stays finite, continuous and exact
 * where it is determined. */
static void test_degenerate_bone(void **state)
{
    (void)state;
    fixture_params p = fixture_default();
    sinew_model *m = fixture_creature(&p);
    const int32_t ear = sinew_model_find_node(m, "EarL2"), base = sinew_model_find_node(m, "EarL1");
    assert_true(ear > 0 && base > 0);
    const uint16_t j = (uint16_t)m->nodes[ear].joint;
    const sinew_vec3 a = sinew_mat4_translation(&m->skin.joints[m->nodes[base].joint].bind);
    const sinew_vec3 b = sinew_mat4_translation(&m->skin.joints[j].bind);
    const sinew_vec3 axis = sinew_vec3_normalize_or(sinew_vec3_sub(b, a), sinew_vec3_make(0, 1, 0));
    uint32_t moved = 0;
    for (uint32_t v = 0; v < m->mesh.vertex_count; v++)
        for (int k = 0; k < SINEW_MAX_INFLUENCES; k++) {
            const size_t e = (size_t)v * SINEW_MAX_INFLUENCES + k;
            if (m->mesh.influence_weights[e] > 0 && m->mesh.influence_joints[e] == j) {
                const sinew_vec3 d = sinew_vec3_sub(m->mesh.positions[v], a);
                m->mesh.positions[v] = sinew_vec3_madd(a, axis, sinew_vec3_dot(d, axis));
                moved++;
                break;
            }
        }
    assert_true(moved >= 3);
    sinew_model_update_size(m);
    sinew_solve_clip_result res;
    solve_or_fail(m, m, NULL, NULL, &res);
    print_result("control, collinear ear bone", &res);
    assert_true(res.quality.mean_error <= 1e-4 && res.quality.max_error <= 1e-3);
    for (uint32_t f = 0; f < res.frame_count; f++)
        for (uint32_t n = 0; n < m->node_count; n++) {
            const sinew_transform t = res.poses[(size_t)f * m->node_count + n];
            assert_true(isfinite(t.rotation.x) && isfinite(t.rotation.w) &&
                        isfinite(t.translation.x) && isfinite(t.scale.y));
        }
    /* the undetermined spin does not jump: frame to frame, the ear's solved skinning
     * rotation turns by little more than the artist's does */
    sinew_transform *pose = malloc(m->node_count * sizeof *pose);
    sinew_mat4 *world = malloc(m->node_count * sizeof *world);
    sinew_quat prev_art = sinew_quat_identity(), prev_sol = prev_art;
    for (uint32_t f = 0; f < res.frame_count; f++) {
        sinew_clip_sample(m, &m->clips[0], res.times[f], pose);
        sinew_pose_to_world(m, pose, world);
        sinew_mat4 art = sinew_mat4_mul(&world[ear], &m->skin.joints[j].inverse_bind);
        const sinew_quat qa = sinew_quat_from_mat4(&art);
        const sinew_quat qs =
            sinew_quat_from_mat4(&res.skin_matrices[(size_t)f * m->skin.joint_count + j]);
        if (f > 0) {
            const float sa = sinew_quat_angle(sinew_quat_mul(sinew_quat_conjugate(prev_art), qa));
            const float ss = sinew_quat_angle(sinew_quat_mul(sinew_quat_conjugate(prev_sol), qs));
            assert_true(ss <= sa + 0.05f);
        }
        prev_art = qa;
        prev_sol = qs;
    }
    free(pose);
    free(world);
    sinew_solve_clip_result_free(&res);
    sinew_model_free(m);
}

/* Bad input fails with a message, never a crash. */
static void test_bad_input(void **state)
{
    (void)state;
    fixture_params p = fixture_default();
    sinew_model *m = fixture_creature(&p);
    sinew_error err = {0};
    sinew_solver *s = NULL;
    const uint32_t V = m->mesh.vertex_count;
    m->mesh.vertex_count = 0;
    assert_int_equal(sinew_solver_create(m, NULL, &s, &err), SINEW_ERR_UNSUPPORTED);
    assert_null(s);
    assert_true(strlen(err.message) > 0);
    m->mesh.vertex_count = V;
    assert_int_equal(sinew_solver_create(m, NULL, &s, &err), SINEW_OK);
    sinew_vec3 *y = calloc(V, sizeof *y);
    sinew_mat4 *M = calloc(m->skin.joint_count, sizeof *M);
    y[7].y = NAN;
    assert_int_equal(sinew_solver_frame(s, y, M, NULL, &err), SINEW_ERR_INVALID_VALUE);
    assert_non_null(strstr(err.message, "finite"));
    y[7].y = 0;
    assert_int_equal(sinew_solver_frame(s, y, M, NULL, &err), SINEW_OK); /* all at one point */
    for (uint32_t k = 0; k < m->skin.joint_count; k++)
        assert_true(sinew_mat4_is_finite(&M[k]));
    sinew_solver_free(s);
    assert_int_equal(sinew_solve_targets(m, &m->clips[0], &m->clips[0].duration, 1, m,
                                         (const uint32_t *)NULL, NULL, y, &err),
                     SINEW_OK); /* control form */
    sinew_model *other = fixture_creature(&p);
    assert_int_equal(
        sinew_solve_targets(m, &m->clips[0], &m->clips[0].duration, 1, other, NULL, NULL, y, &err),
        SINEW_ERR_ARGUMENT); /* another rig needs a correspondence */
    free(y);
    free(M);
    sinew_model_free(m);
    sinew_model_free(other);
}

/* Meshes that do not overlap are refused with a message naming the distances. */
static void test_refuse_far(void **state)
{
    (void)state;
    fixture_params p = fixture_default();
    sinew_model *src = fixture_creature(&p);
    sinew_model *far = fixture_creature(&p);
    for (uint32_t i = 0; i < far->mesh.vertex_count; i++)
        far->mesh.positions[i].x += 0.1f * src->size.diagonal;
    sinew_model_update_size(far);
    uint32_t *nearest = malloc(far->mesh.vertex_count * sizeof *nearest);
    sinew_error err = {0};
    assert_int_equal(sinew_solve_correspond(src, far, NULL, nearest, NULL, &err),
                     SINEW_ERR_INVALID_VALUE);
    assert_non_null(strstr(err.message, "do not overlap"));
    /* 1% apart is accepted */
    for (uint32_t i = 0; i < far->mesh.vertex_count; i++)
        far->mesh.positions[i].x -= 0.09f * src->size.diagonal;
    assert_int_equal(sinew_solve_correspond(src, far, NULL, nearest, NULL, &err), SINEW_OK);
    free(nearest);
    sinew_model_free(src);
    sinew_model_free(far);
}

/* Frame times: the union of key times, and a fixed rate ending on the duration. */
static void test_frame_times(void **state)
{
    (void)state;
    float t0[3] = {0, 0.5f, 1.0f}, t1[4] = {0, 0.25f, 0.50001f, 0.75f};
    float v[16] = {0};
    sinew_channel ch[2] = {{0, SINEW_PATH_TRANSLATION, SINEW_INTERP_LINEAR, 3, t0, v},
                           {0, SINEW_PATH_TRANSLATION, SINEW_INTERP_LINEAR, 4, t1, v}};
    sinew_clip clip = {"c", -1, 1.0f, 2, ch};
    float times[8];
    assert_int_equal(sinew_solve_frame_times(&clip, 0, NULL, 0), 5);
    assert_int_equal(sinew_solve_frame_times(&clip, 0, times, 8), 5);
    const float want[5] = {0, 0.25f, 0.5f, 0.75f, 1.0f};
    for (int i = 0; i < 5; i++)
        assert_true(fabsf(times[i] - want[i]) < 1e-6f);
    assert_int_equal(sinew_solve_frame_times(&clip, 10, times, 8), 11);
    assert_true(fabsf(times[7] - 0.7f) < 1e-6f);
}

/* A clip of more key times than a solve takes: a clip hours long (keys at 24 per second for
 * 40000 keys, 28 minutes) is refused by name before any frame is allocated, where a frame of
 * every key time once asked 790 MB for a million; one whose channels are keyed apart (each
 * at 24 per second, offset by a millisecond per channel, so the union has 20 times the
 * frames) is resampled at its own rate and still solved to zero. */
static void test_frames_are_bounded(void **state)
{
    (void)state;
    fixture_params p = fixture_default();
    p.keys = 40000;
    sinew_model *m = fixture_creature(&p);
    sinew_solve_clip_result res;
    sinew_error err = {0};
    assert_int_equal(sinew_solve_clip(m, &m->clips[0], m, NULL, NULL, &res, &err),
                     SINEW_ERR_INVALID_VALUE);
    fprintf(stderr, "%s\n", err.message);
    assert_non_null(strstr(err.message, "\"Walk\""));
    assert_non_null(strstr(err.message, "lasts 1666"));
    assert_non_null(strstr(err.message, "frames at 24"));
    assert_null(res.times);
    sinew_model_free(m);

    p = fixture_default();
    p.keys = 49;
    m = fixture_creature(&p);
    sinew_clip *clip = &m->clips[0];
    for (uint32_t c = 0; c < clip->channel_count; c++)
        for (uint32_t k = 0; k < clip->channels[c].key_count; k++)
            clip->channels[c].times[k] += 0.001f * (float)c;
    clip->duration += 0.001f * (float)(clip->channel_count - 1);
    const uint32_t union_count = sinew_solve_frame_times(clip, 0, NULL, 0);
    assert_true(union_count > 40 * 19);
    sinew_solve_options opt = {0};
    opt.max_frames = 200;
    solve_or_fail(m, m, NULL, &opt, &res);
    print_result("resampled (keys apart)", &res);
    assert_true(res.plan.resampled);
    assert_int_equal(res.plan.key_times, opt.max_frames + 1);
    assert_true(fabsf(res.plan.rate - 24.0f) < 1e-3f);
    assert_true(res.frame_count >= 49 && res.frame_count <= 51);
    assert_true(res.quality.q >= 0.998);
    sinew_solve_clip_result_free(&res);
    /* the same clip within the bound keeps its key times */
    opt.max_frames = union_count;
    solve_or_fail(m, m, NULL, &opt, &res);
    assert_false(res.plan.resampled);
    assert_int_equal(res.frame_count, union_count);
    sinew_solve_clip_result_free(&res);
    sinew_model_free(m);

    /* A duration beyond any count: the frame times saturate instead of overflowing (the old
     * float-to-integer conversion was undefined), and the plan refuses it. */
    float t[2] = {0, 1e30f}, v[8] = {0, 0, 0, 1, 0, 0, 0, 1};
    sinew_channel ch = {0, SINEW_PATH_ROTATION, SINEW_INTERP_LINEAR, 2, t, v};
    sinew_clip far = {"Far", -1, 1e30f, 1, &ch};
    float times[4];
    assert_int_equal(sinew_solve_frame_times(&far, 30, times, 4), UINT32_MAX);
    assert_true(times[3] == 0.1f);
    sinew_solve_frame_plan plan;
    assert_int_equal(sinew_solve_plan_frames(&far, 30, 0, &plan, &err), SINEW_ERR_INVALID_VALUE);
    assert_non_null(strstr(err.message, "\"Far\""));
    /* at its two key times it is two frames: nothing to bound */
    assert_int_equal(sinew_solve_plan_frames(&far, 0, 0, &plan, &err), SINEW_OK);
    assert_int_equal(plan.frame_count, 2);
    far.duration = INFINITY;
    assert_int_equal(sinew_solve_plan_frames(&far, 0, 0, &plan, &err), SINEW_ERR_INVALID_VALUE);
}

/* ---- alignment ---- */

/* A known similarity x' = s R x + t, R = R_y(yaw) R_x(tilt): a turn about the vertical after
 * laying the up axis over (tilt -90 degrees about +X takes a Z-up bind space to Y-up). */
typedef struct known_similarity {
    double s, yaw; /* scale; radians about +Y */
    double t[3];
    double tilt; /* radians about +X, applied first; 0 in most cases */
} known_similarity;

/* R as a quaternion (x, y, z, w) in double: q_y(yaw) q_x(tilt). */
static void known_q(const known_similarity *k, double q[4])
{
    const double cy = cos(0.5 * k->yaw), sy = sin(0.5 * k->yaw);
    const double cx = cos(0.5 * k->tilt), sx = sin(0.5 * k->tilt);
    q[0] = cy * sx, q[1] = sy * cx, q[2] = -sy * sx, q[3] = cy * cx;
}

static sinew_quat known_quat(const known_similarity *k)
{
    double q[4];
    known_q(k, q);
    return sinew_quat_make((float)q[0], (float)q[1], (float)q[2], (float)q[3]);
}

static sinew_vec3 known_apply(const known_similarity *k, sinew_vec3 p)
{
    double q[4];
    known_q(k, q);
    /* v' = v + 2 w (u x v) + 2 u x (u x v), u = q.xyz, in double */
    const double v[3] = {p.x, p.y, p.z};
    const double c1[3] = {q[1] * v[2] - q[2] * v[1], q[2] * v[0] - q[0] * v[2],
                          q[0] * v[1] - q[1] * v[0]};
    const double c2[3] = {q[1] * c1[2] - q[2] * c1[1], q[2] * c1[0] - q[0] * c1[2],
                          q[0] * c1[1] - q[1] * c1[0]};
    double r[3];
    for (int i = 0; i < 3; i++)
        r[i] = k->s * (v[i] + 2.0 * q[3] * c1[i] + 2.0 * c2[i]) + k->t[i];
    return sinew_vec3_make((float)r[0], (float)r[1], (float)r[2]);
}

/* Moves a fixture creature by `k` as a whole rig in other units and place: positions, the
 * root (non-joint) node's TRS, every joint's bind and inverse bind matrix, so that every
 * pose of it is the original pose moved by k (the same rig, re-exported). */
static void move_rig(sinew_model *m, const known_similarity *k)
{
    for (uint32_t i = 0; i < m->mesh.vertex_count; i++)
        m->mesh.positions[i] = known_apply(k, m->mesh.positions[i]);
    sinew_transform st = sinew_transform_identity();
    st.rotation = known_quat(k);
    st.scale = sinew_vec3_make((float)k->s, (float)k->s, (float)k->s);
    st.translation = sinew_vec3_make((float)k->t[0], (float)k->t[1], (float)k->t[2]);
    const sinew_mat4 S = sinew_mat4_from_transform(st);
    sinew_mat4 Sinv;
    assert_true(sinew_mat4_invert_affine(&S, &Sinv));
    assert_true(m->nodes[0].joint < 0 && m->nodes[0].parent < 0);
    for (int which = 0; which < 2; which++) {
        sinew_transform *t = which ? &m->nodes[0].rest : &m->nodes[0].local;
        t->translation = sinew_vec3_add(
            st.translation,
            sinew_vec3_scale(sinew_quat_rotate(st.rotation, t->translation), (float)k->s));
        t->rotation = sinew_quat_normalize(sinew_quat_mul(st.rotation, t->rotation));
        t->scale = sinew_vec3_scale(t->scale, (float)k->s);
    }
    for (uint32_t j = 0; j < m->skin.joint_count; j++) {
        sinew_joint *jt = &m->skin.joints[j];
        jt->inverse_bind = sinew_mat4_mul(&jt->inverse_bind, &Sinv);
    }
    assert_int_equal(sinew_model_update_rest(m, NULL), SINEW_OK);
    sinew_model_update_size(m);
}

/* Angle of the rotation between the alignment's quaternion and the known turn, degrees, in
 * double (acos of a float dot product cannot resolve less than ~0.04 degrees). */
static double rotation_error_degrees(sinew_quat a, const known_similarity *k)
{
    double qk[4];
    known_q(k, qk);
    const double qa[4] = {a.x, a.y, a.z, a.w};
    /* conj(qk) * qa */
    const double w = qk[3] * qa[3] + qk[0] * qa[0] + qk[1] * qa[1] + qk[2] * qa[2];
    const double x = qk[3] * qa[0] - qk[0] * qa[3] - qk[1] * qa[2] + qk[2] * qa[1];
    const double y = qk[3] * qa[1] - qk[1] * qa[3] - qk[2] * qa[0] + qk[0] * qa[2];
    const double z = qk[3] * qa[2] - qk[2] * qa[3] - qk[0] * qa[1] + qk[1] * qa[0];
    return 2.0 * atan2(sqrt(x * x + y * y + z * z), fabs(w)) * 180.0 / SINEW_PI;
}

static void check_alignment(const sinew_solve_alignment *a, const known_similarity *k,
                            double diagonal, double scale_tol, double degrees_tol,
                            double offset_tol, const char *what)
{
    const sinew_vec3 t = a->translation;
    const double dt = sqrt((t.x - k->t[0]) * (t.x - k->t[0]) + (t.y - k->t[1]) * (t.y - k->t[1]) +
                           (t.z - k->t[2]) * (t.z - k->t[2]));
    const double ds = fabs(a->scale / k->s - 1), dr = rotation_error_degrees(a->rotation, k);
    fprintf(stderr,
            "%s: scale %.6g (want %.6g, rel err %.2e), yaw %.3f deg (rotation err %.4f deg), "
            "translation err %.2e of the diagonal; ICP %u iterations on %u points, start "
            "%u, trimmed mean %.2e of the diagonal\n",
            what, (double)a->scale, k->s, ds, a->yaw * 180.0 / SINEW_PI, dr, dt / diagonal,
            a->iterations, a->points, a->start, a->trimmed_mean / diagonal);
    assert_true(ds <= scale_tol);
    assert_true(dr <= degrees_tol);
    assert_true(dt <= offset_tol * diagonal);
}

/* Largest distance over frames and vertices between rig b skinned by result rb and rig a
 * skinned by ra then moved by k (b is a moved by k). */
static double surface_offset(const sinew_model *a, const sinew_solve_clip_result *ra,
                             const sinew_model *b, const sinew_solve_clip_result *rb,
                             const known_similarity *k)
{
    const uint32_t V = a->mesh.vertex_count;
    sinew_vec3 *pa = malloc(V * sizeof *pa), *pb = malloc(V * sizeof *pb);
    double worst = 0;
    for (uint32_t f = 0; f < ra->frame_count; f++) {
        sinew_skin_positions(a, &ra->skin_matrices[(size_t)f * ra->joint_count], pa);
        sinew_skin_positions(b, &rb->skin_matrices[(size_t)f * rb->joint_count], pb);
        for (uint32_t i = 0; i < V; i++) {
            const double d = sinew_vec3_distance(known_apply(k, pa[i]), pb[i]);
            if (d > worst) worst = d;
        }
    }
    free(pa);
    free(pb);
    return worst;
}

/* The same rig in other units, facing and place: the alignment recovers s, R and t, and the
 * solve onto it scores what the solve onto the unmoved rig scores, in the target's units. */
static void test_align_recovers_similarity(void **state)
{
    (void)state;
    fixture_params p = fixture_default();
    sinew_model *src = fixture_creature(&p);
    sinew_model *coarse = fixture_creature(&p);
    fixture_merge_chain(coarse, "Tail", 1, 2);
    const double diag = src->size.diagonal;
    enum { CASES = 3 };
    const known_similarity cases[CASES] = {
        {100.0, SINEW_PI, {50.0 * diag, 0, -20.0 * diag}, 0},       /* cm, turned round, half a
                                                                       diagonal (x100) away */
        {0.01, 0.5 * SINEW_PI, {0.005 * diag, 0.002 * diag, 0}, 0}, /* the other way */
        /* inches, in a Z-up bind space (up laid along +Z), turned a quarter */
        {1.0 / 0.0254, 0.5 * SINEW_PI, {3.0 * diag, -1.0 * diag, 2.0 * diag}, 0.5 * SINEW_PI}};
    static const char *const names[CASES] = {"x100 yaw 180", "x0.01 yaw 90", "x39.37 Z-up yaw 90"};
    uint32_t *nearest = malloc(coarse->mesh.vertex_count * sizeof *nearest);
    sinew_correspondence_stats st;
    sinew_error err = {0};
    assert_int_equal(sinew_solve_correspond(src, coarse, NULL, nearest, &st, &err), SINEW_OK);
    sinew_solve_clip_result plain;
    solve_or_fail(src, coarse, nearest, NULL, &plain);
    print_result("coarse, as placed", &plain);
    for (int c = 0; c < CASES; c++) {
        sinew_model *moved = fixture_creature(&p);
        fixture_merge_chain(moved, "Tail", 1, 2);
        move_rig(moved, &cases[c]);
        const double tdiag = moved->size.diagonal;
        /* the strict form refuses, quickly and with the message */
        assert_int_equal(sinew_solve_correspond(src, moved, NULL, nearest, &st, &err),
                         SINEW_ERR_INVALID_VALUE);
        assert_non_null(strstr(err.message, "do not overlap"));
        sinew_solve_alignment al;
        assert_int_equal(sinew_solve_align(src, moved, NULL, NULL, &al, &err), SINEW_OK);
        char what[64];
        snprintf(what, sizeof what, "align %s", names[c]);
        check_alignment(&al, &cases[c], tdiag, 1e-5, 0.001, 1e-5, what);
        assert_int_equal(sinew_solve_correspond_aligned(src, moved, NULL, NULL, nearest, &st, &err),
                         SINEW_OK);
        assert_true(st.align_tried && st.aligned && !st.identity);
        assert_true(st.mean_distance <= 1e-4 * st.diagonal);
        assert_true(st.placed_mean_distance > SINEW_SOLVE_MAX_MEAN_NEAREST * st.diagonal);
        assert_memory_equal(&st.alignment, &al, sizeof al);       /* deterministic */
        for (uint32_t i = 0; i < src->mesh.vertex_count; i += 97) /* the public map */
            assert_true(
                sinew_vec3_distance(sinew_solve_alignment_apply(&al, src->mesh.positions[i]),
                                    moved->mesh.positions[i]) <= 1e-5 * tdiag);
        sinew_solve_options opt = {0};
        opt.alignment = &st.alignment;
        sinew_solve_clip_result res;
        solve_or_fail(src, moved, nearest, &opt, &res);
        snprintf(what, sizeof what, "coarse, %s aligned", names[c]);
        print_result(what, &res);
        fprintf(stderr, "  Q %.4f%% vs %.4f%% as placed: %.4f points apart\n", 100 * res.quality.q,
                100 * plain.quality.q, 100 * fabs(res.quality.q - plain.quality.q));
        assert_true(fabs(res.quality.q - plain.quality.q) <= 0.0005); /* 0.05 points */
        /* errors in the target's own units: relative to its diagonal, the same numbers */
        assert_true(fabs(res.diagonal / plain.diagonal - cases[c].s) <= 1e-4 * cases[c].s);
        assert_true(fabs(res.quality.mean_error - plain.quality.mean_error) <= 1e-4);
        /* the solved motion is the unmoved solve's, moved by k: every frame's skinned
         * surface; without the alignment the motion happens in the wrong frame */
        sinew_solve_clip_result bad;
        solve_or_fail(src, moved, nearest, NULL, &bad);
        const double off = surface_offset(coarse, &plain, moved, &res, &cases[c]);
        const double off_bad = surface_offset(coarse, &plain, moved, &bad, &cases[c]);
        fprintf(stderr,
                "  surface vs the unmoved solve moved: %.2e of the diagonal (%.2e "
                "without the alignment)\n",
                off / tdiag, off_bad / tdiag);
        assert_true(off <= 1e-4 * tdiag);
        assert_true(off_bad > 0.05 * tdiag);
        sinew_solve_clip_result_free(&bad);
        sinew_solve_clip_result_free(&res);
        sinew_model_free(moved);
    }
    free(nearest);
    sinew_solve_clip_result_free(&plain);
    sinew_model_free(src);
    sinew_model_free(coarse);
}

/* Meshes that overlap as placed are untouched: the aligned entry point gives the strict one's
 * correspondence and the solve the same numbers, bit for bit. */
static void test_align_untouched_when_overlapping(void **state)
{
    (void)state;
    fixture_params p = fixture_default();
    fixture_params hp = p;
    hp.rings = 17;
    hp.sides = 19;
    sinew_model *src = fixture_creature(&p);
    sinew_model *same = fixture_creature(&p);
    sinew_model *hires = fixture_creature(&hp);
    fixture_merge_chain(hires, "Tail", 1, 2);
    const sinew_model *targets[2] = {same, hires};
    for (int c = 0; c < 2; c++) {
        const sinew_model *t = targets[c];
        const uint32_t V = t->mesh.vertex_count;
        uint32_t *a = malloc(V * sizeof *a), *b = malloc(V * sizeof *b);
        sinew_correspondence_stats sa, sb;
        assert_int_equal(sinew_solve_correspond(src, t, NULL, a, &sa, NULL), SINEW_OK);
        assert_int_equal(sinew_solve_correspond_aligned(src, t, NULL, NULL, b, &sb, NULL),
                         SINEW_OK);
        assert_memory_equal(a, b, V * sizeof *a);
        assert_true(sa.mean_distance == sb.mean_distance && sa.max_distance == sb.max_distance);
        assert_int_equal(sa.identity, c == 0);
        assert_int_equal(sb.identity, c == 0);
        assert_false(sb.aligned || sb.align_tried || sb.partial);
        sinew_solve_clip_result ra, rb;
        solve_or_fail(src, t, a, NULL, &ra);
        sinew_solve_options opt = {0};
        opt.alignment = sb.aligned ? &sb.alignment : NULL;
        solve_or_fail(src, t, b, &opt, &rb);
        fprintf(stderr, "%s: Q %.6f%% both ways (bit for bit)\n",
                c == 0 ? "same mesh" : "hi-res overlapping", 100 * ra.quality.q);
        assert_true(ra.quality.q == rb.quality.q && ra.quality.error == rb.quality.error);
        assert_memory_equal(ra.skin_matrices, rb.skin_matrices,
                            (size_t)ra.frame_count * ra.joint_count * sizeof(sinew_mat4));
        sinew_solve_clip_result_free(&ra);
        sinew_solve_clip_result_free(&rb);
        free(a);
        free(b);
    }
    sinew_model_free(src);
    sinew_model_free(same);
    sinew_model_free(hires);
}

/* A target that lacks a part (5 tail joints instead of 8: 3 of 43 tubes missing) still
 * aligns: trimming drops the source's extra tail. Twice: the same vertices (the similarity is
 * then exact), and a finer mesh of the same surface (17 x 19 rings instead of 10 x 11: no
 * vertex in common, so the answer is as good as the sampling). */
static void test_align_missing_part(void **state)
{
    (void)state;
    fixture_params p = fixture_default();
    sinew_model *src = fixture_creature(&p);
    const double diag = src->size.diagonal;
    const known_similarity k = {2.54, -0.5 * SINEW_PI, {0.5 * diag, -0.3 * diag, 0.1 * diag}, 0};
    for (int c = 0; c < 2; c++) {
        fixture_params short_p = p;
        short_p.tail = 5;
        if (c == 1) {
            short_p.rings = 17;
            short_p.sides = 19;
        }
        sinew_model *target = fixture_creature(&short_p);
        move_rig(target, &k);
        sinew_error err = {0};
        uint32_t *nearest = malloc(target->mesh.vertex_count * sizeof *nearest);
        sinew_correspondence_stats st;
        assert_int_equal(
            sinew_solve_correspond_aligned(src, target, NULL, NULL, nearest, &st, &err), SINEW_OK);
        assert_true(st.aligned);
        if (c == 0)
            check_alignment(&st.alignment, &k, target->size.diagonal, 1e-4, 0.01, 1e-4,
                            "align, target missing 3 tail segments");
        else
            check_alignment(&st.alignment, &k, target->size.diagonal, 2e-3, 0.5, 2e-3,
                            "align, target missing 3 tail segments, finer mesh");
        fprintf(stderr, "  aligned mean nearest %.2e of the diagonal\n",
                st.mean_distance / st.diagonal);
        assert_true(st.mean_distance <= (c == 0 ? 1e-6 : 0.01) * st.diagonal);
        free(nearest);
        sinew_model_free(target);
    }
    sinew_model_free(src);
}

/* Still refused, naming both distances: a mesh stretched 3x along one axis, and two
 * different creatures (sinew's procedural lizard onto the test quadruped). */
static void test_align_refuses_different(void **state)
{
    (void)state;
    fixture_params p = fixture_default();
    sinew_model *src = fixture_creature(&p);
    sinew_model *wide = fixture_creature(&p);
    for (uint32_t i = 0; i < wide->mesh.vertex_count; i++)
        wide->mesh.positions[i].x *= 3.0f;
    sinew_model_update_size(wide);
    sinew_model *lizard = NULL;
    assert_int_equal(sinew_creature_build(SINEW_CREATURE_LIZARD, NULL, &lizard, NULL, NULL),
                     SINEW_OK);
    const sinew_model *pairs[2][2] = {{src, wide}, {lizard, src}};
    for (int c = 0; c < 2; c++) {
        const sinew_model *s = pairs[c][0], *t = pairs[c][1];
        uint32_t *nearest = malloc(t->mesh.vertex_count * sizeof *nearest);
        sinew_correspondence_stats st;
        sinew_error err = {0};
        assert_int_equal(sinew_solve_correspond_aligned(s, t, NULL, NULL, nearest, &st, &err),
                         SINEW_ERR_INVALID_VALUE);
        fprintf(stderr, "%s: %s\n", c == 0 ? "stretched 3x" : "lizard onto the quadruped",
                err.message);
        assert_non_null(strstr(err.message, "do not overlap"));
        assert_non_null(strstr(err.message, "after the best similarity alignment"));
        assert_true(st.align_tried && !st.aligned);
        assert_true(st.mean_distance > SINEW_SOLVE_MAX_MEAN_NEAREST * st.diagonal);
        /* --no-align: the strict refusal, no alignment tried */
        sinew_solve_align_options off = {0};
        off.disable = 1;
        assert_int_equal(sinew_solve_correspond_aligned(s, t, &off, NULL, nearest, &st, &err),
                         SINEW_ERR_INVALID_VALUE);
        assert_false(st.align_tried);
        assert_null(strstr(err.message, "alignment"));
        free(nearest);
    }
    /* the control form takes no alignment */
    sinew_solve_alignment al = {1, {0, 0, 0, 1}, {0, 0, 0}, 0, 0, 0, 0, 0, 0};
    sinew_vec3 *y = calloc(src->mesh.vertex_count, sizeof *y);
    sinew_error err = {0};
    assert_int_equal(sinew_solve_targets_aligned(src, &src->clips[0], &src->clips[0].duration, 1,
                                                 src, NULL, &al, NULL, y, &err),
                     SINEW_ERR_ARGUMENT);
    free(y);
    sinew_model_free(src);
    sinew_model_free(wide);
    sinew_model_free(lizard);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_horn),
        cmocka_unit_test(test_horn_from),
        cmocka_unit_test(test_control),
        cmocka_unit_test(test_played_between_frames),
        cmocka_unit_test(test_reduced_keys),
        cmocka_unit_test(test_unweighted_root),
        cmocka_unit_test(test_barely_weighted_root),
        cmocka_unit_test(test_keys_settle_on_a_slow_clip),
        cmocka_unit_test(test_rotation_only_control),
        cmocka_unit_test(test_coarser_and_rotation_only),
        cmocka_unit_test(test_shuffled_and_resolution),
        cmocka_unit_test(test_other_meshes_of_one_creature),
        cmocka_unit_test(test_max_vertices),
        cmocka_unit_test(test_moments_direct),
        cmocka_unit_test(test_degenerate_bone),
        cmocka_unit_test(test_bad_input),
        cmocka_unit_test(test_refuse_far),
        cmocka_unit_test(test_frame_times),
        cmocka_unit_test(test_frames_are_bounded),
        cmocka_unit_test(test_align_recovers_similarity),
        cmocka_unit_test(test_align_untouched_when_overlapping),
        cmocka_unit_test(test_align_missing_part),
        cmocka_unit_test(test_align_refuses_different),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
