#!/usr/bin/env python3
"""Texscope against UnityPy on the shared Unity samples (issues 8 and 19): list every texture and
export every mip 0 as PNG, with (a) UnityPy 1.25.4 (`obj.read().image.save(...png)`, its
documented export), (b) the native CLI (`texscope export`, PNG, one thread and all cores); and,
to show what the PNG encoder costs and what the page does, (c) the native CLI writing raw RGBA8
(`--format rgba`) and (d) the page's wasm in node writing RGBA8 (scripts/bench-unitypy-wasm.mjs).
Each tool runs as its own process, RUNS times, interleaved, the first tool of each round
rotating (a b c d, b c d a, ...) so load on the shared machine falls on all of them alike; wall
and CPU (user+sys of the child) seconds are reported as min/median/max, and the ratios
UnityPy/tool of the medians. The native runs report the time their threads spent inside the PNG
encoder (TEXSCOPE_STATS). Run through scripts/bench-unitypy.sh.

usage: bench_unitypy.py SAMPLES_UNITY_DIR TEXSCOPE_BIN RUNS
"""
import json
import lzma
import os
import struct
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

# The two raw decoder test-vector folders hold no Unity containers (as tests/unity/unitypy_decode.py).
SKIP = {"AssetRipper_TextureDecoder", "UniversalGameExtraction_texture2ddecoder"}
HERE = os.path.dirname(os.path.abspath(__file__))

# UnityPy's half, run in a child so its import and start-up count as node's and the CLI's do.
UNITYPY = r'''
import os, sys, UnityPy
out, folders = sys.argv[1], sys.argv[2:]
textures = decoded = 0
for top in folders:
    for d, dirs, files in os.walk(top):
        dirs.sort()
        if not files:
            continue
        env = UnityPy.load(*sorted(os.path.join(d, f) for f in files))
        for obj in env.objects:
            if obj.type.name not in ("Texture2D", "Cubemap"):
                continue
            textures += 1
            try:
                obj.read().image.save(os.path.join(out, "%d.png" % decoded))
            except Exception:
                continue
            decoded += 1
print('{"textures": %d, "decoded": %d}' % (textures, decoded))
'''


def timed(cmd):
    """(wall s, cpu s, stdout) of one child process."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    env = dict(os.environ, TEXSCOPE_STATS="1")
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if p.returncode != 0:
        sys.exit("failed: %s\n%s" % (" ".join(cmd[:3]), p.stderr[-2000:]))
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, p.stdout + p.stderr


def count_files(d):
    return sum(len(files) for _, _, files in os.walk(d))


def encode_seconds(text):
    """The encode_ms of a `texscope stats:` line, in seconds (None when absent)."""
    for line in text.splitlines():
        if line.startswith("texscope stats:"):
            for kv in line.split()[2:]:
                k, _, v = kv.partition("=")
                if k == "encode_ms":
                    return int(v) / 1000
    return None


def raw_lzma(blob):
    """Inflates a Unity LZMA block (5 property bytes, then the raw LZMA1 stream) with liblzma."""
    props, dict_size = blob[0], struct.unpack("<I", blob[1:5])[0]
    f = {"id": lzma.FILTER_LZMA1, "dict_size": dict_size,
         "lc": props % 9, "lp": (props // 9) % 5, "pb": props // 45}
    return lzma.decompress(blob[5:], format=lzma.FORMAT_RAW, filters=[f])


def lzma_blocks(folders):
    """Every LZMA-compressed data block of every UnityFS bundle under `folders`. UnityFS layout as
    tests/unity and src/unity/bundle.rs read it (UnityPy's BundleFile, AssetStudio): signature,
    u32 version, two strings, i64 size, u32 packed and unpacked block-info sizes, u32 flags (low 6
    bits: block-info compression; 0x80 info at the end; 0x200 data aligned to 16), info = 16-byte
    hash, u32 count, count x (u32 unpacked, u32 packed, u16 flags)."""
    out = []
    for top in folders:
        for d, _, files in os.walk(top):
            for name in files:
                with open(os.path.join(d, name), "rb") as fh:
                    data = fh.read()
                if not data.startswith(b"UnityFS\0"):
                    continue
                i = 8
                version = struct.unpack(">I", data[i:i + 4])[0]
                i = data.index(b"\0", data.index(b"\0", i + 4) + 1) + 1
                _, packed, unpacked, flags = struct.unpack(">qIII", data[i:i + 20])
                i += 20
                if version >= 7:
                    i = (i + 15) // 16 * 16
                if flags & 0x80:
                    info = data[len(data) - packed:]
                else:
                    info, i = data[i:i + packed], i + packed
                kind = flags & 0x3F
                if kind == 1:
                    info = raw_lzma(info)
                elif kind in (2, 3):
                    import lz4.block  # UnityPy's own dependency
                    info = lz4.block.decompress(info, uncompressed_size=unpacked)
                if flags & 0x200:
                    i = (i + 15) // 16 * 16
                count = struct.unpack(">I", info[16:20])[0]
                for k in range(count):
                    _, size, bflags = struct.unpack(">IIH", info[20 + 10 * k:30 + 10 * k])
                    if bflags & 0x3F == 1:
                        out.append(data[i:i + size])
                    i += size
    return out


def lzma_floor(folders, runs):
    """CPU seconds liblzma (the C library UnityPy inflates with) spends on just the LZMA blocks of
    the samples, per run, and the bytes they give. Any tool that decodes every mip 0 must inflate
    these streams, so UnityPy's CPU time over this is the highest ratio reachable with a decoder
    as fast as liblzma."""
    blocks = lzma_blocks(folders)
    times, size = [], 0
    for _ in range(runs):
        t0 = time.process_time()
        size = sum(len(raw_lzma(b)) for b in blocks)
        times.append(time.process_time() - t0)
    return blocks, size, times


def main():
    root, texscope, runs = sys.argv[1], sys.argv[2], int(sys.argv[3])
    folders = sorted(os.path.join(root, d) for d in os.listdir(root)
                     if d not in SKIP and os.path.isdir(os.path.join(root, d)))
    scratch = tempfile.mkdtemp(prefix="texscope-bench-unitypy-")
    cores = str(os.cpu_count() or 1)
    tools = {
        "UnityPy 1.25.4, PNG": lambda out: [sys.executable, "-c", UNITYPY, out] + folders,
        "texscope native, PNG, 1 thread": lambda out: [texscope, "export", "--jobs", "1",
                                                       "--out", out] + folders,
        "texscope native, PNG, all cores": lambda out: [texscope, "export", "--jobs", cores,
                                                        "--out", out] + folders,
        "texscope native, RGBA8 (no encoder), all cores": lambda out: [
            texscope, "export", "--format", "rgba", "--jobs", cores, "--out", out] + folders,
        "texscope wasm (node), RGBA8, 1 thread": lambda out: [
            "node", os.path.join(HERE, "bench-unitypy-wasm.mjs"), out] + folders,
    }
    names = list(tools)
    times = {name: [] for name in tools}
    encode = {name: [] for name in tools}
    notes = {}
    for r in range(runs):
        for name in names[r % len(names):] + names[:r % len(names)]:
            out = os.path.join(scratch, "out")
            shutil.rmtree(out, ignore_errors=True)
            os.makedirs(out)
            wall, cpu, text = timed(tools[name](out))
            times[name].append((wall, cpu))
            e = encode_seconds(text)
            if e is not None:
                encode[name].append(e / cpu)
            lines = [l for l in text.strip().splitlines() if not l.startswith("texscope stats:")]
            notes[name] = "%s (%d files)" % (lines[-1] if lines else "", count_files(out))
    shutil.rmtree(scratch, ignore_errors=True)
    blocks, inflated, lz = lzma_floor(folders, runs)

    def stats(xs):
        return min(xs), statistics.median(xs), max(xs)

    base = {k: statistics.median(x[k] for x in times["UnityPy 1.25.4, PNG"]) for k in (0, 1)}
    print("| tool | wall s min / median / max | CPU s min / median / max | UnityPy ÷ tool (wall, CPU) |")
    print("|---|---|---|---|")
    for name, xs in times.items():
        w = stats([x[0] for x in xs])
        c = stats([x[1] for x in xs])
        print("| %s | %.2f / %.2f / %.2f | %.2f / %.2f / %.2f | %.1fx, %.1fx |" % (
            name, *w, *c, base[0] / w[1], base[1] / c[1]))
    print()
    for name, n in notes.items():
        print("- %s: %s" % (name, n))
    for name, shares in encode.items():
        if shares and "PNG" in name:
            print("- %s: PNG encoding %.0f%% of the CPU time (median; thread time inside the"
                  " encoder over user+sys)" % (name, 100 * statistics.median(shares)))
    lz_med = statistics.median(lz)
    cores = os.cpu_count() or 1
    ours = statistics.median(x[0] for x in times["texscope native, PNG, all cores"])
    print("- Floor: liblzma alone needs %.2f CPU s for the LZMA blocks, %.2f s of wall time if they"
          " spread perfectly over %d cores; texscope's PNG export on all cores takes %.2f s wall,"
          " %.1fx that floor (%.1fx liblzma's one-core time)" % (
              lz_med, lz_med / cores, cores, ours, ours * cores / lz_med, ours / lz_med))
    print("- LZMA alone: liblzma inflates the %d LZMA blocks (%.1f MB out) in %.2f / %.2f / %.2f CPU s."
          " UnityPy's median CPU time over that, %.1fx, is the most any tool inflating them as fast as"
          " liblzma can reach on one core (CPU ratio); with all %d cores busy at best %.1fx by wall"
          " time" % (len(blocks), inflated / 1e6, *stats(lz), base[1] / lz_med, cores,
                     base[0] * cores / lz_med))


if __name__ == "__main__":
    main()
