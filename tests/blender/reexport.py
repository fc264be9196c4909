# Writes a glTF file again the way a Blender user would: imported with Blender's glTF importer
# and exported with its glTF exporter (OUT_DIR/NAME.glb), and the same scene through Blender's
# FBX exporter and importer first (OUT_DIR/NAME_fbx.glb: leaf bones added, as Blender's FBX
# round trip adds them). The copies change what the original file's layout fixed: the unit
# scale is applied to the bind pose, vertices are split at seams and reordered, node indices
# change. tests/rig/test_rig_reexport.c checks that the tail finder does not mind.
#
# Usage: blender -b --factory-startup --python-exit-code 1 --python tests/blender/reexport.py
#            -- IN.glb OUT_DIR NAME
import os
import sys

import numpy

numpy.bool = bool  # Blender 3.4's glTF importer still uses the alias numpy removed
import bpy

argv = sys.argv[sys.argv.index("--") + 1:]
if len(argv) != 3:
    print("usage: ... -- IN.glb OUT_DIR NAME", file=sys.stderr)
    sys.exit(2)
source, out_dir, name = argv


def fresh():
    bpy.ops.wm.read_factory_settings(use_empty=True)


fresh()
bpy.ops.import_scene.gltf(filepath=source)
bpy.ops.export_scene.gltf(filepath=os.path.join(out_dir, name + ".glb"), export_format="GLB")
fbx = os.path.join(out_dir, name + ".fbx")
bpy.ops.export_scene.fbx(filepath=fbx, add_leaf_bones=True)
fresh()
bpy.ops.import_scene.fbx(filepath=fbx)
bpy.ops.export_scene.gltf(filepath=os.path.join(out_dir, name + "_fbx.glb"), export_format="GLB")
