/* sinew creature KIND -o FILE.glb [--truth T.json]: the procedural test characters. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "commands.h"
#include "sinew/creature.h"
#include "sinew/document.h"

static void usage(FILE *out)
{
    fprintf(out,
            "usage: sinew creature KIND -o OUT.glb [--truth T.json] [--height METRES]\n"
            "       sinew creature --list\n\n"
            "Writes a deterministic (same bytes every run) skinned and animated test character,\n"
            "laid out the way a template auto-rigger (Mixamo-style) leaves it: the tail, cape or\n"
            "ears have no bones and their skin sits on the nearest body bones. Y up, facing +Z.\n\n"
            "  -o OUT            .glb (or .gltf with an embedded buffer)\n"
            "  --truth T.json    the ground truth: per vertex its piece, per piece the expected\n"
            "                    verdict (chain / unchanged / rigid-on-spine), attach joint,\n"
            "                    modelled length and radius\n"
            "  --height METRES   scale to this bind-space height (default: the kind's own)\n"
            "  --list            list the kinds\n\n"
            "exit codes: 0 ok, 2 bad usage, 3 internal error or output not written\n");
}

static void list_kinds(void)
{
    for (int k = SINEW_CREATURE_INVALID + 1; k < SINEW_CREATURE_KIND_COUNT; k++)
        printf("  %-7s %s\n", sinew_creature_kind_name((sinew_creature_kind)k),
               sinew_creature_kind_summary((sinew_creature_kind)k));
}

static void json_string(FILE *f, const char *s)
{
    fputc('"', f);
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\')
            fprintf(f, "\\%c", c);
        else if (c < 0x20)
            fprintf(f, "\\u%04x", c);
        else
            fputc(c, f);
    }
    fputc('"', f);
}

/* Writes the truth as JSON to a temporary file beside `path`; *tmp gets its name. */
static int write_truth(const sinew_creature_truth *t, const char *path, char *tmp, size_t tmp_size)
{
    snprintf(tmp, tmp_size, "%s.tmpXXXXXX", path);
    int fd = mkstemp(tmp);
    if (fd < 0) return 0;
    fchmod(fd, 0644); /* mkstemp makes it private; the truth is an ordinary output */
    FILE *f = fdopen(fd, "w");
    if (!f) {
        close(fd);
        unlink(tmp);
        return 0;
    }
    fprintf(f, "{\n  \"generator\": \"sinew %s\",\n  \"kind\": ", SINEW_VERSION_STRING);
    json_string(f, sinew_creature_kind_name(t->kind));
    fprintf(f, ",\n  \"units\": \"metres, Y up, facing +Z\",\n  \"height\": %.9g,\n",
            (double)t->height);
    fprintf(f, "  \"tail_length\": %.9g,\n  \"tail_piece\": %d,\n  \"pieces\": [\n",
            (double)t->tail_length, (int)t->tail_piece);
    for (uint32_t p = 0; p < t->piece_count; p++) {
        const sinew_creature_piece *pc = &t->pieces[p];
        fprintf(f, "    {\"index\": %u, \"name\": ", p);
        json_string(f, pc->name);
        fprintf(f, ", \"part\": \"%s\", \"verdict\": \"%s\", \"attach_joint\": ",
                sinew_creature_part_name(pc->part), sinew_creature_verdict_name(pc->verdict));
        json_string(f, pc->attach_joint);
        fprintf(f,
                ", \"vertex_count\": %u, \"shell_count\": %u, \"length\": %.9g, \"radius\": "
                "%.9g}%s\n",
                pc->vertex_count, pc->shell_count, (double)pc->length, (double)pc->radius,
                p + 1 < t->piece_count ? "," : "");
    }
    fprintf(f, "  ],\n  \"vertex_count\": %u,\n  \"vertex_piece\": [", t->vertex_count);
    for (uint32_t v = 0; v < t->vertex_count; v++)
        fprintf(f, "%s%u", v ? (v % 40 ? "," : ",\n    ") : "\n    ", t->vertex_piece[v]);
    fprintf(f, "\n  ]\n}\n");
    int ok = !ferror(f);
    ok &= fclose(f) == 0;
    if (!ok) unlink(tmp);
    return ok;
}

int cmd_creature(int argc, char **argv)
{
    const char *kind_name = NULL, *out = NULL, *truth_path = NULL;
    sinew_creature_options opt = {0};
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (cli_is_help(a)) {
            usage(stdout);
            return CLI_EXIT_OK;
        } else if (!strcmp(a, "--list")) {
            list_kinds();
            return CLI_EXIT_OK;
        } else if (!strcmp(a, "-o") || !strcmp(a, "--output")) {
            if (!(out = cli_option_value("creature", argc, argv, &i))) return CLI_EXIT_USAGE;
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
    if (!kind_name) {
        usage(stderr);
        return CLI_EXIT_USAGE;
    }
    sinew_creature_kind kind = sinew_creature_kind_from_name(kind_name);
    if (kind == SINEW_CREATURE_INVALID) {
        fprintf(stderr, "sinew creature: unknown kind '%s'; the kinds are:\n", kind_name);
        for (int k = SINEW_CREATURE_INVALID + 1; k < SINEW_CREATURE_KIND_COUNT; k++)
            fprintf(stderr, "  %s\n", sinew_creature_kind_name((sinew_creature_kind)k));
        return CLI_EXIT_USAGE;
    }
    if (!out) return cli_usage_error("creature", "missing -o OUT.glb");
    if (truth_path && !strcmp(truth_path, out))
        return cli_usage_error("creature", "--truth and -o name the same file");

    sinew_error err = {0};
    sinew_model *model = NULL;
    sinew_creature_truth truth;
    if (sinew_creature_build(kind, &opt, &model, &truth, &err)) return cli_report("creature", &err);

    /* Truth first into a temporary file, then the model (written atomically), then the truth
     * renamed into place: a failure leaves neither output half-written. */
    char tmp[4096];
    if (truth_path && !write_truth(&truth, truth_path, tmp, sizeof tmp)) {
        sinew_model_free(model);
        sinew_creature_truth_free(&truth);
        sinew_error_set(&err, SINEW_ERR_INTERNAL, "%s: cannot write the truth", truth_path);
        return cli_report("creature", &err);
    }
    sinew_document *doc = NULL;
    sinew_result r = sinew_document_from_model(model, &doc, &err);
    if (r == SINEW_OK) r = sinew_document_write_file(doc, out, &err);
    if (r == SINEW_OK && truth_path && rename(tmp, truth_path) != 0) {
        remove(out);
        r = sinew_error_set(&err, SINEW_ERR_INTERNAL, "%s: cannot write the truth", truth_path);
    }
    if (r != SINEW_OK) {
        if (truth_path) unlink(tmp);
        if (r == SINEW_ERR_IO) err.code = SINEW_ERR_INTERNAL;
    } else {
        printf("%s: %u vertices, %u triangles, %u joints, %u clips (",
               sinew_creature_kind_name(kind), model->mesh.vertex_count, model->mesh.triangle_count,
               model->skin.joint_count, model->clip_count);
        for (uint32_t c = 0; c < model->clip_count; c++)
            printf("%s%s", c ? ", " : "", model->clips[c].name);
        printf("), height %.3f m", (double)model->size.height);
        if (truth.tail_piece >= 0) printf(", tail %.3f m", (double)truth.tail_length);
        printf(" -> %s%s%s\n", out, truth_path ? ", truth -> " : "", truth_path ? truth_path : "");
    }
    sinew_document_free(doc);
    sinew_model_free(model);
    sinew_creature_truth_free(&truth);
    return r == SINEW_OK ? CLI_EXIT_OK : cli_report("creature", &err);
}
