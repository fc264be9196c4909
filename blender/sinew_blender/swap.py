"""Sending a rig through glTF and putting the result back in place of the original."""
import json
import re
import struct

import bpy

# The kinds of data an import creates and a replacement may leave orphaned.
DATA_KINDS = ("objects", "meshes", "armatures", "materials", "images", "textures", "actions")


def gltf_numpy_compat():
    """Blender 3.4's glTF add-on uses numpy.bool, which numpy 1.24 removed; put it back.

    Checked through __dict__ because numpy's module __getattr__ warns on the name itself.
    """
    import numpy
    if "bool" not in numpy.__dict__:
        numpy.bool = bool


def skinned_meshes(armature, scene):
    """The meshes in `scene` that `armature` deforms (an Armature modifier on it, or parented
    to it with the armature parent type), in a stable order."""
    found = []
    for obj in scene.objects:
        if obj.type != 'MESH':
            continue
        by_modifier = any(m.type == 'ARMATURE' and m.object == armature for m in obj.modifiers)
        by_parent = obj.parent == armature and obj.parent_type == 'ARMATURE'
        if by_modifier or by_parent:
            found.append(obj)
    return sorted(found, key=lambda o: o.name)


def export_rig(armature, meshes, path):
    """Writes the armature, its meshes and every animation to the .glb `path`, Y up.

    The export works on the selection; the user's selection, active object and hidden
    objects are as they were afterwards.
    """
    gltf_numpy_compat()
    layer = bpy.context.view_layer
    selected = [o for o in layer.objects if o.select_get()]
    active = layer.objects.active
    hidden = [o for o in [armature] + meshes if o.hide_get()]
    try:
        bpy.ops.object.select_all(action='DESELECT')
        for obj in [armature] + meshes:
            obj.hide_set(False)  # use_selection skips what cannot be selected
            obj.select_set(True)
        layer.objects.active = armature
        bpy.ops.export_scene.gltf(filepath=path, export_format='GLB', use_selection=True,
                                  export_animations=True, export_yup=True, export_apply=False)
    finally:
        bpy.ops.object.select_all(action='DESELECT')
        for obj in selected:
            obj.select_set(True)
        for obj in hidden:
            obj.hide_set(True)
        layer.objects.active = active


def glb_vertex_count(path):
    """The number of vertices (POSITION entries) over every mesh primitive of a .glb file."""
    with open(path, "rb") as f:
        header = f.read(20)
        if len(header) < 20 or header[:4] != b"glTF":
            return 0
        length, kind = struct.unpack_from("<II", header, 12)
        if kind != 0x4E4F534A:  # "JSON"
            return 0
        doc = json.loads(f.read(length))
    accessors = doc.get("accessors", [])
    total = 0
    for mesh in doc.get("meshes", []):
        for prim in mesh.get("primitives", []):
            index = prim.get("attributes", {}).get("POSITION")
            if index is not None and index < len(accessors):
                total += accessors[index].get("count", 0)
    return total


def snapshot():
    """The datablocks present now, per kind, to tell later which ones an import created."""
    return {kind: set(getattr(bpy.data, kind)) for kind in DATA_KINDS}


def created_since(before):
    """The datablocks created since `before` (a snapshot()), per kind."""
    return {kind: [d for d in getattr(bpy.data, kind) if d not in before[kind]]
            for kind in DATA_KINDS}


def import_rig(path, merge_vertices):
    """Imports a .glb and returns the datablocks it created, per kind. An import that fails
    leaves no objects behind."""
    gltf_numpy_compat()
    before = snapshot()
    try:
        bpy.ops.import_scene.gltf(filepath=path, merge_vertices=merge_vertices)
    except Exception:
        discard(created_since(before))
        raise
    return created_since(before)


def discard(created):
    """Removes the objects of an import (created_since) and the data only they used."""
    for obj in created["objects"]:
        bpy.data.objects.remove(obj, do_unlink=True)
    for kind in ("meshes", "armatures", "actions", "materials", "textures", "images"):
        remove_orphans(created[kind], getattr(bpy.data, kind))


def base_name(name):
    """A datablock name without Blender's ".001" de-duplication suffix."""
    return re.sub(r"\.\d{3,}$", "", name)


class OldRig:
    """What the replacement must carry over from the original rig, read before the import.

    The originals are renamed out of the way so that the imported objects (which the glTF
    round trip names after them) come in under their exact names.
    """

    SUFFIX = ".sinew_old"

    def __init__(self, armature, meshes):
        self.armature = armature
        self.meshes = list(meshes)
        self.names = {obj: obj.name for obj in [armature] + self.meshes}
        self.data_names = {obj: obj.data.name for obj in [armature] + self.meshes}
        anim = armature.animation_data
        self.active_action = anim.action.name if anim and anim.action else ""
        self.actions = set()
        if anim:
            if anim.action:
                self.actions.add(anim.action)
            for track in anim.nla_tracks:
                self.actions.update(s.action for s in track.strips if s.action)

    def move_aside(self):
        for obj in self.names:
            obj.name = self.names[obj] + self.SUFFIX

    def restore_names(self):
        for obj, name in self.names.items():
            obj.name = name

    def forget(self, removed):
        """Drops objects that were deleted, so that restore_names leaves them alone."""
        self.names = {o: n for o, n in self.names.items() if o not in removed}


def adopt_placement(new, old):
    """Puts `new` where `old` is: its collections, its parent (and parent bone), its world
    transform and whether it is hidden."""
    for coll in list(new.users_collection):
        coll.objects.unlink(new)
    for coll in old.users_collection:
        coll.objects.link(new)
    new.parent = old.parent
    new.parent_type = old.parent_type
    new.parent_bone = old.parent_bone
    new.matrix_world = old.matrix_world.copy()
    new.hide_render = old.hide_render
    new.hide_viewport = old.hide_viewport
    # Hiding and selecting are per view layer: only for an object the active layer shows (its
    # collection may be excluded).
    if new.name in bpy.context.view_layer.objects:
        new.hide_set(old.hide_get())
        new.select_set(old.select_get())


def reassign_materials(new_mesh, old_mesh):
    """Gives the imported mesh the original's materials: the one of the same name (the glTF
    round trip keeps names, de-duplicated), else the one in the same slot."""
    old_slots = [s.material for s in old_mesh.material_slots]
    by_name = {m.name: m for m in old_slots if m}
    for i, slot in enumerate(new_mesh.material_slots):
        imported = slot.material
        original = by_name.get(base_name(imported.name)) if imported else None
        if original is None and i < len(old_slots):
            original = old_slots[i]
        if original is not None:
            slot.material = original


def remove_orphans(datablocks, collection):
    """Removes those of `datablocks` that nothing uses any more."""
    for block in datablocks:
        if block.users == 0:
            collection.remove(block)


def replace_rig(old, created):
    """Replaces the original rig (an OldRig, moved aside) by the imported one (`created`, from
    import_rig): same object and data names, collections, parents, world transforms and
    materials; the originals and the data only they used are removed. Returns the new
    armature object."""
    armatures = [o for o in created["objects"] if o.type == 'ARMATURE']
    if len(armatures) != 1:
        discard(created)
        old.restore_names()
        raise RuntimeError(f"the CLI's output imported {len(armatures)} armatures, not one")
    new_arm = armatures[0]
    new_meshes = {o.name: o for o in created["objects"] if o.type == 'MESH'}
    adopt_placement(new_arm, old.armature)

    pairs = []  # (original, its replacement)
    for old_mesh in old.meshes:
        new_mesh = new_meshes.pop(old.names[old_mesh], None)
        if new_mesh is None:
            continue  # the CLI writes every mesh it read; keep the original if one is missing
        adopt_placement(new_mesh, old_mesh)
        if old_mesh.parent == old.armature:
            new_mesh.parent = new_arm
            new_mesh.parent_type = old_mesh.parent_type
            new_mesh.matrix_world = old_mesh.matrix_world.copy()
        for mod in new_mesh.modifiers:
            if mod.type == 'ARMATURE':
                mod.object = new_arm
        reassign_materials(new_mesh, old_mesh)
        pairs.append((old_mesh, new_mesh))

    # Other objects hanging from the old armature (a prop on a bone) move to the new one.
    replaced = [o for o, _ in pairs]
    for child in list(old.armature.children):
        if child not in replaced:
            world = child.matrix_world.copy()
            child.parent = new_arm
            child.matrix_world = world

    # Whatever else the file held (nothing, from sinew's output of this export) goes too.
    for extra in list(new_meshes.values()) + [o for o in created["objects"]
                                              if o.type not in ('ARMATURE', 'MESH')]:
        bpy.data.objects.remove(extra, do_unlink=True)

    # Names and data are read before the originals go: a removed object cannot be asked.
    renames = [(new, old.names[o], old.data_names[o]) for o, new in pairs]
    renames.append((new_arm, old.names[old.armature], old.data_names[old.armature]))
    old_meshes_data = [o.data for o in replaced]
    old_arm_data = old.armature.data
    old.forget(replaced + [old.armature])
    old.restore_names()  # the meshes that were kept, if any
    for obj in replaced + [old.armature]:
        bpy.data.objects.remove(obj, do_unlink=True)
    remove_orphans(old_meshes_data, bpy.data.meshes)
    remove_orphans([old_arm_data], bpy.data.armatures)
    remove_orphans(old.actions, bpy.data.actions)
    remove_orphans(created["materials"], bpy.data.materials)
    remove_orphans(created["textures"], bpy.data.textures)
    remove_orphans(created["images"], bpy.data.images)

    # The new objects and data take the names the old ones had, now free.
    for obj, name, data_name in renames:
        obj.name = name
        obj.data.name = data_name
    for action in created["actions"]:
        name = base_name(action.name)
        if name != action.name and name not in bpy.data.actions:
            action.name = name
    anim = new_arm.animation_data
    if anim:
        anim.action = bpy.data.actions.get(old.active_action) if old.active_action else None
    return new_arm
