"""sinew for Blender: rig the appendages of an auto-rigged character with the sinew CLI.

View3D > Sidebar > sinew, with an armature selected: "Rig appendages" exports the armature
and its skinned meshes to glTF, runs `sinew tail` on it (a tail gets a bone chain, re-weighted
skin and baked spring motion), imports the result in place of the originals (same names,
collections, transforms and materials) and shows what was found for each piece and why.
"""

bl_info = {
    "name": "sinew",
    "author": "sinew contributors",
    "version": (0, 1, 0),
    "blender": (3, 4, 0),
    "location": "View3D > Sidebar > sinew",
    "description": "Finds a character's tail, gives it bones and baked spring motion (sinew CLI)",
    "category": "Rigging",
}

import bpy  # noqa: E402
from bpy.props import StringProperty  # noqa: E402

from . import ops, panel  # noqa: E402


class SinewPreferences(bpy.types.AddonPreferences):
    bl_idname = __package__

    cli_path: StringProperty(
        name="sinew CLI", subtype='FILE_PATH', default="",
        description="The sinew executable; empty: $SINEW_CLI, else 'sinew' on PATH")

    def draw(self, context):
        self.layout.prop(self, "cli_path")
        self.layout.label(text="Empty: the SINEW_CLI environment variable, else 'sinew' on PATH")


CLASSES = (SinewPreferences, panel.SinewSettings, ops.SINEW_OT_rig_appendages,
           panel.SINEW_PT_rig)


def register():
    for cls in CLASSES:
        bpy.utils.register_class(cls)
    panel.register_settings()


def unregister():
    panel.unregister_settings()
    for cls in reversed(CLASSES):
        bpy.utils.unregister_class(cls)
