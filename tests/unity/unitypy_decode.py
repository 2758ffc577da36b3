#!/usr/bin/env python3
"""Decode mip 0 of every Texture2D and Cubemap of the shared Unity samples with UnityPy 1.25.4,
the independent reader tests/unity_pixels.rs compares our decoder against.

usage: unitypy_decode.py SAMPLES_ROOT OUT_DIR

Files are loaded one folder at a time (as tests/unity_census.rs opens them, so level0 pairs with
its own level0.resS). For each texture UnityPy decodes, OUT_DIR/<n>.rgba holds its pixels as
RGBA8, rows top first (UnityPy's default flip), and OUT_DIR/index.json lists
{file, path_id, container, name, width, height, format_id, rgba} (file relative to SAMPLES_ROOT); textures
UnityPy cannot decode are listed with "error" instead of "rgba".
"""
import json
import os
import sys

import UnityPy

# The two raw decoder test-vector folders hold no Unity containers (as in tests/unity_census.rs).
SKIP = {"AssetRipper_TextureDecoder", "UniversalGameExtraction_texture2ddecoder"}


def folders(root):
    for d, dirs, files in os.walk(root):
        dirs[:] = sorted(x for x in dirs if x not in SKIP)
        if d != root and files:
            yield d, sorted(os.path.join(d, f) for f in files)


def top_file(obj, env):
    """The user file an object came from (a bundle, or the serialized file itself)."""
    f = obj.assets_file
    while getattr(f, "parent", None) is not None and f.parent is not env:
        f = f.parent
    return f


def main():
    root, out = sys.argv[1], sys.argv[2]
    os.makedirs(out, exist_ok=True)
    index = []
    for _, paths in folders(root):
        env = UnityPy.load(*paths)
        rel = {os.path.basename(p): os.path.relpath(p, root) for p in paths}
        for obj in env.objects:
            if obj.type.name not in ("Texture2D", "Cubemap"):
                continue
            top = top_file(obj, env)
            base = os.path.basename(getattr(top, "name", "") or "")
            # The asset path the bundle's AssetBundle object (m_Container) gives it, if any.
            rec = {"file": rel.get(base, base), "path_id": obj.path_id,
                   "container": getattr(obj, "container", None)}
            try:
                tex = obj.read()
                rec.update(name=tex.m_Name, width=tex.m_Width, height=tex.m_Height,
                           format_id=int(tex.m_TextureFormat))
                img = tex.image.convert("RGBA")
                raw = img.tobytes()
                n = "%d.rgba" % len(index)
                with open(os.path.join(out, n), "wb") as fh:
                    fh.write(raw)
                rec["rgba"] = n
            except Exception as e:  # noqa: BLE001 - any failure is reported per texture
                rec["error"] = "%s: %s" % (type(e).__name__, e)
            index.append(rec)
    with open(os.path.join(out, "index.json"), "w") as fh:
        json.dump(index, fh, indent=1)
    print("unitypy_decode: %d textures, %d decoded" % (len(index), sum("rgba" in r for r in index)))


if __name__ == "__main__":
    main()
