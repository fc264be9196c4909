/* A body made of tubes, built in memory for the rig tests: a 22-ish joint biped (Hips, Spine,
 * Chest, Neck, Head, HeadTop_End, legs, arms) whose tubes are weighted to their bones, plus
 * optional pieces with known truth: a tail hanging from the pelvis, two ears on the head,
 * a quiver on the back. The tail is weighted the way a template rigger leaves it (the left
 * shin and both thighs), with a seam column split so welding matters. */
#ifndef SINEW_TEST_TUBE_BODY_H
#define SINEW_TEST_TUBE_BODY_H

#include <stdio.h>
#include <string.h>

#include "sinew/model.h"

enum { TUBE_TAIL = 1, TUBE_EARS = 2, TUBE_QUIVER = 4 };
enum { TUBE_NAMES_PLAIN = 0, TUBE_NAMES_MIXAMO = 1, TUBE_NAMES_NONE = 2 };

typedef struct tube_builder {
    sinew_model *m;
    uint32_t vcap, tcap;
    uint8_t *truth; /* per vertex: 1 tail, 2 ear, 3 quiver, 0 body */
} tube_builder;

static const char *tube_joint_names[] = {
    "Hips",      "Spine",       "Chest",    "Neck",       "Head",         "HeadTop_End",
    "LeftUpLeg", "LeftLeg",     "LeftFoot", "RightUpLeg", "RightLeg",     "RightFoot",
    "LeftArm",   "LeftForeArm", "LeftHand", "RightArm",   "RightForeArm", "RightHand"};
static const int tube_joint_parent[] = {-1, 0, 1, 2, 3, 4, 0, 6, 7, 0, 9, 10, 2, 12, 13, 2, 15, 16};
static const float tube_joint_pos[][3] = {
    {0, 1.00f, 0},      {0, 1.20f, 0},      {0, 1.42f, 0},         {0, 1.60f, 0},
    {0, 1.70f, 0},      {0, 1.90f, 0},      {-0.11f, 0.95f, 0},    {-0.11f, 0.52f, 0.01f},
    {-0.11f, 0.08f, 0}, {0.11f, 0.95f, 0},  {0.11f, 0.52f, 0.01f}, {0.11f, 0.08f, 0},
    {-0.20f, 1.50f, 0}, {-0.50f, 1.50f, 0}, {-0.76f, 1.50f, 0},    {0.20f, 1.50f, 0},
    {0.50f, 1.50f, 0},  {0.76f, 1.50f, 0}};
#define TUBE_JOINTS 18

static sinew_vec3 tube_jp(int j)
{
    return sinew_vec3_make(tube_joint_pos[j][0], tube_joint_pos[j][1], tube_joint_pos[j][2]);
}

/* Appends an open tube from a to b (radius ra..rb, `rings` x `around` quads), every vertex
 * weighted by `joints/weights` (up to 3) and marked `truth`. The seam column is duplicated. */
static void tube_add(tube_builder *tb, sinew_vec3 a, sinew_vec3 b, float ra, float rb, int rings,
                     int around, const int *joints, const float *weights, int nw, uint8_t truth)
{
    sinew_model *m = tb->m;
    sinew_vec3 axis = sinew_vec3_normalize_or(sinew_vec3_sub(b, a), sinew_vec3_make(0, 1, 0));
    sinew_vec3 ref = fabsf(axis.y) < 0.9f ? sinew_vec3_make(0, 1, 0) : sinew_vec3_make(1, 0, 0);
    sinew_vec3 u = sinew_vec3_normalize_or(sinew_vec3_cross(axis, ref), ref);
    sinew_vec3 w = sinew_vec3_cross(axis, u);
    uint32_t base = m->mesh.vertex_count;
    int cols = around + 1;
    for (int r = 0; r <= rings; r++) {
        float t = (float)r / (float)rings;
        sinew_vec3 c = sinew_vec3_lerp(a, b, t);
        float rad = ra + (rb - ra) * t;
        for (int k = 0; k < cols; k++) {
            float ang = (float)(2 * SINEW_PI) * (float)(k % around) / (float)around;
            sinew_vec3 p = sinew_vec3_add(c, sinew_vec3_add(sinew_vec3_scale(u, rad * cosf(ang)),
                                                            sinew_vec3_scale(w, rad * sinf(ang))));
            uint32_t v = m->mesh.vertex_count++;
            m->mesh.positions[v] = p;
            for (int s = 0; s < nw; s++) {
                m->mesh.influence_joints[v * SINEW_MAX_INFLUENCES + s] = (uint16_t)joints[s];
                m->mesh.influence_weights[v * SINEW_MAX_INFLUENCES + s] = weights[s];
            }
            tb->truth[v] = truth;
        }
    }
    for (int r = 0; r < rings; r++)
        for (int k = 0; k < around; k++) {
            uint32_t i0 = base + (uint32_t)(r * cols + k), i1 = i0 + 1;
            uint32_t i2 = i0 + (uint32_t)cols, i3 = i2 + 1;
            uint32_t *t = &m->mesh.triangles[3 * m->mesh.triangle_count];
            t[0] = i0, t[1] = i2, t[2] = i1, t[3] = i1, t[4] = i2, t[5] = i3;
            m->mesh.triangle_count += 2;
        }
}

/* Builds the body. `parts` is a TUBE_* mask, `names` a TUBE_NAMES_* style. The caller frees
 * the model with sinew_model_free and *truth with free(). */
static sinew_model *tube_body(int parts, int names, uint8_t **truth)
{
    sinew_allocator al;
    memset(&al, 0, sizeof al);
    sinew_model *m = sinew_alloc(&al, 1, sizeof *m);
    const uint32_t vcap = 60000, tcap = 120000;
    m->node_count = TUBE_JOINTS;
    m->nodes = sinew_alloc(&al, TUBE_JOINTS, sizeof *m->nodes);
    m->skin.gltf_skin = -1;
    m->skin.joint_count = TUBE_JOINTS;
    m->skin.joints = sinew_alloc(&al, TUBE_JOINTS, sizeof *m->skin.joints);
    for (int j = 0; j < TUBE_JOINTS; j++) {
        char buf[64];
        if (names == TUBE_NAMES_MIXAMO)
            snprintf(buf, sizeof buf, "mixamorig:%s", tube_joint_names[j]);
        else if (names == TUBE_NAMES_NONE)
            snprintf(buf, sizeof buf, "bone_%d", j);
        else
            snprintf(buf, sizeof buf, "%s", tube_joint_names[j]);
        m->nodes[j].name = sinew_alloc(&al, strlen(buf) + 1, 1);
        memcpy(m->nodes[j].name, buf, strlen(buf) + 1);
        m->nodes[j].parent = tube_joint_parent[j];
        m->nodes[j].gltf_node = -1;
        m->nodes[j].joint = j;
        sinew_vec3 p = tube_jp(j);
        if (tube_joint_parent[j] >= 0) p = sinew_vec3_sub(p, tube_jp(tube_joint_parent[j]));
        m->nodes[j].local = sinew_transform_identity();
        m->nodes[j].local.translation = p;
        sinew_mat4 ibm = sinew_mat4_identity();
        ibm.m[12] = -tube_joint_pos[j][0];
        ibm.m[13] = -tube_joint_pos[j][1];
        ibm.m[14] = -tube_joint_pos[j][2];
        m->skin.joints[j].node = j;
        m->skin.joints[j].inverse_bind = ibm;
    }
    m->mesh.positions = sinew_alloc(&al, vcap, sizeof *m->mesh.positions);
    m->mesh.influence_joints =
        sinew_alloc(&al, (size_t)vcap * SINEW_MAX_INFLUENCES, sizeof *m->mesh.influence_joints);
    m->mesh.influence_weights =
        sinew_alloc(&al, (size_t)vcap * SINEW_MAX_INFLUENCES, sizeof *m->mesh.influence_weights);
    m->mesh.triangles = sinew_alloc(&al, 3 * (size_t)tcap, sizeof *m->mesh.triangles);
    m->mesh.weld = sinew_alloc(&al, vcap, sizeof *m->mesh.weld);
    tube_builder tb = {m, vcap, tcap, calloc(vcap, 1)};
    /* Body: each bone a tube weighted to its joint. */
    static const struct {
        int a, b;
        float r;
    } bones[] = {{0, 1, 0.16f},   {1, 2, 0.16f},   {2, 3, 0.12f},   {3, 4, 0.06f},
                 {4, 5, 0.11f},   {6, 7, 0.085f},  {7, 8, 0.06f},   {9, 10, 0.085f},
                 {10, 11, 0.06f}, {12, 13, 0.05f}, {13, 14, 0.04f}, {15, 16, 0.05f},
                 {16, 17, 0.04f}};
    for (size_t i = 0; i < sizeof bones / sizeof bones[0]; i++) {
        int j = bones[i].a;
        float w = 1;
        tube_add(&tb, tube_jp(bones[i].a), tube_jp(bones[i].b), bones[i].r, bones[i].r, 12, 24, &j,
                 &w, 1, 0);
    }
    if (parts & TUBE_TAIL) {
        int j[3] = {7, 6, 9}; /* left shin, both thighs: a template rigger's guess */
        float w[3] = {0.5f, 0.25f, 0.25f};
        tube_add(&tb, sinew_vec3_make(0, 0.95f, -0.10f), sinew_vec3_make(0, 0.30f, -0.80f), 0.06f,
                 0.02f, 40, 16, j, w, 3, 1);
    }
    if (parts & TUBE_EARS) {
        int j = 4;
        float w = 1;
        tube_add(&tb, sinew_vec3_make(-0.06f, 1.86f, 0), sinew_vec3_make(-0.12f, 2.16f, 0), 0.03f,
                 0.01f, 10, 10, &j, &w, 1, 2);
        tube_add(&tb, sinew_vec3_make(0.06f, 1.86f, 0), sinew_vec3_make(0.12f, 2.16f, 0), 0.03f,
                 0.01f, 10, 10, &j, &w, 1, 2);
    }
    if (parts & TUBE_QUIVER) {
        int j[2] = {1, 2}; /* the rigger split it between Spine and Chest */
        float w[2] = {0.5f, 0.5f};
        tube_add(&tb, sinew_vec3_make(0.10f, 1.25f, -0.20f), sinew_vec3_make(-0.15f, 1.85f, -0.22f),
                 0.05f, 0.05f, 20, 12, j, w, 2, 3);
    }
    uint32_t *scratch = calloc(m->mesh.vertex_count + 1, sizeof *scratch);
    sinew_mesh_weld(&m->mesh, scratch);
    free(scratch);
    m->allocator = al;
    sinew_model_update_size(m);
    sinew_model_update_rest(m, NULL);
    *truth = tb.truth;
    return m;
}

#endif
