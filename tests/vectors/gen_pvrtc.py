"""Reference vectors for the PVRTC1 decoder (tests/codec_pvrtc.rs).

Random 64-bit blocks (fixed seed): every bit random, so opaque/translucent colours, both modulation
modes, 4 bpp punch-through and the 2 bpp H-only / V-only / both-direction interpolation flags all
occur. Sizes: non-square grids (Morton order with leftover high bits), and images smaller than the
minimum 2x2 block grid. Expected RGBA8 from PyPI texture2ddecoder 1.0.6 (decode_pvrtc, Perfare's
C++ decoder, BGRA swapped to RGBA).

Run: pip install texture2ddecoder==1.0.6 && python3 tests/vectors/gen_pvrtc.py
Writes tests/vectors/pvrtc_<name>.bin = u32 LE width, u32 LE height, blocks, expected RGBA8.
"""
import os
import random

import texture2ddecoder as t2d

HERE = os.path.dirname(os.path.abspath(__file__))
rng = random.Random(7070)


def make(name, w, h, two_bpp):
    bw = 8 if two_bpp else 4
    nbx = max(2, -(-w // bw))
    nby = max(2, -(-h // 4))
    data = bytes(rng.getrandbits(8) for _ in range(nbx * nby * 8))
    bgra = t2d.decode_pvrtc(data, w, h, two_bpp)
    assert len(bgra) == w * h * 4
    out = bytearray(bgra)
    out[0::4], out[2::4] = bgra[2::4], bgra[0::4]
    with open(os.path.join(HERE, f"pvrtc_{name}.bin"), "wb") as f:
        f.write(w.to_bytes(4, "little") + h.to_bytes(4, "little") + data + bytes(out))


make("4bpp_32x64", 32, 64, False)
make("4bpp_64x16", 64, 16, False)
make("2bpp_128x32", 128, 32, True)
make("2bpp_32x64", 32, 64, True)
make("4bpp_8x8", 8, 8, False)
make("2bpp_16x8", 16, 8, True)
print("ok")
