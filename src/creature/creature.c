/* The public creature API: kinds, truth, and turning a built creature into a sinew_model. */
#include "creature/builder.h"

#include <float.h>
#include <stdio.h>
#include <string.h>

typedef struct kind_info {
    const char *name;
    const char *summary;
    float height; /* metres: default bind-space mesh height */
} kind_info;

static const kind_info kinds[SINEW_CREATURE_KIND_COUNT] = {
    [SINEW_CREATURE_FOX] = {"fox",
                            "anthropomorphic fox, 1.91 m, Mixamo 22 bones, bushy 0.81 m tail "
                            "(fur over skin) on the left shin; Walk, Sprint, Crouch, Idle",
                            1.91f},
    [SINEW_CREATURE_MOUSE] = {"mouse",
                              "1.0 m mouse, long thin tail down to the floor curving to one "
                              "side, no tail bones",
                              1.0f},
    [SINEW_CREATURE_CAPED] = {"caped", "humanoid with a wide flat cape from the upper spine",
                              1.80f},
    [SINEW_CREATURE_SKIRT] = {"skirt", "humanoid with a skirt weighted across hips and both thighs",
                              1.70f},
    [SINEW_CREATURE_QUIVER] = {"quiver", "humanoid with a long narrow quiver on the upper back",
                               1.85f},
    [SINEW_CREATURE_RABBIT] = {"rabbit", "humanoid rabbit with long ears on the head", 1.60f},
    [SINEW_CREATURE_LIZARD] = {"lizard",
                               "horizontal quadruped, Quaternius-like names, long tail behind "
                               "the pelvis",
                               0.45f},
};

const char *sinew_creature_kind_name(sinew_creature_kind kind)
{
    if (kind == SINEW_CREATURE_RANDOM) return "random";
    if (kind <= SINEW_CREATURE_INVALID || kind >= SINEW_CREATURE_KIND_COUNT) return "invalid";
    return kinds[kind].name;
}

const char *sinew_creature_kind_summary(sinew_creature_kind kind)
{
    if (kind == SINEW_CREATURE_RANDOM)
        return "a creature drawn from a seed: body plan, fur, tail, extras, skeleton style, "
               "unit scale";
    if (kind <= SINEW_CREATURE_INVALID || kind >= SINEW_CREATURE_KIND_COUNT) return "";
    return kinds[kind].summary;
}

sinew_creature_kind sinew_creature_kind_from_name(const char *name)
{
    if (!name) return SINEW_CREATURE_INVALID;
    for (int k = SINEW_CREATURE_INVALID + 1; k < SINEW_CREATURE_KIND_COUNT; k++)
        if (!strcmp(kinds[k].name, name)) return (sinew_creature_kind)k;
    return SINEW_CREATURE_INVALID;
}

const char *sinew_creature_part_name(sinew_creature_part part)
{
    switch (part) {
    case SINEW_CREATURE_PART_BODY:
        return "body";
    case SINEW_CREATURE_PART_TAIL:
        return "tail";
    case SINEW_CREATURE_PART_CAPE:
        return "cape";
    case SINEW_CREATURE_PART_SKIRT:
        return "skirt";
    case SINEW_CREATURE_PART_QUIVER:
        return "quiver";
    case SINEW_CREATURE_PART_EAR:
        return "ear";
    case SINEW_CREATURE_PART_HORN:
        return "horn";
    case SINEW_CREATURE_PART_PLATE:
        return "plate";
    case SINEW_CREATURE_PART_MANE:
        return "mane";
    case SINEW_CREATURE_PART_FRILL:
        return "frill";
    case SINEW_CREATURE_PART_FUR:
        return "fur";
    default:
        return "invalid";
    }
}

const char *sinew_creature_verdict_name(sinew_creature_verdict verdict)
{
    switch (verdict) {
    case SINEW_CREATURE_VERDICT_CHAIN:
        return "chain";
    case SINEW_CREATURE_VERDICT_UNCHANGED:
        return "unchanged";
    case SINEW_CREATURE_VERDICT_RIGID_ON_SPINE:
        return "rigid-on-spine";
    default:
        return "invalid";
    }
}

void sinew_creature_truth_free(sinew_creature_truth *truth)
{
    if (!truth) return;
    sinew_allocator a = truth->allocator;
    sinew_free(&a, truth->vertex_piece);
    memset(truth, 0, sizeof *truth);
}

/* Uniform scale of everything built so far (the kind is laid out in its own units). */
static void rescale(creature_build *b, float k)
{
    creature_skeleton *s = &b->skel;
    for (uint32_t j = 0; j < s->count; j++) {
        s->pos[j] = sinew_vec3_scale(s->pos[j], k);
        s->tip[j] = sinew_vec3_scale(s->tip[j], k);
        s->rest_pos[j] = sinew_vec3_scale(s->rest_pos[j], k);
    }
    for (uint32_t v = 0; v < b->mesh.vertex_count; v++)
        b->mesh.positions[v] = sinew_vec3_scale(b->mesh.positions[v], k);
    for (uint32_t c = 0; c < b->model->clip_count; c++) {
        sinew_clip *clip = &b->model->clips[c];
        for (uint32_t i = 0; i < clip->channel_count; i++) {
            sinew_channel *ch = &clip->channels[i];
            if (ch->path != SINEW_PATH_TRANSLATION) continue;
            for (uint32_t n = 0; n < ch->key_count * 3; n++)
                ch->values[n] *= k;
        }
    }
    for (uint32_t p = 0; p < b->truth->piece_count; p++) {
        b->truth->pieces[p].length *= k;
        b->truth->pieces[p].radius *= k;
    }
}

static char *dup_string(const sinew_allocator *a, const char *s)
{
    size_t n = strlen(s);
    char *r = sinew_alloc(a, n + 1, 1);
    if (r) memcpy(r, s, n + 1);
    return r;
}

/* Skeleton nodes, skin (IBM = inverse of the bind world matrix from FK of the rest TRS) and
 * the mesh with 8 influence slots. */
static sinew_result fill_model(creature_build *b, sinew_error *err)
{
    sinew_model *model = b->model;
    const sinew_allocator *a = &model->allocator;
    const creature_skeleton *s = &b->skel;
    const creature_mesh *cm = &b->mesh;
    const uint32_t n = s->count, nv = cm->vertex_count;

    model->nodes = sinew_alloc(a, n, sizeof *model->nodes);
    model->skin.joints = sinew_alloc(a, n, sizeof *model->skin.joints);
    if (!model->nodes || !model->skin.joints) goto oom;
    model->node_count = n;
    model->skin.joint_count = n;
    model->skin.gltf_skin = -1;
    sinew_mat4 world[CREATURE_MAX_JOINTS];
    for (uint32_t j = 0; j < n; j++) {
        sinew_node *node = &model->nodes[j];
        node->name = dup_string(a, s->name[j]);
        if (!node->name) goto oom;
        node->parent = s->parent[j];
        node->gltf_node = -1;
        node->joint = (int32_t)j;
        node->local.translation = s->rest_pos[j];
        node->local.rotation = s->rest_rot[j];
        node->local.scale = sinew_vec3_make(1, 1, 1);
        node->rest = node->local;
        sinew_mat4 local = sinew_mat4_from_transform(node->local);
        world[j] = node->parent >= 0 ? sinew_mat4_mul(&world[node->parent], &local) : local;
        sinew_joint *joint = &model->skin.joints[j];
        joint->node = (int32_t)j;
        joint->bind = world[j];
        if (!sinew_mat4_invert_affine(&world[j], &joint->inverse_bind))
            return sinew_error_set(err, SINEW_ERR_INTERNAL,
                                   "creature joint %u (\"%s\"): singular bind", j, s->name[j]);
    }

    sinew_mesh *mesh = &model->mesh;
    mesh->positions = sinew_alloc(a, nv, sizeof *mesh->positions);
    mesh->triangles = sinew_alloc(a, (size_t)cm->triangle_count * 3, sizeof *mesh->triangles);
    mesh->influence_joints = sinew_alloc(a, (size_t)nv * SINEW_MAX_INFLUENCES, sizeof(uint16_t));
    mesh->influence_weights = sinew_alloc(a, (size_t)nv * SINEW_MAX_INFLUENCES, sizeof(float));
    mesh->weld = sinew_alloc(a, nv, sizeof *mesh->weld);
    mesh->ranges = sinew_alloc(a, 1, sizeof *mesh->ranges);
    uint32_t *scratch = sinew_alloc(a, nv, sizeof *scratch);
    if (!mesh->positions || !mesh->triangles || !mesh->influence_joints ||
        !mesh->influence_weights || !mesh->weld || !mesh->ranges || !scratch) {
        sinew_free(a, scratch);
        goto oom;
    }
    mesh->vertex_count = nv;
    mesh->triangle_count = cm->triangle_count;
    memcpy(mesh->positions, cm->positions, (size_t)nv * sizeof *mesh->positions);
    memcpy(mesh->triangles, cm->triangles, (size_t)cm->triangle_count * 3 * sizeof(uint32_t));
    for (uint32_t v = 0; v < nv; v++)
        for (uint32_t k = 0; k < 4; k++) {
            mesh->influence_joints[v * SINEW_MAX_INFLUENCES + k] = cm->joints[v * 4 + k];
            mesh->influence_weights[v * SINEW_MAX_INFLUENCES + k] = cm->weights[v * 4 + k];
        }
    mesh->range_count = 1;
    mesh->ranges[0] = (sinew_primitive_range){-1, 0, -1, 0, nv, 0, cm->triangle_count, -1};
    sinew_mesh_weld(mesh, scratch);
    sinew_free(a, scratch);

    sinew_result r = sinew_model_update_rest(model, err);
    if (r != SINEW_OK) return r;
    sinew_model_update_size(model);
    return SINEW_OK;
oom:
    return sinew_error_set(err, SINEW_ERR_OUT_OF_MEMORY,
                           "creature: out of memory building the model");
}

/* Builds a fixed kind (traits NULL) or the random creature `traits` describes. */
static sinew_result build(sinew_creature_kind kind, const sinew_creature_traits *traits,
                          const sinew_creature_options *options, sinew_model **out_model,
                          sinew_creature_truth *truth, sinew_error *err)
{
    if (out_model) *out_model = NULL;
    if (truth) memset(truth, 0, sizeof *truth);
    if (!out_model) return sinew_error_set(err, SINEW_ERR_ARGUMENT, "creature: out_model is NULL");
    if (!traits && (kind <= SINEW_CREATURE_INVALID || kind >= SINEW_CREATURE_KIND_COUNT))
        return sinew_error_set(err, SINEW_ERR_ARGUMENT, "creature: unknown kind %d", (int)kind);
    const char *kind_name = traits ? "random" : kinds[kind].name;
    float height =
        options && options->height != 0 ? options->height : (traits ? 1.0f : kinds[kind].height);
    if (!(height > 0) || !isfinite(height) || height > 1e6f)
        return sinew_error_set(err, SINEW_ERR_ARGUMENT,
                               "creature %s: height %g is not a finite positive number", kind_name,
                               (double)height);

    sinew_allocator alloc;
    memset(&alloc, 0, sizeof alloc);
    if (options && options->allocator) alloc = *options->allocator;

    creature_build *b = sinew_alloc(&alloc, 1, sizeof *b);
    sinew_creature_truth *t = sinew_alloc(&alloc, 1, sizeof *t);
    sinew_model *model = sinew_alloc(&alloc, 1, sizeof *model);
    sinew_result r = SINEW_OK;
    if (!b || !t || !model) {
        sinew_free(&alloc, b);
        sinew_free(&alloc, t);
        sinew_free(&alloc, model);
        return sinew_error_set(err, SINEW_ERR_OUT_OF_MEMORY, "creature: out of memory");
    }
    model->allocator = alloc;
    b->mesh.alloc = &model->allocator;
    b->truth = t;
    b->model = model;
    t->kind = traits ? SINEW_CREATURE_RANDOM : kind;
    t->tail_piece = -1;

    int ok;
    if (traits)
        ok = creature_build_random(b, traits);
    else
        ok = kind == SINEW_CREATURE_LIZARD ? creature_build_lizard(b)
                                           : creature_build_humanoid(b, kind);
    if (!ok) {
        r = sinew_error_set(err, SINEW_ERR_OUT_OF_MEMORY, "creature %s: out of memory", kind_name);
        goto fail;
    }

    /* scale to the requested height, measured on the mesh (a random creature is laid out
     * with a body length of 1 and scaled to its drawn body length unless a height is asked) */
    float lo = FLT_MAX, hi = -FLT_MAX;
    for (uint32_t v = 0; v < b->mesh.vertex_count; v++) {
        lo = fminf(lo, b->mesh.positions[v].y);
        hi = fmaxf(hi, b->mesh.positions[v].y);
    }
    if (!(hi > lo)) {
        r = sinew_error_set(err, SINEW_ERR_INTERNAL, "creature %s: empty mesh", kind_name);
        goto fail;
    }
    if (traits && !(options && options->height != 0))
        rescale(b, traits->body_length);
    else
        rescale(b, height / (hi - lo));

    r = fill_model(b, err);
    if (r != SINEW_OK) goto fail;

    if (truth) {
        t->vertex_count = b->mesh.vertex_count;
        t->vertex_piece = sinew_alloc(&alloc, t->vertex_count ? t->vertex_count : 1, 1);
        if (!t->vertex_piece) {
            r = sinew_error_set(err, SINEW_ERR_OUT_OF_MEMORY, "creature: out of memory");
            goto fail;
        }
        memcpy(t->vertex_piece, b->mesh.piece, t->vertex_count);
        for (uint32_t v = 0; v < t->vertex_count; v++)
            t->pieces[t->vertex_piece[v]].vertex_count++;
        t->height = model->size.height;
        for (uint32_t p = 0; p < t->piece_count; p++)
            if (t->pieces[p].part == SINEW_CREATURE_PART_TAIL) {
                t->tail_piece = (int32_t)p;
                t->tail_length = t->pieces[p].length;
            }
        if (traits) {
            t->traits = *traits;
            if (options && options->height != 0) {
                /* the asked height rescaled the drawn sizes: say so in the traits */
                float k = height / (hi - lo) / traits->body_length;
                t->traits.body_length *= k;
                t->traits.unit_scale *= k;
            }
            t->tail_rigged = traits->tail_weights == SINEW_CREATURE_TAIL_WEIGHTS_RIGGED;
            sinew_creature_traits_describe(&t->traits, t->description, sizeof t->description);
        } else {
            snprintf(t->description, sizeof t->description, "%s: %s", kinds[kind].name,
                     kinds[kind].summary);
        }
        t->allocator = alloc;
        *truth = *t;
    }
    creature_mesh_free(&b->mesh);
    sinew_free(&alloc, b);
    sinew_free(&alloc, t);
    *out_model = model;
    return SINEW_OK;

fail:
    creature_mesh_free(&b->mesh);
    sinew_free(&alloc, t->vertex_piece);
    sinew_free(&alloc, b);
    sinew_free(&alloc, t);
    sinew_model_free(model);
    return r;
}

sinew_result sinew_creature_build(sinew_creature_kind kind, const sinew_creature_options *options,
                                  sinew_model **out_model, sinew_creature_truth *truth,
                                  sinew_error *err)
{
    return build(kind, NULL, options, out_model, truth, err);
}

sinew_result sinew_creature_build_random(uint64_t seed, const sinew_creature_options *options,
                                         sinew_model **out_model, sinew_creature_truth *truth,
                                         sinew_error *err)
{
    sinew_creature_traits traits;
    sinew_creature_random_traits(seed, &traits);
    return build(SINEW_CREATURE_RANDOM, &traits, options, out_model, truth, err);
}
