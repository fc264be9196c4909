/* Wings on the shared real models (skips when ../shared/models is absent):
 *  - the pigeon whose wing bones were deleted (nowing/quaternius_UM_Pigeon.glb) gets its two
 *    wings back as a left/right pair, one chain each, mirror images of each other, and the
 *    skin the chains take is the skin the artist's wing bones moved (recall and precision
 *    against quaternius_UM_Pigeon.glb, dominant joint);
 *  - no other shared model (every .glb in the folder and in notail/, and the pigeon with its own
 * wing bones) has a wing: tails, heads, capes and arms stay what they were. */
#include "test_util.h"

#include <ctype.h>
#include <dirent.h>
#include <math.h>

#include "sinew/document.h"
#include "sinew/rig.h"

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

static uint32_t wing_pieces(const sinew_rig_report *rep)
{
    uint32_t n = 0;
    for (uint32_t p = 0; p < rep->piece_count; p++)
        n += rep->pieces[p].verdict == SINEW_RIG_VERDICT_WING;
    return n;
}

static sinew_vec3 reflect(sinew_vec3 x, sinew_vec3 n, float d)
{
    return sinew_vec3_madd(x, n, -2.0f * (sinew_vec3_dot(n, x) - d));
}

static void test_pigeon(void **state)
{
    (void)state;
    const char *dir = test_models_dir();
    if (!dir) test_skip();
    char in[4096], orig[4096];
    snprintf(in, sizeof in, "%s/nowing/quaternius_UM_Pigeon.glb", dir);
    snprintf(orig, sizeof orig, "%s/quaternius_UM_Pigeon.glb", dir);
    if (access(in, R_OK) != 0 || access(orig, R_OK) != 0) {
        fprintf(stderr, "note: %s or %s is absent: skipping\n", in, orig);
        test_skip();
    }
    sinew_model *m = load(in), *truth = load(orig);
    assert_non_null(m);
    assert_non_null(truth);
    assert_int_equal(m->mesh.vertex_count, truth->mesh.vertex_count);
    sinew_rig_report rep;
    sinew_rig_plan plan;
    sinew_error err;
    assert_int_equal(sinew_rig_find_appendages(m, NULL, &rep, &err), SINEW_OK);
    assert_int_equal(wing_pieces(&rep), 2);
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
    sinew_rig_plan_free(&plan);
    sinew_rig_report_free(&rep);
    sinew_model_free(m);
    sinew_model_free(truth);
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
            printf("%s: %u wing pieces\n", path, wing_pieces(&rep));
            assert_int_equal(wing_pieces(&rep), is_demon ? 2 : 0);
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
        cmocka_unit_test(test_no_wings_elsewhere),
    };
    return test_exit_code(cmocka_run_group_tests(tests, NULL, NULL));
}
