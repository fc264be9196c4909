/* Giving a model's mesh new arrays in place: the test and bench code that makes finer or
 * coarser copies of a mesh (split_mesh.h, simplify_mesh.h) builds them, this installs them.
 * Header-only, bench and test code only. */
#ifndef SINEW_MESH_ARRAYS_H
#define SINEW_MESH_ARRAYS_H

#include "sinew/model.h"

/* Frees model's mesh arrays and installs these (allocated with the model's allocator) for
 * vn vertices and nt triangles; the primitive ranges go (they no longer name the document's
 * primitives) and the weld is rebuilt (`scratch`: vn scratch entries). */
static inline void install_mesh_arrays(sinew_model *model, uint32_t vn, sinew_vec3 *positions,
                                       uint16_t *joints, float *weights, uint32_t *weld,
                                       uint32_t nt, uint32_t *triangles, uint32_t *scratch)
{
    sinew_mesh *m = &model->mesh;
    sinew_allocator *al = &model->allocator;
    sinew_free(al, m->positions), sinew_free(al, m->triangles);
    sinew_free(al, m->influence_joints), sinew_free(al, m->influence_weights);
    sinew_free(al, m->weld), sinew_free(al, m->ranges);
    m->positions = positions, m->triangles = triangles, m->influence_joints = joints;
    m->influence_weights = weights, m->weld = weld;
    m->vertex_count = vn, m->triangle_count = nt;
    m->ranges = NULL, m->range_count = 0;
    sinew_mesh_weld(m, scratch);
}

#endif
