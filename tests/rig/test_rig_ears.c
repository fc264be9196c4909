/* Ears on request (sinew_rig_options.ears), on the procedural creatures (no files needed):
 *  - the rabbit without the option: its ears stay rigid with the head (no ear verdict, no
 *    chain); with it: its two ears are a left/right pair, one chain each of two or three
 *    segments from the head, named Ear_L_* and Ear_R_*, mirror images of each other, and the
 *    skin they take is the rabbit's ear skin (recall and precision against the generator's
 *    truth) although the two ears touch at their roots;
 *  - the whole job (sinew_tail_run with ears) on the rabbit: over each of its clips the ear
 *    skin is torn on at most 0.5% of its edge samples with its p99 within max(body p99,
 *    1.30), the body is no worse than the input's by the check's own bar, and the ear bones
 *    have keys (the springs' motion baked); sinew_bake_ears finds the two chains by name;
 *  - a random creature with long ears and horns: the ears are found, the horns are not
 *    ears;
 *  - a random creature whose tail harms its body: the check drops the tail alone and keeps
 *    its ears. */
#include "test_util.h"

#include "pair_skin.h"

#include <math.h>

#include "sinew/creature.h"
#include "sinew/document.h"
#include "sinew/pipeline.h"
#include "sinew/rig.h"

/* Recall and precision of the ear chains' skin (dominant joint a bone of an ear chain)
 * against the truth's ear pieces. */
static void ear_overlap(const sinew_model *m, const sinew_creature_truth *truth,
                        const sinew_rig_plan *plan, double *recall, double *precision)
{
    uint32_t t = 0, s = 0, both = 0;
    for (uint32_t v = 0; v < m->mesh.vertex_count; v++) {
        const int is_t = truth->pieces[truth->vertex_piece[v]].part == SINEW_CREATURE_PART_EAR;
        const uint16_t j = plan->joints[(size_t)v * SINEW_MAX_INFLUENCES];
        int is_s = 0;
        for (uint32_t c = 0; c < plan->chain_count; c++)
            is_s |= plan->chains[c].ear && j >= plan->chains[c].first_joint &&
                    j < plan->chains[c].first_joint + plan->chains[c].bone_count;
        t += (uint32_t)is_t, s += (uint32_t)is_s, both += (uint32_t)(is_t && is_s);
    }
    *recall = t ? (double)both / t : 0;
    *precision = s ? (double)both / s : 0;
}

static void test_rabbit_finder(void **state)
{
    (void)state;
    sinew_model *m = NULL;
    sinew_creature_truth truth;
    sinew_error err;
    assert_int_equal(sinew_creature_build(SINEW_CREATURE_RABBIT, NULL, &m, &truth, &err), SINEW_OK);
    sinew_rig_report rep;
    sinew_rig_plan plan;
    /* Without the option: no ear, no chain. */
    assert_int_equal(sinew_rig_find_appendages(m, NULL, &rep, &err), SINEW_OK);
    assert_int_equal(count_verdict(&rep, SINEW_RIG_VERDICT_EAR), 0);
    assert_int_equal(sinew_rig_build_chain(m, NULL, &rep, &plan, &err), SINEW_OK);
    assert_int_equal(plan.chain_count, 0);
    sinew_rig_plan_free(&plan);
    sinew_rig_report_free(&rep);
    /* With it: a pair. */
    sinew_rig_options opt;
    memset(&opt, 0, sizeof opt);
    opt.ears = 1;
    assert_int_equal(sinew_rig_find_appendages(m, &opt, &rep, &err), SINEW_OK);
    assert_int_equal(count_verdict(&rep, SINEW_RIG_VERDICT_EAR), 2);
    for (uint32_t p = 0; p < rep.piece_count; p++) {
        const sinew_rig_piece *pc = &rep.pieces[p];
        if (pc->verdict != SINEW_RIG_VERDICT_EAR) continue;
        const sinew_rig_piece *other = &rep.pieces[pc->wing_partner];
        assert_int_equal(other->verdict, SINEW_RIG_VERDICT_EAR);
        assert_int_equal(other->wing_partner, (int32_t)p);
        assert_int_equal(other->wing_side, -pc->wing_side);
    }
    assert_int_equal(sinew_rig_build_chain(m, &opt, &rep, &plan, &err), SINEW_OK);
    assert_int_equal(plan.chain_count, 2);
    const sinew_rig_chain *left = &plan.chains[0], *right = &plan.chains[1];
    if (left->ear < 0) left = &plan.chains[1], right = &plan.chains[0];
    assert_int_equal(left->ear, 1);
    assert_int_equal(right->ear, -1);
    assert_int_equal(left->wing, 0);
    assert_int_equal(left->bone_count, right->bone_count);
    assert_true(left->bone_count >= 3 && left->bone_count <= 4); /* 2-3 segments + the end */
    assert_string_equal(left->bones[0].name, "Ear_L_1");
    assert_string_equal(right->bones[right->bone_count - 1].name, "Ear_R_End");
    assert_int_equal(left->parent_joint, rep.landmarks.head);
    assert_int_equal(right->parent_joint, rep.landmarks.head);
    /* Mirror images across the plane halfway between the roots, to float rounding. */
    const float H = m->size.scale;
    const sinew_vec3 a = left->bones[0].head, b = right->bones[0].head;
    const sinew_vec3 n = sinew_vec3_normalize_or(sinew_vec3_sub(a, b), sinew_vec3_make(1, 0, 0));
    const float d = sinew_vec3_dot(n, sinew_vec3_scale(sinew_vec3_add(a, b), 0.5f));
    float worst = 0;
    for (uint32_t k = 0; k < left->bone_count; k++)
        worst = fmaxf(
            worst, sinew_vec3_distance(reflect(left->bones[k].head, n, d), right->bones[k].head));
    /* The left ear is on +X (glTF characters face +Z). */
    assert_true(left->bones[0].head.x > 0 && right->bones[0].head.x < 0);
    double recall, precision;
    ear_overlap(m, &truth, &plan, &recall, &precision);
    printf("rabbit: %u bones per ear, mirror error %.2g H, ear skin recall %.4f precision %.4f\n",
           left->bone_count, (double)(worst / H), recall, precision);
    assert_true(worst <= 1e-4f * H);
    assert_true(recall >= 0.90);
    assert_true(precision >= 0.95);
    sinew_rig_plan_free(&plan);
    sinew_rig_report_free(&rep);
    sinew_creature_truth_free(&truth);
    sinew_model_free(m);
}

static void test_rabbit_job(void **state)
{
    (void)state;
    sinew_model *m = NULL;
    sinew_creature_truth truth;
    sinew_error err;
    assert_int_equal(sinew_creature_build(SINEW_CREATURE_RABBIT, NULL, &m, &truth, &err), SINEW_OK);
    sinew_document *doc = NULL;
    assert_int_equal(sinew_document_from_model(m, &doc, &err), SINEW_OK);
    sinew_tail_options o;
    memset(&o, 0, sizeof o);
    o.rig.ears = 1;
    sinew_tail_result res;
    assert_int_equal(sinew_tail_run(doc, &o, &res, &err), SINEW_OK);
    assert_non_null(res.model);
    assert_int_equal(res.plan.chain_count, 2);
    assert_int_equal(res.dropped, 0);
    assert_true(res.guarded && res.baked);
    assert_true(sinew_model_find_node(res.model, "Ear_L_1") >= 0);
    assert_true(sinew_model_find_node(res.model, "Ear_R_1") >= 0);
    assert_true(res.model->clip_count >= 4);
    for (uint32_t c = 0; c < res.model->clip_count; c++) {
        check_pair_skin(res.model, c, "Ear", 6); /* two chains of 2 segments and ends */
        /* Do no harm: the rest of the skin as the input had it, by the check's own bar (0.1
         * point more torn or p99 up by 0.02 drops a chain). */
        const sinew_tail_guard_clip *g = &res.clips[c];
        assert_true(g->body_after.torn_share <= g->body_before.torn_share + 0.001f);
        assert_true(g->body_after.p99 <= g->body_before.p99 + 0.02f);
    }
    /* `sinew bake` finds the two ear chains again by name and bakes them. */
    uint32_t ears = 0;
    assert_int_equal(sinew_bake_ears(NULL, res.model, NULL, &ears, &err), SINEW_OK);
    assert_int_equal(ears, 2);
    sinew_tail_result_free(&res);
    sinew_document_free(doc);
    sinew_creature_truth_free(&truth);
    sinew_model_free(m);
}

static void test_random_ears_and_horns(void **state)
{
    (void)state;
    /* Seed 61 draws a quadruped with long ears and horns beside them, whose boxes overlap on
     * the head: the horns must neither be ears nor be merged into them. */
    sinew_creature_traits tr;
    sinew_creature_random_traits(61, &tr);
    assert_true(tr.ears_long && tr.horn_count == 2);
    sinew_model *m = NULL;
    sinew_creature_truth truth;
    sinew_error err;
    assert_int_equal(sinew_creature_build_random(61, NULL, &m, &truth, &err), SINEW_OK);
    sinew_rig_options opt;
    memset(&opt, 0, sizeof opt);
    opt.ears = 1;
    sinew_rig_report rep;
    sinew_rig_plan plan;
    assert_int_equal(sinew_rig_find_appendages(m, &opt, &rep, &err), SINEW_OK);
    assert_int_equal(count_verdict(&rep, SINEW_RIG_VERDICT_EAR), 2);
    assert_int_equal(sinew_rig_build_chain(m, &opt, &rep, &plan, &err), SINEW_OK);
    double recall, precision;
    ear_overlap(m, &truth, &plan, &recall, &precision);
    printf("seed 61: %u chains, ear skin recall %.4f precision %.4f\n", plan.chain_count, recall,
           precision);
    assert_true(recall >= 0.95);
    assert_true(precision >= 0.95);
    sinew_rig_plan_free(&plan);
    sinew_rig_report_free(&rep);
    sinew_creature_truth_free(&truth);
    sinew_model_free(m);
}

/* sinew_tail_run on random creature `seed`, ears on or off; *doc and *res to free. */
static void run_random(uint64_t seed, int ears, sinew_document **doc, sinew_tail_result *res)
{
    sinew_model *m = NULL;
    sinew_creature_truth truth;
    sinew_error err;
    assert_int_equal(sinew_creature_build_random(seed, NULL, &m, &truth, &err), SINEW_OK);
    assert_int_equal(sinew_document_from_model(m, doc, &err), SINEW_OK);
    sinew_tail_options o;
    memset(&o, 0, sizeof o);
    o.rig.ears = ears;
    o.no_bake = 1; /* the check still plays a baked trial */
    assert_int_equal(sinew_tail_run(*doc, &o, res, &err), SINEW_OK);
    sinew_creature_truth_free(&truth);
    sinew_model_free(m);
}

static void test_tail_dropped_alone(void **state)
{
    (void)state;
    /* Seed 4's tail harms its body, with or without ears (the check drops it); its long
     * ears do not, and keep their chains when the tail goes. (Seeds 183 and 178 did until
     * their borders followed the folds at their welded rims, closed and then bridged: their
     * bodies are no worse now.) */
    sinew_document *doc = NULL;
    sinew_tail_result res;
    run_random(4, 0, &doc, &res);
    assert_int_equal(res.dropped, 1);
    assert_int_equal(res.plan.chain_count, 0);
    sinew_tail_result_free(&res);
    sinew_document_free(doc);
    run_random(4, 1, &doc, &res);
    printf("seed 4 with ears: %u chains kept, %u dropped (%u ears)\n", res.plan.chain_count,
           res.dropped, res.dropped_ears);
    assert_int_equal(res.dropped, 1);
    assert_int_equal(res.dropped_ears, 0);
    assert_int_equal(res.plan.chain_count, 2);
    assert_true(res.plan.chains[0].ear && res.plan.chains[1].ear);
    assert_true(res.guarded);
    for (uint32_t c = 0; c < res.clip_count; c++)
        assert_true(res.clips[c].ear_after.torn_share <=
                    res.clips[c].ear_before.torn_share + 0.001f);
    sinew_tail_result_free(&res);
    sinew_document_free(doc);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rabbit_finder),
        cmocka_unit_test(test_rabbit_job),
        cmocka_unit_test(test_random_ears_and_horns),
        cmocka_unit_test(test_tail_dropped_alone),
    };
    return test_exit_code(cmocka_run_group_tests(tests, NULL, NULL));
}
