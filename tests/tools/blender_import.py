# Imports one .glb/.gltf into a fresh Blender (its glTF add-on) and writes what Blender saw
# as JSON, so tests can check that Blender reads sinew's output (bones, animations):
#   {"file": "...", "ok": true,
#    "armatures": [{"name": "Armature", "bones": ["Hips", ...],
#                   "heads": [[x, y, z], ...], "tails": [[x, y, z], ...]}],
#    "meshes": [{"name": "...", "vertices": 1728, "skinned": true}],
#    "actions": [{"name": "Walk", "frame_range": [1, 25], "bones": ["Hips", ...],
#                 "objects": []}]}
# Blender 3.4 names an action "<glTF animation>_<armature object>" (Fox's Walk becomes
# "Walk_root"), and frame_range is in frames at the scene's 24 fps by default.
# An armature's "heads" and "tails" are its bones' ends in armature space, in "bones" order:
# the importer sets a bone's head at its glTF node's origin and points it along the node's +Y
# axis (its default bone heuristic), so a tail shows the direction Blender draws the bone in.
# "bones" of an action are the bone names that have at least one fcurve in it (from
# pose.bones["NAME"] data paths); "objects" counts other fcurves (object-level paths).
# Blender keeps actions that no object uses only when they have users: the glTF importer
# stashes them in NLA tracks, so every action in bpy.data.actions is listed.
#
# Optional pose dump, to check what Blender PLAYS (tests/motion/outputs.mjs blender):
#   ... -- FILE OUT.json --pose POSES.json
# POSES.json: {"bones": ["Hips", "Tail_1", ...],
#              "samples": [{"animation": "Walk", "time": 0.5}, {"animation": null, "time": 0}]}
# "animation" is the glTF animation's name as Blender's importer names its NLA tracks (the
# name, or "Anim_<index>" when it has none); null means the file's pose (no action at all).
# OUT.json then also holds
#   "fps": 24, "armature": "Armature", "missing_bones": [],
#   "poses": [{"animation": "Walk", "time": 0.5, "frame": 12.0, "heads": [[x, y, z], ...],
#              "first_matrix": [[4 numbers] x 4 rows]}]
# (one head per requested bone, in "bones" order; null for a bone the armature lacks), each
# in Blender world space (Z up): the armature object's matrix_world times the evaluated pose
# bone's head; first_matrix is the first requested bone's world matrix (rows), the armature's
# matrix_world times the pose bone's matrix: its frame is the glTF node's frame turned by a
# constant rotation (the importer's bone-axis heuristic), so a caller can compare positions
# relative to that bone. The importer puts a bone's head at its glTF node's origin and
# converts glTF (x, y, z) to Blender (x, -z, y), so a glTF world position p compares with
# (p.x, -p.z, p.y).
# How a time becomes a frame (io_scene_gltf2 3.4, blender/imp/gltf2_blender_animation_node.py):
# keys are written at frame = t * scene.render.fps (fps_base ignored; 24 after factory
# settings), with NO offset: glTF t = 0 is frame 0 of the action, although the importer's
# stashed NLA strips start at scene.frame_start (1). Those tracks are muted, so assigning the
# action to animation_data.action (what the importer itself does for the first animation,
# restore_animation_on_object) plays it unshifted; frame_set(floor(f), subframe=f - floor(f))
# reaches any instant. Before each animation every object takes that animation's action (or
# none when the animation does not touch it), and every pose bone and object goes back to its
# value right after import, i.e. the file's pose (the importer sets pose bones to the file's
# TRS relative to the edit bones; with --pose it is told, through its user-extension hook,
# not to assign the first animation, which the operator's closing update would otherwise play
# over those values), so channels an animation lacks keep the file's pose as glTF players do,
# not the previous action's last value. Meshes are deleted before posing (bones do not need
# them, and it keeps frame_set cheap).
#
# Usage (Debian blender 3.4, headless):
#   blender -b --factory-startup --python-exit-code 1 -P tests/tools/blender_import.py -- FILE OUT.json [--pose POSES.json]
# Exit: 0 when the import (and the pose dump) succeeded and OUT.json was written; 1 (through
# --python-exit-code) when either raised (OUT.json then holds {"ok": false, "error": "..."}),
# 2 on bad usage. Takes a few seconds per file (Blender start-up); give ctest a generous
# timeout.
import json
import math
import re
import sys

# Blender 3.4's glTF add-on uses numpy.bool, removed in numpy 1.24: restore it before the
# add-on is imported.
import numpy

numpy.bool = bool  # unconditionally: hasattr() itself warns on numpy 1.24

import bpy  # noqa: E402


def main():
    argv = sys.argv[sys.argv.index("--") + 1:] if "--" in sys.argv else []
    poses_path = None
    if len(argv) == 4 and argv[2] == "--pose":
        poses_path = argv[3]
        argv = argv[:2]
    if len(argv) != 2:
        sys.stderr.write("usage: blender -b --factory-startup --python-exit-code 1 "
                         "-P blender_import.py -- FILE OUT.json [--pose POSES.json]\n")
        sys.exit(2)
    path, out = argv
    result = {"file": path, "ok": False}
    try:
        bpy.ops.wm.read_factory_settings(use_empty=True)
        if poses_path:
            keep_file_pose()
        status = bpy.ops.import_scene.gltf(filepath=path)
        if "FINISHED" not in status:
            raise RuntimeError("import_scene.gltf returned %s" % sorted(status))
        armatures = []
        meshes = []
        for obj in bpy.data.objects:
            if obj.type == "ARMATURE":
                armatures.append({"name": obj.name,
                                  "bones": [b.name for b in obj.data.bones],
                                  "heads": [list(b.head_local) for b in obj.data.bones],
                                  "tails": [list(b.tail_local) for b in obj.data.bones]})
            elif obj.type == "MESH":
                skinned = any(m.type == "ARMATURE" for m in obj.modifiers)
                meshes.append({"name": obj.name, "vertices": len(obj.data.vertices),
                               "skinned": skinned})
        bone_path = re.compile(r'^pose\.bones\["((?:[^"\\]|\\.)*)"\]')
        actions = []
        for action in bpy.data.actions:
            bones = []
            other = 0
            for fc in action.fcurves:
                m = bone_path.match(fc.data_path)
                if m:
                    name = m.group(1).replace('\\"', '"').replace("\\\\", "\\")
                    if name not in bones:
                        bones.append(name)
                else:
                    other += 1
            actions.append({"name": action.name,
                            "frame_range": [float(action.frame_range[0]),
                                            float(action.frame_range[1])],
                            "bones": bones, "objects": other})
        result.update(ok=True, armatures=armatures, meshes=meshes, actions=actions)
        if poses_path:
            with open(poses_path) as f:
                request = json.load(f)
            result.update(dump_poses(request))
    except Exception as e:  # report, then fail through --python-exit-code
        result["ok"] = False  # the pose dump may fail after the import succeeded
        result["error"] = "%s: %s" % (type(e).__name__, e)
        with open(out, "w") as f:
            json.dump(result, f, indent=1)
        raise
    with open(out, "w") as f:
        json.dump(result, f, indent=1)


class KeepFilePose:
    """A glTF importer user extension (the add-on's own hook API, which it looks up as
    glTF2ImportUserExtension on every enabled add-on module): it stops the importer from
    assigning the first animation's action after import. Otherwise the operator's closing
    depsgraph update plays that action at frame 1 and writes it over the pose bones (seen:
    Fox's hips 0.09 units off the file's pose), and the file's pose could not be restored."""

    def gather_import_animations(self, animations, animation_options, gltf):
        animation_options.restore_first_anim = False


def keep_file_pose():
    module = sys.modules.get("io_scene_gltf2")
    if module is None:
        raise RuntimeError("the glTF add-on (io_scene_gltf2) is not loaded")
    module.glTF2ImportUserExtension = KeepFilePose


def dump_poses(request):
    """Bone heads in Blender world space at each (animation, time) of the request."""
    scene = bpy.context.scene
    fps = scene.render.fps  # what the importer multiplied key times by
    names = request["bones"]
    arma = next((o for o in bpy.data.objects if o.type == "ARMATURE"
                 and any(n in o.data.bones for n in names)), None)
    if arma is None:
        raise RuntimeError("no armature holds any of the bones %s" % names)
    missing = [n for n in names if n not in arma.data.bones]
    for obj in [o for o in bpy.data.objects if o.type == "MESH"]:
        bpy.data.objects.remove(obj, do_unlink=True)
    # The file's pose, as the importer left it (KeepFilePose: no action was assigned).
    objects = list(bpy.data.objects)
    object_basis = {o.name: o.matrix_basis.copy() for o in objects}
    bone_basis = {}
    for o in objects:
        if o.type == "ARMATURE":
            for pb in o.pose.bones:
                bone_basis[(o.name, pb.name)] = (pb.rotation_mode, pb.location.copy(),
                                                 pb.rotation_quaternion.copy(),
                                                 pb.rotation_euler.copy(), pb.scale.copy())
    tracks = set()
    for o in objects:
        if o.animation_data:
            tracks.update(t.name for t in o.animation_data.nla_tracks)

    def play(animation):
        for o in objects:
            o.matrix_basis = object_basis[o.name]
            if o.type == "ARMATURE":
                for pb in o.pose.bones:
                    mode, loc, quat, euler, scale = bone_basis[(o.name, pb.name)]
                    pb.rotation_mode = mode
                    pb.location = loc
                    pb.rotation_quaternion = quat
                    pb.rotation_euler = euler
                    pb.scale = scale
            ad = o.animation_data
            if ad is None:
                continue
            action = None
            for track in ad.nla_tracks:
                if animation is not None and track.name == animation and track.strips:
                    action = track.strips[0].action
            ad.action = action

    poses = []
    current = ()  # no animation chosen yet (None is the file's pose)
    for sample in request["samples"]:
        animation, time = sample["animation"], float(sample["time"])
        if animation is not None and animation not in tracks:
            raise RuntimeError("no NLA track named %r (the importer's name for that animation)"
                               % animation)
        if animation != current:
            play(animation)
            current = animation
        frame = time * fps
        whole = math.floor(frame)
        scene.frame_set(int(whole), subframe=frame - whole)
        depsgraph = bpy.context.evaluated_depsgraph_get()
        arma_eval = arma.evaluated_get(depsgraph)
        heads = []
        for n in names:
            pb = arma_eval.pose.bones.get(n)
            heads.append(None if pb is None else list(arma_eval.matrix_world @ pb.head))
        first = arma_eval.pose.bones.get(names[0]) if names else None
        matrix = None if first is None else [list(r) for r in arma_eval.matrix_world @ first.matrix]
        poses.append({"animation": animation, "time": time, "frame": frame, "heads": heads,
                      "first_matrix": matrix})
    return {"fps": fps, "armature": arma.name, "missing_bones": missing, "poses": poses}


main()
