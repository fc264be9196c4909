/* One ownership convention (sinew/base.h): every job run with a counting allocator in its
 * options hands back results whose memory came from that allocator (each result block is one
 * the counter gave out and has not taken back), and the one sinew_<type>_free of each result
 * returns every block it made: after the frees the counter has taken back as many blocks and
 * bytes as it gave. The jobs: the tail pipeline, a bake, a solve, a serialised document, a PNG,
 * the mesh's edges, a creature and a loaded document. cJSON's tree is allocated through
 * cJSON's own hooks and is not counted here (base.h says why). */
#include "test_util.h"

#include "sinew/bake.h"
#include "sinew/creature.h"
#include "sinew/document.h"
#include "sinew/metrics.h"
#include "sinew/pipeline.h"
#include "sinew/render.h"
#include "sinew/solve.h"

/* ---- a counting allocator that knows which blocks it gave out ---- */

typedef struct block {
    void *p;
    size_t size;
} block;

typedef struct counter {
    block *live; /* the blocks given out and not yet taken back (libc memory: not counted) */
    size_t live_count, live_capacity;
    uint64_t allocs, frees;       /* blocks given out and taken back */
    uint64_t bytes_in, bytes_out; /* bytes given out and taken back */
    uint64_t unknown_frees;       /* frees of a block the counter never gave: must stay 0 */
} counter;

static void remember(counter *c, void *p, size_t size)
{
    if (c->live_count == c->live_capacity) {
        c->live_capacity = c->live_capacity ? 2 * c->live_capacity : 1024;
        c->live = realloc(c->live, c->live_capacity * sizeof *c->live);
        if (!c->live) abort();
    }
    c->live[c->live_count++] = (block){p, size};
    c->allocs++;
    c->bytes_in += size;
}

/* Forgets block p, returning its size; (size_t)-1 when p is not a live block. Searched from
 * the newest, which is what is freed most often. */
static size_t forget(counter *c, const void *p)
{
    for (size_t i = c->live_count; i-- > 0;)
        if (c->live[i].p == p) {
            const size_t size = c->live[i].size;
            c->live[i] = c->live[--c->live_count];
            return size;
        }
    return (size_t)-1;
}

static void *count_alloc(void *user, size_t size)
{
    void *p = malloc(size);
    if (p) remember(user, p, size);
    return p;
}

static void count_free(void *user, void *ptr)
{
    counter *c = user;
    if (!ptr) return;
    const size_t size = forget(c, ptr);
    if (size == (size_t)-1) {
        c->unknown_frees++; /* a pointer from somewhere else: do not free what is not ours */
        return;
    }
    c->frees++;
    c->bytes_out += size;
    free(ptr);
}

static void *count_realloc(void *user, void *ptr, size_t old_size, size_t new_size)
{
    (void)old_size;
    counter *c = user;
    if (!ptr) return count_alloc(user, new_size);
    const size_t had = forget(c, ptr);
    if (had == (size_t)-1) {
        c->unknown_frees++;
        return NULL;
    }
    void *p = realloc(ptr, new_size);
    if (!p) {
        c->live[c->live_count++] = (block){ptr, had}; /* still ours, unchanged */
        return NULL;
    }
    /* the old block is taken back and a new one given out */
    c->frees++;
    c->bytes_out += had;
    remember(c, p, new_size);
    return p;
}

/* 1 when p is the start of a block the counter gave out and has not taken back. */
static int owned(const counter *c, const void *p)
{
    if (!p) return 0;
    for (size_t i = c->live_count; i-- > 0;)
        if (c->live[i].p == p) return 1;
    return 0;
}

static sinew_allocator counting(counter *c)
{
    memset(c, 0, sizeof *c);
    return (sinew_allocator){count_alloc, count_realloc, count_free, c};
}

/* Every block given out was taken back, byte for byte, and nothing foreign was freed. */
static void assert_all_returned(counter *c)
{
    if (c->live_count || c->allocs != c->frees || c->bytes_in != c->bytes_out || c->unknown_frees)
        fail_msg("%zu blocks still out; %llu given, %llu taken back; %llu bytes given, %llu taken "
                 "back; %llu foreign frees",
                 c->live_count, (unsigned long long)c->allocs, (unsigned long long)c->frees,
                 (unsigned long long)c->bytes_in, (unsigned long long)c->bytes_out,
                 (unsigned long long)c->unknown_frees);
    assert_true(c->allocs > 0); /* an allocator that was never called proves nothing */
    free(c->live);
    memset(c, 0, sizeof *c);
}

/* A result records the allocator it was made with. */
static void assert_records(const sinew_allocator *recorded, const counter *c)
{
    assert_ptr_equal(recorded->user, c);
    assert_ptr_equal(recorded->free_fn, count_free);
}

/* ---- the jobs ---- */

/* The procedural mouse through the tail job: its input and edited models, the report, the
 * plan, the check's table and the bake summaries all come from the job's allocator, and
 * sinew_tail_result_free returns them. The document and the creature are counted too. */
static void test_tail_job(void **state)
{
    (void)state;
    counter c;
    const sinew_allocator a = counting(&c);
    const sinew_creature_options co = {.allocator = &a};
    sinew_model *m = NULL;
    sinew_creature_truth truth;
    sinew_document *doc = NULL;
    sinew_error err = {0};
    assert_int_equal(sinew_creature_build(SINEW_CREATURE_MOUSE, &co, &m, &truth, &err), SINEW_OK);
    assert_true(owned(&c, m) && owned(&c, m->mesh.positions) && owned(&c, truth.vertex_piece));
    assert_records(&truth.allocator, &c);
    assert_int_equal(sinew_document_from_model(m, &doc, &err), SINEW_OK);
    assert_true(owned(&c, doc));

    sinew_tail_options o;
    memset(&o, 0, sizeof o);
    o.allocator = &a;
    o.guard_samples = 6; /* a few moments per clip: ownership, not the check's precision */
    sinew_tail_result run;
    if (sinew_tail_run(doc, &o, &run, &err)) fail_msg("tail: %s", err.message);
    assert_non_null(run.model); /* the mouse has a tail to chain */
    assert_true(run.baked && run.guarded);
    assert_records(&run.allocator, &c);
    assert_true(owned(&c, run.input) && owned(&c, run.input->mesh.positions));
    assert_true(owned(&c, run.model) && owned(&c, run.model->nodes));
    assert_true(owned(&c, run.report.pieces) && owned(&c, run.report.vertex_piece));
    assert_records(&run.report.allocator, &c);
    assert_true(owned(&c, run.plan.weights) && owned(&c, run.plan.changed));
    assert_records(&run.plan.allocator, &c);
    assert_true(owned(&c, run.clips) && owned(&c, run.bakes));
    assert_records(&run.bakes[0].allocator, &c);
    const uint64_t before = c.frees;
    sinew_tail_result_free(&run);
    assert_true(c.frees > before);

    sinew_creature_truth_free(&truth);
    sinew_document_free(doc);
    sinew_model_free(m);
    assert_all_returned(&c);
}

/* A bake of the chained mouse: the track's arrays from the bake options' allocator, returned by
 * sinew_bake_track_free alone. */
static void test_bake(void **state)
{
    (void)state;
    sinew_model *m = NULL;
    sinew_document *doc = NULL;
    sinew_error err = {0};
    assert_int_equal(sinew_creature_build(SINEW_CREATURE_MOUSE, NULL, &m, NULL, &err), SINEW_OK);
    assert_int_equal(sinew_document_from_model(m, &doc, &err), SINEW_OK);
    sinew_tail_options o;
    memset(&o, 0, sizeof o);
    o.no_guard = 1;
    o.no_bake = 1;
    sinew_tail_result run;
    if (sinew_tail_run(doc, &o, &run, &err)) fail_msg("tail: %s", err.message);
    assert_non_null(run.model);

    counter c;
    const sinew_allocator a = counting(&c);
    const sinew_bake_options bo = {.allocator = &a};
    sinew_bake_track track;
    if (sinew_bake_clip(run.model, NULL, 0, &bo, &track, &err)) fail_msg("bake: %s", err.message);
    assert_true(track.key_count > 1);
    assert_records(&track.allocator, &c);
    assert_true(owned(&c, track.times) && owned(&c, track.nodes) && owned(&c, track.rotations));
    sinew_bake_track_free(&track);
    assert_null(track.rotations);
    assert_all_returned(&c);

    sinew_tail_result_free(&run);
    sinew_document_free(doc);
    sinew_model_free(m);
}

/* A control solve of the lizard's first clip at a few frames: the result's arrays from the solve
 * options' allocator (and the solver and every scratch buffer with them), returned by
 * sinew_solve_clip_result_free alone. */
static void test_solve(void **state)
{
    (void)state;
    sinew_model *m = NULL;
    sinew_error err = {0};
    assert_int_equal(sinew_creature_build(SINEW_CREATURE_LIZARD, NULL, &m, NULL, &err), SINEW_OK);
    counter c;
    const sinew_allocator a = counting(&c);
    sinew_solve_options opt;
    memset(&opt, 0, sizeof opt);
    opt.allocator = &a;
    opt.frame_rate = 4;     /* a handful of frames: ownership, not the fit */
    opt.max_vertices = 300; /* constraints subsampled for speed */
    sinew_solve_clip_result res;
    if (sinew_solve_clip(m, &m->clips[0], m, NULL, &opt, &res, &err))
        fail_msg("solve: %s", err.message);
    assert_true(res.frame_count > 1);
    assert_records(&res.allocator, &c);
    assert_true(owned(&c, res.times) && owned(&c, res.poses) && owned(&c, res.skin_matrices) &&
                owned(&c, res.vertex_error) && owned(&c, res.frame_error) &&
                owned(&c, res.vertex_error_sum) && owned(&c, res.vertex_moved_sum));
    const uint64_t scratch = c.allocs; /* the solve's own buffers came from it too */
    assert_true(scratch > 7);
    sinew_solve_quality played;
    assert_int_equal(
        sinew_solve_quality_played(m, &m->clips[0], m, NULL, &opt, &res, &played, NULL, &err),
        SINEW_OK);
    assert_true(c.allocs > scratch); /* its working memory went through the options' too */
    sinew_solver *solver = NULL;
    assert_int_equal(sinew_solver_create(m, &opt, &solver, &err), SINEW_OK);
    assert_true(owned(&c, solver));
    sinew_solver_free(solver);
    sinew_solve_clip_result_free(&res);
    assert_null(res.times);
    assert_all_returned(&c);
    sinew_model_free(m);
}

/* A document as GLB and as .gltf, and a loaded one: the bytes from the write options'
 * allocator, returned by sinew_bytes_free; the loaded document from the load options'. */
static void test_serialize_and_load(void **state)
{
    (void)state;
    sinew_model *m = NULL;
    sinew_document *doc = NULL;
    sinew_error err = {0};
    assert_int_equal(sinew_creature_build(SINEW_CREATURE_FOX, NULL, &m, NULL, &err), SINEW_OK);
    assert_int_equal(sinew_document_from_model(m, &doc, &err), SINEW_OK);
    counter c;
    const sinew_allocator a = counting(&c);
    const sinew_write_options wo = {.allocator = &a};
    sinew_bytes glb, gltf;
    assert_int_equal(sinew_document_serialize_with(doc, "x.glb", &wo, &glb, &err), SINEW_OK);
    assert_int_equal(sinew_document_serialize_with(doc, "x.gltf", &wo, &gltf, &err), SINEW_OK);
    assert_true(owned(&c, glb.data) && owned(&c, gltf.data));
    assert_records(&glb.allocator, &c);
    assert_records(&gltf.allocator, &c);
    assert_int_equal(c.allocs, 2); /* the outputs only: the writer's scratch is its own */

    const sinew_load_options lo = {.allocator = &a};
    sinew_document *again = NULL;
    assert_int_equal(sinew_document_load_memory(glb.data, glb.size, &lo, &again, &err), SINEW_OK);
    assert_true(owned(&c, again));
    sinew_document_free(again);
    sinew_bytes_free(&glb);
    sinew_bytes_free(&gltf);
    assert_null(glb.data);
    assert_all_returned(&c);
    /* Without options the bytes are malloc's, and say so. */
    assert_int_equal(sinew_document_write_glb_memory(doc, &glb, &err), SINEW_OK);
    assert_null(glb.allocator.free_fn);
    sinew_bytes_free(&glb);
    sinew_document_free(doc);
    sinew_model_free(m);
}

/* A PNG: its bytes (grown as the encoder writes) from the PNG options' allocator. */
static void test_png(void **state)
{
    (void)state;
    uint8_t rgba[32 * 24 * 4];
    for (size_t i = 0; i < sizeof rgba; i++)
        rgba[i] = (uint8_t)(i * 7);
    const sinew_image image = {32, 24, rgba};
    counter c;
    const sinew_allocator a = counting(&c);
    const sinew_png_options po = {.allocator = &a};
    sinew_bytes png;
    sinew_error err = {0};
    assert_int_equal(sinew_render_encode_png(&image, &po, &png, &err), SINEW_OK);
    assert_true(png.size > 8 && !memcmp(png.data, "\x89PNG", 4));
    assert_true(owned(&c, png.data));
    assert_records(&png.allocator, &c);
    sinew_bytes_free(&png);
    assert_all_returned(&c);
}

/* The mesh's edges: from the model's allocator (the model's options'), returned by
 * sinew_metrics_edges_free. */
static void test_edges(void **state)
{
    (void)state;
    counter c;
    const sinew_allocator a = counting(&c);
    const sinew_creature_options co = {.allocator = &a};
    sinew_model *m = NULL;
    sinew_error err = {0};
    assert_int_equal(sinew_creature_build(SINEW_CREATURE_MOUSE, &co, &m, NULL, &err), SINEW_OK);
    sinew_metrics_edges edges;
    assert_int_equal(sinew_metrics_unique_edges(m, &edges, &err), SINEW_OK);
    assert_true(edges.count > 0 && owned(&c, edges.pairs));
    assert_records(&edges.allocator, &c);
    sinew_metrics_edges_free(&edges);
    sinew_model_free(m);
    assert_all_returned(&c);
}

/* The counter itself: a block freed through it that it never gave out is caught, so the checks
 * above can fail. */
static void test_counter_catches_a_foreign_block(void **state)
{
    (void)state;
    counter c;
    const sinew_allocator a = counting(&c);
    void *mine = sinew_alloc(&a, 1, 16);
    void *libc = malloc(16);
    assert_true(owned(&c, mine));
    assert_false(owned(&c, libc));
    sinew_free(&a, libc); /* counted as foreign, not freed */
    assert_int_equal(c.unknown_frees, 1);
    free(libc);
    sinew_free(&a, mine);
    c.unknown_frees = 0;
    assert_all_returned(&c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_counter_catches_a_foreign_block),
        cmocka_unit_test(test_tail_job),
        cmocka_unit_test(test_bake),
        cmocka_unit_test(test_solve),
        cmocka_unit_test(test_serialize_and_load),
        cmocka_unit_test(test_png),
        cmocka_unit_test(test_edges),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
