/* sinew creature KIND|--random SEED -o FILE.glb [--truth T.json]: the procedural test
 * characters. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "cli.h"
#include "outputs.h"
#include "safe_text.h"
#include "commands.h"
#include "sinew/creature.h"
#include "sinew/document.h"

static void usage(FILE *out)
{
    fprintf(out,
            "usage: sinew creature KIND -o OUT.glb [--truth T.json] [--height METRES]\n"
            "       sinew creature --random SEED -o OUT.glb [--truth T.json] [--height UNITS]\n"
            "       sinew creature --list\n\n"
            "Writes a deterministic (same bytes every run) skinned and animated test character,\n"
            "laid out the way a template auto-rigger (Mixamo-style) leaves it: the tail, cape or\n"
            "ears have no bones and their skin sits on the nearest body bones. Y up, facing +Z.\n\n"
            "  --random SEED     a creature drawn from SEED (a whole number, 0 .. 2^64-1):\n"
            "                    quadruped or biped, fur, a tail (none, sunk or welded, weighted\n"
            "                    to the nearest bones, the template's legs or the pelvis, or\n"
            "                    already rigged), plates, mane, frill, ears, horns, one of five\n"
            "                    skeleton naming styles and a unit scale from 0.01 to 100\n"
            "  -o OUT            .glb (or .gltf with an embedded buffer)\n"
            "  --truth T.json    the ground truth: per vertex its piece, per piece the expected\n"
            "                    verdict (chain / unchanged / rigid-on-spine), attach joint,\n"
            "                    modelled length and radius\n"
            "  --height METRES   scale to this bind-space height (default: the kind's own)\n"
            "  --list            list the kinds\n" CLI_MESHOPT_HELP "\n"
            "A random creature's truth also holds its seed, what it drew (\"traits\") and a\n"
            "one-line \"description\"; a rigged tail has \"tail_rigged\": true and the verdict\n"
            "unchanged (the rigger must leave it as it is).\n\n"
            "exit codes: 0 ok, 2 bad usage, 3 internal error or output not written\n");
}

static void list_kinds(void)
{
    for (int k = SINEW_CREATURE_INVALID + 1; k < SINEW_CREATURE_KIND_COUNT; k++)
        printf("  %-7s %s\n", sinew_creature_kind_name((sinew_creature_kind)k),
               sinew_creature_kind_summary((sinew_creature_kind)k));
    printf("  --random SEED   %s\n", sinew_creature_kind_summary(SINEW_CREATURE_RANDOM));
}

/* A whole number in decimal digits only (no sign, no spaces), 0 .. 2^64 - 1. */
static int parse_seed(const char *text, uint64_t *out)
{
    if (!text || !*text) return 0;
    for (const char *p = text; *p; p++)
        if (*p < '0' || *p > '9') return 0;
    errno = 0;
    char *end = NULL;
    unsigned long long v = strtoull(text, &end, 10);
    if (errno == ERANGE || !end || *end) return 0;
    *out = (uint64_t)v;
    return 1;
}

/* What a random creature drew, as JSON. */
static void traits_json(cJSON *o, const sinew_creature_traits *t)
{
    cJSON_AddStringToObject(o, "plan", sinew_creature_plan_name(t->plan));
    cJSON_AddNumberToObject(o, "unit_scale", t->unit_scale);
    cJSON_AddNumberToObject(o, "body_length", t->body_length);
    cJSON_AddNumberToObject(o, "thickness", t->thickness);
    cJSON_AddNumberToObject(o, "leg_length", t->leg_length);
    cJSON_AddNumberToObject(o, "arm_length", t->arm_length);
    cJSON_AddStringToObject(o, "fur", sinew_creature_fur_name(t->fur));
    cJSON_AddStringToObject(o, "tail", sinew_creature_tail_shell_name(t->tail));
    cJSON_AddStringToObject(o, "tail_weights", sinew_creature_tail_weights_name(t->tail_weights));
    cJSON_AddNumberToObject(o, "tail_length", t->tail_length);
    cJSON_AddNumberToObject(o, "tail_radius", t->tail_radius);
    cJSON_AddNumberToObject(o, "tail_droop", t->tail_droop);
    cJSON_AddNumberToObject(o, "tail_curl", t->tail_curl);
    cJSON_AddNumberToObject(o, "tail_bend", t->tail_bend);
    cJSON_AddNumberToObject(o, "tail_bones", t->tail_bones);
    cJSON_AddStringToObject(o, "dorsal", sinew_creature_dorsal_name(t->dorsal));
    cJSON_AddNumberToObject(o, "dorsal_count", t->dorsal_count);
    cJSON_AddNumberToObject(o, "dorsal_on_tail", t->dorsal_on_tail);
    cJSON_AddNumberToObject(o, "ear_count", t->ear_count);
    cJSON_AddBoolToObject(o, "ears_long", t->ears_long);
    cJSON_AddNumberToObject(o, "horn_count", t->horn_count);
    cJSON_AddBoolToObject(o, "mane", t->mane);
    cJSON_AddBoolToObject(o, "frill", t->frill);
    cJSON_AddStringToObject(o, "extra_weights",
                            sinew_creature_extra_weights_name(t->extra_weights));
    cJSON_AddStringToObject(o, "style", sinew_creature_style_name(t->style));
    cJSON_AddBoolToObject(o, "flat_hierarchy", t->flat_hierarchy);
    cJSON_AddBoolToObject(o, "root_joint", t->root_joint);
    cJSON_AddBoolToObject(o, "ik_helpers", t->ik_helpers);
    cJSON_AddBoolToObject(o, "end_joints", t->end_joints);
    cJSON_AddStringToObject(o, "axes", sinew_creature_axes_name(t->axes));
}

/* The truth as JSON text (cli_json_text; free it), or NULL when out of memory. */
static char *truth_json(const sinew_creature_truth *t)
{
    char generator[64];
    snprintf(generator, sizeof generator, "sinew %s", SINEW_VERSION_STRING);
    cJSON *root = cJSON_CreateObject();
    cJSON_AddStringToObject(root, "generator", generator);
    cJSON_AddStringToObject(root, "kind", sinew_creature_kind_name(t->kind));
    const int random = t->kind == SINEW_CREATURE_RANDOM;
    if (random) {
        /* a JSON number holds a seed exactly up to 2^53; larger ones are written as text */
        char seed[24];
        snprintf(seed, sizeof seed, "%llu", (unsigned long long)t->traits.seed);
        if (t->traits.seed <= (1ull << 53))
            cJSON_AddNumberToObject(root, "seed", (double)t->traits.seed);
        else
            cJSON_AddStringToObject(root, "seed", seed);
        cJSON_AddStringToObject(root, "description", t->description);
        cJSON_AddStringToObject(root, "units",
                                "file units (traits.unit_scale per metre), Y up, "
                                "facing +Z");
    } else {
        cJSON_AddStringToObject(root, "units", "metres, Y up, facing +Z");
    }
    cJSON_AddNumberToObject(root, "height", t->height);
    cJSON_AddNumberToObject(root, "tail_length", t->tail_length);
    cJSON_AddNumberToObject(root, "tail_piece", t->tail_piece);
    if (random) {
        cJSON_AddBoolToObject(root, "tail_rigged", t->tail_rigged);
        traits_json(cJSON_AddObjectToObject(root, "traits"), &t->traits);
    }
    cJSON *pieces = cJSON_AddArrayToObject(root, "pieces");
    for (uint32_t p = 0; p < t->piece_count; p++) {
        const sinew_creature_piece *pc = &t->pieces[p];
        cJSON *o = cJSON_CreateObject();
        cJSON_AddNumberToObject(o, "index", p);
        cJSON_AddStringToObject(o, "name", pc->name);
        cJSON_AddStringToObject(o, "part", sinew_creature_part_name(pc->part));
        cJSON_AddStringToObject(o, "verdict", sinew_creature_verdict_name(pc->verdict));
        cJSON_AddStringToObject(o, "attach_joint", pc->attach_joint);
        cJSON_AddNumberToObject(o, "vertex_count", pc->vertex_count);
        cJSON_AddNumberToObject(o, "shell_count", pc->shell_count);
        cJSON_AddNumberToObject(o, "length", pc->length);
        cJSON_AddNumberToObject(o, "radius", pc->radius);
        cJSON_AddItemToArray(pieces, o);
    }
    cJSON_AddNumberToObject(root, "vertex_count", t->vertex_count);
    cJSON *labels = cJSON_AddArrayToObject(root, "vertex_piece");
    for (uint32_t v = 0; v < t->vertex_count; v++)
        cJSON_AddItemToArray(labels, cJSON_CreateNumber(t->vertex_piece[v]));
    char *text = cli_json_text(root, CLI_JSON_INDENTED);
    cJSON_Delete(root);
    return text;
}

int cmd_creature(int argc, char **argv)
{
    const char *kind_name = NULL, *out = NULL, *truth_path = NULL, *seed_text = NULL;
    uint64_t seed = 0;
    sinew_creature_options opt = {0};
    sinew_write_options wopt = {0};
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (cli_parse_write_option(a, &wopt)) {
            continue;
        } else if (cli_is_help(a)) {
            usage(stdout);
            return CLI_EXIT_OK;
        } else if (!strcmp(a, "--list")) {
            list_kinds();
            return CLI_EXIT_OK;
        } else if (!strcmp(a, "-o") || !strcmp(a, "--output")) {
            if (!(out = cli_option_value("creature", argc, argv, &i))) return CLI_EXIT_USAGE;
        } else if (!strcmp(a, "--random")) {
            if (!(seed_text = cli_option_value("creature", argc, argv, &i))) return CLI_EXIT_USAGE;
            if (!parse_seed(seed_text, &seed))
                return cli_usage_error("creature",
                                       "--random wants a whole number 0 .. 18446744073709551615, "
                                       "not '%s'",
                                       seed_text);
        } else if (!strcmp(a, "--truth")) {
            if (!(truth_path = cli_option_value("creature", argc, argv, &i))) return CLI_EXIT_USAGE;
        } else if (!strcmp(a, "--height")) {
            const char *v = cli_option_value("creature", argc, argv, &i);
            if (!v) return CLI_EXIT_USAGE;
            if (!cli_parse_float(v, 1e-4f, 1e5f, &opt.height) || !(opt.height > 0))
                return cli_usage_error("creature", "--height wants metres in (0, 100000], not '%s'",
                                       v);
        } else if (a[0] == '-' && a[1]) {
            return cli_usage_error("creature", "unknown option '%s'", a);
        } else if (kind_name) {
            return cli_usage_error("creature", "one KIND at a time ('%s' and '%s')", kind_name, a);
        } else {
            kind_name = a;
        }
    }
    if (kind_name && seed_text)
        return cli_usage_error("creature", "a KIND ('%s') or --random SEED, not both", kind_name);
    if (!kind_name && !seed_text) {
        usage(stderr);
        return CLI_EXIT_USAGE;
    }
    sinew_creature_kind kind =
        seed_text ? SINEW_CREATURE_RANDOM : sinew_creature_kind_from_name(kind_name);
    if (kind == SINEW_CREATURE_INVALID) {
        cli_error("creature", "unknown kind '%s'; the kinds are:", kind_name);
        for (int k = SINEW_CREATURE_INVALID + 1; k < SINEW_CREATURE_KIND_COUNT; k++)
            fprintf(stderr, "  %s\n", sinew_creature_kind_name((sinew_creature_kind)k));
        return CLI_EXIT_USAGE;
    }
    if (!out) return cli_usage_error("creature", "missing -o OUT.glb");
    cli_output outs[2] = {{.option = "-o", .path = out, .format = CLI_FORMAT_GLTF},
                          {.option = "--truth", .path = truth_path, .format = CLI_FORMAT_ANY}};
    if (cli_outputs_check("creature", outs, 2, NULL, 0, NULL, 0) != CLI_EXIT_OK)
        return CLI_EXIT_USAGE;

    sinew_error err = {0};
    sinew_model *model = NULL;
    sinew_creature_truth truth;
    sinew_result built = seed_text ? sinew_creature_build_random(seed, &opt, &model, &truth, &err)
                                   : sinew_creature_build(kind, &opt, &model, &truth, &err);
    if (built) return cli_report("creature", &err);

    /* The model and the truth are written together or not at all. */
    sinew_document *doc = NULL;
    sinew_result r = sinew_document_from_model(model, &doc, &err);
    if (r == SINEW_OK) r = sinew_document_serialize_with(doc, out, &wopt, &outs[0].bytes, &err);
    if (r == SINEW_OK && truth_path) {
        if ((outs[1].bytes.data = truth_json(&truth)) != NULL)
            outs[1].bytes.size = strlen(outs[1].bytes.data);
        else
            r = sinew_error_set(&err, SINEW_ERR_OUT_OF_MEMORY, "%s: out of memory", truth_path);
    }
    int code =
        r == SINEW_OK ? cli_outputs_write("creature", outs, 2) : cli_report("creature", &err);
    if (code == CLI_EXIT_OK) {
        if (seed_text)
            printf("random %s: %u vertices, %u triangles, %u joints, %u clips (",
                   safe_text(seed_text).s, model->mesh.vertex_count, model->mesh.triangle_count,
                   model->skin.joint_count, model->clip_count);
        else
            printf("%s: %u vertices, %u triangles, %u joints, %u clips (",
                   sinew_creature_kind_name(kind), model->mesh.vertex_count,
                   model->mesh.triangle_count, model->skin.joint_count, model->clip_count);
        for (uint32_t c = 0; c < model->clip_count; c++)
            printf("%s%s", c ? ", " : "", model->clips[c].name);
        const char *unit = seed_text ? "units" : "m";
        printf("), height %.3f %s", (double)model->size.height, unit);
        if (truth.tail_piece >= 0) printf(", tail %.3f %s", (double)truth.tail_length, unit);
        printf(" -> %s%s%s\n", safe_text(out).s, truth_path ? ", truth -> " : "",
               safe_text(truth_path).s);
        if (seed_text) printf("  %s\n", truth.description);
    }
    cli_outputs_free(outs, 2);
    sinew_document_free(doc);
    sinew_model_free(model);
    sinew_creature_truth_free(&truth);
    return code;
}
