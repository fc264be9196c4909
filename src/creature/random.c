/* The random family: what a seed draws, its one-line description, and the build in order.
 *
 * Two generator streams come from one seed: the traits (everything sinew_creature_traits
 * lists, drawn in a fixed order by sinew_creature_random_traits) and the shape details a
 * test never needs to see (neck angle, head size, spine joint count ..), so the traits of a
 * seed can be read without building it. Both are splitmix64, integer-only: no clocks, no
 * rand().
 */
#include "creature/random.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

uint64_t creature_rng_next(creature_rng *r)
{
    uint64_t z = (r->state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

float creature_rng_unit(creature_rng *r)
{
    return (float)(creature_rng_next(r) >> 40) * (1.0f / 16777216.0f);
}

float creature_rng_range(creature_rng *r, float lo, float hi)
{
    return lo + (hi - lo) * creature_rng_unit(r);
}

int creature_rng_chance(creature_rng *r, float p)
{
    return creature_rng_unit(r) < p;
}

uint32_t creature_rng_below(creature_rng *r, uint32_t n)
{
    return n ? (uint32_t)((creature_rng_next(r) >> 32) % n) : 0;
}

/* Fixed stream offsets: the shape-detail stream must not replay the traits stream. */
#define SHAPE_STREAM 0xD1B54A32D192ED03ull

static float clampf(float x, float lo, float hi)
{
    return x < lo ? lo : (x > hi ? hi : x);
}

void sinew_creature_random_traits(uint64_t seed, sinew_creature_traits *out)
{
    creature_rng r = {seed};
    sinew_creature_traits t;
    memset(&t, 0, sizeof t);
    t.seed = seed;
    t.plan =
        creature_rng_chance(&r, 0.5f) ? SINEW_CREATURE_PLAN_QUADRUPED : SINEW_CREATURE_PLAN_BIPED;
    const int quad = t.plan == SINEW_CREATURE_PLAN_QUADRUPED;

    /* Units: real files come in metres, centimetres (x100) and oddities between (the Khronos
     * fox is ~80 units tall, a Quaternius T-Rex's bind space 0.04). */
    float u = creature_rng_unit(&r);
    if (u < 0.35f)
        t.unit_scale = 1.0f;
    else if (u < 0.50f)
        t.unit_scale = 100.0f;
    else if (u < 0.60f)
        t.unit_scale = 0.01f;
    else
        t.unit_scale = powf(10.0f, creature_rng_range(&r, -2.0f, 2.0f));
    /* metres: the torso of a cat .. a horse (quadrupeds), a child .. a tall adult (bipeds) */
    float metres = quad ? creature_rng_range(&r, 0.3f, 1.2f) : creature_rng_range(&r, 0.35f, 0.9f);
    t.body_length = metres * t.unit_scale;
    t.thickness = creature_rng_range(&r, 0.08f, 0.30f);
    if (quad) {
        /* a dachshund's legs .. a deer's; the belly stays clear of the floor */
        t.leg_length = fmaxf(creature_rng_range(&r, 0.35f, 1.1f), 0.5f * t.thickness + 0.12f);
    } else {
        t.leg_length = creature_rng_range(&r, 0.8f, 1.5f);
        t.arm_length = creature_rng_range(&r, 0.7f, 1.1f);
    }

    u = creature_rng_unit(&r);
    t.fur = u < 0.45f ? SINEW_CREATURE_FUR_NONE
                      : (u < 0.75f ? SINEW_CREATURE_FUR_SHELL : SINEW_CREATURE_FUR_WELDED);

    /* about 17% of seeds have no tail */
    if (creature_rng_chance(&r, 0.17f)) {
        t.tail = SINEW_CREATURE_TAIL_NONE;
        t.tail_weights = SINEW_CREATURE_TAIL_WEIGHTS_NONE;
    } else {
        t.tail =
            creature_rng_chance(&r, 0.5f) ? SINEW_CREATURE_TAIL_SUNK : SINEW_CREATURE_TAIL_WELDED;
        /* 12% of tailed seeds (about 10% of all) come already rigged */
        u = creature_rng_unit(&r);
        t.tail_weights = u < 0.12f   ? SINEW_CREATURE_TAIL_WEIGHTS_RIGGED
                         : u < 0.48f ? SINEW_CREATURE_TAIL_WEIGHTS_NEAREST
                         : u < 0.76f ? SINEW_CREATURE_TAIL_WEIGHTS_TEMPLATE
                                     : SINEW_CREATURE_TAIL_WEIGHTS_PELVIS;
        /* short stubs are rarer than long tails */
        t.tail_length = 0.1f + 1.4f * powf(creature_rng_unit(&r), 0.8f);
        /* a rat's 2% .. a fox's brush; never wider than the rump it leaves */
        t.tail_radius = fminf(creature_rng_range(&r, 0.02f, 0.17f), 0.9f * t.thickness);
        t.tail_droop =
            quad ? creature_rng_range(&r, -25.0f, 85.0f) : creature_rng_range(&r, -15.0f, 65.0f);
        t.tail_curl = creature_rng_range(&r, -60.0f, 110.0f);
        t.tail_bend = creature_rng_range(&r, -50.0f, 50.0f);
        if (t.tail_weights == SINEW_CREATURE_TAIL_WEIGHTS_RIGGED)
            t.tail_bones = 3 + creature_rng_below(&r, 5);
    }

    u = creature_rng_unit(&r);
    t.dorsal = u < 0.62f
                   ? SINEW_CREATURE_DORSAL_NONE
                   : (u < 0.82f ? SINEW_CREATURE_DORSAL_PLATES : SINEW_CREATURE_DORSAL_SPIKES);
    if (t.dorsal != SINEW_CREATURE_DORSAL_NONE) {
        t.dorsal_count = 4 + creature_rng_below(&r, 9);
        if (t.tail != SINEW_CREATURE_TAIL_NONE && creature_rng_chance(&r, 0.5f))
            t.dorsal_on_tail = 2 + creature_rng_below(&r, 5);
    }
    t.ear_count = creature_rng_chance(&r, 0.55f) ? 2 : 0;
    t.ears_long = t.ear_count && creature_rng_chance(&r, 0.35f);
    t.horn_count = creature_rng_chance(&r, 0.3f) ? 2 : 0;
    t.mane = creature_rng_chance(&r, 0.2f);
    t.frill = creature_rng_chance(&r, 0.12f);
    t.extra_weights = creature_rng_chance(&r, 0.5f) ? SINEW_CREATURE_EXTRA_WEIGHTS_JOINT
                                                    : SINEW_CREATURE_EXTRA_WEIGHTS_NEAREST;

    t.style = (sinew_creature_skeleton_style)(SINEW_CREATURE_STYLE_MIXAMO +
                                              (int)creature_rng_below(&r, 5));
    switch (t.style) {
    case SINEW_CREATURE_STYLE_MIXAMO: /* Mixamo: hips at the root, no helpers */
        t.end_joints = creature_rng_chance(&r, 0.6f);
        t.axes = SINEW_CREATURE_AXES_Y;
        break;
    case SINEW_CREATURE_STYLE_QUATERNIUS:
        t.root_joint = creature_rng_chance(&r, 0.7f);
        t.ik_helpers = creature_rng_chance(&r, 0.7f);
        t.end_joints = creature_rng_chance(&r, 0.3f);
        t.axes = SINEW_CREATURE_AXES_Y;
        break;
    case SINEW_CREATURE_STYLE_MAYA:
        t.root_joint = creature_rng_chance(&r, 0.5f);
        t.ik_helpers = creature_rng_chance(&r, 0.3f);
        t.end_joints = creature_rng_chance(&r, 0.5f);
        t.axes = creature_rng_chance(&r, 0.8f) ? SINEW_CREATURE_AXES_X : SINEW_CREATURE_AXES_Y;
        break;
    case SINEW_CREATURE_STYLE_SKETCHFAB:
        t.root_joint = 1; /* "_rootJoint" */
        t.flat_hierarchy = creature_rng_chance(&r, 0.4f);
        t.ik_helpers = creature_rng_chance(&r, 0.4f);
        t.end_joints = creature_rng_chance(&r, 0.3f);
        t.axes = creature_rng_chance(&r, 0.5f) ? SINEW_CREATURE_AXES_Y : SINEW_CREATURE_AXES_WORLD;
        break;
    default:
        t.root_joint = creature_rng_chance(&r, 0.4f);
        t.ik_helpers = creature_rng_chance(&r, 0.25f);
        t.end_joints = creature_rng_chance(&r, 0.3f);
        t.axes = (sinew_creature_axes)(SINEW_CREATURE_AXES_Y + (int)creature_rng_below(&r, 3));
        break;
    }
    if (t.ik_helpers) t.root_joint = 1; /* helpers hang from a root joint */
    t.thickness = clampf(t.thickness, 0.08f, 0.30f);
    *out = t;
}

const char *sinew_creature_plan_name(sinew_creature_plan plan)
{
    switch (plan) {
    case SINEW_CREATURE_PLAN_QUADRUPED:
        return "quadruped";
    case SINEW_CREATURE_PLAN_BIPED:
        return "biped";
    default:
        return "invalid";
    }
}

const char *sinew_creature_fur_name(sinew_creature_fur fur)
{
    switch (fur) {
    case SINEW_CREATURE_FUR_NONE:
        return "none";
    case SINEW_CREATURE_FUR_SHELL:
        return "shell";
    case SINEW_CREATURE_FUR_WELDED:
        return "welded";
    default:
        return "invalid";
    }
}

const char *sinew_creature_tail_shell_name(sinew_creature_tail_shell tail)
{
    switch (tail) {
    case SINEW_CREATURE_TAIL_NONE:
        return "none";
    case SINEW_CREATURE_TAIL_SUNK:
        return "sunk";
    case SINEW_CREATURE_TAIL_WELDED:
        return "welded";
    default:
        return "invalid";
    }
}

const char *sinew_creature_tail_weights_name(sinew_creature_tail_weights weights)
{
    switch (weights) {
    case SINEW_CREATURE_TAIL_WEIGHTS_NONE:
        return "none";
    case SINEW_CREATURE_TAIL_WEIGHTS_NEAREST:
        return "nearest";
    case SINEW_CREATURE_TAIL_WEIGHTS_TEMPLATE:
        return "template";
    case SINEW_CREATURE_TAIL_WEIGHTS_PELVIS:
        return "pelvis";
    case SINEW_CREATURE_TAIL_WEIGHTS_RIGGED:
        return "rigged";
    default:
        return "invalid";
    }
}

const char *sinew_creature_dorsal_name(sinew_creature_dorsal dorsal)
{
    switch (dorsal) {
    case SINEW_CREATURE_DORSAL_NONE:
        return "none";
    case SINEW_CREATURE_DORSAL_PLATES:
        return "plates";
    case SINEW_CREATURE_DORSAL_SPIKES:
        return "spikes";
    default:
        return "invalid";
    }
}

const char *sinew_creature_extra_weights_name(sinew_creature_extra_weights weights)
{
    switch (weights) {
    case SINEW_CREATURE_EXTRA_WEIGHTS_JOINT:
        return "joint";
    case SINEW_CREATURE_EXTRA_WEIGHTS_NEAREST:
        return "nearest";
    default:
        return "invalid";
    }
}

const char *sinew_creature_style_name(sinew_creature_skeleton_style style)
{
    switch (style) {
    case SINEW_CREATURE_STYLE_MIXAMO:
        return "mixamo";
    case SINEW_CREATURE_STYLE_QUATERNIUS:
        return "quaternius";
    case SINEW_CREATURE_STYLE_MAYA:
        return "maya";
    case SINEW_CREATURE_STYLE_SKETCHFAB:
        return "sketchfab";
    case SINEW_CREATURE_STYLE_UNNAMED:
        return "unnamed";
    default:
        return "invalid";
    }
}

const char *sinew_creature_axes_name(sinew_creature_axes axes)
{
    switch (axes) {
    case SINEW_CREATURE_AXES_Y:
        return "y";
    case SINEW_CREATURE_AXES_X:
        return "x";
    case SINEW_CREATURE_AXES_WORLD:
        return "world";
    default:
        return "invalid";
    }
}

/* Appends to buf at *len (snprintf semantics: *len counts what was needed). */
static void append(char *buf, size_t size, int *len, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    size_t at = (size_t)*len < size ? (size_t)*len : size;
    int n = vsnprintf(size > at ? buf + at : NULL, size > at ? size - at : 0, fmt, ap);
    va_end(ap);
    if (n > 0) *len += n;
}

int sinew_creature_traits_describe(const sinew_creature_traits *t, char *buf, size_t size)
{
    int len = 0;
    if (size) buf[0] = 0;
    if (!t) return 0;
    append(buf, size, &len, "seed %llu: %s, body %.3g units (x%.3g per m), thick %.2f, legs %.2f",
           (unsigned long long)t->seed, sinew_creature_plan_name(t->plan), (double)t->body_length,
           (double)t->unit_scale, (double)t->thickness, (double)t->leg_length);
    if (t->plan == SINEW_CREATURE_PLAN_BIPED)
        append(buf, size, &len, ", arms %.2f", (double)t->arm_length);
    if (t->fur != SINEW_CREATURE_FUR_NONE)
        append(buf, size, &len, "; fur %s", sinew_creature_fur_name(t->fur));
    if (t->tail == SINEW_CREATURE_TAIL_NONE)
        append(buf, size, &len, "; no tail");
    else {
        append(buf, size, &len,
               "; tail %s %.2f L r %.3f droop %.0f curl %+.0f bend %+.0f, weights %s",
               sinew_creature_tail_shell_name(t->tail), (double)t->tail_length,
               (double)t->tail_radius, (double)t->tail_droop, (double)t->tail_curl,
               (double)t->tail_bend, sinew_creature_tail_weights_name(t->tail_weights));
        if (t->tail_bones) append(buf, size, &len, " (%u bones)", t->tail_bones);
    }
    if (t->dorsal != SINEW_CREATURE_DORSAL_NONE) {
        append(buf, size, &len, "; %u %s", t->dorsal_count, sinew_creature_dorsal_name(t->dorsal));
        if (t->dorsal_on_tail) append(buf, size, &len, " +%u on the tail", t->dorsal_on_tail);
    }
    if (t->ear_count) append(buf, size, &len, "; %s ears", t->ears_long ? "long" : "short");
    if (t->horn_count) append(buf, size, &len, "; horns");
    if (t->mane) append(buf, size, &len, "; mane");
    if (t->frill) append(buf, size, &len, "; frill");
    if (t->ear_count || t->horn_count || t->mane || t->frill ||
        t->dorsal != SINEW_CREATURE_DORSAL_NONE)
        append(buf, size, &len, " (on %s)", sinew_creature_extra_weights_name(t->extra_weights));
    append(buf, size, &len, "; %s skeleton, %s axes", sinew_creature_style_name(t->style),
           sinew_creature_axes_name(t->axes));
    if (t->flat_hierarchy) append(buf, size, &len, ", flat");
    if (t->root_joint) append(buf, size, &len, ", root joint");
    if (t->ik_helpers) append(buf, size, &len, ", IK helpers");
    if (t->end_joints) append(buf, size, &len, ", end joints");
    return len;
}

int creature_build_random(creature_build *b, const sinew_creature_traits *traits)
{
    random_creature *c = sinew_alloc(b->mesh.alloc, 1, sizeof *c);
    if (!c) return 0;
    c->tr = traits;
    c->rng.state = traits->seed ^ SHAPE_STREAM;
    c->biped = traits->plan == SINEW_CREATURE_PLAN_BIPED;
    int ok = rc_build_skeleton(b, c);
    if (ok) {
        rc_name_joints(b, c);
        if (b->truth) {
            snprintf(b->truth->pelvis_joint, sizeof b->truth->pelvis_joint, "%s",
                     b->skel.name[c->hips]);
            snprintf(b->truth->head_joint, sizeof b->truth->head_joint, "%s",
                     b->skel.name[c->head]);
        }
        ok = rc_build_mesh(b, c);
    }
    if (ok) {
        rc_make_file_map(b, c);
        b->map = &c->map;
        ok = rc_add_clips(b, c);
        /* the file's skeleton: parents, bone axes and rest transforms as the map writes them */
        creature_skeleton_apply_map(&b->skel, &c->map);
        b->map = NULL;
    }
    sinew_free(b->mesh.alloc, c);
    return ok && !b->mesh.failed;
}
