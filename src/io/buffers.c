/* Buffer bytes: the GLB BIN chunk, base64 data URIs, and external files next to the file
 * (never outside its folder). */
/* realpath(3) is XSI. */
#define _XOPEN_SOURCE 700
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io/internal.h"

static int b64_value(unsigned char c)
{
    if (c >= 'A' && c <= 'Z') return c - 'A';
    if (c >= 'a' && c <= 'z') return c - 'a' + 26;
    if (c >= '0' && c <= '9') return c - '0' + 52;
    if (c == '+') return 62;
    if (c == '/') return 63;
    return -1;
}

int64_t io_base64_decode(const char *text, size_t len, uint8_t *out)
{
    /* Strict RFC 4648: only the alphabet, '=' padding at the end, no whitespace. Unpadded
     * input is accepted when its length is not 1 mod 4. */
    while (len > 0 && text[len - 1] == '=')
        len--;
    if (len % 4 == 1) return -1;
    size_t n = 0;
    uint32_t acc = 0;
    int bits = 0;
    for (size_t i = 0; i < len; i++) {
        int v = b64_value((unsigned char)text[i]);
        if (v < 0) return -1;
        acc = (acc << 6) | (uint32_t)v;
        bits += 6;
        if (bits >= 8) {
            bits -= 8;
            out[n++] = (uint8_t)(acc >> bits);
            acc &= (1u << bits) - 1u;
        }
    }
    return (int64_t)n;
}

void io_base64_encode(const uint8_t *data, size_t len, char *out)
{
    static const char tab[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    size_t o = 0, i = 0;
    for (; i + 2 < len; i += 3) {
        uint32_t v = (uint32_t)data[i] << 16 | (uint32_t)data[i + 1] << 8 | data[i + 2];
        out[o++] = tab[v >> 18];
        out[o++] = tab[(v >> 12) & 63];
        out[o++] = tab[(v >> 6) & 63];
        out[o++] = tab[v & 63];
    }
    if (i < len) {
        uint32_t v = (uint32_t)data[i] << 16 | (i + 1 < len ? (uint32_t)data[i + 1] << 8 : 0);
        out[o++] = tab[v >> 18];
        out[o++] = tab[(v >> 12) & 63];
        out[o++] = i + 1 < len ? tab[(v >> 6) & 63] : '=';
        out[o++] = '=';
    }
    out[o] = 0;
}

sinew_result io_read_file(const sinew_document *doc, const char *path, const char *what,
                          uint8_t **data, size_t *size, sinew_error *err)
{
    *data = NULL;
    *size = 0;
    FILE *f = fopen(path, "rb");
    if (!f)
        return sinew_error_set(err, SINEW_ERR_IO, "%s: cannot open %s '%s': %s", doc->name, what,
                               path, strerror(errno));
    size_t cap = 1 << 16, n = 0;
    uint8_t *buf = sinew_alloc(&doc->alloc, cap, 1);
    while (buf) {
        if (n == cap) {
            if (cap > ((size_t)1 << 31)) break; /* 2 GiB: no glTF sinew handles is that large */
            uint8_t *grown = sinew_realloc(&doc->alloc, buf, cap, cap * 2, 1);
            if (!grown) break;
            buf = grown;
            cap *= 2;
        }
        size_t got = fread(buf + n, 1, cap - n, f);
        n += got;
        if (got == 0) {
            int bad = ferror(f);
            fclose(f);
            if (bad) {
                sinew_free(&doc->alloc, buf);
                return sinew_error_set(err, SINEW_ERR_IO, "%s: cannot read %s '%s'", doc->name,
                                       what, path);
            }
            *data = buf;
            *size = n;
            return SINEW_OK;
        }
    }
    fclose(f);
    sinew_free(&doc->alloc, buf);
    return sinew_error_set(err, SINEW_ERR_OUT_OF_MEMORY, "%s: %s '%s' is too large", doc->name,
                           what, path);
}

static int hexval(char c)
{
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

/* Resolves a relative URI against base_dir into `full`, refusing anything that could leave
 * the folder: absolute paths, schemes, ".." past the top, and symlinks pointing outside. */
static sinew_result resolve_external(const sinew_document *doc, const char *ctx, const char *uri,
                                     const char *base_dir, char *full, size_t full_size,
                                     sinew_error *err)
{
    char decoded[PATH_MAX];
    size_t n = 0;
    for (const char *p = uri; *p; p++) {
        if (n + 1 >= sizeof decoded)
            return sinew_error_set(err, SINEW_ERR_FORMAT, "%s: %s: uri is too long", doc->name,
                                   ctx);
        if (*p == '%') {
            int hi = hexval(p[1]), lo = hi >= 0 ? hexval(p[2]) : -1;
            if (lo < 0 || (hi == 0 && lo == 0))
                return sinew_error_set(err, SINEW_ERR_FORMAT, "%s: %s: bad %%-escape in uri '%s'",
                                       doc->name, ctx, uri);
            decoded[n++] = (char)(hi * 16 + lo);
            p += 2;
        } else {
            decoded[n++] = *p;
        }
    }
    decoded[n] = 0;
    const char *slash = strpbrk(decoded, "/\\");
    const char *colon = strchr(decoded, ':');
    if (colon && (!slash || colon < slash))
        return sinew_error_set(err, SINEW_ERR_UNSUPPORTED,
                               "%s: %s: uri '%s' is not a relative file path (only data: URIs "
                               "and files next to the glTF are read)",
                               doc->name, ctx, uri);
    if (decoded[0] == '/' || decoded[0] == '\\' || decoded[0] == 0)
        return sinew_error_set(err, SINEW_ERR_FORMAT,
                               "%s: %s: uri '%s' escapes the file's folder (refused)", doc->name,
                               ctx, uri);
    /* Lexical walk: depth may never go below the folder itself. */
    int depth = 0;
    for (const char *p = decoded; *p;) {
        size_t len = strcspn(p, "/\\");
        if (len == 2 && p[0] == '.' && p[1] == '.')
            depth--;
        else if (len > 0 && !(len == 1 && p[0] == '.'))
            depth++;
        if (depth < 0)
            return sinew_error_set(err, SINEW_ERR_FORMAT,
                                   "%s: %s: uri '%s' escapes the file's folder (refused)",
                                   doc->name, ctx, uri);
        p += len;
        if (*p) p++;
    }
    if (!base_dir)
        return sinew_error_set(err, SINEW_ERR_ARGUMENT,
                               "%s: %s: external file '%s' refused: loaded from memory without "
                               "a base folder",
                               doc->name, ctx, uri);
    if ((size_t)snprintf(full, full_size, "%s/%s", base_dir, decoded) >= full_size)
        return sinew_error_set(err, SINEW_ERR_FORMAT, "%s: %s: uri is too long", doc->name, ctx);
    char real_base[PATH_MAX], real_full[PATH_MAX];
    if (!realpath(base_dir, real_base))
        return sinew_error_set(err, SINEW_ERR_IO, "%s: %s: folder '%s' not found", doc->name, ctx,
                               base_dir);
    if (!realpath(full, real_full))
        return sinew_error_set(err, SINEW_ERR_IO, "%s: %s: external file '%s' not found", doc->name,
                               ctx, full);
    size_t bl = strlen(real_base);
    if (strncmp(real_full, real_base, bl) != 0 || (real_full[bl] != '/' && bl != 1))
        return sinew_error_set(err, SINEW_ERR_FORMAT,
                               "%s: %s: uri '%s' escapes the file's folder through a link "
                               "(refused)",
                               doc->name, ctx, uri);
    return SINEW_OK;
}

sinew_result io_load_buffers(sinew_document *doc, const uint8_t *bin, size_t bin_size, int has_bin,
                             const char *base_dir, sinew_error *err)
{
    uint32_t count = io_count(doc, IO_BUFFERS);
    if (count == 0) return SINEW_OK;
    doc->buffers = sinew_alloc(&doc->alloc, count, sizeof *doc->buffers);
    if (!doc->buffers)
        return sinew_error_set(err, SINEW_ERR_OUT_OF_MEMORY, "%s: out of memory", doc->name);
    doc->buffer_count = count;
    for (uint32_t i = 0; i < count; i++) {
        char ctx[64];
        snprintf(ctx, sizeof ctx, "buffer %u", i);
        const cJSON *b = io_item(doc, IO_BUFFERS, i);
        uint64_t length;
        sinew_result r =
            io_get_uint(doc, ctx, b, "byteLength", -1, (uint64_t)1 << 40, &length, err);
        if (r) return r;
        const cJSON *uri = cJSON_GetObjectItemCaseSensitive(b, "uri");
        const uint8_t *src = NULL;
        size_t src_size = 0;
        uint8_t *owned = NULL;
        if (!uri) {
            if (i != 0 || !has_bin)
                return sinew_error_set(err, SINEW_ERR_FORMAT,
                                       "%s: %s has no uri and there is no GLB BIN chunk for it",
                                       doc->name, ctx);
            src = bin;
            src_size = bin_size;
        } else if (!cJSON_IsString(uri)) {
            return sinew_error_set(err, SINEW_ERR_FORMAT, "%s: %s: uri is not a string", doc->name,
                                   ctx);
        } else if (!strncmp(uri->valuestring, "data:", 5)) {
            const char *comma = strchr(uri->valuestring, ',');
            const char *b64 = strstr(uri->valuestring, ";base64,");
            if (!comma || !b64 || b64 + 7 != comma)
                return sinew_error_set(err, SINEW_ERR_UNSUPPORTED, "%s: %s: data URI is not base64",
                                       doc->name, ctx);
            size_t len = strlen(comma + 1);
            owned = sinew_alloc(&doc->alloc, len / 4 * 3 + 3, 1);
            if (!owned)
                return sinew_error_set(err, SINEW_ERR_OUT_OF_MEMORY, "%s: out of memory",
                                       doc->name);
            int64_t got = io_base64_decode(comma + 1, len, owned);
            if (got < 0) {
                sinew_free(&doc->alloc, owned);
                return sinew_error_set(err, SINEW_ERR_FORMAT,
                                       "%s: %s: data URI holds invalid base64", doc->name, ctx);
            }
            src = owned;
            src_size = (size_t)got;
        } else {
            char full[PATH_MAX + 64];
            r = resolve_external(doc, ctx, uri->valuestring, base_dir, full, sizeof full, err);
            if (!r) r = io_add_source(doc, full, err);
            if (r) return r;
            r = io_read_file(doc, full, "external buffer", &owned, &src_size, err);
            if (r) return r;
            src = owned;
        }
        if (src_size < length) {
            sinew_free(&doc->alloc, owned);
            return sinew_error_set(err, SINEW_ERR_FORMAT,
                                   "%s: %s: byteLength %llu exceeds the %zu bytes of its data",
                                   doc->name, ctx, (unsigned long long)length, src_size);
        }
        io_buffer *dst = &doc->buffers[i];
        dst->data = sinew_alloc(&doc->alloc, (size_t)length, 1);
        if (!dst->data) {
            sinew_free(&doc->alloc, owned);
            return sinew_error_set(err, SINEW_ERR_OUT_OF_MEMORY, "%s: out of memory", doc->name);
        }
        if (length) memcpy(dst->data, src, (size_t)length);
        dst->size = dst->capacity = (size_t)length;
        sinew_free(&doc->alloc, owned);
    }
    return SINEW_OK;
}
