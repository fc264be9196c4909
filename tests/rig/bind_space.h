/* Moving a model's bind space, for the rig tests: the finder must not care which way a file
 * faces, where it stands or what unit it is in. Header-only. */
#ifndef SINEW_TEST_BIND_SPACE_H
#define SINEW_TEST_BIND_SPACE_H

#include "test_util.h"

#include "sinew/model.h"

/* Moves the model's bind space by T: skin and skeleton together, the scene graph as it was, so
 * the creature stands where it stood and only the file's coordinates differ. */
static inline void move_bind_space(sinew_model *m, const sinew_mat4 *T)
{
    sinew_mat4 Ti;
    assert_true(sinew_mat4_invert_affine(T, &Ti));
    for (uint32_t v = 0; v < m->mesh.vertex_count; v++)
        m->mesh.positions[v] = sinew_mat4_transform_point(T, m->mesh.positions[v]);
    for (uint32_t j = 0; j < m->skin.joint_count; j++) {
        m->skin.joints[j].bind = sinew_mat4_mul(T, &m->skin.joints[j].bind);
        m->skin.joints[j].inverse_bind = sinew_mat4_mul(&m->skin.joints[j].inverse_bind, &Ti);
    }
    sinew_model_update_size(m);
}

#endif
