/* Unit tests for the math module: quaternions, inverses, decomposition, Jacobi. */
#include "test_util.h"

#include "sinew/math.h"

static uint32_t rng_state = 12345u;
static float frand(void) /* deterministic xorshift in [-1, 1) */
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 17;
    rng_state ^= rng_state << 5;
    return (float)(rng_state & 0xffffff) / (float)0x800000 - 1.0f;
}

static sinew_quat random_quat(void)
{
    return sinew_quat_normalize(sinew_quat_make(frand(), frand(), frand(), frand()));
}

static void test_quat_rotate_matches_matrix(void **state)
{
    (void)state;
    for (int i = 0; i < 1000; i++) {
        sinew_quat q = random_quat();
        sinew_transform t = {{0, 0, 0}, q, {1, 1, 1}};
        sinew_mat4 m = sinew_mat4_from_transform(t);
        sinew_vec3 v = sinew_vec3_make(frand(), frand(), frand());
        sinew_vec3 a = sinew_quat_rotate(q, v), b = sinew_mat4_transform_dir(&m, v);
        assert_true(sinew_vec3_distance(a, b) < 1e-5f);
        sinew_quat back = sinew_quat_from_mat4(&m);
        assert_true(fabsf(sinew_quat_dot(back, q)) > 1.0f - 1e-5f);
    }
}

static void test_swing_takes_a_to_b(void **state)
{
    (void)state;
    for (int i = 0; i < 1000; i++) {
        sinew_vec3 a = sinew_vec3_normalize_or(sinew_vec3_make(frand(), frand(), frand()),
                                               sinew_vec3_make(1, 0, 0));
        sinew_vec3 b = sinew_vec3_normalize_or(sinew_vec3_make(frand(), frand(), frand()),
                                               sinew_vec3_make(0, 1, 0));
        if (i == 0) b = sinew_vec3_scale(a, -1); /* the antiparallel case */
        sinew_vec3 r = sinew_quat_rotate(sinew_quat_swing(a, b), a);
        assert_true(sinew_vec3_distance(r, b) < 1e-4f);
    }
}

static void test_slerp_ends_and_middle(void **state)
{
    (void)state;
    sinew_quat a = sinew_quat_identity();
    sinew_quat b = sinew_quat_from_axis_angle(sinew_vec3_make(0, 1, 0), 1.0f);
    sinew_quat m = sinew_quat_slerp(a, b, 0.5f);
    assert_true(fabsf(sinew_quat_angle(m) - 0.5f) < 1e-5f);
    assert_true(fabsf(sinew_quat_dot(sinew_quat_slerp(a, b, 1.0f), b)) > 1 - 1e-6f);
}

static void test_invert_and_decompose(void **state)
{
    (void)state;
    for (int i = 0; i < 500; i++) {
        sinew_transform t = {
            sinew_vec3_make(frand() * 10, frand() * 10, frand() * 10), random_quat(),
            sinew_vec3_make(0.5f + fabsf(frand()), 0.5f + fabsf(frand()), 0.5f + fabsf(frand()))};
        sinew_mat4 m = sinew_mat4_from_transform(t), inv, inv2;
        assert_true(sinew_mat4_invert(&m, &inv));
        assert_true(sinew_mat4_invert_affine(&m, &inv2));
        sinew_mat4 id = sinew_mat4_mul(&m, &inv);
        for (int k = 0; k < 16; k++) {
            assert_true(fabsf(id.m[k] - (k % 5 == 0 ? 1.0f : 0.0f)) < 1e-4f);
            assert_true(fabsf(inv.m[k] - inv2.m[k]) < 1e-4f);
        }
        sinew_transform d = sinew_mat4_decompose(&m);
        assert_true(sinew_vec3_distance(d.translation, t.translation) < 1e-4f);
        assert_true(sinew_vec3_distance(d.scale, t.scale) < 1e-4f);
        assert_true(fabsf(sinew_quat_dot(d.rotation, t.rotation)) > 1 - 1e-5f);
    }
    sinew_mat4 zero = {{0}};
    sinew_mat4 out = sinew_mat4_identity();
    assert_false(sinew_mat4_invert(&zero, &out));
    assert_true(out.m[0] == 1.0f); /* untouched on failure */
}

static void test_jacobi_eigen(void **state)
{
    (void)state;
    for (int trial = 0; trial < 200; trial++) {
        double a[16];
        for (int r = 0; r < 4; r++)
            for (int c = r; c < 4; c++)
                a[r * 4 + c] = a[c * 4 + r] = frand();
        double values[4], vectors[16];
        sinew_sym4_eigen(a, values, vectors);
        for (int k = 0; k < 4; k++) {
            if (k) assert_true(values[k - 1] >= values[k]);
            for (int r = 0; r < 4; r++) { /* A v = lambda v */
                double av = 0;
                for (int c = 0; c < 4; c++)
                    av += a[r * 4 + c] * vectors[c * 4 + k];
                assert_true(fabs(av - values[k] * vectors[r * 4 + k]) < 1e-10);
            }
        }
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_quat_rotate_matches_matrix),
        cmocka_unit_test(test_swing_takes_a_to_b),
        cmocka_unit_test(test_slerp_ends_and_middle),
        cmocka_unit_test(test_invert_and_decompose),
        cmocka_unit_test(test_jacobi_eigen),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
