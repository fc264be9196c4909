/* The tail finder run as `sinew tail` runs it (default options), asserting it builds exactly
 * one chain (or none). Header-only, for the rig tests. */
#ifndef SINEW_TEST_ONE_CHAIN_H
#define SINEW_TEST_ONE_CHAIN_H

#include "test_util.h"

#include "sinew/rig.h"

static inline void test_one_chain(const sinew_model *m, sinew_rig_report *rep, sinew_rig_plan *plan)
{
    sinew_error err;
    assert_int_equal(sinew_rig_find_appendages(m, NULL, rep, &err), SINEW_OK);
    assert_int_equal(sinew_rig_build_chain(m, NULL, rep, plan, &err), SINEW_OK);
    assert_int_equal(plan->chain_count, 1);
}

/* ... and asserting it builds none (a creature without a boneless tail, or with its chain). */
static inline void test_no_chain(const sinew_model *m)
{
    sinew_rig_report rep;
    sinew_rig_plan plan;
    sinew_error err;
    assert_int_equal(sinew_rig_find_appendages(m, NULL, &rep, &err), SINEW_OK);
    assert_int_equal(sinew_rig_build_chain(m, NULL, &rep, &plan, &err), SINEW_OK);
    assert_int_equal(plan.chain_count, 0);
    sinew_rig_plan_free(&plan);
    sinew_rig_report_free(&rep);
}

#endif
