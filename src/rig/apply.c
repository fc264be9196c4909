/* Writing a chain into the model and into the glTF document. Edits append (nodes, skin joints
 * with their inverse bind matrices) or replace exactly the JOINTS/WEIGHTS of the primitives
 * that hold a changed vertex; every other primitive, clip and byte passes through. */
#include "rig_internal.h"
#include "sinew/document.h"

#include <string.h>

/* 1 when range i comes from a copy of the model's skin that no earlier range came from. */
static int copy_skin_first_range(const sinew_model *m, uint32_t i)
{
    const sinew_primitive_range *rg = m->mesh.ranges;
    if (rg[i].gltf_mesh < 0 || rg[i].gltf_skin == m->skin.gltf_skin) return 0;
    for (uint32_t k = 0; k < i; k++)
        if (rg[k].gltf_mesh >= 0 && rg[k].gltf_skin == rg[i].gltf_skin) return 0;
    return 1;
}

/* Appends `node` to `skin` as joint `expected` (the model's index for the bone). */
static sinew_result add_joint(sinew_document *doc, int32_t skin, int32_t node,
                              const sinew_rig_bone *bone, uint32_t expected, sinew_error *err)
{
    int32_t joint = -1;
    sinew_result r =
        sinew_document_add_skin_joint(doc, skin, node, &bone->inverse_bind, &joint, err);
    if (r) return r;
    if (joint != (int32_t)expected)
        return sinew_error_set(err, SINEW_ERR_INTERNAL,
                               "tail: skin %d joint %d for %s, expected %u", skin, joint,
                               bone->name, expected);
    return SINEW_OK;
}

sinew_result sinew_rig_apply_document(sinew_document *doc, const sinew_model *m,
                                      const sinew_rig_plan *plan, sinew_error *err)
{
    if (!doc || !m || !plan || plan->vertex_count != m->mesh.vertex_count)
        return sinew_error_set(err, SINEW_ERR_ARGUMENT, "tail: the plan does not match the model");
    if (m->skin.gltf_skin < 0 && plan->chain_count)
        return sinew_error_set(err, SINEW_ERR_ARGUMENT,
                               "tail: the model was not built from a document (no glTF skin)");
    sinew_result r;
    for (uint32_t c = 0; c < plan->chain_count; c++) {
        const sinew_rig_chain *ch = &plan->chains[c];
        int32_t nodes[SINEW_RIG_MAX_SEGMENTS + 1];
        for (uint32_t b = 0; b < ch->bone_count; b++) {
            const sinew_rig_bone *bone = &ch->bones[b];
            int32_t parent;
            if (bone->parent >= 0) {
                if ((uint32_t)bone->parent >= m->node_count || m->nodes[bone->parent].gltf_node < 0)
                    return sinew_error_set(err, SINEW_ERR_ARGUMENT,
                                           "tail: the pelvis node is not in the document");
                parent = m->nodes[bone->parent].gltf_node;
            } else {
                parent = nodes[-bone->parent - 1];
            }
            if ((r = sinew_document_add_node(doc, bone->name, parent, bone->local, &nodes[b],
                                             err)) != SINEW_OK)
                return r;
            /* The model's skin and every copy merged with it (its ranges name them): a mesh
             * skinned by a copy gets the new joint indices too. */
            if ((r = add_joint(doc, m->skin.gltf_skin, nodes[b], bone, ch->first_joint + b, err)) !=
                SINEW_OK)
                return r;
            for (uint32_t i = 0; i < m->mesh.range_count; i++)
                if (copy_skin_first_range(m, i) &&
                    (r = add_joint(doc, m->mesh.ranges[i].gltf_skin, nodes[b], bone,
                                   ch->first_joint + b, err)) != SINEW_OK)
                    return r;
        }
    }
    for (uint32_t i = 0; i < m->mesh.range_count; i++) {
        const sinew_primitive_range *rg = &m->mesh.ranges[i];
        int touched = 0;
        for (uint32_t v = rg->first_vertex; v < rg->first_vertex + rg->vertex_count && !touched;
             v++)
            touched = plan->changed[v];
        if (!touched) continue;
        if (rg->gltf_mesh < 0)
            return sinew_error_set(err, SINEW_ERR_ARGUMENT,
                                   "tail: mesh range %u is not in the document", i);
        size_t o = (size_t)rg->first_vertex * SINEW_MAX_INFLUENCES;
        if ((r = sinew_document_set_influences(doc, rg->gltf_mesh, rg->gltf_primitive,
                                               rg->vertex_count, plan->joints + o,
                                               plan->weights + o, err)) != SINEW_OK)
            return r;
    }
    return SINEW_OK;
}

sinew_result sinew_rig_apply_model(sinew_model *m, const sinew_rig_plan *plan, sinew_error *err)
{
    if (!m || !plan || plan->vertex_count != m->mesh.vertex_count)
        return sinew_error_set(err, SINEW_ERR_ARGUMENT, "tail: the plan does not match the model");
    const sinew_allocator *al = &m->allocator;
    uint32_t add = 0;
    for (uint32_t c = 0; c < plan->chain_count; c++)
        add += plan->chains[c].bone_count;
    if (add) {
        sinew_node *nodes =
            sinew_realloc(al, m->nodes, m->node_count, m->node_count + add, sizeof *nodes);
        if (!nodes) return sinew_error_set(err, SINEW_ERR_OUT_OF_MEMORY, "tail: out of memory");
        m->nodes = nodes;
        sinew_joint *joints = sinew_realloc(al, m->skin.joints, m->skin.joint_count,
                                            m->skin.joint_count + add, sizeof *joints);
        if (!joints) return sinew_error_set(err, SINEW_ERR_OUT_OF_MEMORY, "tail: out of memory");
        m->skin.joints = joints;
    }
    for (uint32_t c = 0; c < plan->chain_count; c++) {
        const sinew_rig_chain *ch = &plan->chains[c];
        uint32_t first_node = m->node_count;
        if (ch->first_joint != m->skin.joint_count)
            return sinew_error_set(err, SINEW_ERR_INTERNAL,
                                   "tail: plan expects joint %u, model has %u", ch->first_joint,
                                   m->skin.joint_count);
        for (uint32_t b = 0; b < ch->bone_count; b++) {
            const sinew_rig_bone *bone = &ch->bones[b];
            size_t len = strlen(bone->name);
            char *name = sinew_alloc(al, len + 1, 1);
            if (!name) return sinew_error_set(err, SINEW_ERR_OUT_OF_MEMORY, "tail: out of memory");
            memcpy(name, bone->name, len + 1);
            sinew_node *node = &m->nodes[m->node_count];
            memset(node, 0, sizeof *node);
            node->name = name;
            node->parent = bone->parent >= 0
                               ? bone->parent
                               : (int32_t)(first_node + (uint32_t)(-bone->parent - 1));
            node->gltf_node = -1;
            node->joint = (int32_t)m->skin.joint_count;
            node->local = node->rest = bone->local;
            sinew_joint *joint = &m->skin.joints[m->skin.joint_count];
            joint->node = (int32_t)m->node_count;
            joint->inverse_bind = bone->inverse_bind;
            if (!sinew_mat4_invert_affine(&bone->inverse_bind, &joint->bind))
                return sinew_error_set(err, SINEW_ERR_INVALID_VALUE,
                                       "tail: %s: inverse bind matrix cannot be inverted",
                                       bone->name);
            m->node_count++;
            m->skin.joint_count++;
        }
    }
    const size_t slots = (size_t)m->mesh.vertex_count * SINEW_MAX_INFLUENCES;
    memcpy(m->mesh.influence_joints, plan->joints, slots * sizeof *plan->joints);
    memcpy(m->mesh.influence_weights, plan->weights, slots * sizeof *plan->weights);
    return SINEW_OK;
}
