/* The creatures through the io module and the CLI: same bytes every run, a file that reads
 * back as the same model (so the truth's vertex order holds for the file), `sinew creature`'s
 * outputs and its errors. */
#include "test_util.h"

#include <cjson/cJSON.h>
#include <float.h>
#include <math.h>

#include "sinew/creature.h"
#include "sinew/document.h"

static sinew_bytes glb_of(sinew_creature_kind kind)
{
    sinew_model *m = NULL;
    sinew_document *doc = NULL;
    sinew_error err = {0};
    assert_int_equal(sinew_creature_build(kind, NULL, &m, NULL, &err), SINEW_OK);
    if (sinew_document_from_model(m, &doc, &err)) fail_msg("from_model: %s", err.message);
    sinew_bytes bytes;
    if (sinew_document_write_glb_memory(doc, &bytes, &err)) fail_msg("write: %s", err.message);
    sinew_document_free(doc);
    sinew_model_free(m);
    return bytes;
}

/* The Walk clip of m and of its round trip r skins every vertex to the same place (within
 * 1e-5 of the model's size) at 0.37 of its length. */
static void assert_walk_plays_same(const sinew_model *m, const sinew_model *r)
{
    int32_t cm = sinew_model_find_clip(m, "Walk"), cr = sinew_model_find_clip(r, "Walk");
    assert_true(cm >= 0 && cr >= 0);
    uint32_t nodes = r->node_count > m->node_count ? r->node_count : m->node_count;
    sinew_transform *pose = calloc(nodes, sizeof *pose);
    sinew_mat4 *world = calloc(nodes, sizeof *world);
    sinew_mat4 *skin = calloc(m->skin.joint_count, sizeof *skin);
    sinew_vec3 *pa = calloc(m->mesh.vertex_count, sizeof *pa);
    sinew_vec3 *pb = calloc(m->mesh.vertex_count, sizeof *pb);
    float t = m->clips[cm].duration * 0.37f, worst = 0;
    sinew_clip_sample(m, &m->clips[cm], t, pose);
    sinew_pose_to_world(m, pose, world);
    sinew_skin_matrices(m, world, skin);
    sinew_skin_positions(m, skin, pa);
    sinew_clip_sample(r, &r->clips[cr], t, pose);
    sinew_pose_to_world(r, pose, world);
    sinew_skin_matrices(r, world, skin);
    sinew_skin_positions(r, skin, pb);
    for (uint32_t v = 0; v < m->mesh.vertex_count; v++)
        worst = fmaxf(worst, sinew_vec3_distance(pa[v], pb[v]));
    assert_true(worst < 1e-5f * m->size.scale);
    free(pose), free(world), free(skin), free(pa), free(pb);
}

static void test_glb_bytes_deterministic(void **state)
{
    (void)state;
    /* a Mixamo biped with two tail shells, one without the prefix, the quadruped */
    const sinew_creature_kind kinds[] = {SINEW_CREATURE_FOX, SINEW_CREATURE_MOUSE,
                                         SINEW_CREATURE_LIZARD};
    for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++) {
        sinew_bytes a = glb_of(kinds[k]);
        sinew_bytes b = glb_of(kinds[k]);
        assert_int_equal(a.size, b.size);
        assert_memory_equal(a.data, b.data, a.size);
        sinew_bytes_free(&a);
        sinew_bytes_free(&b);
    }
}

/* Writes `m` as a GLB (its bytes to *bytes, for the caller to free with sinew_bytes_free) and
 * asserts it reads back
 * as the model that was written: vertex order, positions, welds, weights, joint names, clips,
 * no warnings; and skinning the loaded Walk agrees with skinning the built one. */
static void assert_glb_round_trip(sinew_model *m, sinew_bytes *bytes)
{
    sinew_model *r = NULL;
    sinew_document *doc = NULL, *back = NULL;
    sinew_error err = {0};
    if (sinew_document_from_model(m, &doc, &err)) fail_msg("from_model: %s", err.message);
    if (sinew_document_write_glb_memory(doc, bytes, &err)) fail_msg("%s", err.message);
    if (sinew_document_load_memory(bytes->data, bytes->size, NULL, &back, &err))
        fail_msg("%s", err.message);
    if (sinew_model_from_document(back, NULL, &r, &err)) fail_msg("%s", err.message);
    assert_int_equal(sinew_document_warning_count(back), 0);

    assert_int_equal(r->mesh.vertex_count, m->mesh.vertex_count);
    assert_int_equal(r->mesh.triangle_count, m->mesh.triangle_count);
    assert_memory_equal(r->mesh.positions, m->mesh.positions,
                        m->mesh.vertex_count * sizeof(sinew_vec3));
    assert_memory_equal(r->mesh.weld, m->mesh.weld, m->mesh.vertex_count * sizeof(uint32_t));
    assert_int_equal(r->skin.joint_count, m->skin.joint_count);
    for (uint32_t j = 0; j < m->skin.joint_count; j++)
        assert_string_equal(r->nodes[r->skin.joints[j].node].name,
                            m->nodes[m->skin.joints[j].node].name);
    for (uint32_t i = 0; i < m->mesh.vertex_count * SINEW_MAX_INFLUENCES; i++) {
        assert_float_equal(r->mesh.influence_weights[i], m->mesh.influence_weights[i], 1e-6f);
        if (m->mesh.influence_weights[i] > 0)
            assert_int_equal(r->mesh.influence_joints[i], m->mesh.influence_joints[i]);
    }
    assert_int_equal(r->clip_count, m->clip_count);
    assert_walk_plays_same(m, r);
    sinew_model_free(r);
    sinew_document_free(back);
    sinew_document_free(doc);
}

static void test_glb_round_trip(void **state)
{
    (void)state;
    for (int k = SINEW_CREATURE_INVALID + 1; k < SINEW_CREATURE_KIND_COUNT; k++) {
        sinew_model *m = NULL;
        sinew_error err = {0};
        assert_int_equal(sinew_creature_build((sinew_creature_kind)k, NULL, &m, NULL, &err),
                         SINEW_OK);
        sinew_bytes bytes;
        assert_glb_round_trip(m, &bytes);
        sinew_bytes_free(&bytes);
        sinew_model_free(m);
    }
}

/* Two files hold the same bytes. */
static void assert_same_bytes(const char *x, const char *y)
{
    size_t nx, ny;
    char *bx = test_read_file(x, &nx), *by = test_read_file(y, &ny);
    assert_non_null(bx), assert_non_null(by);
    assert_int_equal(nx, ny);
    assert_memory_equal(bx, by, nx);
    free(bx), free(by);
}

static void test_cli(void **state)
{
    (void)state;
    char dir[512], a[600], b[600], ta[600], tb[600], out[8192];
    assert_non_null(test_tmpdir(dir, sizeof dir));
    const char *bin = test_sinew_bin();
    snprintf(a, sizeof a, "%s/fox.glb", dir);
    snprintf(b, sizeof b, "%s/fox2.glb", dir);
    snprintf(ta, sizeof ta, "%s/fox.json", dir);
    snprintf(tb, sizeof tb, "%s/fox2.json", dir);

    assert_int_equal(test_run(out, sizeof out, "%s creature fox -o %s --truth %s", bin, a, ta), 0);
    assert_non_null(strstr(out, "fox: "));
    assert_non_null(strstr(out, "tail 0.810 m"));
    assert_int_equal(test_run(out, sizeof out, "%s creature fox -o %s --truth %s", bin, b, tb), 0);
    assert_same_bytes(a, b); /* same bytes every run */
    size_t nta;
    char *ja = test_read_file(ta, &nta);
    assert_non_null(ja);
    assert_same_bytes(ta, tb);

    /* the truth describes the file: its vertex count, a tail piece with the chain verdict */
    sinew_document *doc = NULL;
    sinew_model *m = NULL;
    sinew_error err = {0};
    assert_int_equal(sinew_document_load_file(a, NULL, &doc, &err), SINEW_OK);
    assert_int_equal(sinew_model_from_document(doc, NULL, &m, &err), SINEW_OK);
    cJSON *truth = cJSON_Parse(ja);
    assert_non_null(truth);
    assert_int_equal(cJSON_GetObjectItem(truth, "vertex_count")->valueint,
                     (int)m->mesh.vertex_count);
    cJSON *labels = cJSON_GetObjectItem(truth, "vertex_piece");
    assert_int_equal(cJSON_GetArraySize(labels), (int)m->mesh.vertex_count);
    cJSON *pieces = cJSON_GetObjectItem(truth, "pieces");
    int tail = cJSON_GetObjectItem(truth, "tail_piece")->valueint;
    cJSON *tp = cJSON_GetArrayItem(pieces, tail);
    assert_string_equal(cJSON_GetObjectItem(tp, "verdict")->valuestring, "chain");
    assert_string_equal(cJSON_GetObjectItem(tp, "attach_joint")->valuestring, "mixamorig:Hips");
    assert_float_equal(cJSON_GetObjectItem(truth, "tail_length")->valuedouble, 0.81, 0.01);
    int counted = 0;
    cJSON *it;
    cJSON_ArrayForEach(it, labels) counted += it->valueint == tail;
    assert_int_equal(counted, cJSON_GetObjectItem(tp, "vertex_count")->valueint);
    cJSON_Delete(truth);
    sinew_model_free(m);
    sinew_document_free(doc);
    free(ja);

    /* --list names every kind */
    assert_int_equal(test_run(out, sizeof out, "%s creature --list", bin), 0);
    for (int k = SINEW_CREATURE_INVALID + 1; k < SINEW_CREATURE_KIND_COUNT; k++)
        assert_non_null(strstr(out, sinew_creature_kind_name((sinew_creature_kind)k)));
    /* --height scales */
    snprintf(b, sizeof b, "%s/big.glb", dir);
    assert_int_equal(test_run(out, sizeof out, "%s creature lizard -o %s --height 4.5", bin, b), 0);
    assert_non_null(strstr(out, "height 4.500 m"));

    /* usage errors: exit 2 with a message, nothing written */
    snprintf(b, sizeof b, "%s/none.glb", dir);
    assert_int_equal(test_run(out, sizeof out, "%s creature dragon -o %s", bin, b), 2);
    assert_non_null(strstr(out, "unknown kind 'dragon'"));
    assert_int_equal(test_run(out, sizeof out, "%s creature fox", bin), 2);
    assert_non_null(strstr(out, "missing -o"));
    assert_int_equal(test_run(out, sizeof out, "%s creature fox -o %s --height 0", bin, b), 2);
    assert_int_equal(test_run(out, sizeof out, "%s creature fox -o %s --height nan", bin, b), 2);
    assert_int_equal(test_run(out, sizeof out, "%s creature fox -o %s --bogus", bin, b), 2);
    assert_int_equal(test_run(out, sizeof out, "%s creature fox mouse -o %s", bin, b), 2);
    assert_int_equal(test_run(out, sizeof out, "%s creature fox -o %s --truth %s", bin, b, b), 2);
    assert_false(test_file_exists(b));
    /* an output that cannot be written: exit 3, and neither file appears */
    snprintf(b, sizeof b, "%s/missing/x.glb", dir);
    snprintf(tb, sizeof tb, "%s/t.json", dir);
    assert_int_equal(test_run(out, sizeof out, "%s creature fox -o %s --truth %s", bin, b, tb), 3);
    assert_false(test_file_exists(tb));
    assert_int_equal(test_run(out, sizeof out, "ls %s | wc -l", dir), 0);
    assert_int_equal(atoi(out), 5); /* fox.glb fox.json fox2.glb fox2.json big.glb */
    test_run(out, sizeof out, "rm -rf %s", dir);
}

/* A random creature through io: same bytes twice, and the file reads back as the model (the
 * truth's vertex order, weights, names; skinning the loaded Walk agrees) whatever the
 * hierarchy (flat), bone axes (x, world) and units. */
static void test_random_glb(void **state)
{
    (void)state;
    /* seeds covering a flat Sketchfab hierarchy, X and world axes, helpers, tiny and huge units */
    uint64_t seeds[8];
    int n = 0, flat = 0, world = 0, x = 0, ik = 0;
    for (uint64_t seed = 0; seed < 300 && n < 8; seed++) {
        sinew_creature_traits t;
        sinew_creature_random_traits(seed, &t);
        int want = (t.flat_hierarchy && !flat) || (t.axes == SINEW_CREATURE_AXES_WORLD && !world) ||
                   (t.axes == SINEW_CREATURE_AXES_X && !x) || (t.ik_helpers && !ik) || seed < 3;
        if (!want) continue;
        flat |= t.flat_hierarchy, world |= t.axes == SINEW_CREATURE_AXES_WORLD;
        x |= t.axes == SINEW_CREATURE_AXES_X, ik |= t.ik_helpers;
        seeds[n++] = seed;
    }
    assert_true(flat && world && x && ik);
    for (int i = 0; i < n; i++) {
        sinew_model *m = NULL;
        sinew_error err = {0};
        assert_int_equal(sinew_creature_build_random(seeds[i], NULL, &m, NULL, &err), SINEW_OK);
        sinew_bytes bytes, again;
        assert_glb_round_trip(m, &bytes);
        sinew_model *m2 = NULL;
        sinew_document *d2 = NULL;
        assert_int_equal(sinew_creature_build_random(seeds[i], NULL, &m2, NULL, &err), SINEW_OK);
        assert_int_equal(sinew_document_from_model(m2, &d2, &err), SINEW_OK);
        assert_int_equal(sinew_document_write_glb_memory(d2, &again, &err), SINEW_OK);
        assert_int_equal(bytes.size, again.size);
        assert_memory_equal(bytes.data, again.data, bytes.size); /* same bytes every run */
        sinew_bytes_free(&again);
        sinew_bytes_free(&bytes);
        sinew_document_free(d2);
        sinew_model_free(m2);
        sinew_model_free(m);
    }
}

/* `sinew creature --random SEED`: same bytes every run, its truth, and its usage errors. */
static void test_random_cli(void **state)
{
    (void)state;
    char dir[512], a[600], b[600], ta[600], tb[600], out[8192];
    assert_non_null(test_tmpdir(dir, sizeof dir));
    const char *bin = test_sinew_bin();
    snprintf(a, sizeof a, "%s/r.glb", dir);
    snprintf(b, sizeof b, "%s/r2.glb", dir);
    snprintf(ta, sizeof ta, "%s/r.json", dir);
    snprintf(tb, sizeof tb, "%s/r2.json", dir);
    assert_int_equal(
        test_run(out, sizeof out, "%s creature --random 7 -o %s --truth %s", bin, a, ta), 0);
    assert_non_null(strstr(out, "random 7: "));
    assert_non_null(strstr(out, "seed 7: "));
    assert_int_equal(
        test_run(out, sizeof out, "%s creature -o %s --random 7 --truth %s", bin, b, tb), 0);
    assert_same_bytes(a, b); /* same bytes every run */
    size_t nta;
    char *ja = test_read_file(ta, &nta);
    assert_non_null(ja);
    assert_same_bytes(ta, tb);

    /* the truth parses and describes the file */
    sinew_document *doc = NULL;
    sinew_model *m = NULL;
    sinew_error err = {0};
    assert_int_equal(sinew_document_load_file(a, NULL, &doc, &err), SINEW_OK);
    assert_int_equal(sinew_model_from_document(doc, NULL, &m, &err), SINEW_OK);
    cJSON *truth = cJSON_Parse(ja);
    assert_non_null(truth);
    assert_string_equal(cJSON_GetObjectItem(truth, "kind")->valuestring, "random");
    assert_int_equal(cJSON_GetObjectItem(truth, "seed")->valueint, 7);
    assert_true(strncmp(cJSON_GetObjectItem(truth, "description")->valuestring, "seed 7: ", 8) ==
                0);
    assert_int_equal(cJSON_GetObjectItem(truth, "vertex_count")->valueint,
                     (int)m->mesh.vertex_count);
    cJSON *labels = cJSON_GetObjectItem(truth, "vertex_piece");
    assert_int_equal(cJSON_GetArraySize(labels), (int)m->mesh.vertex_count);
    cJSON *traits = cJSON_GetObjectItem(truth, "traits");
    assert_non_null(traits);
    sinew_creature_traits tr;
    sinew_creature_random_traits(7, &tr);
    assert_string_equal(cJSON_GetObjectItem(traits, "style")->valuestring,
                        sinew_creature_style_name(tr.style));
    assert_string_equal(cJSON_GetObjectItem(traits, "tail")->valuestring,
                        sinew_creature_tail_shell_name(tr.tail));
    assert_true(cJSON_IsBool(cJSON_GetObjectItem(truth, "tail_rigged")));
    int tail = cJSON_GetObjectItem(truth, "tail_piece")->valueint;
    cJSON *pieces = cJSON_GetObjectItem(truth, "pieces");
    if (tail >= 0) {
        cJSON *tp = cJSON_GetArrayItem(pieces, tail);
        assert_string_equal(cJSON_GetObjectItem(tp, "part")->valuestring, "tail");
        assert_true(
            sinew_model_find_node(m, cJSON_GetObjectItem(tp, "attach_joint")->valuestring) >= 0);
    }
    cJSON_Delete(truth);
    sinew_model_free(m);
    sinew_document_free(doc);
    free(ja);

    /* the largest seed, and one whose JSON number would not hold it exactly */
    snprintf(b, sizeof b, "%s/max.glb", dir);
    snprintf(tb, sizeof tb, "%s/max.json", dir);
    assert_int_equal(test_run(out, sizeof out,
                              "%s creature --random 18446744073709551615 -o %s "
                              "--truth %s",
                              bin, b, tb),
                     0);
    size_t ntb;
    char *jb = test_read_file(tb, &ntb);
    assert_non_null(jb);
    assert_non_null(strstr(jb, "\"seed\":\t\"18446744073709551615\""));
    free(jb);
    /* --height scales a random creature too */
    snprintf(b, sizeof b, "%s/tall.glb", dir);
    assert_int_equal(test_run(out, sizeof out, "%s creature --random 3 --height 40 -o %s", bin, b),
                     0);
    assert_non_null(strstr(out, "height 40.000 units"));

    /* usage errors: exit 2 with a message, nothing written */
    snprintf(b, sizeof b, "%s/none.glb", dir);
    const char *bad[] = {"-1", "abc", "1.5", "''", "18446744073709551616", "0x10", "' 3'", "+4"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        assert_int_equal(test_run(out, sizeof out, "%s creature --random %s -o %s", bin, bad[i], b),
                         2);
        assert_non_null(strstr(out, "--random wants a whole number"));
    }
    assert_int_equal(test_run(out, sizeof out, "%s creature -o %s --random", bin, b), 2);
    assert_int_equal(test_run(out, sizeof out, "%s creature fox --random 3 -o %s", bin, b), 2);
    assert_non_null(strstr(out, "not both"));
    assert_int_equal(test_run(out, sizeof out, "%s creature --random 3", bin), 2);
    assert_non_null(strstr(out, "missing -o"));
    assert_int_equal(
        test_run(out, sizeof out, "%s creature --random 3 -o %s --truth %s", bin, b, b), 2);
    assert_false(test_file_exists(b));
    /* --list mentions the random family */
    assert_int_equal(test_run(out, sizeof out, "%s creature --list", bin), 0);
    assert_non_null(strstr(out, "--random SEED"));
    test_run(out, sizeof out, "rm -rf %s", dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_glb_bytes_deterministic),
        cmocka_unit_test(test_glb_round_trip),
        cmocka_unit_test(test_cli),
        cmocka_unit_test(test_random_glb),
        cmocka_unit_test(test_random_cli),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
