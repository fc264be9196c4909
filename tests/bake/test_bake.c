/* The bake: loops close, keys land at the clip's rate, nothing but the tail changes, and a
 * preview pose moved between clips changes nothing (the calibration lesson of Sidorkin,
 * "Animating tails the auto-rigger never gave a bone"). */
#include "test_util.h"

#include "dyn/dyn_fixture.h"
#include "sinew/bake.h"

#define KEYS 31 /* one second at 30 keys per second, first key equal to the last */

typedef struct clip_data {
    float times[KEYS];
    float translation[KEYS * 3];
    float rotation[KEYS * 4];
    sinew_channel channels[2];
    sinew_clip clips[2];
} clip_data;

/* Clip 0 "Sway": the hips sway sideways and yaw, one period per second (a loop). Clip 1
 * "Dash": the first quarter of it, ending away from where it began (not a loop). */
static void add_clips(fixture *fx, clip_data *d, float amplitude)
{
    const int hips = fx->hips;
    for (int k = 0; k < KEYS; k++) {
        float t = (float)k / (KEYS - 1), phase = 2.0f * (float)SINEW_PI * t;
        d->times[k] = t;
        d->translation[3 * k] = amplitude * sinf(phase);
        d->translation[3 * k + 1] = fx->nodes[hips].rest.translation.y;
        d->translation[3 * k + 2] = 0;
        sinew_quat q = sinew_quat_from_axis_angle(sinew_vec3_make(0, 1, 0), 0.5f * sinf(phase));
        memcpy(&d->rotation[4 * k], &q, sizeof q);
    }
    d->channels[0] = (sinew_channel){hips,     SINEW_PATH_TRANSLATION, SINEW_INTERP_LINEAR, KEYS,
                                     d->times, d->translation};
    d->channels[1] = (sinew_channel){hips,     SINEW_PATH_ROTATION, SINEW_INTERP_LINEAR, KEYS,
                                     d->times, d->rotation};
    d->clips[0] = (sinew_clip){"Sway", -1, 1.0f, 2, &d->channels[0]};
    d->clips[1] = (sinew_clip){"Dash", -1, 0.25f, 2, &d->channels[0]}; /* a quarter sway */
    fx->model.clips = d->clips;
    fx->model.clip_count = 2;
}

static void build(fixture *fx, clip_data *d, int tail_count)
{
    fixture_opts o = {0};
    o.tail_count = tail_count;
    o.with_end = 1;
    fixture_build(fx, &o);
    fx->model.world_size = fx->model.size; /* the fixture's armature is not scaled */
    add_clips(fx, d, 0.3f);
}

static void test_loop_closes_and_swings(void **state)
{
    (void)state;
    for (int K = 3; K <= 8; K += 5) {
        static fixture fx;
        static clip_data d;
        build(&fx, &d, K);
        sinew_bake_track t;
        assert_int_equal(sinew_bake_clip(&fx.model, NULL, 0, NULL, &t, NULL), SINEW_OK);
        assert_true(t.looping);
        assert_true(t.closed);
        assert_true(t.passes >= 1);
        assert_true(t.rate >= 30.0f);
        assert_int_equal(t.key_count, KEYS);
        assert_int_equal(t.joint_count, K);
        assert_true(t.drift_degrees <= 0.5f); /* closed by the warm-up itself */
        assert_true(t.seam_degrees < 1e-3f);
        assert_true(t.swing_degrees >= 5.0f);
        for (uint32_t i = 0; i < t.key_count * t.joint_count; i++)
            assert_true(isfinite(t.rotations[i].w) && isfinite(t.rotations[i].x));
        /* The track frees itself with the allocator it keeps (no options: malloc's). */
        const sinew_allocator none = {0};
        assert_memory_equal(&t.allocator, &none, sizeof t.allocator);
        sinew_bake_track_free(&t);
        assert_null(t.rotations);
    }
}

static void test_cold_start_would_not_close(void **state)
{
    /* The reason for warm-up passes: recording the first pass from rest leaves a seam. */
    (void)state;
    static fixture fx;
    static clip_data d;
    build(&fx, &d, 5);
    sinew_bake_options one = {0};
    one.max_passes = 1;
    one.closure_tolerance = 1e-9f;
    sinew_bake_track cold, warm;
    assert_int_equal(sinew_bake_clip(&fx.model, NULL, 0, &one, &cold, NULL), SINEW_OK);
    assert_int_equal(sinew_bake_clip(&fx.model, NULL, 0, NULL, &warm, NULL), SINEW_OK);
    assert_false(cold.closed);
    assert_true(warm.closed);
    assert_true(warm.passes > 1);
    assert_true(warm.drift_degrees < cold.drift_degrees);
    assert_true(cold.drift_degrees > 0.5f);
    sinew_bake_track_free(&cold);
    sinew_bake_track_free(&warm);
}

static void test_non_looping_starts_settled(void **state)
{
    (void)state;
    static fixture fx;
    static clip_data d;
    build(&fx, &d, 4);
    sinew_bake_track t;
    assert_int_equal(sinew_bake_clip(&fx.model, NULL, 1, NULL, &t, NULL), SINEW_OK);
    assert_false(t.looping);
    assert_int_equal(t.passes, 0);
    assert_int_equal(t.key_count, 9); /* 0.25 s at 30 per second, both ends */
    assert_true(fabsf(t.times[t.key_count - 1] - 0.25f) < 1e-6f);
    /* Settled: the first key is where the chain comes to rest in the first pose, so a much
     * longer settling gives the same key. */
    sinew_bake_options longer = {0};
    longer.settle_seconds = 120;
    sinew_bake_track t2;
    assert_int_equal(sinew_bake_clip(&fx.model, NULL, 1, &longer, &t2, NULL), SINEW_OK);
    for (uint32_t j = 0; j < t.joint_count; j++)
        assert_true(sinew_quat_angle(sinew_quat_mul(sinew_quat_conjugate(t.rotations[j]),
                                                    t2.rotations[j])) < 0.002f);
    sinew_bake_track_free(&t2);
    sinew_bake_track_free(&t);
}

static void test_bake_is_a_function_of_the_model(void **state)
{
    /* Baking reads the model and nothing else: clips baked in the other order, and again,
     * give tracks equal to a first run's bit for bit, and the model's nodes and clips are
     * left as they were (a viewer may bake while it shows the model). */
    (void)state;
    static fixture fx;
    static clip_data d;
    build(&fx, &d, 6);
    sinew_bake_track first[2], again[2];
    sinew_node nodes_before[FX_MAX_NODES];
    memcpy(nodes_before, fx.nodes, sizeof nodes_before);
    const sinew_clip clips_before[2] = {fx.model.clips[0], fx.model.clips[1]};
    for (uint32_t c = 0; c < 2; c++)
        assert_int_equal(sinew_bake_clip(&fx.model, NULL, c, NULL, &first[c], NULL), SINEW_OK);
    for (uint32_t c = 2; c-- > 0;)
        assert_int_equal(sinew_bake_clip(&fx.model, NULL, c, NULL, &again[c], NULL), SINEW_OK);
    assert_memory_equal(nodes_before, fx.nodes, sizeof nodes_before);
    assert_memory_equal(clips_before, fx.model.clips, sizeof clips_before);
    for (uint32_t c = 0; c < 2; c++) {
        assert_int_equal(first[c].key_count, again[c].key_count);
        assert_memory_equal(first[c].rotations, again[c].rotations,
                            first[c].key_count * first[c].joint_count * sizeof(sinew_quat));
        sinew_bake_track_free(&first[c]);
        sinew_bake_track_free(&again[c]);
    }
}

/* The fixture's clip with a channel array of its own (apply_model grows it); returns it for
 * applied_free. */
static sinew_channel *own_channels(fixture *fx, const clip_data *d)
{
    sinew_channel *own = sinew_alloc(NULL, 2, sizeof *own);
    memcpy(own, d->channels, 2 * sizeof *own);
    fx->model.clips[0].channels = own;
    return own;
}

/* Frees what apply_model added to the clip of own_channels. */
static void applied_free(fixture *fx, sinew_channel *own)
{
    for (uint32_t c = 2; c < fx->model.clips[0].channel_count; c++) {
        sinew_free(NULL, fx->model.clips[0].channels[c].times);
        sinew_free(NULL, fx->model.clips[0].channels[c].values);
    }
    sinew_free(NULL, own == fx->model.clips[0].channels ? own : fx->model.clips[0].channels);
}

static void test_apply_model_plays_the_keys(void **state)
{
    (void)state;
    static fixture fx;
    static clip_data d;
    build(&fx, &d, 4);
    sinew_channel *own = own_channels(&fx, &d);
    sinew_bake_track t;
    assert_int_equal(sinew_bake_clip(&fx.model, NULL, 0, NULL, &t, NULL), SINEW_OK);
    assert_int_equal(sinew_bake_apply_model(&fx.model, &t, NULL), SINEW_OK);
    assert_int_equal(fx.model.clips[0].channel_count, 2 + 4);
    sinew_transform pose[FX_MAX_NODES];
    sinew_clip_sample(&fx.model, &fx.model.clips[0], t.times[7], pose);
    for (uint32_t j = 0; j < t.joint_count; j++)
        assert_true(fabsf(sinew_quat_dot(pose[t.nodes[j]].rotation,
                                         t.rotations[7 * t.joint_count + j])) > 1 - 1e-6f);
    /* The hips channels are untouched. */
    assert_ptr_equal(fx.model.clips[0].channels[0].values, d.translation);
    applied_free(&fx, own);
    sinew_bake_track_free(&t);
}

/* With key_degrees the applied channels keep only the keys a player needs: fewer keys, the
 * first and last among them (the loop stays closed), and what the model plays at every baked
 * key time within the tolerance of the key itself. A tolerance below zero is refused. */
static void test_reduced_keys(void **state)
{
    (void)state;
    static fixture fx;
    static clip_data d;
    build(&fx, &d, 4);
    sinew_channel *own = own_channels(&fx, &d);
    sinew_bake_options opt = {0};
    opt.key_degrees = 0.5f;
    sinew_bake_track t;
    assert_int_equal(sinew_bake_clip(&fx.model, NULL, 0, &opt, &t, NULL), SINEW_OK);
    assert_int_equal(sinew_bake_apply_model(&fx.model, &t, NULL), SINEW_OK);
    uint32_t kept = 0;
    for (uint32_t c = 2; c < fx.model.clips[0].channel_count; c++) {
        const sinew_channel *ch = &fx.model.clips[0].channels[c];
        kept += ch->key_count;
        assert_float_equal(ch->times[0], t.times[0], 0);
        assert_float_equal(ch->times[ch->key_count - 1], t.times[t.key_count - 1], 0);
    }
    fprintf(stderr, "baked %u keys x %u joints, %u written at 0.5 degree\n", t.key_count,
            t.joint_count, kept);
    assert_true(kept < t.key_count * t.joint_count * 3 / 4);
    sinew_transform pose[FX_MAX_NODES];
    float worst = 0;
    for (uint32_t k = 0; k < t.key_count; k++) {
        sinew_clip_sample(&fx.model, &fx.model.clips[0], t.times[k], pose);
        for (uint32_t j = 0; j < t.joint_count; j++) {
            const sinew_quat q = t.rotations[k * t.joint_count + j];
            const sinew_quat e = sinew_quat_mul(sinew_quat_conjugate(q), pose[t.nodes[j]].rotation);
            const float angle = 2.0f * atan2f(sqrtf(e.x * e.x + e.y * e.y + e.z * e.z), fabsf(e.w));
            if (angle > worst) worst = angle;
        }
    }
    assert_true(worst <= 0.5f * (float)(SINEW_PI / 180) * 1.01f);
    applied_free(&fx, own);
    sinew_bake_track_free(&t);
    opt.key_degrees = -1;
    sinew_error err = {0};
    assert_int_equal(sinew_bake_clip(&fx.model, NULL, 0, &opt, &t, &err), SINEW_ERR_ARGUMENT);
    assert_non_null(strstr(err.message, "key tolerance"));
}

/* A stray key far beyond the others: the walk's keys, then one at `last` seconds. The old
 * bake made a key every 1/30 s up to it (1e6 s: 3e7 keys, 70 s and 3.4 GB before failing) or,
 * at 1e30 s, overflowed the float-to-integer count and baked one key as if all was well. */
static void test_stray_key_is_refused(void **state)
{
    (void)state;
    static const float lasts[] = {1e6f, 1e30f, INFINITY};
    for (size_t c = 0; c < sizeof lasts / sizeof lasts[0]; c++) {
        static fixture fx;
        static clip_data d;
        build(&fx, &d, 4);
        d.times[KEYS - 1] = lasts[c];
        fx.model.clips[0].duration = lasts[c];
        sinew_bake_track t;
        sinew_error err = {0};
        assert_int_equal(sinew_bake_clip(&fx.model, NULL, 0, NULL, &t, &err),
                         SINEW_ERR_INVALID_VALUE);
        assert_non_null(strstr(err.message, "\"Sway\""));
        assert_null(t.rotations);
        if (isfinite(lasts[c])) {
            char seconds[64];
            snprintf(seconds, sizeof seconds, "lasts %g s", (double)lasts[c]);
            assert_non_null(strstr(err.message, seconds));
        }
    }
    /* An hour is still baked (the bound is the clip's duration, not its key count). */
    static fixture fx;
    static clip_data d;
    build(&fx, &d, 3);
    d.times[KEYS - 1] = 3600.0f;
    fx.model.clips[0].duration = 3600.0f;
    sinew_bake_track t;
    assert_int_equal(sinew_bake_clip(&fx.model, NULL, 0, NULL, &t, NULL), SINEW_OK);
    /* 30 per second to the rounding of 1 / (1/30) in float: one key more or less */
    assert_true(t.key_count >= 3600 * 30 && t.key_count <= 3600 * 30 + 2);
    sinew_bake_track_free(&t);
}

/* A standing clip: the hips hold their rest for 4 s (KEYS keys), a loop. */
static void build_standing(fixture *fx, clip_data *d)
{
    build(fx, d, 6);
    const sinew_quat still = sinew_quat_identity();
    for (int k = 0; k < KEYS; k++) {
        d->times[k] = 4.0f * (float)k / (KEYS - 1);
        d->translation[3 * k] = 0;
        memcpy(&d->rotation[4 * k], &still, sizeof still);
    }
    fx->model.clips[0].duration = 4.0f;
    fx->model.clip_count = 1;
}

static sinew_bake_track bake_idle(fixture *fx, float idle_degrees, uint32_t seed)
{
    sinew_dyn_params prm = {0};
    prm.idle = idle_degrees * (float)(SINEW_PI / 180.0);
    prm.idle_seed = seed;
    sinew_bake_options o = {0};
    o.params = &prm;
    sinew_bake_track t;
    assert_int_equal(sinew_bake_clip(&fx->model, NULL, 0, &o, &t, NULL), SINEW_OK);
    return t;
}

static int same_keys(const sinew_bake_track *a, const sinew_bake_track *b)
{
    return a->key_count == b->key_count &&
           !memcmp(a->rotations, b->rotations,
                   (size_t)a->key_count * a->joint_count * sizeof(sinew_quat));
}

/* Idle sway on a body that does not move: off, the tail is still (and --idle 0 is the bake
 * without the option, bit for bit); on, the tip swings, the loop closes without a seam, the
 * same seed gives the same bits and another seed another sway. */
static void test_idle_sway_on_a_standing_body(void **state)
{
    (void)state;
    static fixture fx;
    static clip_data d;
    build_standing(&fx, &d);
    sinew_bake_track none, off = bake_idle(&fx, 0, 7), on = bake_idle(&fx, 10, 7);
    assert_int_equal(sinew_bake_clip(&fx.model, NULL, 0, NULL, &none, NULL), SINEW_OK);
    sinew_bake_track again = bake_idle(&fx, 10, 7), other = bake_idle(&fx, 10, 8);
    print_message("standing 4 s: tip swing off %.3f deg, idle 10 deg: %.2f deg (seed 8: %.2f), "
                  "drift %.3f deg after %u passes\n",
                  (double)off.tip_swing_degrees, (double)on.tip_swing_degrees,
                  (double)other.tip_swing_degrees, (double)on.drift_degrees, on.passes);
    assert_true(same_keys(&none, &off));
    assert_true(off.tip_swing_degrees < 0.1f); /* what is left of settling from rest */
    /* the sway is a sum of sinusoids whose peak can be below 1: at least half the amount */
    assert_true(on.tip_swing_degrees >= 5.0f);
    assert_true(other.tip_swing_degrees >= 5.0f);
    assert_true(on.looping && on.closed);
    assert_true(on.drift_degrees <= 0.5f); /* the warm-up closes it, nothing is spread */
    assert_true(on.seam_degrees < 1e-3f);
    assert_true(same_keys(&on, &again));
    assert_false(same_keys(&on, &other));
    sinew_bake_track *all[] = {&none, &off, &on, &again, &other};
    for (size_t k = 0; k < sizeof all / sizeof all[0]; k++)
        sinew_bake_track_free(all[k]);
}

/* Which chains AUTO keeps out of the body's capsules (sinew_bake_colliders_on): a tail at the
 * defaults not, one with a lowered carry or a share of its modelled curve yes, and a wing's or
 * an ear's preset (no carry, resting as modelled, its fields left to the preset) yes; ON and OFF
 * say so whatever the chain; no capsules, no colliders. */
static void test_which_chains_get_colliders(void **state)
{
    (void)state;
    sinew_dyn_capsule capsule = {0, 1, 0.1f, 0.0f};
    sinew_bake_options o;
    memset(&o, 0, sizeof o);
    o.capsules = &capsule;
    o.capsule_count = 1;
    sinew_dyn_params tail, lowered, wing, ear;
    memset(&tail, 0, sizeof tail);
    lowered = wing = ear = tail;
    lowered.carry = 10.0f * (float)(SINEW_PI / 180.0);
    sinew_dyn_params_use_preset(&wing, SINEW_DYN_PRESET_WING);
    sinew_dyn_params_use_preset(&ear, SINEW_DYN_PRESET_EAR);
    assert_false(sinew_bake_colliders_on(&o, NULL));
    assert_false(sinew_bake_colliders_on(&o, &tail));
    assert_true(sinew_bake_colliders_on(&o, &lowered));
    assert_true(sinew_bake_colliders_on(&o, &wing));
    assert_true(sinew_bake_colliders_on(&o, &ear));
    o.colliders = SINEW_BAKE_COLLIDERS_ON;
    assert_true(sinew_bake_colliders_on(&o, &tail));
    o.colliders = SINEW_BAKE_COLLIDERS_OFF;
    assert_false(sinew_bake_colliders_on(&o, &wing));
    o.colliders = SINEW_BAKE_COLLIDERS_AUTO;
    o.capsule_count = 0;
    assert_false(sinew_bake_colliders_on(&o, &wing));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_loop_closes_and_swings),
        cmocka_unit_test(test_cold_start_would_not_close),
        cmocka_unit_test(test_non_looping_starts_settled),
        cmocka_unit_test(test_bake_is_a_function_of_the_model),
        cmocka_unit_test(test_apply_model_plays_the_keys),
        cmocka_unit_test(test_reduced_keys),
        cmocka_unit_test(test_stray_key_is_refused),
        cmocka_unit_test(test_idle_sway_on_a_standing_body),
        cmocka_unit_test(test_which_chains_get_colliders),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
