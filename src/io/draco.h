/* Private to module io: the C interface of draco_shim.cpp, which decodes one
 * KHR_draco_mesh_compression buffer with libdraco. */
#ifndef SINEW_IO_DRACO_H
#define SINEW_IO_DRACO_H

#include <stddef.h>
#include <stdint.h>

typedef struct io_draco_mesh io_draco_mesh;

/* Decodes a Draco triangle mesh; NULL on failure, with libdraco's reason in msg. */
io_draco_mesh *io_draco_decode(const uint8_t *data, size_t size, char *msg, size_t msg_size);
void io_draco_free(io_draco_mesh *m);
uint32_t io_draco_points(const io_draco_mesh *m);
uint32_t io_draco_faces(const io_draco_mesh *m);
/* Writes faces * 3 corner indices; -1 when one names a point the mesh does not have. */
int io_draco_indices(const io_draco_mesh *m, uint32_t *out);
/* Number of components of the attribute with Draco unique id `id`, -1 when absent. */
int io_draco_attribute_components(const io_draco_mesh *m, uint32_t id);
/* Writes points * components values of glTF componentType `component_type` for the attribute
 * with unique id `id`; -1 when it is absent, has another component count or does not
 * convert. */
int io_draco_attribute(const io_draco_mesh *m, uint32_t id, uint32_t components,
                       uint32_t component_type, void *out);

#endif
