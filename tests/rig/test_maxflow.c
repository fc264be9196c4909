/* The maximum flow under the fold bridge (src/rig/maxflow.c): the flow's value and which side
 * of the minimum cut each node is on, on networks whose answers are known. */
#include "rig/rig_internal.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

static const sinew_allocator heap = {0};

/* The network of T. H. Cormen et al., "Introduction to Algorithms" (3rd ed., figure 26.6):
 * maximum flow 23, its one minimum cut {s, v1, v2, v4} | {v3, t} (12 + 7 + 4). */
static void test_textbook_network(void **st)
{
    (void)st;
    enum { s, v1, v2, v3, v4, t, nodes };
    rig_flow f;
    sinew_error err;
    assert_int_equal(rig_flow_init(&f, &heap, nodes, 9, &err), SINEW_OK);
    rig_flow_arc(&f, s, v1, 16);
    rig_flow_arc(&f, s, v2, 13);
    rig_flow_arc(&f, v1, v3, 12);
    rig_flow_arc(&f, v2, v1, 4);
    rig_flow_arc(&f, v2, v4, 14);
    rig_flow_arc(&f, v3, v2, 9);
    rig_flow_arc(&f, v3, t, 20);
    rig_flow_arc(&f, v4, v3, 7);
    rig_flow_arc(&f, v4, t, 4);
    assert_float_equal(rig_flow_max(&f, s, t), 23, 1e-9);
    const int source_side[nodes] = {1, 1, 1, 0, 1, 0};
    for (int v = 0; v < nodes; v++)
        assert_int_equal(rig_flow_source_side(&f, (uint32_t)v), source_side[v]);
    rig_flow_free(&f);
}

/* A ring of vertices split into in and out nodes, as crease.c builds it: the cheapest vertex on
 * each of two parallel paths is cut, whatever order the arcs came in, and again after a
 * vertex's cost is raised; an uncuttable path says so. */
static void test_vertex_cut(void **st)
{
    (void)st;
    /* two paths s -> a_i -> b_i -> t, vertex costs a0 5, b0 2, a1 1, b1 3 */
    enum { s, a0_in, a0_out, b0_in, b0_out, a1_in, a1_out, b1_in, b1_out, t, nodes };
    rig_flow f;
    sinew_error err;
    assert_int_equal(rig_flow_init(&f, &heap, nodes, 10, &err), SINEW_OK);
    rig_flow_arc(&f, b1_out, t, RIG_FLOW_INFINITE);
    rig_flow_arc(&f, a0_in, a0_out, 5);
    rig_flow_arc(&f, s, a0_in, RIG_FLOW_INFINITE);
    rig_flow_arc(&f, a0_out, b0_in, RIG_FLOW_INFINITE);
    rig_flow_arc(&f, b0_in, b0_out, 2);
    rig_flow_arc(&f, b0_out, t, RIG_FLOW_INFINITE);
    rig_flow_arc(&f, s, a1_in, RIG_FLOW_INFINITE);
    const uint32_t a1 = rig_flow_arc(&f, a1_in, a1_out, 4);
    rig_flow_set(&f, a1, 1); /* added at the most it may cost, lowered before the flow */
    rig_flow_arc(&f, a1_out, b1_in, RIG_FLOW_INFINITE);
    rig_flow_arc(&f, b1_in, b1_out, 3);
    assert_float_equal(rig_flow_max(&f, s, t), 3, 1e-9);
    /* cut: b0 (in on the source's side, out not) and a1 */
    assert_true(rig_flow_source_side(&f, b0_in) && !rig_flow_source_side(&f, b0_out));
    assert_true(rig_flow_source_side(&f, a1_in) && !rig_flow_source_side(&f, a1_out));
    assert_true(rig_flow_source_side(&f, a0_in) == rig_flow_source_side(&f, a0_out));
    assert_true(rig_flow_source_side(&f, b1_in) == rig_flow_source_side(&f, b1_out));
    /* a1 raised back to 4: the flow goes on from 3 to 5, and b1 is cut instead */
    rig_flow_set(&f, a1, 4);
    assert_float_equal(rig_flow_max(&f, s, t), 5, 1e-9);
    assert_true(rig_flow_source_side(&f, b0_in) && !rig_flow_source_side(&f, b0_out));
    assert_true(rig_flow_source_side(&f, b1_in) && !rig_flow_source_side(&f, b1_out));
    assert_true(rig_flow_source_side(&f, a1_in) == rig_flow_source_side(&f, a1_out));
    rig_flow_free(&f);

    assert_int_equal(rig_flow_init(&f, &heap, 3, 3, &err), SINEW_OK);
    rig_flow_arc(&f, 0, 1, RIG_FLOW_INFINITE);
    rig_flow_arc(&f, 1, 2, RIG_FLOW_INFINITE);
    rig_flow_arc(&f, 0, 2, 1);
    assert_true(rig_flow_max(&f, 0, 2) >= RIG_FLOW_INFINITE);
    rig_flow_free(&f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_textbook_network),
        cmocka_unit_test(test_vertex_cut),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
