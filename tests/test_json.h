/* JSON helpers shared by the CLI tests that read `--json` output (header-only; the test links
 * cJSON). */
#ifndef SINEW_TEST_JSON_H
#define SINEW_TEST_JSON_H

#include "test_util.h"

#include <cjson/cJSON.h>

/* Standard output alone of `command` (its stderr to `err_path`), which must exit 0, parsed as
 * one JSON document with nothing after it (the caller deletes it). */
static inline cJSON *test_run_json(const char *command, const char *err_path)
{
    static char text[1 << 20];
    const int code = test_run(text, sizeof text, "{ %s 2>'%s'; }", command, err_path);
    if (code) fprintf(stderr, "%s: exit %d: %s\n", command, code, text);
    assert_int_equal(code, 0);
    const char *end = NULL;
    cJSON *j = cJSON_ParseWithOpts(text, &end, 1);
    if (!j) fprintf(stderr, "%s: not one JSON document: %.300s\n", command, text);
    assert_non_null(j);
    return j;
}

/* o[key], which must be there. */
static inline const cJSON *test_json_member(const cJSON *o, const char *key)
{
    const cJSON *v = cJSON_GetObjectItem(o, key);
    if (!v) fail_msg("no member \"%s\"", key);
    return v;
}

/* o[key], which must be a number. */
static inline double test_json_number(const cJSON *o, const char *key)
{
    const cJSON *v = test_json_member(o, key);
    if (!cJSON_IsNumber(v)) fail_msg("\"%s\" is not a number", key);
    return v->valuedouble;
}

#endif
