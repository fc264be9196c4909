/* sinew batch: the tail job (sinew/pipeline.h, as `sinew tail` runs it) over a folder or a
 * manifest of models, each file in a worker process of its own so that a crash or an
 * out-of-memory kill on one file cannot take the others down; one JSON line per file;
 * resumable (each output records its input's hash) and split into shards for job arrays.
 * How to use it: docs/batch.md. */
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "bake_cli.h"
#include "cli.h"
#include "commands.h"
#include "outputs.h"
#include "safe_text.h"
#include "sinew/document.h"
#include "sinew/file.h"
#include "sinew/pipeline.h"
#include "tail_cli.h"

#define MAX_JOBS 1024

/* The notes each output carries in asset.extras.sinew: what it was made from, for reruns. */
#define NOTE_INPUT "batch_input"     /* "fnv1a64:" and 16 hex digits of the input's bytes */
#define NOTE_OPTIONS "batch_options" /* the tail options as given, space-separated */

static const char *usage =
    "usage: sinew batch DIR|MANIFEST -o OUTDIR [--jobs N] [--shard I/N] [--force]\n"
    "                   [options of sinew tail] [spring options]\n"
    "\n"
    "Runs the job of 'sinew tail' on many files: the *.glb and *.gltf files of DIR (not its\n"
    "subfolders, sorted by name, bytewise), or the files a MANIFEST lists (a text file, one\n"
    "path a line, relative to the manifest's folder; blank lines and lines starting with #\n"
    "ignored; kept in its order). Each file is done in a worker process of its own.\n"
    "\n"
    "  -o OUTDIR          outputs go to OUTDIR/<input name without extension>.glb, each\n"
    "                     written whole or not at all, never over an input; OUTDIR is\n"
    "                     created when missing and must not be DIR\n"
    "  --jobs N           N files at a time (default: the number of online CPUs)\n"
    "  --shard I/N        only the files of shard I of N (1 <= I <= N): the files whose\n"
    "                     index in the sorted folder or the manifest (0, 1, ...) modulo N is\n"
    "                     I-1, so N machines given 1/N .. N/N do every file exactly once\n"
    "  --force            redo every file, even those whose output is up to date\n"
    "\n"
    "Resumable: each output records, in asset.extras.sinew, the FNV-1a 64 hash of its input\n"
    "file's bytes (batch_input) and the tail options given (batch_options). A file whose\n"
    "output records the current input's hash and the same options is skipped.\n"
    "\n"
    "Standard output: one JSON line per file of the shard, in input order (a line is printed\n"
    "once every earlier file is done), with: input, output, status (\"ok\", \"failed\",\n"
    "\"skipped\"); when ok, what was found: chains, changed_vertices (vertices re-weighted),\n"
    "rigged_tail (the skeleton's own tail joint, or \"\"), dropped_chains and\n"
    "returned_vertices (the do-no-harm check's), tails (the tail pieces: piece, verdict,\n"
    "reason, vertices, bones); then seconds (wall time of the file) and message (why it\n"
    "failed or was skipped; \"\" when ok). A worker killed by a signal fails with the signal's\n"
    "name. Standard error: each failure, a progress bar when it is a terminal, and a summary.\n"
    "On SIGINT, SIGTERM or SIGHUP it starts no more files and passes the signal on to its\n"
    "workers; a rerun does what is left. Slurm and Kubernetes examples: docs/batch.md.\n"
    "\n"
    "exit codes: 0 every file ok or skipped, 1 any failed (the others still written), 2 bad\n"
    "usage (nothing done), 3 OUTDIR not made or an internal error\n"
    "\n"
    "Options of sinew tail (as 'sinew tail --help' describes them):\n";

/* ---- the input list ---- */

typedef struct batch_item {
    char *input;  /* the path the worker loads */
    char *output; /* OUTDIR/<base>.glb */
    size_t clash; /* an earlier item with the same output, or SIZE_MAX */
    char *line;   /* its JSON line once done (malloc'ed) */
    int failed;   /* 1 when its status is "failed" */
} batch_item;

typedef struct batch_list {
    batch_item *items;
    size_t count, cap;
} batch_list;

static void list_free(batch_list *l)
{
    for (size_t i = 0; i < l->count; i++) {
        free(l->items[i].input);
        free(l->items[i].output);
        free(l->items[i].line);
    }
    free(l->items);
    memset(l, 0, sizeof *l);
}

/* Appends dir/name (just name when dir is NULL or name is absolute). 0 when out of memory. */
static int list_add(batch_list *l, const char *dir, const char *name)
{
    if (l->count == l->cap) {
        size_t cap = l->cap ? 2 * l->cap : 64;
        batch_item *items = realloc(l->items, cap * sizeof *items);
        if (!items) return 0;
        l->items = items;
        l->cap = cap;
    }
    int joined = dir && name[0] != '/';
    size_t dlen = joined ? strlen(dir) : 0, size = dlen + strlen(name) + 2;
    char *path = malloc(size);
    if (!path) return 0;
    if (joined)
        snprintf(path, size, "%s%s%s", dir, dlen && dir[dlen - 1] == '/' ? "" : "/", name);
    else
        snprintf(path, size, "%s", name);
    batch_item *it = &l->items[l->count++];
    memset(it, 0, sizeof *it);
    it->input = path;
    it->clash = SIZE_MAX;
    return 1;
}

/* The length of `name` without its .glb / .gltf extension (any case), or 0 when it has
 * neither. */
static size_t model_stem(const char *name)
{
    size_t n = strlen(name);
    if (n > 4 && !strcasecmp(name + n - 4, ".glb")) return n - 4;
    if (n > 5 && !strcasecmp(name + n - 5, ".gltf")) return n - 5;
    return 0;
}

static int compare_inputs(const void *a, const void *b)
{
    return strcmp(((const batch_item *)a)->input, ((const batch_item *)b)->input);
}

/* The folder's regular (or linked-to regular) *.glb / *.gltf files, sorted; hidden files
 * (a writer's temporary files among them) are left out. 0 after printing why not. */
static int list_folder(const char *dir, batch_list *l)
{
    DIR *d = opendir(dir);
    if (!d) {
        cli_error("batch", "io error: %s: %s", dir, strerror(errno));
        return 0;
    }
    int ok = 1;
    struct dirent *e;
    while (ok && (e = readdir(d))) {
        if (e->d_name[0] == '.' || !model_stem(e->d_name)) continue;
        if (!(ok = list_add(l, dir, e->d_name))) break;
        struct stat st;
        if (stat(l->items[l->count - 1].input, &st) || !S_ISREG(st.st_mode)) {
            free(l->items[--l->count].input);
        }
    }
    closedir(d);
    if (!ok) cli_error("batch", "out of memory listing %s", dir);
    if (l->count) qsort(l->items, l->count, sizeof *l->items, compare_inputs);
    return ok;
}

/* The manifest's whole text, NUL-terminated (malloc'ed), or NULL after printing why not. */
static char *read_text(const char *path)
{
    FILE *f = fopen(path, "rb");
    char *text = NULL;
    size_t size = 0, got;
    char chunk[65536];
    int ok = f != NULL;
    while (ok && (got = fread(chunk, 1, sizeof chunk, f)) > 0) {
        char *grown = realloc(text, size + got + 1);
        if (!(ok = grown != NULL)) break;
        memcpy(grown + size, chunk, got);
        text = grown;
        size += got;
    }
    if (ok && f && ferror(f)) ok = 0;
    if (f) fclose(f);
    if (!ok) {
        cli_error("batch", "io error: %s: %s", path, errno ? strerror(errno) : "read failed");
        free(text);
        return NULL;
    }
    if (!text && !(text = calloc(1, 1))) cli_error("batch", "out of memory reading %s", path);
    if (text) text[size] = 0;
    return text;
}

/* The manifest's paths in its order, relative ones joined to the manifest's folder. */
static int list_manifest(const char *manifest, batch_list *l)
{
    char *text = read_text(manifest);
    if (!text) return 0;
    char *dir = strdup(manifest);
    char *slash = dir ? strrchr(dir, '/') : NULL;
    if (slash) slash[slash == dir] = 0; /* "/m.txt" -> "/", "a/m.txt" -> "a" */
    int ok = dir != NULL;
    for (char *line = text, *next; ok && line; line = next) {
        next = strchr(line, '\n');
        if (next) *next++ = 0;
        while (*line == ' ' || *line == '\t')
            line++;
        size_t n = strlen(line);
        while (n && (line[n - 1] == ' ' || line[n - 1] == '\t' || line[n - 1] == '\r'))
            line[--n] = 0;
        if (!n || line[0] == '#') continue;
        ok = list_add(l, slash ? dir : NULL, line);
    }
    if (!ok) cli_error("batch", "out of memory reading %s", manifest);
    free(dir);
    free(text);
    return ok;
}

static int compare_outputs(const void *a, const void *b)
{
    const batch_item *const *x = a, *const *y = b;
    int c = strcmp((*x)->output, (*y)->output);
    return c ? c : (*x < *y ? -1 : *x > *y);
}

/* Names each item's output and marks the items whose output an earlier item already has
 * (Fox.glb and Fox.gltf): over the whole list, so every shard agrees. 0 when out of memory. */
static int name_outputs(batch_list *l, const char *outdir)
{
    for (size_t i = 0; i < l->count; i++) {
        const char *path = l->items[i].input, *slash = strrchr(path, '/');
        const char *name = slash ? slash + 1 : path;
        size_t stem = model_stem(name);
        int len = (int)(stem ? stem : strlen(name));
        size_t size = strlen(outdir) + (size_t)len + 6;
        if (!(l->items[i].output = malloc(size))) return 0;
        snprintf(l->items[i].output, size, "%s/%.*s.glb", outdir, len, name);
    }
    batch_item **by_name = malloc((l->count + 1) * sizeof *by_name);
    if (!by_name) return 0;
    for (size_t i = 0; i < l->count; i++)
        by_name[i] = &l->items[i];
    qsort(by_name, l->count, sizeof *by_name, compare_outputs);
    for (size_t i = 1; i < l->count; i++)
        if (!strcmp(by_name[i]->output, by_name[i - 1]->output))
            by_name[i]->clash = by_name[i - 1]->clash != SIZE_MAX
                                    ? by_name[i - 1]->clash
                                    : (size_t)(by_name[i - 1] - l->items);
    free(by_name);
    return 1;
}

/* mkdir -p: the parents first ("a", "a/b"), then the folder itself. A parent that cannot be
 * made is not an error in itself: the folder's own mkdir then says why. 0 after printing why
 * not. */
static int make_folders(const char *path)
{
    char *p = strdup(path);
    if (!p) {
        cli_error("batch", "out of memory");
        return 0;
    }
    for (char *s = strchr(p + 1, '/'); s; s = strchr(s + 1, '/')) {
        *s = 0;
        mkdir(p, 0777);
        *s = '/';
    }
    free(p);
    struct stat st;
    if (mkdir(path, 0777) && errno != EEXIST) {
        cli_error("batch", "io error: cannot make the folder %s: %s", path, strerror(errno));
        return 0;
    }
    if (stat(path, &st) || !S_ISDIR(st.st_mode)) {
        cli_error("batch", "io error: %s is not a folder", path);
        return 0;
    }
    return 1;
}

/* ---- one file, in its worker ---- */

/* What every worker is given. */
typedef struct batch_setup {
    tail_cli_options options;
    char *options_text; /* the tail options as given (NOTE_OPTIONS) */
    int force;
} batch_setup;

/* FNV-1a, 64 bits (Fowler, Noll, Vo: http://www.isthe.com/chongo/tech/comp/fnv/): a fast
 * fingerprint of the input's bytes, to tell whether an output is up to date (not a
 * cryptographic hash: it guards against changed files, not against forged ones). */
static uint64_t fnv1a64(const unsigned char *data, size_t size)
{
    uint64_t h = 0xcbf29ce484222325u;
    for (size_t i = 0; i < size; i++)
        h = (h ^ data[i]) * 0x100000001b3u;
    return h;
}

/* A whole regular file, malloc'ed; NULL when unreadable, with *why saying why. */
static unsigned char *read_bytes(const char *path, size_t *size, const char **why)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        *why = strerror(errno);
        return NULL;
    }
    struct stat st;
    unsigned char *data = NULL;
    *why = NULL;
    if (fstat(fileno(f), &st) || !S_ISREG(st.st_mode))
        *why = "not a regular file";
    else if (!(data = malloc((size_t)st.st_size + 1)))
        *why = "out of memory";
    else if (fread(data, 1, (size_t)st.st_size, f) != (size_t)st.st_size)
        *why = "read failed";
    fclose(f);
    if (*why) {
        free(data);
        return NULL;
    }
    *size = (size_t)st.st_size;
    return data;
}

/* Whether the output at `path` records `hash` and `options` in its notes. 0 when it does not,
 * or is missing or unreadable (then it is simply redone). */
static int output_is_current(const char *path, const char *hash, const char *options)
{
    sinew_document *doc = NULL;
    if (sinew_document_load_file(path, NULL, &doc, NULL) != SINEW_OK) return 0;
    const char *h = sinew_document_note(doc, NOTE_INPUT),
               *o = sinew_document_note(doc, NOTE_OPTIONS);
    const int current = h && o && !strcmp(h, hash) && !strcmp(o, options);
    sinew_document_free(doc);
    return current;
}

/* The folder of `path` for its external buffers, as sinew_document_load_file takes it. */
static void folder_of(const char *path, char *dir, size_t size)
{
    const char *slash = strrchr(path, '/');
    if (!slash)
        snprintf(dir, size, ".");
    else
        snprintf(dir, size, "%.*s", slash == path ? 1 : (int)(slash - path), path);
}

/* The tail pieces of the run (grown, or found and left alone), as the report names them; a
 * garment's bones are those of all its chains. */
static cJSON *tails_json(const sinew_tail_result *run)
{
    cJSON *list = cJSON_CreateArray();
    const sinew_rig_report *rep = &run->report;
    for (uint32_t p = 0; list && p < rep->piece_count; p++) {
        const sinew_rig_piece *pc = &rep->pieces[p];
        uint32_t bones = 0;
        int chained = 0;
        for (uint32_t c = 0; c < run->plan.chain_count; c++)
            if (run->plan.chains[c].piece == p)
                chained = 1, bones += run->plan.chains[c].bone_count;
        if (!chained && pc->verdict != SINEW_RIG_VERDICT_CHAIN &&
            pc->verdict != SINEW_RIG_VERDICT_RIGID && pc->verdict != SINEW_RIG_VERDICT_SKIPPED)
            continue;
        cJSON *o = cJSON_CreateObject();
        cJSON_AddNumberToObject(o, "piece", p);
        cJSON_AddStringToObject(o, "verdict", sinew_rig_verdict_name(pc->verdict));
        cJSON_AddStringToObject(o, "reason", pc->reason);
        cJSON_AddNumberToObject(o, "vertices", pc->vertex_count);
        cJSON_AddNumberToObject(o, "bones", bones);
        cJSON_AddItemToArray(list, o);
    }
    return list;
}

/* What was found, into the worker's result. */
static void add_findings(cJSON *res, const sinew_tail_result *run)
{
    const sinew_rig_report *rep = &run->report;
    const sinew_model *m = run->input;
    const char *rigged = "";
    if (m && rep->rigged_tail >= 0 && (uint32_t)rep->rigged_tail < m->skin.joint_count) {
        const char *n = m->nodes[m->skin.joints[rep->rigged_tail].node].name;
        rigged = n ? n : "";
    }
    cJSON_AddNumberToObject(res, "chains", run->plan.chain_count);
    cJSON_AddNumberToObject(res, "changed_vertices", run->plan.changed_count);
    cJSON_AddStringToObject(res, "rigged_tail", rigged);
    cJSON_AddNumberToObject(res, "dropped_chains", run->dropped);
    cJSON_AddNumberToObject(res, "returned_vertices", run->returned);
    cJSON_AddItemToObject(res, "tails", tails_json(run));
}

/* The job on one file: its status ("ok", "skipped", "failed") and, when ok, the findings into
 * `res`. Why it failed or was skipped is printed as `sinew tail` prints its errors, and the
 * worker collects it from standard error: one path for every message, the library's, the
 * output checks' and its own. */
static const char *do_file(const batch_setup *setup, const batch_item *it, cJSON *res)
{
    size_t size = 0;
    const char *why = NULL;
    unsigned char *data = read_bytes(it->input, &size, &why);
    if (!data) {
        cli_error("batch", "io error: %s: %s", it->input, why);
        return "failed";
    }
    char hash[32];
    snprintf(hash, sizeof hash, "fnv1a64:%016" PRIx64, fnv1a64(data, size));
    if (!setup->force && output_is_current(it->output, hash, setup->options_text)) {
        free(data);
        cli_error("batch", "%s is up to date: it records this input's hash and options",
                  it->output);
        return "skipped";
    }
    char dir[SINEW_FILE_PATH_MAX];
    folder_of(it->input, dir, sizeof dir);
    sinew_load_options load = {NULL, dir, it->input};
    sinew_error err;
    memset(&err, 0, sizeof err);
    sinew_document *doc = NULL;
    sinew_tail_result run;
    memset(&run, 0, sizeof run);
    const char *status = "failed";
    cli_output outs[1] = {{.option = "output", .path = it->output, .format = CLI_FORMAT_GLTF}};
    sinew_result loaded = sinew_document_load_memory(data, size, &load, &doc, &err);
    free(data); /* the document has its own copy: one model in memory, not two */
    data = NULL;
    if (loaded != SINEW_OK) {
        cli_report_file("batch", it->input, &err);
        goto done;
    }
    const sinew_document *inputs[1] = {doc};
    const char *input_paths[1] = {it->input};
    if (cli_outputs_check("batch", outs, 1, inputs, 1, input_paths, 1) != CLI_EXIT_OK) goto done;
    if (sinew_tail_run(doc, &setup->options.job, &run, &err) != SINEW_OK ||
        sinew_document_set_note(doc, NOTE_INPUT, hash, &err) != SINEW_OK ||
        sinew_document_set_note(doc, NOTE_OPTIONS, setup->options_text, &err) != SINEW_OK ||
        sinew_document_serialize_with(doc, it->output, &setup->options.write, &outs[0].bytes,
                                      &err) != SINEW_OK) {
        cli_report_file("batch", it->input, &err);
        goto done;
    }
    if (cli_outputs_write("batch", outs, 1) != CLI_EXIT_OK) goto done;
    add_findings(res, &run);
    status = "ok";
done:
    cli_outputs_free(outs, 1);
    sinew_tail_result_free(&run);
    sinew_document_free(doc);
    free(data);
    return status;
}

/* The messages a worker printed, as one line: "sinew batch: " prefixes and usage hints
 * dropped, lines joined with "; ". They passed through safe_text already. */
static char *collected_message(FILE *log)
{
    long n = ftell(log);
    char *text = n > 0 ? malloc((size_t)n + 1) : NULL;
    char *msg = calloc(1, n > 0 ? 2 * (size_t)n + 1 : 1); /* "; " for each newline */
    if (text && msg) {
        rewind(log);
        size_t got = fread(text, 1, (size_t)n, log);
        text[got] = 0;
        static const char prefix[] = "sinew batch: ";
        for (char *line = text, *next; line && *line; line = next) {
            next = strchr(line, '\n');
            if (next) *next++ = 0;
            if (!*line || !strncmp(line, "(see 'sinew", 11)) continue;
            if (!strncmp(line, prefix, sizeof prefix - 1)) line += sizeof prefix - 1;
            if (*msg) strcat(msg, "; ");
            strcat(msg, line);
        }
    }
    free(text);
    return msg;
}

static int write_all(int fd, const char *text, size_t size)
{
    while (size) {
        ssize_t w = write(fd, text, size);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) return 0;
        text += w;
        size -= (size_t)w;
    }
    return 1;
}

/* The worker process: does one file with its messages collected from standard error,
 * writes its result (a JSON object) to `fd` and exits. */
static void run_worker(const batch_setup *setup, const batch_item *it, int fd)
{
    FILE *log = tmpfile();
    int saved = dup(STDERR_FILENO);
    if (log && saved >= 0) dup2(fileno(log), STDERR_FILENO);
    cJSON *res = cJSON_CreateObject();
    const char *status = do_file(setup, it, res);
    cJSON_AddStringToObject(res, "status", status);
    fflush(stderr);
    char *msg = log && saved >= 0 ? collected_message(log) : NULL;
    if (saved >= 0) dup2(saved, STDERR_FILENO), close(saved);
    if (log) fclose(log);
    cJSON_AddStringToObject(res, "message", !strcmp(status, "ok") || !msg ? "" : msg);
    free(msg);
    char *text = cli_json_text(res, CLI_JSON_COMPACT);
    int ok = text && write_all(fd, text, strlen(text));
    free(text);
    cJSON_Delete(res);
    close(fd);
    exit(ok ? 0 : CLI_EXIT_INTERNAL);
}

/* ---- the parent: workers, lines, progress ---- */

typedef struct worker {
    pid_t pid;
    int fd;      /* read end of the worker's result pipe */
    size_t item; /* index into the list */
    double start;
    char *buf; /* what it wrote so far */
    size_t len;
} worker;

static double now_seconds(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* The signal's name ("SIGSEGV"), or NULL for one not listed. */
static const char *signal_name(int sig)
{
    static const struct {
        int sig;
        const char *name;
    } names[] = {
        {SIGSEGV, "SIGSEGV"}, {SIGBUS, "SIGBUS"},   {SIGABRT, "SIGABRT"}, {SIGKILL, "SIGKILL"},
        {SIGFPE, "SIGFPE"},   {SIGILL, "SIGILL"},   {SIGTERM, "SIGTERM"}, {SIGINT, "SIGINT"},
        {SIGHUP, "SIGHUP"},   {SIGPIPE, "SIGPIPE"}, {SIGXCPU, "SIGXCPU"}, {SIGXFSZ, "SIGXFSZ"},
        {SIGTRAP, "SIGTRAP"}, {SIGSYS, "SIGSYS"},   {SIGQUIT, "SIGQUIT"}, {SIGALRM, "SIGALRM"}};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (names[i].sig == sig) return names[i].name;
    return NULL;
}

/* The JSON line of a file: input, output, then the worker's result (status, findings), then
 * seconds and message. `result` is the worker's object, or NULL when there is none (then the
 * file failed with `why`). Sets it->line and it->failed. 0 when out of memory. */
static int finish_line(batch_item *it, cJSON *result, const char *why, double seconds)
{
    cJSON *line = cJSON_CreateObject();
    if (!line) return 0;
    cJSON_AddStringToObject(line, "input", it->input);
    cJSON_AddStringToObject(line, "output", it->output);
    cJSON *message = NULL;
    if (result) {
        message = cJSON_DetachItemFromObjectCaseSensitive(result, "message");
        cJSON *status = cJSON_DetachItemFromObjectCaseSensitive(result, "status");
        cJSON_AddItemToObject(line, "status", status);
        while (result->child) {
            cJSON *c = result->child;
            char *key = strdup(c->string);
            cJSON_AddItemToObject(line, key, cJSON_DetachItemViaPointer(result, c));
            free(key);
        }
    } else {
        cJSON_AddStringToObject(line, "status", "failed");
        message = cJSON_CreateString(why);
    }
    cJSON_AddNumberToObject(line, "seconds", (double)(long long)(seconds * 1000 + 0.5) / 1000);
    cJSON_AddItemToObject(line, "message", message ? message : cJSON_CreateString(""));
    const char *status = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(line, "status"));
    it->failed = !status || !strcmp(status, "failed");
    it->line = cli_json_text(line, CLI_JSON_COMPACT);
    cJSON_Delete(line);
    return it->line != NULL;
}

/* The worker's result when it exited normally and wrote a whole one, else NULL with `why`
 * filled in (killed by a signal, a non-zero exit, nothing written). */
static cJSON *worker_result(const worker *w, int wstatus, char *why, size_t size)
{
    if (WIFSIGNALED(wstatus)) {
        int sig = WTERMSIG(wstatus);
        const char *name = signal_name(sig);
        char number[32];
        snprintf(number, sizeof number, "signal %d", sig);
        snprintf(why, size, "the worker was killed by %s (%s)%s", name ? name : number,
                 strsignal(sig),
                 sig == SIGKILL ? ": out of memory, or a time or memory limit, most likely" : "");
        return NULL;
    }
    if (!WIFEXITED(wstatus) || WEXITSTATUS(wstatus) != 0) {
        snprintf(why, size, "the worker exited with code %d", WEXITSTATUS(wstatus));
        return NULL;
    }
    cJSON *result = w->buf ? cJSON_ParseWithLength(w->buf, w->len) : NULL;
    if (!cJSON_IsString(cJSON_GetObjectItemCaseSensitive(result, "status"))) {
        cJSON_Delete(result);
        snprintf(why, size,
                 cli_json_failed() ? "out of memory reading the worker's result"
                                   : "the worker wrote no result");
        return NULL;
    }
    return result;
}

/* Set by SIGINT, SIGTERM and SIGHUP: stop starting files, pass the signal on to the workers
 * (a Kubernetes pod's SIGTERM reaches only its first process), wait for them, then end. */
static volatile sig_atomic_t stop_signal;

static void on_stop(int sig)
{
    stop_signal = sig;
}

static const int stop_signals[] = {SIGINT, SIGTERM, SIGHUP};
#define STOP_SIGNAL_COUNT (sizeof stop_signals / sizeof stop_signals[0])

static void set_stop_handlers(void (*handler)(int), struct sigaction *saved)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = handler;
    sigemptyset(&sa.sa_mask);
    for (size_t i = 0; i < STOP_SIGNAL_COUNT; i++)
        sigaction(stop_signals[i], &sa, saved ? &saved[i] : NULL);
}

static void restore_stop_handlers(const struct sigaction *saved)
{
    for (size_t i = 0; i < STOP_SIGNAL_COUNT; i++)
        sigaction(stop_signals[i], &saved[i], NULL);
}

typedef struct progress {
    int on; /* standard error is a terminal */
    size_t total, done, failed;
    double start;
} progress;

static void progress_clear(const progress *p)
{
    if (p->on) fputs("\r\033[K", stderr);
}

/* "[#########...........] 12/40, 1 failed, 0:42" on one line that is redrawn. */
static void progress_draw(const progress *p)
{
    if (!p->on) return;
    enum { WIDTH = 30 };
    char bar[WIDTH + 1];
    size_t filled = p->total ? p->done * WIDTH / p->total : WIDTH;
    for (size_t i = 0; i < WIDTH; i++)
        bar[i] = i < filled ? '#' : '.';
    bar[WIDTH] = 0;
    long s = (long)(now_seconds() - p->start);
    fprintf(stderr, "\r\033[K[%s] %zu/%zu, %zu failed, %ld:%02ld", bar, p->done, p->total,
            p->failed, s / 60, s % 60);
    fflush(stderr);
}

/* Everything one run keeps. */
typedef struct batch_run {
    const batch_setup *setup;
    const batch_list *list;
    batch_item **todo; /* this shard's items, in input order */
    size_t count, started, printed;
    worker *workers;
    struct pollfd *polls; /* one per worker slot; here, not on run_all's stack, so that a
                             worker (a fork of this process) can still reach it at its exit,
                             where LeakSanitizer looks */
    size_t running;
    progress bar;
} batch_run;

/* Prints the lines of every file done in input order, up to the first not done. */
static void print_ready(batch_run *b)
{
    int any = 0;
    while (b->printed < b->count && b->todo[b->printed]->line) {
        if (!any) progress_clear(&b->bar);
        any = 1;
        puts(b->todo[b->printed++]->line);
    }
    if (any) fflush(stdout);
}

/* A file is done: its failure on standard error, its line printed when its turn came. */
static int file_done(batch_run *b, batch_item *it, cJSON *result, const char *why, double secs)
{
    int ok = finish_line(it, result, why, secs);
    cJSON_Delete(result);
    if (!ok) {
        cli_error("batch", "out of memory");
        return 0;
    }
    b->bar.done++;
    if (it->failed) {
        b->bar.failed++;
        progress_clear(&b->bar);
        cJSON *line = cJSON_Parse(it->line);
        cli_error("batch", "%s: failed: %s", it->input,
                  cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(line, "message")));
        cJSON_Delete(line);
    }
    print_ready(b);
    progress_draw(&b->bar);
    return 1;
}

/* Starts the next file in a worker, or finishes it at once when it cannot run. */
static int start_next(batch_run *b)
{
    batch_item *it = b->todo[b->started++];
    char why[512];
    if (it->clash != SIZE_MAX) {
        snprintf(why, sizeof why, "%s is also the output of %s, listed before it", it->output,
                 b->list->items[it->clash].input);
        return file_done(b, it, NULL, why, 0);
    }
    int fds[2];
    fflush(stdout);
    fflush(stderr);
    pid_t pid = -1;
    if (pipe(fds)) {
        snprintf(why, sizeof why, "could not start a worker: %s", strerror(errno));
        return file_done(b, it, NULL, why, 0);
    }
    if ((pid = fork()) == 0) {
        close(fds[0]);
        for (size_t i = 0; i < b->running; i++)
            close(b->workers[i].fd);
        set_stop_handlers(SIG_DFL, NULL);
        run_worker(b->setup, it, fds[1]);
    }
    if (pid < 0) {
        snprintf(why, sizeof why, "could not start a worker: %s", strerror(errno));
        close(fds[0]);
        close(fds[1]);
        return file_done(b, it, NULL, why, 0);
    }
    close(fds[1]);
    worker *w = &b->workers[b->running++];
    memset(w, 0, sizeof *w);
    w->pid = pid;
    w->fd = fds[0];
    w->item = (size_t)(b->started - 1);
    w->start = now_seconds();
    return 1;
}

/* Reads what worker `k` wrote; at its end, reaps it and finishes its file. */
static int read_worker(batch_run *b, size_t k)
{
    worker *w = &b->workers[k];
    char chunk[4096];
    ssize_t got = read(w->fd, chunk, sizeof chunk);
    if (got < 0 && errno == EINTR) return 1;
    if (got > 0) {
        char *grown = realloc(w->buf, w->len + (size_t)got + 1);
        if (!grown) return cli_error("batch", "out of memory"), 0;
        memcpy(grown + w->len, chunk, (size_t)got);
        w->buf = grown;
        w->len += (size_t)got;
        return 1;
    }
    close(w->fd);
    int wstatus = 0;
    while (waitpid(w->pid, &wstatus, 0) < 0 && errno == EINTR) {
    }
    char why[512];
    cJSON *result = worker_result(w, wstatus, why, sizeof why);
    worker done = *w;
    b->workers[k] = b->workers[--b->running];
    int ok = file_done(b, b->todo[done.item], result, why, now_seconds() - done.start);
    free(done.buf);
    return ok;
}

/* Runs every file of the shard, `jobs` at a time. 0 on an internal failure. */
static int run_all(batch_run *b, size_t jobs)
{
    struct pollfd *fds = b->polls = calloc(jobs, sizeof *fds);
    b->workers = calloc(jobs, sizeof *b->workers);
    int ok = fds && b->workers;
    int forwarded = 0;
    while (ok && (b->running || (b->started < b->count && !stop_signal))) {
        while (ok && !stop_signal && b->running < jobs && b->started < b->count)
            ok = start_next(b);
        if (stop_signal && !forwarded) {
            for (size_t k = 0; k < b->running; k++)
                kill(b->workers[k].pid, stop_signal);
            forwarded = 1;
        }
        if (!ok || !b->running) continue;
        for (size_t k = 0; k < b->running; k++)
            fds[k] = (struct pollfd){b->workers[k].fd, POLLIN, 0};
        int n = poll(fds, (nfds_t)b->running, b->bar.on ? 500 : -1);
        if (n < 0 && errno != EINTR) ok = 0;
        /* From the last, so that a finished worker's slot, refilled from the end, is one
         * already looked at. */
        for (size_t k = b->running; ok && n > 0 && k-- > 0;)
            if (fds[k].revents) ok = read_worker(b, k);
        progress_draw(&b->bar);
    }
    free(fds);
    b->polls = NULL;
    return ok;
}

/* ---- the command ---- */

/* "I/N" with 1 <= I <= N. */
static int parse_shard(const char *v, unsigned long *index, unsigned long *count)
{
    const char *slash = v ? strchr(v, '/') : NULL;
    if (!slash || slash == v || (size_t)(slash - v) >= 32) return 0;
    char first[32];
    snprintf(first, sizeof first, "%.*s", (int)(slash - v), v);
    return cli_parse_uint(first, 1, 1000000, index) &&
           cli_parse_uint(slash + 1, 1, 1000000, count) && *index <= *count;
}

/* Appends a token to the recorded options text ("" at first). 0 when out of memory. */
static int record_option(char **text, const char *token)
{
    size_t n = strlen(*text), size = n + strlen(token) + 2;
    char *grown = realloc(*text, size);
    if (!grown) return 0;
    snprintf(grown + n, size - n, "%s%s", n ? " " : "", token);
    *text = grown;
    return 1;
}

static size_t online_cpus(void)
{
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n < 1 ? 1 : n > MAX_JOBS ? MAX_JOBS : (size_t)n;
}

typedef struct batch_args {
    const char *source, *outdir;
    unsigned long jobs, shard, shards;
} batch_args;

/* Parses the command line into `a` and `setup`. CLI_EXIT_OK to go on, -1 after printing the
 * help, or the exit code of a usage error (printed). */
static int parse_args(int argc, char **argv, batch_args *a, batch_setup *setup)
{
    for (int i = 1; i < argc; i++) {
        int first = i;
        int took = tail_cli_parse_option("batch", argc, argv, &i, &setup->options);
        if (took < 0) return CLI_EXIT_USAGE;
        for (int t = first; took && t <= i; t++)
            if (!record_option(&setup->options_text, argv[t]))
                return cli_error("batch", "out of memory"), CLI_EXIT_INTERNAL;
        if (took) continue;
        const char *o = argv[i], *v;
        if (cli_is_help(o)) {
            printf("%s%s\n%s", usage, tail_cli_options_help, bake_cli_options_help);
            return -1;
        } else if (!strcmp(o, "-o") || !strcmp(o, "--output")) {
            if (!(a->outdir = cli_option_value("batch", argc, argv, &i))) return CLI_EXIT_USAGE;
        } else if (!strcmp(o, "--jobs")) {
            if (!(v = cli_option_value("batch", argc, argv, &i))) return CLI_EXIT_USAGE;
            if (!cli_parse_uint(v, 1, MAX_JOBS, &a->jobs))
                return cli_usage_error("batch", "--jobs wants 1 to %d, not '%s'", MAX_JOBS, v);
        } else if (!strcmp(o, "--shard")) {
            if (!(v = cli_option_value("batch", argc, argv, &i))) return CLI_EXIT_USAGE;
            if (!parse_shard(v, &a->shard, &a->shards))
                return cli_usage_error("batch",
                                       "--shard wants I/N with 1 <= I <= N (1/4 .. 4/4), "
                                       "not '%s'",
                                       v);
        } else if (!strcmp(o, "--force")) {
            setup->force = 1;
        } else if (o[0] == '-' && o[1]) {
            return cli_usage_error("batch", "unknown option '%s' (see sinew batch --help)", o);
        } else if (!a->source) {
            a->source = o;
        } else {
            return cli_usage_error("batch", "more than one folder or manifest ('%s' and '%s')",
                                   a->source, o);
        }
    }
    if (!a->source) return cli_usage_error("batch", "missing DIR or MANIFEST");
    if (!a->outdir) return cli_usage_error("batch", "missing -o OUTDIR");
    if (tail_cli_options_finish("batch", &setup->options)) return CLI_EXIT_USAGE;
    return CLI_EXIT_OK;
}

/* The whole input list with its outputs named, OUTDIR made. CLI_EXIT_OK or the exit code. */
static int prepare(const batch_args *a, batch_list *list)
{
    struct stat st;
    if (stat(a->source, &st)) {
        cli_error("batch", "io error: %s: %s", a->source, strerror(errno));
        return CLI_EXIT_BAD_INPUT;
    }
    int folder = S_ISDIR(st.st_mode);
    if (!(folder ? list_folder(a->source, list) : list_manifest(a->source, list)))
        return CLI_EXIT_BAD_INPUT;
    if (folder && sinew_file_same(a->outdir, a->source))
        return cli_usage_error("batch",
                               "-o %s is the input folder: a rerun would take the outputs "
                               "for inputs",
                               a->outdir);
    if (!make_folders(a->outdir)) return CLI_EXIT_INTERNAL;
    if (!name_outputs(list, a->outdir)) {
        cli_error("batch", "out of memory");
        return CLI_EXIT_INTERNAL;
    }
    return CLI_EXIT_OK;
}

/* Every file of the shard, then the summary. The exit code. */
static int run_batch(const batch_args *a, const batch_setup *setup)
{
    batch_list list = {NULL, 0, 0};
    batch_run b;
    memset(&b, 0, sizeof b);
    int code = prepare(a, &list);
    if (code != CLI_EXIT_OK) goto done;
    b.setup = setup;
    b.list = &list;
    if (!(b.todo = malloc((list.count + 1) * sizeof *b.todo))) {
        cli_error("batch", "out of memory");
        code = CLI_EXIT_INTERNAL;
        goto done;
    }
    for (size_t i = 0; i < list.count; i++)
        if (i % a->shards == a->shard - 1) b.todo[b.count++] = &list.items[i];
    b.bar = (progress){isatty(STDERR_FILENO), b.count, 0, 0, now_seconds()};
    struct sigaction saved[STOP_SIGNAL_COUNT];
    set_stop_handlers(on_stop, saved);
    int ok = run_all(&b, a->jobs ? a->jobs : online_cpus());
    restore_stop_handlers(saved);
    print_ready(&b);
    progress_clear(&b.bar);
    fprintf(stderr,
            "sinew batch: %zu of %zu files done (shard %lu/%lu of %zu), %zu failed, in %.1f s\n",
            b.bar.done, b.count, a->shard, a->shards, list.count, b.bar.failed,
            now_seconds() - b.bar.start);
    code = !ok ? CLI_EXIT_INTERNAL : b.bar.failed ? CLI_EXIT_BAD_INPUT : CLI_EXIT_OK;
done:
    free(b.workers);
    free(b.todo);
    list_free(&list);
    return code;
}

int cmd_batch(int argc, char **argv)
{
    batch_args a = {NULL, NULL, 0, 1, 1};
    batch_setup setup;
    memset(&setup, 0, sizeof setup);
    tail_cli_options_init(&setup.options);
    if (!(setup.options_text = calloc(1, 1))) {
        cli_error("batch", "out of memory");
        return CLI_EXIT_INTERNAL;
    }
    int code = parse_args(argc, argv, &a, &setup);
    if (code < 0)
        code = CLI_EXIT_OK; /* --help */
    else if (code == CLI_EXIT_OK)
        code = run_batch(&a, &setup);
    free(setup.options_text);
    if (stop_signal) { /* end as the signal would have ended us, now the workers are gone */
        signal(stop_signal, SIG_DFL);
        raise(stop_signal);
    }
    return code;
}
