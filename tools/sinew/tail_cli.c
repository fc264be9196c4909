/* The tail job's table and report (the job itself is the library's: sinew/pipeline.h). */
#include "tail_cli.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "bake_cli.h"
#include "cli.h"
#include "safe_text.h"

const char *tail_cli_legend =
    "The table, one row per appendage found (a protrusion of the skin with no bone inside):\n"
    "  #          row number, for --piece N and --skip N\n"
    "  what       tail    long enough, hangs from the pelvis: gets a bone chain\n"
    "             rigid   the same with --mode rigid: weight 1 on the pelvis\n"
    "             head    on the head (ears, horns, a frill): unchanged\n"
    "             ear     with --ears: long, flat across, on the head, one of a mirrored\n"
    "                     pair: a short, stiff bone chain (Ear_L_*, Ear_R_*)\n"
    "             spine   on the back or neck (a mane, plates, a quiver): unchanged\n"
    "             dressed the same with --dress-spine: weight 1 on its spine bone\n"
    "             limb    on an arm or leg (claws, a sleeve): unchanged\n"
    "             wing    broad and flat, on the shoulders, upper back or an arm, one of a\n"
    "                     mirrored pair: a bone chain along its span (Wing_L_*, Wing_R_*)\n"
    "             bump    at the pelvis but too short to be a tail: unchanged\n"
    "             sheet   a sheet, not a tube (a cape, a flap): unchanged\n"
    "             garment with --garment chains, a sheet on a surface of its own (a cape, a\n"
    "                     skirt): chains around it (Garment_<k>_*)\n"
    "             skipped would be a tail; left alone (--skip, dropped by the check, or\n"
    "                     the skeleton already has a tail)\n"
    "  verts      its vertices\n"
    "  hangs from the joint nearest its root (a torso or thigh joint preferred); the chain\n"
    "             itself hangs from the joint its 'chain' line below the table names\n"
    "  length     root to tip along the skin, in H (the model's size: the larger of its\n"
    "             height and its length)\n"
    "  thick      its median thickness (twice the cross-section radius), in H\n"
    "  x long     length / thickness\n"
    "  shells     surfaces merged into it (fur over skin: 2)\n"
    "  reach      mean distance of its skin to the bones that move it, in H: before -> after\n"
    "Bumps beyond the end of a bone (hooves, a snout, finger tips) are counted, not listed.\n"
    "The check (do no harm), per clip: p99 and torn share of the edges of the chains' skin\n"
    "(both ends dominated by a new bone), of the collar round the roots (edges with an end\n"
    "re-weighted that are not the chains': skin still on a body bone, and its seams) and of\n"
    "the body's (every edge but the chains', the collar included), before -> after.\n"
    "Torn: an edge stretched beyond 1.5x or squashed below 0.67x its rest length.\n";

const char *tail_cli_options_help =
    "  --mode chain       default: a bone chain with blended weights\n"
    "  --mode rigid       every tail vertex on the pelvis with weight 1 (no chain)\n"
    "  --tail-from JOINT  the tail hangs from this joint: the piece rooted nearest it is the\n"
    "                     tail, its chain goes under JOINT\n"
    "  --piece N          chain row N of the table, whatever its verdict (repeatable)\n"
    "  --skip N           leave row N alone (repeatable)\n"
    "  --dress-spine      pieces on the back (a quiver, a sheath) get weight 1 on their bone\n"
    "                     instead of staying as the rigger left them\n"
    "  --ears             a mirrored pair of long, flat ears on the head gets short chains\n"
    "                     (2-3 bones each from the head, Ear_L_*, Ear_R_*) with the ear\n"
    "                     preset's springs; without it ears stay rigid with the head\n"
    "  --garment chains   a cape or skirt modelled as a surface of its own gets N chains\n"
    "                     around it (Garment_<k>_1.., from its attach line down to its hem,\n"
    "                     blended along and across), baked with neighbouring chains coupled\n"
    "                     so the ring keeps its shape; default --garment leave: unchanged\n"
    "  --garment-chains N chains around each garment, 2..16 (default: spaced as far apart as\n"
    "                     its segments are long)\n"
    "  --no-bake          copy the clips unchanged (by default a chain's motion is simulated\n"
    "                     with the spring runtime and baked into every clip, as 'sinew bake'\n"
    "                     does: see the spring options below)\n"
    "  --no-check         skip the do-no-harm check\n"
    "  --vrm-springs      also write the chain's springs as VRMC_springBone 1.0, fitted at 60\n"
    "                     fps, so VRM engines swing the tail live (the baked clips stay);\n"
    "                     prints the fit and its predicted error "
    "(docs/vrm-springs.md)\n" CLI_MESHOPT_HELP;

void tail_cli_options_init(tail_cli_options *o)
{
    memset(o, 0, sizeof *o);
    o->mode = "chain";
}

static int parse_row(const char *v, uint32_t *rows, uint32_t *count)
{
    unsigned long n;
    if (!cli_parse_uint(v, 0, 100000, &n) || *count >= TAIL_CLI_MAX_ROWS) return 0;
    rows[(*count)++] = (uint32_t)n;
    return 1;
}

int tail_cli_parse_option(const char *command, int argc, char **argv, int *i, tail_cli_options *o)
{
    int took = bake_cli_parse_option(command, argc, argv, i, &o->params);
    if (!took) took = bake_cli_parse_colliders(command, argc, argv, i, &o->job.bake.colliders);
    if (took) return took;
    sinew_rig_options *rig = &o->job.rig;
    const char *a = argv[*i], *v;
    if (!strcmp(a, "--mode")) {
        if (!(v = cli_option_value(command, argc, argv, i))) return -1;
        if (!strcmp(v, "chain"))
            rig->mode = SINEW_RIG_MODE_CHAIN;
        else if (!strcmp(v, "rigid"))
            rig->mode = SINEW_RIG_MODE_RIGID;
        else
            return cli_usage_error(command, "--mode must be chain or rigid, not '%s'", v), -1;
        o->mode = v;
    } else if (!strcmp(a, "--tail-from")) {
        if (!(rig->tail_from = cli_option_value(command, argc, argv, i))) return -1;
    } else if (!strcmp(a, "--piece") || !strcmp(a, "--skip")) {
        int skip = a[2] == 's';
        if (!(v = cli_option_value(command, argc, argv, i))) return -1;
        if (!parse_row(v, skip ? o->skips : o->pieces,
                       skip ? &rig->skip_piece_count : &rig->chain_piece_count))
            return cli_usage_error(command,
                                   "%s wants a row number of the table (0, 1, ...), "
                                   "at most %d of them, not '%s'",
                                   a, TAIL_CLI_MAX_ROWS, v),
                   -1;
    } else if (!strcmp(a, "--dress-spine")) {
        rig->dress_spine = 1;
    } else if (!strcmp(a, "--ears")) {
        rig->ears = 1;
    } else if (!strcmp(a, "--garment")) {
        if (!(v = cli_option_value(command, argc, argv, i))) return -1;
        if (!strcmp(v, "chains"))
            rig->garment = SINEW_RIG_GARMENT_CHAINS;
        else if (!strcmp(v, "leave"))
            rig->garment = SINEW_RIG_GARMENT_LEAVE;
        else
            return cli_usage_error(command, "--garment must be chains or leave, not '%s'", v), -1;
    } else if (!strcmp(a, "--garment-chains")) {
        unsigned long n;
        if (!(v = cli_option_value(command, argc, argv, i))) return -1;
        if (!cli_parse_uint(v, 2, SINEW_RIG_MAX_GARMENT_CHAINS, &n))
            return cli_usage_error(command,
                                   "--garment-chains wants a whole number from 2 to %d, not '%s'",
                                   SINEW_RIG_MAX_GARMENT_CHAINS, v),
                   -1;
        rig->garment_chains = (uint32_t)n;
    } else if (!strcmp(a, "--no-bake")) {
        o->job.no_bake = 1;
    } else if (!strcmp(a, "--no-check")) {
        o->job.no_guard = 1;
    } else if (!strcmp(a, "--vrm-springs")) {
        o->job.vrm_springs = 1;
    } else if (!cli_parse_write_option(a, &o->write)) {
        return 0;
    }
    return 1;
}

int tail_cli_options_finish(const char *command, tail_cli_options *o)
{
    if (bake_cli_check(command, &o->params)) return -1;
    if (o->job.rig.garment_chains && o->job.rig.garment != SINEW_RIG_GARMENT_CHAINS)
        return cli_usage_error(command, "--garment-chains needs --garment chains"), -1;
    o->job.rig.chain_pieces = o->pieces;
    o->job.rig.skip_pieces = o->skips;
    o->job.bake.params = &o->params;
    return 0;
}

static const char *joint_name(const sinew_model *m, int32_t j)
{
    if (!m || j < 0 || (uint32_t)j >= m->skin.joint_count) return "-";
    const char *n = m->nodes[m->skin.joints[j].node].name;
    return n ? n : "-";
}

static const char *what_name(sinew_rig_verdict v)
{
    return v == SINEW_RIG_VERDICT_CHAIN ? "tail" : sinew_rig_verdict_name(v);
}

/* The up axis as a word when it is one ("+Z"), else "(x, y, z)". */
static void up_name(sinew_vec3 up, char *out, size_t size)
{
    const float c[3] = {up.x, up.y, up.z};
    for (int k = 0; k < 3; k++)
        if (fabsf(c[k]) > 0.9999f) {
            snprintf(out, size, "%c%c", c[k] > 0 ? '+' : '-', "XYZ"[k]);
            return;
        }
    snprintf(out, size, "(%.2f, %.2f, %.2f)", (double)up.x, (double)up.y, (double)up.z);
}

cJSON *tail_cli_stretch_json(const sinew_stretch_stats *s)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddNumberToObject(o, "samples", (double)s->samples);
    cJSON_AddNumberToObject(o, "p95", s->p95);
    cJSON_AddNumberToObject(o, "p99", s->p99);
    cJSON_AddNumberToObject(o, "max", s->max);
    cJSON_AddNumberToObject(o, "min", s->min);
    cJSON_AddNumberToObject(o, "torn_share", s->torn_share);
    return o;
}

cJSON *tail_cli_capsule_json(const sinew_capsule_share *s)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddNumberToObject(o, "samples", (double)s->samples);
    cJSON_AddNumberToObject(o, "inside", (double)s->inside);
    cJSON_AddNumberToObject(o, "share", s->share);
    cJSON_AddNumberToObject(o, "deepest", s->deepest);
    return o;
}

cJSON *tail_cli_report_json(const sinew_tail_result *run, const char *in, const char *out,
                            const char *mode)
{
    const sinew_model *m = run->input;
    const sinew_rig_report *rep = &run->report;
    const sinew_rig_plan *plan = &run->plan;
    cJSON *root = cJSON_CreateObject();
    cJSON_AddStringToObject(root, "input", in);
    cJSON_AddStringToObject(root, "output", out);
    cJSON_AddStringToObject(root, "mode", mode);
    cJSON_AddNumberToObject(root, "scale", rep->scale);
    cJSON_AddNumberToObject(root, "small_protrusions", rep->small_count);
    cJSON_AddStringToObject(root, "rigged_tail",
                            rep->rigged_tail >= 0 ? joint_name(m, rep->rigged_tail) : "");
    cJSON *lm = cJSON_AddObjectToObject(root, "landmarks");
    cJSON_AddStringToObject(lm, "pelvis", joint_name(m, rep->landmarks.pelvis));
    cJSON_AddStringToObject(lm, "head", joint_name(m, rep->landmarks.head));
    cJSON *th = cJSON_AddArrayToObject(lm, "thighs");
    for (int s = 0; s < 2; s++)
        if (rep->landmarks.thigh[s] >= 0)
            cJSON_AddItemToArray(th, cJSON_CreateString(joint_name(m, rep->landmarks.thigh[s])));
    cJSON *sp = cJSON_AddArrayToObject(lm, "spine");
    for (uint32_t i = 0; i < rep->landmarks.spine_count; i++)
        cJSON_AddItemToArray(sp, cJSON_CreateString(joint_name(m, rep->landmarks.spine[i])));
    cJSON *up = cJSON_AddArrayToObject(lm, "up");
    cJSON_AddItemToArray(up, cJSON_CreateNumber(rep->landmarks.up.x));
    cJSON_AddItemToArray(up, cJSON_CreateNumber(rep->landmarks.up.y));
    cJSON_AddItemToArray(up, cJSON_CreateNumber(rep->landmarks.up.z));
    cJSON *list = cJSON_AddArrayToObject(root, "appendages");
    for (uint32_t p = 0; p < rep->piece_count; p++) {
        const sinew_rig_piece *pc = &rep->pieces[p];
        cJSON *o = cJSON_CreateObject();
        cJSON_AddNumberToObject(o, "piece", p);
        cJSON_AddStringToObject(o, "verdict", sinew_rig_verdict_name(pc->verdict));
        cJSON_AddStringToObject(o, "reason", pc->reason);
        cJSON_AddNumberToObject(o, "vertices", pc->vertex_count);
        cJSON_AddStringToObject(o, "attach_joint", joint_name(m, pc->attach_joint));
        cJSON_AddStringToObject(o, "attach_region", sinew_rig_region_name(pc->attach_region));
        cJSON_AddNumberToObject(o, "merged_shells", pc->merged_shells);
        if (pc->merged_into >= 0) cJSON_AddNumberToObject(o, "merged_into", pc->merged_into);
        if (pc->rides_on >= 0) cJSON_AddNumberToObject(o, "rides_on", pc->rides_on);
        if (pc->wing_partner >= 0) {
            const int ear = pc->verdict == SINEW_RIG_VERDICT_EAR ||
                            rep->pieces[pc->wing_partner].verdict == SINEW_RIG_VERDICT_EAR;
            cJSON_AddNumberToObject(o, ear ? "ear_partner" : "wing_partner", pc->wing_partner);
            cJSON_AddStringToObject(o, ear ? "ear_side" : "wing_side",
                                    pc->wing_side > 0 ? "left" : "right");
        }
        if (pc->verdict == SINEW_RIG_VERDICT_GARMENT) {
            cJSON_AddNumberToObject(o, "garment_chains", pc->garment_chains);
            cJSON_AddStringToObject(o, "garment_shape", pc->garment_ring ? "ring" : "sheet");
        }
        cJSON_AddNumberToObject(o, "length", pc->length);
        cJSON_AddNumberToObject(o, "radius", pc->radius);
        cJSON_AddNumberToObject(o, "elongation", pc->elongation);
        cJSON_AddNumberToObject(o, "protrusion", pc->protrusion);
        cJSON_AddBoolToObject(o, "sheet", pc->sheet);
        cJSON_AddNumberToObject(o, "segments", pc->segments);
        cJSON_AddNumberToObject(o, "weighted_distance_before", pc->distance_before);
        cJSON_AddNumberToObject(o, "weighted_distance_after", pc->distance_after);
        /* A tail's or wing's one chain as "bones"; a garment's chains, in order around it, as
         * "garment_bones" (one array of names per chain). */
        cJSON *around = NULL;
        for (uint32_t c = 0; c < plan->chain_count; c++) {
            const sinew_rig_chain *ch = &plan->chains[c];
            if (ch->piece != p) continue;
            if (ch->garment && !around) {
                around = cJSON_AddArrayToObject(o, "garment_bones");
                cJSON_AddStringToObject(o, "parent", joint_name(m, ch->parent_joint));
            }
            cJSON *bones = cJSON_CreateArray();
            for (uint32_t b = 0; b < ch->bone_count; b++)
                cJSON_AddItemToArray(bones, cJSON_CreateString(ch->bones[b].name));
            if (ch->garment) {
                cJSON_AddItemToArray(around, bones);
            } else {
                cJSON_AddItemToObject(o, "bones", bones);
                cJSON_AddStringToObject(o, "parent", joint_name(m, ch->parent_joint));
            }
        }
        cJSON_AddItemToArray(list, o);
    }
    cJSON_AddNumberToObject(root, "chains", plan->chain_count);
    cJSON_AddNumberToObject(root, "changed_vertices", plan->changed_count);
    cJSON *check = cJSON_AddObjectToObject(root, "check");
    cJSON_AddBoolToObject(check, "ran", run->guarded);
    cJSON_AddStringToObject(check, "root_blend",
                            run->root_blend == SINEW_RIG_ROOT_BODY ? "body" : "pelvis");
    cJSON *tears = cJSON_AddObjectToObject(check, "new_torn_samples");
    const char *blend_names[2] = {"pelvis", "body"};
    for (int b = 0; b < 2; b++)
        if (run->blend_new_torn[b] >= 0)
            cJSON_AddNumberToObject(tears, blend_names[b], run->blend_new_torn[b]);
    cJSON_AddNumberToObject(check, "returned_vertices", run->returned);
    cJSON_AddNumberToObject(check, "dropped_chains", run->dropped);
    cJSON_AddNumberToObject(check, "dropped_ear_chains", run->dropped_ears);
    cJSON *clips = cJSON_AddArrayToObject(check, "clips");
    for (uint32_t c = 0; c < run->clip_count; c++) {
        const sinew_tail_guard_clip *g = &run->clips[c];
        cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "clip", m->clips[c].name);
        cJSON_AddItemToObject(o, "tail_before", tail_cli_stretch_json(&g->tail_before));
        cJSON_AddItemToObject(o, "tail_after", tail_cli_stretch_json(&g->tail_after));
        cJSON_AddBoolToObject(o, "tail_worse",
                              sinew_tail_stretch_worse(&g->tail_before, &g->tail_after));
        cJSON_AddItemToObject(o, "body_before", tail_cli_stretch_json(&g->body_before));
        cJSON_AddItemToObject(o, "body_after", tail_cli_stretch_json(&g->body_after));
        cJSON_AddBoolToObject(o, "body_worse",
                              sinew_tail_stretch_worse(&g->body_before, &g->body_after));
        cJSON_AddItemToObject(o, "collar_before", tail_cli_stretch_json(&g->collar_before));
        cJSON_AddItemToObject(o, "collar_after", tail_cli_stretch_json(&g->collar_after));
        cJSON_AddBoolToObject(o, "collar_worse",
                              sinew_tail_stretch_worse(&g->collar_before, &g->collar_after));
        if (g->ear_after.samples) {
            cJSON_AddItemToObject(o, "ear_before", tail_cli_stretch_json(&g->ear_before));
            cJSON_AddItemToObject(o, "ear_after", tail_cli_stretch_json(&g->ear_after));
        }
        cJSON_AddItemToArray(clips, o);
    }
    if (run->baked && run->bakes) /* the bake table's figures (a wing's bake has none) */
        cJSON_AddItemToObject(root, "bake", bake_cli_json(run->model, run->bakes));
    /* the chained skin inside the hind legs, per clip of the result (see sinew stretch) */
    if (run->legs) {
        cJSON *legs = cJSON_AddObjectToObject(root, "in_legs");
        cJSON_AddNumberToObject(legs, "capsules", run->leg_capsules);
        cJSON_AddBoolToObject(legs, "colliders_turned_on", run->colliders_turned_on);
        cJSON_AddNumberToObject(legs, "colliders", run->bakes ? run->bakes[0].capsule_count : 0);
        cJSON *per = cJSON_AddArrayToObject(legs, "clips");
        for (uint32_t c = 0; c < run->model->clip_count; c++) {
            cJSON *o = tail_cli_capsule_json(&run->legs[c]);
            cJSON_AddStringToObject(o, "clip", run->model->clips[c].name);
            cJSON_AddItemToArray(per, o);
        }
    }
    if (run->vrm)
        cJSON_AddItemToObject(root, "vrm_springs", bake_cli_vrm_json(run->model, &run->vrm_fit));
    return root;
}

char *tail_cli_report_text(const sinew_tail_result *run, const char *in, const char *out,
                           const char *mode)
{
    cJSON *json = tail_cli_report_json(run, in, out, mode);
    char *text = json ? cli_json_text(json, CLI_JSON_INDENTED) : NULL;
    cJSON_Delete(json);
    return text;
}

int tail_cli_write_report(const char *path, const sinew_tail_result *run, const char *in,
                          const char *out, const char *mode)
{
    char *text = tail_cli_report_text(run, in, out, mode);
    int ok = text && cli_write_text_atomic(path, text);
    free(text);
    return ok;
}

/* Which root blend the check kept, and what each added in new tears at the root. */
static void print_blends(const sinew_tail_result *run)
{
    /* SINEW_RIG_ROOT_PELVIS blends into the joint a chain hangs from: a tail's pelvis (or the
     * joint --tail-from names), a wing's torso joint, an ear's head, a garment's torso joint. */
    int tails_only = run->plan.chain_count > 0;
    for (uint32_t c = 0; c < run->plan.chain_count; c++)
        tails_only &=
            !run->plan.chains[c].wing && !run->plan.chains[c].ear && !run->plan.chains[c].garment;
    const int32_t hung = tails_only ? run->plan.chains[0].parent_joint : -1;
    char parent[1100];
    if (hung < 0)
        snprintf(parent, sizeof parent, "the joint it hangs from");
    else
        snprintf(parent, sizeof parent, "%s%s",
                 hung == run->report.landmarks.pelvis ? "the pelvis " : "",
                 safe_text(joint_name(run->input, hung)).s);
    printf("  the root blends into %s", run->root_blend == SINEW_RIG_ROOT_BODY
                                            ? "the body skin around it (its rigger's weights)"
                                            : parent);
    const double pelvis = run->blend_new_torn[SINEW_RIG_ROOT_PELVIS],
                 body = run->blend_new_torn[SINEW_RIG_ROOT_BODY];
    if (pelvis >= 0 && body >= 0)
        printf(": new torn edge samples at the root, into %s %.0f, into the body %.0f\n", parent,
               pelvis, body);
    else
        printf("\n");
}

/* Why nothing was grown, in one line. */
static void print_nothing(const sinew_tail_result *run)
{
    const sinew_rig_report *rep = &run->report;
    const sinew_model *m = run->input;
    if (rep->rigged_tail >= 0) {
        printf("no tail to grow: the skeleton already has one (%s and its chain); give it spring "
               "motion with 'sinew bake'\n",
               safe_text(joint_name(m, rep->rigged_tail)).s);
        return;
    }
    uint32_t listed = 0;
    for (uint32_t p = 0; p < rep->piece_count; p++)
        listed += rep->pieces[p].verdict != SINEW_RIG_VERDICT_MERGED;
    if (run->dropped)
        printf("no tail grown: the check dropped the chain (see the table above)\n");
    else if (listed)
        printf("no tail found: no protrusion without a bone hangs from the pelvis (%s) long "
               "enough to be one; use --piece N or --tail-from JOINT if one is\n",
               safe_text(joint_name(m, rep->landmarks.pelvis)).s);
    else
        printf("no tail found: every part of the skin has a bone inside it\n");
}

/* The parts of the check's table. */
typedef enum check_part { PART_CHAINS, PART_COLLAR, PART_BODY } check_part;

static const sinew_stretch_stats *part_stats(const sinew_tail_guard_clip *g, check_part part,
                                             int after)
{
    switch (part) {
    case PART_CHAINS:
        return after ? &g->tail_after : &g->tail_before;
    case PART_COLLAR:
        return after ? &g->collar_after : &g->collar_before;
    default:
        return after ? &g->body_after : &g->body_before;
    }
}

/* Said, not undone: the clips on which a part of the skin strains more than the input's
 * (sinew_tail_stretch_worse), after `lead`, then `why` when there was one. The check drops a
 * chain that leaves the body worse without mending its own skin, so what is said here was
 * kept: the chains' skin stretched a little where the rigger left it rigid (a stub on the
 * spine); the collar (re-weighted skin still on a body bone, the only body skin whose weights
 * changed) straining more while the chains mend theirs. */
static void print_worse(const sinew_tail_result *run, check_part part, const char *lead,
                        const char *why)
{
    const sinew_model *m = run->input;
    uint32_t worse = 0;
    for (uint32_t c = 0; c < run->clip_count; c++) {
        const sinew_tail_guard_clip *g = &run->clips[c];
        const sinew_stretch_stats *before = part_stats(g, part, 0), *after = part_stats(g, part, 1);
        if (!sinew_tail_stretch_worse(before, after)) continue;
        printf("%s %s (p99 %.2f -> %.2f, torn %.1f%% -> %.1f%%", worse++ ? "," : lead,
               safe_text(m->clips[c].name).s, (double)before->p99, (double)after->p99,
               100.0 * before->torn_share, 100.0 * after->torn_share);
        if (part != PART_CHAINS)
            printf("; the chains' skin %.1f%% -> %.1f%%", 100.0 * g->tail_before.torn_share,
                   100.0 * g->tail_after.torn_share);
        printf(")");
    }
    if (worse) printf(";\n  %s\n", why);
}

static void print_check(const sinew_tail_result *run)
{
    const sinew_model *m = run->input;
    const int kept = run->plan.chain_count > 0;
    printf("check (do no harm) over every clip%s: edge p99 and torn share, before -> after\n",
           kept ? "" : ", on the trial of what it dropped");
    printf("  %-24s %-27s %-27s %-27s\n", "clip", "chains' skin", "collar round the roots",
           "body (collar included)");
    for (uint32_t c = 0; c < run->clip_count; c++) {
        const sinew_tail_guard_clip *g = &run->clips[c];
        printf("  %s", safe_text_cell(m->clips[c].name, 24).s);
        for (check_part part = PART_CHAINS; part <= PART_BODY; part++) {
            const sinew_stretch_stats *before = part_stats(g, part, 0),
                                      *after = part_stats(g, part, 1);
            char cell[64];
            snprintf(cell, sizeof cell, "%.2f %5.1f%% -> %.2f %5.1f%%", (double)before->p99,
                     100.0 * before->torn_share, (double)after->p99, 100.0 * after->torn_share);
            printf(" %-27s", cell);
        }
        printf("\n");
    }
    if (kept) {
        print_worse(run, PART_CHAINS, "  the chains' skin strains more than the input's on",
                    "kept all the same: the body is no worse (the check drops a chain for the "
                    "body's sake only)");
        print_worse(run, PART_COLLAR,
                    "  the collar round the roots (re-weighted skin still on a body bone, and its "
                    "seams) strains more than the input's on",
                    "kept: the check's bar is on the body as a whole, named below if it came out "
                    "worse");
        print_worse(run, PART_BODY, "  the body strains more than the input's on",
                    "kept: the chains mend their own skin there; what is worse is the collar; "
                    "--skip N leaves a piece\n  as its rigger had it");
    }
    /* The root blend is a tail's and a wing's: a garment's chains blend into their parent. */
    int rooted = 0;
    for (uint32_t c = 0; c < run->plan.chain_count; c++)
        rooted |= run->plan.chains[c].garment == 0;
    if (rooted) print_blends(run);
    if (run->returned)
        printf("  gave %u %s at the tail's root back %s rigger's weights: with the chain %s "
               "strained more than before\n",
               run->returned, run->returned == 1 ? "vertex" : "vertices",
               run->returned == 1 ? "its" : "their", run->returned == 1 ? "it" : "they");
    if (run->dropped_ears)
        printf("  dropped %u ear chain(s): the skin they move came out worse than the input's\n",
               run->dropped_ears);
    if (run->dropped > run->dropped_ears)
        printf("  dropped %u chain(s): the body stayed worse than the input's\n",
               run->dropped - run->dropped_ears);
}

void tail_cli_print(const char *in, const sinew_tail_result *run, int verbose)
{
    const sinew_model *m = run->input;
    const sinew_rig_report *rep = &run->report;
    const sinew_rig_plan *plan = &run->plan;
    const float H = rep->scale;
    char up[64];
    up_name(rep->landmarks.up, up, sizeof up);
    printf("%s: H = %.4g, pelvis %s, head %s, up %s\n", safe_text(in).s, (double)H,
           safe_text(joint_name(m, rep->landmarks.pelvis)).s,
           safe_text(joint_name(m, rep->landmarks.head)).s, up);
    printf("%-3s %-8s %6s %-22s %7s %6s %6s %6s %15s\n", "#", "what", "verts", "hangs from",
           "length", "thick", "x long", "shells", "reach");
    for (uint32_t p = 0; p < rep->piece_count; p++) {
        const sinew_rig_piece *pc = &rep->pieces[p];
        if (pc->verdict == SINEW_RIG_VERDICT_MERGED) continue;
        char reach[40];
        snprintf(reach, sizeof reach, "%.3f -> %.3f", (double)(pc->distance_before / H),
                 (double)(pc->distance_after / H));
        printf("%-3u %-8s %6u %s %6.3f %6.3f %6.1f %6u %15s\n", p, what_name(pc->verdict),
               pc->vertex_count, safe_text_cell(joint_name(m, pc->attach_joint), 22).s,
               (double)(pc->length / H), (double)(2 * pc->radius / H), (double)pc->elongation,
               pc->merged_shells, reach);
        printf("    %s\n", safe_text(pc->reason).s);
    }
    if (rep->small_count)
        printf("+ %u bumps beyond bone ends (hooves, a snout, finger tips): unchanged\n",
               rep->small_count);
    for (uint32_t c = 0; c < plan->chain_count; c++) {
        const sinew_rig_chain *ch = &plan->chains[c];
        printf("chain %u: %s .. %s (%u bones) under %s, from row %u\n", c,
               safe_text(ch->bones[0].name).s, safe_text(ch->bones[ch->bone_count - 1].name).s,
               ch->bone_count, safe_text(joint_name(m, ch->parent_joint)).s, ch->piece);
    }
    if (plan->chain_count == 0 && plan->changed_count == 0) print_nothing(run);
    if (verbose) {
        printf("landmarks: thighs %s, %s; spine",
               safe_text(joint_name(m, rep->landmarks.thigh[0])).s,
               safe_text(joint_name(m, rep->landmarks.thigh[1])).s);
        for (uint32_t i = 0; i < rep->landmarks.spine_count; i++)
            printf(" %s", safe_text(joint_name(m, rep->landmarks.spine[i])).s);
        printf("\n");
    }
    {
        int wings = 0, ears = 0, garments = 0;
        for (uint32_t c = 0; c < plan->chain_count; c++)
            wings |= plan->chains[c].wing != 0, ears |= plan->chains[c].ear != 0,
                garments |= plan->chains[c].garment != 0;
        /* "wing", "wing and ear", "wing, ear and garment": what moves without a tail */
        const char *kinds[3];
        int n = 0;
        if (wings) kinds[n++] = "wing";
        if (ears) kinds[n++] = "ear";
        if (garments) kinds[n++] = "garment";
        char what[96];
        cli_join_words(what, sizeof what, kinds, n);
        if (plan->chain_count || plan->changed_count) {
            printf("%u chain(s), %u vertices re-weighted; ", plan->chain_count,
                   plan->changed_count);
            if (!run->baked)
                printf("clips copied unchanged\n");
            else if (run->bakes)
                printf("tail motion baked into every clip:\n");
            else
                printf("%s motion baked into every clip\n", n ? what : "chain");
        }
    }
    if (run->baked && run->bakes) {
        bake_cli_print(run->model, run->bakes);
        bake_cli_print_colliders(run->model, run->bakes);
    }
    if (run->colliders_turned_on)
        printf("  colliders on for the tail: without them its skin entered a leg on some clip "
               "(more than 0.5%% of its samples)\n");
    for (uint32_t c = 0; run->legs && c < run->model->clip_count; c++)
        if (run->legs[c].inside)
            printf("  in legs: %s %.2f%% of the chained skin samples inside a leg (deepest "
                   "%.2f of the radius)\n",
                   safe_text(run->model->clips[c].name).s, 100.0 * run->legs[c].share,
                   (double)run->legs[c].deepest);
    if (run->vrm) bake_cli_print_vrm(run->model, &run->vrm_fit);
    if (run->guarded) print_check(run);
}

sinew_result tail_cli_run_copy(const sinew_document *doc, sinew_rig_mode mode,
                               sinew_document **copy, sinew_tail_result *run, sinew_error *err)
{
    sinew_tail_options options;
    memset(&options, 0, sizeof options);
    options.rig.mode = mode;
    memset(run, 0, sizeof *run);
    sinew_result r = sinew_document_copy(doc, copy, err);
    if (r == SINEW_OK) r = sinew_tail_run(*copy, &options, run, err);
    return r;
}

static void print_stretch_row(const char *label, const sinew_stretch_stats *s)
{
    printf("  %-22s %9llu %6.2f %6.2f %6.2f %7.1f%%\n", label, (unsigned long long)s->samples,
           (double)s->p95, (double)s->p99, (double)s->max, 100.0 * (double)s->torn_share);
}

/* One clip's comparison as JSON: the rows under the keys of `keys`. */
static cJSON *compare_clip_json(const char *name, const sinew_stretch_stats tail[3],
                                const sinew_stretch_stats *body)
{
    static const char *keys[3] = {"original", "rigid", "chain"};
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "name", name);
    for (int v = 0; v < 3; v++)
        cJSON_AddItemToObject(o, keys[v], tail_cli_stretch_json(&tail[v]));
    cJSON_AddItemToObject(o, "body", tail_cli_stretch_json(body));
    return o;
}

sinew_result tail_cli_stretch_compare(const sinew_document *doc, const char *clip_name,
                                      uint32_t samples, cJSON *json, sinew_error *err)
{
    sinew_tail_result chain, rigid;
    sinew_document *chain_doc = NULL, *rigid_doc = NULL;
    memset(&chain, 0, sizeof chain);
    memset(&rigid, 0, sizeof rigid);
    sinew_result r = tail_cli_run_copy(doc, SINEW_RIG_MODE_CHAIN, &chain_doc, &chain, err);
    if (r == SINEW_OK) r = tail_cli_run_copy(doc, SINEW_RIG_MODE_RIGID, &rigid_doc, &rigid, err);
    if (r != SINEW_OK) goto done;
    const int found = chain.plan.chain_count > 0 && rigid.model;
    cJSON *clips = NULL;
    if (json) {
        cJSON_AddBoolToObject(json, "tail_found", found);
        cJSON_AddNumberToObject(json, "tail_vertices", found ? chain.plan.changed_count : 0);
        cJSON_AddNumberToObject(json, "samples", samples);
        clips = cJSON_AddArrayToObject(json, "clips");
    }
    if (!found) {
        if (!json) printf("no tail found: nothing to compare\n");
        goto done;
    }
    const sinew_model *model = chain.input;
    const sinew_model *versions[3] = {model, rigid.model, chain.model};
    static const char *labels[3] = {"original rig", "rigid on the pelvis", "tail chain (baked)"};
    sinew_stretch_options options = {samples};
    for (uint32_t c = 0; c < model->clip_count; c++) {
        if (clip_name && strcmp(model->clips[c].name, clip_name)) continue;
        sinew_stretch_stats tail[3], body;
        for (int v = 0; v < 3 && r == SINEW_OK; v++)
            r = sinew_metrics_stretch(versions[v], &versions[v]->clips[c], &options,
                                      chain.plan.changed, &tail[v], v == 0 ? &body : NULL, err);
        if (r != SINEW_OK) goto done;
        if (json) {
            cJSON_AddItemToArray(clips, compare_clip_json(model->clips[c].name, tail, &body));
            continue;
        }
        printf("clip %s, %u moments: tail edges (the %u vertices the chain re-weights)\n",
               safe_text(model->clips[c].name).s, samples, chain.plan.changed_count);
        printf("  %-22s %9s %6s %6s %6s %8s\n", "", "samples", "p95", "p99", "max", "torn");
        for (int v = 0; v < 3; v++)
            print_stretch_row(labels[v], &tail[v]);
        print_stretch_row("body, as reference", &body);
    }
done:
    sinew_tail_result_free(&chain);
    sinew_tail_result_free(&rigid);
    sinew_document_free(chain_doc);
    sinew_document_free(rigid_doc);
    return r;
}
