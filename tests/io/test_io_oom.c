/* Running out of memory: a whole load + edit + write (and a document made from a model) is
 * run again and again with allocation number N failing, for every N until a run needs fewer
 * allocations than N. Each run must either end with SINEW_ERR_OUT_OF_MEMORY from the step
 * that ran out, or succeed and write exactly the bytes of a run with all the memory it wants:
 * never another error, never an incomplete document. Every allocation (the document's
 * allocator and cJSON's, through its hooks, which a test may set as any embedder may) is
 * counted, and after each run as many blocks must have been freed as were allocated.
 * Also checks that the loader's test for "cJSON failed for want of memory, not because the
 * text is bad" agrees with cJSON on good and bad text. */
#include "test_util.h"

#include <math.h>

#include "fixture.h"
#include "io/internal.h"
#include "sinew/document.h"

/* ---- an allocator that fails allocation number `fail_at` (counting from 1) ---- */

static long allocations; /* made since the run began */
static long fail_at;     /* 0: never fail */
static long live;        /* blocks allocated and not yet freed */
static int failed;       /* an allocation was refused this run */

static int refuse(void)
{
    if (fail_at && ++allocations == fail_at) {
        failed = 1;
        return 1;
    }
    return 0;
}

static void *count_malloc(size_t size)
{
    void *p = refuse() ? NULL : malloc(size);
    live += p != NULL;
    return p;
}

static void count_free(void *p)
{
    live -= p != NULL;
    free(p);
}

static void *a_alloc(void *user, size_t size)
{
    (void)user;
    return count_malloc(size);
}

static void *a_realloc(void *user, void *ptr, size_t old_size, size_t new_size)
{
    (void)user;
    (void)old_size;
    if (refuse()) return NULL;
    void *p = realloc(ptr, new_size);
    live += p && !ptr;
    return p;
}

static void a_free(void *user, void *ptr)
{
    (void)user;
    count_free(ptr);
}

static const sinew_allocator counting = {a_alloc, a_realloc, a_free, NULL};

/* ---- the work ---- */

typedef struct outputs {
    sinew_bytes glb, gltf, model_glb;
} outputs;

/* The blocks the outputs hold: what a run leaves live, the caller's to free. */
static long output_blocks(const outputs *o)
{
    return (o->glb.data != NULL) + (o->gltf.data != NULL) + (o->model_glb.data != NULL);
}

static void outputs_free(outputs *o)
{
    sinew_bytes_free(&o->glb);
    sinew_bytes_free(&o->gltf);
    sinew_bytes_free(&o->model_glb);
}

/* Loads the fixture, makes every kind of edit, writes GLB and .gltf, views the model and makes
 * a document of it. Returns the first failure (with `err`) or SINEW_OK with `out` filled. */
static sinew_result run(const uint8_t *glb, size_t size, outputs *out, sinew_error *err)
{
    sinew_load_options options = {0};
    options.allocator = &counting;
    options.display_name = "fixture.glb";
    sinew_document *doc = NULL, *made = NULL, *copy = NULL;
    sinew_model *model = NULL;
    sinew_result r = sinew_document_load_memory(glb, size, &options, &doc, err);
    int32_t node = -1, joint = -1, anim = -1;
    sinew_transform local = sinew_transform_identity();
    local.translation = sinew_vec3_make(0, 0.5f, 0);
    if (!r) r = sinew_document_add_node(doc, "Tail_1", 1, local, &node, err);
    sinew_mat4 ibm = sinew_mat4_identity();
    ibm.m[13] = -1.5f;
    if (!r) r = sinew_document_add_skin_joint(doc, 0, node, &ibm, &joint, err);
    /* Two influence sets, so that JOINTS_1 and WEIGHTS_1 are new keys. */
    uint16_t joints[4 * SINEW_MAX_INFLUENCES] = {0};
    float weights[4 * SINEW_MAX_INFLUENCES] = {0};
    for (int v = 0; v < 4; v++) {
        joints[v * SINEW_MAX_INFLUENCES] = (uint16_t)(v < 2 ? 0 : 1);
        joints[v * SINEW_MAX_INFLUENCES + 4] = (uint16_t)joint;
        weights[v * SINEW_MAX_INFLUENCES] = 0.5f;
        weights[v * SINEW_MAX_INFLUENCES + 4] = 0.5f;
    }
    if (!r) r = sinew_document_set_influences(doc, 0, 0, 4, joints, weights, err);
    const float rgba[16] = {1, 0, 0, 1, 0, 1, 0, 1, 0, 0, 1, 1, 1, 1, 1, 1};
    if (!r) r = sinew_document_set_colors(doc, 0, 0, 4, rgba, err);
    const float times[2] = {0, 1};
    const float rot[8] = {0, 0, 0, 1, 0, 0.38268343f, 0, 0.92387953f};
    const float move[6] = {0, 0.5f, 0, 0, 0.75f, 0};
    if (!r) r = sinew_document_find_animation(doc, "wave", 0, &anim, err);
    /* Replaces the channel the fixture has (node 1 rotation), then adds one. */
    if (!r)
        r = sinew_document_set_channel(doc, anim, 1, SINEW_PATH_ROTATION, SINEW_INTERP_LINEAR, 2,
                                       times, rot, err);
    if (!r)
        r = sinew_document_set_channel(doc, anim, node, SINEW_PATH_TRANSLATION, SINEW_INTERP_STEP,
                                       2, times, move, err);
    if (!r) r = sinew_document_find_animation(doc, "swish", 1, &anim, err);
    if (!r)
        r = sinew_document_set_channel(doc, anim, node, SINEW_PATH_ROTATION, SINEW_INTERP_LINEAR, 2,
                                       times, rot, err);
    if (!r) r = sinew_document_find_animation(doc, "empty", 1, &anim, err);
    if (!r) r = sinew_document_clear_animation(doc, anim, err);
    if (!r) r = sinew_document_set_note(doc, "tail", "1 chain", err);
    if (!r) r = sinew_document_set_note(doc, "tail", "2 chains", err);
    /* The outputs through the counting allocator too: their allocation can fail as well. */
    const sinew_write_options write = {.allocator = &counting};
    if (!r) r = sinew_document_serialize_with(doc, "out.glb", &write, &out->glb, err);
    if (!r) r = sinew_document_serialize_with(doc, "out.gltf", &write, &out->gltf, err);
    if (!r) r = sinew_document_copy(doc, &copy, err);
    sinew_model_options mo = {0};
    mo.allocator = &counting;
    if (!r) r = sinew_model_from_document(copy, &mo, &model, err);
    if (!r) r = sinew_document_from_model(model, &made, err);
    if (!r) r = sinew_document_serialize_with(made, "model.glb", &write, &out->model_glb, err);
    sinew_document_free(made);
    sinew_model_free(model);
    sinew_document_free(copy);
    sinew_document_free(doc);
    return r;
}

static int same(const void *a, size_t an, const void *b, size_t bn)
{
    return an == bn && !memcmp(a, b, an);
}

static void every_failure_is_out_of_memory(void **state)
{
    (void)state;
    fixture fx;
    fixture_init(&fx);
    size_t size;
    uint8_t *glb = fixture_glb(&fx, &size);
    fixture_free(&fx);

    outputs want = {0};
    sinew_error err = {0};
    fail_at = 0;
    live = 0;
    sinew_result r = run(glb, size, &want, &err);
    if (r) fail_msg("the run with all the memory it wants failed: %s", err.message);
    assert_int_equal(live, 3); /* the three outputs, from the counting allocator */

    long n, refused = 0;
    for (n = 1;; n++) {
        outputs got = {0};
        allocations = 0;
        fail_at = n;
        failed = 0;
        live = 0;
        memset(&err, 0, sizeof err);
        r = run(glb, size, &got, &err);
        if (live != output_blocks(&got))
            fail_msg("allocation %ld refused: %ld blocks leaked", n, live - output_blocks(&got));
        if (!failed) {
            /* The run needed fewer than n allocations: every one has been refused once. */
            assert_int_equal(r, SINEW_OK);
            outputs_free(&got);
            assert_int_equal(live, 0); /* sinew_bytes_free returned them where they came from */
            break;
        }
        refused++;
        if (r == SINEW_OK) {
            /* Something absorbed the failure (an optional warning, say): the output must be
             * whole all the same. */
            if (!same(got.glb.data, got.glb.size, want.glb.data, want.glb.size) ||
                !same(got.gltf.data, got.gltf.size, want.gltf.data, want.gltf.size) ||
                !same(got.model_glb.data, got.model_glb.size, want.model_glb.data,
                      want.model_glb.size))
                fail_msg("allocation %ld refused: success with a different document (GLB %zu/%zu "
                         "bytes, .gltf %zu/%zu, from the model %zu/%zu)",
                         n, got.glb.size, want.glb.size, got.gltf.size, want.gltf.size,
                         got.model_glb.size, want.model_glb.size);
        } else if (r != SINEW_ERR_OUT_OF_MEMORY || err.code != r) {
            fail_msg("allocation %ld refused: %s (%s), not out of memory", n, sinew_result_name(r),
                     err.message);
        }
        outputs_free(&got);
    }
    fail_at = 0;
    print_message("refused each of %ld allocations in turn\n", refused);
    assert_true(refused > 200); /* the run allocates; a hook that never fires proves nothing */
    outputs_free(&want);
    free(glb);
}

/* io_json_parsable must accept exactly what cJSON parses when memory is plentiful. */
static void parsable_agrees_with_cjson(void **state)
{
    (void)state;
    static const char *const texts[] = {"{}",
                                        "[]",
                                        "{\"a\":1}",
                                        " \t\n{\"a\" : [1, 2.5e3, -0, true, false, null, \"x\"]}",
                                        "{\"a\":\"\\u00e9\\ud83d\\ude00\"}",
                                        "{\"a\":\"\\ud83d\"}",
                                        "{\"a\":\"\\ude00\"}",
                                        "{\"a\":\"\\u12\"}",
                                        "{\"a\":\"\\q\"}",
                                        "{\"a\":1,}",
                                        "{\"a\" 1}",
                                        "[1 2]",
                                        "{\"a\":01}",
                                        "{\"a\":+1}",
                                        "{\"a\":-}",
                                        "{\"a\":.5}",
                                        "{\"a\":1.}",
                                        "{\"a\":tru}",
                                        "{\"a\":\"\x01\"}",
                                        "\xEF\xBB\xBF{}",
                                        "{} trailing",
                                        "{\"a\":[}",
                                        "{\"a\"",
                                        "",
                                        "   ",
                                        "{\"a\":1e}",
                                        "{\"a\":\"unterminated}",
                                        "{\"a\":\"\\\"}",
                                        "[[[[]]]]",
                                        "{\"a\":nul}"};
    for (size_t i = 0; i < sizeof texts / sizeof *texts; i++) {
        size_t n = strlen(texts[i]);
        cJSON *parsed = cJSON_ParseWithLength(texts[i], n);
        if (io_json_parsable(texts[i], n) != (parsed != NULL))
            fail_msg("text %zu (%s): cJSON %s it, io_json_parsable does not", i, texts[i],
                     parsed ? "parses" : "refuses");
        cJSON_Delete(parsed);
    }
    /* cJSON's nesting limit, at it and one past it. */
    for (int depth = CJSON_NESTING_LIMIT; depth <= CJSON_NESTING_LIMIT + 1; depth++) {
        char *t = malloc(2 * (size_t)depth + 1);
        for (int k = 0; k < depth; k++) {
            t[k] = '[';
            t[2 * depth - 1 - k] = ']';
        }
        t[2 * depth] = 0;
        cJSON *parsed = cJSON_Parse(t);
        assert_int_equal(io_json_parsable(t, 2 * (size_t)depth), parsed != NULL);
        cJSON_Delete(parsed);
        free(t);
    }
    /* The fixture, and every text of it cut short. */
    fixture fx;
    fixture_init(&fx);
    char *text = cJSON_PrintUnformatted(fx.json);
    fixture_free(&fx);
    size_t len = strlen(text);
    for (size_t n = 0; n <= len; n++) {
        cJSON *parsed = cJSON_ParseWithLength(text, n);
        if (io_json_parsable(text, n) != (parsed != NULL))
            fail_msg("fixture cut to %zu bytes: cJSON and io_json_parsable differ", n);
        cJSON_Delete(parsed);
    }
    cJSON_free(text);
}

int main(void)
{
    /* Before anything allocates through cJSON, so that every block it frees was counted. */
    cJSON_Hooks hooks = {count_malloc, count_free};
    cJSON_InitHooks(&hooks);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(every_failure_is_out_of_memory),
        cmocka_unit_test(parsable_agrees_with_cjson),
    };
    return test_exit_code(cmocka_run_group_tests(tests, NULL, NULL));
}
