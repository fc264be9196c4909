/* sinew document: a glTF 2.0 file kept whole (JSON tree + buffers), and the model view of it.
 *
 * The document is the source of truth for everything sinew does not understand: materials,
 * textures, extensions, extras, cameras, other meshes and animations pass through untouched.
 * Edits append (new nodes, accessors, buffer data, channels) or replace exactly what they
 * change. Loading validates everything the model view reads, so a loaded document never
 * makes later calls read out of bounds.
 *
 * Compressed geometry is decoded on load (in builds with SINEW_COMPRESSION, the default):
 * KHR_draco_mesh_compression primitives and EXT_meshopt_compression bufferViews become
 * plain bufferViews and the extension leaves extensionsUsed/extensionsRequired, so the
 * document holds and writes uncompressed data; KHR_mesh_quantization attributes are read
 * as they are (normalised or integer) and written back unchanged. Writing compresses only
 * when asked (sinew_write_options.meshopt).
 */
#ifndef SINEW_DOCUMENT_H
#define SINEW_DOCUMENT_H

#include "sinew/base.h"
#include "sinew/math.h"
#include "sinew/model.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct sinew_document sinew_document; /* opaque */

typedef struct sinew_load_options {
    const sinew_allocator *allocator; /* default: malloc */
    /* Folder that external buffer URIs resolve against. Default: the file's own folder for
     * sinew_document_load_file; for sinew_document_load_memory external URIs are refused
     * unless this is set. URIs that escape this folder are always refused. */
    const char *base_dir;
    /* Name used in messages, e.g. "Fox.glb". Default: the path, or "<memory>". */
    const char *display_name;
} sinew_load_options;

/* Reads and validates a .glb or .gltf file. On failure *out is NULL and err says why.
 * Only regular files are read, the input and its external buffers alike: a FIFO, device,
 * folder or socket is refused (SINEW_ERR_IO) without blocking on it; an external buffer is
 * read only up to its byteLength; files over 2 GiB and extensionsRequired that sinew cannot
 * read are refused (SINEW_ERR_UNSUPPORTED). */
sinew_result sinew_document_load_file(const char *path, const sinew_load_options *options,
                                      sinew_document **out, sinew_error *err);
/* The same from bytes in memory (GLB or JSON text). The bytes are copied. */
sinew_result sinew_document_load_memory(const void *data, size_t size,
                                        const sinew_load_options *options, sinew_document **out,
                                        sinew_error *err);
void sinew_document_free(sinew_document *doc);

/* The files the document was read from: the file itself (sinew_document_load_file), its
 * external buffers and the external images it refers to. An output that names one of them
 * would overwrite the input (sinew_file_same compares paths by inode). */
uint32_t sinew_document_source_count(const sinew_document *doc);
const char *sinew_document_source(const sinew_document *doc, uint32_t index);

/* Non-fatal findings from loading and editing ("points primitive ignored", "weights of mesh 0
 * primitive 1 not normalised: normalised"). Strings live as long as the document. */
uint32_t sinew_document_warning_count(const sinew_document *doc);
const char *sinew_document_warning(const sinew_document *doc, uint32_t index);

/* Writes the document: GLB unless `path` ends in ".gltf" (then JSON with one base64 data
 * URI buffer). Written to a temporary file in the target folder and renamed into place, so a
 * failure leaves no output. */
sinew_result sinew_document_write_file(const sinew_document *doc, const char *path,
                                       sinew_error *err);
/* The bytes sinew_document_write_file(doc, path) writes, in memory: JSON when `path` ends in
 * ".gltf", else GLB. On success `out` holds them (allocated with malloc; free them with
 * sinew_bytes_free); on failure it is zeroed. For writing several outputs together
 * (sinew/file.h). */
sinew_result sinew_document_serialize(const sinew_document *doc, const char *path, sinew_bytes *out,
                                      sinew_error *err);
/* How sinew_document_serialize_with writes; zeroed (or NULL) it writes as
 * sinew_document_serialize. */
typedef struct sinew_write_options {
    /* 1: vertex, index and animation data compressed with EXT_meshopt_compression, in its
     * required form (listed in extensionsRequired, no uncompressed copy), for players that
     * decode it (three.js with MeshoptDecoder, Babylon.js, Unity's glTFast); a build without
     * SINEW_COMPRESSION refuses it with SINEW_ERR_UNSUPPORTED. */
    int meshopt;
    const sinew_allocator *allocator; /* what the output bytes are allocated with (recorded in
                                         them for sinew_bytes_free); default: malloc */
} sinew_write_options;
sinew_result sinew_document_serialize_with(const sinew_document *doc, const char *path,
                                           const sinew_write_options *options, sinew_bytes *out,
                                           sinew_error *err);
/* Serialises to a GLB in memory, as sinew_document_serialize does for a ".glb" path (malloc;
 * free with sinew_bytes_free). */
sinew_result sinew_document_write_glb_memory(const sinew_document *doc, sinew_bytes *out,
                                             sinew_error *err);
/* An independent copy (through its GLB bytes, so external buffers become embedded), under the
 * same display name; free it with sinew_document_free. For trying an edit without touching
 * the original. */
sinew_result sinew_document_copy(const sinew_document *doc, sinew_document **out, sinew_error *err);

/* ---- the model view ---- */

typedef struct sinew_model_options {
    const sinew_allocator *allocator; /* default: malloc */
    int32_t skin;                     /* which skin; default -1 = the one skinning the most
                                         vertices (0 is a valid explicit choice only when
                                         `skin_is_set` is 1) */
    int skin_is_set;
} sinew_model_options;

/* Builds the model view: skeleton, skin, concatenated bind-space mesh (every primitive of
 * every node skinned by the skin or by an exact copy of it, the same joint nodes in the same
 * order with the same inverse bind matrices, as exporters give each mesh of one character;
 * meshes on other skins are left out; strips and fans converted; points and lines skipped
 * with a warning), normalised influences (a warning when
 * the file's were not), welded ids, clips (LINEAR/STEP/CUBICSPLINE on TRS; morph weights
 * ignored here but kept in the document). Fails with a clear message when the document has
 * no skin, or on values the model cannot use (NaN in positions, singular IBMs). */
sinew_result sinew_model_from_document(const sinew_document *doc,
                                       const sinew_model_options *options, sinew_model **out,
                                       sinew_error *err);

/* Builds a new document that holds `model` alone: one scene, its skeleton nodes, one skin,
 * one mesh with one primitive (POSITION, NORMAL computed from the triangles, JOINTS_0/
 * WEIGHTS_0, plus JOINTS_1/WEIGHTS_1 when more than 4 slots are used), one animation per
 * clip. Deterministic: the same model gives the same bytes. Used by the procedural creatures.
 * The mesh's ranges are set to point at the new document. */
sinew_result sinew_document_from_model(sinew_model *model, sinew_document **out, sinew_error *err);

/* Reads COLOR_0 of the model's mesh (RGB, 3 floats per vertex in [0, 1], alpha dropped) in
 * the model's concatenated vertex order. SINEW_ERR_NOT_FOUND when no primitive of the model
 * has COLOR_0; primitives without it read as white. `model` must come from `doc`. */
sinew_result sinew_document_read_colors(const sinew_document *doc, const sinew_model *model,
                                        float *rgb, sinew_error *err);

/* ---- edits (each replaces exactly what it changes, or appends) ---- */

/* Number of nodes / animations in the document. */
uint32_t sinew_document_node_count(const sinew_document *doc);
uint32_t sinew_document_animation_count(const sinew_document *doc);
/* Name of animation `index` ("" when it has none). */
const char *sinew_document_animation_name(const sinew_document *doc, uint32_t index);
/* 1 when animation `index` goes by `name`: its own name, or, when it has none, the name the
 * model gives it (sinew_clip.name, "animation_<index>", as three.js's GLTFLoader does), so
 * that a clip found by its model name is the document's animation of that index. */
int sinew_document_animation_named(const sinew_document *doc, uint32_t index, const char *name);

/* Appends a node named `name` with TRS `local` as a child of `parent_node` (an existing node
 * index; sinew only adds nodes under existing ones). *out_node gets the new node index. */
sinew_result sinew_document_add_node(sinew_document *doc, const char *name, int32_t parent_node,
                                     sinew_transform local, int32_t *out_node, sinew_error *err);

/* Appends `node` to skin `skin`'s joint list with inverse bind matrix `ibm` (the skin's IBM
 * accessor is rewritten as a new accessor holding old + new). *out_joint gets its index. */
sinew_result sinew_document_add_skin_joint(sinew_document *doc, int32_t skin, int32_t node,
                                           const sinew_mat4 *ibm, int32_t *out_joint,
                                           sinew_error *err);

/* Replaces the JOINTS_0/WEIGHTS_0 (and JOINTS_1/WEIGHTS_1 when more than 4 slots are used) of
 * one primitive with new accessors: `joints` and `weights` hold SINEW_MAX_INFLUENCES slots
 * per vertex for `vertex_count` vertices (must equal the primitive's count), as sinew_mesh
 * stores them. Other attributes are untouched. */
sinew_result sinew_document_set_influences(sinew_document *doc, int32_t mesh, int32_t primitive,
                                           uint32_t vertex_count, const uint16_t *joints,
                                           const float *weights, sinew_error *err);

/* Sets COLOR_0 (RGBA float) of one primitive, replacing any existing COLOR_0. */
sinew_result sinew_document_set_colors(sinew_document *doc, int32_t mesh, int32_t primitive,
                                       uint32_t vertex_count, const float *rgba, sinew_error *err);

/* Index of the animation named `name`, appending an empty one when `create` is 1 and there is
 * none. SINEW_ERR_NOT_FOUND when absent and create is 0. */
sinew_result sinew_document_find_animation(sinew_document *doc, const char *name, int create,
                                           int32_t *out_animation, sinew_error *err);

/* Removes every channel (and its sampler) of animation `animation`. */
sinew_result sinew_document_clear_animation(sinew_document *doc, int32_t animation,
                                            sinew_error *err);

/* Sets the channel animating `path` of `node` in `animation`: replaces an existing channel for
 * that node and path, or appends one. `values` holds key_count * (3 or 4) floats (times 3 for
 * CUBICSPLINE). Times must be strictly increasing and finite. */
sinew_result sinew_document_set_channel(sinew_document *doc, int32_t animation, int32_t node,
                                        sinew_path path, sinew_interpolation interpolation,
                                        uint32_t key_count, const float *times, const float *values,
                                        sinew_error *err);

/* Sets or replaces the top-level extension `name` (extensions.NAME) with the JSON object in
 * `json`, and lists `name` in extensionsUsed (never extensionsRequired: a reader without it
 * still shows the file). SINEW_ERR_ARGUMENT when `json` is not a JSON object. */
sinew_result sinew_document_set_extension(sinew_document *doc, const char *name, const char *json,
                                          sinew_error *err);
/* Lists `name` in extensionsUsed (once), for an extension used inside another one's JSON. */
sinew_result sinew_document_use_extension(sinew_document *doc, const char *name, sinew_error *err);

/* Sets the rotation of node `node` (a unit quaternion), keeping its translation and scale (a
 * node stored as a matrix is rewritten as translation, rotation and scale). */
sinew_result sinew_document_set_node_rotation(sinew_document *doc, int32_t node,
                                              sinew_quat rotation, sinew_error *err);

/* Sets or replaces a string in the document's asset.extras.sinew object (a provenance note:
 * "tail: 1 chain of 4 bones"). */
sinew_result sinew_document_set_note(sinew_document *doc, const char *key, const char *value,
                                     sinew_error *err);
/* The note `key` of asset.extras.sinew, or NULL when the document has none (the string lives
 * as long as the document, until the note is set again). */
const char *sinew_document_note(const sinew_document *doc, const char *key);

#ifdef __cplusplus
}
#endif
#endif
