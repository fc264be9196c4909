/* sinew inspect: what sinew sees in a glTF file: meshes, vertices,
 * triangles, skins, the joint tree, clips, size in file units, and warnings a user should
 * know about before running anything else on the file. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "cli.h"
#include "safe_text.h"
#include "commands.h"
#include "sinew/document.h"
#include "sinew/model.h"

#define MAX_INDENT 32 /* levels of the joint tree shown by indentation */

static const char *usage =
    "usage: sinew inspect FILE [--json]\n"
    "\n"
    "Describes a .glb or .gltf file as sinew sees it: the document's meshes, skins, nodes and\n"
    "animations; the skinned mesh of the chosen skin (the one skinning the most vertices):\n"
    "primitives, vertices, triangles; the joint tree (skin joints and their non-joint\n"
    "ancestors, parent before child); the clips (name, duration in seconds, channels); the size\n"
    "in the file's own units (height, length, diagonal) of the bind-space mesh (sinew's size)\n"
    "and of the skinned mesh in world space in the file's pose (what a viewer shows); and\n"
    "warnings: the loader's (weights that were not normalised, ignored primitives), a skinned "
    "mesh\n"
    "node whose own transform skinning ignores (as glTF requires), and unused joints (skin\n"
    "joints that no vertex is weighted to).\n"
    "\n"
    "  --json     print one JSON object instead of text\n"
    "\n"
    "exit codes: 0 ok, 1 the file is missing, unreadable or unusable, 2 bad usage\n";

/* Document-level facts that the model view does not carry, read from the document's own
 * JSON (serialised through the public API, so inspect needs no private access). */
typedef struct doc_facts {
    int meshes, skins, nodes, animations, scenes, materials;
    cJSON *root; /* the glTF JSON, owned */
} doc_facts;

static sinew_result read_doc_facts(const sinew_document *doc, doc_facts *facts, sinew_error *err)
{
    memset(facts, 0, sizeof *facts);
    sinew_bytes glb;
    sinew_result r = sinew_document_write_glb_memory(doc, &glb, err);
    if (r != SINEW_OK) return r;
    const unsigned char *b = glb.data;
    const size_t size = glb.size;
    uint32_t json_len = 0;
    if (size >= 20)
        json_len =
            (uint32_t)b[12] | (uint32_t)b[13] << 8 | (uint32_t)b[14] << 16 | (uint32_t)b[15] << 24;
    if (size < 20 || json_len > size - 20 ||
        !(facts->root = cJSON_ParseWithLength((const char *)b + 20, json_len))) {
        sinew_bytes_free(&glb);
        if (cli_json_failed())
            return sinew_error_set(err, SINEW_ERR_OUT_OF_MEMORY, "out of memory");
        return sinew_error_set(err, SINEW_ERR_INTERNAL, "the document's own GLB did not parse");
    }
    sinew_bytes_free(&glb);
    facts->meshes = cJSON_GetArraySize(cJSON_GetObjectItem(facts->root, "meshes"));
    facts->skins = cJSON_GetArraySize(cJSON_GetObjectItem(facts->root, "skins"));
    facts->nodes = cJSON_GetArraySize(cJSON_GetObjectItem(facts->root, "nodes"));
    facts->animations = cJSON_GetArraySize(cJSON_GetObjectItem(facts->root, "animations"));
    facts->scenes = cJSON_GetArraySize(cJSON_GetObjectItem(facts->root, "scenes"));
    facts->materials = cJSON_GetArraySize(cJSON_GetObjectItem(facts->root, "materials"));
    return SINEW_OK;
}

/* 1 when glTF node `n` has a local transform other than identity (TRS or matrix). */
static int node_has_transform(const cJSON *node)
{
    static const double identity[16] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1};
    static const double unit[4] = {0, 0, 0, 1}; /* rotation; translation checks first 3 */
    const cJSON *m = cJSON_GetObjectItem(node, "matrix");
    for (int i = 0; i < 16 && m; i++) {
        const cJSON *v = cJSON_GetArrayItem(m, i);
        if (v && fabs(v->valuedouble - identity[i]) > 1e-7) return 1;
    }
    const cJSON *t = cJSON_GetObjectItem(node, "translation");
    const cJSON *r = cJSON_GetObjectItem(node, "rotation");
    const cJSON *s = cJSON_GetObjectItem(node, "scale");
    for (int i = 0; i < 4; i++) {
        const cJSON *v;
        if (i < 3 && t && (v = cJSON_GetArrayItem(t, i)) && fabs(v->valuedouble) > 1e-7) return 1;
        if (i < 3 && s && (v = cJSON_GetArrayItem(s, i)) && fabs(v->valuedouble - 1) > 1e-7)
            return 1;
        /* q and -q are the same rotation */
        if (r && (v = cJSON_GetArrayItem(r, i)) && fabs(fabs(v->valuedouble) - unit[i]) > 1e-7)
            return 1;
    }
    return 0;
}

/* Every glTF node by index, and its parent (-1 for roots) from the children lists: cJSON
 * arrays are linked lists, so looking nodes up by index inside loops would be quadratic. */
typedef struct node_table {
    const cJSON **item;
    int *parent;
    int *moved; /* nearest ancestor with a transform, -1 for none, MOVED_UNKNOWN until asked */
    int count;
} node_table;

#define MOVED_UNKNOWN (-2)

static int node_table_init(node_table *t, const cJSON *nodes, int count)
{
    size_t n = (size_t)(count > 0 ? count : 1);
    t->item = malloc(n * sizeof *t->item);
    t->parent = malloc(n * sizeof *t->parent);
    t->moved = malloc(n * sizeof *t->moved);
    t->count = 0;
    if (!t->item || !t->parent || !t->moved) return 0;
    const cJSON *node;
    cJSON_ArrayForEach(node, nodes)
    {
        if (t->count == count) break;
        t->parent[t->count] = -1;
        t->moved[t->count] = MOVED_UNKNOWN;
        t->item[t->count++] = node;
    }
    for (int i = 0; i < t->count; i++) {
        const cJSON *c;
        cJSON_ArrayForEach(c, cJSON_GetObjectItem(t->item[i], "children"))
        {
            int k = c->valueint;
            if (k >= 0 && k < t->count && t->parent[k] < 0) t->parent[k] = i;
        }
    }
    return 1;
}

static void node_table_free(node_table *t)
{
    free(t->item);
    free(t->parent);
    free(t->moved);
}

/* The nearest ancestor of node n with a transform, or -1. Each answer is kept for the nodes
 * walked through, so asking for every node of a deep chain stays linear. */
static int moved_ancestor(node_table *t, int n)
{
    int a = n;
    for (int steps = 0; t->moved[a] == MOVED_UNKNOWN && steps < t->count; steps++) {
        int p = t->parent[a];
        if (p < 0)
            t->moved[a] = -1;
        else if (node_has_transform(t->item[p]))
            t->moved[a] = p;
        else
            a = p; /* same answer as the parent's */
    }
    int answer = t->moved[a] == MOVED_UNKNOWN ? -1 : t->moved[a];
    for (int c = n; c != a; c = t->parent[c])
        t->moved[c] = answer;
    return answer;
}

/* A growable list of owned warning strings. */
typedef struct warnings {
    char **items;
    size_t count, capacity;
} warnings;

static void warn_add(warnings *w, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
static void warn_add(warnings *w, const char *fmt, ...)
{
    char buf[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    if (w->count == w->capacity) {
        size_t cap = w->capacity ? 2 * w->capacity : 16;
        char **items = realloc(w->items, cap * sizeof *items);
        if (!items) return;
        w->items = items;
        w->capacity = cap;
    }
    size_t n = strlen(buf) + 1;
    char *copy = malloc(n);
    if (!copy) return;
    memcpy(copy, buf, n);
    w->items[w->count++] = copy;
}

static void warn_free(warnings *w)
{
    for (size_t i = 0; i < w->count; i++)
        free(w->items[i]);
    free(w->items);
}

/* Every warning, in order: the loader's, then the skinned mesh nodes' transforms, then the
 * unused joints. */
static void collect_warnings(const sinew_document *doc, const doc_facts *facts,
                             const sinew_model *model, warnings *w)
{
    for (uint32_t i = 0; i < sinew_document_warning_count(doc); i++)
        warn_add(w, "%s", sinew_document_warning(doc, i));

    /* glTF: the skinned mesh node's global transform is ignored; say so when it is not
     * identity, since other tools (and users) often expect it to apply. */
    node_table nodes = {0};
    unsigned char *reported = calloc((size_t)(facts->nodes > 0 ? facts->nodes : 1), 1);
    int ok = node_table_init(&nodes, cJSON_GetObjectItem(facts->root, "nodes"), facts->nodes);
    for (uint32_t r = 0; ok && reported && r < model->mesh.range_count; r++) {
        int32_t n = model->mesh.ranges[r].gltf_node;
        if (n < 0 || n >= nodes.count || reported[n]) continue;
        reported[n] = 1; /* one node's primitives share its transform */
        const cJSON *node = nodes.item[n];
        const cJSON *name = cJSON_GetObjectItem(node, "name");
        const char *label = cJSON_IsString(name) ? name->valuestring : "";
        if (node_has_transform(node))
            warn_add(w,
                     "skinned mesh node %d \"%s\" has its own transform: ignored for skinning, "
                     "as glTF requires",
                     n, label);
        int a = moved_ancestor(&nodes, n);
        if (a >= 0)
            warn_add(w,
                     "skinned mesh node %d \"%s\" has a transformed ancestor (node %d): "
                     "ignored for skinning, as glTF requires",
                     n, label, a);
    }
    node_table_free(&nodes);
    free(reported);

    /* Unused joints: no vertex has weight on them (they may still move weighted children). */
    uint32_t nj = model->skin.joint_count;
    unsigned char *used = calloc(nj ? nj : 1, 1);
    if (!used) return;
    for (uint64_t i = 0; i < (uint64_t)model->mesh.vertex_count * SINEW_MAX_INFLUENCES; i++)
        if (model->mesh.influence_weights[i] > 0 && model->mesh.influence_joints[i] < nj)
            used[model->mesh.influence_joints[i]] = 1;
    uint32_t unused = 0;
    char list[768] = "";
    size_t len = 0;
    for (uint32_t j = 0; j < nj; j++) {
        if (used[j]) continue;
        const char *name = model->nodes[model->skin.joints[j].node].name;
        if (unused < 12 && len < sizeof list - 1)
            len += (size_t)snprintf(list + len, sizeof list - len, "%s\"%s\"", unused ? ", " : "",
                                    name);
        unused++;
    }
    if (unused)
        warn_add(w, "%u of %u joints are unused (no vertex weight): %s%s", unused, nj, list,
                 unused > 12 ? ", ..." : "");
    free(used);
}

/* The skinned mesh's box in world space in the file's pose: what a viewer shows. It can
 * differ wildly from the bind-space size (quaternius_TRex's vertices are stored 0.35 units
 * across and its skin matrices scale them about 100 times), so inspect prints both. */
typedef struct world_box {
    int valid;
    sinew_vec3 min, max;
} world_box;

static world_box measure_world(const sinew_model *model)
{
    world_box box = {0};
    sinew_transform *pose = malloc((model->node_count + 1) * sizeof *pose);
    sinew_mat4 *world = malloc((model->node_count + 1) * sizeof *world);
    sinew_mat4 *skin = malloc((model->skin.joint_count + 1) * sizeof *skin);
    sinew_vec3 *p = malloc(((size_t)model->mesh.vertex_count + 1) * sizeof *p);
    if (pose && world && skin && p && model->mesh.vertex_count) {
        sinew_pose_file(model, pose);
        sinew_pose_to_world(model, pose, world);
        sinew_skin_matrices(model, world, skin);
        sinew_skin_positions(model, skin, p);
        box.valid = 1;
        box.min = box.max = p[0];
        for (uint32_t v = 1; v < model->mesh.vertex_count; v++) {
            box.min = sinew_vec3_make(fminf(box.min.x, p[v].x), fminf(box.min.y, p[v].y),
                                      fminf(box.min.z, p[v].z));
            box.max = sinew_vec3_make(fmaxf(box.max.x, p[v].x), fmaxf(box.max.y, p[v].y),
                                      fmaxf(box.max.z, p[v].z));
        }
    }
    free(p);
    free(skin);
    free(world);
    free(pose);
    return box;
}

/* Depth of every model node (parents come before children), malloc'ed; NULL when out of
 * memory. */
static uint32_t *node_depths(const sinew_model *model)
{
    uint32_t *depth = malloc(((size_t)model->node_count + 1) * sizeof *depth);
    for (uint32_t i = 0; depth && i < model->node_count; i++) {
        int32_t p = model->nodes[i].parent;
        depth[i] = p >= 0 && (uint32_t)p < i ? depth[p] + 1 : 0;
    }
    return depth;
}

static cJSON *vec3_json(sinew_vec3 v)
{
    double a[3] = {v.x, v.y, v.z};
    return cJSON_CreateDoubleArray(a, 3);
}

static int print_json(const char *file, const doc_facts *facts, const sinew_model *model,
                      const uint32_t *depth, const world_box *wb, const warnings *w)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "file", file);
    cJSON *d = cJSON_AddObjectToObject(o, "document");
    cJSON_AddNumberToObject(d, "meshes", facts->meshes);
    cJSON_AddNumberToObject(d, "skins", facts->skins);
    cJSON_AddNumberToObject(d, "nodes", facts->nodes);
    cJSON_AddNumberToObject(d, "animations", facts->animations);
    cJSON_AddNumberToObject(d, "scenes", facts->scenes);
    cJSON_AddNumberToObject(d, "materials", facts->materials);

    cJSON *m = cJSON_AddObjectToObject(o, "skinned_mesh");
    cJSON_AddNumberToObject(m, "skin", model->skin.gltf_skin);
    cJSON_AddNumberToObject(m, "joints", model->skin.joint_count);
    cJSON_AddNumberToObject(m, "primitives", model->mesh.range_count);
    cJSON_AddNumberToObject(m, "vertices", model->mesh.vertex_count);
    cJSON_AddNumberToObject(m, "triangles", model->mesh.triangle_count);
    cJSON *ranges = cJSON_AddArrayToObject(m, "ranges");
    for (uint32_t r = 0; r < model->mesh.range_count; r++) {
        const sinew_primitive_range *pr = &model->mesh.ranges[r];
        cJSON *ro = cJSON_CreateObject();
        cJSON_AddNumberToObject(ro, "node", pr->gltf_node);
        cJSON_AddNumberToObject(ro, "skin", pr->gltf_skin);
        cJSON_AddNumberToObject(ro, "mesh", pr->gltf_mesh);
        cJSON_AddNumberToObject(ro, "primitive", pr->gltf_primitive);
        cJSON_AddNumberToObject(ro, "first_vertex", pr->first_vertex);
        cJSON_AddNumberToObject(ro, "vertices", pr->vertex_count);
        cJSON_AddNumberToObject(ro, "triangles", pr->triangle_count);
        cJSON_AddItemToArray(ranges, ro);
    }

    cJSON *size = cJSON_AddObjectToObject(o, "size");
    cJSON_AddNumberToObject(size, "height", model->size.height);
    cJSON_AddNumberToObject(size, "length", model->size.length);
    cJSON_AddNumberToObject(size, "diagonal", model->size.diagonal);
    cJSON_AddItemToObject(size, "min", vec3_json(model->size.min));
    cJSON_AddItemToObject(size, "max", vec3_json(model->size.max));
    if (wb->valid) {
        sinew_vec3 ext = sinew_vec3_sub(wb->max, wb->min);
        cJSON *ws = cJSON_AddObjectToObject(o, "world_size");
        cJSON_AddNumberToObject(ws, "height", ext.y);
        cJSON_AddNumberToObject(ws, "length", fmaxf(ext.x, ext.z));
        cJSON_AddNumberToObject(ws, "diagonal", sinew_vec3_length(ext));
        cJSON_AddItemToObject(ws, "min", vec3_json(wb->min));
        cJSON_AddItemToObject(ws, "max", vec3_json(wb->max));
    }

    cJSON *nodes = cJSON_AddArrayToObject(o, "skeleton");
    for (uint32_t i = 0; i < model->node_count; i++) {
        const sinew_node *n = &model->nodes[i];
        cJSON *no = cJSON_CreateObject();
        cJSON_AddStringToObject(no, "name", n->name);
        cJSON_AddNumberToObject(no, "parent", n->parent);
        cJSON_AddNumberToObject(no, "depth", depth[i]);
        cJSON_AddNumberToObject(no, "node", n->gltf_node);
        cJSON_AddNumberToObject(no, "joint", n->joint);
        cJSON_AddItemToArray(nodes, no);
    }

    cJSON *clips = cJSON_AddArrayToObject(o, "clips");
    for (uint32_t c = 0; c < model->clip_count; c++) {
        cJSON *co = cJSON_CreateObject();
        cJSON_AddStringToObject(co, "name", model->clips[c].name);
        cJSON_AddNumberToObject(co, "animation", model->clips[c].gltf_animation);
        cJSON_AddNumberToObject(co, "duration", model->clips[c].duration);
        cJSON_AddNumberToObject(co, "channels", model->clips[c].channel_count);
        cJSON_AddItemToArray(clips, co);
    }
    cJSON *warn = cJSON_AddArrayToObject(o, "warnings");
    for (size_t i = 0; i < w->count; i++)
        cJSON_AddItemToArray(warn, cJSON_CreateString(w->items[i]));

    char *text = cli_json_text(o, CLI_JSON_COMPACT);
    cJSON_Delete(o);
    if (!text) {
        cli_error("inspect", "out of memory");
        return CLI_EXIT_INTERNAL;
    }
    puts(text);
    free(text);
    return CLI_EXIT_OK;
}

static void print_text(const char *file, const doc_facts *facts, const sinew_model *model,
                       const uint32_t *depth, const world_box *wb, const warnings *w)
{
    printf("%s\n", safe_text(file).s);
    printf("document: %d meshes, %d skins, %d nodes, %d animations, %d materials\n", facts->meshes,
           facts->skins, facts->nodes, facts->animations, facts->materials);
    printf("skinned mesh (skin %d, %u joints): %u primitives, %u vertices, %u triangles\n",
           model->skin.gltf_skin, model->skin.joint_count, model->mesh.range_count,
           model->mesh.vertex_count, model->mesh.triangle_count);
    for (uint32_t r = 0; r < model->mesh.range_count; r++) {
        const sinew_primitive_range *pr = &model->mesh.ranges[r];
        printf("  node %d mesh %d primitive %d: %u vertices, %u triangles\n", pr->gltf_node,
               pr->gltf_mesh, pr->gltf_primitive, pr->vertex_count, pr->triangle_count);
    }
    printf("size (file units, bind space): height %.4g, length %.4g, diagonal %.4g\n",
           (double)model->size.height, (double)model->size.length, (double)model->size.diagonal);
    if (wb->valid) {
        sinew_vec3 d = sinew_vec3_sub(wb->max, wb->min);
        printf("size (file units, world, file pose): height %.4g, length %.4g, diagonal %.4g\n",
               (double)d.y, (double)fmaxf(d.x, d.z), (double)sinew_vec3_length(d));
    }

    printf("skeleton (%u nodes, %u joints):\n", model->node_count, model->skin.joint_count);
    for (uint32_t i = 0; i < model->node_count; i++) {
        const sinew_node *n = &model->nodes[i];
        /* Indented up to MAX_INDENT levels, then numbered: the text stays linear in the
         * skeleton's size (100,000 nested nodes would print 10^10 spaces). */
        if (depth[i] <= MAX_INDENT)
            printf("  %*s%s", (int)(2 * depth[i]), "", safe_text(n->name).s);
        else
            printf("  %*s(depth %u) %s", 2 * MAX_INDENT, "", depth[i], safe_text(n->name).s);
        if (n->joint >= 0)
            printf("  (joint %d)\n", n->joint);
        else
            printf("  (not a joint)\n");
    }

    printf("clips (%u):\n", model->clip_count);
    for (uint32_t c = 0; c < model->clip_count; c++)
        printf("  %s %8.3f s %4u channels\n", safe_text_pad(model->clips[c].name, 24).s,
               (double)model->clips[c].duration, model->clips[c].channel_count);

    printf("warnings (%zu):\n", w->count);
    for (size_t i = 0; i < w->count; i++)
        printf("  %s\n", safe_text(w->items[i]).s);
}

int cmd_inspect(int argc, char **argv)
{
    const char *file = NULL;
    int json = 0;
    for (int i = 1; i < argc; i++) {
        if (cli_is_help(argv[i])) {
            fputs(usage, stdout);
            return CLI_EXIT_OK;
        } else if (!strcmp(argv[i], "--json")) {
            json = 1;
        } else if (argv[i][0] == '-' && argv[i][1]) {
            return cli_usage_error("inspect", "unknown option %s", argv[i]);
        } else if (file) {
            return cli_usage_error("inspect", "one FILE only (got %s and %s)", file, argv[i]);
        } else {
            file = argv[i];
        }
    }
    if (!file) return cli_usage_error("inspect", "missing FILE");

    sinew_error err = {0};
    sinew_document *doc = NULL;
    sinew_model *model = NULL;
    doc_facts facts = {0};
    warnings w = {0};
    int status = CLI_EXIT_OK;
    if (sinew_document_load_file(file, NULL, &doc, &err) != SINEW_OK ||
        sinew_model_from_document(doc, NULL, &model, &err) != SINEW_OK ||
        read_doc_facts(doc, &facts, &err) != SINEW_OK) {
        /* The library's messages name the file; make sure a bare failure still does. */
        if (!strstr(err.message, file)) {
            char msg[2 * SINEW_ERROR_MESSAGE_MAX];
            snprintf(msg, sizeof msg, "%s: %s", file, err.message);
            memcpy(err.message, msg, SINEW_ERROR_MESSAGE_MAX - 1);
            err.message[SINEW_ERROR_MESSAGE_MAX - 1] = 0;
        }
        status = cli_report("inspect", &err);
    } else {
        collect_warnings(doc, &facts, model, &w);
        world_box wb = measure_world(model);
        uint32_t *depth = node_depths(model);
        if (!depth) {
            fprintf(stderr, "sinew inspect: out of memory\n");
            status = CLI_EXIT_INTERNAL;
        } else if (json) {
            status = print_json(file, &facts, model, depth, &wb, &w);
        } else {
            print_text(file, &facts, model, depth, &wb, &w);
        }
        free(depth);
    }
    warn_free(&w);
    cJSON_Delete(facts.root);
    sinew_model_free(model);
    sinew_document_free(doc);
    return status;
}
