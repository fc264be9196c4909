/* Strings of the loaded JSON that are not UTF-8, repaired once after parsing. glTF requires
 * its JSON to be UTF-8 (glTF 2.0 specification, section 3.2), strict JSON parsers refuse
 * anything else, and cJSON keeps bytes as they are: repairing here, where the document is
 * made, keeps every message, view and written file valid whatever the input held. */
#include "internal.h"

#include <stdio.h>
#include <string.h>

typedef struct repair {
    uint32_t strings; /* strings given U+FFFD */
    uint32_t uris;    /* uri strings given %-escapes */
    int out_of_memory;
} repair;

/* `text` with every byte of each part that is not UTF-8 written as %HH: a URI's %-escapes
 * decode to the very bytes they replace, so the repaired uri names the same file. */
static char *percent_escaped(const char *text)
{
    size_t n = strlen(text), need = 0;
    for (size_t i = 0; i < n;) {
        uint32_t cp;
        size_t len = sinew_utf8_decode(text + i, n - i, &cp);
        need += cp == SINEW_UTF8_INVALID ? 3 * len : len;
        i += len;
    }
    char *out = cJSON_malloc(need + 1);
    if (!out) return NULL;
    size_t o = 0;
    for (size_t i = 0; i < n;) {
        uint32_t cp;
        size_t len = sinew_utf8_decode(text + i, n - i, &cp);
        for (size_t k = 0; k < len; k++, o += cp == SINEW_UTF8_INVALID ? 3 : 1)
            if (cp == SINEW_UTF8_INVALID)
                snprintf(out + o, 4, "%%%02X", (unsigned char)text[i + k]);
            else
                out[o] = text[i + k];
        i += len;
    }
    out[o] = 0;
    return out;
}

/* `text` with U+FFFD for each part that is not UTF-8 (allocated as cJSON allocates). */
static char *replaced(const char *text)
{
    size_t need = sinew_utf8_repair(NULL, 0, text, NULL);
    char *out = cJSON_malloc(need + 1);
    if (out) sinew_utf8_repair(out, need + 1, text, NULL);
    return out;
}

/* Replaces *text (owned by cJSON) with its repair when it is not UTF-8. */
static void repair_string(char **text, int is_uri, repair *n)
{
    uint32_t bad = 0;
    sinew_utf8_repair(NULL, 0, *text, &bad);
    if (!bad) return;
    char *fixed = is_uri ? percent_escaped(*text) : replaced(*text);
    if (!fixed) {
        n->out_of_memory = 1;
        return;
    }
    cJSON_free(*text);
    *text = fixed;
    if (is_uri)
        n->uris++;
    else
        n->strings++;
}

/* Every key and string value of `item`, its siblings and everything under them. */
static void repair_tree(cJSON *item, repair *n)
{
    for (; item && !n->out_of_memory; item = item->next) {
        if (item->string && !(item->type & cJSON_StringIsConst)) repair_string(&item->string, 0, n);
        if (cJSON_IsString(item) && item->valuestring && !(item->type & cJSON_IsReference))
            repair_string(&item->valuestring, item->string && !strcmp(item->string, "uri"), n);
        repair_tree(item->child, n);
    }
}

sinew_result io_repair_utf8(sinew_document *doc, sinew_error *err)
{
    repair n = {0, 0, 0};
    repair_tree(doc->root, &n);
    if (n.out_of_memory)
        return sinew_error_set(err, SINEW_ERR_OUT_OF_MEMORY, "%s: out of memory", doc->name);
    if (n.strings)
        io_warn(doc, "%u string%s had invalid UTF-8: replaced with U+FFFD", n.strings,
                n.strings == 1 ? "" : "s");
    if (n.uris)
        io_warn(doc, "%u uri%s had invalid UTF-8: written as %%-escapes (the same file names)",
                n.uris, n.uris == 1 ? "" : "s");
    return SINEW_OK;
}
