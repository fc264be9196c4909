/* Rig module on bodies built in memory (tubes with known truth): landmarks under three naming
 * styles, the tail found and chained per the numbers of Sidorkin, "Animating tails the
 * auto-rigger never gave a bone", ears and quivers left alone, rigid mode, the edit leaving
 * every other vertex bit-identical, a second run finding nothing new, and the chain's bones
 * laid along the tail and bound exactly under an unevenly scaled pelvis. */
#include "test_util.h"

#include "sinew/rig.h"
#include "tube_body.h"

static void print_report(const sinew_model *m, const sinew_rig_report *r)
{
    for (uint32_t p = 0; p < r->piece_count; p++) {
        const sinew_rig_piece *pc = &r->pieces[p];
        if (pc->verdict == SINEW_RIG_VERDICT_MERGED) continue;
        fprintf(stderr,
                "  piece %u %-8s n=%u att=%s radius=%.3f elong=%.2f L=%.3f K=%u "
                "before=%.3f after=%.3f radius=%.3f | %s\n",
                p, sinew_rig_verdict_name(pc->verdict), pc->vertex_count,
                pc->attach_joint >= 0 ? m->nodes[m->skin.joints[pc->attach_joint].node].name : "-",
                (double)pc->radius, (double)pc->elongation, (double)pc->length, pc->segments,
                (double)pc->distance_before, (double)pc->distance_after, (double)pc->radius,
                pc->reason);
    }
}

static int count_verdict(const sinew_rig_report *r, sinew_rig_verdict v, uint32_t *which)
{
    int n = 0;
    for (uint32_t p = 0; p < r->piece_count; p++)
        if (r->pieces[p].verdict == v) {
            if (which) *which = p;
            n++;
        }
    return n;
}

/* Joint j's bind +Y axis (the way Blender's importer draws its bone) points from joint
 * `from` to joint `to`, within about a degree. */
static void assert_laid_along(const sinew_model *m, uint32_t j, uint32_t from, uint32_t to)
{
    const sinew_vec3 y = sinew_vec3_normalize_or(
        sinew_mat4_transform_dir(&m->skin.joints[j].bind, sinew_vec3_make(0, 1, 0)),
        sinew_vec3_make(0, 0, 0));
    const sinew_vec3 along =
        sinew_vec3_normalize_or(sinew_vec3_sub(sinew_mat4_translation(&m->skin.joints[to].bind),
                                               sinew_mat4_translation(&m->skin.joints[from].bind)),
                                sinew_vec3_make(0, 0, 0));
    assert_true(sinew_vec3_dot(y, along) > 0.9999f);
}

static void test_landmarks_any_names(void **state)
{
    (void)state;
    for (int style = 0; style < 3; style++) {
        uint8_t *truth;
        sinew_model *m = tube_body(TUBE_TAIL, style, &truth);
        sinew_rig_landmarks lm;
        uint8_t regions[TUBE_JOINTS];
        assert_int_equal(sinew_rig_find_landmarks(m, &lm, regions, NULL), SINEW_OK);
        assert_int_equal(lm.pelvis, 0);
        assert_int_equal(lm.head, 4);
        assert_true((lm.thigh[0] == 6 && lm.thigh[1] == 9) ||
                    (lm.thigh[0] == 9 && lm.thigh[1] == 6));
        assert_int_equal(lm.spine_count, 3);
        assert_int_equal(lm.spine[0], 1);
        assert_int_equal(lm.spine[2], 3);
        assert_int_equal(regions[0], SINEW_RIG_REGION_PELVIS);
        assert_int_equal(regions[5], SINEW_RIG_REGION_HEAD);
        assert_int_equal(regions[7], SINEW_RIG_REGION_LEG);
        assert_int_equal(regions[13], SINEW_RIG_REGION_LIMB);
        assert_true(lm.up.y > 0.999f);
        sinew_model_free(m);
        free(truth);
    }
}

/* The tail: one chain, skin recall/precision >= 0.98 against the builder's truth, K as the
 * formula says, weighted distance from far to about the tail's radius. */
static void test_tail_chain(void **state)
{
    (void)state;
    uint8_t *truth;
    sinew_model *m = tube_body(TUBE_TAIL, TUBE_NAMES_PLAIN, &truth);
    sinew_rig_report rep;
    sinew_error err;
    assert_int_equal(sinew_rig_find_appendages(m, NULL, &rep, &err), SINEW_OK);
    sinew_rig_plan plan;
    assert_int_equal(sinew_rig_build_chain(m, NULL, &rep, &plan, &err), SINEW_OK);
    print_report(m, &rep);
    uint32_t tp = 0;
    assert_int_equal(count_verdict(&rep, SINEW_RIG_VERDICT_CHAIN, &tp), 1);
    uint32_t tt = 0, found = 0, both = 0;
    for (uint32_t v = 0; v < m->mesh.vertex_count; v++) {
        int t = truth[v] == 1, f = rep.vertex_piece[v] == tp;
        tt += (uint32_t)t, found += (uint32_t)f, both += (uint32_t)(t && f);
    }
    double recall = (double)both / tt, precision = (double)both / found;
    fprintf(stderr, "  tail recall %.4f precision %.4f\n", recall, precision);
    assert_true(recall >= 0.98);
    assert_true(precision >= 0.98);
    const sinew_rig_piece *pc = &rep.pieces[tp];
    long k = lroundf(pc->length / (0.1f * rep.scale));
    k = k < 3 ? 3 : (k > 8 ? 8 : k);
    assert_int_equal(pc->segments, (uint32_t)k);
    assert_true(pc->length > 0.5f && pc->length < 1.1f); /* the tube is 0.95 long */
    assert_true(pc->elongation > 2.0f);
    assert_true(pc->distance_before >= 0.25f * m->size.height);
    assert_true(pc->distance_after <= 1.5f * 0.06f); /* the tube's root radius */
    assert_int_equal(plan.chain_count, 1);
    assert_int_equal(plan.chains[0].bone_count, pc->segments + 1);
    sinew_rig_plan_free(&plan);
    sinew_rig_report_free(&rep);
    sinew_model_free(m);
    free(truth);
}

/* Apply to the model: names, parents, at most 4 normalised influences, Tail_End unweighted,
 * vertices outside the tail bit-identical, skinning at the rest pose is the identity for the
 * new bones, and running again finds no new chain. */
static void test_apply_and_rerun(void **state)
{
    (void)state;
    uint8_t *truth;
    sinew_model *m = tube_body(TUBE_TAIL | TUBE_EARS, TUBE_NAMES_MIXAMO, &truth);
    const uint32_t nv = m->mesh.vertex_count, nj0 = m->skin.joint_count;
    const size_t slots = (size_t)nv * SINEW_MAX_INFLUENCES;
    uint16_t *j0 = malloc(slots * sizeof *j0);
    float *w0 = malloc(slots * sizeof *w0);
    memcpy(j0, m->mesh.influence_joints, slots * sizeof *j0);
    memcpy(w0, m->mesh.influence_weights, slots * sizeof *w0);
    sinew_rig_report rep;
    sinew_rig_plan plan;
    sinew_error err;
    assert_int_equal(sinew_rig_find_appendages(m, NULL, &rep, &err), SINEW_OK);
    assert_int_equal(sinew_rig_build_chain(m, NULL, &rep, &plan, &err), SINEW_OK);
    print_report(m, &rep);
    assert_int_equal(count_verdict(&rep, SINEW_RIG_VERDICT_HEAD, NULL), 2);
    uint32_t tp = 0;
    assert_int_equal(count_verdict(&rep, SINEW_RIG_VERDICT_CHAIN, &tp), 1);
    const uint32_t K = rep.pieces[tp].segments;
    uint32_t *piece = malloc(nv * sizeof *piece);
    memcpy(piece, rep.vertex_piece, nv * sizeof *piece);
    assert_int_equal(sinew_rig_apply_model(m, &plan, &err), SINEW_OK);
    assert_int_equal(m->skin.joint_count, nj0 + K + 1);
    for (uint32_t b = 0; b <= K; b++) {
        char want[32];
        if (b == K)
            snprintf(want, sizeof want, "Tail_End");
        else
            snprintf(want, sizeof want, "Tail_%u", b + 1);
        int32_t node = m->skin.joints[nj0 + b].node;
        assert_string_equal(m->nodes[node].name, want);
        int32_t parent = m->nodes[node].parent;
        assert_int_equal(parent, b == 0 ? 0 : m->skin.joints[nj0 + b - 1].node);
        /* Its +Y axis runs along the bone to the next joint (the bone's direction for
         * Blender's importer); Tail_End keeps Tail_K's frame. */
        if (b < K)
            assert_laid_along(m, nj0 + b, nj0 + b, nj0 + b + 1);
        else
            assert_laid_along(m, nj0 + b, nj0 + b - 1, nj0 + b);
    }
    uint32_t changed_outside = 0;
    for (uint32_t v = 0; v < nv; v++) {
        size_t o = (size_t)v * SINEW_MAX_INFLUENCES;
        if (piece[v] != tp) {
            changed_outside += memcmp(j0 + o, m->mesh.influence_joints + o,
                                      SINEW_MAX_INFLUENCES * sizeof *j0) != 0 ||
                               memcmp(w0 + o, m->mesh.influence_weights + o,
                                      SINEW_MAX_INFLUENCES * sizeof *w0) != 0;
            continue;
        }
        float sum = 0;
        int used = 0;
        for (int s = 0; s < SINEW_MAX_INFLUENCES; s++) {
            float w = m->mesh.influence_weights[o + s];
            sum += w;
            used += w > 0;
            if (w > 0) assert_int_not_equal(m->mesh.influence_joints[o + s], nj0 + K);
            if (s > 0) assert_true(w <= m->mesh.influence_weights[o + s - 1]);
        }
        assert_true(used <= 4);
        assert_float_equal(sum, 1.0f, 1e-5f);
        /* The tail's dominant joint is a tail bone for nearly every vertex. */
    }
    assert_int_equal(changed_outside, 0);
    /* Rest pose skinning reproduces bind positions (the new IBMs match the new nodes). */
    sinew_transform *pose = malloc(m->node_count * sizeof *pose);
    sinew_mat4 *world = malloc(m->node_count * sizeof *world);
    sinew_mat4 *skm = malloc(m->skin.joint_count * sizeof *skm);
    sinew_vec3 *out = malloc(nv * sizeof *out);
    sinew_pose_rest(m, pose);
    sinew_pose_to_world(m, pose, world);
    sinew_skin_matrices(m, world, skm);
    sinew_skin_positions(m, skm, out);
    float worst = 0;
    for (uint32_t v = 0; v < nv; v++)
        worst = fmaxf(worst, sinew_vec3_distance(out[v], m->mesh.positions[v]));
    assert_true(worst < 1e-4f);
    /* Again: nothing new. */
    sinew_rig_report rep2;
    assert_int_equal(sinew_rig_find_appendages(m, NULL, &rep2, &err), SINEW_OK);
    fprintf(stderr, "  second run:\n");
    print_report(m, &rep2);
    assert_int_equal(count_verdict(&rep2, SINEW_RIG_VERDICT_CHAIN, NULL), 0);
    sinew_rig_report_free(&rep2);
    free(pose), free(world), free(skm), free(out), free(piece), free(j0), free(w0);
    sinew_rig_plan_free(&plan);
    sinew_rig_report_free(&rep);
    sinew_model_free(m);
    free(truth);
}

/* A pelvis whose bind frame is scaled unevenly (a rig exported with a squashed hips bone):
 * the chain's bones are still laid along the tail, and at rest every chain joint's skin matrix
 * is the identity (its node's TRS composes to exactly its bind). */
static void test_scaled_pelvis(void **state)
{
    (void)state;
    uint8_t *truth;
    sinew_model *m = tube_body(TUBE_TAIL, TUBE_NAMES_MIXAMO, &truth);
    const sinew_vec3 S = sinew_vec3_make(1.3f, 0.7f, 1.1f);
    sinew_mat4 *ibm = &m->skin.joints[0].inverse_bind; /* Hips, the root: T(-p0) */
    for (int r = 0; r < 3; r++) /* S^-1 T(-p0): row r over S_r (column-major) */
        for (int c = 0; c < 4; c++)
            ibm->m[c * 4 + r] /= (&S.x)[r];
    m->nodes[0].local.scale = S;
    sinew_error err;
    assert_int_equal(sinew_model_update_rest(m, &err), SINEW_OK);
    const uint32_t nj0 = m->skin.joint_count;
    sinew_rig_report rep;
    sinew_rig_plan plan;
    assert_int_equal(sinew_rig_find_appendages(m, NULL, &rep, &err), SINEW_OK);
    assert_int_equal(sinew_rig_build_chain(m, NULL, &rep, &plan, &err), SINEW_OK);
    assert_int_equal(plan.chain_count, 1);
    assert_int_equal(sinew_rig_apply_model(m, &plan, &err), SINEW_OK);
    sinew_transform *pose = calloc(m->node_count, sizeof *pose);
    sinew_mat4 *world = calloc(m->node_count, sizeof *world);
    sinew_mat4 *skin = calloc(m->skin.joint_count, sizeof *skin);
    sinew_pose_rest(m, pose);
    sinew_pose_to_world(m, pose, world);
    sinew_skin_matrices(m, world, skin);
    const sinew_mat4 I = sinew_mat4_identity();
    for (uint32_t j = nj0; j < m->skin.joint_count; j++) {
        for (int e = 0; e < 16; e++)
            assert_float_equal(skin[j].m[e], I.m[e], 1e-4f);
        if (j + 1 < m->skin.joint_count) assert_laid_along(m, j, j, j + 1);
    }
    free(pose);
    free(world);
    free(skin);
    sinew_rig_plan_free(&plan);
    sinew_rig_report_free(&rep);
    sinew_model_free(m);
    free(truth);
}

static void test_rigid_mode(void **state)
{
    (void)state;
    uint8_t *truth;
    sinew_model *m = tube_body(TUBE_TAIL, TUBE_NAMES_NONE, &truth);
    sinew_rig_options opt = {.mode = SINEW_RIG_MODE_RIGID};
    sinew_rig_report rep;
    sinew_rig_plan plan;
    assert_int_equal(sinew_rig_find_appendages(m, &opt, &rep, NULL), SINEW_OK);
    assert_int_equal(sinew_rig_build_chain(m, &opt, &rep, &plan, NULL), SINEW_OK);
    uint32_t tp = 0;
    assert_int_equal(count_verdict(&rep, SINEW_RIG_VERDICT_RIGID, &tp), 1);
    assert_int_equal(count_verdict(&rep, SINEW_RIG_VERDICT_CHAIN, NULL), 0);
    assert_int_equal(plan.chain_count, 0);
    uint32_t n = 0;
    for (uint32_t v = 0; v < m->mesh.vertex_count; v++) {
        if (rep.vertex_piece[v] != tp) continue;
        n++;
        assert_int_equal(plan.joints[v * SINEW_MAX_INFLUENCES], rep.landmarks.pelvis);
        assert_float_equal(plan.weights[v * SINEW_MAX_INFLUENCES], 1.0f, 0);
        assert_float_equal(plan.weights[v * SINEW_MAX_INFLUENCES + 1], 0.0f, 0);
    }
    assert_true(n > 500);
    sinew_rig_plan_free(&plan);
    sinew_rig_report_free(&rep);
    sinew_model_free(m);
    free(truth);
}

/* A quiver on the back: left alone by default, dressed rigidly with dress_spine. Ears: head. */
static void test_quiver_and_ears(void **state)
{
    (void)state;
    uint8_t *truth;
    sinew_model *m = tube_body(TUBE_QUIVER | TUBE_EARS, TUBE_NAMES_PLAIN, &truth);
    sinew_rig_report rep;
    sinew_rig_plan plan;
    assert_int_equal(sinew_rig_find_appendages(m, NULL, &rep, NULL), SINEW_OK);
    print_report(m, &rep);
    assert_int_equal(count_verdict(&rep, SINEW_RIG_VERDICT_CHAIN, NULL), 0);
    assert_int_equal(count_verdict(&rep, SINEW_RIG_VERDICT_SPINE, NULL), 1);
    assert_int_equal(count_verdict(&rep, SINEW_RIG_VERDICT_HEAD, NULL), 2);
    assert_int_equal(sinew_rig_build_chain(m, NULL, &rep, &plan, NULL), SINEW_OK);
    assert_int_equal(plan.changed_count, 0);
    sinew_rig_plan_free(&plan);
    sinew_rig_report_free(&rep);
    sinew_rig_options opt = {.dress_spine = 1};
    assert_int_equal(sinew_rig_find_appendages(m, &opt, &rep, NULL), SINEW_OK);
    uint32_t qp = 0;
    assert_int_equal(count_verdict(&rep, SINEW_RIG_VERDICT_DRESSED, &qp), 1);
    assert_int_equal(sinew_rig_build_chain(m, &opt, &rep, &plan, NULL), SINEW_OK);
    assert_true(plan.changed_count > 0);
    for (uint32_t v = 0; v < m->mesh.vertex_count; v++) {
        if (!plan.changed[v]) continue;
        assert_int_equal(rep.vertex_piece[v], qp);
        assert_int_equal(truth[v], 3);
        assert_int_equal(plan.joints[v * SINEW_MAX_INFLUENCES], rep.pieces[qp].attach_joint);
    }
    sinew_rig_plan_free(&plan);
    sinew_rig_report_free(&rep);
    sinew_model_free(m);
    free(truth);
}

/* Same input, same bits; bad input is refused with a message. */
static void test_deterministic_and_bad_input(void **state)
{
    (void)state;
    uint8_t *truth;
    sinew_model *m = tube_body(TUBE_TAIL, TUBE_NAMES_PLAIN, &truth);
    sinew_rig_report r1, r2;
    sinew_rig_plan p1, p2;
    assert_int_equal(sinew_rig_find_appendages(m, NULL, &r1, NULL), SINEW_OK);
    assert_int_equal(sinew_rig_build_chain(m, NULL, &r1, &p1, NULL), SINEW_OK);
    assert_int_equal(sinew_rig_find_appendages(m, NULL, &r2, NULL), SINEW_OK);
    assert_int_equal(sinew_rig_build_chain(m, NULL, &r2, &p2, NULL), SINEW_OK);
    const size_t slots = (size_t)m->mesh.vertex_count * SINEW_MAX_INFLUENCES;
    assert_memory_equal(p1.weights, p2.weights, slots * sizeof *p1.weights);
    assert_memory_equal(p1.chains, p2.chains, p1.chain_count * sizeof *p1.chains);
    sinew_rig_plan_free(&p1);
    sinew_rig_plan_free(&p2);
    sinew_rig_report_free(&r1);
    sinew_rig_report_free(&r2);
    sinew_error err;
    uint32_t saved = m->skin.joint_count;
    m->skin.joint_count = 0;
    assert_int_equal(sinew_rig_find_appendages(m, NULL, &r1, &err), SINEW_ERR_UNSUPPORTED);
    assert_non_null(strstr(err.message, "joints"));
    m->skin.joint_count = saved;
    sinew_model_free(m);
    free(truth);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_landmarks_any_names),
        cmocka_unit_test(test_tail_chain),
        cmocka_unit_test(test_apply_and_rerun),
        cmocka_unit_test(test_scaled_pelvis),
        cmocka_unit_test(test_rigid_mode),
        cmocka_unit_test(test_quiver_and_ears),
        cmocka_unit_test(test_deterministic_and_bad_input),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
