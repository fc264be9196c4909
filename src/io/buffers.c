/* Buffer bytes: the GLB BIN chunk, base64 data URIs, and external files next to the file
 * (never outside its folder). */
/* realpath(3) is XSI. */
#define _XOPEN_SOURCE 700
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

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

/* What a file that is not a regular one is, for messages. */
static const char *file_kind(mode_t mode)
{
    if (S_ISFIFO(mode)) return "a FIFO";
    if (S_ISCHR(mode)) return "a character device";
    if (S_ISBLK(mode)) return "a block device";
    if (S_ISDIR(mode)) return "a folder";
    if (S_ISSOCK(mode)) return "a socket";
    return "of an unknown kind";
}

/* Reads n bytes into buf; returns the count read (less at end of file) or -1. */
static int64_t read_fully(int fd, uint8_t *buf, size_t n)
{
    size_t got = 0;
    while (got < n) {
        ssize_t r = read(fd, buf + got, n - got);
        if (r < 0 && errno == EINTR) continue;
        if (r < 0) return -1;
        if (r == 0) break;
        got += (size_t)r;
    }
    return (int64_t)got;
}

/* Checks the opened file and how much of it to read: all of it (want == IO_READ_WHOLE) or
 * the first `want` bytes, which it must hold. */
static sinew_result read_size(const sinew_document *doc, int fd, const char *label, uint64_t want,
                              size_t *n, sinew_error *err)
{
    struct stat st;
    if (fstat(fd, &st) != 0)
        return sinew_error_set(err, SINEW_ERR_IO, "%s: cannot read %s: %s", doc->name, label,
                               strerror(errno));
    if (!S_ISREG(st.st_mode))
        return sinew_error_set(err, SINEW_ERR_IO, "%s: %s is %s, not a regular file", doc->name,
                               label, file_kind(st.st_mode));
    uint64_t have = (uint64_t)st.st_size;
    if (want == IO_READ_WHOLE) want = have;
    if (want > IO_MAX_FILE_BYTES)
        return sinew_error_set(err, SINEW_ERR_UNSUPPORTED,
                               "%s: %s: %llu bytes is more than the 2 GiB sinew reads", doc->name,
                               label, (unsigned long long)want);
    if (have < want)
        return sinew_error_set(
            err, SINEW_ERR_FORMAT, "%s: %s: byteLength %llu exceeds the %llu bytes of the file",
            doc->name, label, (unsigned long long)want, (unsigned long long)have);
    *n = (size_t)want;
    return SINEW_OK;
}

sinew_result io_read_file(const sinew_document *doc, const char *path, const char *label,
                          uint64_t want, uint8_t **data, size_t *size, sinew_error *err)
{
    *data = NULL;
    *size = 0;
    /* O_NONBLOCK so that opening a FIFO returns at once instead of waiting for a writer;
     * regular files ignore it, and anything else is refused below before a read. */
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) {
        int e = errno;
        struct stat st; /* a socket cannot be opened at all: say what it is */
        if (stat(path, &st) == 0 && !S_ISREG(st.st_mode))
            return sinew_error_set(err, SINEW_ERR_IO, "%s: %s is %s, not a regular file", doc->name,
                                   label, file_kind(st.st_mode));
        return sinew_error_set(err, SINEW_ERR_IO, "%s: cannot open %s: %s", doc->name, label,
                               strerror(e));
    }
    size_t n = 0;
    sinew_result r = read_size(doc, fd, label, want, &n, err);
    uint8_t *buf = r ? NULL : sinew_alloc(&doc->alloc, n, 1);
    if (!r && !buf)
        r = sinew_error_set(err, SINEW_ERR_OUT_OF_MEMORY, "%s: out of memory", doc->name);
    int64_t got = r ? 0 : read_fully(fd, buf, n);
    if (!r && got < 0)
        r = sinew_error_set(err, SINEW_ERR_IO, "%s: cannot read %s: %s", doc->name, label,
                            strerror(errno));
    else if (!r && (uint64_t)got < n && want != IO_READ_WHOLE) /* shrank since fstat */
        r = sinew_error_set(err, SINEW_ERR_FORMAT,
                            "%s: %s: byteLength %llu exceeds the %lld bytes of the file", doc->name,
                            label, (unsigned long long)want, (long long)got);
    close(fd);
    if (r) {
        sinew_free(&doc->alloc, buf);
        return r;
    }
    *data = buf;
    *size = (size_t)got;
    return SINEW_OK;
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

/* Reads the first `length` bytes of the external file `uri` straight into `dst`. */
static sinew_result read_external(sinew_document *doc, const char *ctx, const char *uri,
                                  const char *base_dir, uint64_t length, io_buffer *dst,
                                  sinew_error *err)
{
    char full[PATH_MAX + 64], label[PATH_MAX + 64];
    sinew_result r = resolve_external(doc, ctx, uri, base_dir, full, sizeof full, err);
    if (!r) r = io_add_source(doc, full, err);
    if (r) return r;
    snprintf(label, sizeof label, "%s '%s'", ctx, uri);
    r = io_read_file(doc, full, label, length, &dst->data, &dst->size, err);
    dst->capacity = dst->size;
    return r;
}

uint64_t io_binary_bytes(const sinew_document *doc)
{
    uint64_t n = 0;
    for (uint32_t i = 0; i < doc->buffer_count; i++)
        n += doc->buffers[i].size;
    return n - doc->decoded_bytes;
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
#ifdef SINEW_COMPRESSION
        if (io_meshopt_is_fallback(b)) continue; /* io_meshopt_decode fills it */
#endif
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
            r = read_external(doc, ctx, uri->valuestring, base_dir, length, &doc->buffers[i], err);
            if (r) return r;
            continue; /* read in place */
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
