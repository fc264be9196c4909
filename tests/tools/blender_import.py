# Imports one .glb/.gltf into a fresh Blender (its glTF add-on) and writes what Blender saw
# as JSON, so tests can check that Blender reads sinew's output (bones, animations):
#   {"file": "...", "ok": true,
#    "armatures": [{"name": "Armature", "bones": ["Hips", ...]}],
#    "meshes": [{"name": "...", "vertices": 1728, "skinned": true}],
#    "actions": [{"name": "Walk", "frame_range": [1, 25], "bones": ["Hips", ...],
#                 "objects": []}]}
# Blender 3.4 names an action "<glTF animation>_<armature object>" (Fox's Walk becomes
# "Walk_root"), and frame_range is in frames at the scene's 24 fps by default.
# "bones" of an action are the bone names that have at least one fcurve in it (from
# pose.bones["NAME"] data paths); "objects" counts other fcurves (object-level paths).
# Blender keeps actions that no object uses only when they have users: the glTF importer
# stashes them in NLA tracks, so every action in bpy.data.actions is listed.
#
# Usage (Debian blender 3.4, headless):
#   blender -b --factory-startup --python-exit-code 1 -P tests/tools/blender_import.py -- FILE OUT.json
# Exit: 0 when the import succeeded and OUT.json was written; 1 (through --python-exit-code)
# when the import raised (OUT.json then holds {"ok": false, "error": "..."}), 2 on bad usage.
# Takes a few seconds per file (Blender start-up); give ctest a generous timeout.
import json
import re
import sys

# Blender 3.4's glTF add-on uses numpy.bool, removed in numpy 1.24: restore it before the
# add-on is imported.
import numpy

numpy.bool = bool  # unconditionally: hasattr() itself warns on numpy 1.24

import bpy  # noqa: E402


def main():
    argv = sys.argv[sys.argv.index("--") + 1:] if "--" in sys.argv else []
    if len(argv) != 2:
        sys.stderr.write("usage: blender -b --factory-startup --python-exit-code 1 "
                         "-P blender_import.py -- FILE OUT.json\n")
        sys.exit(2)
    path, out = argv
    result = {"file": path, "ok": False}
    try:
        bpy.ops.wm.read_factory_settings(use_empty=True)
        status = bpy.ops.import_scene.gltf(filepath=path)
        if "FINISHED" not in status:
            raise RuntimeError("import_scene.gltf returned %s" % sorted(status))
        armatures = []
        meshes = []
        for obj in bpy.data.objects:
            if obj.type == "ARMATURE":
                armatures.append({"name": obj.name,
                                  "bones": [b.name for b in obj.data.bones]})
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
    except Exception as e:  # report, then fail through --python-exit-code
        result["error"] = "%s: %s" % (type(e).__name__, e)
        with open(out, "w") as f:
            json.dump(result, f, indent=1)
        raise
    with open(out, "w") as f:
        json.dump(result, f, indent=1)


main()
