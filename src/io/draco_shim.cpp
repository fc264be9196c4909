// The one C++ file of sinew: a C interface to Debian's libdraco (draco.h in this folder
// declares it). Nothing here throws past the interface: libdraco reports malformed data
// through its Status, and an allocation that fails (a hostile header can ask for much) is
// caught and reported as a failed decode.
#include <cstdio>
#include <cstring>
#include <memory>
#include <new>

#include "draco/compression/decode.h"
#include "draco/mesh/mesh.h"

extern "C" {
#include "io/draco.h"
}

struct io_draco_mesh {
    std::unique_ptr<draco::Mesh> mesh;
};

extern "C" io_draco_mesh *io_draco_decode(const uint8_t *data, size_t size, char *msg,
                                          size_t msg_size)
{
    try {
        draco::DecoderBuffer buffer;
        buffer.Init(reinterpret_cast<const char *>(data), size);
        auto type = draco::Decoder::GetEncodedGeometryType(&buffer);
        if (!type.ok()) {
            std::snprintf(msg, msg_size, "%s", type.status().error_msg());
            return nullptr;
        }
        if (type.value() != draco::TRIANGULAR_MESH) {
            std::snprintf(msg, msg_size, "it holds a point cloud, not a triangle mesh");
            return nullptr;
        }
        draco::Decoder decoder;
        auto decoded = decoder.DecodeMeshFromBuffer(&buffer);
        if (!decoded.ok()) {
            std::snprintf(msg, msg_size, "%s", decoded.status().error_msg());
            return nullptr;
        }
        std::unique_ptr<io_draco_mesh> out(new io_draco_mesh);
        out->mesh = std::move(decoded).value();
        return out.release();
    } catch (const std::bad_alloc &) {
        std::snprintf(msg, msg_size, "out of memory while decoding");
    } catch (...) {
        std::snprintf(msg, msg_size, "the decoder failed");
    }
    return nullptr;
}

extern "C" void io_draco_free(io_draco_mesh *m)
{
    delete m;
}

extern "C" uint32_t io_draco_points(const io_draco_mesh *m)
{
    return m->mesh->num_points();
}

extern "C" uint32_t io_draco_faces(const io_draco_mesh *m)
{
    return m->mesh->num_faces();
}

extern "C" int io_draco_indices(const io_draco_mesh *m, uint32_t *out)
{
    const uint32_t points = m->mesh->num_points();
    for (draco::FaceIndex f(0); f < m->mesh->num_faces(); ++f) {
        const draco::Mesh::Face &face = m->mesh->face(f);
        for (int k = 0; k < 3; k++) {
            const uint32_t v = face[k].value();
            if (v >= points) return -1;
            *out++ = v;
        }
    }
    return 0;
}

template <typename T>
static bool convert_all(const draco::PointAttribute *att, uint32_t points, uint32_t components,
                        void *out)
{
    T *dst = static_cast<T *>(out);
    for (draco::PointIndex p(0); p < points; ++p) {
        const draco::AttributeValueIndex v = att->mapped_index(p);
        if (v.value() >= att->size() ||
            !att->ConvertValue<T>(v, static_cast<int8_t>(components), dst))
            return false;
        dst += components;
    }
    return true;
}

extern "C" int io_draco_attribute(const io_draco_mesh *m, uint32_t id, uint32_t components,
                                  uint32_t component_type, void *out)
{
    const draco::PointAttribute *att = m->mesh->GetAttributeByUniqueId(id);
    if (!att || att->num_components() != components) return -1;
    const uint32_t points = m->mesh->num_points();
    bool ok;
    switch (component_type) {
    case 5120:
        ok = convert_all<int8_t>(att, points, components, out);
        break;
    case 5121:
        ok = convert_all<uint8_t>(att, points, components, out);
        break;
    case 5122:
        ok = convert_all<int16_t>(att, points, components, out);
        break;
    case 5123:
        ok = convert_all<uint16_t>(att, points, components, out);
        break;
    case 5125:
        ok = convert_all<uint32_t>(att, points, components, out);
        break;
    case 5126:
        ok = convert_all<float>(att, points, components, out);
        break;
    default:
        ok = false;
    }
    return ok ? 0 : -1;
}

extern "C" int io_draco_attribute_components(const io_draco_mesh *m, uint32_t id)
{
    const draco::PointAttribute *att = m->mesh->GetAttributeByUniqueId(id);
    return att ? att->num_components() : -1;
}
