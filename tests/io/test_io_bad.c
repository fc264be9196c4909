/* The bad-input corpus: malformed files built here, each failing with its own clear message
 * and SINEW_ERR_* code, never crashing; and the CLI leaving no output for them. */
#include "test_util.h"

#include <dirent.h>
#include <math.h>

#include "fixture.h"
#include "sinew/document.h"
#include "sinew/model.h"

typedef struct bad_case {
    const char *name;
    void (*json)(fixture *fx);             /* edit JSON or BIN before serialising */
    void (*glb)(uint8_t *g, size_t *size); /* edit the GLB bytes afterwards */
    int as_gltf;                           /* serialise as .gltf with a data URI */
    sinew_result code;
    const char *expect; /* a piece of the message unique to this case */
} bad_case;

static uint32_t rd32(const uint8_t *p)
{
    return p[0] | p[1] << 8 | p[2] << 16 | (uint32_t)p[3] << 24;
}
static void fput(fixture *fx, size_t off, float v)
{
    memcpy(fx->bin + off, &v, 4);
}

/* GLB edits */
static void g_magic(uint8_t *g, size_t *s)
{
    (void)s, g[0] = 'x';
}
static void g_version(uint8_t *g, size_t *s)
{
    (void)s, fx_put32(g + 4, 1);
}
static void g_length_big(uint8_t *g, size_t *s)
{
    fx_put32(g + 8, (uint32_t)*s + 4);
}
static void g_length_small(uint8_t *g, size_t *s)
{
    (void)s, fx_put32(g + 8, 16);
}
static void g_json_len(uint8_t *g, size_t *s)
{
    fx_put32(g + 12, (uint32_t)*s);
}
static void g_json_type(uint8_t *g, size_t *s)
{
    (void)s, fx_put32(g + 16, 0x004E4942u);
}
static void g_json_text(uint8_t *g, size_t *s)
{
    (void)s, g[20] = '[';
}
static void g_bin_short(uint8_t *g, size_t *s)
{
    uint32_t jp = rd32(g + 12);
    fx_put32(g + 20 + jp, FX_BIN_SIZE - 8); /* the BIN chunk shrinks, the buffer does not */
    *s -= 8;
    fx_put32(g + 8, (uint32_t)*s);
}
static void g_truncate_8(uint8_t *g, size_t *s)
{
    (void)g, *s = 8;
}
static void g_truncate_header(uint8_t *g, size_t *s)
{
    (void)g, *s = 30;
}

/* JSON / BIN edits */
static void j_no_asset(fixture *fx)
{
    cJSON_DeleteItemFromObject(fx->json, "asset");
}
static void j_version1(fixture *fx)
{
    fx_set(fx, "asset", "version", "\"1.0\"");
}
static void j_draco(fixture *fx)
{
    cJSON_AddItemToObject(fx->json, "extensionsRequired",
                          cJSON_Parse("[\"KHR_draco_mesh_compression\"]"));
}
static void j_meshopt(fixture *fx)
{
    cJSON_AddItemToObject(fx->json, "extensionsRequired",
                          cJSON_Parse("[\"EXT_meshopt_compression\"]"));
}
static void j_khr_meshopt(fixture *fx)
{
    cJSON_AddItemToObject(fx->json, "extensionsRequired",
                          cJSON_Parse("[\"KHR_meshopt_compression\"]"));
}
static void j_required_vendor(fixture *fx)
{
    cJSON_AddItemToObject(fx->json, "extensionsRequired",
                          cJSON_Parse("[\"KHR_materials_unlit\",\"VENDOR_warp\"]"));
}
static void j_required_ok(fixture *fx)
{
    cJSON_AddItemToObject(fx->json, "extensionsRequired",
                          cJSON_Parse("[\"KHR_materials_unlit\",\"KHR_texture_transform\","
                                      "\"KHR_mesh_quantization\"]"));
}
static void j_acc_past_view(fixture *fx)
{
    fx_set(fx, "accessors/0", "byteOffset", "40");
}
static void j_view_past_buffer(fixture *fx)
{
    fx_set(fx, "bufferViews/6", "byteLength", "4800");
}
static void j_stride_small(fixture *fx)
{
    fx_set(fx, "bufferViews/0", "byteStride", "8");
}
static void j_stride_odd(fixture *fx)
{
    fx_set(fx, "bufferViews/0", "byteStride", "13");
}
static void j_index_past(fixture *fx)
{
    fx->bin[FX_IDX + 4] = 9;
}
static void j_joint_past(fixture *fx)
{
    fx->bin[FX_JOINTS + 5] = 5;
}
static void j_pos_nan(fixture *fx)
{
    fput(fx, FX_POS + 16, NAN);
}
static void j_ibm_inf(fixture *fx)
{
    fput(fx, FX_IBM + 64 + 4, INFINITY);
}
/* JSON has no Inf: a number too large for a float is one. cJSON prints Inf as null, so the
 * placeholder 12345678 is swapped for 1e999999 (same length) in the GLB bytes. */
static void j_matrix_inf(fixture *fx)
{
    fx_set(fx, "nodes/1", "matrix", "[12345678,0,0,0, 0,1,0,0, 0,0,1,0, 0,0,0,1]");
}
static void j_trs_inf(fixture *fx)
{
    fx_set(fx, "nodes/1", "scale", "[1,-12345678,1]");
}
static void g_inf(uint8_t *g, size_t *s)
{
    for (size_t i = 0; i + 8 <= *s; i++)
        if (!memcmp(g + i, "12345678", 8)) memcpy(g + i, "1e999999", 8);
}
static void j_time_nan(fixture *fx)
{
    fput(fx, FX_TIMES + 4, NAN);
}
static void j_time_order(fixture *fx)
{
    fput(fx, FX_TIMES + 8, 0.25f);
}
static void j_output_inf(fixture *fx)
{
    fput(fx, FX_ROT + 20, -INFINITY);
}
static void j_cycle(fixture *fx)
{
    fx_set(fx, "nodes/1", "children", "[0]");
}
static void j_self_child(fixture *fx)
{
    fx_set(fx, "nodes/1", "children", "[1]");
}
static void j_two_parents(fixture *fx)
{
    fx_set(fx, "nodes/2", "children", "[1]");
}
static void j_count_overflow(fixture *fx)
{
    fx_set(fx, "accessors/3", "count", "4294967295");
}
static void j_virtual_count(fixture *fx)
{
    cJSON *acc = cJSON_GetArrayItem(cJSON_GetObjectItem(fx->json, "accessors"), 3);
    cJSON_DeleteItemFromObject(acc, "bufferView");
    fx_set(fx, "accessors/3", "count", "4294967295");
}
static void j_count_huge(fixture *fx)
{
    fx_set(fx, "accessors/3", "count", "18446744073709551616");
}
static void j_offset_huge(fixture *fx)
{
    fx_set(fx, "bufferViews/1", "byteOffset", "9007199254740992");
}
static void j_bad_base64(fixture *fx)
{
    fx_set(fx, "buffers/0", "uri", "\"data:application/octet-stream;base64,AAAA$AAA\"");
}
static void j_not_base64(fixture *fx)
{
    fx_set(fx, "buffers/0", "uri", "\"data:application/octet-stream,%00%01\"");
}
static void j_missing_file(fixture *fx)
{
    fx_set(fx, "buffers/0", "uri", "\"missing.bin\"");
}
static void j_escape(fixture *fx)
{
    fx_set(fx, "buffers/0", "uri", "\"sub/../../secret.bin\"");
}
static void j_absolute(fixture *fx)
{
    fx_set(fx, "buffers/0", "uri", "\"/etc/passwd\"");
}
static void j_scheme(fixture *fx)
{
    fx_set(fx, "buffers/0", "uri", "\"https://example.com/a.bin\"");
}
static void j_no_uri_gltf(fixture *fx)
{
    fx_set(fx, "buffers/0", "uri", "null");
}
static void j_attr_count(fixture *fx)
{
    fx_set(fx, "accessors/2", "count", "3");
}
static void j_component(fixture *fx)
{
    fx_set(fx, "accessors/0", "componentType", "5000");
}
static void j_joint_node(fixture *fx)
{
    fx_set(fx, "skins/0", "joints", "[0,7]");
}
static void j_ibm_count(fixture *fx)
{
    fx_set(fx, "accessors/4", "count", "1");
}
static void j_out_count(fixture *fx)
{
    fx_set(fx, "accessors/6", "count", "2");
}
static void j_mesh_index(fixture *fx)
{
    fx_set(fx, "nodes/2", "mesh", "5");
}
static void j_dup_joint(fixture *fx)
{
    fx_set(fx, "skins/0", "joints", "[1,1]");
}
static void j_sparse_index(fixture *fx)
{
    /* Sparse substitution into POSITION whose index (from the index view: 0) is fine but the
     * count says 5 indices over a 4-byte view. */
    fx_set(fx, "accessors/0", "sparse",
           "{\"count\":3,\"indices\":{\"bufferView\":2,\"byteOffset\":14,\"componentType\":5121},"
           "\"values\":{\"bufferView\":3}}");
}
static void j_sparse_order(fixture *fx)
{
    fx_set(fx, "accessors/0", "sparse",
           "{\"count\":2,\"indices\":{\"bufferView\":2,\"componentType\":5121,\"byteOffset\":4},"
           "\"values\":{\"bufferView\":0}}"); /* joint bytes 0,1 -> then 0: increasing? no */
    fx->bin[FX_JOINTS + 4] = 2;
    fx->bin[FX_JOINTS + 5] = 1;
}
static void j_interp(fixture *fx)
{
    fx_set(fx, "animations/0/samplers/0", "interpolation", "\"SMOOTH\"");
}
static void j_json_root(fixture *fx)
{
    (void)fx;
}

static const bad_case cases[] = {
    {"bad magic", NULL, g_magic, 0, SINEW_ERR_FORMAT, "neither a GLB"},
    {"GLB version 1", NULL, g_version, 0, SINEW_ERR_UNSUPPORTED, "GLB version 1 is not supported"},
    {"length past the file", NULL, g_length_big, 0, SINEW_ERR_FORMAT, "exceeds the file size"},
    {"length too small", NULL, g_length_small, 0, SINEW_ERR_FORMAT, "leaves no room"},
    {"JSON chunk past end", NULL, g_json_len, 0, SINEW_ERR_FORMAT, "chunk 0 length"},
    {"first chunk not JSON", NULL, g_json_type, 0, SINEW_ERR_FORMAT,
     "is type 0x004e4942, not JSON"},
    {"JSON text", NULL, g_json_text, 0, SINEW_ERR_FORMAT, "invalid JSON near byte"},
    {"BIN shorter than buffer", NULL, g_bin_short, 0, SINEW_ERR_FORMAT,
     "buffer 0: byteLength 328 exceeds the 320 bytes"},
    {"header truncated", NULL, g_truncate_8, 0, SINEW_ERR_FORMAT, "GLB header truncated"},
    {"chunk header truncated", NULL, g_truncate_header, 0, SINEW_ERR_FORMAT,
     "exceeds the file size 30"},
    {"no asset", j_no_asset, NULL, 0, SINEW_ERR_FORMAT, "missing asset.version"},
    {"glTF 1.0", j_version1, NULL, 0, SINEW_ERR_UNSUPPORTED, "glTF version \"1.0\""},
#ifdef SINEW_COMPRESSION /* decoded (test_io_compressed.c); required with nothing to decode */
    {"Draco", j_draco, NULL, 0, SINEW_OK, ""},
    {"meshopt", j_meshopt, NULL, 0, SINEW_OK, ""},
#else
    {"Draco", j_draco, NULL, 0, SINEW_ERR_UNSUPPORTED, "unsupported: KHR_draco_mesh_compression"},
    {"meshopt", j_meshopt, NULL, 0, SINEW_ERR_UNSUPPORTED, "unsupported: EXT_meshopt_compression"},
#endif
    {"KHR meshopt", j_khr_meshopt, NULL, 0, SINEW_ERR_UNSUPPORTED,
     "unsupported: KHR_meshopt_compression"},
    {"unknown required extension", j_required_vendor, NULL, 0, SINEW_ERR_UNSUPPORTED,
     "the file requires extension VENDOR_warp, which sinew cannot read"},
    {"material extensions required", j_required_ok, NULL, 0, SINEW_OK, ""},
    {"accessor past its view", j_acc_past_view, NULL, 0, SINEW_ERR_FORMAT,
     "accessor 0: bufferView 0 range 40+48 exceeds its length 48"},
    {"view past its buffer", j_view_past_buffer, NULL, 0, SINEW_ERR_FORMAT,
     "bufferView 6: range 280+4800 exceeds buffer 0 length 328"},
    {"stride too small", j_stride_small, NULL, 0, SINEW_ERR_FORMAT,
     "accessor 0: byteStride 8 of bufferView 0 is smaller than the element size 12"},
    {"stride not a multiple of 4", j_stride_odd, NULL, 0, SINEW_ERR_FORMAT,
     "byteStride 13 is not a multiple of 4"},
    {"index past vertex count", j_index_past, NULL, 0, SINEW_ERR_FORMAT,
     "mesh 0 primitive 0: index 2 is 9, past the vertex count 4"},
    {"joint past joint count", j_joint_past, NULL, 0, SINEW_ERR_FORMAT,
     "JOINTS_0 of vertex 1 is joint 5, but skin 0 of node 2 has 2 joints"},
    {"NaN position", j_pos_nan, NULL, 0, SINEW_ERR_INVALID_VALUE,
     "POSITION (accessor 0) element 1 is not finite"},
    {"Inf IBM", j_ibm_inf, NULL, 0, SINEW_ERR_INVALID_VALUE,
     "inverseBindMatrices (accessor 4) element 1 is not finite"},
    {"Inf node matrix", j_matrix_inf, g_inf, 0, SINEW_ERR_INVALID_VALUE,
     "node 1: \"matrix\"[0] is not finite"},
    {"Inf node scale", j_trs_inf, g_inf, 0, SINEW_ERR_INVALID_VALUE,
     "node 1: \"scale\"[1] is not finite"},
    {"NaN key time", j_time_nan, NULL, 0, SINEW_ERR_INVALID_VALUE,
     "key time (accessor 5) element 1 is not finite"},
    {"key times out of order", j_time_order, NULL, 0, SINEW_ERR_FORMAT,
     "key times not strictly increasing at key 2 (0.25 after 0.5)"},
    {"Inf key value", j_output_inf, NULL, 0, SINEW_ERR_INVALID_VALUE,
     "output (accessor 6) element 1 is not finite"},
    {"cyclic nodes", j_cycle, NULL, 0, SINEW_ERR_FORMAT, "the node hierarchy has a cycle"},
    {"node its own child", j_self_child, NULL, 0, SINEW_ERR_FORMAT, "node 1 is its own child"},
    {"node with two parents", j_two_parents, NULL, 0, SINEW_ERR_FORMAT,
     "node 1 has two parents: node 0 and node 2"},
    {"count overflows the view", j_count_overflow, NULL, 0, SINEW_ERR_FORMAT,
     "bufferView 3 range 0+68719476720 exceeds its length 64"},
    {"zeros past the cap", j_virtual_count, NULL, 0, SINEW_ERR_UNSUPPORTED,
     "accessor 3: count 4294967295 without a bufferView is too large"},
    {"count past 2^32", j_count_huge, NULL, 0, SINEW_ERR_FORMAT,
     "accessor 3: \"count\" must be an integer in [0, 4294967295]"},
    {"offset past 2^40", j_offset_huge, NULL, 0, SINEW_ERR_FORMAT,
     "bufferView 1: \"byteOffset\" must be an integer"},
    {"bad base64", j_bad_base64, NULL, 1, SINEW_ERR_FORMAT, "data URI holds invalid base64"},
    {"data URI not base64", j_not_base64, NULL, 1, SINEW_ERR_UNSUPPORTED, "data URI is not base64"},
    {"missing external file", j_missing_file, NULL, 1, SINEW_ERR_IO, "external file"},
    {"path escape", j_escape, NULL, 1, SINEW_ERR_FORMAT, "uri 'sub/../../secret.bin' escapes"},
    {"absolute path", j_absolute, NULL, 1, SINEW_ERR_FORMAT, "uri '/etc/passwd' escapes"},
    {"URI scheme", j_scheme, NULL, 1, SINEW_ERR_UNSUPPORTED, "is not a relative file path"},
    {"buffer without data", j_no_uri_gltf, NULL, 1, SINEW_ERR_FORMAT,
     "buffer 0: uri is not a string"},
    {"attribute count mismatch", j_attr_count, NULL, 0, SINEW_ERR_FORMAT,
     "attribute JOINTS_0 has 3 elements, POSITION has 4"},
    {"unknown componentType", j_component, NULL, 0, SINEW_ERR_FORMAT, "unknown componentType 5000"},
    {"joint not a node", j_joint_node, NULL, 0, SINEW_ERR_FORMAT,
     "skin 0: joint 1 is not a node index"},
    {"too few IBMs", j_ibm_count, NULL, 0, SINEW_ERR_FORMAT, "holds 1 matrices for 2 joints"},
    {"output count", j_out_count, NULL, 0, SINEW_ERR_FORMAT, "has 2 values for 3 keys"},
    {"mesh index", j_mesh_index, NULL, 0, SINEW_ERR_FORMAT,
     "node 2: mesh 5 does not exist (the file has 1)"},
    {"joint listed twice", j_dup_joint, NULL, 0, SINEW_ERR_FORMAT, "node 1 is listed twice"},
    {"sparse past its view", j_sparse_index, NULL, 0, SINEW_ERR_FORMAT,
     "accessor 0 sparse: bufferView 2 range 14+3 exceeds its length 16"},
    {"sparse indices order", j_sparse_order, NULL, 0, SINEW_ERR_FORMAT,
     "indices are not strictly increasing at 1"},
    {"unknown interpolation", j_interp, NULL, 0, SINEW_ERR_FORMAT, "unknown interpolation"},
    {"valid control", j_json_root, NULL, 0, SINEW_OK, ""},
};
#define CASE_COUNT (sizeof cases / sizeof cases[0])

/* Serialised bytes of case i (malloc'ed). */
static uint8_t *case_bytes(size_t i, size_t *size)
{
    fixture fx;
    fixture_init(&fx);
    if (cases[i].json) cases[i].json(&fx);
    uint8_t *out;
    if (cases[i].as_gltf) {
        char *text = fixture_gltf(&fx);
        *size = strlen(text);
        out = (uint8_t *)text;
    } else {
        out = fixture_glb(&fx, size);
        if (cases[i].glb) cases[i].glb(out, size);
    }
    fixture_free(&fx);
    return out;
}

static void test_corpus(void **state)
{
    (void)state;
    char dir[256];
    assert_non_null(test_tmpdir(dir, sizeof dir));
    static char messages[CASE_COUNT][SINEW_ERROR_MESSAGE_MAX];
    assert_true(CASE_COUNT >= 31);
    for (size_t i = 0; i < CASE_COUNT; i++) {
        size_t size;
        uint8_t *bytes = case_bytes(i, &size);
        sinew_load_options opt = {.display_name = "bad.glb", .base_dir = dir};
        sinew_document *doc = (sinew_document *)1;
        sinew_error err = {0};
        sinew_result r = sinew_document_load_memory(bytes, size, &opt, &doc, &err);
        if (r != cases[i].code || !strstr(err.message, cases[i].expect))
            fail_msg("case '%s': got %s \"%s\", want %s \"%s\"", cases[i].name,
                     sinew_result_name(r), err.message, sinew_result_name(cases[i].code),
                     cases[i].expect);
        if (r) {
            assert_null(doc);
            assert_int_equal(err.code, r);
            assert_true(!strncmp(err.message, "bad.glb: ", 9)); /* names the file */
        } else {
            sinew_document_free(doc);
        }
        snprintf(messages[i], sizeof messages[i], "%s", err.message);
        for (size_t k = 0; k < i; k++)
            if (r && !strcmp(messages[k], messages[i]))
                fail_msg("cases '%s' and '%s' share the message \"%s\"", cases[k].name,
                         cases[i].name, messages[i]);
        free(bytes);
    }
    rmdir(dir);
}

/* Weights with one sensible reading are repaired, not refused (players play such files): a
 * NaN and a negative weight become 0, a joint listed twice is one slot with the sum, those
 * vertices are renormalised; the warnings say what changed and how often, the model view has
 * the repaired weights, and the file written from the document carries them. */
static void test_repairs_weights(void **state)
{
    (void)state;
    fixture fx;
    fixture_init(&fx);
    fput(&fx, FX_WEIGHTS + 4, NAN);         /* vertex 0: 0.75 on joint 0, NaN on joint 1 */
    fput(&fx, FX_WEIGHTS + 16 + 4, -0.25f); /* vertex 1: 0.75 on joint 0, -0.25 on joint 1 */
    fx.bin[FX_JOINTS + 8] = 1;              /* vertex 2: joint 1 twice, 0.5 each */
    fx.bin[FX_JOINTS + 8 + 1] = 1;
    fput(&fx, FX_WEIGHTS + 32, 0.5f);
    fput(&fx, FX_WEIGHTS + 32 + 4, 0.5f);
    size_t size;
    uint8_t *bytes = fixture_glb(&fx, &size);
    fixture_free(&fx);
    sinew_load_options opt = {.display_name = "wasp.glb"};
    sinew_document *doc = NULL;
    sinew_error err = {0};
    if (sinew_document_load_memory(bytes, size, &opt, &doc, &err)) fail_msg("%s", err.message);
    free(bytes);
    int bad = 0, twice = 0;
    for (uint32_t i = 0; i < sinew_document_warning_count(doc); i++) {
        const char *w = sinew_document_warning(doc, i);
        bad |= strstr(w, "2 weights were NaN, infinite or negative: set to 0") != NULL;
        twice |= strstr(w, "1 vertices list one joint twice") != NULL;
    }
    assert_true(bad && twice);
    sinew_model *m = NULL;
    if (sinew_model_from_document(doc, NULL, &m, &err)) fail_msg("%s", err.message);
    const float *w = m->mesh.influence_weights;
    const uint16_t *j = m->mesh.influence_joints;
    for (int v = 0; v < 3; v++) {
        assert_int_equal(j[v * SINEW_MAX_INFLUENCES], v < 2 ? 0 : 1);
        assert_float_equal(w[v * SINEW_MAX_INFLUENCES], 1.0f, 1e-6f);
        assert_float_equal(w[v * SINEW_MAX_INFLUENCES + 1], 0.0f, 0.0f);
    }
    sinew_model_free(m);
    /* Written and read again: the repaired weights are in the file, nothing left to repair. */
    sinew_bytes again;
    assert_int_equal(sinew_document_write_glb_memory(doc, &again, &err), SINEW_OK);
    sinew_document *back = NULL;
    if (sinew_document_load_memory(again.data, again.size, NULL, &back, &err))
        fail_msg("%s", err.message);
    for (uint32_t i = 0; i < sinew_document_warning_count(back); i++)
        assert_null(strstr(sinew_document_warning(back, i), "weights were NaN"));
    sinew_bytes_free(&again);
    sinew_document_free(back);
    sinew_document_free(doc);
}

/* A 4 MB file whose 400 channels share one million-key time accessor and one virtual output
 * accessor (no bufferView: a million zeros in no bytes) would make the model view decode
 * 400 copies, 8 GB; it is refused at once, naming the amplification. */
static void test_shared_accessors_do_not_amplify(void **state)
{
    (void)state;
    enum { KEYS = 1000000, CHANNELS = 400 };
    char dir[256], times_path[300];
    assert_non_null(test_tmpdir(dir, sizeof dir));
    test_path(times_path, sizeof times_path, dir, "times.bin");
    FILE *f = fopen(times_path, "wb");
    assert_non_null(f);
    for (uint32_t k = 0; k < KEYS; k++) {
        float t = (float)k / 1000.0f;
        fwrite(&t, 4, 1, f);
    }
    fclose(f);
    fixture fx;
    fixture_init(&fx);
    cJSON_AddItemToArray(fx_at(fx.json, "buffers"),
                         cJSON_Parse("{\"uri\":\"times.bin\",\"byteLength\":4000000}"));
    cJSON_AddItemToArray(fx_at(fx.json, "bufferViews"),
                         cJSON_Parse("{\"buffer\":1,\"byteLength\":4000000}"));
    fx_set(&fx, "accessors/5", "bufferView", "7");
    fx_set(&fx, "accessors/5", "count", "1000000");
    fx_set(&fx, "accessors/5", "max", "[999.999]");
    fx_del(&fx, "accessors/6", "bufferView");
    fx_set(&fx, "accessors/6", "count", "1000000");
    cJSON *channels = fx_at(fx.json, "animations/0/channels");
    for (int c = 1; c < CHANNELS; c++)
        cJSON_AddItemToArray(channels, cJSON_Duplicate(cJSON_GetArrayItem(channels, 0), 1));
    size_t size;
    uint8_t *bytes = fixture_glb(&fx, &size);
    fixture_free(&fx);
    sinew_load_options opt = {.display_name = "amplified.glb", .base_dir = dir};
    sinew_document *doc = NULL;
    sinew_error err = {0};
    sinew_result r = sinew_document_load_memory(bytes, size, &opt, &doc, &err);
    free(bytes);
    sinew_model *m = NULL;
    if (r == SINEW_OK) r = sinew_model_from_document(doc, NULL, &m, &err);
    assert_int_equal(r, SINEW_ERR_UNSUPPORTED);
    assert_null(m);
    assert_non_null(strstr(err.message, "amplified.glb: animation 0's keys would make the model "
                                        "view hold"));
    sinew_document_free(doc);
    remove(times_path);
    rmdir(dir);
}

/* A 4 KB file of eight primitives sharing million-vertex virtual accessors (8 million
 * vertices in no bytes) is refused before the mesh is decoded, not after 1.9 GB. */
static void test_shared_mesh_accessors_do_not_amplify(void **state)
{
    (void)state;
    fixture fx;
    fixture_init(&fx);
    for (int a = 0; a < 4; a++) {
        char path[32];
        snprintf(path, sizeof path, "accessors/%d", a == 1 ? 3 : a); /* POSITION JOINTS WEIGHTS */
        fx_del(&fx, path, "bufferView");
        fx_set(&fx, path, "count", "1000000");
    }
    fx_del(&fx, "meshes/0/primitives/0", "indices");
    cJSON *prims = fx_at(fx.json, "meshes/0/primitives");
    for (int p = 1; p < 8; p++)
        cJSON_AddItemToArray(prims, cJSON_Duplicate(cJSON_GetArrayItem(prims, 0), 1));
    size_t size;
    uint8_t *bytes = fixture_glb(&fx, &size);
    fixture_free(&fx);
    assert_true(size < 8192);
    sinew_load_options opt = {.display_name = "shared.glb"};
    sinew_document *doc = NULL;
    sinew_model *m = NULL;
    sinew_error err = {0};
    sinew_result r = sinew_document_load_memory(bytes, size, &opt, &doc, &err);
    free(bytes);
    if (r == SINEW_OK) r = sinew_model_from_document(doc, NULL, &m, &err);
    assert_int_equal(r, SINEW_ERR_UNSUPPORTED);
    assert_null(m);
    assert_non_null(strstr(err.message, "shared.glb: the mesh would make the model view hold"));
    sinew_document_free(doc);
}

/* Every truncation of a valid GLB fails cleanly (no crash, no document). */
static void test_truncations(void **state)
{
    (void)state;
    fixture fx;
    fixture_init(&fx);
    size_t size;
    uint8_t *g = fixture_glb(&fx, &size);
    fixture_free(&fx);
    for (size_t n = 0; n < size; n++) {
        uint8_t *copy = malloc(n + 1);
        memcpy(copy, g, n);
        sinew_document *doc = NULL;
        sinew_error err = {0};
        sinew_result r = sinew_document_load_memory(copy, n, NULL, &doc, &err);
        if (r == SINEW_OK || doc) fail_msg("truncated at %zu bytes of %zu: loaded", n, size);
        assert_true(strlen(err.message) > 10);
        free(copy);
    }
    sinew_document *doc = NULL;
    assert_int_equal(sinew_document_load_memory(g, size, NULL, &doc, NULL), SINEW_OK);
    sinew_document_free(doc);
    free(g);
}

/* An external buffer next to the file loads; one a symlink points outside is refused. */
static void test_external(void **state)
{
    (void)state;
    char dir[256], path[512], outside[256];
    assert_non_null(test_tmpdir(dir, sizeof dir));
    assert_non_null(test_tmpdir(outside, sizeof outside));
    fixture fx;
    fixture_init(&fx);
    fx_set(&fx, "buffers/0", "uri", "\"data%20file.bin\"");
    char *text = cJSON_PrintUnformatted(fx.json);
    snprintf(path, sizeof path, "%s/data file.bin", dir);
    FILE *f = fopen(path, "wb");
    fwrite(fx.bin, 1, FX_BIN_SIZE, f);
    fclose(f);
    sinew_load_options opt = {.base_dir = dir};
    sinew_document *doc = NULL;
    sinew_error err = {0};
    assert_int_equal(sinew_document_load_memory(text, strlen(text), &opt, &doc, &err), SINEW_OK);
    sinew_document_free(doc);
    /* From memory without a base folder: refused. */
    assert_int_equal(sinew_document_load_memory(text, strlen(text), NULL, &doc, &err),
                     SINEW_ERR_ARGUMENT);
    assert_non_null(strstr(err.message, "without a base folder"));
    free(text);
    /* A link inside the folder pointing outside it. */
    char target[512], link[512];
    snprintf(target, sizeof target, "%s/secret.bin", outside);
    f = fopen(target, "wb");
    fwrite(fx.bin, 1, FX_BIN_SIZE, f);
    fclose(f);
    snprintf(link, sizeof link, "%s/link.bin", dir);
    assert_int_equal(symlink(target, link), 0);
    fx_set(&fx, "buffers/0", "uri", "\"link.bin\"");
    text = cJSON_PrintUnformatted(fx.json);
    assert_int_equal(sinew_document_load_memory(text, strlen(text), &opt, &doc, &err),
                     SINEW_ERR_FORMAT);
    assert_non_null(strstr(err.message, "through a link"));
    free(text);
    fixture_free(&fx);
    unlink(link);
    unlink(path);
    unlink(target);
    rmdir(dir);
    rmdir(outside);
}

/* The CLI: exit code 1, a message naming the file, no output and no temporary file. */
static void test_cli(void **state)
{
    (void)state;
    char dir[256], in[512], out[512], text[4096];
    assert_non_null(test_tmpdir(dir, sizeof dir));
    static const char *const pick[] = {
        "KHR meshopt", "accessor past its view", "NaN position", "cyclic nodes", "header truncated",
        "bad base64",  "zeros past the cap"};
    for (size_t p = 0; p < sizeof pick / sizeof pick[0]; p++) {
        size_t i = 0;
        while (strcmp(cases[i].name, pick[p]))
            i++;
        size_t size;
        uint8_t *bytes = case_bytes(i, &size);
        snprintf(in, sizeof in, "%s/in%s", dir, cases[i].as_gltf ? ".gltf" : ".glb");
        snprintf(out, sizeof out, "%s/out.glb", dir);
        FILE *f = fopen(in, "wb");
        fwrite(bytes, 1, size, f);
        fclose(f);
        free(bytes);
        int rc = test_run(text, sizeof text, "'%s' convert '%s' '%s'", test_sinew_bin(), in, out);
        if (rc != 1 || !strstr(text, cases[i].expect) || !strstr(text, in))
            fail_msg("case '%s': exit %d, output \"%s\"", cases[i].name, rc, text);
        assert_false(test_file_exists(out));
        DIR *d = opendir(dir);
        struct dirent *e;
        int entries = 0;
        while ((e = readdir(d)))
            entries += e->d_name[0] != '.';
        closedir(d);
        assert_int_equal(entries, 1); /* only the input: no output, no temporary file */
        unlink(in);
    }
    /* Usage errors exit 2; --help exits 0. */
    assert_int_equal(test_run(text, sizeof text, "'%s' convert onlyone", test_sinew_bin()), 2);
    assert_int_equal(test_run(text, sizeof text, "'%s' convert --help", test_sinew_bin()), 0);
    assert_non_null(strstr(text, "usage: sinew convert IN OUT"));
    rmdir(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_corpus),
        cmocka_unit_test(test_repairs_weights),
        cmocka_unit_test(test_shared_accessors_do_not_amplify),
        cmocka_unit_test(test_shared_mesh_accessors_do_not_amplify),
        cmocka_unit_test(test_truncations),
        cmocka_unit_test(test_external),
        cmocka_unit_test(test_cli),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
