"""The result card: what `sinew tail` found, per piece, from its --report JSON (no bpy here).

The card is a plain dict (stored as JSON on the scene, drawn by the panel) so that it outlives
the operator and can be checked by a script.
"""

# The report says "chain" where the CLI's table says "tail": the card uses the table's words.
VERDICT_LABELS = {"chain": "tail"}


def piece_rows(report):
    """One row per piece of the report, as the CLI's table lists them (merged shells left out:
    they are counted in the piece they were merged into)."""
    rows = []
    for piece in report.get("appendages", []):
        verdict = piece.get("verdict", "")
        if verdict == "merged":
            continue
        row = {
            "piece": piece.get("piece", len(rows)),
            "verdict": VERDICT_LABELS.get(verdict, verdict),
            "reason": piece.get("reason", ""),
            "vertices": piece.get("vertices", 0),
            "joint": piece.get("attach_joint", ""),
        }
        if "bones" in piece:
            row["bones"] = list(piece["bones"])
            row["parent"] = piece.get("parent", "")
        rows.append(row)
    return rows


def headline(report, rows, applied, bake, rebaked=False):
    """One sentence: the tail that was rigged, or why none was (the CLI's own wording)."""
    if rebaked:
        return (f"the skeleton already has sinew's tail ({report['rigged_tail']} and its chain): "
                "its spring motion was baked again into every clip")
    chained = [r for r in rows if "bones" in r]
    if chained:
        parts = []
        for r in chained:
            bones = r["bones"]
            parts.append(f"{bones[0]}..{bones[-1]} ({len(bones)} bones) under {r['parent']}")
        text = "tail: " + "; ".join(parts)
        if not applied:
            return text + " found; Tail is off, so the rig is unchanged"
        text += f", {report.get('changed_vertices', 0)} vertices re-weighted"
        return text + (", motion baked into every clip" if bake else ", clips unchanged (Bake off)")
    check = report.get("check", {})
    if report.get("rigged_tail"):
        return (f"no tail to grow: the skeleton already has one ({report['rigged_tail']} and its "
                "chain)")
    if check.get("dropped_chains"):
        return "no tail grown: the do-no-harm check dropped the chain"
    if rows:
        pelvis = report.get("landmarks", {}).get("pelvis", "")
        return (f"no tail found: no protrusion without a bone hangs from the pelvis ({pelvis}) "
                "long enough to be one")
    return "no tail found: every part of the skin has a bone inside it"


def check_line(report):
    """What the do-no-harm check changed, or "" when it changed nothing."""
    check = report.get("check", {})
    notes = []
    if check.get("returned_vertices"):
        notes.append(f"gave {check['returned_vertices']} root vertices back their rigger's weights")
    if check.get("dropped_chains"):
        notes.append(f"dropped {check['dropped_chains']} chain(s)")
    return ("check: " + ", ".join(notes)) if notes else ""


def make_card(report, armature, applied, bake, rebaked=False):
    """The card for one run on `armature` (an object name). `applied` says whether the rig in
    the scene was replaced by the CLI's output; `rebaked`, whether that output came from
    `sinew bake` on the chain the rig already had."""
    rows = piece_rows(report)
    return {
        "armature": armature,
        "headline": headline(report, rows, applied, bake, rebaked),
        "applied": applied,
        "rebaked": rebaked,
        "chains": report.get("chains", 0),
        "pieces": rows,
        "small_protrusions": report.get("small_protrusions", 0),
        "check": check_line(report),
    }


def info_line(card):
    """The INFO report line: the headline and how many pieces were judged."""
    return f"sinew: {card['headline']} ({len(card['pieces'])} pieces judged)"
