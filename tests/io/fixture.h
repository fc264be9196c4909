/* A tiny valid skinned glTF built in memory (4 vertices, 2 triangles, 2 joints, one clip),
 * and helpers to break it in one place and serialise it as GLB or .gltf. Test code only. */
#ifndef SINEW_TEST_IO_FIXTURE_H
#define SINEW_TEST_IO_FIXTURE_H

#include <cjson/cJSON.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* Byte offsets of each view in the BIN chunk. */
enum {
    FX_POS = 0,      /* 4 x VEC3 float, 48 bytes */
    FX_IDX = 48,     /* 6 x u16, 12 bytes */
    FX_JOINTS = 60,  /* 4 x VEC4 u8, 16 bytes */
    FX_WEIGHTS = 76, /* 4 x VEC4 float, 64 bytes */
    FX_IBM = 140,    /* 2 x MAT4 float, 128 bytes */
    FX_TIMES = 268,  /* 3 x float, 12 bytes */
    FX_ROT = 280,    /* 3 x VEC4 float, 48 bytes */
    FX_BIN_SIZE = 328
};

typedef struct fixture {
    cJSON *json;
    uint8_t bin[FX_BIN_SIZE];
} fixture;

static const char fx_json[] =
    "{\"asset\":{\"version\":\"2.0\"},\"scene\":0,\"scenes\":[{\"nodes\":[0,2]}],"
    "\"nodes\":[{\"name\":\"root\",\"children\":[1]},"
    "{\"name\":\"bone\",\"translation\":[0,1,0]},"
    "{\"name\":\"body\",\"mesh\":0,\"skin\":0}],"
    "\"meshes\":[{\"primitives\":[{\"attributes\":{\"POSITION\":0,\"JOINTS_0\":2,"
    "\"WEIGHTS_0\":3},\"indices\":1}]}],"
    "\"skins\":[{\"joints\":[0,1],\"inverseBindMatrices\":4}],"
    "\"animations\":[{\"name\":\"wave\",\"channels\":[{\"sampler\":0,\"target\":{\"node\":1,"
    "\"path\":\"rotation\"}}],\"samplers\":[{\"input\":5,\"output\":6}]}],"
    "\"buffers\":[{\"byteLength\":328}],"
    "\"bufferViews\":[{\"buffer\":0,\"byteOffset\":0,\"byteLength\":48},"
    "{\"buffer\":0,\"byteOffset\":48,\"byteLength\":12},"
    "{\"buffer\":0,\"byteOffset\":60,\"byteLength\":16},"
    "{\"buffer\":0,\"byteOffset\":76,\"byteLength\":64},"
    "{\"buffer\":0,\"byteOffset\":140,\"byteLength\":128},"
    "{\"buffer\":0,\"byteOffset\":268,\"byteLength\":12},"
    "{\"buffer\":0,\"byteOffset\":280,\"byteLength\":48}],"
    "\"accessors\":[{\"bufferView\":0,\"componentType\":5126,\"count\":4,\"type\":\"VEC3\","
    "\"min\":[0,0,0],\"max\":[1,2,0]},"
    "{\"bufferView\":1,\"componentType\":5123,\"count\":6,\"type\":\"SCALAR\"},"
    "{\"bufferView\":2,\"componentType\":5121,\"count\":4,\"type\":\"VEC4\"},"
    "{\"bufferView\":3,\"componentType\":5126,\"count\":4,\"type\":\"VEC4\"},"
    "{\"bufferView\":4,\"componentType\":5126,\"count\":2,\"type\":\"MAT4\"},"
    "{\"bufferView\":5,\"componentType\":5126,\"count\":3,\"type\":\"SCALAR\",\"min\":[0],"
    "\"max\":[1]},"
    "{\"bufferView\":6,\"componentType\":5126,\"count\":3,\"type\":\"VEC4\"}]}";

static inline void fx_put_f(uint8_t *p, float v)
{
    memcpy(p, &v, 4);
}

static inline void fixture_init(fixture *fx)
{
    fx->json = cJSON_Parse(fx_json);
    memset(fx->bin, 0, sizeof fx->bin);
    /* A 1 x 2 quad standing on y = 0: bottom vertices on joint 0, top ones on joint 1. */
    static const float pos[12] = {0, 0, 0, 1, 0, 0, 1, 2, 0, 0, 2, 0};
    for (int i = 0; i < 12; i++)
        fx_put_f(fx->bin + FX_POS + 4 * i, pos[i]);
    static const uint16_t idx[6] = {0, 1, 2, 0, 2, 3};
    memcpy(fx->bin + FX_IDX, idx, sizeof idx);
    static const uint8_t joints[16] = {0, 1, 0, 0, 0, 1, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0};
    memcpy(fx->bin + FX_JOINTS, joints, sizeof joints);
    static const float w[16] = {0.75f, 0.25f, 0, 0, 0.75f, 0.25f, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0};
    for (int i = 0; i < 16; i++)
        fx_put_f(fx->bin + FX_WEIGHTS + 4 * i, w[i]);
    /* IBM of joint 0 = identity, of joint 1 = translate(0, -1, 0). */
    for (int j = 0; j < 2; j++)
        for (int k = 0; k < 16; k++)
            fx_put_f(fx->bin + FX_IBM + 64 * j + 4 * k,
                     k % 5 == 0 ? 1.0f : (j == 1 && k == 13 ? -1.0f : 0.0f));
    static const float t[3] = {0, 0.5f, 1};
    for (int i = 0; i < 3; i++)
        fx_put_f(fx->bin + FX_TIMES + 4 * i, t[i]);
    static const float q[12] = {0, 0, 0, 1, 0, 0, 0.38268343f, 0.92387953f, 0, 0, 0, 1};
    for (int i = 0; i < 12; i++)
        fx_put_f(fx->bin + FX_ROT + 4 * i, q[i]);
}

static inline void fixture_free(fixture *fx)
{
    cJSON_Delete(fx->json);
}

/* obj at a path like "accessors/0" or "nodes/1" (arrays by index, objects by key). */
static inline cJSON *fx_at(cJSON *root, const char *path)
{
    char buf[256];
    strncpy(buf, path, sizeof buf - 1);
    buf[sizeof buf - 1] = 0;
    cJSON *cur = root;
    for (char *tok = strtok(buf, "/"); tok && cur; tok = strtok(NULL, "/"))
        cur = cJSON_IsArray(cur) ? cJSON_GetArrayItem(cur, atoi(tok))
                                 : cJSON_GetObjectItemCaseSensitive(cur, tok);
    return cur;
}

/* Sets key in the object at `path` to a JSON value given as text. */
static inline void fx_set(fixture *fx, const char *path, const char *key, const char *json)
{
    cJSON *obj = fx_at(fx->json, path);
    cJSON *v = cJSON_Parse(json);
    if (!obj || !v) abort();
    if (cJSON_GetObjectItemCaseSensitive(obj, key))
        cJSON_ReplaceItemInObjectCaseSensitive(obj, key, v);
    else
        cJSON_AddItemToObject(obj, key, v);
}

static inline void fx_del(fixture *fx, const char *path, const char *key)
{
    cJSON_DeleteItemFromObjectCaseSensitive(fx_at(fx->json, path), key);
}

static inline void fx_put32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)v, p[1] = (uint8_t)(v >> 8), p[2] = (uint8_t)(v >> 16),
    p[3] = (uint8_t)(v >> 24);
}

/* GLB bytes (malloc'ed) of the fixture. */
static inline uint8_t *fixture_glb(const fixture *fx, size_t *size)
{
    char *text = cJSON_PrintUnformatted(fx->json);
    size_t jl = strlen(text), jp = (jl + 3) & ~(size_t)3;
    size_t total = 12 + 8 + jp + 8 + FX_BIN_SIZE;
    uint8_t *g = calloc(1, total);
    fx_put32(g, 0x46546C67u);
    fx_put32(g + 4, 2);
    fx_put32(g + 8, (uint32_t)total);
    fx_put32(g + 12, (uint32_t)jp);
    fx_put32(g + 16, 0x4E4F534Au);
    memcpy(g + 20, text, jl);
    memset(g + 20 + jl, ' ', jp - jl);
    fx_put32(g + 20 + jp, FX_BIN_SIZE);
    fx_put32(g + 24 + jp, 0x004E4942u);
    memcpy(g + 28 + jp, fx->bin, FX_BIN_SIZE);
    free(text);
    *size = total;
    return g;
}

/* .gltf text (malloc'ed) with the BIN as a base64 data URI in buffer 0. */
static inline char *fixture_gltf(const fixture *fx)
{
    static const char tab[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    char uri[64 + FX_BIN_SIZE * 2] = "data:application/octet-stream;base64,";
    size_t o = strlen(uri);
    for (size_t i = 0; i < FX_BIN_SIZE; i += 3) {
        uint32_t v = (uint32_t)fx->bin[i] << 16 |
                     (i + 1 < FX_BIN_SIZE ? (uint32_t)fx->bin[i + 1] << 8 : 0) |
                     (i + 2 < FX_BIN_SIZE ? fx->bin[i + 2] : 0);
        uri[o++] = tab[v >> 18];
        uri[o++] = tab[(v >> 12) & 63];
        uri[o++] = i + 1 < FX_BIN_SIZE ? tab[(v >> 6) & 63] : '=';
        uri[o++] = i + 2 < FX_BIN_SIZE ? tab[v & 63] : '=';
    }
    uri[o] = 0;
    cJSON *copy = cJSON_Duplicate(fx->json, 1);
    cJSON *b0 = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(copy, "buffers"), 0);
    if (!cJSON_GetObjectItemCaseSensitive(b0, "uri")) cJSON_AddStringToObject(b0, "uri", uri);
    char *text = cJSON_PrintUnformatted(copy);
    cJSON_Delete(copy);
    return text;
}

#endif
