/* Surface solve on the shared models (acceptance) and the `sinew solve` CLI: the
 * control run on every model and clip, a coarser Khronos fox (tail merged), rotation-only
 * bone lengths, the written tracks read back through io, the tail pipeline, and the CLI's
 * exit codes and outputs. Skips, saying so, when ../shared/models is absent (the CLI's
 * alignment test uses procedural creatures and always runs). */
#include "test_util.h"

#include "sinew/document.h"
#include "sinew/solve.h"

#include <math.h>

#include "solve_fixture.h" /* fixture_shuffle */

static const char *models[] = {"Fox.glb",
                               "quaternius_Fox.glb",
                               "quaternius_TRex.glb",
                               "quaternius_Velociraptor.glb",
                               "RiggedSimple.glb",
                               "SimpleSkin.gltf",
                               "CesiumMan.glb",
                               "RobotExpressive.glb",
                               "notail/Fox.glb",
                               "notail/Fox_parent.glb",
                               "notail/quaternius_Fox.glb",
                               "notail/quaternius_TRex.glb",
                               "notail/quaternius_Velociraptor.glb"};

static int load(const char *dir, const char *file, sinew_document **doc, sinew_model **model)
{
    char path[4096];
    test_path(path, sizeof path, dir, file);
    if (!test_file_exists(path)) {
        fprintf(stderr, "note: %s is absent: skipped\n", path);
        return 0;
    }
    sinew_error err = {0};
    if (sinew_document_load_file(path, NULL, doc, &err) != SINEW_OK ||
        sinew_model_from_document(*doc, NULL, model, &err) != SINEW_OK) {
        fprintf(stderr, "%s: %s\n", path, err.message);
        fail();
    }
    return 1;
}

static void solve_ok(const sinew_model *src, const sinew_clip *clip, const sinew_model *rig,
                     const uint32_t *nearest, const sinew_solve_options *opt,
                     sinew_solve_clip_result *res)
{
    sinew_error err = {0};
    sinew_result r = sinew_solve_clip(src, clip, rig, nearest, opt, res, &err);
    if (r != SINEW_OK) fprintf(stderr, "solve %s: %s\n", clip->name, err.message);
    assert_int_equal(r, SINEW_OK);
}

/* The control run on every model and clip: mean <= 0.01%, worst <= 0.1%, Q >= 99.8%. */
static void test_control_every_model(void **state)
{
    (void)state;
    const char *dir = test_models_dir();
    if (!dir) test_skip();
    uint32_t clips = 0;
    for (size_t m = 0; m < sizeof models / sizeof models[0]; m++) {
        sinew_document *doc = NULL;
        sinew_model *model = NULL;
        if (!load(dir, models[m], &doc, &model)) continue;
        for (uint32_t c = 0; c < model->clip_count; c++, clips++) {
            sinew_solve_clip_result res;
            solve_ok(model, &model->clips[c], model, NULL, NULL, &res);
            fprintf(stderr,
                    "control %-28s %-30s frames %3u sweeps %5.1f Q %8.4f%% mean %.2e%% "
                    "max %.2e%%\n",
                    models[m], model->clips[c].name, res.frame_count, res.sweeps_per_frame,
                    100 * res.quality.q, 100 * res.quality.mean_error, 100 * res.quality.max_error);
            assert_true(res.quality.mean_error <= 1e-4);
            assert_true(res.quality.max_error <= 1e-3);
            assert_true(res.quality.q >= 0.998);
            assert_true(res.reskin_mismatch <= 1e-4 * res.diagonal);
            sinew_solve_clip_result_free(&res);
        }
        sinew_model_free(model);
        sinew_document_free(doc);
    }
    fprintf(stderr, "control: %u clips\n", clips);
}

/* 1 for every joint with skin weight */
static void weighted_joints(const sinew_model *m, uint8_t *weighted)
{
    memset(weighted, 0, m->skin.joint_count);
    for (uint32_t v = 0; v < m->mesh.vertex_count; v++)
        for (int s = 0; s < SINEW_MAX_INFLUENCES; s++)
            if (m->mesh.influence_weights[(size_t)v * SINEW_MAX_INFLUENCES + s] > 0)
                weighted[m->mesh.influence_joints[(size_t)v * SINEW_MAX_INFLUENCES + s]] = 1;
}

/* Gives the weight of joints `from` (node names) to joint `into`; returns how many moved. */
static uint32_t merge_joints(sinew_model *m, const char *into, const char *const *from, int n)
{
    const int32_t keep = sinew_model_find_node(m, into);
    if (keep < 0 || m->nodes[keep].joint < 0) return 0;
    uint32_t moved = 0;
    for (int f = 0; f < n; f++) {
        const int32_t node = sinew_model_find_node(m, from[f]);
        if (node < 0 || m->nodes[node].joint < 0) return 0;
        for (size_t e = 0; e < (size_t)m->mesh.vertex_count * SINEW_MAX_INFLUENCES; e++)
            if (m->mesh.influence_weights[e] > 0 &&
                m->mesh.influence_joints[e] == (uint16_t)m->nodes[node].joint) {
                m->mesh.influence_joints[e] = (uint16_t)m->nodes[keep].joint;
                moved++;
            }
    }
    return moved;
}

/* Reduced keys on a rig under a scaled armature (FBX2glTF's cow: joints' local translations
 * are in the armature's units, not the world's): the translation tolerance must be a world
 * length, so the cow's control Walk as written stays close to the solve, with fewer keys.
 * Before the tolerance took the armature's scale into account it played Q 90.4%. */
static void test_reduced_keys_scaled_armature(void **state)
{
    (void)state;
    const char *dir = test_models_dir();
    if (!dir) test_skip();
    sinew_document *doc = NULL;
    sinew_model *cow = NULL;
    if (!load(dir, "quaternius_Cow.glb", &doc, &cow)) test_skip();
    const int32_t walk = sinew_model_find_clip(cow, "AnimalArmature|Walk");
    assert_true(walk >= 0);
    sinew_solve_clip_result res;
    solve_ok(cow, &cow->clips[walk], cow, NULL, NULL, &res);
    sinew_solve_quality played;
    sinew_error err = {0};
    assert_int_equal(sinew_solve_quality_played(cow, &cow->clips[walk], cow, NULL, NULL, &res,
                                                &played, NULL, &err),
                     SINEW_OK);
    fprintf(stderr, "cow control Walk, reduced keys: %llu of %llu, Q as played %.3f%%\n",
            (unsigned long long)res.keys.written, (unsigned long long)res.keys.frame_keys,
            100 * played.q);
    assert_true(res.keys.written < res.keys.frame_keys / 2);
    assert_true(played.q >= 0.98);
    sinew_solve_clip_result_free(&res);
    sinew_model_free(cow);
    sinew_document_free(doc);
}

/* The Khronos fox with its three tail joints merged into one scores below the control and
 * above zero; the rotation-only run keeps every bone length; the written tracks, read back
 * through io, reproduce the solve. */
static void test_fox_coarse(void **state)
{
    (void)state;
    const char *dir = test_models_dir();
    if (!dir) test_skip();
    sinew_document *doc = NULL, *cdoc = NULL;
    sinew_model *fox = NULL, *coarse = NULL;
    if (!load(dir, "Fox.glb", &doc, &fox)) test_skip();
    assert_true(load(dir, "Fox.glb", &cdoc, &coarse));
    const char *tail[2] = {"b_Tail02_013", "b_Tail03_014"};
    assert_true(merge_joints(coarse, "b_Tail01_012", tail, 2) > 0);
    const int32_t walk = sinew_model_find_clip(fox, "Walk");
    assert_true(walk >= 0);
    uint32_t *nearest = malloc(coarse->mesh.vertex_count * sizeof *nearest);
    sinew_correspondence_stats cs;
    assert_int_equal(sinew_solve_correspond(fox, coarse, NULL, nearest, &cs, NULL), SINEW_OK);
    sinew_solve_clip_result control, free_res, rot;
    solve_ok(fox, &fox->clips[walk], fox, NULL, NULL, &control);
    /* keyed at every frame: read back at the frames, the file must be the solve itself */
    sinew_solve_options every = {0};
    every.all_keys = 1;
    solve_ok(fox, &fox->clips[walk], coarse, nearest, &every, &free_res);
    sinew_solve_options opt = {0};
    opt.rotation_only = 1;
    solve_ok(fox, &fox->clips[walk], coarse, nearest, &opt, &rot);
    fprintf(stderr, "Fox Walk: control Q %.4f%%, tail merged Q %.4f%% (rotation-only %.4f%%)\n",
            100 * control.quality.q, 100 * free_res.quality.q, 100 * rot.quality.q);
    assert_true(free_res.quality.q < control.quality.q - 0.005);
    assert_true(free_res.quality.q > 0.5);
    assert_true(rot.quality.q > 0.0 && rot.quality.q < free_res.quality.q);

    /* bone lengths: every weighted joint under a weighted joint, every frame */
    uint8_t *weighted = malloc(coarse->skin.joint_count);
    weighted_joints(coarse, weighted);
    const uint32_t N = coarse->node_count;
    sinew_transform *pose = malloc(N * sizeof *pose);
    sinew_mat4 *world = malloc(N * sizeof *world), *rest = malloc(N * sizeof *rest);
    sinew_pose_rest(coarse, pose);
    sinew_pose_to_world(coarse, pose, rest);
    double worst = 0;
    uint32_t bones = 0;
    for (uint32_t f = 0; f < rot.frame_count; f++) {
        sinew_pose_to_world(coarse, &rot.poses[(size_t)f * N], world);
        for (uint32_t n = 0; n < N; n++) {
            const int32_t j = coarse->nodes[n].joint, p = coarse->nodes[n].parent;
            if (j < 0 || !weighted[j] || p < 0 || coarse->nodes[p].joint < 0 ||
                !weighted[coarse->nodes[p].joint])
                continue;
            const double len = sinew_vec3_distance(sinew_mat4_translation(&world[n]),
                                                   sinew_mat4_translation(&world[p]));
            const double len0 = sinew_vec3_distance(sinew_mat4_translation(&rest[n]),
                                                    sinew_mat4_translation(&rest[p]));
            if (fabs(len - len0) > worst) worst = fabs(len - len0);
            bones++;
        }
    }
    fprintf(stderr, "rotation-only: %u bone-frames, worst length change %.2e (diagonal %.1f)\n",
            bones, worst, rot.diagonal);
    assert_true(bones > 100);
    assert_true(worst <= 1e-6 * rot.diagonal);

    /* Write the free solve into the coarse document, read it back, sample and skin it:
     * the surface must be the solve's (the tracks reproduce the solved M_j). The document
     * gets the merged weights too, so that what is read back is the coarse rig (the merged
     * joints, free of weight, follow the artist's tail, which the fox's own weights would
     * show). */
    sinew_error err = {0};
    for (uint32_t r = 0; r < coarse->mesh.range_count; r++) {
        const sinew_primitive_range *pr = &coarse->mesh.ranges[r];
        const size_t first = (size_t)pr->first_vertex * SINEW_MAX_INFLUENCES;
        assert_int_equal(
            sinew_document_set_influences(cdoc, pr->gltf_mesh, pr->gltf_primitive, pr->vertex_count,
                                          &coarse->mesh.influence_joints[first],
                                          &coarse->mesh.influence_weights[first], &err),
            SINEW_OK);
    }
    assert_int_equal(sinew_solve_write_clip(cdoc, coarse, &free_res, "Walk", 0, &err),
                     SINEW_ERR_ARGUMENT); /* exists: needs replace */
    assert_int_equal(sinew_solve_write_clip(cdoc, coarse, &free_res, "Walk", 1, &err), SINEW_OK);
    sinew_bytes bytes;
    assert_int_equal(sinew_document_write_glb_memory(cdoc, &bytes, &err), SINEW_OK);
    sinew_document *back = NULL;
    sinew_model *bm = NULL;
    assert_int_equal(sinew_document_load_memory(bytes.data, bytes.size, NULL, &back, &err),
                     SINEW_OK);
    assert_int_equal(sinew_model_from_document(back, NULL, &bm, &err), SINEW_OK);
    const int32_t bw = sinew_model_find_clip(bm, "Walk");
    assert_true(bw >= 0);
    const uint32_t V = bm->mesh.vertex_count;
    sinew_vec3 *got = malloc(V * sizeof *got), *want = malloc(V * sizeof *want);
    sinew_mat4 *skin = malloc(bm->skin.joint_count * sizeof *skin);
    sinew_transform *bpose = malloc(bm->node_count * sizeof *bpose);
    sinew_mat4 *bworld = malloc(bm->node_count * sizeof *bworld);
    double sum = 0, moved = 0;
    for (uint32_t f = 0; f < free_res.frame_count; f++) {
        sinew_clip_sample(bm, &bm->clips[bw], free_res.times[f], bpose);
        sinew_pose_to_world(bm, bpose, bworld);
        sinew_skin_matrices(bm, bworld, skin);
        sinew_skin_positions(bm, skin, got);
        assert_int_equal(sinew_solve_targets(fox, &fox->clips[walk], &free_res.times[f], 1, coarse,
                                             nearest, NULL, want, &err),
                         SINEW_OK);
        for (uint32_t i = 0; i < V; i++) {
            sum += sinew_vec3_distance(got[i], want[i]);
            moved += sinew_vec3_distance(want[i], bm->mesh.positions[i]);
        }
    }
    const double q_back = 1 - sum / moved;
    fprintf(stderr, "read back: Q %.4f%% (solve said %.4f%%)\n", 100 * q_back,
            100 * free_res.quality.q);
    assert_true(fabs(q_back - free_res.quality.q) < 1e-4);
    free(got);
    free(want);
    free(skin);
    free(bpose);
    free(bworld);
    sinew_bytes_free(&bytes);
    sinew_model_free(bm);
    sinew_document_free(back);
    free(weighted);
    free(pose);
    free(world);
    free(rest);
    free(nearest);
    sinew_solve_clip_result_free(&control);
    sinew_solve_clip_result_free(&free_res);
    sinew_solve_clip_result_free(&rot);
    sinew_model_free(fox);
    sinew_model_free(coarse);
    sinew_document_free(doc);
    sinew_document_free(cdoc);
}

/* Keeps the vertices whose index is not 2 mod 3 (a coarser resolution of the same surface). */
static void decimate(sinew_model *m)
{
    sinew_mesh *mesh = &m->mesh;
    uint32_t n = 0;
    for (uint32_t v = 0; v < mesh->vertex_count; v++) {
        if (v % 3 == 2) continue;
        mesh->positions[n] = mesh->positions[v];
        memmove(&mesh->influence_joints[(size_t)n * SINEW_MAX_INFLUENCES],
                &mesh->influence_joints[(size_t)v * SINEW_MAX_INFLUENCES],
                SINEW_MAX_INFLUENCES * sizeof(uint16_t));
        memmove(&mesh->influence_weights[(size_t)n * SINEW_MAX_INFLUENCES],
                &mesh->influence_weights[(size_t)v * SINEW_MAX_INFLUENCES],
                SINEW_MAX_INFLUENCES * sizeof(float));
        mesh->weld[n] = n;
        n++;
    }
    mesh->vertex_count = n;
    mesh->triangle_count = 0; /* not used by the solve */
    mesh->range_count = 0;
}

/* On the fox with its tail merged: a shuffled target and one at a coarser resolution solve to
 * the plain target's quality within 0.5 points. */
static void test_fox_shuffled_and_resolution(void **state)
{
    (void)state;
    const char *dir = test_models_dir();
    if (!dir) test_skip();
    sinew_document *docs[4] = {0};
    sinew_model *m[4] = {0}; /* source, plain, shuffled, decimated */
    for (int i = 0; i < 4; i++)
        if (!load(dir, "Fox.glb", &docs[i], &m[i])) test_skip();
    const char *tail[2] = {"b_Tail02_013", "b_Tail03_014"};
    for (int i = 1; i < 4; i++)
        assert_true(merge_joints(m[i], "b_Tail01_012", tail, 2) > 0);
    fixture_shuffle(m[2], 12345);
    decimate(m[3]);
    const int32_t walk = sinew_model_find_clip(m[0], "Walk");
    double q[4] = {0};
    for (int i = 1; i < 4; i++) {
        uint32_t *nearest = malloc(m[i]->mesh.vertex_count * sizeof *nearest);
        sinew_correspondence_stats cs;
        assert_int_equal(sinew_solve_correspond(m[0], m[i], NULL, nearest, &cs, NULL), SINEW_OK);
        sinew_solve_clip_result res;
        solve_ok(m[0], &m[0]->clips[walk], m[i], nearest, NULL, &res);
        q[i] = res.quality.q;
        fprintf(stderr, "Fox tail merged, %s target (%u vertices, nearest mean %.2e): Q %.4f%%\n",
                i == 1   ? "plain"
                : i == 2 ? "shuffled"
                         : "decimated",
                m[i]->mesh.vertex_count, cs.mean_distance / cs.diagonal, 100 * q[i]);
        sinew_solve_clip_result_free(&res);
        free(nearest);
    }
    assert_true(fabs(q[2] - q[1]) <= 0.005);
    assert_true(fabs(q[3] - q[1]) <= 0.005);
    for (int i = 0; i < 4; i++) {
        sinew_model_free(m[i]);
        sinew_document_free(docs[i]);
    }
}

/* Pipeline check: the artist Walk solved onto `sinew tail`'s output for the notail
 * fox; Q overall and on tail skin alone (the artist's tail-weighted vertices). Reports the
 * numbers; asserts only what holds for any sane rig. */
static void test_tail_pipeline(void **state)
{
    (void)state;
    const char *dir = test_models_dir();
    if (!dir) test_skip();
    char tmp[512], in[4096], out[4200], log[8192];
    test_path(in, sizeof in, dir, "notail/Fox.glb");
    if (!test_file_exists(in)) test_skip();
    assert_non_null(test_tmpdir(tmp, sizeof tmp));
    snprintf(out, sizeof out, "%s/fox_tail.glb", tmp);
    int rc = test_run(log, sizeof log, "'%s' tail '%s' -o '%s'", test_sinew_bin(), in, out);
    if (rc != 0) fail_msg("`sinew tail` failed (%d):\n%s", rc, log);
    sinew_document *sdoc = NULL, *tdoc = NULL;
    sinew_model *fox = NULL, *rig = NULL;
    assert_true(load(dir, "Fox.glb", &sdoc, &fox));
    assert_true(load(tmp, "fox_tail.glb", &tdoc, &rig));
    uint32_t *nearest = malloc(rig->mesh.vertex_count * sizeof *nearest);
    sinew_correspondence_stats cs;
    assert_int_equal(sinew_solve_correspond(fox, rig, NULL, nearest, &cs, NULL), SINEW_OK);
    sinew_solve_clip_result res;
    solve_ok(fox, &fox->clips[sinew_model_find_clip(fox, "Walk")], rig, nearest, NULL, &res);
    /* tail skin: target vertices whose nearest artist vertex is mostly on b_Tail* */
    double err_tail = 0, moved_tail = 0;
    uint32_t tail_vertices = 0;
    for (uint32_t i = 0; i < rig->mesh.vertex_count; i++) {
        const uint32_t v = nearest[i];
        float w = 0;
        for (int s = 0; s < SINEW_MAX_INFLUENCES; s++) {
            const uint16_t j = fox->mesh.influence_joints[(size_t)v * SINEW_MAX_INFLUENCES + s];
            if (!strncmp(fox->nodes[fox->skin.joints[j].node].name, "b_Tail", 6))
                w += fox->mesh.influence_weights[(size_t)v * SINEW_MAX_INFLUENCES + s];
        }
        if (w < 0.5f) continue;
        tail_vertices++;
        err_tail += res.vertex_error_sum[i];
        moved_tail += res.vertex_moved_sum[i];
    }
    const double q_tail = moved_tail > 0 ? 1 - err_tail / moved_tail : 0;
    int chain = 0;
    for (uint32_t n = 0; n < rig->node_count; n++)
        if (!strncmp(rig->nodes[n].name, "Tail_", 5)) chain++;
    fprintf(stderr,
            "PIPELINE Fox Walk onto `sinew tail` notail/Fox.glb (%d Tail_* nodes): Q overall "
            "%.2f%%, tail skin (%u vertices) %.2f%%\n",
            chain, 100 * res.quality.q, tail_vertices, 100 * q_tail);
    assert_true(tail_vertices > 50);
    assert_true(res.quality.q > 0.5);
    sinew_solve_clip_result_free(&res);
    free(nearest);
    sinew_model_free(fox);
    sinew_model_free(rig);
    sinew_document_free(sdoc);
    sinew_document_free(tdoc);
    unlink(out);
    rmdir(tmp);
}

/* The CLI: exit codes and messages for bad usage and bad input, and a full run's outputs. */
static void test_cli(void **state)
{
    (void)state;
    char log[16384], tmp[512];
    const char *bin = test_sinew_bin();
    assert_non_null(test_tmpdir(tmp, sizeof tmp));
    assert_int_equal(test_run(log, sizeof log, "'%s' solve", bin), 2);
    assert_non_null(strstr(log, "--source"));
    assert_int_equal(test_run(log, sizeof log, "'%s' solve --help", bin), 0);
    assert_non_null(strstr(log, "--rotation-only"));
    assert_int_equal(test_run(log, sizeof log, "'%s' solve --source a.glb --bogus", bin), 2);
    assert_int_equal(
        test_run(log, sizeof log, "'%s' solve --source a.glb --control --target b.glb", bin), 2);
    assert_int_equal(test_run(log, sizeof log, "'%s' solve --source a.glb --target b.glb", bin), 2);
    assert_int_equal(
        test_run(log, sizeof log, "'%s' solve --source a.glb --control --max-vertices 0", bin), 2);
    assert_int_equal(
        test_run(log, sizeof log, "'%s' solve --source %s/missing.glb --control", bin, tmp), 1);
    const char *dir = test_models_dir();
    if (!dir) {
        rmdir(tmp);
        test_skip();
    }
    char fox[4096], qfox[4096], target[4096], out[4600], rep[4600], heat[4600];
    test_path(fox, sizeof fox, dir, "Fox.glb");
    test_path(qfox, sizeof qfox, dir, "quaternius_Fox.glb");
    test_path(target, sizeof target, dir, "notail/Fox_parent.glb");
    snprintf(out, sizeof out, "%s/out.glb", tmp);
    snprintf(rep, sizeof rep, "%s/report.json", tmp);
    snprintf(heat, sizeof heat, "%s/heat.glb", tmp);
    if (!test_file_exists(fox) || !test_file_exists(qfox) || !test_file_exists(target)) {
        fprintf(stderr, "note: models absent: CLI runs skipped\n");
        rmdir(tmp);
        test_skip();
    }
    /* unknown clip; meshes that do not overlap; an existing clip without --replace */
    assert_int_equal(
        test_run(log, sizeof log, "'%s' solve --source '%s' --control --clips Nope", bin, fox), 1);
    assert_non_null(strstr(log, "Walk"));
    assert_int_equal(test_run(log, sizeof log, "'%s' solve --source '%s' --target '%s' -o '%s'",
                              bin, fox, qfox, out),
                     1);
    assert_non_null(strstr(log, "do not overlap"));
    assert_false(test_file_exists(out));
    assert_int_equal(test_run(log, sizeof log, "'%s' solve --source '%s' --target '%s' -o '%s'",
                              bin, fox, target, out),
                     2);
    assert_non_null(strstr(log, "--replace"));
    assert_false(test_file_exists(out));
    assert_int_equal(test_run(log, sizeof log, "'%s' solve --source '%s' --target '%s' -o '%s'",
                              bin, fox, target, fox),
                     2);
    /* a full run */
    int rc = test_run(log, sizeof log,
                      "'%s' solve --source '%s' --target '%s' -o '%s' --clips Walk,Run --replace "
                      "--report '%s' --heatmap '%s'",
                      bin, fox, target, out, rep, heat);
    fprintf(stderr, "%s", log);
    assert_int_equal(rc, 0);
    assert_non_null(strstr(log, "Walk"));
    assert_non_null(strstr(log, "overall: Q"));
    size_t size = 0;
    char *json = test_read_file(rep, &size);
    assert_non_null(json);
    assert_non_null(strstr(json, "\"worst_vertices\""));
    assert_non_null(strstr(json, "\"name\": \"Run\""));
    const char *q = strstr(json, "\"overall\": {\"q\": ");
    assert_non_null(q);
    const double qv = atof(q + strlen("\"overall\": {\"q\": "));
    assert_true(qv > 0.5 && qv < 0.999);
    free(json);
    char *glb = test_read_file(heat, &size);
    assert_non_null(glb);
    int has_color = 0;
    for (size_t i = 0; i + 7 < size && i < 200000; i++)
        if (!memcmp(glb + i, "COLOR_0", 7)) has_color = 1;
    assert_true(has_color);
    free(glb);
    sinew_document *doc = NULL;
    sinew_model *m = NULL;
    sinew_error err = {0};
    assert_int_equal(sinew_document_load_file(out, NULL, &doc, &err), SINEW_OK);
    assert_int_equal(sinew_model_from_document(doc, NULL, &m, &err), SINEW_OK);
    assert_true(sinew_model_find_clip(m, "Walk") >= 0);
    assert_true(sinew_model_find_clip(m, "Run") >= 0);
    assert_true(sinew_model_find_clip(m, "Survey") >= 0); /* untouched clips pass through */
    sinew_model_free(m);
    sinew_document_free(doc);
    /* control with rotation-only prints both solves */
    rc = test_run(log, sizeof log,
                  "'%s' solve --source '%s' --control --clips Walk --rotation-only", bin, fox);
    fprintf(stderr, "%s", log);
    assert_int_equal(rc, 0);
    assert_non_null(strstr(log, "rot-only"));
    assert_non_null(strstr(log, "free solve: Q"));
    unlink(out);
    unlink(rep);
    unlink(heat);
    rmdir(tmp);
}

/* The hips' world position in `clip` of `m` at time t. */
static sinew_vec3 hips_at(const sinew_model *m, const char *clip, float t)
{
    const int32_t c = sinew_model_find_clip(m, clip),
                  h = sinew_model_find_node(m, "mixamorig:Hips");
    assert_true(c >= 0 && h >= 0);
    sinew_transform *pose = malloc(m->node_count * sizeof *pose);
    sinew_mat4 *world = malloc(m->node_count * sizeof *world);
    sinew_clip_sample(m, &m->clips[c], t, pose);
    sinew_pose_to_world(m, pose, world);
    const sinew_vec3 p = sinew_mat4_translation(&world[h]);
    free(pose);
    free(world);
    return p;
}

/* The CLI aligns by itself (no shared models needed): the procedural fox in metres onto the
 * same fox in centimetres. --no-align keeps the strict refusal and writes nothing. */
static void test_cli_align(void **state)
{
    (void)state;
    char log[16384], tmp[512], a[600], b[600], out[600], rep[600];
    const char *bin = test_sinew_bin();
    assert_non_null(test_tmpdir(tmp, sizeof tmp));
    snprintf(a, sizeof a, "%s/A.glb", tmp);
    snprintf(b, sizeof b, "%s/B.glb", tmp);
    snprintf(out, sizeof out, "%s/OUT.glb", tmp);
    snprintf(rep, sizeof rep, "%s/R.json", tmp);
    assert_int_equal(test_run(log, sizeof log, "'%s' solve --help", bin), 0);
    assert_non_null(strstr(log, "--no-align"));
    assert_int_equal(test_run(log, sizeof log, "'%s' creature fox -o '%s'", bin, a), 0);
    assert_int_equal(test_run(log, sizeof log, "'%s' creature fox --height 191 -o '%s'", bin, b),
                     0);
    /* strict: refused as before, nothing written */
    int rc = test_run(log, sizeof log, "'%s' solve --source '%s' --target '%s' -o '%s' --no-align",
                      bin, a, b, out);
    fprintf(stderr, "--no-align: exit %d: %s", rc, log);
    assert_int_equal(rc, 1);
    assert_non_null(strstr(log, "do not overlap"));
    assert_false(test_file_exists(out));
    /* automatic (--replace: B carries the fox's own clips under the same names) */
    rc = test_run(log, sizeof log,
                  "'%s' solve --source '%s' --target '%s' -o '%s' --replace --report '%s'", bin, a,
                  b, out, rep);
    fprintf(stderr, "%s", log);
    assert_int_equal(rc, 0);
    const char *line = strstr(log, "alignment: scale ");
    assert_non_null(line);
    const char *rows = strstr(log, "clip ");
    assert_true(rows && line < rows); /* before the clip rows */
    const double scale = atof(line + strlen("alignment: scale "));
    assert_true(fabs(scale / 100.0 - 1) <= 1e-3);
    assert_non_null(strstr(line, "yaw "));
    assert_non_null(strstr(line, "translation ("));
    assert_non_null(strstr(line, "aligned mean nearest "));
    const char *overall = strstr(log, "overall: Q ");
    assert_non_null(overall);
    const double q = atof(overall + strlen("overall: Q "));
    fprintf(stderr, "CLI alignment: scale %.6g, overall Q %.3f%%\n", scale, q);
    assert_true(q > 99.0);
    size_t size = 0;
    char *json = test_read_file(rep, &size);
    assert_non_null(json);
    assert_non_null(strstr(json, "\"alignment\": {\"used\": true"));
    assert_non_null(strstr(json, "\"yaw_degrees\""));
    free(json);
    /* the written tracks are in the target's units: its hips walk 100x the source's */
    sinew_document *da = NULL, *dout = NULL;
    sinew_model *ma = NULL, *mout = NULL;
    sinew_error err = {0};
    assert_int_equal(sinew_document_load_file(a, NULL, &da, &err), SINEW_OK);
    assert_int_equal(sinew_model_from_document(da, NULL, &ma, &err), SINEW_OK);
    assert_int_equal(sinew_document_load_file(out, NULL, &dout, &err), SINEW_OK);
    assert_int_equal(sinew_model_from_document(dout, NULL, &mout, &err), SINEW_OK);
    double worst = 0;
    for (int i = 0; i <= 10; i++) {
        const float t = 0.1f * (float)i * ma->clips[sinew_model_find_clip(ma, "Walk")].duration;
        const sinew_vec3 pa = hips_at(ma, "Walk", t), po = hips_at(mout, "Walk", t);
        const double d = sinew_vec3_distance(sinew_vec3_scale(pa, 100.0f), po);
        if (d > worst) worst = d;
    }
    fprintf(stderr, "solved Walk hips vs 100 x the source's: %.2e of the diagonal\n",
            worst / mout->size.diagonal);
    assert_true(worst <= 1e-3 * mout->size.diagonal);
    sinew_model_free(ma);
    sinew_model_free(mout);
    sinew_document_free(da);
    sinew_document_free(dout);
    unlink(a);
    unlink(b);
    unlink(out);
    unlink(rep);
    rmdir(tmp);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_control_every_model),
        cmocka_unit_test(test_reduced_keys_scaled_armature),
        cmocka_unit_test(test_fox_coarse),
        cmocka_unit_test(test_fox_shuffled_and_resolution),
        cmocka_unit_test(test_tail_pipeline),
        cmocka_unit_test(test_cli),
        cmocka_unit_test(test_cli_align),
    };
    return test_exit_code(cmocka_run_group_tests(tests, NULL, NULL));
}
