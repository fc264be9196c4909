"""The operator: send the selected rig through `sinew tail` and put the result in its place."""
import json
import os
import tempfile

import bpy
from bpy.props import BoolProperty, FloatProperty

from . import card, cli, swap


def addon_preferences(context):
    """This add-on's preferences, or None when it runs without being installed (a script that
    imported the package directly)."""
    addon = context.preferences.addons.get(__package__)
    return addon.preferences if addon else None


def target_armature(context):
    """The armature the panel and the operator work on: the active object, if an armature."""
    obj = context.active_object
    return obj if obj is not None and obj.type == 'ARMATURE' else None


class SINEW_OT_rig_appendages(bpy.types.Operator):
    """Find the appendages no bone runs inside; give a tail its own bones, re-weighted, with
    its spring motion baked into every clip (the sinew CLI's 'sinew tail')"""
    bl_idname = "sinew.rig_appendages"
    bl_label = "Rig appendages"
    bl_options = {'REGISTER', 'UNDO'}

    tail: BoolProperty(name="Tail", default=True,
                       description="Give a tail its bone chain and put the result in place of "
                                   "the rig; off: only report what is found")
    bake: BoolProperty(name="Bake", default=True,
                       description="Simulate the tail's spring motion and bake it into every "
                                   "clip (off: the clips are copied unchanged)")
    frequency: FloatProperty(name="Frequency", default=cli.FREQUENCY_DEFAULT,
                             min=cli.FREQUENCY_MIN, max=cli.FREQUENCY_MAX, soft_max=5.0,
                             unit='NONE', precision=2,
                             description="Root link frequency in Hz; the tip gets half")
    damping: FloatProperty(name="Damping", default=cli.DAMPING_DEFAULT,
                           min=cli.DAMPING_MIN, max=cli.DAMPING_MAX, soft_max=2.0, precision=2,
                           description="Damping ratio of the springs")
    carry: FloatProperty(name="Carry", default=cli.CARRY_DEFAULT,
                         min=cli.CARRY_MIN, max=cli.CARRY_MAX, precision=1,
                         description="Elevation of the whole tail in degrees, shared among "
                                     "its joints")

    @classmethod
    def poll(cls, context):
        return target_armature(context) is not None

    def execute(self, context):
        armature = target_armature(context)
        prefs = addon_preferences(context)
        try:
            path = cli.find_cli(prefs.cli_path if prefs else "")
            result = self.run(context, path, armature)
        except (cli.SinewError, RuntimeError) as e:
            self.report({'ERROR'}, str(e))
            return {'CANCELLED'}
        context.scene.sinew.last_result = json.dumps(result)
        self.report({'INFO'}, card.info_line(result))
        return {'FINISHED'}

    def run(self, context, path, armature):
        """Export, run the CLI, import and replace; returns the result card."""
        if context.mode != 'OBJECT':
            bpy.ops.object.mode_set(mode='OBJECT')
        meshes = swap.skinned_meshes(armature, context.scene)
        if not meshes:
            raise cli.SinewError(f"'{armature.name}' deforms no mesh: sinew needs the skin "
                                 "to find appendages")
        name = armature.name
        with tempfile.TemporaryDirectory(prefix="sinew_") as tmp:
            src = os.path.join(tmp, "rig.glb")
            out = os.path.join(tmp, "rig_sinew.glb")
            report_path = os.path.join(tmp, "report.json")
            swap.export_rig(armature, meshes, src)
            args = cli.tail_command(path, src, out, report_path, bake=self.bake,
                                    frequency=self.frequency, damping=self.damping,
                                    carry=self.carry)
            cli.run(args)
            report = cli.read_report(report_path)
            # Nothing to put back when no chain was grown (the CLI then writes a copy), or when
            # the user only asked what is there; but a chain sinew grew before is baked again,
            # so that a second run with other spring settings shows them.
            apply = self.tail and report.get("chains", 0) > 0
            rebake = self.tail and self.bake and not apply and cli.own_chain(report)
            if rebake:
                cli.run(cli.bake_command(path, src, out, frequency=self.frequency,
                                         damping=self.damping, carry=self.carry))
            if apply or rebake:
                self.put_back(context, armature, meshes, src, out)
        return card.make_card(report, name, apply or rebake, self.bake, rebaked=rebake)

    @staticmethod
    def put_back(context, armature, meshes, src, out):
        """Imports the CLI's output in place of `armature` and `meshes`."""
        # The exporter splits vertices at UV and normal seams. A mesh made in Blender comes
        # back whole when the importer merges them again; a mesh that came from glTF was
        # already split, and merging would join vertices its author kept apart.
        merge = swap.glb_vertex_count(src) > sum(len(m.data.vertices) for m in meshes)
        old = swap.OldRig(armature, meshes)
        old.move_aside()
        try:
            created = swap.import_rig(out, merge)
        except Exception:
            old.restore_names()
            raise
        new_arm = swap.replace_rig(old, created)
        if new_arm.name in context.view_layer.objects:
            context.view_layer.objects.active = new_arm
