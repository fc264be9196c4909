/* Wings on the shared real models (skips when ../shared/models is absent):
 *  - the pigeon whose wing bones were deleted (nowing/quaternius_UM_Pigeon.glb) gets its two
 *    wings back as a left/right pair, one chain each, mirror images of each other, and the
 *    skin the chains take is the skin the artist's wing bones moved (recall and precision
 *    against quaternius_UM_Pigeon.glb, dominant joint);
 *  - the whole job (`sinew tail`: chains, check, wing springs baked) on that pigeon and on the
 *    demon, whose real wings ride its neck: the wing skin is torn on at most 0.5% of its edge
 *    samples and its p99 stays within max(body p99, 1.30) on the flying clips (the demon's
 *    walk); the wing bones got keys (the springs' motion); and the artist's own flying clips,
 *    solved from the original pigeon onto the chained copy, play at Q >= 95% (as a glTF player
 *    plays the written keys; onto the copy without wing bones they play at 2.5% and 12.3%);
 *  - no other shared model (every .glb in the folder and in notail/, and the pigeon with its own
 * wing bones) has a wing: tails, heads, capes and arms stay what they were. */
#include "test_util.h"

#include "pair_skin.h"

#include <ctype.h>
#include <dirent.h>
#include <math.h>

#include "sinew/document.h"
#include "sinew/pipeline.h"
#include "sinew/rig.h"
#include "sinew/solve.h"

static sinew_model *load(const char *path)
{
    sinew_error err;
    sinew_document *d = NULL;
    sinew_model *m = NULL;
    if (sinew_document_load_file(path, NULL, &d, &err) != SINEW_OK ||
        sinew_model_from_document(d, NULL, &m, &err) != SINEW_OK)
        fprintf(stderr, "%s: %s\n", path, err.message);
    sinew_document_free(d);
    return m;
}

/* The artist's wing skin: the dominant joint (first slot, slots sorted descending) is named
 * Wing1.L .. Wing4.R. */
static int artist_wing(const sinew_model *m, uint32_t v)
{
    const uint16_t j = m->mesh.influence_joints[(size_t)v * SINEW_MAX_INFLUENCES];
    const char *n = m->nodes[m->skin.joints[j].node].name;
    return n && !strncmp(n, "Wing", 4) && isdigit((unsigned char)n[4]);
}

/* out = the shared models' `name` (4096 bytes); skips the test when it is absent. */
static void model_path(char *out, const char *name)
{
    const char *dir = test_models_dir();
    if (!dir) test_skip();
    snprintf(out, 4096, "%s/%s", dir, name);
    if (access(out, R_OK) != 0) {
        fprintf(stderr, "note: %s is absent: skipping\n", out);
        test_skip();
    }
}

static void test_pigeon(void **state)
{
    (void)state;
    char in[4096], orig[4096];
    model_path(in, "nowing/quaternius_UM_Pigeon.glb");
    model_path(orig, "quaternius_UM_Pigeon.glb");
    sinew_model *m = load(in), *truth = load(orig);
    assert_non_null(m);
    assert_non_null(truth);
    assert_int_equal(m->mesh.vertex_count, truth->mesh.vertex_count);
    sinew_rig_report rep;
    sinew_rig_plan plan;
    sinew_error err;
    assert_int_equal(sinew_rig_find_appendages(m, NULL, &rep, &err), SINEW_OK);
    assert_int_equal(count_verdict(&rep, SINEW_RIG_VERDICT_WING), 2);
    for (uint32_t p = 0; p < rep.piece_count; p++) {
        const sinew_rig_piece *pc = &rep.pieces[p];
        if (pc->verdict != SINEW_RIG_VERDICT_WING) continue;
        const sinew_rig_piece *other = &rep.pieces[pc->wing_partner];
        assert_int_equal(other->verdict, SINEW_RIG_VERDICT_WING);
        assert_int_equal(other->wing_partner, (int32_t)p);
        assert_int_equal(other->wing_side, -pc->wing_side);
    }
    assert_int_equal(sinew_rig_build_chain(m, NULL, &rep, &plan, &err), SINEW_OK);
    assert_int_equal(plan.chain_count, 2);
    const sinew_rig_chain *left = &plan.chains[0], *right = &plan.chains[1];
    if (left->wing < 0) left = &plan.chains[1], right = &plan.chains[0];
    assert_int_equal(left->wing, 1);
    assert_int_equal(right->wing, -1);
    assert_int_equal(left->bone_count, right->bone_count);
    assert_true(left->bone_count >= 4); /* at least 3 segments along the span */
    assert_string_equal(left->bones[0].name, "Wing_L_1");
    assert_string_equal(right->bones[right->bone_count - 1].name, "Wing_R_End");
    assert_int_equal(left->parent_joint, right->parent_joint);
    /* Mirror images: every joint of one chain reflected across the plane halfway between the
     * two roots is the other's, to float rounding (1e-4 H). */
    const float H = m->size.scale;
    const sinew_vec3 a = left->bones[0].head, b = right->bones[0].head;
    const sinew_vec3 n = sinew_vec3_normalize_or(sinew_vec3_sub(a, b), sinew_vec3_make(1, 0, 0));
    const float d = sinew_vec3_dot(n, sinew_vec3_scale(sinew_vec3_add(a, b), 0.5f));
    float worst = 0;
    for (uint32_t k = 0; k < left->bone_count; k++)
        worst = fmaxf(
            worst, sinew_vec3_distance(reflect(left->bones[k].head, n, d), right->bones[k].head));
    printf("pigeon: %u bones per wing, mirror error %.2g H\n", left->bone_count,
           (double)(worst / H));
    assert_true(worst <= 1e-4f * H);
    /* The chains span the wing: root to end at least a third of H (the wings are 0.51 H). */
    assert_true(sinew_vec3_distance(left->bones[0].head, left->bones[left->bone_count - 1].head) >=
                H / 3);
    /* The skin the chains take is the artist's wing skin. */
    const uint32_t nj = m->skin.joint_count;
    uint32_t t = 0, s = 0, both = 0;
    for (uint32_t v = 0; v < m->mesh.vertex_count; v++) {
        const int is_t = artist_wing(truth, v);
        const int is_s = plan.joints[(size_t)v * SINEW_MAX_INFLUENCES] >= nj;
        t += (uint32_t)is_t, s += (uint32_t)is_s, both += (uint32_t)(is_t && is_s);
    }
    const double recall = t ? (double)both / t : 0, precision = s ? (double)both / s : 0;
    printf("pigeon wing skin: artist %u, sinew %u, both %u: recall %.4f precision %.4f\n", t, s,
           both, recall, precision);
    assert_true(recall >= 0.90);
    assert_true(precision >= 0.90);
    /* --skip N leaves that wing alone and chains the other, still the mirror of the pair. */
    const uint32_t skipped = left->piece;
    const sinew_vec3 right_root = right->bones[0].head;
    sinew_rig_plan_free(&plan);
    sinew_rig_report_free(&rep);
    sinew_rig_options opt;
    memset(&opt, 0, sizeof opt);
    opt.skip_pieces = &skipped;
    opt.skip_piece_count = 1;
    assert_int_equal(sinew_rig_find_appendages(m, &opt, &rep, &err), SINEW_OK);
    assert_int_equal(rep.pieces[skipped].verdict, SINEW_RIG_VERDICT_SKIPPED);
    assert_int_equal(count_verdict(&rep, SINEW_RIG_VERDICT_WING), 1);
    assert_int_equal(sinew_rig_build_chain(m, &opt, &rep, &plan, &err), SINEW_OK);
    assert_int_equal(plan.chain_count, 1);
    assert_int_equal(plan.chains[0].wing, -1);
    assert_true(sinew_vec3_distance(plan.chains[0].bones[0].head, right_root) <= 1e-6f * H);
    sinew_rig_plan_free(&plan);
    sinew_rig_report_free(&rep);
    sinew_model_free(m);
    sinew_model_free(truth);
}

/* sinew_tail_run on `path`; *doc and *res to free. */
static void run_job(const char *path, sinew_document **doc, sinew_tail_result *res)
{
    sinew_error err;
    assert_int_equal(sinew_document_load_file(path, NULL, doc, &err), SINEW_OK);
    if (sinew_tail_run(*doc, NULL, res, &err) != SINEW_OK) fprintf(stderr, "%s\n", err.message);
    assert_non_null(res->model);
}

/* The wing skin on clip `name` (check_pair_skin): two chains of at least 3 segments. */
static void check_wing_stretch(const sinew_model *m, const char *name)
{
    const int32_t c = sinew_model_find_clip(m, name);
    assert_true(c >= 0);
    check_pair_skin(m, (uint32_t)c, "Wing", 8);
}

static void test_pigeon_job(void **state)
{
    (void)state;
    char in[4096], orig[4096];
    model_path(in, "nowing/quaternius_UM_Pigeon.glb");
    model_path(orig, "quaternius_UM_Pigeon.glb");
    sinew_document *doc = NULL;
    sinew_tail_result res;
    run_job(in, &doc, &res);
    assert_int_equal(res.plan.chain_count, 2);
    assert_int_equal(res.dropped, 0);
    const char *flying[2] = {"Fast_Flying", "Flying_Idle"};
    for (int k = 0; k < 2; k++)
        check_wing_stretch(res.model, flying[k]);
    /* The artist's flapping, solved onto the chained copy, as a player plays it. */
    sinew_model *source = load(orig);
    assert_non_null(source);
    uint32_t *nearest = calloc(res.model->mesh.vertex_count, sizeof *nearest);
    assert_non_null(nearest);
    sinew_error err;
    assert_int_equal(sinew_solve_correspond(source, res.model, NULL, nearest, NULL, &err),
                     SINEW_OK);
    for (int k = 0; k < 2; k++) {
        const int32_t c = sinew_model_find_clip(source, flying[k]);
        assert_true(c >= 0);
        sinew_solve_clip_result solved;
        sinew_solve_quality played;
        assert_int_equal(
            sinew_solve_clip(source, &source->clips[c], res.model, nearest, NULL, &solved, &err),
            SINEW_OK);
        assert_int_equal(sinew_solve_quality_played(source, &source->clips[c], res.model, nearest,
                                                    NULL, &solved, &played, NULL, &err),
                         SINEW_OK);
        printf("%s solved onto the chained pigeon: Q %.3f%% as played (%.3f%% at the solve's "
               "frames)\n",
               flying[k], 100 * played.q, 100 * solved.quality.q);
        assert_true(played.q >= 0.95);
        sinew_solve_clip_result_free(&solved);
    }
    /* `sinew bake` finds the two wing chains by name and bakes them again. */
    uint32_t baked = 0;
    assert_int_equal(sinew_bake_wings(NULL, res.model, NULL, &baked, &err), SINEW_OK);
    assert_int_equal(baked, 2);
    free(nearest);
    sinew_model_free(source);
    sinew_tail_result_free(&res);
    sinew_document_free(doc);
}

static void test_demon_job(void **state)
{
    (void)state;
    char in[4096];
    model_path(in, "quaternius_UM_Demon.glb");
    sinew_document *doc = NULL;
    sinew_tail_result res;
    run_job(in, &doc, &res);
    assert_int_equal(res.plan.chain_count, 2);
    assert_int_equal(res.plan.chains[0].wing, -res.plan.chains[1].wing);
    check_wing_stretch(res.model, "Walk");
    sinew_tail_result_free(&res);
    sinew_document_free(doc);
}

/* No wing on any model without one (or with its wing bones). */
static void check_folder(const char *folder, uint32_t *checked)
{
    DIR *d = opendir(folder);
    if (!d) return;
    struct dirent *e;
    while ((e = readdir(d))) {
        const size_t len = strlen(e->d_name);
        if (len < 5 || strcmp(e->d_name + len - 4, ".glb") != 0) continue;
        char path[8800];
        snprintf(path, sizeof path, "%s/%s", folder, e->d_name);
        sinew_model *m = load(path);
        assert_non_null(m);
        sinew_rig_report rep;
        sinew_error err;
        if (m->skin.joint_count && m->mesh.vertex_count) {
            assert_int_equal(sinew_rig_find_appendages(m, NULL, &rep, &err), SINEW_OK);
            const int is_demon = strstr(e->d_name, "UM_Demon") != NULL;
            /* The demon is the one real model whose wings have no bones: it gets two. */
            printf("%s: %u wing pieces\n", path, count_verdict(&rep, SINEW_RIG_VERDICT_WING));
            assert_int_equal(count_verdict(&rep, SINEW_RIG_VERDICT_WING), is_demon ? 2 : 0);
            sinew_rig_report_free(&rep);
            (*checked)++;
        }
        sinew_model_free(m);
    }
    closedir(d);
}

static void test_no_wings_elsewhere(void **state)
{
    (void)state;
    const char *dir = test_models_dir();
    if (!dir) test_skip();
    char notail[4096];
    snprintf(notail, sizeof notail, "%s/notail", dir);
    uint32_t checked = 0;
    check_folder(dir, &checked);
    check_folder(notail, &checked);
    printf("%u models checked\n", checked);
    assert_true(checked >= 20); /* the shared models and their notail copies */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_pigeon),
        cmocka_unit_test(test_pigeon_job),
        cmocka_unit_test(test_demon_job),
        cmocka_unit_test(test_no_wings_elsewhere),
    };
    return test_exit_code(cmocka_run_group_tests(tests, NULL, NULL));
}
