/* Rig module on every procedural creature: the right verdict for every
 * piece, tail skin recall and precision >= 0.98 against the generator's truth, K as the
 * formula says, the weighted distance of the tail's skin to the bones that move it dropping
 * from at least 25% of the height to at most 1.5x the tail's radius, nothing outside the
 * tail changing, the new bones dominating the tail's skin (the root's blend must not keep
 * tail-root skin on the body), a welded tail's border on its fold, and the same weights
 * whichever way the triangles wind. */
#include "test_util.h"

#include "bind_space.h"
#include "one_chain.h"
#include "sinew/creature.h"
#include "sinew/rig.h"

/* The report piece that holds most of truth piece `tp`'s vertices (UINT32_MAX: none). */
static uint32_t majority_piece(const sinew_rig_report *rep, const sinew_creature_truth *truth,
                               uint32_t tp, uint32_t *share)
{
    uint32_t best = UINT32_MAX, best_n = 0;
    for (uint32_t v = 0; v < truth->vertex_count; v++) {
        if (truth->vertex_piece[v] != tp || rep->vertex_piece[v] == UINT32_MAX) continue;
        uint32_t p = rep->vertex_piece[v], n = 0;
        if (p == best) continue;
        for (uint32_t w = 0; w < truth->vertex_count; w++)
            n += truth->vertex_piece[w] == tp && rep->vertex_piece[w] == p;
        if (n > best_n) best = p, best_n = n;
    }
    *share = best_n;
    return best;
}

static void check_kind(sinew_creature_kind kind, int dress_spine)
{
    sinew_model *m = NULL;
    sinew_creature_truth truth;
    sinew_error err;
    assert_int_equal(sinew_creature_build(kind, NULL, &m, &truth, &err), SINEW_OK);
    sinew_rig_options opt = {.dress_spine = dress_spine};
    sinew_rig_report rep;
    sinew_rig_plan plan;
    assert_int_equal(sinew_rig_find_appendages(m, &opt, &rep, &err), SINEW_OK);
    assert_int_equal(sinew_rig_build_chain(m, &opt, &rep, &plan, &err), SINEW_OK);
    uint32_t chains = 0;
    for (uint32_t p = 0; p < rep.piece_count; p++)
        chains += rep.pieces[p].verdict == SINEW_RIG_VERDICT_CHAIN;
    for (uint32_t tp = 1; tp < truth.piece_count; tp++) {
        const sinew_creature_piece *cp = &truth.pieces[tp];
        uint32_t share = 0, p = majority_piece(&rep, &truth, tp, &share);
        sinew_rig_verdict got = p == UINT32_MAX ? SINEW_RIG_VERDICT_INVALID : rep.pieces[p].verdict;
        fprintf(stderr, "  %-7s %-8s want %-14s got %-8s (%u/%u vertices) %s\n",
                sinew_creature_kind_name(kind), cp->name, sinew_creature_verdict_name(cp->verdict),
                sinew_rig_verdict_name(got), share, cp->vertex_count,
                p == UINT32_MAX ? "" : rep.pieces[p].reason);
        switch (cp->verdict) {
        case SINEW_CREATURE_VERDICT_CHAIN:
            assert_int_equal(got, SINEW_RIG_VERDICT_CHAIN);
            break;
        case SINEW_CREATURE_VERDICT_RIGID_ON_SPINE:
            /* Not found at all would also leave it unchanged, but the rigger must see it. */
            assert_int_equal(got,
                             dress_spine ? SINEW_RIG_VERDICT_DRESSED : SINEW_RIG_VERDICT_SPINE);
            break;
        default:
            assert_true(got != SINEW_RIG_VERDICT_CHAIN && got != SINEW_RIG_VERDICT_RIGID &&
                        got != SINEW_RIG_VERDICT_DRESSED);
        }
    }
    if (truth.tail_piece < 0) {
        assert_int_equal(chains, 0);
    } else {
        assert_int_equal(chains, 1);
        assert_int_equal(plan.chain_count, 1);
        const uint32_t tp = (uint32_t)truth.tail_piece;
        const uint32_t cp = plan.chains[0].piece;
        const sinew_rig_piece *pc = &rep.pieces[cp];
        uint32_t t = 0, f = 0, both = 0;
        for (uint32_t v = 0; v < truth.vertex_count; v++) {
            int is_t = truth.vertex_piece[v] == tp, is_f = rep.vertex_piece[v] == cp;
            t += (uint32_t)is_t, f += (uint32_t)is_f, both += (uint32_t)(is_t && is_f);
        }
        double recall = (double)both / t, precision = f ? (double)both / f : 0;
        long k = lroundf(pc->length / (0.1f * rep.scale));
        k = k < 3 ? 3 : (k > 8 ? 8 : k);
        fprintf(stderr,
                "  %-7s tail: recall %.4f precision %.4f L %.3f (modelled %.3f) K %u H %.3f "
                "distance %.3f -> %.3f (height %.3f, radius %.3f)\n",
                sinew_creature_kind_name(kind), recall, precision, (double)pc->length,
                (double)truth.tail_length, pc->segments, (double)rep.scale,
                (double)pc->distance_before, (double)pc->distance_after, (double)truth.height,
                (double)truth.pieces[tp].radius);
        assert_true(recall >= 0.98);
        assert_true(precision >= 0.98);
        assert_int_equal(pc->segments, (uint32_t)k);
        assert_true(fabsf(pc->length - truth.tail_length) <= 0.25f * truth.tail_length);
        assert_true(pc->distance_before >= 0.25f * truth.height);
        assert_true(pc->distance_after <= 1.5f * truth.pieces[tp].radius);
        /* Only the tail's vertices change. */
        for (uint32_t v = 0; v < truth.vertex_count; v++)
            if (plan.changed[v]) assert_int_equal(rep.vertex_piece[v], cp);
        /* The skin a chain bone dominates (first slot) against the truth: the piece may hold
         * all of the tail and still leave its root on the body (the mouse, whose tail leaves
         * the body at a 25 degree slant, kept 1.3% there under the old tilt rule). */
        uint32_t dt = 0, df = 0, dboth = 0;
        for (uint32_t v = 0; v < truth.vertex_count; v++) {
            int is_t = truth.vertex_piece[v] == tp;
            int is_f = plan.joints[(size_t)v * SINEW_MAX_INFLUENCES] >= m->skin.joint_count;
            dt += (uint32_t)is_t, df += (uint32_t)is_f, dboth += (uint32_t)(is_t && is_f);
        }
        double drecall = (double)dboth / dt, dprecision = df ? (double)dboth / df : 0;
        fprintf(stderr, "  %-7s tail skin dominated by the chain: recall %.4f precision %.4f\n",
                sinew_creature_kind_name(kind), drecall, dprecision);
        assert_true(drecall >= 0.995);
        assert_true(dprecision >= 0.98);
    }
    sinew_rig_plan_free(&plan);
    sinew_rig_report_free(&rep);
    sinew_creature_truth_free(&truth);
    sinew_model_free(m);
}

/* Rigs `kind`, applies `change` to the model, rigs it again; both runs land in rep/plan. */
typedef void (*model_change)(sinew_model *m, const sinew_rig_report *first);
static sinew_model *rig_before_and_after(sinew_creature_kind kind, model_change change,
                                         sinew_rig_report rep[2], sinew_rig_plan plan[2])
{
    sinew_model *m = NULL;
    sinew_creature_truth truth;
    sinew_error err;
    assert_int_equal(sinew_creature_build(kind, NULL, &m, &truth, &err), SINEW_OK);
    sinew_creature_truth_free(&truth);
    for (int pass = 0; pass < 2; pass++) {
        if (pass) change(m, &rep[0]);
        assert_int_equal(sinew_rig_find_appendages(m, NULL, &rep[pass], &err), SINEW_OK);
        assert_int_equal(sinew_rig_build_chain(m, NULL, &rep[pass], &plan[pass], &err), SINEW_OK);
    }
    return m;
}

static void free_both(sinew_model *m, sinew_rig_report rep[2], sinew_rig_plan plan[2])
{
    for (int pass = 0; pass < 2; pass++)
        sinew_rig_plan_free(&plan[pass]), sinew_rig_report_free(&rep[pass]);
    sinew_model_free(m);
}

static void reverse_winding(sinew_model *m, const sinew_rig_report *first)
{
    (void)first;
    for (uint32_t t = 0; t < m->mesh.triangle_count; t++) {
        uint32_t *ix = &m->mesh.triangles[3 * (size_t)t], k = ix[1];
        ix[1] = ix[2], ix[2] = k;
    }
}

/* Reversing every triangle's winding (an inside-out export) changes no weight: the crease
 * reads surface normals, and turns them outwards by each shell's signed volume (crease.c;
 * without that turn this fails). */
static void check_winding(sinew_creature_kind kind)
{
    sinew_rig_report rep[2];
    sinew_rig_plan plan[2];
    sinew_model *m = rig_before_and_after(kind, reverse_winding, rep, plan);
    assert_int_equal(plan[0].chain_count, 1);
    assert_int_equal(plan[1].chain_count, 1);
    const size_t slots = (size_t)m->mesh.vertex_count * SINEW_MAX_INFLUENCES;
    assert_memory_equal(plan[0].joints, plan[1].joints, slots * sizeof *plan[0].joints);
    assert_memory_equal(plan[0].weights, plan[1].weights, slots * sizeof *plan[0].weights);
    free_both(m, rep, plan);
}

static void test_winding(void **s)
{
    (void)s;
    check_winding(SINEW_CREATURE_FOX);
    check_winding(SINEW_CREATURE_MOUSE);
}

/* Recall and precision of the one chain's skin against the truth's tail, whether its border
 * is a fold (the surfaces either side of it joined), and (when `pieces` is not NULL) every
 * vertex's piece. */
static void chain_agreement(sinew_model *m, const sinew_creature_truth *truth, double *recall,
                            double *precision, const char *says, int *said, uint32_t *pieces)
{
    sinew_rig_report rep;
    sinew_rig_plan plan;
    test_one_chain(m, &rep, &plan);
    const uint32_t p = plan.chains[0].piece;
    uint32_t t = 0, f = 0, both = 0;
    for (uint32_t v = 0; v < truth->vertex_count; v++) {
        const int is_t = truth->vertex_piece[v] == truth->tail_piece,
                  is_f = rep.vertex_piece[v] == p;
        t += (uint32_t)is_t, f += (uint32_t)is_f, both += (uint32_t)(is_t && is_f);
    }
    *recall = (double)both / t, *precision = f ? (double)both / f : 0;
    *said = strstr(rep.pieces[p].reason, says) != NULL;
    if (pieces) memcpy(pieces, rep.vertex_piece, truth->vertex_count * sizeof *pieces);
    sinew_rig_plan_free(&plan);
    sinew_rig_report_free(&rep);
}

/* A welded tail meets its body along a fold, and the fold is its border (crease.c): where the
 * section crossing overshoots into the rump (random seed 145, precision 0.867 before the
 * crease) or stops short of the rim (seed 241, recall 0.843), the tail's skin is exactly the
 * truth's, and the same whichever way the triangles wind (the fold is read with normals taken
 * outwards by each shell's volume). The report says so (`says`). A quadruped's welded tail
 * runs on from its rump, and its truth starts on the ring of the crease (random_body.c): on
 * seed 1317 the crease fell between rings, its ring was the body's by the truth, and the
 * fold the finder ends the tail on read as a ring of rump (precision 0.947). */
static void check_welded_rim(uint64_t seed, const char *says)
{
    sinew_model *m = NULL;
    sinew_creature_truth truth;
    sinew_error err;
    assert_int_equal(sinew_creature_build_random(seed, NULL, &m, &truth, &err), SINEW_OK);
    assert_true(truth.tail_piece >= 0 && !truth.tail_rigged);
    uint32_t *pieces[2] = {malloc(truth.vertex_count * sizeof *pieces[0]),
                           malloc(truth.vertex_count * sizeof *pieces[1])};
    assert_true(pieces[0] && pieces[1]);
    for (int pass = 0; pass < 2; pass++) {
        if (pass) reverse_winding(m, NULL);
        double recall, precision;
        int on_fold;
        chain_agreement(m, &truth, &recall, &precision, says, &on_fold, pieces[pass]);
        fprintf(stderr, "  seed %llu%s: tail skin recall %.4f precision %.4f\n",
                (unsigned long long)seed, pass ? " wound the other way" : "", recall, precision);
        assert_true(on_fold);
        assert_true(recall >= 0.99 && precision >= 0.99);
    }
    assert_memory_equal(pieces[0], pieces[1], truth.vertex_count * sizeof *pieces[0]);
    free(pieces[0]), free(pieces[1]);
    sinew_creature_truth_free(&truth);
    sinew_model_free(m);
}

static void test_welded_rim(void **s)
{
    (void)s;
    check_welded_rim(145, "its border the fold where");
    check_welded_rim(241, "its border the fold where");
    check_welded_rim(1317, "its border the fold where");
}

/* A rim that folds only in part (a biped's tail leaving the body tangentially on one side) is
 * bridged across its gaps (crease.c, rig_fold_bridge): the crossing alone left seeds 9, 189 and
 * 278 at recall 0.949, 0.926 and 0.934, and 248 at precision 0.934; bridged, their tails' skin
 * is the truth's. */
static void test_bridged_rim(void **s)
{
    (void)s;
    check_welded_rim(9, "bridged where they fade");
    check_welded_rim(189, "bridged where they fade");
    check_welded_rim(248, "bridged where they fade");
    check_welded_rim(278, "bridged where they fade");
}

/* One chain, its skin the truth's tail to `least` in recall and precision. */
static void check_tail_skin(uint64_t seed, double least)
{
    sinew_model *m = NULL;
    sinew_creature_truth truth;
    sinew_error err;
    assert_int_equal(sinew_creature_build_random(seed, NULL, &m, &truth, &err), SINEW_OK);
    double recall, precision;
    int said;
    chain_agreement(m, &truth, &recall, &precision, "", &said, NULL);
    fprintf(stderr, "  seed %llu: tail skin recall %.4f precision %.4f\n", (unsigned long long)seed,
            recall, precision);
    assert_true(recall >= least && precision >= least);
    sinew_creature_truth_free(&truth);
    sinew_model_free(m);
}

/* Found on seeds the finder was not fitted to (300-899). The rump is no ornament of the tail:
 * a tail hanging or curled past it came within its radius, and the rump's cap (a piece of the
 * body's own, bigger shell) rode it (seeds 468, 700, 754: precision 0.873, 0.921, 0.921). A
 * flat export's spine chain is no leg because the tail's skin its rigger hung on the hips
 * reaches the floor (seed 738: no pelvis nor head found, the tail's inner shell left on a
 * "limb", recall 0.543). A sunk tail whose slanted rim is open along most of its sections is a
 * tail, not a sheet: the point where its walk ended is no closed section (seed 689, missed).
 * And a fur shell's rump and thigh caps stick out less than a tail (seed 922, tailless, got a
 * chain; seed 823 a second one beside its tail's). A long piece at the pelvis that stands up is
 * a tail raised over the back, not a plate (seeds 1834, 1893, 2090: nothing found). A tail's
 * fur and skin rooted either side of the pelvis joint, or a sunk curled tail walked from its
 * hidden end too, are one tail with one chain (seeds 1266, 1787, 1513, 2424: two chains,
 * recall 0.52 to 0.94). */
static void test_fresh_seeds(void **s)
{
    (void)s;
    check_tail_skin(1266, 0.95);
    check_tail_skin(1787, 0.95);
    check_tail_skin(1513, 0.95);
    check_tail_skin(2424, 0.95);
    check_tail_skin(468, 0.99);
    check_tail_skin(700, 0.99);
    check_tail_skin(754, 0.95);
    check_tail_skin(738, 0.99);
    check_tail_skin(689, 0.99);
    check_tail_skin(823, 0.99);
    check_tail_skin(1834, 0.95);
    check_tail_skin(1893, 0.99);
    check_tail_skin(2090, 0.99);
    sinew_model *m = NULL;
    sinew_creature_truth truth;
    sinew_error err;
    assert_int_equal(sinew_creature_build_random(738, NULL, &m, &truth, &err), SINEW_OK);
    sinew_rig_landmarks lm;
    assert_int_equal(sinew_rig_find_landmarks(m, &lm, NULL, &err), SINEW_OK);
    assert_true(lm.pelvis >= 0 && lm.head >= 0);
    assert_string_equal(m->nodes[m->skin.joints[lm.pelvis].node].name, truth.pelvis_joint);
    assert_string_equal(m->nodes[m->skin.joints[lm.head].node].name, truth.head_joint);
    sinew_creature_truth_free(&truth);
    sinew_model_free(m);
    assert_int_equal(sinew_creature_build_random(922, NULL, &m, &truth, &err), SINEW_OK);
    assert_true(truth.tail_piece < 0);
    test_no_chain(m);
    sinew_creature_truth_free(&truth);
    sinew_model_free(m);
}

/* Near is not joined: the tolerant weld (0.0003 H, for seams an exporter rounded apart) joins
 * only vertices on open rims. A sunk tail's tube that passes within it of a vertex of the
 * rump (random seeds 64 and 161) stays its own surface; joined there, the walk from the tip
 * crossed the pinch and took 45 and 69 vertices of the rump (precision 0.906 and 0.945). And
 * a welded tail's rim, its copies nudged apart by a third of the tolerance as a rounding
 * exporter leaves them (seed 145), is still one surface with the same border. */
static void test_weld_tolerance(void **s)
{
    (void)s;
    static const uint64_t pinched[] = {64, 161};
    for (size_t i = 0; i < sizeof pinched / sizeof *pinched; i++) {
        sinew_model *m = NULL;
        sinew_creature_truth truth;
        sinew_error err;
        assert_int_equal(sinew_creature_build_random(pinched[i], NULL, &m, &truth, &err), SINEW_OK);
        /* the pinch is there: a tail vertex within the tolerance of a body vertex */
        const float tol = 3e-4f * m->size.scale;
        int pinch = 0;
        for (uint32_t v = 0; v < truth.vertex_count && !pinch; v++) {
            if (truth.vertex_piece[v] != truth.tail_piece) continue;
            for (uint32_t w = 0; w < truth.vertex_count && !pinch; w++)
                pinch = truth.vertex_piece[w] == 0 &&
                        sinew_vec3_distance(m->mesh.positions[v], m->mesh.positions[w]) <= tol;
        }
        assert_true(pinch);
        double recall, precision;
        int on_fold;
        chain_agreement(m, &truth, &recall, &precision, "", &on_fold, NULL);
        fprintf(stderr, "  seed %llu (sunk tail by a rump vertex): recall %.4f precision %.4f\n",
                (unsigned long long)pinched[i], recall, precision);
        assert_true(recall >= 0.99 && precision >= 0.99);
        sinew_creature_truth_free(&truth);
        sinew_model_free(m);
    }

    sinew_model *m = NULL;
    sinew_creature_truth truth;
    sinew_error err;
    assert_int_equal(sinew_creature_build_random(145, NULL, &m, &truth, &err), SINEW_OK);
    const uint32_t nv = m->mesh.vertex_count;
    uint32_t *scratch = malloc(nv * sizeof *scratch);
    assert_non_null(scratch);
    uint32_t nudged = 0;
    for (uint32_t v = 0; v < nv; v++)
        if (m->mesh.weld[v] != v) {
            m->mesh.positions[v].x += 1e-4f * m->size.scale;
            nudged++;
        }
    sinew_mesh_weld(&m->mesh, scratch);
    double recall, precision;
    int on_fold;
    chain_agreement(m, &truth, &recall, &precision, "its border the fold where", &on_fold, NULL);
    fprintf(stderr,
            "  seed 145, %u seam copies nudged apart: recall %.4f precision %.4f, border %s\n",
            nudged, recall, precision, on_fold ? "the fold" : "not a fold");
    assert_true(nudged > 0 && on_fold);
    assert_true(recall >= 0.99 && precision >= 0.99);
    free(scratch);
    sinew_creature_truth_free(&truth);
    sinew_model_free(m);
}

/* Each vertex's shell: its weld id's set of vertices joined by triangles (the mesh's weld
 * joins the copies an exporter splits at seams), named by one of them. */
static void mesh_shells(const sinew_mesh *mesh, uint32_t *shell)
{
    for (uint32_t v = 0; v < mesh->vertex_count; v++)
        shell[v] = v;
    for (uint32_t t = 0; t < mesh->triangle_count; t++)
        for (int e = 1; e < 3; e++)
            shell[test_find_root(shell, mesh->weld[mesh->triangles[3 * t + e]])] =
                test_find_root(shell, mesh->weld[mesh->triangles[3 * t]]);
    for (uint32_t v = 0; v < mesh->vertex_count; v++)
        shell[v] = test_find_root(shell, mesh->weld[v]);
}

/* Plates and spikes modelled as shells of their own on a tail move with it, and those on the
 * back beside its root stay with the body: every shell of the creature that is all tail skin
 * by the truth is all in the chain's piece, and no shell without tail skin rides it.
 * Random seed 60 has two spikes on its tail, one too short to be a piece (left on the body
 * before); 197 four plates and its tail's fur, two of the plates merged into a third as
 * overlapping shells (left on the body when that third rode the tail); 161 four spikes and a
 * tail modelled as its own shell, one spike too short to be a piece; 23 none, and like 161
 * spikes on the back beside the tail's root. (197's plate on the back rode the tail too while
 * the back's plates began where the tail leaves it: the creature generator starts them clear
 * of the tail's root now, since that plate's skin was as much the tail's as the back's.)
 * 2456 has six spikes in a row on a short tail, each nearer a neighbour or the tail's skin
 * off its walk than the walk itself, and
 * 2426 six on a tail under its own fur shell, nearer the fur than the tail's skin: both were
 * left on the body as a row of plates on the back. */
static void check_riders(uint64_t seed, uint32_t want_on_tail, uint32_t want_others)
{
    sinew_model *m = NULL;
    sinew_creature_truth truth;
    sinew_error err;
    assert_int_equal(sinew_creature_build_random(seed, NULL, &m, &truth, &err), SINEW_OK);
    sinew_rig_report rep;
    sinew_rig_plan plan;
    test_one_chain(m, &rep, &plan);
    const uint32_t p = plan.chains[0].piece, n = m->mesh.vertex_count;
    /* the shells (connected by triangles, welded where positions meet) */
    uint32_t *shell = malloc(n * sizeof *shell);
    uint32_t *count = calloc(3 * (size_t)n, sizeof *count); /* per shell: size, tail, chained */
    assert_non_null(shell);
    assert_non_null(count);
    mesh_shells(&m->mesh, shell);
    for (uint32_t v = 0; v < n; v++) {
        uint32_t *c = &count[3 * (size_t)shell[v]];
        c[0]++;
        c[1] += truth.vertex_piece[v] == truth.tail_piece;
        c[2] += rep.vertex_piece[v] == p;
    }
    uint32_t on_tail = 0, riding = 0, wrong = 0;
    for (uint32_t s = 0; s < n; s++) {
        const uint32_t size = count[3 * s], tail = count[3 * s + 1], chained = count[3 * s + 2];
        if (!size || (tail && tail < size)) continue; /* none, or the body with a tail on it */
        if (tail)
            on_tail++, riding += chained == size;
        else
            wrong += chained == size; /* a whole shell taken: riding */
    }
    fprintf(stderr, "  seed %llu: %u of %u shells on the tail move with it, %u others do\n",
            (unsigned long long)seed, riding, on_tail, wrong);
    assert_int_equal(on_tail, want_on_tail);
    assert_int_equal(riding, on_tail);
    assert_int_equal(wrong, want_others);
    free(shell);
    free(count);
    sinew_rig_plan_free(&plan);
    sinew_rig_report_free(&rep);
    sinew_creature_truth_free(&truth);
    sinew_model_free(m);
}

static void test_riders(void **s)
{
    (void)s;
    check_riders(60, 2, 0);
    check_riders(197, 5, 0);
    check_riders(23, 0, 0);
    check_riders(161, 5, 0);
    check_riders(2456, 6, 0);
    check_riders(2426, 8, 0);
}

/* Turns the creature 45 degrees about up and moves it by a body length, in bind space. */
static void turn_and_move(sinew_model *m, const sinew_rig_report *first)
{
    sinew_transform t = sinew_transform_identity();
    t.rotation = sinew_quat_from_axis_angle(first->landmarks.up, 0.785398f);
    t.translation = sinew_vec3_make(first->scale, 0.3f * first->scale, -first->scale);
    const sinew_mat4 T = sinew_mat4_from_transform(t);
    move_bind_space(m, &T);
}

/* The finder does not care which way the creature faces or where it stands: turned 45 degrees
 * about up and moved by a body length, the same skin is re-weighted (an axis-aligned box as
 * the size once made H 0.72 of itself there, and the Khronos fox's tail took 17% more skin). */
static void check_facing(sinew_creature_kind kind)
{
    sinew_rig_report rep[2];
    sinew_rig_plan plan[2];
    sinew_model *m = rig_before_and_after(kind, turn_and_move, rep, plan);
    fprintf(stderr, "  %-7s facing: H %.4g / %.4g, re-weighted %u / %u\n",
            sinew_creature_kind_name(kind), (double)rep[0].scale, (double)rep[1].scale,
            plan[0].changed_count, plan[1].changed_count);
    assert_true(fabsf(rep[1].scale - rep[0].scale) <= 1e-3f * rep[0].scale);
    assert_int_equal(plan[1].chain_count, plan[0].chain_count);
    uint32_t differ = 0;
    for (uint32_t v = 0; v < m->mesh.vertex_count; v++)
        differ += plan[0].changed[v] != plan[1].changed[v];
    assert_true(differ <= plan[0].changed_count / 100); /* float noise at the border only */
    free_both(m, rep, plan);
}

static void test_facing(void **s)
{
    (void)s;
    check_facing(SINEW_CREATURE_FOX);
    check_facing(SINEW_CREATURE_LIZARD);
}

static void test_fox(void **s)
{
    (void)s, check_kind(SINEW_CREATURE_FOX, 0);
}
static void test_mouse(void **s)
{
    (void)s, check_kind(SINEW_CREATURE_MOUSE, 0);
}
static void test_lizard(void **s)
{
    (void)s, check_kind(SINEW_CREATURE_LIZARD, 0);
}
static void test_caped(void **s)
{
    (void)s, check_kind(SINEW_CREATURE_CAPED, 0);
}
static void test_skirt(void **s)
{
    (void)s, check_kind(SINEW_CREATURE_SKIRT, 0);
}
static void test_quiver(void **s)
{
    (void)s, check_kind(SINEW_CREATURE_QUIVER, 0);
}
static void test_quiver_dressed(void **s)
{
    (void)s, check_kind(SINEW_CREATURE_QUIVER, 1);
}
static void test_rabbit(void **s)
{
    (void)s, check_kind(SINEW_CREATURE_RABBIT, 0);
}

/* Skeletons from every source: for each naming style of the random family (Mixamo,
 * Quaternius, Maya-style, Sketchfab exports, unnamed bone_N) and for flat hierarchies (every
 * chain from the root), the first SEEDS_PER_STYLE seeds of that style: the landmarks find the
 * generator's pelvis and head joints, whatever the names say. */
#define SEEDS_PER_STYLE 12
static void test_landmarks_every_skeleton(void **s)
{
    (void)s;
    const uint32_t kinds = SINEW_CREATURE_STYLE_COUNT + 1; /* the styles, then flat ones */
    const uint32_t first = SINEW_CREATURE_STYLE_INVALID + 1;
    uint32_t seen[SINEW_CREATURE_STYLE_COUNT + 1] = {0},
                                               right[SINEW_CREATURE_STYLE_COUNT + 1] = {0};
    for (uint64_t seed = 0; seed < 2000; seed++) {
        sinew_model *m = NULL;
        sinew_creature_truth truth;
        sinew_error err;
        assert_int_equal(sinew_creature_build_random(seed, NULL, &m, &truth, &err), SINEW_OK);
        const uint32_t k =
            truth.traits.flat_hierarchy ? SINEW_CREATURE_STYLE_COUNT : (uint32_t)truth.traits.style;
        if (seen[k] < SEEDS_PER_STYLE) {
            seen[k]++;
            sinew_rig_landmarks lm;
            assert_int_equal(sinew_rig_find_landmarks(m, &lm, NULL, &err), SINEW_OK);
            const char *pelvis = m->nodes[m->skin.joints[lm.pelvis].node].name;
            const char *head = lm.head >= 0 ? m->nodes[m->skin.joints[lm.head].node].name : "-";
            int ok = !strcmp(pelvis, truth.pelvis_joint) && !strcmp(head, truth.head_joint);
            right[k] += (uint32_t)ok;
            if (!ok)
                fprintf(stderr, "  seed %llu: pelvis %s (truth %s), head %s (truth %s): %s\n",
                        (unsigned long long)seed, pelvis, truth.pelvis_joint, head,
                        truth.head_joint, truth.description);
        }
        sinew_creature_truth_free(&truth);
        sinew_model_free(m);
        uint32_t done = 0;
        for (uint32_t i = first; i < kinds; i++)
            done += seen[i] == SEEDS_PER_STYLE;
        if (done == kinds - first) break;
    }
    for (uint32_t i = first; i < kinds; i++) {
        fprintf(stderr, "  %-14s landmarks right on %u of %u seeds\n",
                i == SINEW_CREATURE_STYLE_COUNT
                    ? "sketchfab-flat"
                    : sinew_creature_style_name((sinew_creature_skeleton_style)i),
                right[i], seen[i]);
        assert_int_equal(seen[i], SEEDS_PER_STYLE);
        assert_int_equal(right[i], seen[i]);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fox),
        cmocka_unit_test(test_mouse),
        cmocka_unit_test(test_lizard),
        cmocka_unit_test(test_caped),
        cmocka_unit_test(test_skirt),
        cmocka_unit_test(test_quiver),
        cmocka_unit_test(test_quiver_dressed),
        cmocka_unit_test(test_rabbit),
        cmocka_unit_test(test_winding),
        cmocka_unit_test(test_welded_rim),
        cmocka_unit_test(test_bridged_rim),
        cmocka_unit_test(test_fresh_seeds),
        cmocka_unit_test(test_riders),
        cmocka_unit_test(test_weld_tolerance),
        cmocka_unit_test(test_facing),
        cmocka_unit_test(test_landmarks_every_skeleton),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
