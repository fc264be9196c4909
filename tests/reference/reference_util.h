/* What the reference helpers (reference_skin, reference_joints) share: JSON of a vec3 and
 * writing a whole text file. Test tools only. */
#ifndef SINEW_REFERENCE_UTIL_H
#define SINEW_REFERENCE_UTIL_H

#include <stdio.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "sinew/document.h"
#include "sinew/model.h"

static inline cJSON *vec3_json(sinew_vec3 v)
{
    cJSON *a = cJSON_CreateArray();
    cJSON_AddItemToArray(a, cJSON_CreateNumber(v.x));
    cJSON_AddItemToArray(a, cJSON_CreateNumber(v.y));
    cJSON_AddItemToArray(a, cJSON_CreateNumber(v.z));
    return a;
}

/* Writes `text` to `path`; 1 on success. */
static inline int write_text(const char *path, const char *text)
{
    FILE *f = fopen(path, "wb");
    if (!f) return 0;
    size_t n = strlen(text);
    int ok = fwrite(text, 1, n, f) == n;
    return fclose(f) == 0 && ok;
}

/* Loads `path` and its model; on failure prints "<tool>: <code>: <message>" and returns 0
 * with nothing left to free. */
static inline int load_model(const char *tool, const char *path, sinew_document **doc,
                             sinew_model **model)
{
    sinew_error err = {0};
    *doc = NULL;
    *model = NULL;
    if (sinew_document_load_file(path, NULL, doc, &err) != SINEW_OK ||
        sinew_model_from_document(*doc, NULL, model, &err) != SINEW_OK) {
        fprintf(stderr, "%s: %s: %s\n", tool, sinew_result_name(err.code), err.message);
        sinew_document_free(*doc);
        *doc = NULL;
        return 0;
    }
    return 1;
}

#endif
