/* Spring presets and curves along a chain (docs/springs.md):
 *  - every preset's values are the ones docs/springs.md documents (its table is read and each
 *    cell compared in its column's unit), and every preset has a row;
 *  - a preset is what a zero field takes: a rig made with the ear preset has the ear's springs,
 *    and an explicit frequency_root overrides it (the tip keeps the preset's ratio);
 *  - a curve gives the expected per-link values at the root, the middle and the tip, by arc
 *    length on a chain of unequal links, for linear and smoothstep;
 *  - the stability bound counts the most damped end;
 *  - the CLI: --preset takes a preset by name (explicit options override it whether before or
 *    after) and refuses an unknown one, naming the presets. */
#include "test_util.h"

#include <math.h>

#include "dyn_fixture.h"
#include "sinew/dyn.h"

/* A cell's text without the surrounding spaces into out. */
static void cell(const char *from, const char *to, char *out, size_t size)
{
    while (from < to && *from == ' ')
        from++;
    while (to > from && to[-1] == ' ')
        to--;
    size_t n = (size_t)(to - from) < size - 1 ? (size_t)(to - from) : size - 1;
    memcpy(out, from, n);
    out[n] = 0;
}

/* Splits a table row "| a | b |" into at most `max` cells; returns how many. */
static int split_row(const char *line, char cells[][64], int max)
{
    int n = 0;
    const char *p = strchr(line, '|');
    while (p && n < max) {
        const char *q = strchr(p + 1, '|');
        if (!q) break;
        cell(p + 1, q, cells[n++], 64);
        p = q;
    }
    return n;
}

static const char *curve_name(uint32_t c)
{
    return c == SINEW_DYN_CURVE_SMOOTHSTEP ? "smoothstep"
           : c == SINEW_DYN_CURVE_LINEAR   ? "linear"
                                           : "?";
}

static void test_documented_values(void **state)
{
    (void)state;
    char path[4096];
    snprintf(path, sizeof path, "%s/docs/springs.md", SINEW_SOURCE_DIR);
    size_t size;
    char *text = test_read_file(path, &size);
    assert_non_null(text);
    char head[16][64], row[16][64];
    int columns = 0, rows = 0, seen[SINEW_DYN_PRESET_COUNT] = {0};
    for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
        if (!strncmp(line, "| preset |", 10)) {
            columns = split_row(line, head, 16);
            continue;
        }
        if (!columns || line[0] != '|' || !strncmp(line, "|---", 4)) {
            if (columns && line[0] != '|') columns = 0; /* the table ended */
            continue;
        }
        assert_int_equal(split_row(line, row, 16), columns);
        sinew_dyn_preset preset;
        assert_true(sinew_dyn_preset_from_name(row[0], &preset));
        seen[preset]++;
        rows++;
        sinew_dyn_params p;
        sinew_dyn_params_preset(preset, &p);
        assert_int_equal(p.preset, (uint32_t)preset);
        for (int c = 1; c < columns; c++) {
            char field[64];
            sscanf(head[c], "%63s", field); /* "frequency_root (Hz)" -> the field's name */
            if (!strcmp(field, "frequency_curve") || !strcmp(field, "damping_curve")) {
                const uint32_t got =
                    !strcmp(field, "frequency_curve") ? p.frequency_curve : p.damping_curve;
                printf("%s %s: documented %s, library %s\n", row[0], field, row[c],
                       curve_name(got));
                assert_string_equal(row[c], curve_name(got));
                continue;
            }
            double shown = 0;
            const char *unit = NULL;
            assert_true(sinew_dyn_param_unit(field, &unit, &shown)); /* a real float field */
            float value = 0;
            const size_t offsets[] = {offsetof(sinew_dyn_params, frequency_root),
                                      offsetof(sinew_dyn_params, frequency_tip),
                                      offsetof(sinew_dyn_params, damping_ratio),
                                      offsetof(sinew_dyn_params, damping_tip),
                                      offsetof(sinew_dyn_params, gravity),
                                      offsetof(sinew_dyn_params, carry),
                                      offsetof(sinew_dyn_params, rest_curve),
                                      offsetof(sinew_dyn_params, bend_limit),
                                      offsetof(sinew_dyn_params, bind_limit)};
            const char *names[] = {"frequency_root", "frequency_tip", "damping_ratio",
                                   "damping_tip",    "gravity",       "carry",
                                   "rest_curve",     "bend_limit",    "bind_limit"};
            int found = 0;
            for (size_t k = 0; k < sizeof names / sizeof *names; k++)
                if (!strcmp(names[k], field)) {
                    memcpy(&value, (const char *)&p + offsets[k], sizeof value);
                    found = 1;
                }
            assert_true(found);
            const double documented = strtod(row[c], NULL), library = value * shown;
            assert_true(fabs(documented - library) <= 1e-4 * fmax(1.0, fabs(documented)));
        }
    }
    free(text);
    printf("%d documented presets\n", rows);
    for (int k = 0; k < SINEW_DYN_PRESET_COUNT; k++)
        assert_int_equal(seen[k], 1);
    /* Unknown names and presets. */
    sinew_dyn_preset preset = SINEW_DYN_PRESET_EAR;
    assert_false(sinew_dyn_preset_from_name("ears", &preset));
    assert_int_equal(preset, SINEW_DYN_PRESET_EAR);
    assert_null(sinew_dyn_preset_name(SINEW_DYN_PRESET_COUNT));
    sinew_dyn_params bad = {0};
    bad.preset = SINEW_DYN_PRESET_COUNT;
    assert_int_equal(sinew_dyn_params_check(&bad, NULL), SINEW_ERR_ARGUMENT);
}

/* A 1.91 m creature with a tail of 4 links of lengths 0.1, 0.2, 0.3, 0.4 (+ Tail_End): link
 * heads at arc 0, 0.1, 0.3, 0.6 from the root, so t = 0, 1/6, 1/2, 1. */
static void unequal_chain(fixture *fx)
{
    memset(fx, 0, sizeof *fx);
    const sinew_quat I = sinew_quat_identity();
    fx->model.nodes = fx->nodes;
    fx->model.skin.joints = fx->joints;
    fx->model.skin.gltf_skin = -1;
    int root = fx_add(fx, "Root", -1, fx_trs(sinew_vec3_make(0, 0, 0), I));
    fx->hips = fx_add(fx, "Hips", root, fx_trs(sinew_vec3_make(0, 1, 0), I));
    const float lengths[4] = {0.1f, 0.2f, 0.3f, 0.4f};
    float z = -0.1f;
    int parent = fx->hips;
    for (int k = 0; k < 4; k++) {
        char name[16];
        snprintf(name, sizeof name, "Tail_%d", k + 1);
        parent = fx_add(fx, name, parent, fx_trs(sinew_vec3_make(0, 1, z), I));
        z -= lengths[k];
    }
    fx_add(fx, "Tail_End", parent, fx_trs(sinew_vec3_make(0, 1, z), I));
    fx->model.size.height = fx->model.size.scale = 1.91f;
    fx->model.size.length = 1.0f;
}

static void link_spring(const sinew_dyn_rig *rig, uint32_t i, float *t, float *f, float *zeta)
{
    assert_true(sinew_dyn_rig_link_spring(rig, i, t, f, zeta));
}

static void test_preset_and_override(void **state)
{
    (void)state;
    fixture fx;
    unequal_chain(&fx);
    sinew_dyn_params p;
    memset(&p, 0, sizeof p);
    p.preset = SINEW_DYN_PRESET_EAR;
    sinew_dyn_rig *rig = NULL;
    sinew_error err;
    assert_int_equal(sinew_dyn_rig_create(&fx.model, NULL, &p, NULL, &rig, &err), SINEW_OK);
    float t, f, zeta;
    link_spring(rig, 0, &t, &f, &zeta);
    assert_float_equal(f, 4.0f, 1e-6f);
    assert_float_equal(zeta, 0.9f, 1e-6f);
    link_spring(rig, 3, &t, &f, &zeta);
    assert_float_equal(f, 3.0f, 1e-6f);
    assert_float_equal(zeta, 0.8f, 1e-6f);
    sinew_dyn_params resolved;
    sinew_dyn_rig_params(rig, &resolved);
    assert_float_equal(resolved.rest_curve, 1.0f, 0);
    assert_float_equal(resolved.gravity, 0.0f, 0);
    assert_float_equal(resolved.carry, 0.0f, 0);
    sinew_dyn_rig_free(rig);
    /* An explicit root frequency overrides the preset; the tip keeps the preset's 3/4. */
    p.frequency_root = 5.0f;
    assert_int_equal(sinew_dyn_rig_create(&fx.model, NULL, &p, NULL, &rig, &err), SINEW_OK);
    link_spring(rig, 0, NULL, &f, &zeta);
    assert_float_equal(f, 5.0f, 1e-6f);
    assert_float_equal(zeta, 0.9f, 1e-6f);
    link_spring(rig, 3, NULL, &f, NULL);
    assert_float_equal(f, 3.75f, 1e-5f);
    sinew_dyn_rig_free(rig);
    /* The default (no preset) is the published tail: 0.9 Hz falling to half, 0.65 all along. */
    memset(&p, 0, sizeof p);
    assert_int_equal(sinew_dyn_rig_create(&fx.model, NULL, &p, NULL, &rig, &err), SINEW_OK);
    link_spring(rig, 0, NULL, &f, &zeta);
    assert_float_equal(f, 0.9f, 1e-6f);
    link_spring(rig, 3, NULL, &f, &zeta);
    assert_float_equal(f, 0.45f, 1e-6f);
    assert_float_equal(zeta, 0.65f, 1e-6f);
    sinew_dyn_rig_free(rig);
    /* use_preset keeps the caller's floor and steps and clears the springs. */
    sinew_dyn_params_default(&p);
    p.floor_height = 0.25f;
    p.max_step = 1.0f / 120.0f;
    sinew_dyn_params_use_preset(&p, SINEW_DYN_PRESET_WING);
    assert_int_equal(p.preset, SINEW_DYN_PRESET_WING);
    assert_float_equal(p.frequency_root, 0.0f, 0);
    assert_float_equal(p.floor_height, 0.25f, 0);
    assert_float_equal(p.max_step, 1.0f / 120.0f, 0);
}

static void test_curves(void **state)
{
    (void)state;
    assert_float_equal(sinew_dyn_curve_value(SINEW_DYN_CURVE_LINEAR, 2, 1, 0.25f), 1.75f, 1e-6f);
    assert_float_equal(sinew_dyn_curve_value(SINEW_DYN_CURVE_SMOOTHSTEP, 0, 1, 0.25f), 0.15625f,
                       1e-6f);
    assert_float_equal(sinew_dyn_curve_value(SINEW_DYN_CURVE_SMOOTHSTEP, 0, 1, 2.0f), 1.0f, 0);
    fixture fx;
    unequal_chain(&fx);
    sinew_dyn_params p;
    memset(&p, 0, sizeof p);
    p.frequency_root = 2.0f, p.frequency_tip = 1.0f;
    p.damping_ratio = 0.5f, p.damping_tip = 1.0f;
    p.frequency_curve = SINEW_DYN_CURVE_SMOOTHSTEP;
    p.damping_curve = SINEW_DYN_CURVE_LINEAR;
    sinew_dyn_rig *rig = NULL;
    sinew_error err;
    assert_int_equal(sinew_dyn_rig_create(&fx.model, NULL, &p, NULL, &rig, &err), SINEW_OK);
    const float places[4] = {0.0f, 1.0f / 6.0f, 0.5f, 1.0f};
    for (uint32_t i = 0; i < 4; i++) {
        float t, f, zeta;
        link_spring(rig, i, &t, &f, &zeta);
        const float s = places[i] * places[i] * (3 - 2 * places[i]);
        printf("link %u: t %.4f frequency %.4f Hz damping %.4f\n", i, (double)t, (double)f,
               (double)zeta);
        assert_float_equal(t, places[i], 1e-5f);
        assert_float_equal(f, 2.0f - s, 1e-5f);
        assert_float_equal(zeta, 0.5f + 0.5f * places[i], 1e-5f);
    }
    /* Root, middle (link 3 sits at t = 1/2: the smoothstep's midpoint) and tip. */
    float f;
    link_spring(rig, 2, NULL, &f, NULL);
    assert_float_equal(f, 1.5f, 1e-5f);
    assert_false(sinew_dyn_rig_link_spring(rig, 4, NULL, &f, NULL));
    sinew_dyn_rig_free(rig);
}

static void test_stability_counts_damping_tip(void **state)
{
    (void)state;
    sinew_dyn_params p;
    memset(&p, 0, sizeof p);
    p.frequency_root = 6.0f; /* stable at 0.65 (10.4 Hz), not at 2 (4.5 Hz) */
    assert_int_equal(sinew_dyn_params_check(&p, NULL), SINEW_OK);
    p.damping_tip = 2.0f;
    sinew_error err;
    assert_int_equal(sinew_dyn_params_check(&p, &err), SINEW_ERR_ARGUMENT);
    assert_non_null(strstr(err.message, "not stable"));
    p.frequency_curve = 7; /* no such curve */
    p.damping_tip = 0;
    assert_int_equal(sinew_dyn_params_check(&p, NULL), SINEW_ERR_ARGUMENT);
}

/* The CLI prints each joint's frequency and damping when it writes VRM springs: the values
 * the rig's curves gave. 1 when `out` has the row of `joint` with f Hz and damping zeta. */
static int has_spring(const char *out, const char *joint, double f, double zeta)
{
    char row[128];
    snprintf(row, sizeof row, "%-16s %5.2fHz %5.2f", joint, f, zeta);
    return strstr(out, row) != NULL;
}

static void test_cli_preset(void **state)
{
    (void)state;
    char dir[4096], out[65536];
    assert_non_null(test_tmpdir(dir, sizeof dir));
    const char *bin = test_sinew_bin();
    assert_int_equal(test_run(out, sizeof out, "%s creature fox -o %s/fox.glb", bin, dir), 0);
    assert_int_equal(
        test_run(out, sizeof out, "%s tail %s/fox.glb -o %s/t.glb --no-check", bin, dir, dir), 0);
    /* The ear preset: 4 Hz and 0.90 at the root. */
    assert_int_equal(test_run(out, sizeof out,
                              "%s bake %s/t.glb -o %s/a.glb --preset ear "
                              "--vrm-springs",
                              bin, dir, dir),
                     0);
    assert_true(has_spring(out, "Tail_1", 4.0, 0.9));
    /* An explicit option overrides it, before or after --preset. */
    for (int order = 0; order < 2; order++) {
        assert_int_equal(test_run(out, sizeof out,
                                  order ? "%s bake %s/t.glb -o %s/b.glb --preset ear --frequency 5 "
                                          "--vrm-springs"
                                        : "%s bake %s/t.glb -o %s/b.glb --frequency 5 --preset ear "
                                          "--vrm-springs",
                                  bin, dir, dir),
                         0);
        assert_true(has_spring(out, "Tail_1", 5.0, 0.9));
    }
    /* An unknown preset: usage error, the presets named, nothing written. */
    assert_int_equal(
        test_run(out, sizeof out, "%s bake %s/t.glb -o %s/c.glb --preset fur", bin, dir, dir), 2);
    assert_non_null(strstr(out, "--preset wants one of tail, stiff, loose, wing, ear, garment"));
    char path[4200];
    snprintf(path, sizeof path, "%s/c.glb", dir);
    assert_false(test_file_exists(path));
    test_run(NULL, 0, "rm -rf %s", dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_documented_values),
        cmocka_unit_test(test_preset_and_override),
        cmocka_unit_test(test_curves),
        cmocka_unit_test(test_stability_counts_damping_tip),
        cmocka_unit_test(test_cli_preset),
    };
    return test_exit_code(cmocka_run_group_tests(tests, NULL, NULL));
}
