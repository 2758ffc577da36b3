#!/usr/bin/env python3
"""Cross-checks the test-only crunch writer (tests/common/crn_writer.rs) against an independent
decoder: PyPI texture2ddecoder (a port of crnlib's and Unity's crn_decomp.h), which unpacks level 0,
face 0 only.

    CRN_DUMP=/tmp/crn cargo test --test codec_crunch_cube -- --ignored
    python3 scripts/crn_crosscheck.py /tmp/crn

Level k is made level 0 by rewriting the header (size >> k, levels - k, offsets from k on), and a
cube is relabelled as 1 face (faces are stored in order, so face 0 is unchanged; texture2ddecoder
crashes on a 6-face stream). Each result must equal the blocks the writer was given (NAME.lKf0).
Each decode runs in a child process so a crash is reported, not fatal.
"""
import glob
import struct
import subprocess
import sys


def crc16(b):
    """crnlib's crc16: CRC-16/GENIBUS (poly 0x1021, init and final xor 0xffff)."""
    crc = 0xFFFF
    for x in b:
        crc ^= x << 8
        for _ in range(8):
            crc = ((crc << 1) ^ 0x1021) & 0xFFFF if crc & 0x8000 else (crc << 1) & 0xFFFF
    return crc ^ 0xFFFF


def as_level0(d, k):
    d = bytearray(d)
    hs = struct.unpack(">H", d[2:4])[0]
    levels = d[16]
    ofs = [struct.unpack(">I", d[70 + 4 * i : 74 + 4 * i])[0] for i in range(levels)]
    w, h = struct.unpack(">HH", d[12:16])
    d[12:16] = struct.pack(">HH", max(1, w >> k), max(1, h >> k))
    d[16] = levels - k
    d[17] = 1
    for i in range(levels):
        d[70 + 4 * i : 74 + 4 * i] = struct.pack(">I", ofs[i + k] if i + k < levels else 0)
    d[10:12] = struct.pack(">H", crc16(d[hs:]))
    d[4:6] = struct.pack(">H", crc16(d[6:hs]))
    return bytes(d)


def main(folder):
    ok = bad = crash = 0
    for p in sorted(glob.glob(f"{folder}/*.crn")):
        data = open(p, "rb").read()
        fn = "unpack_unity_crunch" if "/unity_" in p else "unpack_crunch"
        for k in range(data[16]):
            want = open(p[:-4] + f".l{k}f0", "rb").read()
            q = f"{folder}/level0.bin"
            open(q, "wb").write(as_level0(data, k))
            code = (
                "import sys, texture2ddecoder as t; "
                f"sys.stdout.buffer.write(t.{fn}(open({q!r}, 'rb').read()))"
            )
            r = subprocess.run([sys.executable, "-c", code], capture_output=True, timeout=60)
            if r.returncode != 0:
                crash += 1
                print(f"{p} level {k}: texture2ddecoder exit {r.returncode}")
            elif r.stdout == want:
                ok += 1
            else:
                bad += 1
                print(f"{p} level {k}: blocks differ")
    print(f"equal {ok}, differ {bad}, crashed {crash}")
    return 0 if bad == crash == 0 and ok > 0 else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1] if len(sys.argv) > 1 else "/tmp/crn"))
