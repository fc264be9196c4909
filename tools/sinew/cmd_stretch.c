/* sinew stretch: the edge-stretch table of Sidorkin, "Animating tails the auto-rigger never
 * gave a bone", for a file's clips: tail edges against body edges as the reference. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "cli.h"
#include "safe_text.h"
#include "commands.h"
#include "tail_cli.h"
#include "sinew/document.h"
#include "sinew/metrics.h"
#include "sinew/pipeline.h"

static const char *usage =
    "usage: sinew stretch FILE [--clip NAME] [--samples N] [--part WORD] [--json] [--compare]\n"
    "\n"
    "Edge stretch over a clip: for every mesh edge, the ratio of its skinned length to its bind\n"
    "length at N evenly spaced moments (default 24). Tail edges (both ends dominated by a joint\n"
    "whose name contains \"tail\", any case) are reported apart from body edges, the reference\n"
    "for normal skinning distortion. An edge above 1.5 or below 0.67 counts as torn.\n"
    "The \"in legs\" row is the share of those joints' skin (vertex x moment samples) that\n"
    "lies inside a hind leg's collider: a capsule along each leg bone, as thick as the\n"
    "median distance of the skin that bone dominates (see docs/appendages.md).\n"
    "\n"
    "  --clip NAME    one clip (default: every clip)\n"
    "  --part WORD    report the edges of joints whose name contains WORD (any case) instead\n"
    "                 of \"tail\": --part wing for wings (Wing_L_1, Wing2.R)\n"
    "  --samples N    moments per clip, 1..10000 (default 24)\n"
    "  --json         print JSON instead of the table\n"
    "  --compare      run the tail pipeline in memory and print the comparison rows: the tail\n"
    "                 edges of the original rig, of the tail rigid on the pelvis, of the\n"
    "                 baked tail chain, and the body edges as reference (with --json: per clip\n"
    "                 \"original\", \"rigid\", \"chain\" and \"body\"; --part is for the table\n"
    "                 without --compare)\n";

static void print_row(const char *label, const sinew_stretch_stats *s)
{
    if (s->samples == 0) {
        printf("  %-10s %10s\n", label, "no edges");
        return;
    }
    printf("  %-10s %10llu %6.2f %6.2f %6.2f %7.1f%%\n", label, (unsigned long long)s->samples,
           s->p95, s->p99, s->max, 100.0 * s->torn_share);
}

/* `root` on stdout: CLI_EXIT_OK, or CLI_EXIT_INTERNAL after saying it is out of memory. */
static int print_json(cJSON *root)
{
    char *text = root ? cli_json_text(root, CLI_JSON_INDENTED) : NULL;
    const int ok = text && puts(text) >= 0;
    free(text);
    if (ok) return CLI_EXIT_OK;
    cli_error("stretch", "out of memory writing the report");
    return CLI_EXIT_INTERNAL;
}

int cmd_stretch(int argc, char **argv)
{
    const char *file = NULL, *clip_name = NULL, *part = "tail";
    unsigned long samples = 24;
    int json = 0, compare = 0;
    for (int i = 1; i < argc; i++) {
        if (cli_is_help(argv[i])) {
            fputs(usage, stdout);
            return CLI_EXIT_OK;
        } else if (!strcmp(argv[i], "--clip")) {
            if (!(clip_name = cli_option_value("stretch", argc, argv, &i))) return CLI_EXIT_USAGE;
        } else if (!strcmp(argv[i], "--samples")) {
            const char *v = cli_option_value("stretch", argc, argv, &i);
            if (!v) return CLI_EXIT_USAGE;
            if (!cli_parse_uint(v, 1, 10000, &samples))
                return cli_usage_error(
                    "stretch", "--samples wants a whole number from 1 to 10000, not '%s'", v);
        } else if (!strcmp(argv[i], "--part")) {
            if (!(part = cli_option_value("stretch", argc, argv, &i))) return CLI_EXIT_USAGE;
            if (!part[0]) return cli_usage_error("stretch", "--part wants a word, not ''");
        } else if (!strcmp(argv[i], "--json")) {
            json = 1;
        } else if (!strcmp(argv[i], "--compare")) {
            compare = 1;
        } else if (argv[i][0] == '-') {
            return cli_usage_error("stretch", "unknown option '%s'", argv[i]);
        } else if (!file) {
            file = argv[i];
        } else {
            return cli_usage_error("stretch", "one input file only ('%s' is extra)", argv[i]);
        }
    }
    if (!file) return cli_usage_error("stretch", "no input file");

    sinew_error err = {0};
    sinew_document *doc = NULL;
    sinew_model *model = NULL;
    if (sinew_document_load_file(file, NULL, &doc, &err) != SINEW_OK ||
        sinew_model_from_document(doc, NULL, &model, &err) != SINEW_OK) {
        sinew_document_free(doc);
        return cli_report_file("stretch", file, &err);
    }
    if (compare) {
        int code = CLI_EXIT_OK;
        cJSON *root = json ? cJSON_CreateObject() : NULL;
        if (root) cJSON_AddStringToObject(root, "file", file);
        if (sinew_model_find_clip(model, clip_name ? clip_name : "") < 0 && clip_name) {
            cli_no_clip(&err, file, model, clip_name);
            code = cli_report_file("stretch", file, &err);
        } else if (tail_cli_stretch_compare(doc, clip_name, (uint32_t)samples, root, &err) !=
                   SINEW_OK) {
            code = cli_report_file("stretch", file, &err);
        } else if (json) {
            code = print_json(root);
        }
        cJSON_Delete(root);
        sinew_model_free(model);
        sinew_document_free(doc);
        return code;
    }
    int32_t only = -1;
    if (clip_name && (only = sinew_model_find_clip(model, clip_name)) < 0) {
        cli_no_clip(&err, file, model, clip_name);
        sinew_model_free(model);
        sinew_document_free(doc);
        return cli_report_file("stretch", file, &err);
    }
    uint8_t *tail = calloc(model->mesh.vertex_count + 1, 1);
    uint32_t tail_joints = tail ? cli_mark_named_skin(model, part, tail) : 0;
    sinew_dyn_capsule capsules[SINEW_DYN_MAX_CAPSULES];
    uint32_t capsule_count = 0, legs = 0;
    /* a skeleton without legs has no leg colliders: its row is left out */
    if (tail_joints && sinew_body_capsules(model, capsules, SINEW_DYN_MAX_CAPSULES, &capsule_count,
                                           &legs, &err) != SINEW_OK)
        legs = 0;
    cJSON *root = cJSON_CreateObject(), *clips = cJSON_AddArrayToObject(root, "clips");
    cJSON *caps = cJSON_AddArrayToObject(root, "leg_capsules");
    for (uint32_t c = 0; c < legs; c++) {
        cJSON *o = cJSON_CreateObject();
        const char *a = model->nodes[capsules[c].node_a].name,
                   *b = model->nodes[capsules[c].node_b].name;
        cJSON_AddStringToObject(o, "from", a ? a : "");
        cJSON_AddStringToObject(o, "to", b ? b : "");
        cJSON_AddNumberToObject(o, "radius", capsules[c].radius);
        cJSON_AddNumberToObject(o, "start", capsules[c].start);
        cJSON_AddItemToArray(caps, o);
    }
    cJSON_AddStringToObject(root, "file", file);
    cJSON_AddNumberToObject(root, "tail_joints", tail_joints);
    if (!json) {
        printf("%s: %u %s joints", safe_text(file).s, tail_joints, safe_text(part).s);
        if (!tail_joints)
            printf(" (no joint name contains \"%s\": body edges only)", safe_text(part).s);
        printf("\n");
        printf("  %-10s %10s %6s %6s %6s %8s\n", "edges", "samples", "p95", "p99", "max", "torn");
    }
    int code = CLI_EXIT_OK;
    sinew_stretch_options opt = {(uint32_t)samples};
    for (uint32_t c = 0; tail && c < model->clip_count; c++) {
        if (only >= 0 && (int32_t)c != only) continue;
        sinew_stretch_stats st, sb;
        if (sinew_metrics_stretch(model, &model->clips[c], &opt, tail, &st, &sb, &err) !=
            SINEW_OK) {
            code = cli_report_file("stretch", file, &err);
            break;
        }
        sinew_capsule_share in_legs = {0};
        if (legs && sinew_metrics_capsule_share(model, &model->clips[c], (uint32_t)samples, tail,
                                                capsules, legs, &in_legs, &err) != SINEW_OK) {
            code = cli_report_file("stretch", file, &err);
            break;
        }
        if (json) {
            cJSON *o = cJSON_CreateObject();
            cJSON_AddStringToObject(o, "name", model->clips[c].name);
            cJSON_AddItemToObject(o, part, tail_cli_stretch_json(&st));
            cJSON_AddItemToObject(o, "body", tail_cli_stretch_json(&sb));
            if (legs) cJSON_AddItemToObject(o, "in_legs", tail_cli_capsule_json(&in_legs));
            cJSON_AddItemToArray(clips, o);
        } else {
            printf("clip %s (%.2f s, %lu moments)\n", safe_text(model->clips[c].name).s,
                   (double)model->clips[c].duration, samples);
            if (tail_joints) print_row(safe_text(part).s, &st);
            print_row("body", &sb);
            if (legs)
                printf("  %-10s %10llu %6.2f%% of %s skin samples inside a leg (deepest %.2f "
                       "of the radius)\n",
                       "in legs", (unsigned long long)in_legs.inside, 100.0 * in_legs.share,
                       safe_text(part).s, (double)in_legs.deepest);
        }
    }
    if (!tail) code = CLI_EXIT_INTERNAL;
    if (json && code == CLI_EXIT_OK) code = print_json(root);
    cJSON_Delete(root);
    free(tail);
    sinew_model_free(model);
    sinew_document_free(doc);
    return code;
}
