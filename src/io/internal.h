/* Private to module io: the document's layout and the helpers its files share. */
#ifndef SINEW_IO_INTERNAL_H
#define SINEW_IO_INTERNAL_H

#include <cjson/cJSON.h>

#include "sinew/document.h"

/* glTF componentType values. */
enum {
    IO_BYTE = 5120,
    IO_UBYTE = 5121,
    IO_SHORT = 5122,
    IO_USHORT = 5123,
    IO_UINT = 5125,
    IO_FLOAT = 5126
};

/* Caps that keep hostile files from asking for more memory than they are worth. */
#define IO_MAX_WARNINGS 256
#define IO_MAX_VIRTUAL_COUNT (1u << 20)  /* elements of an accessor without a bufferView */
#define IO_MAX_MODEL_VERTICES (1u << 23) /* vertices of one model view */
/* The most bytes a file's `file` bytes of binary data may be expanded into: by the model view
 * (view.c says what it was measured on) and by decoding compressed data (compressed glTF
 * made from the shared models by gltf-transform decodes to 1.1x (Draco) to 2.5x (meshopt)
 * its binary data). 16x plus 64 MB keeps a hostile 4 MB file below 1 GB. */
#define IO_EXPANSION_BUDGET(file) (16 * (uint64_t)(file) + ((uint64_t)64 << 20))

/* The glTF top-level arrays of objects; io_kind_key gives each one's JSON key. */
/* What an animation without a name is called (by index): the model's clip name, and the
 * name three.js's GLTFLoader gives it. */
#define IO_UNNAMED_ANIMATION "animation_%u"

typedef enum io_kind {
    IO_ACCESSORS,
    IO_ANIMATIONS,
    IO_BUFFERS,
    IO_BUFFER_VIEWS,
    IO_CAMERAS,
    IO_IMAGES,
    IO_MATERIALS,
    IO_MESHES,
    IO_NODES,
    IO_SAMPLERS,
    IO_SCENES,
    IO_SKINS,
    IO_TEXTURES,
    IO_KIND_COUNT
} io_kind;

/* The items of one top-level array by position. cJSON keeps an array as a linked list, so
 * finding item i walks i links and every loop over nodes or accessors that looked items up
 * by index was quadratic in the file's size; this table makes the look-up O(1). */
typedef struct io_table {
    cJSON **items;
    uint32_t count;
    uint32_t capacity;
} io_table;

/* The bytes of one glTF buffer (index = position in the JSON's buffers[]). */
typedef struct io_buffer {
    uint8_t *data;
    size_t size;     /* bytes in use (the buffer's byteLength) */
    size_t capacity; /* bytes allocated */
} io_buffer;

struct sinew_document {
    sinew_allocator alloc;
    char *name;  /* display name used in messages */
    cJSON *root; /* the whole JSON tree (cJSON allocates with malloc) */
    /* root's top-level arrays, item by item: built once after parsing, then kept in step
     * by io_append, the only way items are added to them */
    io_table tables[IO_KIND_COUNT];
    uint32_t buffer_count;
    io_buffer *buffers;
    int32_t edit_buffer; /* buffer that edits append to, -1 until the first edit */
    /* accessors an edit took out of use (a cleared clip's, a replaced attribute's): flags by
     * accessor index, `released_count` of them; the writer drops those nothing references */
    uint8_t *released;
    uint32_t released_count;
    uint32_t warning_count;
    char **warnings;
    uint64_t decoded_bytes; /* buffer bytes that decoding compressed data added */
    uint32_t source_count;  /* the files it was read from (sinew_document_source) */
    char **sources;
};

/* document.c */
void io_warn(sinew_document *doc, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
char *io_strdup(const sinew_allocator *a, const char *s);
sinew_document *io_document_new(const sinew_allocator *a, const char *name);
/* Records `path` as one of the files the document was read from. */
sinew_result io_add_source(sinew_document *doc, const char *path, sinew_error *err);
/* The joint count of every skin, in one pass (the caller frees it with sinew_free); NULL
 * when out of memory. */
uint32_t *io_skin_joint_counts(const sinew_document *doc);
/* Appends an empty buffer slot; returns its index or -1 (out of memory). */
int32_t io_buffer_add(sinew_document *doc);

/* json.c: the top-level arrays by index, and typed access with messages
 * "<file>: <ctx>: ...". */
const char *io_kind_key(io_kind kind); /* "nodes" */
/* Fills doc->tables from doc->root, whose top-level arrays hold only objects. */
sinew_result io_tables_build(sinew_document *doc, sinew_error *err);
void io_tables_free(sinew_document *doc);
uint32_t io_count(const sinew_document *doc, io_kind kind);
/* Item `index` of a top-level array, NULL past its end. */
cJSON *io_item(const sinew_document *doc, io_kind kind, uint32_t index);
/* Appends `item` (owned from now on) to a top-level array, creating the array when absent;
 * returns its index, or -1 when out of memory (the item is then deleted). */
int32_t io_append(sinew_document *doc, io_kind kind, cJSON *item);
/* The items of any array, for look-ups by index inside loops (the caller frees the list
 * with sinew_free(a, ...)); *count = 0 and a non-NULL list for an absent or empty array,
 * NULL when out of memory. */
const cJSON **io_array_items(const sinew_allocator *a, const cJSON *array, uint32_t *count);
const cJSON *io_array(const cJSON *obj, const char *key);
/* Reads an index into an array of `target_count` items called `target` ("bufferView").
 * Absent: *out = -1 and an error only when `required`. */
sinew_result io_get_index(const sinew_document *doc, const char *ctx, const cJSON *obj,
                          const char *key, const char *target, uint32_t target_count, int required,
                          int32_t *out, sinew_error *err);
/* The same for `v` itself, a member of some object (its key names it in messages). */
sinew_result io_index_of(const sinew_document *doc, const char *ctx, const cJSON *v,
                         const char *target, uint32_t target_count, int32_t *out, sinew_error *err);
/* Reads a non-negative integer <= max; absent gives `def` (or an error when def is -1). */
sinew_result io_get_uint(const sinew_document *doc, const char *ctx, const cJSON *obj,
                         const char *key, int64_t def, uint64_t max, uint64_t *out,
                         sinew_error *err);
/* Reads exactly n finite numbers from array `key`; *present = 0 when absent. */
sinew_result io_get_floats(const sinew_document *doc, const char *ctx, const cJSON *obj,
                           const char *key, int n, float *out, int *present, sinew_error *err);
/* Building JSON. cJSON reports a failed allocation only through return values (NULL, or
 * false with the item left to the caller), so every build step goes through one of these,
 * which own `item` from the call on (deleting it on failure) and return 0 when out of memory;
 * a NULL `item` (a creation that failed) also gives 0. They let an edit build its part
 * whole, check once, and only then attach it, so that a failure leaves no half-made object.
 *
 * cJSON allocates with the process-wide hooks (cJSON_InitHooks), not with the document's
 * sinew_allocator: the hooks are global, and an embedder's own cJSON use, or two documents
 * with different allocators, would each swap them under the other. So sinew never calls
 * cJSON_InitHooks; an embedder that wants cJSON's memory elsewhere sets the hooks itself. */
/* Sets obj[key] = item, replacing any existing value. */
int io_set(cJSON *obj, const char *key, cJSON *item);
/* Adds item as obj[key] (obj has no member `key`). */
int io_add(cJSON *obj, const char *key, cJSON *item);
/* Appends item to array. */
int io_push(cJSON *array, cJSON *item);
/* Sets obj[literal_key] = item (non-NULL, owned from now on) without allocating, so that the
 * last step of an edit cannot fail: the key is stored as a constant (cJSON_StringIsConst),
 * so it must be a string literal. */
void io_put(cJSON *obj, const char *literal_key, cJSON *item);
/* obj.extensions[name] when it is an object, else NULL. */
cJSON *io_extension(const cJSON *obj, const char *name);
/* Deletes obj.extensions[name], and obj.extensions when that leaves it empty. */
void io_extension_drop(cJSON *obj, const char *name);
/* Deletes `name` from extensionsUsed and extensionsRequired (and each list it empties). */
void io_extension_unlist(sinew_document *doc, const char *name);
/* A new array of n numbers, or NULL when out of memory. */
cJSON *io_float_array(const float *v, int n);
/* 1 when cJSON would parse text[0..size) given the memory: a failed cJSON parse of text that
 * is parsable ran out of memory. */
int io_json_parsable(const char *text, size_t size);
/* "<name>: out of memory" as SINEW_ERR_OUT_OF_MEMORY. */
sinew_result io_oom(const sinew_document *doc, sinew_error *err);

/* utf8.c: replaces, in every key and string of the parsed JSON, what is not UTF-8: with
 * U+FFFD, or in a "uri" with %-escapes of the same bytes; warns how many were changed. */
sinew_result io_repair_utf8(sinew_document *doc, sinew_error *err);

/* glb.c */
sinew_result io_glb_split(const sinew_document *doc, const uint8_t *data, size_t size,
                          const uint8_t **json, size_t *json_size, const uint8_t **bin,
                          size_t *bin_size, int *has_bin, sinew_error *err);
int io_is_glb(const void *data, size_t size);

/* buffers.c */
/* The bytes in all buffers less what decoding added: the base of IO_EXPANSION_BUDGET. */
uint64_t io_binary_bytes(const sinew_document *doc);
/* repair.c: repairs skin weights with one sensible reading, with warnings (after io_validate). */
sinew_result io_repair_weights(sinew_document *doc, sinew_error *err);
/* repair.c: a skin's skeleton that is not a common root of its joints is set to their closest
 * common root (or dropped), with a warning (after io_validate). */
sinew_result io_repair_skeletons(sinew_document *doc, sinew_error *err);
sinew_result io_load_buffers(sinew_document *doc, const uint8_t *bin, size_t bin_size, int has_bin,
                             const char *base_dir, sinew_error *err);
/* Reads a regular file with the document's allocator: all of it (want = IO_READ_WHOLE) or
 * its first `want` bytes (an external buffer's byteLength), which it must hold. FIFOs,
 * devices, folders and sockets are refused without blocking on or reading them; `label`
 * names the file in messages ("buffer 0 'body.bin'"). */
#define IO_READ_WHOLE UINT64_MAX
#define IO_MAX_FILE_BYTES ((uint64_t)1 << 31) /* 2 GiB: no glTF sinew handles is that large */
sinew_result io_read_file(const sinew_document *doc, const char *path, const char *label,
                          uint64_t want, uint8_t **data, size_t *size, sinew_error *err);
/* Decodes strict base64 into `out` (capacity >= 3 * len / 4); returns -1 on a bad input. */
int64_t io_base64_decode(const char *text, size_t len, uint8_t *out);
/* Encodes into `out` (capacity >= 4 * ((len + 2) / 3) + 1), NUL-terminated. */
void io_base64_encode(const uint8_t *data, size_t len, char *out);

/* accessor.c: a validated view of one accessor's bytes. */
typedef struct io_accessor {
    uint32_t index;
    uint32_t count;          /* elements */
    uint32_t components;     /* 1 (SCALAR) .. 16 (MAT4) */
    uint32_t rows;           /* components per column (== components when not a matrix) */
    uint32_t component_type; /* IO_* */
    uint32_t component_size; /* bytes */
    uint32_t column_bytes;   /* bytes per matrix column including glTF's 4-byte padding */
    int normalized;
    const uint8_t *data; /* first element, NULL when the accessor has no bufferView */
    size_t stride;       /* bytes between elements */
    uint32_t sparse_count;
    const uint8_t *sparse_indices;
    uint32_t sparse_index_size;   /* 1, 2 or 4 bytes */
    const uint8_t *sparse_values; /* tightly packed elements */
    size_t sparse_stride;
} io_accessor;

/* Validates accessor `index` (ranges, strides, sparse indices) and fills `out`. */
sinew_result io_accessor_resolve(const sinew_document *doc, uint32_t index, io_accessor *out,
                                 sinew_error *err);
/* count * components floats, normalized integers dequantised as glTF 3.11 says. */
void io_accessor_read_float(const io_accessor *a, float *out);
/* count * components unsigned integers (floats truncated, negatives 0). */
void io_accessor_read_u32(const io_accessor *a, uint32_t *out);
/* Number of components of a glTF type string ("VEC3" -> 3), 0 when unknown. */
uint32_t io_type_components(const char *type, uint32_t *rows);

/* validate.c */
sinew_result io_validate_top(sinew_document *doc, sinew_error *err);
/* The bufferViews alone (io_validate checks them too), for what reads views before it. */
sinew_result io_validate_views(sinew_document *doc, sinew_error *err);
/* 1 for the extensions sinew reads (quantized attributes) or passes through unread because
 * they change only materials, textures, lights or metadata: none of them points at an
 * accessor or a bufferView from anywhere but images. */
int io_extension_is_known(const char *name);
sinew_result io_validate(sinew_document *doc, sinew_error *err);

/* compact.c: the output JSON (a copy of the document's) without the accessors the document
 * released that nothing references any more, nor the bufferViews only they used; every
 * index to what remains is renumbered. Does nothing when the file names an extension
 * io_extension_is_known does not know (it might point at an accessor). */
sinew_result io_compact(const sinew_document *doc, cJSON *json, sinew_error *err);
/* Makes room to mark every accessor the document has, and `more` an edit is about to add, as
 * released; 0 when out of memory. An edit that releases calls it before it changes anything,
 * so that an edit either happens whole, releases included, or not at all. */
int io_reserve_released(sinew_document *doc, uint32_t more);
/* Marks accessor `index` as no longer used by the edit that replaced it (allocates nothing:
 * see io_reserve_released). */
void io_release_accessor(sinew_document *doc, int64_t index);

/* Compressed glTF, decoded on load into plain bufferViews and accessors, the extension then
 * dropped from the file. Only in builds with SINEW_COMPRESSION (libdraco, libmeshoptimizer);
 * without it a file requiring these extensions is refused. */
/* A buffer marked as EXT_meshopt_compression's fallback: its bytes are decoded, never read. */
int io_meshopt_is_fallback(const cJSON *buffer);
/* Decodes every EXT_meshopt_compression bufferView into its own range (after io_load_buffers,
 * before validation). */
sinew_result io_meshopt_decode(sinew_document *doc, sinew_error *err);
/* Encodes the packed bufferViews of an output (write.c's pack) as EXT_meshopt_compression,
 * the required form: `bin` of `*size` bytes is replaced by a new malloc'ed block holding the
 * compressed and the plain views; *compressed_any says whether the compressed views need
 * the fallback buffer 1 (of the old *size bytes) that the caller adds. */
sinew_result io_meshopt_encode(const sinew_document *doc, cJSON *json, uint8_t **bin, size_t *size,
                               int *compressed_any, sinew_error *err);
/* draco.c: decodes every KHR_draco_mesh_compression primitive into new bufferViews (after
 * io_validate_views). */
sinew_result io_draco_decode_all(sinew_document *doc, sinew_error *err);

/* edit.c: appends `size` bytes to the edit buffer as a new bufferView; returns its index or
 * -1 (out of memory). */
int32_t io_add_view(sinew_document *doc, const void *data, size_t size);
/* edit.c: appends `size` bytes to the edit buffer as a new bufferView and an accessor
 * describing them; returns the accessor index or -1 (err set). */
int32_t io_add_accessor(sinew_document *doc, const void *data, uint32_t component_type,
                        const char *type, uint32_t count, int normalized, int with_min_max,
                        sinew_error *err);
/* Appends an animation named `name` with no channels; returns its index or -1 when out of
 * memory (the document is then unchanged). */
int32_t io_add_animation(sinew_document *doc, const char *name);

#endif
