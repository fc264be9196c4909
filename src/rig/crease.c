/* Creases: where the surface folds inwards along a closed loop around a protrusion's root
 * (docs/appendages.md, "Finding the tail", the crease).
 *
 * A part boundary is where the surface is most concave (the minima rule: D. D. Hoffman and
 * W. A. Richards, "Parts of recognition", 1984). A tail modelled on its own and welded to the
 * body, or a low-poly tail whose last ring folds into the rump, meets the body along such a
 * fold, and a rigger's border runs along it. The section crossing (protrusion.c) finds the
 * body's entry only to about a section radius; where a fold closes around the tail near it,
 * the fold is the border. Where none closes (a smooth flare into the rump, most real tails),
 * the crossing stands. */
#include "rig_internal.h"

#include <float.h>
#include <math.h>
#include <string.h>

sinew_result rig_concavity(const sinew_rig_analysis *a, const sinew_model *m, float *out,
                           sinew_error *err)
{
    const uint32_t nv = a->vertex_count;
    const sinew_vec3 *P = m->mesh.positions;
    sinew_vec3 *normal = sinew_alloc(&a->alloc, (size_t)nv + 1, sizeof *normal);
    double *volume = sinew_alloc(&a->alloc, (size_t)nv + 1, sizeof *volume);
    if (!normal || !volume) {
        sinew_free(&a->alloc, normal);
        sinew_free(&a->alloc, volume);
        return sinew_error_set(err, SINEW_ERR_OUT_OF_MEMORY, "creases: out of memory");
    }
    /* Area-weighted vertex normals, and each shell's signed volume (about the box's centre,
     * so the sums stay small) to turn a shell whose triangles wind inwards the right way out:
     * a fold reads as a fold whichever way an exporter wound the faces. */
    const sinew_vec3 o = sinew_vec3_lerp(m->size.min, m->size.max, 0.5f);
    for (uint32_t t = 0; t < a->wtri_count; t++) {
        const uint32_t *x = &a->wtri[3 * (size_t)t];
        const sinew_vec3 p0 = sinew_vec3_sub(P[x[0]], o), p1 = sinew_vec3_sub(P[x[1]], o),
                         p2 = sinew_vec3_sub(P[x[2]], o);
        const sinew_vec3 n = sinew_vec3_cross(sinew_vec3_sub(p1, p0), sinew_vec3_sub(p2, p0));
        for (int k = 0; k < 3; k++)
            normal[x[k]] = sinew_vec3_add(normal[x[k]], n);
        volume[a->shell[x[0]]] += (double)sinew_vec3_dot(p0, sinew_vec3_cross(p1, p2));
    }
    for (uint32_t v = 0; v < nv; v++) {
        out[v] = 0;
        const uint32_t s = a->adj_start[v], e = a->adj_start[v + 1];
        if (a->weld[v] != v || e == s) continue;
        sinew_vec3 mean = sinew_vec3_make(0, 0, 0);
        float spacing = 0;
        for (uint32_t k = s; k < e; k++) {
            mean = sinew_vec3_add(mean, P[a->adj[k]]);
            spacing += sinew_vec3_distance(P[a->adj[k]], P[v]);
        }
        mean = sinew_vec3_scale(mean, 1.0f / (float)(e - s));
        spacing /= (float)(e - s);
        sinew_vec3 n = sinew_vec3_normalize_or(normal[v], sinew_vec3_make(0, 0, 0));
        if (volume[a->shell[v]] < 0) n = sinew_vec3_scale(n, -1);
        if (spacing > 0) out[v] = sinew_vec3_dot(sinew_vec3_sub(mean, P[v]), n) / spacing;
    }
    sinew_free(&a->alloc, normal);
    sinew_free(&a->alloc, volume);
    return SINEW_OK;
}

float rig_crease_cut(const sinew_rig_analysis *a, const rig_geodesic *geo, const float *concavity,
                     uint32_t tip, float from, float reach, uint32_t *region, uint32_t stamp,
                     uint32_t *queue)
{
    uint32_t head = 0, tail = 0, creases = 0;
    double crease_g = 0;
    region[tip] = stamp;
    queue[tail++] = tip;
    while (head < tail) {
        const uint32_t x = queue[head++];
        if (concavity[x] > RIG_CREASE_FOLD && geo->g[x] >= from && x != tip) continue;
        for (uint32_t k = a->adj_start[x]; k < a->adj_start[x + 1]; k++) {
            const uint32_t y = a->adj[k];
            if (region[y] == stamp) continue;
            if (!geo->done[y] || !(geo->g[y] < reach)) return -1; /* no closed crease */
            region[y] = stamp;
            queue[tail++] = y;
            if (concavity[y] > RIG_CREASE_FOLD && geo->g[y] >= from)
                creases++, crease_g += geo->g[y];
        }
    }
    return creases ? (float)(crease_g / creases) : -1;
}
