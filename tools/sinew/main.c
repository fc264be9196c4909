/* sinew: make auto-rigged characters move well. Command dispatch and top-level help. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "commands.h"
#include "safe_text.h"

/* In the order a user meets them: the main job, the pipeline's steps, then tools. */
static const cli_command commands[] = {
    {"demo", "the main job on a built-in fox: find its tail, chain it, bake it, show it", cmd_demo},
    {"tail", "find a tail the rigger missed and give it a bone chain", cmd_tail},
    {"batch", "the tail job over a folder or manifest of files, in parallel, resumable", cmd_batch},
    {"bake", "simulate the Tail_* chain over every clip and write keys", cmd_bake},
    {"stretch", "edge stretch of tail and body skin over clips", cmd_stretch},
    {"solve", "re-solve a clip onto another rig by fitting the skinned surface", cmd_solve},
    {"render", "draw a skinned pose (or several side by side) to a PNG", cmd_render},
    {"inspect", "meshes, skeleton, clips, size and warnings of a .glb/.gltf", cmd_inspect},
    {"convert", "load, validate and rewrite a .glb/.gltf (the io round trip)", cmd_convert},
    {"creature", "write a procedural test character and its ground truth", cmd_creature},
    {"version", "print the version", cmd_version},
};
static const size_t command_count = sizeof commands / sizeof commands[0];

static void print_help(FILE *out)
{
    fprintf(out,
            "sinew %s: make auto-rigged 3D characters move well\n\n"
            "usage: sinew COMMAND [options]   (sinew COMMAND --help for details)\n\n"
            "commands:\n",
            SINEW_VERSION_STRING);
    for (size_t i = 0; i < command_count; i++)
        fprintf(out, "  %-10s %s\n", commands[i].name, commands[i].summary);
    fprintf(out, "\nexit codes: 0 ok, 1 bad input file, 2 bad usage, 3 internal error\n"
                 "\nIn tables and messages, control bytes, C1 controls and invalid UTF-8 from a\n"
                 "file or an argument are shown as \\xHH; --json output is always valid UTF-8.\n");
}

int cmd_version(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    printf("sinew %s\n", SINEW_VERSION_STRING);
    return CLI_EXIT_OK;
}

int main(int argc, char **argv)
{
    cli_json_init(malloc);
    if (argc < 2) {
        print_help(stderr);
        return CLI_EXIT_USAGE;
    }
    if (cli_is_help(argv[1])) {
        print_help(stdout);
        return CLI_EXIT_OK;
    }
    if (!strcmp(argv[1], "--version")) return cmd_version(0, NULL);
    /* --name=value is --name value, as gltfpack and gltf-transform accept it */
    char **args = malloc(((size_t)argc * 2 + 1) * sizeof *args);
    if (!args) {
        fprintf(stderr, "sinew: out of memory\n");
        return CLI_EXIT_INTERNAL;
    }
    int n = 0;
    for (int i = 1; i < argc; i++) {
        char *eq = strncmp(argv[i], "--", 2) ? NULL : strchr(argv[i], '=');
        if (eq && eq > argv[i] + 2) {
            *eq = '\0';
            args[n++] = argv[i];
            args[n++] = eq + 1;
        } else {
            args[n++] = argv[i];
        }
    }
    args[n] = NULL;
    for (size_t i = 0; i < command_count; i++)
        if (!strcmp(args[0], commands[i].name)) {
            const int code = commands[i].run(n, args);
            free(args);
            return code;
        }
    free(args);
    fprintf(stderr, "sinew: unknown command '%s' (see 'sinew --help')\n", safe_text(argv[1]).s);
    return CLI_EXIT_USAGE;
}
