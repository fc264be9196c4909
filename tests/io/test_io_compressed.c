/* Compressed input and meshopt output. fuzz/corpus/draco-mesh.glb and meshopt-mesh.glb are
 * the io fixture (base.glb) compressed by gltf-transform (`gltf-transform draco|meshopt`):
 * they load to the fixture's mesh with the extensions gone; what sinew writes with
 * --meshopt decodes to the same bytes; and broken copies (wrong counts, ranges, strides,
 * truncated or bit-flipped compressed bytes, fallback buffers asking for too much) fail with
 * SINEW_ERR_FORMAT or SINEW_ERR_UNSUPPORTED naming the part, never crashing (the ASan build
 * runs this too). */
#include "test_util.h"

#include <cjson/cJSON.h>
#include <math.h>

#include "sinew/document.h"
#include "sinew/model.h"

typedef struct glb {
    cJSON *json;
    uint8_t *bin;
    size_t bin_size;
} glb;

static uint32_t rd32(const uint8_t *p)
{
    return p[0] | p[1] << 8 | p[2] << 16 | (uint32_t)p[3] << 24;
}
static void wr32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)v, p[1] = (uint8_t)(v >> 8), p[2] = (uint8_t)(v >> 16),
    p[3] = (uint8_t)(v >> 24);
}

static glb glb_read(const char *name)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/fuzz/corpus/%s", SINEW_SOURCE_DIR, name);
    size_t size;
    uint8_t *d = (uint8_t *)test_read_file(path, &size);
    if (!d) fail_msg("cannot read %s", path);
    const uint32_t jl = rd32(d + 12);
    glb g = {cJSON_ParseWithLength((const char *)d + 20, jl), NULL, 0};
    assert_non_null(g.json);
    g.bin_size = rd32(d + 20 + jl);
    g.bin = malloc(g.bin_size + 1);
    memcpy(g.bin, d + 28 + jl, g.bin_size);
    free(d);
    return g;
}

static uint8_t *glb_bytes(const glb *g, size_t *size)
{
    char *text = cJSON_PrintUnformatted(g->json);
    const size_t jl = strlen(text), jp = (jl + 3) & ~(size_t)3, bp = (g->bin_size + 3) & ~(size_t)3;
    *size = 28 + jp + bp;
    uint8_t *out = calloc(1, *size);
    wr32(out, 0x46546C67u);
    wr32(out + 4, 2);
    wr32(out + 8, (uint32_t)*size);
    wr32(out + 12, (uint32_t)jp);
    wr32(out + 16, 0x4E4F534Au);
    memcpy(out + 20, text, jl);
    memset(out + 20 + jl, ' ', jp - jl);
    wr32(out + 20 + jp, (uint32_t)bp);
    wr32(out + 24 + jp, 0x004E4942u);
    memcpy(out + 28 + jp, g->bin, g->bin_size);
    free(text);
    return out;
}

static glb glb_copy(const glb *g)
{
    glb c = {cJSON_Duplicate(g->json, 1), malloc(g->bin_size + 1), g->bin_size};
    memcpy(c.bin, g->bin, g->bin_size);
    return c;
}

static void glb_free(glb *g)
{
    cJSON_Delete(g->json);
    free(g->bin);
}

static sinew_result load_bytes(const uint8_t *bytes, size_t size, sinew_document **doc,
                               sinew_error *err)
{
    sinew_load_options opt = {0};
    opt.display_name = "in.glb";
    return sinew_document_load_memory(bytes, size, &opt, doc, err);
}

/* Loads g; on success also builds the model (what every command does next). */
static sinew_result load(const glb *g, sinew_error *err)
{
    size_t size;
    uint8_t *bytes = glb_bytes(g, &size);
    sinew_document *doc = NULL;
    sinew_result r = load_bytes(bytes, size, &doc, err);
    free(bytes);
    if (r == SINEW_OK) {
        sinew_model *m = NULL;
        r = sinew_model_from_document(doc, NULL, &m, err);
        sinew_model_free(m);
    }
    sinew_document_free(doc);
    return r;
}

static cJSON *at(cJSON *root, const char *path)
{
    char buf[256];
    snprintf(buf, sizeof buf, "%s", path);
    cJSON *j = root;
    for (char *tok = strtok(buf, "/"); tok && j; tok = strtok(NULL, "/"))
        j = (*tok >= '0' && *tok <= '9') ? cJSON_GetArrayItem(j, atoi(tok))
                                         : cJSON_GetObjectItemCaseSensitive(j, tok);
    if (!j) fail_msg("no %s", path);
    return j;
}

static void set(cJSON *root, const char *path, const char *key, const char *json)
{
    cJSON *obj = at(root, path), *v = cJSON_Parse(json);
    if (cJSON_GetObjectItemCaseSensitive(obj, key))
        cJSON_ReplaceItemInObjectCaseSensitive(obj, key, v);
    else
        cJSON_AddItemToObject(obj, key, v);
}

static int contains(const void *data, size_t size, const char *s)
{
    const size_t n = strlen(s);
    for (size_t i = 0; i + n <= size; i++)
        if (!memcmp((const char *)data + i, s, n)) return 1;
    return 0;
}

static sinew_model *model_of(const uint8_t *bytes, size_t size, sinew_document **doc)
{
    sinew_error err = {0};
    sinew_model *m = NULL;
    if (load_bytes(bytes, size, doc, &err) || sinew_model_from_document(*doc, NULL, &m, &err))
        fail_msg("%s", err.message);
    return m;
}

static int names_compression(const sinew_document *doc)
{
    sinew_bytes bytes;
    sinew_error err = {0};
    assert_int_equal(sinew_document_write_glb_memory(doc, &bytes, &err), SINEW_OK);
    const uint32_t jl = rd32((uint8_t *)bytes.data + 12);
    char *text = malloc(jl + 1);
    memcpy(text, (uint8_t *)bytes.data + 20, jl);
    text[jl] = 0;
    const int found = strstr(text, "draco") || strstr(text, "meshopt");
    free(text);
    sinew_bytes_free(&bytes);
    return found;
}

/* Both copies load to the fixture's 4 vertices and 2 triangles, as plain data: the written
 * file names no compression, Draco's positions are the fixture's within its quantization and
 * meshopt's lossless index codec gives back the fixture's triangles. */
static void test_decodes(void **state)
{
    (void)state;
    glb base = glb_read("base.glb");
    size_t size;
    uint8_t *bytes = glb_bytes(&base, &size);
    sinew_document *bdoc;
    sinew_model *ref = model_of(bytes, size, &bdoc);
    free(bytes);
    static const char *const files[] = {"draco-mesh.glb", "meshopt-mesh.glb"};
    for (int f = 0; f < 2; f++) {
        glb g = glb_read(files[f]);
        bytes = glb_bytes(&g, &size);
        sinew_document *doc;
        sinew_model *m = model_of(bytes, size, &doc);
        assert_int_equal(m->mesh.vertex_count, ref->mesh.vertex_count);
        assert_int_equal(m->mesh.triangle_count, ref->mesh.triangle_count);
        assert_false(names_compression(doc));
        if (f == 0) {
            /* Draco orders the points its own way: each of the fixture's has its match. */
            for (uint32_t v = 0; v < ref->mesh.vertex_count; v++) {
                float best = INFINITY;
                for (uint32_t u = 0; u < m->mesh.vertex_count; u++) {
                    const sinew_vec3 a = m->mesh.positions[u], b = ref->mesh.positions[v];
                    const float d = fabsf(a.x - b.x) + fabsf(a.y - b.y) + fabsf(a.z - b.z);
                    best = d < best ? d : best;
                }
                assert_true(best < 1e-3f * ref->size.diagonal);
            }
        } else {
            assert_memory_equal(m->mesh.triangles, ref->mesh.triangles,
                                3 * ref->mesh.triangle_count * sizeof ref->mesh.triangles[0]);
        }
        sinew_model_free(m);
        sinew_document_free(doc);
        glb_free(&g);
        free(bytes);
    }
    sinew_model_free(ref);
    sinew_document_free(bdoc);
    glb_free(&base);
}

/* --meshopt output lists the extension as required, compresses, and decodes to the very
 * model it was written from. */
static void test_meshopt_output(void **state)
{
    (void)state;
    static const char *const files[] = {"base.glb", "draco-mesh.glb", "meshopt-mesh.glb"};
    for (int f = 0; f < 3; f++) {
        glb g = glb_read(files[f]);
        size_t size;
        uint8_t *bytes = glb_bytes(&g, &size);
        sinew_document *doc, *again;
        sinew_model *m = model_of(bytes, size, &doc);
        sinew_write_options wo = {.meshopt = 1};
        sinew_bytes out;
        sinew_error err = {0};
        assert_int_equal(sinew_document_serialize_with(doc, "x.glb", &wo, &out, &err), SINEW_OK);
        assert_true(
            contains(out.data, out.size, "\"extensionsRequired\":[\"EXT_meshopt_compression\"") ||
            contains(out.data, out.size, "\"EXT_meshopt_compression\"]"));
        assert_true(contains(out.data, out.size, "\"fallback\":true"));
        sinew_model *m2 = model_of(out.data, out.size, &again);
        assert_int_equal(m2->mesh.vertex_count, m->mesh.vertex_count);
        assert_memory_equal(m2->mesh.positions, m->mesh.positions,
                            m->mesh.vertex_count * sizeof m->mesh.positions[0]);
        assert_memory_equal(m2->mesh.triangles, m->mesh.triangles,
                            3 * m->mesh.triangle_count * sizeof m->mesh.triangles[0]);
        assert_memory_equal(m2->mesh.influence_weights, m->mesh.influence_weights,
                            m->mesh.vertex_count * SINEW_MAX_INFLUENCES * sizeof(float));
        assert_memory_equal(m2->mesh.influence_joints, m->mesh.influence_joints,
                            m->mesh.vertex_count * SINEW_MAX_INFLUENCES * sizeof(uint16_t));
        sinew_model_free(m2);
        sinew_document_free(again);
        sinew_bytes_free(&out);
        sinew_model_free(m);
        sinew_document_free(doc);
        glb_free(&g);
        free(bytes);
    }
}

typedef struct bad_case {
    const char *file, *path, *key, *json;
    sinew_result code;
    const char *expect;
} bad_case;

static const bad_case cases[] = {
    {"draco-mesh.glb", "accessors/0", "count", "9", SINEW_ERR_FORMAT,
     "mesh 0 primitive 0: KHR_draco_mesh_compression data has 6 indices, accessor 0 says 9"},
    {"draco-mesh.glb", "accessors/1", "count", "5", SINEW_ERR_FORMAT,
     "data has 4 points, POSITION (accessor 1) says 5"},
    {"draco-mesh.glb", "meshes/0/primitives/0/extensions/KHR_draco_mesh_compression/attributes",
     "WEIGHTS_0", "7", SINEW_ERR_FORMAT, "attribute WEIGHTS_0 (id 7) is absent"},
    {"draco-mesh.glb", "meshes/0/primitives/0/extensions/KHR_draco_mesh_compression/attributes",
     "TEXCOORD_0", "0", SINEW_ERR_FORMAT, "names attribute TEXCOORD_0, which the primitive lacks"},
    {"draco-mesh.glb", "accessors/1", "type", "\"VEC2\"", SINEW_ERR_FORMAT,
     "attribute POSITION (id 0) has 3 components, accessor 1 2"},
    {"draco-mesh.glb", "meshes/0/primitives/0/extensions/KHR_draco_mesh_compression", "bufferView",
     "9", SINEW_ERR_FORMAT, "bufferView"},
    {"draco-mesh.glb", "bufferViews/2", "byteLength", "40", SINEW_ERR_FORMAT,
     "mesh 0 primitive 0: KHR_draco_mesh_compression data (bufferView 2) does not decode"},
    {"draco-mesh.glb", "meshes/0/primitives/0", "mode", "0", SINEW_ERR_FORMAT,
     "is read only for triangle lists"},
    {"meshopt-mesh.glb", "bufferViews/0/extensions/EXT_meshopt_compression", "count", "4",
     SINEW_ERR_FORMAT,
     "bufferView 0: EXT_meshopt_compression decodes 4 x 4 bytes, but the view "
     "holds 12"},
    {"meshopt-mesh.glb", "bufferViews/0/extensions/EXT_meshopt_compression", "mode", "\"ALL\"",
     SINEW_ERR_FORMAT, "unknown or missing mode"},
    {"meshopt-mesh.glb", "bufferViews/0/extensions/EXT_meshopt_compression", "byteStride", "3",
     SINEW_ERR_FORMAT, "byteStride 3 and count 3 do not fit mode ATTRIBUTES"},
    {"meshopt-mesh.glb", "bufferViews/2/extensions/EXT_meshopt_compression", "filter",
     "\"QUATERNION\"", SINEW_ERR_FORMAT, "do not fit mode TRIANGLES and filter QUATERNION"},
    {"meshopt-mesh.glb", "bufferViews/1/extensions/EXT_meshopt_compression", "byteStride", "4",
     SINEW_ERR_FORMAT, "do not fit mode ATTRIBUTES and filter QUATERNION"},
    {"meshopt-mesh.glb", "bufferViews/0/extensions/EXT_meshopt_compression", "byteLength", "5000",
     SINEW_ERR_FORMAT, "range 0+5000 exceeds buffer 0 length"},
    {"meshopt-mesh.glb", "bufferViews/0/extensions/EXT_meshopt_compression", "byteLength", "20",
     SINEW_ERR_FORMAT, "bufferView 0: its EXT_meshopt_compression data does not decode"},
    {"meshopt-mesh.glb", "bufferViews/0/extensions/EXT_meshopt_compression", "buffer", "1",
     SINEW_ERR_FORMAT, "its compressed bytes overlap the bytes they decode to"},
    {"meshopt-mesh.glb", "buffers/1", "byteLength", "549755813888", SINEW_ERR_UNSUPPORTED,
     "fallback buffers of 524288 MB would decode from"},
    {"meshopt-mesh.glb", "", "extensionsRequired", "[\"KHR_meshopt_compression\"]",
     SINEW_ERR_UNSUPPORTED, "unsupported: KHR_meshopt_compression"},
};

static void test_bad(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const bad_case *c = &cases[i];
        glb g = glb_read(c->file);
        set(g.json, c->path, c->key, c->json);
        sinew_error err = {0};
        sinew_result r = load(&g, &err);
        if (r != c->code || !strstr(err.message, c->expect) || !strstr(err.message, "in.glb"))
            fail_msg("case %zu (%s %s.%s = %s): code %d, message \"%s\"", i, c->file, c->path,
                     c->key, c->json, r, err.message);
        glb_free(&g);
    }
}

/* Every truncation and every single-bit flip of the binary chunk: each loads or fails as bad
 * input (malformed, refused, or decoding to numbers sinew cannot use), never a crash. */
static int bad_input(sinew_result r)
{
    return r == SINEW_OK || r == SINEW_ERR_FORMAT || r == SINEW_ERR_UNSUPPORTED ||
           r == SINEW_ERR_INVALID_VALUE;
}

static void test_mutations(void **state)
{
    (void)state;
    static const char *const files[] = {"draco-mesh.glb", "meshopt-mesh.glb"};
    for (int f = 0; f < 2; f++) {
        glb g = glb_read(files[f]);
        uint32_t ok = 0, refused = 0;
        for (size_t cut = 0; cut < g.bin_size; cut++) { /* compressed data cut short */
            glb c = glb_copy(&g);
            memset(c.bin + cut, 0, c.bin_size - cut);
            sinew_error err = {0};
            sinew_result r = load(&c, &err);
            if (!bad_input(r))
                fail_msg("%s zeroed from %zu: code %d, %s", files[f], cut, r, err.message);
            ok += r == SINEW_OK, refused += r != SINEW_OK;
            glb_free(&c);
        }
        for (size_t bit = 0; bit < g.bin_size * 8; bit++) {
            glb c = glb_copy(&g);
            c.bin[bit / 8] ^= (uint8_t)(1u << (bit % 8));
            sinew_error err = {0};
            sinew_result r = load(&c, &err);
            if (!bad_input(r))
                fail_msg("%s bit %zu flipped: code %d, %s", files[f], bit, r, err.message);
            ok += r == SINEW_OK, refused += r != SINEW_OK;
            glb_free(&c);
        }
        print_message("%s: %u mutations loaded, %u refused\n", files[f], ok, refused);
        assert_true(refused > 0); /* the decoders do notice broken data */
        glb_free(&g);
    }
}

/* The CLI: a Draco file converts to plain glTF (exit 0), --meshopt writes the extension, and
 * undecodable Draco data exits 1 naming the file and the primitive, leaving no output. */
static void test_cli(void **state)
{
    (void)state;
    char dir[256], in[512], out[512], text[4096];
    assert_non_null(test_tmpdir(dir, sizeof dir));
    snprintf(in, sizeof in, "%s/fuzz/corpus/draco-mesh.glb", SINEW_SOURCE_DIR);
    snprintf(out, sizeof out, "%s/out.glb", dir);
    static const char *const flags[] = {"", "--meshopt"};
    for (int f = 0; f < 2; f++) {
        assert_int_equal(test_run(text, sizeof text, "'%s' convert %s '%s' '%s'", test_sinew_bin(),
                                  flags[f], in, out),
                         0);
        size_t size = 0;
        char *bytes = test_read_file(out, &size);
        assert_non_null(bytes);
        assert_false(contains(bytes, size, "KHR_draco_mesh_compression"));
        assert_int_equal(contains(bytes, size, "EXT_meshopt_compression"), f);
        free(bytes);
        unlink(out);
    }
    glb g = glb_read("draco-mesh.glb");
    set(g.json, "bufferViews/2", "byteLength", "40");
    size_t size;
    uint8_t *bytes = glb_bytes(&g, &size);
    snprintf(in, sizeof in, "%s/broken.glb", dir);
    FILE *fp = fopen(in, "wb");
    fwrite(bytes, 1, size, fp);
    fclose(fp);
    free(bytes);
    glb_free(&g);
    assert_int_equal(
        test_run(text, sizeof text, "'%s' convert '%s' '%s'", test_sinew_bin(), in, out), 1);
    assert_non_null(strstr(text, in));
    assert_non_null(strstr(text, "mesh 0 primitive 0: KHR_draco_mesh_compression data"));
    assert_false(test_file_exists(out));
    unlink(in);
    rmdir(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_decodes), cmocka_unit_test(test_meshopt_output),
        cmocka_unit_test(test_bad),     cmocka_unit_test(test_mutations),
        cmocka_unit_test(test_cli),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
