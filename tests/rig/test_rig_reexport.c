/* The tail finder reads the creature, not the file's layout. The same notail models, written
 * again as a Blender user would write them (tests/blender/reexport.py: Blender 3.4's glTF
 * importer and exporter, and the same through its FBX exporter and importer, which adds leaf
 * bones), arrive with the unit scale applied to the bind pose, vertices split at seams and
 * reordered and new node indices. On each copy the chain must be found with recall and
 * precision against the artist's tail skin no worse than on the original file (by at most
 * 0.01: the split seams change the counts by a few vertices).
 *
 * The truth comes across by vertex position: the similarity (scale, one of the 48 signed axis
 * permutations an exporter's axis conversion is, translation) that maps the original's joints
 * onto the copy's, matched by name, then the nearest original vertex. A mapping that does not
 * fit the joints fails the test rather than scoring against a wrong truth.
 *
 * Skips (77) when Blender is not installed or the shared models are absent. */
#include "test_util.h"

#include <ctype.h>
#include <float.h>
#include <math.h>

#include "sinew/document.h"
#include "sinew/rig.h"

static const char *const models[] = {"quaternius_Wolf", "quaternius_TRex"};
static char copies[4096]; /* the folder Blender writes the copies into */

static int named_tail(const char *name)
{
    for (const char *p = name; p[0] && p[1] && p[2] && p[3]; p++)
        if (tolower((unsigned char)p[0]) == 't' && tolower((unsigned char)p[1]) == 'a' &&
            tolower((unsigned char)p[2]) == 'i' && tolower((unsigned char)p[3]) == 'l')
            return 1;
    return 0;
}

static sinew_model *load(const char *path)
{
    sinew_document *doc = NULL;
    sinew_model *m = NULL;
    sinew_error err = {0};
    if (sinew_document_load_file(path, NULL, &doc, &err) != SINEW_OK ||
        sinew_model_from_document(doc, NULL, &m, &err) != SINEW_OK)
        fail_msg("%s: %s", path, err.message);
    sinew_document_free(doc);
    return m;
}

static sinew_vec3 joint_at(const sinew_model *m, uint32_t j)
{
    return sinew_mat4_translation(&m->skin.joints[j].bind);
}

/* x -> s P x + t, P a signed axis permutation. */
typedef struct similarity {
    int axis[3], sign[3];
    float scale;
    sinew_vec3 from, to; /* centroids */
} similarity;

static sinew_vec3 similarity_apply(const similarity *s, sinew_vec3 p)
{
    const float a[3] = {p.x - s->from.x, p.y - s->from.y, p.z - s->from.z};
    return sinew_vec3_make(s->to.x + s->scale * (float)s->sign[0] * a[s->axis[0]],
                           s->to.y + s->scale * (float)s->sign[1] * a[s->axis[1]],
                           s->to.z + s->scale * (float)s->sign[2] * a[s->axis[2]]);
}

/* The similarity mapping `orig`'s joints onto `copy`'s of the same names; asserts it fits
 * (residual within 1e-4 of the joints' spread). */
static similarity fit_joints(const sinew_model *orig, const sinew_model *copy)
{
    sinew_vec3 a[256], b[256];
    uint32_t n = 0;
    for (uint32_t j = 0; j < orig->skin.joint_count && n < 256; j++)
        for (uint32_t k = 0; k < copy->skin.joint_count; k++)
            if (!strcmp(orig->nodes[orig->skin.joints[j].node].name,
                        copy->nodes[copy->skin.joints[k].node].name)) {
                a[n] = joint_at(orig, j), b[n++] = joint_at(copy, k);
                break;
            }
    assert_true(n >= 8);
    similarity s = {{0, 1, 2}, {1, 1, 1}, 1, {0, 0, 0}, {0, 0, 0}};
    for (uint32_t i = 0; i < n; i++)
        s.from = sinew_vec3_add(s.from, a[i]), s.to = sinew_vec3_add(s.to, b[i]);
    s.from = sinew_vec3_scale(s.from, 1.0f / (float)n);
    s.to = sinew_vec3_scale(s.to, 1.0f / (float)n);
    double spread_a = 0, spread_b = 0;
    for (uint32_t i = 0; i < n; i++) {
        const double da = sinew_vec3_distance(a[i], s.from), db = sinew_vec3_distance(b[i], s.to);
        spread_a += da * da, spread_b += db * db;
    }
    s.scale = (float)sqrt(spread_b / spread_a);
    static const int perms[6][3] = {{0, 1, 2}, {0, 2, 1}, {1, 0, 2},
                                    {1, 2, 0}, {2, 0, 1}, {2, 1, 0}};
    double best = DBL_MAX;
    similarity out = s;
    for (int p = 0; p < 6; p++)
        for (int signs = 0; signs < 8; signs++) {
            similarity t = s;
            for (int k = 0; k < 3; k++)
                t.axis[k] = perms[p][k], t.sign[k] = (signs >> k) & 1 ? -1 : 1;
            double e = 0;
            for (uint32_t i = 0; i < n; i++) {
                const double d = sinew_vec3_distance(similarity_apply(&t, a[i]), b[i]);
                e += d * d;
            }
            if (e < best) best = e, out = t;
        }
    if (!(sqrt(best / spread_b) < 1e-4))
        fail_msg("the copy's joints do not fit the original's (residual %.3g of their spread)",
                 sqrt(best / spread_b));
    return out;
}

/* Recall and precision of the chain that holds most of `truth` in `m`. */
static void score(const sinew_model *m, const uint8_t *truth, double *recall, double *precision)
{
    sinew_rig_report rep;
    sinew_rig_plan plan;
    sinew_error err = {0};
    if (sinew_rig_find_appendages(m, NULL, &rep, &err) != SINEW_OK ||
        sinew_rig_build_chain(m, NULL, &rep, &plan, &err) != SINEW_OK)
        fail_msg("tail: %s", err.message);
    assert_true(plan.chain_count >= 1);
    uint32_t total = 0;
    for (uint32_t v = 0; v < m->mesh.vertex_count; v++)
        total += truth[v];
    *recall = *precision = 0;
    for (uint32_t c = 0; c < plan.chain_count; c++) {
        uint32_t in_piece = 0, both = 0;
        for (uint32_t v = 0; v < m->mesh.vertex_count; v++) {
            const int mine = rep.vertex_piece[v] == plan.chains[c].piece;
            in_piece += (uint32_t)mine, both += (uint32_t)(mine && truth[v]);
        }
        const double r = total ? (double)both / total : 0;
        if (r > *recall) *recall = r, *precision = in_piece ? (double)both / in_piece : 0;
    }
    sinew_rig_plan_free(&plan);
    sinew_rig_report_free(&rep);
}

/* Per vertex of `m`: 1 when the artist's joint dominating the nearest vertex of `orig` (after
 * `s`, NULL: the same vertex) is a tail joint. */
static uint8_t *truth_of(const sinew_model *m, const sinew_model *orig, const sinew_model *art,
                         const similarity *s)
{
    uint8_t *truth = calloc(m->mesh.vertex_count + 1, 1);
    assert_non_null(truth);
    for (uint32_t v = 0; v < m->mesh.vertex_count; v++) {
        uint32_t from = v;
        if (s) {
            float best = FLT_MAX;
            for (uint32_t u = 0; u < orig->mesh.vertex_count; u++) {
                const float d = sinew_vec3_distance(similarity_apply(s, orig->mesh.positions[u]),
                                                    m->mesh.positions[v]);
                if (d < best) best = d, from = u;
            }
        }
        const uint16_t j = art->mesh.influence_joints[(size_t)from * SINEW_MAX_INFLUENCES];
        truth[v] = (uint8_t)named_tail(art->nodes[art->skin.joints[j].node].name);
    }
    return truth;
}

static void check_model(const char *dir, const char *name)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/notail/%s.glb", dir, name);
    sinew_model *orig = load(path);
    snprintf(path, sizeof path, "%s/%s.glb", dir, name);
    sinew_model *art = load(path);
    assert_int_equal(orig->mesh.vertex_count, art->mesh.vertex_count);
    uint8_t *truth = truth_of(orig, orig, art, NULL);
    double recall, precision;
    score(orig, truth, &recall, &precision);
    free(truth);
    printf("%-18s original       recall %.3f precision %.3f\n", name, recall, precision);
    static const char *const routes[2] = {"", "_fbx"};
    for (int r = 0; r < 2; r++) {
        snprintf(path, sizeof path, "%s/%s%s.glb", copies, name, routes[r]);
        sinew_model *copy = load(path);
        const similarity s = fit_joints(orig, copy);
        truth = truth_of(copy, orig, art, &s);
        double rc, pc;
        score(copy, truth, &rc, &pc);
        printf("%-18s Blender%-7s recall %.3f precision %.3f (%u vertices, x%.3g)\n", name,
               r ? " (FBX)" : "", rc, pc, copy->mesh.vertex_count, (double)s.scale);
        if (rc < recall - 0.01 || pc < precision - 0.01)
            fail_msg("%s%s: recall %.3f precision %.3f, the original's %.3f %.3f", name, routes[r],
                     rc, pc, recall, precision);
        free(truth);
        sinew_model_free(copy);
    }
    sinew_model_free(art);
    sinew_model_free(orig);
}

static void test_blender_copies_get_the_same_tail(void **state)
{
    (void)state;
    const char *dir = test_models_dir();
    if (!dir) test_skip();
    for (size_t i = 0; i < sizeof models / sizeof models[0]; i++)
        check_model(dir, models[i]);
}

/* Blender writes every copy once, before the test. */
static int make_copies(void **state)
{
    (void)state;
    const char *dir = test_models_dir();
    if (!dir) return 0;
    if (test_run(NULL, 0, "command -v blender") != 0) {
        fprintf(stderr, "note: blender is not installed: skipping\n");
        exit(77);
    }
    if (!test_tmpdir(copies, sizeof copies)) return -1;
    char out[4096];
    for (size_t i = 0; i < sizeof models / sizeof models[0]; i++)
        if (test_run(out, sizeof out,
                     "blender -b --factory-startup --python-exit-code 1 --python "
                     "'%s/tests/blender/reexport.py' -- '%s/notail/%s.glb' '%s' '%s'",
                     SINEW_SOURCE_DIR, dir, models[i], copies, models[i]) != 0) {
            fprintf(stderr, "blender failed on %s:\n%s\n", models[i], out);
            return -1;
        }
    return 0;
}

static int remove_copies(void **state)
{
    (void)state;
    if (copies[0]) test_run(NULL, 0, "rm -rf '%s'", copies);
    return 0;
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_blender_copies_get_the_same_tail),
    };
    return test_exit_code(cmocka_run_group_tests(tests, make_copies, remove_copies));
}
