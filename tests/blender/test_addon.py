# The Blender add-on (blender/sinew_blender) end to end, headless, in Blender 3.4:
# enables the add-on from the zip the build makes, imports ../shared/models/notail/Fox.glb
# (a fox whose rigger gave its tail no bones), puts the rig in a collection of its own and
# moves it, runs bpy.ops.sinew.rig_appendages(tail=True, bake=True) with the built CLI, and
# checks that the rig was replaced in place: Tail_1..Tail_End bones, Tail_* vertex groups with
# weights, the same objects' names, collection, world transform and materials (the original
# datablocks, no imported copies left), no old objects or orphan data left, keys on the Tail
# bones in every action, the body posed where it was, and the result card naming the tail.
# Before that: a missing CLI is a clear error, and tail=False only reports.
#
# Usage: blender -b --factory-startup --python-exit-code 1 --python tests/blender/test_addon.py
#            -- ZIP SINEW   (the add-on zip, the sinew executable)
# Environment: SINEW_MODELS (the shared models folder). Exit 0 passed, 1 failed, 77 skipped
# (no models), 2 bad usage.
import json
import os
import shutil
import sys
import tempfile
import time
import zipfile

import addon_utils
import bpy
from mathutils import Matrix

failures = 0
tmp = ""  # the folder the add-on is unpacked into, removed at the end


def check(ok, what):
    global failures
    print(f"{'ok  ' if ok else 'FAIL'} {what}")
    if not ok:
        failures += 1
    return ok


def enable_from_zip(zip_path, folder):
    """Unpacks the add-on zip into `folder` and enables it from there: the zip is what a user
    installs, and this leaves the user's own add-on folder alone."""
    with zipfile.ZipFile(zip_path) as z:
        z.extractall(folder)
    sys.path.insert(0, folder)
    module = addon_utils.enable("sinew_blender", default_set=True, handle_error=None)
    return module is not None


class FakeLayout:
    """Stands in for a panel's layout (there is none without a window) and counts labels."""

    def __init__(self):
        self.labels = []

    def label(self, text="", icon='NONE'):
        self.labels.append(text)

    def prop(self, data, name, **kwargs):
        getattr(data, name)  # a property the panel names must exist

    def operator(self, idname, **kwargs):
        return type("OperatorProperties", (), {})()

    def column(self, **kwargs):
        return self

    def box(self):
        return self


def draw_panel():
    """Draws the sidebar panel into a FakeLayout; returns the number of labels it drew."""
    panel = bpy.types.SINEW_PT_rig
    if not check(panel.poll(bpy.context), "the panel shows for the active armature"):
        return 0
    layout = FakeLayout()
    panel.draw(type("Panel", (), {"layout": layout})(), bpy.context)
    return len(layout.labels)


def body_pose(armature, bone, frame):
    """World position of `bone`'s head at `frame` (the body, which sinew must not move)."""
    bpy.context.scene.frame_set(frame)
    return armature.matrix_world @ armature.pose.bones[bone].head


def same_matrix(a, b):
    """Whether two 4x4 matrices agree to float32 rounding of a round trip."""
    return all(abs(x - y) < 1e-4 for ra, rb in zip(a, b) for x, y in zip(ra, rb))


def tail_keys(action):
    """The values of Tail_1's rotation keys in `action`, per fcurve (what sinew bakes)."""
    return [[round(k.co[1], 5) for k in fc.keyframe_points] for fc in action.fcurves
            if fc.data_path == 'pose.bones["Tail_1"].rotation_quaternion']


def tail_weights(mesh):
    """Number of (vertex, Tail_* group) pairs with a weight above zero."""
    tail = {g.index for g in mesh.vertex_groups if g.name.startswith("Tail_")}
    return sum(1 for v in mesh.data.vertices for g in v.groups
               if g.group in tail and g.weight > 0)


def main():
    argv = sys.argv[sys.argv.index("--") + 1:] if "--" in sys.argv else []
    if len(argv) != 2:
        sys.stderr.write("usage: blender -b --factory-startup --python-exit-code 1 --python "
                         "test_addon.py -- ZIP SINEW\n")
        sys.exit(2)
    zip_path, sinew = argv
    fox = os.path.join(os.environ.get("SINEW_MODELS", ""), "notail", "Fox.glb")
    if not os.path.isfile(fox):
        print(f"note: {fox} is absent (SINEW_MODELS): skipping")
        sys.exit(77)
    start = time.time()
    bpy.ops.wm.read_factory_settings(use_empty=True)
    global tmp
    tmp = tempfile.mkdtemp(prefix="sinew_addon_test_")
    if not check(enable_from_zip(zip_path, tmp), f"the add-on enables from {zip_path}"):
        sys.exit(1)
    prefs = bpy.context.preferences.addons["sinew_blender"].preferences
    check(prefs.cli_path == "", "the CLI preference starts empty")

    import numpy
    if "bool" not in numpy.__dict__:  # the glTF add-on of Blender 3.4 on numpy >= 1.24
        numpy.bool = bool
    bpy.ops.import_scene.gltf(filepath=fox)
    arm = bpy.data.objects["root"]
    mesh = bpy.data.objects["fox"]
    materials = [s.material for s in mesh.material_slots]
    rig = bpy.data.collections.new("Rig")
    bpy.context.scene.collection.children.link(rig)
    for obj in (arm, mesh):
        for coll in list(obj.users_collection):
            coll.objects.unlink(obj)
        rig.objects.link(obj)
    arm.matrix_world = Matrix.Translation((30, -20, 5)) @ Matrix.Rotation(0.5, 4, 'Z')
    bpy.context.view_layer.update()
    world = arm.matrix_world.copy()
    mesh_world = mesh.matrix_world.copy()
    active = arm.animation_data.action.name
    actions = sorted(a.name for a in bpy.data.actions)
    head_before = body_pose(arm, "b_Head_05", 10)
    size = max(arm.dimensions) or 1.0
    bpy.ops.object.select_all(action='DESELECT')
    arm.select_set(True)
    bpy.context.view_layer.objects.active = arm

    # No CLI: a clear error, nothing changed. The preference comes before SINEW_CLI.
    missing = os.path.join(tmp, "no-such-sinew")
    for pref, env, where in (("", missing, "SINEW_CLI"), (missing, sinew, "preference")):
        prefs.cli_path = pref
        os.environ["SINEW_CLI"] = env
        try:
            bpy.ops.sinew.rig_appendages(tail=True, bake=True)
            check(False, f"a missing CLI ({where}) makes the operator fail")
        except RuntimeError as e:
            check("sinew CLI not found" in str(e) and where in str(e),
                  f"a missing CLI ({where}) is a clear error: {e}")

    # tail=False, the CLI from the preference: the card says what is there, the rig, the
    # selection and the active object stay as they were.
    prefs.cli_path = sinew
    os.environ.pop("SINEW_CLI")
    check(bpy.ops.sinew.rig_appendages(tail=False, bake=False) == {'FINISHED'},
          "tail=False runs (the CLI from the preference)")
    card = json.loads(bpy.context.scene.sinew.last_result)
    check(not card["applied"] and card["chains"] == 1, "tail=False finds the tail, applies nothing")
    check(bpy.data.objects.get("root") == arm and "Tail_1" not in arm.data.bones,
          "tail=False leaves the rig alone")
    check(arm.select_get() and not mesh.select_get() and
          bpy.context.view_layer.objects.active == arm, "the selection is as it was")
    draw_panel()
    prefs.cli_path = ""
    os.environ["SINEW_CLI"] = sinew

    # Spring settings the CLI refuses: its own message is the operator's error.
    try:
        bpy.ops.sinew.rig_appendages(tail=True, bake=True, frequency=100, damping=0.01)
        check(False, "a spring the CLI refuses makes the operator fail")
    except RuntimeError as e:
        check("--frequency" in str(e), f"the CLI's refusal is the error: {e}")
    check(bpy.data.objects.get("root") == arm, "a refused run leaves the rig alone")

    mesh.hide_set(True)  # a hidden mesh is rigged too, and stays hidden

    t = time.time()
    result = bpy.ops.sinew.rig_appendages(tail=True, bake=True)
    print(f"note: the operator took {time.time() - t:.1f} s")
    check(result == {'FINISHED'}, f"rig_appendages(tail=True, bake=True) finished: {result}")

    arms = [o for o in bpy.data.objects if o.type == 'ARMATURE']
    meshes = [o for o in bpy.data.objects if o.type == 'MESH']
    check(len(arms) == 1 and len(meshes) == 1,
          f"one armature and one mesh left: {[o.name for o in bpy.data.objects]}")
    arm = bpy.data.objects.get("root")
    mesh = bpy.data.objects.get("fox")
    if not check(arm is not None and arm.type == 'ARMATURE' and mesh is not None,
                 "the new objects keep the names root and fox"):
        sys.exit(1)
    check([c.name for c in arm.users_collection] == ["Rig"] and
          [c.name for c in mesh.users_collection] == ["Rig"], "both stay in the collection Rig")
    check(same_matrix(arm.matrix_world, world), "the armature keeps its world transform")
    check(same_matrix(mesh.matrix_world, mesh_world), "the mesh keeps its world transform")
    check(mesh.parent == arm and any(m.type == 'ARMATURE' and m.object == arm
                                     for m in mesh.modifiers),
          "the mesh is skinned to the new armature")
    bones = [b.name for b in arm.data.bones if b.name.startswith("Tail_")]
    check({"Tail_1", "Tail_End"} <= set(bones), f"Tail bones in the armature: {bones}")
    weights = tail_weights(mesh)
    check(weights > 100, f"Tail_* vertex groups with weights: {weights} vertex weights")
    now = [s.material for s in mesh.material_slots]
    check(now == materials, f"the mesh has the original materials: {[m.name for m in now]}")
    check(sorted(m.name for m in bpy.data.materials) == sorted(m.name for m in materials),
          f"no imported copies of materials left: {[m.name for m in bpy.data.materials]}")
    check(len(bpy.data.meshes) == 1 and len(bpy.data.armatures) == 1,
          f"no orphan mesh or armature data: {[m.name for m in bpy.data.meshes]} "
          f"{[a.name for a in bpy.data.armatures]}")
    check(sorted(a.name for a in bpy.data.actions) == actions,
          f"the actions keep their names and the old ones are gone: "
          f"{sorted(a.name for a in bpy.data.actions)}")
    check(arm.animation_data.action is not None and arm.animation_data.action.name == active,
          f"the active action is still {active}")
    for action in bpy.data.actions:
        keys = [len(fc.keyframe_points) for fc in action.fcurves
                if 'pose.bones["Tail_1"]' in fc.data_path]
        check(keys and min(keys) > 1, f"{action.name} has keys on Tail_1: {keys}")
    head_after = body_pose(arm, "b_Head_05", 10)
    check((head_after - head_before).length < 1e-3 * size,
          f"the head is where it was at frame 10: moved {(head_after - head_before).length:.2e}")

    card = json.loads(bpy.context.scene.sinew.last_result)
    tails = [p for p in card["pieces"] if p["verdict"] == "tail"]
    check(card["applied"] and card["armature"] == "root", "the card is for root, applied")
    check(len(tails) == 1 and tails[0]["bones"][0] == "Tail_1" and tails[0]["reason"],
          f"the card has the tail with its reason: {tails}")
    check(card["headline"].startswith("tail: Tail_1..Tail_End"), f"headline: {card['headline']}")
    check(len(card["pieces"]) > 1 and all(p["reason"] for p in card["pieces"]),
          f"every piece has its reason ({len(card['pieces'])} pieces)")
    check(draw_panel() > len(card["pieces"]), "the panel draws the card, a line per piece")
    check(mesh.hide_get(), "the hidden mesh stays hidden")

    # Again: the skeleton has sinew's tail now, so nothing is grown; without Bake nothing is
    # replaced, with Bake the chain is baked again with the new spring settings.
    check(bpy.ops.sinew.rig_appendages(tail=True, bake=False) == {'FINISHED'}, "a second run runs")
    card = json.loads(bpy.context.scene.sinew.last_result)
    check(not card["applied"] and card["headline"].startswith("no tail to grow"),
          f"a second run grows nothing: {card['headline']}")
    check(bpy.data.objects.get("root") == arm, "a second run without Bake leaves the rig alone")
    walk_keys = tail_keys(bpy.data.actions["Walk_root"])
    check(bpy.ops.sinew.rig_appendages(tail=True, bake=True, frequency=2.0) == {'FINISHED'},
          "a third run (Bake, 2 Hz) runs")
    card = json.loads(bpy.context.scene.sinew.last_result)
    arm = bpy.data.objects.get("root")
    mesh = bpy.data.objects.get("fox")
    check(card["applied"] and card["rebaked"], f"the third run bakes again: {card['headline']}")
    check(arm is not None and sorted(b.name for b in arm.data.bones if b.name.startswith("Tail_"))
          == sorted(bones), "the same Tail bones, once")
    check(mesh is not None and [s.material for s in mesh.material_slots] == materials,
          "the original materials again")
    rebaked = tail_keys(bpy.data.actions["Walk_root"])
    check(len(rebaked) == len(walk_keys) and rebaked != walk_keys,
          f"Walk's Tail_1 keys changed with the spring: {[len(k) for k in walk_keys]} -> "
          f"{[len(k) for k in rebaked]}, {walk_keys[0][:4]} -> {rebaked[0][:4]}")
    check(len(bpy.data.objects) == 2 and len(bpy.data.actions) == len(actions),
          "nothing left over from the third run")
    print(f"note: {time.time() - start:.1f} s in all")
    addon_utils.disable("sinew_blender", default_set=True)


try:
    main()
finally:
    if tmp:
        shutil.rmtree(tmp, ignore_errors=True)
sys.exit(1 if failures else 0)
