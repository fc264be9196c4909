/* Body colliders in the tail job (sinew/pipeline.h, sinew_body_capsules): on the procedural fox
 * the chained skin stays out of the hind legs over every clip at the defaults (colliders off
 * there: the carry and the forward plane do it), and a tail lowered (no carry) and made heavy
 * (gravity 30 m/s^2) that swings into the legs in the sprint without colliders stays out with
 * them, which the default AUTO turns on for a lowered carry; skin held as modelled is not
 * counted inside; and the job turns the colliders on for a tail at the defaults that enters a
 * leg (a real file, skipped without the shared models); and every real tail sinew grows (the
 * notail/ models and the UM bunny) keeps its skin out of the legs, the velociraptor's known
 * shortfall aside. */
#include "test_util.h"

#include "sinew/creature.h"
#include "sinew/document.h"
#include "sinew/metrics.h"
#include "sinew/pipeline.h"

#define DEG ((float)(SINEW_PI / 180.0))

/* The most of the chained skin inside a leg over the fox's clips, and the clip it is in. */
typedef struct legs_result {
    float worst, deepest;
    uint32_t worst_clip, clips, colliders;
    float sprint;
} legs_result;

static legs_result run_fox(const sinew_dyn_params *params, sinew_bake_colliders colliders)
{
    sinew_model *m = NULL;
    sinew_document *doc = NULL;
    assert_int_equal(sinew_creature_build(SINEW_CREATURE_FOX, NULL, &m, NULL, NULL), SINEW_OK);
    assert_int_equal(sinew_document_from_model(m, &doc, NULL), SINEW_OK);
    sinew_tail_options o;
    memset(&o, 0, sizeof o);
    o.bake.params = params;
    o.bake.colliders = colliders;
    o.no_guard = 1; /* the check is not what is measured: it would only cost time */
    sinew_tail_result run;
    sinew_error err;
    sinew_result r = sinew_tail_run(doc, &o, &run, &err);
    if (r != SINEW_OK) print_error("tail: %s\n", err.message);
    assert_int_equal(r, SINEW_OK);
    assert_true(run.baked);
    assert_non_null(run.legs);
    assert_int_equal(run.leg_capsules, 6); /* three bones a leg: thigh, shin, foot */
    legs_result out = {0};
    out.clips = run.model->clip_count;
    out.colliders = run.bakes[0].capsule_count;
    for (uint32_t c = 0; c < run.model->clip_count; c++) {
        const sinew_capsule_share *s = &run.legs[c];
        assert_true(s->samples > 0);
        if (s->share >= out.worst) out.worst = s->share, out.worst_clip = c;
        out.deepest = fmaxf(out.deepest, s->deepest);
        if (!strcmp(run.model->clips[c].name, "Sprint")) out.sprint = s->share;
    }
    print_message("colliders %s (%u capsules): most chained skin inside a leg %.2f%% (%s), "
                  "deepest %.2f of the radius, sprint %.2f%%\n",
                  colliders == SINEW_BAKE_COLLIDERS_OFF  ? "off"
                  : colliders == SINEW_BAKE_COLLIDERS_ON ? "on"
                                                         : "auto",
                  out.colliders, 100.0 * out.worst, run.model->clips[out.worst_clip].name,
                  (double)out.deepest, 100.0 * out.sprint);
    sinew_tail_result_free(&run);
    sinew_document_free(doc);
    sinew_model_free(m);
    return out;
}

static void test_default_tail_stays_out_of_the_legs(void **state)
{
    (void)state;
    const legs_result d = run_fox(NULL, SINEW_BAKE_COLLIDERS_AUTO);
    assert_int_equal(d.colliders, 0); /* a tail at the default carry needs none */
    assert_int_equal(d.clips, 4);
    assert_true(d.worst <= 0.005f);
}

static void test_lowered_tail_is_kept_out_by_colliders(void **state)
{
    (void)state;
    sinew_dyn_params low;
    memset(&low, 0, sizeof low);
    low.carry = 1e-6f * DEG; /* 0 would mean the default */
    low.gravity = 30.0f;
    const legs_result off = run_fox(&low, SINEW_BAKE_COLLIDERS_OFF);
    const legs_result on = run_fox(&low, SINEW_BAKE_COLLIDERS_AUTO);
    assert_int_equal(off.colliders, 0);
    assert_true(on.colliders >= 6); /* AUTO: a lowered carry gets the legs and the torso */
    /* the motion is what the test claims: without colliders the tail enters a leg deep */
    assert_true(off.sprint > 0.01f);
    assert_true(off.deepest > 0.5f);
    assert_true(on.worst <= 0.005f);
    assert_true(on.deepest < 0.5f);
}

/* Skin as modelled is not inside a leg, however thick the capsule: a clip that holds the rest
 * pose counts nothing even with the legs' capsules three times as thick as their skin (so that
 * the hips' and tail root's skin lies inside them at rest), and the same capsules count the
 * skin a sprint pushes deeper. */
static void test_skin_as_modelled_is_not_inside(void **state)
{
    (void)state;
    sinew_model *m = NULL;
    assert_int_equal(sinew_creature_build(SINEW_CREATURE_FOX, NULL, &m, NULL, NULL), SINEW_OK);
    sinew_dyn_capsule caps[SINEW_DYN_MAX_CAPSULES];
    uint32_t count = 0, legs = 0;
    assert_int_equal(sinew_body_capsules(m, caps, SINEW_DYN_MAX_CAPSULES, &count, &legs, NULL),
                     SINEW_OK);
    assert_true(legs >= 2);
    for (uint32_t c = 0; c < legs; c++)
        caps[c].radius *= 3.0f;
    uint8_t *all = malloc(m->mesh.vertex_count);
    memset(all, 1, m->mesh.vertex_count);
    sinew_clip still;
    memset(&still, 0, sizeof still); /* no channels: the rest pose throughout */
    still.duration = 1.0f;
    sinew_capsule_share at_rest, sprint;
    assert_int_equal(sinew_metrics_capsule_share(m, &still, 8, all, caps, legs, &at_rest, NULL),
                     SINEW_OK);
    const int32_t c = sinew_model_find_clip(m, "Sprint");
    assert_true(c >= 0);
    assert_int_equal(
        sinew_metrics_capsule_share(m, &m->clips[c], 8, all, caps, legs, &sprint, NULL), SINEW_OK);
    print_message("capsules x3: inside at rest %.3f%%, in the sprint %.3f%%\n",
                  100.0 * at_rest.share, 100.0 * sprint.share);
    assert_true(at_rest.samples > 0 && at_rest.inside == 0);
    assert_true(sprint.inside > 0);
    free(all);
    sinew_model_free(m);
}

/* The number of the first `legs` capsules whose first node is named `name`. */
static int capsules_from(const sinew_model *m, const sinew_dyn_capsule *caps, uint32_t legs,
                         const char *name)
{
    int n = 0;
    for (uint32_t c = 0; c < legs; c++)
        n += !strcmp(m->nodes[caps[c].node_a].name, name);
    return n;
}

/* A hip socket is no leg: a leg bone that runs level along the line between the hip sockets
 * gets no leg capsule however long it is, while a sprawling thigh that runs out and down keeps
 * its own. The procedural lizard's thighs (BackLeg, 16.7 degrees off that line) keep theirs; the
 * Quaternius velociraptor's and TRex's BackLeg (along it, radius / length 0.87 and 0.70) get
 * none, only the thighs below them do (skipped without the shared models). */
static void test_hip_sockets_are_not_legs(void **state)
{
    (void)state;
    sinew_model *m = NULL;
    sinew_dyn_capsule caps[SINEW_DYN_MAX_CAPSULES];
    uint32_t count = 0, legs = 0;
    assert_int_equal(sinew_creature_build(SINEW_CREATURE_LIZARD, NULL, &m, NULL, NULL), SINEW_OK);
    assert_int_equal(sinew_body_capsules(m, caps, SINEW_DYN_MAX_CAPSULES, &count, &legs, NULL),
                     SINEW_OK);
    assert_int_equal(capsules_from(m, caps, legs, "BackLeg.L"), 1);
    assert_int_equal(capsules_from(m, caps, legs, "BackLeg.R"), 1);
    sinew_model_free(m);
    const char *dir = test_models_dir();
    if (!dir) test_skip();
    const char *files[] = {"notail/quaternius_Velociraptor.glb", "notail/quaternius_TRex.glb"};
    for (size_t f = 0; f < sizeof files / sizeof files[0]; f++) {
        char path[4200];
        snprintf(path, sizeof path, "%s/%s", dir, files[f]);
        sinew_document *doc = NULL;
        assert_int_equal(sinew_document_load_file(path, NULL, &doc, NULL), SINEW_OK);
        /* the tail job's model: its re-weighting takes the tail's root skin off the sockets,
         * which leaves them thinner than long (as loaded, that skin makes them thick) */
        sinew_tail_options o;
        memset(&o, 0, sizeof o);
        o.no_bake = 1;
        o.no_guard = 1;
        sinew_tail_result run;
        sinew_error err;
        if (sinew_tail_run(doc, &o, &run, &err) != SINEW_OK) fail_msg("tail: %s", err.message);
        m = run.model;
        assert_int_equal(sinew_body_capsules(m, caps, SINEW_DYN_MAX_CAPSULES, &count, &legs, NULL),
                         SINEW_OK);
        print_message("%s: %u leg capsules\n", files[f], legs);
        assert_int_equal(legs, 2);
        assert_int_equal(capsules_from(m, caps, legs, "BackLeg.L"), 0);
        assert_int_equal(capsules_from(m, caps, legs, "BackLeg.R"), 0);
        assert_int_equal(capsules_from(m, caps, legs, "BackUpLeg.L"), 1);
        assert_int_equal(capsules_from(m, caps, legs, "BackUpLeg.R"), 1);
        sinew_tail_result_free(&run);
        sinew_document_free(doc);
    }
}

/* The most of the chained skin inside a leg over the clips of a real file's tail job. */
static float worst_in_legs(const char *path, sinew_bake_colliders colliders, int *turned_on,
                           uint32_t *returned)
{
    sinew_document *doc = NULL;
    assert_int_equal(sinew_document_load_file(path, NULL, &doc, NULL), SINEW_OK);
    sinew_tail_options o;
    memset(&o, 0, sizeof o);
    o.bake.colliders = colliders;
    sinew_tail_result run;
    sinew_error err;
    if (sinew_tail_run(doc, &o, &run, &err) != SINEW_OK) fail_msg("tail: %s", err.message);
    float worst = 0;
    for (uint32_t c = 0; run.legs && c < run.model->clip_count; c++)
        worst = fmaxf(worst, run.legs[c].share);
    *turned_on = run.colliders_turned_on;
    *returned = run.returned;
    sinew_tail_result_free(&run);
    sinew_document_free(doc);
    return worst;
}

/* A tail at the defaults whose skin enters a leg (the Khronos fox's in Run, its notail copy)
 * gets the colliders from the job, which keep it under the bar (each link's contact as wide
 * as the farthest skin it moves: at the median, 0.83% stayed inside), and the check gives
 * nothing more back for it; a tail that stays out (the Quaternius wolf's) keeps them off. */
static void test_job_turns_colliders_on_where_the_tail_enters_a_leg(void **state)
{
    (void)state;
    const char *dir = test_models_dir();
    if (!dir) test_skip();
    char path[4200];
    int on;
    uint32_t returned_off, returned;
    snprintf(path, sizeof path, "%s/notail/Fox.glb", dir);
    const float off = worst_in_legs(path, SINEW_BAKE_COLLIDERS_OFF, &on, &returned_off);
    const float chosen = worst_in_legs(path, SINEW_BAKE_COLLIDERS_AUTO, &on, &returned);
    print_message("notail Fox: %.2f%% of its tail skin in a leg with colliders off, %.2f%% as "
                  "the job chose (colliders %s)\n",
                  100.0 * off, 100.0 * chosen, on ? "turned on" : "off");
    assert_true(off > 0.005f);
    assert_true(on);
    assert_true(chosen < off);
    assert_true(chosen <= 0.005f); /* the bar: at most 0.5% of its samples in a leg */
    assert_true(returned <= returned_off);
    snprintf(path, sizeof path, "%s/notail/quaternius_Wolf.glb", dir);
    const float wolf = worst_in_legs(path, SINEW_BAKE_COLLIDERS_AUTO, &on, &returned);
    assert_true(wolf <= 0.005f);
    assert_false(on);
}

/* Every real file sinew grows a tail on keeps its chained skin out of the legs on every clip,
 * at the defaults: each notail/ copy of an artist's tailed creature, and the UM bunny. (The
 * velociraptor was recorded at 1.65% while its hip sockets, BackLeg, had capsules: every entry
 * was its tail's root ring in the ball round a socket, none in a thigh; see
 * test_hip_sockets_are_not_legs.) */
static void test_real_tails_stay_out_of_the_legs(void **state)
{
    (void)state;
    const char *dir = test_models_dir();
    if (!dir) test_skip();
    char sub[4200];
    snprintf(sub, sizeof sub, "%s/notail", dir);
    char names[32][TEST_NAME_SIZE];
    int n = test_glb_files(sub, "notail/", names, 31);
    assert_true(n >= 4);
    if (n < 0) return;
    snprintf(names[n++], sizeof names[0], "quaternius_UM_Bunny.glb");
    for (int i = 0; i < n; i++) {
        char path[8800];
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        int on;
        uint32_t returned;
        const float worst = worst_in_legs(path, SINEW_BAKE_COLLIDERS_AUTO, &on, &returned);
        print_message("%-36s most chained skin inside a leg %.2f%% (colliders %s)\n", names[i],
                      100.0 * worst, on ? "turned on" : "off");
        assert_true(worst <= 0.005f);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_default_tail_stays_out_of_the_legs),
        cmocka_unit_test(test_lowered_tail_is_kept_out_by_colliders),
        cmocka_unit_test(test_skin_as_modelled_is_not_inside),
        cmocka_unit_test(test_hip_sockets_are_not_legs),
        cmocka_unit_test(test_job_turns_colliders_on_where_the_tail_enters_a_leg),
        cmocka_unit_test(test_real_tails_stay_out_of_the_legs),
    };
    return test_exit_code(cmocka_run_group_tests(tests, NULL, NULL));
}
