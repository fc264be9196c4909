/* Module io unit tests: accessor decoding (every componentType, normalized, byteStride,
 * matrix padding, sparse), the model view of a small skinned file, the writer and edits. */
#include "test_util.h"

#include <math.h>

#include "fixture.h"
#include "io/internal.h"
#include "sinew/document.h"

static sinew_document *load_fixture(fixture *fx, int free_it)
{
    size_t size;
    uint8_t *g = fixture_glb(fx, &size);
    sinew_document *doc = NULL;
    sinew_error err = {0};
    sinew_result r = sinew_document_load_memory(g, size, NULL, &doc, &err);
    free(g);
    if (free_it) fixture_free(fx);
    if (r) fail_msg("fixture did not load: %s", err.message);
    return doc;
}

static sinew_model *view(const sinew_document *doc)
{
    sinew_model *m = NULL;
    sinew_error err = {0};
    if (sinew_model_from_document(doc, NULL, &m, &err)) fail_msg("model view: %s", err.message);
    return m;
}

static int has_warning(const sinew_document *doc, const char *piece)
{
    for (uint32_t i = 0; i < sinew_document_warning_count(doc); i++)
        if (strstr(sinew_document_warning(doc, i), piece)) return 1;
    return 0;
}

/* ---- accessors ---- */

static void put(uint8_t *bin, size_t off, const void *v, size_t n)
{
    memcpy(bin + off, v, n);
}

static void test_accessor_decoding(void **state)
{
    (void)state;
    uint8_t bin[104] = {0};
    put(bin, 0, (int8_t[]){-128, 127, -127, 0}, 4);
    put(bin, 4, (uint8_t[]){255, 51, 0, 128}, 4);
    put(bin, 8, (int16_t[]){-32768, 16384}, 4);
    put(bin, 12, (uint16_t[]){65535, 1}, 4);
    put(bin, 16, (uint32_t[]){4000000000u, 7}, 8);
    put(bin, 24, (int8_t[]){-5, 100}, 2);
    put(bin, 28, (float[]){1, 2, 3, 4, 5}, 20);
    put(bin, 48, (uint16_t[]){1, 3}, 4);
    put(bin, 52, (float[]){10, 20}, 8);
    put(bin, 60, (uint8_t[]){1, 2, 3, 0xEE, 4, 5, 6, 0xEE, 7, 8, 9, 0xEE}, 12);
    put(bin, 72, (float[]){1, 2, 3, 99, 4, 5, 6, 99}, 32);
    char b64[200];
    io_base64_encode(bin, sizeof bin, b64);
    char json[4096];
    snprintf(
        json, sizeof json,
        "{\"asset\":{\"version\":\"2.0\"},\"buffers\":[{\"byteLength\":104,\"uri\":"
        "\"data:application/gltf-buffer;base64,%s\"}],"
        "\"bufferViews\":[{\"buffer\":0,\"byteLength\":72},"
        "{\"buffer\":0,\"byteOffset\":72,\"byteLength\":32,\"byteStride\":16}],"
        "\"accessors\":["
        "{\"bufferView\":0,\"componentType\":5120,\"normalized\":true,\"count\":2,\"type\":"
        "\"VEC2\"},"
        "{\"bufferView\":0,\"byteOffset\":4,\"componentType\":5121,\"normalized\":true,\"count\":4,"
        "\"type\":\"SCALAR\"},"
        "{\"bufferView\":0,\"byteOffset\":8,\"componentType\":5122,\"normalized\":true,\"count\":2,"
        "\"type\":\"SCALAR\"},"
        "{\"bufferView\":0,\"byteOffset\":12,\"componentType\":5123,\"normalized\":true,\"count\":"
        "2,\"type\":\"SCALAR\"},"
        "{\"bufferView\":0,\"byteOffset\":16,\"componentType\":5125,\"count\":2,\"type\":"
        "\"SCALAR\"},"
        "{\"bufferView\":0,\"byteOffset\":24,\"componentType\":5120,\"count\":2,\"type\":"
        "\"SCALAR\"},"
        "{\"bufferView\":0,\"byteOffset\":28,\"componentType\":5126,\"count\":5,\"type\":"
        "\"SCALAR\","
        "\"min\":[100],\"max\":[-100],"
        "\"sparse\":{\"count\":2,\"indices\":{\"bufferView\":0,\"byteOffset\":48,\"componentType\":"
        "5123},"
        "\"values\":{\"bufferView\":0,\"byteOffset\":52}}},"
        "{\"bufferView\":0,\"byteOffset\":60,\"componentType\":5121,\"count\":1,\"type\":\"MAT3\"},"
        "{\"bufferView\":1,\"componentType\":5126,\"count\":2,\"type\":\"VEC3\"},"
        "{\"componentType\":5126,\"count\":4,\"type\":\"SCALAR\","
        "\"sparse\":{\"count\":1,\"indices\":{\"bufferView\":0,\"byteOffset\":61,\"componentType\":"
        "5121},"
        "\"values\":{\"bufferView\":0,\"byteOffset\":52}}},"
        "{\"bufferView\":0,\"byteOffset\":8,\"componentType\":5122,\"count\":2,\"type\":\"SCALAR\"}"
        "]}",
        b64);
    sinew_document *doc = NULL;
    sinew_error err = {0};
    if (sinew_document_load_memory(json, strlen(json), NULL, &doc, &err))
        fail_msg("%s", err.message);
    static const struct {
        uint32_t acc, n;
        float want[9];
    } expect[] = {
        {0, 4, {-1.0f, 1.0f, -1.0f, 0.0f}},          /* byte normalized, -128 -> -1 */
        {1, 4, {1.0f, 0.2f, 0.0f, 128.0f / 255.0f}}, /* ubyte normalized */
        {2, 2, {-1.0f, 16384.0f / 32767.0f}},        /* short normalized */
        {3, 2, {1.0f, 1.0f / 65535.0f}},             /* ushort normalized */
        {5, 2, {-5.0f, 100.0f}},                     /* plain byte */
        {6, 5, {1, 10, 3, 20, 5}},                   /* sparse over data (min/max lie) */
        {7, 9, {1, 2, 3, 4, 5, 6, 7, 8, 9}},         /* MAT3 of bytes: padded columns */
        {8, 6, {1, 2, 3, 4, 5, 6}},                  /* byteStride 16 */
        {9, 4, {0, 0, 10, 0}},                       /* sparse without bufferView */
        {10, 2, {-32768.0f, 16384.0f}},              /* plain short */
    };
    for (size_t i = 0; i < sizeof expect / sizeof expect[0]; i++) {
        io_accessor acc;
        assert_int_equal(io_accessor_resolve(doc, expect[i].acc, &acc, &err), SINEW_OK);
        assert_int_equal(acc.count * acc.components, expect[i].n);
        float got[16];
        io_accessor_read_float(&acc, got);
        for (uint32_t k = 0; k < expect[i].n; k++)
            if (fabsf(got[k] - expect[i].want[k]) > 1e-6f)
                fail_msg("accessor %u component %u: %g, want %g", expect[i].acc, k, (double)got[k],
                         (double)expect[i].want[k]);
    }
    io_accessor acc;
    assert_int_equal(io_accessor_resolve(doc, 4, &acc, &err), SINEW_OK);
    uint32_t u[2];
    io_accessor_read_u32(&acc, u);
    assert_int_equal(u[0], 4000000000u); /* unsigned int, exact */
    assert_int_equal(u[1], 7);
    sinew_document_free(doc);
}

static void test_base64(void **state)
{
    (void)state;
    uint8_t out[8];
    assert_int_equal(io_base64_decode("aGVsbG8=", 8, out), 5);
    assert_memory_equal(out, "hello", 5);
    assert_int_equal(io_base64_decode("aGVsbG8", 7, out), 5); /* unpadded */
    assert_int_equal(io_base64_decode("aGV sbG8", 8, out), -1);
    assert_int_equal(io_base64_decode("a===", 4, out), -1);
    char enc[16];
    io_base64_encode((const uint8_t *)"hello", 5, enc);
    assert_string_equal(enc, "aGVsbG8=");
}

/* ---- the model view ---- */

static void test_model_view(void **state)
{
    (void)state;
    fixture fx;
    fixture_init(&fx);
    sinew_document *doc = load_fixture(&fx, 1);
    assert_int_equal(sinew_document_warning_count(doc), 0);
    sinew_model *m = view(doc);
    assert_int_equal(m->node_count, 2); /* root, bone; the mesh node is not an ancestor */
    assert_string_equal(m->nodes[0].name, "root");
    assert_string_equal(m->nodes[1].name, "bone");
    assert_int_equal(m->nodes[0].parent, -1);
    assert_int_equal(m->nodes[1].parent, 0);
    assert_int_equal(m->nodes[1].gltf_node, 1);
    assert_int_equal(m->skin.joint_count, 2);
    assert_int_equal(m->skin.joints[1].node, 1);
    assert_int_equal(m->mesh.vertex_count, 4);
    assert_int_equal(m->mesh.triangle_count, 2);
    static const uint32_t tri[6] = {0, 1, 2, 0, 2, 3};
    assert_memory_equal(m->mesh.triangles, tri, sizeof tri);
    assert_int_equal(m->mesh.range_count, 1);
    assert_int_equal(m->mesh.ranges[0].gltf_node, 2);
    /* Vertex 0: joint 0 at 0.75 first, joint 1 at 0.25. */
    assert_int_equal(m->mesh.influence_joints[0], 0);
    assert_float_equal(m->mesh.influence_weights[0], 0.75f, 1e-6f);
    assert_int_equal(m->mesh.influence_joints[1], 1);
    assert_float_equal(m->mesh.influence_weights[1], 0.25f, 1e-6f);
    assert_float_equal(m->mesh.influence_weights[2], 0.0f, 0.0f);
    assert_int_equal(m->clip_count, 1);
    assert_string_equal(m->clips[0].name, "wave");
    assert_float_equal(m->clips[0].duration, 1.0f, 0.0f);
    assert_int_equal(m->clips[0].channel_count, 1);
    assert_int_equal(m->clips[0].channels[0].path, SINEW_PATH_ROTATION);
    assert_int_equal(m->clips[0].channels[0].interpolation, SINEW_INTERP_LINEAR);
    assert_float_equal(m->nodes[1].rest.translation.y, 1.0f, 1e-6f);
    assert_float_equal(m->size.height, 2.0f, 1e-6f);
    /* Skin at t = 0.5: the bone turns 45 degrees about z, so the top-left vertex (0, 2, 0),
     * all on joint 1, lands at (0, 1, 0) + Rz(45)(0, 1, 0). */
    sinew_transform pose[2];
    sinew_mat4 world[2], skin[2];
    sinew_vec3 pos[4];
    sinew_clip_sample(m, &m->clips[0], 0.5f, pose);
    sinew_pose_to_world(m, pose, world);
    sinew_skin_matrices(m, world, skin);
    sinew_skin_positions(m, skin, pos);
    float s = (float)sqrt(0.5);
    assert_float_equal(pos[3].x, -s, 1e-5f);
    assert_float_equal(pos[3].y, 1.0f + s, 1e-5f);
    /* Bottom-left (origin): 0.75 stays, 0.25 follows joint 1: (0,1,0) + Rz(45)(0,-1,0). */
    assert_float_equal(pos[0].x, 0.25f * s, 1e-5f);
    assert_float_equal(pos[0].y, 0.25f * (1.0f - s), 1e-5f);
    sinew_model_free(m);
    sinew_document_free(doc);
}

static void test_strips_fans_points(void **state)
{
    (void)state;
    static const struct {
        const char *mode;
        uint16_t idx[4];
        uint32_t tris;
        uint32_t want[6];
    } modes[] = {{"5", {0, 1, 3, 2}, 2, {0, 1, 3, 3, 1, 2}},
                 {"6", {0, 1, 2, 3}, 2, {1, 2, 0, 2, 3, 0}},
                 {"0", {0, 1, 2, 3}, 0, {0}},
                 {"1", {0, 1, 2, 3}, 0, {0}}};
    for (size_t i = 0; i < 4; i++) {
        fixture fx;
        fixture_init(&fx);
        fx_set(&fx, "meshes/0/primitives/0", "mode", modes[i].mode);
        fx_set(&fx, "accessors/1", "count", "4");
        memcpy(fx.bin + FX_IDX, modes[i].idx, sizeof modes[i].idx);
        sinew_document *doc = load_fixture(&fx, 1);
        sinew_model *m = view(doc);
        assert_int_equal(m->mesh.triangle_count, modes[i].tris);
        if (modes[i].tris)
            assert_memory_equal(m->mesh.triangles, modes[i].want, 6 * sizeof(uint32_t));
        else
            assert_true(has_warning(doc, modes[i].mode[0] == '0' ? "points primitive ignored"
                                                                 : "lines primitive ignored"));
        sinew_model_free(m);
        sinew_document_free(doc);
    }
}

static void test_weights_normalised(void **state)
{
    (void)state;
    fixture fx;
    fixture_init(&fx);
    float half = 0.5f, zero = 0.0f;
    memcpy(fx.bin + FX_WEIGHTS + 32, &half, 4); /* vertex 2 sums to 0.5 */
    memcpy(fx.bin + FX_WEIGHTS + 48, &zero, 4); /* vertex 3 has no weight */
    sinew_document *doc = load_fixture(&fx, 1);
    assert_true(has_warning(doc, "weights of 1 vertices do not sum to 1: normalised"));
    assert_true(has_warning(doc, "1 vertices have no weight: bound to joint 0"));
    sinew_model *m = view(doc);
    assert_float_equal(m->mesh.influence_weights[2 * 8], 1.0f, 1e-6f);
    assert_int_equal(m->mesh.influence_joints[2 * 8], 1);
    assert_float_equal(m->mesh.influence_weights[3 * 8], 1.0f, 1e-6f);
    assert_int_equal(m->mesh.influence_joints[3 * 8], 0);
    sinew_model_free(m);
    sinew_document_free(doc);
}

static void test_matrix_node_and_skin_choice(void **state)
{
    (void)state;
    fixture fx;
    fixture_init(&fx);
    fx_del(&fx, "nodes/1", "translation");
    fx_set(&fx, "nodes/1", "matrix", "[2,0,0,0, 0,2,0,0, 0,0,2,0, 0,3,0,1]");
    /* A second skin on the same nodes but skinning nothing: the first wins by default. */
    cJSON_AddItemToArray(cJSON_GetObjectItem(fx.json, "skins"), cJSON_Parse("{\"joints\":[1]}"));
    sinew_document *doc = load_fixture(&fx, 1);
    sinew_model *m = view(doc);
    assert_int_equal(m->skin.gltf_skin, 0);
    assert_float_equal(m->nodes[1].local.translation.y, 3.0f, 1e-6f);
    assert_float_equal(m->nodes[1].local.scale.x, 2.0f, 1e-6f);
    sinew_model_free(m);
    sinew_model_options opt = {.skin = 1, .skin_is_set = 1};
    sinew_error err;
    assert_int_equal(sinew_model_from_document(doc, &opt, &m, &err), SINEW_OK);
    assert_int_equal(m->skin.joint_count, 1);
    assert_int_equal(m->mesh.vertex_count, 0);
    assert_true(m->skin.joints[0].inverse_bind.m[0] == 1.0f); /* no IBMs: identity */
    sinew_model_free(m);
    opt.skin = 7;
    assert_int_equal(sinew_model_from_document(doc, &opt, &m, &err), SINEW_ERR_NOT_FOUND);
    assert_null(m);
    sinew_document_free(doc);
}

/* Meshes on copies of the chosen skin join its mesh; meshes on other skins stay out. */
static void test_skin_copies(void **state)
{
    (void)state;
    fixture fx;
    fixture_init(&fx);
    cJSON *skins = cJSON_GetObjectItem(fx.json, "skins"),
          *nodes = cJSON_GetObjectItem(fx.json, "nodes");
    /* 1: an exact copy; 2: the same joints in another order; 3: the same joints without
     * inverse bind matrices (joint 1's differs: identity, not translate(0, -1, 0)). */
    cJSON_AddItemToArray(skins, cJSON_Parse("{\"joints\":[0,1],\"inverseBindMatrices\":4}"));
    cJSON_AddItemToArray(skins, cJSON_Parse("{\"joints\":[1,0],\"inverseBindMatrices\":4}"));
    cJSON_AddItemToArray(skins, cJSON_Parse("{\"joints\":[0,1]}"));
    for (int s = 1; s <= 3; s++) {
        char node[64];
        snprintf(node, sizeof node, "{\"name\":\"copy%d\",\"mesh\":0,\"skin\":%d}", s, s);
        cJSON_AddItemToArray(nodes, cJSON_Parse(node));
    }
    sinew_document *doc = load_fixture(&fx, 1);
    sinew_model *m = view(doc);
    assert_int_equal(m->skin.gltf_skin, 0);
    assert_int_equal(m->mesh.vertex_count, 8);
    assert_int_equal(m->mesh.range_count, 2);
    assert_int_equal(m->mesh.ranges[0].gltf_skin, 0);
    assert_int_equal(m->mesh.ranges[1].gltf_skin, 1);
    assert_int_equal(m->mesh.ranges[1].gltf_node, 3);
    assert_int_equal(m->mesh.triangle_count, 4);
    assert_int_equal(m->mesh.triangles[6], 4); /* the copy's indices are offset */
    for (uint32_t v = 0; v < 4; v++) {
        assert_memory_equal(&m->mesh.positions[v], &m->mesh.positions[v + 4], sizeof(sinew_vec3));
        assert_int_equal(m->mesh.weld[v + 4], v); /* the copy sits on the original */
    }
    sinew_model_free(m);
    /* Chosen by hand, skin 2 takes only its own mesh: 0 and 1 list its joints in another
     * order. */
    sinew_model_options opt = {.skin = 2, .skin_is_set = 1};
    sinew_error err;
    assert_int_equal(sinew_model_from_document(doc, &opt, &m, &err), SINEW_OK);
    assert_int_equal(m->mesh.vertex_count, 4);
    assert_int_equal(m->mesh.ranges[0].gltf_skin, 2);
    sinew_model_free(m);
    sinew_document_free(doc);
}

static sinew_document *reload(const sinew_document *doc, sinew_bytes *bytes)
{
    sinew_error err = {0};
    if (sinew_document_write_glb_memory(doc, bytes, &err)) fail_msg("%s", err.message);
    sinew_document *again = NULL;
    if (sinew_document_load_memory(bytes->data, bytes->size, NULL, &again, &err))
        fail_msg("written file does not load: %s", err.message);
    return again;
}

/* Images that point at files are kept as references (with a warning); embedded ones and
 * everything sinew does not read (materials, extras, extensions) pass through unchanged. */
static void test_passthrough(void **state)
{
    (void)state;
    fixture fx;
    fixture_init(&fx);
    cJSON_AddItemToObject(fx.json, "images",
                          cJSON_Parse("[{\"uri\":\"skin%20tex.png\"},{\"uri\":\"data:image/png;"
                                      "base64,iVBORw0KGgo=\"},{\"bufferView\":1,"
                                      "\"mimeType\":\"image/png\"}]"));
    cJSON_AddItemToObject(fx.json, "materials",
                          cJSON_Parse("[{\"name\":\"fur\",\"extensions\":{\"KHR_materials_"
                                      "unlit\":{}},\"extras\":{\"x\":[1,2.5,-0]}}]"));
    sinew_document *doc = load_fixture(&fx, 1);
    assert_int_equal(sinew_document_warning_count(doc), 1);
    assert_non_null(strstr(sinew_document_warning(doc, 0),
                           "image 0: external file 'skin%20tex.png' is kept as a reference"));
    sinew_bytes bytes;
    sinew_document *again = reload(doc, &bytes);
    sinew_bytes_free(&bytes);
    char *a = cJSON_PrintUnformatted(cJSON_GetObjectItem(doc->root, "materials"));
    char *b = cJSON_PrintUnformatted(cJSON_GetObjectItem(again->root, "materials"));
    assert_string_equal(a, b);
    free(a);
    free(b);
    assert_string_equal(fx_at(again->root, "images/0/uri")->valuestring, "skin%20tex.png");
    assert_int_equal(fx_at(again->root, "images/2/bufferView")->valueint, 1);
    sinew_document_free(again);
    sinew_document_free(doc);
}

/* KHR_mesh_quantization: short positions, normalized-byte weights, normalized-short keys. */
static void test_quantized(void **state)
{
    (void)state;
    fixture fx;
    fixture_init(&fx);
    cJSON_AddItemToObject(fx.json, "extensionsUsed", cJSON_Parse("[\"KHR_mesh_quantization\"]"));
    cJSON_AddItemToObject(fx.json, "extensionsRequired",
                          cJSON_Parse("[\"KHR_mesh_quantization\"]"));
    static const int16_t pos[16] = {0, 0, 0, 0, 1, 0, 0, 0, 1, 2, 0, 0, 0, 2, 0, 0};
    memcpy(fx.bin + FX_POS, pos, sizeof pos); /* stride 8: 4-byte aligned elements */
    fx_set(&fx, "bufferViews/0", "byteStride", "8");
    fx_set(&fx, "accessors/0", "componentType", "5122");
    static const uint8_t w[16] = {191, 64, 0, 0, 191, 64, 0, 0, 255, 0, 0, 0, 255, 0, 0, 0};
    memcpy(fx.bin + FX_WEIGHTS, w, sizeof w);
    fx_set(&fx, "accessors/3", "componentType", "5121");
    fx_set(&fx, "accessors/3", "normalized", "true");
    static const int16_t q[12] = {0, 0, 0, 32767, 0, 0, 12540, 30273, 0, 0, 0, 32767};
    memcpy(fx.bin + FX_ROT, q, sizeof q);
    fx_set(&fx, "accessors/6", "componentType", "5122");
    fx_set(&fx, "accessors/6", "normalized", "true");
    sinew_document *doc = load_fixture(&fx, 1);
    assert_int_equal(sinew_document_warning_count(doc), 0); /* 191 + 64 = 255: sums are 1 */
    sinew_model *m = view(doc);
    assert_float_equal(m->mesh.positions[2].y, 2.0f, 0.0f);
    assert_float_equal(m->mesh.influence_weights[0], 191.0f / 255.0f, 1e-6f);
    assert_float_equal(m->clips[0].channels[0].values[7], 30273.0f / 32767.0f, 1e-6f);
    sinew_transform pose[2];
    sinew_mat4 world[2], skin[2];
    sinew_vec3 out[4];
    sinew_clip_sample(m, &m->clips[0], 0.5f, pose);
    sinew_pose_to_world(m, pose, world);
    sinew_skin_matrices(m, world, skin);
    sinew_skin_positions(m, skin, out);
    float s = (float)sqrt(0.5);
    assert_float_equal(out[3].x, -s, 1e-4f); /* 16-bit keys: about 1e-5 rad */
    assert_float_equal(out[3].y, 1.0f + s, 1e-4f);
    sinew_model_free(m);
    sinew_document_free(doc);
}

/* ---- writer and edits ---- */

static void test_write_deterministic(void **state)
{
    (void)state;
    fixture fx;
    fixture_init(&fx);
    sinew_document *doc = load_fixture(&fx, 1);
    sinew_bytes a, b;
    sinew_document *again = reload(doc, &a);
    sinew_document *twice = reload(again, &b);
    assert_int_equal(a.size, b.size);
    assert_memory_equal(a.data, b.data, a.size); /* same document, same bytes */
    sinew_bytes_free(&a);
    sinew_bytes_free(&b);
    sinew_document_free(twice);
    sinew_document_free(again);
    /* .gltf output is JSON with one embedded buffer; a failed write leaves nothing. */
    char dir[256], path[512];
    assert_non_null(test_tmpdir(dir, sizeof dir));
    snprintf(path, sizeof path, "%s/out.gltf", dir);
    sinew_error err;
    assert_int_equal(sinew_document_write_file(doc, path, &err), SINEW_OK);
    sinew_document *g = NULL;
    assert_int_equal(sinew_document_load_file(path, NULL, &g, &err), SINEW_OK);
    assert_int_equal(sinew_document_node_count(g), 3);
    sinew_document_free(g);
    unlink(path);
    snprintf(path, sizeof path, "%s/no/such/folder/out.glb", dir);
    assert_int_equal(sinew_document_write_file(doc, path, &err), SINEW_ERR_IO);
    /* A link is written through (it stays a link); a FIFO is not replaced. */
    char real[512], link[512];
    snprintf(real, sizeof real, "%s/real.glb", dir);
    snprintf(link, sizeof link, "%s/link.glb", dir);
    assert_int_equal(symlink("real.glb", link), 0);
    assert_int_equal(sinew_document_write_file(doc, link, &err), SINEW_OK);
    struct stat st;
    assert_int_equal(lstat(link, &st), 0);
    assert_true(S_ISLNK(st.st_mode));
    assert_int_equal(stat(real, &st), 0);
    assert_true(S_ISREG(st.st_mode) && st.st_size > 1000);
    snprintf(path, sizeof path, "%s/fifo", dir);
    assert_int_equal(mkfifo(path, 0600), 0);
    assert_int_equal(sinew_document_write_file(doc, path, &err), SINEW_ERR_ARGUMENT);
    assert_non_null(strstr(err.message, "is not a regular file"));
    unlink(path);
    unlink(link);
    unlink(real);
    rmdir(dir);
    sinew_document_free(doc);
}

static void test_edits(void **state)
{
    (void)state;
    fixture fx;
    fixture_init(&fx);
    /* A second primitive sharing every accessor of the first. */
    cJSON *prims = fx_at(fx.json, "meshes/0/primitives");
    cJSON_AddItemToArray(prims, cJSON_Duplicate(cJSON_GetArrayItem(prims, 0), 1));
    sinew_document *doc = load_fixture(&fx, 1);
    sinew_error err = {0};
    int32_t node, joint, anim;
    sinew_transform t = sinew_transform_identity();
    t.translation.y = 0.5f;
    assert_int_equal(sinew_document_add_node(doc, "tip", 1, t, &node, &err), SINEW_OK);
    assert_int_equal(node, 3);
    assert_int_equal(sinew_document_add_node(doc, "x", 9, t, &node, &err), SINEW_ERR_ARGUMENT);
    sinew_mat4 ibm = sinew_mat4_identity();
    ibm.m[13] = -1.5f;
    assert_int_equal(sinew_document_add_skin_joint(doc, 0, 3, &ibm, &joint, &err), SINEW_OK);
    assert_int_equal(joint, 2);
    assert_int_equal(sinew_document_add_skin_joint(doc, 0, 3, &ibm, &joint, &err),
                     SINEW_ERR_ARGUMENT); /* already a joint */
    /* Eight slots for primitive 0: vertex 3 uses slots 0 and 5. */
    uint16_t j[4 * 8] = {0};
    float w[4 * 8] = {0};
    for (int v = 0; v < 4; v++)
        w[v * 8] = 1.0f;
    w[3 * 8] = 0.25f;
    j[3 * 8 + 5] = 2;
    w[3 * 8 + 5] = 0.75f;
    assert_int_equal(sinew_document_set_influences(doc, 0, 0, 4, j, w, &err), SINEW_OK);
    assert_int_equal(sinew_document_set_influences(doc, 0, 0, 5, j, w, &err), SINEW_ERR_ARGUMENT);
    float rgba[16] = {1, 0, 0, 1, 1, 0, 0, 1, 1, 0, 0, 1, 1, 0, 0, 1};
    assert_int_equal(sinew_document_set_colors(doc, 0, 1, 4, rgba, &err), SINEW_OK);
    /* edits of per-vertex data name what does not match */
    assert_int_equal(sinew_document_set_colors(doc, 0, 1, 3, rgba, &err), SINEW_ERR_ARGUMENT);
    assert_non_null(strstr(err.message, "has 4 vertices, not 3"));
    assert_int_equal(sinew_document_set_colors(doc, 0, 9, 4, rgba, &err), SINEW_ERR_ARGUMENT);
    assert_non_null(strstr(err.message, "does not exist or has no POSITION"));
    assert_int_equal(sinew_document_set_influences(doc, -1, 0, 4, j, w, &err), SINEW_ERR_ARGUMENT);
    assert_int_equal(sinew_document_find_animation(doc, "swing", 0, &anim, &err),
                     SINEW_ERR_NOT_FOUND);
    assert_int_equal(sinew_document_find_animation(doc, "swing", 1, &anim, &err), SINEW_OK);
    assert_int_equal(anim, 1);
    float times[2] = {0, 2}, rot[8] = {0, 0, 0, 1, 0, 0, 1, 0};
    assert_int_equal(sinew_document_set_channel(doc, anim, 3, SINEW_PATH_ROTATION,
                                                SINEW_INTERP_LINEAR, 2, times, rot, &err),
                     SINEW_OK);
    /* Replacing a channel keeps one channel for that node and path. */
    assert_int_equal(sinew_document_set_channel(doc, anim, 3, SINEW_PATH_ROTATION,
                                                SINEW_INTERP_STEP, 2, times, rot, &err),
                     SINEW_OK);
    float bad[2] = {1, 1};
    assert_int_equal(sinew_document_set_channel(doc, anim, 3, SINEW_PATH_ROTATION,
                                                SINEW_INTERP_LINEAR, 2, bad, rot, &err),
                     SINEW_ERR_INVALID_VALUE);
    assert_int_equal(sinew_document_set_note(doc, "tail", "1 chain of 4 bones", &err), SINEW_OK);
    assert_string_equal(sinew_document_animation_name(doc, 1), "swing");

    sinew_bytes bytes;
    sinew_document *again = reload(doc, &bytes);
    sinew_bytes_free(&bytes);
    /* The shared accessors of primitive 1 are untouched; primitive 0 has new ones. */
    const cJSON *p0 = fx_at(again->root, "meshes/0/primitives/0/attributes");
    const cJSON *p1 = fx_at(again->root, "meshes/0/primitives/1/attributes");
    assert_int_equal(cJSON_GetObjectItem(p1, "JOINTS_0")->valueint, 2);
    assert_int_equal(cJSON_GetObjectItem(p1, "WEIGHTS_0")->valueint, 3);
    assert_true(cJSON_GetObjectItem(p0, "JOINTS_0")->valueint > 6);
    assert_non_null(cJSON_GetObjectItem(p0, "JOINTS_1"));
    assert_non_null(cJSON_GetObjectItem(p1, "COLOR_0"));
    assert_null(cJSON_GetObjectItem(p0, "COLOR_0"));
    assert_string_equal(fx_at(again->root, "asset/extras/sinew/tail")->valuestring,
                        "1 chain of 4 bones");
    assert_int_equal(cJSON_GetArraySize(fx_at(again->root, "animations/1/channels")), 1);
    sinew_model *m = view(again);
    assert_int_equal(m->node_count, 3);
    assert_int_equal(m->skin.joint_count, 3);
    assert_float_equal(m->skin.joints[2].inverse_bind.m[13], -1.5f, 0.0f);
    /* Vertex 3 of primitive 0: slot 5 sorted first. */
    assert_int_equal(m->mesh.influence_joints[3 * 8], 2);
    assert_float_equal(m->mesh.influence_weights[3 * 8], 0.75f, 1e-6f);
    assert_int_equal(m->clip_count, 2);
    assert_int_equal(m->clips[1].channels[0].interpolation, SINEW_INTERP_STEP);
    assert_int_equal(sinew_document_clear_animation(again, 1, &err), SINEW_OK);
    assert_int_equal(cJSON_GetArraySize(fx_at(again->root, "animations/1/channels")), 0);
    sinew_model_free(m);
    sinew_document_free(again);
    sinew_document_free(doc);
}

/* The writer drops what edits released and nothing uses: a clip's accessors shared with
 * another clip stay until that one is replaced too; then they go, with the bufferView only
 * they used, and every index after them is renumbered. An accessor the file itself left
 * unused stays, and so does everything in a file naming an extension sinew does not know. */
/* An animation without a name goes by the name the model gives its clip, "animation_<index>":
 * finding it by that name finds it (a solve writing a clip of that name replaces it), and
 * nothing else goes by it. */
static void test_unnamed_animation_goes_by_its_clip_name(void **state)
{
    (void)state;
    fixture fx;
    fixture_init(&fx);
    cJSON_DeleteItemFromObjectCaseSensitive(cJSON_GetArrayItem(fx_at(fx.json, "animations"), 0),
                                            "name");
    sinew_document *doc = load_fixture(&fx, 1);
    sinew_model *m = NULL;
    sinew_error err = {0};
    assert_int_equal(sinew_model_from_document(doc, NULL, &m, &err), SINEW_OK);
    assert_string_equal(m->clips[0].name, "animation_0");
    assert_string_equal(sinew_document_animation_name(doc, 0), "");
    assert_true(sinew_document_animation_named(doc, 0, "animation_0"));
    assert_false(sinew_document_animation_named(doc, 0, "animation_1"));
    assert_false(sinew_document_animation_named(doc, 0, ""));
    int32_t anim = -1;
    assert_int_equal(sinew_document_find_animation(doc, m->clips[0].name, 0, &anim, &err),
                     SINEW_OK);
    assert_int_equal(anim, 0);
    assert_int_equal(sinew_document_animation_count(doc), 1);
    sinew_model_free(m);
    sinew_document_free(doc);
}

static void test_released_dropped(void **state)
{
    (void)state;
    for (int unknown = 0; unknown < 2; unknown++) {
        fixture fx;
        fixture_init(&fx);
        /* "other" plays the same keys (accessors 5 and 6); accessor 7, unused, shares view 6 */
        cJSON *anims = fx_at(fx.json, "animations");
        cJSON *other = cJSON_Duplicate(cJSON_GetArrayItem(anims, 0), 1);
        cJSON_ReplaceItemInObjectCaseSensitive(other, "name", cJSON_CreateString("other"));
        cJSON_AddItemToArray(anims, other);
        cJSON *accs = fx_at(fx.json, "accessors");
        cJSON_AddItemToArray(accs, cJSON_Duplicate(cJSON_GetArrayItem(accs, 6), 1));
        if (unknown) fx_set(&fx, "", "extensionsUsed", "[\"EXT_mesh_gpu_instancing\"]");
        sinew_document *doc = load_fixture(&fx, 1);
        sinew_error err = {0};
        const float times[2] = {0, 2}, rot[8] = {0, 0, 0, 1, 0, 0, 1, 0};
        for (int32_t a = 0; a < 2; a++) {
            assert_int_equal(sinew_document_clear_animation(doc, a, &err), SINEW_OK);
            assert_int_equal(sinew_document_set_channel(doc, a, 1, SINEW_PATH_ROTATION,
                                                        SINEW_INTERP_LINEAR, 2, times, rot, &err),
                             SINEW_OK);
            sinew_bytes bytes;
            sinew_document *again = reload(doc, &bytes);
            sinew_bytes_free(&bytes);
            /* 8 in the file, 2 new per clip written; once both clips are rewritten, the
             * wave's old keys (5 and 6) are gone unless an unknown extension is named */
            const int accessors = cJSON_GetArraySize(fx_at(again->root, "accessors"));
            const int views = cJSON_GetArraySize(fx_at(again->root, "bufferViews"));
            const int gone = a == 1 && !unknown ? 2 : 0;
            fprintf(stderr, "%s, %d clip(s) rewritten: %d accessors, %d bufferViews\n",
                    unknown ? "unknown extension" : "known extensions", a + 1, accessors, views);
            assert_int_equal(accessors, 8 + 2 * (a + 1) - gone);
            assert_int_equal(views, 7 + 2 * (a + 1) - gone / 2); /* view 6 stays: accessor 7 */
            sinew_model *m = view(again);
            assert_int_equal(m->clip_count, 2);
            for (uint32_t c = 0; c < 2; c++) {
                const sinew_channel *ch = &m->clips[c].channels[0];
                const int rewritten = (int)c <= a;
                assert_int_equal(ch->key_count, rewritten ? 2 : 3);
                assert_float_equal(ch->times[ch->key_count - 1], rewritten ? 2.0f : 1.0f, 0);
            }
            sinew_model_free(m);
            sinew_document_free(again);
        }
        sinew_document_free(doc);
    }
}

static void test_from_model(void **state)
{
    (void)state;
    fixture fx;
    fixture_init(&fx);
    sinew_document *doc = load_fixture(&fx, 1);
    sinew_model *m = view(doc);
    sinew_document *made = NULL, *made2 = NULL;
    sinew_error err;
    assert_int_equal(sinew_document_from_model(m, &made, &err), SINEW_OK);
    assert_int_equal(sinew_document_from_model(m, &made2, &err), SINEW_OK);
    assert_int_equal(m->mesh.ranges[0].gltf_node, 2);
    sinew_bytes a, b;
    sinew_document *again = reload(made, &a);
    sinew_document_free(reload(made2, &b));
    assert_int_equal(a.size, b.size);
    assert_memory_equal(a.data, b.data, a.size);
    sinew_bytes_free(&a);
    sinew_bytes_free(&b);
    assert_string_equal(fx_at(again->root, "asset/generator")->valuestring, "sinew");
    sinew_model *m2 = view(again);
    assert_int_equal(m2->node_count, m->node_count);
    assert_int_equal(m2->mesh.vertex_count, m->mesh.vertex_count);
    assert_memory_equal(m2->mesh.triangles, m->mesh.triangles, 6 * sizeof(uint32_t));
    for (uint32_t v = 0; v < 4; v++) {
        assert_float_equal(m2->mesh.positions[v].y, m->mesh.positions[v].y, 0.0f);
        assert_float_equal(m2->mesh.influence_weights[v * 8], m->mesh.influence_weights[v * 8],
                           0.0f);
    }
    assert_int_equal(m2->clip_count, 1);
    assert_int_equal(m2->clips[0].channels[0].key_count, 3);
    sinew_model_free(m2);
    sinew_model_free(m);
    sinew_document_free(again);
    sinew_document_free(made);
    sinew_document_free(made2);
    sinew_document_free(doc);
}

/* A skin's skeleton that is not a common root of its joints (IK helpers beside the body, as
 * the Quaternius animal pack exports them) becomes their closest common root, or goes when
 * they have none, with a warning each; a right one stays. */
static void test_skeleton_repair(void **state)
{
    (void)state;
    const char *json =
        "{\"asset\":{\"version\":\"2.0\"},\"scenes\":[{\"nodes\":[0,4]}],\"nodes\":["
        "{\"name\":\"Root\",\"children\":[1,3]},{\"name\":\"Body\",\"children\":[2]},"
        "{\"name\":\"Leg\"},{\"name\":\"IK\"},{\"name\":\"Other\"}],"
        "\"skins\":[{\"joints\":[1,2,3],\"skeleton\":1},{\"joints\":[2,4],\"skeleton\":2},"
        "{\"joints\":[1,2],\"skeleton\":1}]}";
    sinew_document *doc = NULL;
    sinew_error err = {0};
    if (sinew_document_load_memory(json, strlen(json), NULL, &doc, &err))
        fail_msg("%s", err.message);
    uint32_t found = 0;
    for (uint32_t w = 0; w < sinew_document_warning_count(doc); w++)
        found += strstr(sinew_document_warning(doc, w), "not a common root") != NULL;
    assert_int_equal(found, 2);
    sinew_bytes text;
    assert_int_equal(sinew_document_serialize(doc, "x.gltf", &text, &err), SINEW_OK);
    cJSON *root = cJSON_ParseWithLength(text.data, text.size);
    const cJSON *skins = cJSON_GetObjectItemCaseSensitive(root, "skins");
    const cJSON *s0 = cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(skins, 0), "skeleton");
    const cJSON *s1 = cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(skins, 1), "skeleton");
    const cJSON *s2 = cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(skins, 2), "skeleton");
    assert_true(cJSON_IsNumber(s0) && s0->valuedouble == 0); /* Root holds Body and IK */
    assert_null(s1);                                         /* Leg and Other share none */
    assert_true(cJSON_IsNumber(s2) && s2->valuedouble == 1); /* right already: kept */
    cJSON_Delete(root);
    sinew_bytes_free(&text);
    sinew_document_free(doc);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_accessor_decoding),
        cmocka_unit_test(test_base64),
        cmocka_unit_test(test_model_view),
        cmocka_unit_test(test_strips_fans_points),
        cmocka_unit_test(test_weights_normalised),
        cmocka_unit_test(test_matrix_node_and_skin_choice),
        cmocka_unit_test(test_skin_copies),
        cmocka_unit_test(test_quantized),
        cmocka_unit_test(test_passthrough),
        cmocka_unit_test(test_write_deterministic),
        cmocka_unit_test(test_edits),
        cmocka_unit_test(test_unnamed_animation_goes_by_its_clip_name),
        cmocka_unit_test(test_released_dropped),
        cmocka_unit_test(test_from_model),
        cmocka_unit_test(test_skeleton_repair),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
