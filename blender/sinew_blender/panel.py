"""The sidebar panel (View3D > Sidebar > sinew), its settings and the result card."""
import json

import bpy
from bpy.props import BoolProperty, FloatProperty, PointerProperty, StringProperty

from . import cli
from .ops import target_armature


class SinewSettings(bpy.types.PropertyGroup):
    """The panel's settings (passed to the operator) and the last run's result card."""
    tail: BoolProperty(name="Tail", default=True,
                       description="Give a tail its bone chain; off: only report what is found")
    bake: BoolProperty(name="Bake", default=True,
                       description="Bake the tail's spring motion into every clip")
    frequency: FloatProperty(name="Frequency (Hz)", default=cli.FREQUENCY_DEFAULT,
                             min=cli.FREQUENCY_MIN, max=cli.FREQUENCY_MAX, soft_max=5.0,
                             precision=2, description="Root link frequency; the tip gets half")
    damping: FloatProperty(name="Damping", default=cli.DAMPING_DEFAULT, min=cli.DAMPING_MIN,
                           max=cli.DAMPING_MAX, soft_max=2.0, precision=2,
                           description="Damping ratio of the springs")
    carry: FloatProperty(name="Carry (°)", default=cli.CARRY_DEFAULT, min=cli.CARRY_MIN,
                         max=cli.CARRY_MAX, precision=1,
                         description="Elevation of the whole tail, shared among its joints")
    # The result card as JSON (card.make_card): kept with the scene so it is still there
    # after an undo step or a save.
    last_result: StringProperty(name="Last result", default="")


def last_card(scene):
    """The last result card stored on `scene`, or None."""
    try:
        return json.loads(scene.sinew.last_result) if scene.sinew.last_result else None
    except ValueError:
        return None


class SINEW_PT_rig(bpy.types.Panel):
    bl_label = "sinew"
    bl_idname = "SINEW_PT_rig"
    bl_space_type = 'VIEW_3D'
    bl_region_type = 'UI'
    bl_category = "sinew"

    @classmethod
    def poll(cls, context):
        return target_armature(context) is not None

    def draw(self, context):
        layout = self.layout
        settings = context.scene.sinew
        layout.prop(settings, "tail")
        col = layout.column(align=True)
        col.enabled = settings.tail
        col.prop(settings, "frequency")
        col.prop(settings, "damping")
        col.prop(settings, "carry")
        layout.prop(settings, "bake")
        op = layout.operator("sinew.rig_appendages", icon='BONE_DATA')
        for name in ("tail", "bake", "frequency", "damping", "carry"):
            setattr(op, name, getattr(settings, name))
        draw_card(layout, last_card(context.scene))


def draw_card(layout, result):
    """The result card: the headline, then one line per piece with its verdict and reason."""
    if not result:
        return
    box = layout.box()
    box.label(text=f"Last run on {result['armature']}", icon='INFO')
    for line in wrap(result["headline"], 48):
        box.label(text=line)
    if result.get("check"):
        box.label(text=result["check"])
    for row in result["pieces"]:
        icon = 'BONE_DATA' if "bones" in row else 'DOT'
        box.label(text=f"#{row['piece']} {row['verdict']}: {row['vertices']} verts, "
                       f"{row['joint']}", icon=icon)
        for line in wrap(row["reason"], 44):
            box.label(text="    " + line)
    if result.get("small_protrusions"):
        box.label(text=f"+ {result['small_protrusions']} bumps beyond bone ends: unchanged")


def wrap(text, width):
    """Splits `text` at spaces into lines of at most about `width` characters (a panel label
    does not wrap by itself)."""
    lines, line = [], ""
    for word in text.split():
        if line and len(line) + 1 + len(word) > width:
            lines.append(line)
            line = word
        else:
            line = f"{line} {word}" if line else word
    if line:
        lines.append(line)
    return lines


def register_settings():
    bpy.types.Scene.sinew = PointerProperty(type=SinewSettings)


def unregister_settings():
    del bpy.types.Scene.sinew
