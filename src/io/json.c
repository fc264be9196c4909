/* Typed, range-checked reads from the cJSON tree, with messages naming file, object, key. */
#include <math.h>
#include <string.h>

#include "io/internal.h"

const cJSON *io_array(const cJSON *obj, const char *key)
{
    const cJSON *a = cJSON_GetObjectItemCaseSensitive(obj, key);
    return cJSON_IsArray(a) ? a : NULL;
}

uint32_t io_count(const cJSON *root, const char *key)
{
    const cJSON *a = io_array(root, key);
    int n = a ? cJSON_GetArraySize(a) : 0;
    return n > 0 ? (uint32_t)n : 0;
}

const cJSON *io_item(const cJSON *root, const char *key, uint32_t index)
{
    const cJSON *a = io_array(root, key);
    return a ? cJSON_GetArrayItem(a, (int)index) : NULL;
}

/* 1 when `v` is an integer in [0, max]. */
static int integral(double v, uint64_t max)
{
    return isfinite(v) && v >= 0.0 && v <= (double)max && floor(v) == v;
}

sinew_result io_get_index(const sinew_document *doc, const char *ctx, const cJSON *obj,
                          const char *key, const char *target, uint32_t target_count, int required,
                          int32_t *out, sinew_error *err)
{
    *out = -1;
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
    if (!v) {
        if (!required) return SINEW_OK;
        return sinew_error_set(err, SINEW_ERR_FORMAT, "%s: %s: missing \"%s\"", doc->name, ctx,
                               key);
    }
    if (!cJSON_IsNumber(v) || !integral(v->valuedouble, INT32_MAX))
        return sinew_error_set(err, SINEW_ERR_FORMAT, "%s: %s: \"%s\" is not a valid index",
                               doc->name, ctx, key);
    if (v->valuedouble >= (double)target_count)
        return sinew_error_set(err, SINEW_ERR_FORMAT,
                               "%s: %s: %s %.0f does not exist (the file has %u)", doc->name, ctx,
                               target, v->valuedouble, target_count);
    *out = (int32_t)v->valuedouble;
    return SINEW_OK;
}

sinew_result io_get_uint(const sinew_document *doc, const char *ctx, const cJSON *obj,
                         const char *key, int64_t def, uint64_t max, uint64_t *out,
                         sinew_error *err)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
    if (!v) {
        if (def < 0)
            return sinew_error_set(err, SINEW_ERR_FORMAT, "%s: %s: missing \"%s\"", doc->name, ctx,
                                   key);
        *out = (uint64_t)def;
        return SINEW_OK;
    }
    if (!cJSON_IsNumber(v) || !integral(v->valuedouble, max))
        return sinew_error_set(err, SINEW_ERR_FORMAT,
                               "%s: %s: \"%s\" must be an integer in [0, %llu]", doc->name, ctx,
                               key, (unsigned long long)max);
    *out = (uint64_t)v->valuedouble;
    return SINEW_OK;
}

sinew_result io_get_floats(const sinew_document *doc, const char *ctx, const cJSON *obj,
                           const char *key, int n, float *out, int *present, sinew_error *err)
{
    const cJSON *a = cJSON_GetObjectItemCaseSensitive(obj, key);
    *present = 0;
    if (!a) return SINEW_OK;
    if (!cJSON_IsArray(a) || cJSON_GetArraySize(a) != n)
        return sinew_error_set(err, SINEW_ERR_FORMAT, "%s: %s: \"%s\" must hold %d numbers",
                               doc->name, ctx, key, n);
    int i = 0;
    const cJSON *v;
    cJSON_ArrayForEach(v, a)
    {
        if (!cJSON_IsNumber(v))
            return sinew_error_set(err, SINEW_ERR_FORMAT, "%s: %s: \"%s\" must hold %d numbers",
                                   doc->name, ctx, key, n);
        float f = (float)v->valuedouble;
        if (!isfinite(f))
            return sinew_error_set(err, SINEW_ERR_INVALID_VALUE, "%s: %s: \"%s\"[%d] is not finite",
                                   doc->name, ctx, key, i);
        out[i++] = f;
    }
    *present = 1;
    return SINEW_OK;
}

void io_set(cJSON *obj, const char *key, cJSON *item)
{
    if (cJSON_GetObjectItemCaseSensitive(obj, key))
        cJSON_ReplaceItemInObjectCaseSensitive(obj, key, item);
    else
        cJSON_AddItemToObject(obj, key, item);
}

cJSON *io_float_array(const float *v, int n)
{
    cJSON *a = cJSON_CreateArray();
    for (int i = 0; i < n; i++)
        cJSON_AddItemToArray(a, cJSON_CreateNumber((double)v[i]));
    return a;
}
