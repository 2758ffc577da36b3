"""Reference vectors for the ATC decoders (tests/codec_atc.rs).

Random blocks (fixed seed), half of them with the colour-0 "black trick" flag (bit 15) set.
Expected RGBA8 from PyPI texture2ddecoder 1.0.6 (decode_atc_rgb4 / decode_atc_rgba8, C++, BGRA
swapped to RGBA). The one palette entry where the Rust crate texture2ddecoder 0.1.2 departs from AMD
Compressonator's reference ATC decoder (cmp_compressonatorlib/atc, by the format's ATI authors) —
black-trick index 1, max(c0 - (c1 >> 2), 0) there, (c0 - c1) / 4 with wrap-around in the Rust port —
is recomputed here from the Compressonator definition and asserted equal to the PyPI output.
texture2ddecoder's interpolated alpha rounds differently from Compressonator's (+3)/7, so the test
allows 1 in alpha for that format.

Run: pip install texture2ddecoder==1.0.6 && python3 tests/vectors/gen_atc.py
Writes tests/vectors/atc_<format>.bin = u32 LE width, u32 LE height, blocks, expected RGBA8.
"""
import os
import random

import texture2ddecoder as t2d

HERE = os.path.dirname(os.path.abspath(__file__))
W, H = 32, 16
rng = random.Random(4242)


def rep(v, bits):
    return (v << (8 - bits)) | (v >> (2 * bits - 8))


def check_black_trick(colour_block, out, bx, by):
    c0 = int.from_bytes(colour_block[0:2], "little")
    c1 = int.from_bytes(colour_block[2:4], "little")
    if not c0 & 0x8000:
        return
    lo = [rep((c0 >> 10) & 31, 5), rep((c0 >> 5) & 31, 5), rep(c0 & 31, 5)]
    hi = [rep(c1 >> 11, 5), rep((c1 >> 5) & 63, 6), rep(c1 & 31, 5)]
    med_low = [max(lo[c] - (hi[c] >> 2), 0) for c in range(3)]
    idx = int.from_bytes(colour_block[4:8], "little")
    for t in range(16):
        if (idx >> (2 * t)) & 3 == 1:
            o = ((by * 4 + t // 4) * W + bx * 4 + t % 4) * 4
            assert out[o:o + 3] == bytes(med_low), (bx, by, t)


def make(bytes_per_block, fn, name):
    n = (W // 4) * (H // 4)
    blocks = []
    for _ in range(n):
        b = bytearray(rng.getrandbits(8) for _ in range(bytes_per_block))
        if rng.random() < 0.5:
            b[-7] |= 0x80
        else:
            b[-7] &= 0x7F
        blocks.append(bytes(b))
    data = b"".join(blocks)
    bgra = fn(data, W, H)
    out = bytearray(bgra)
    out[0::4], out[2::4] = bgra[2::4], bgra[0::4]
    for i, b in enumerate(blocks):
        check_black_trick(b[-8:], out, i % (W // 4), i // (W // 4))
    with open(os.path.join(HERE, f"atc_{name}.bin"), "wb") as f:
        f.write(W.to_bytes(4, "little") + H.to_bytes(4, "little") + data + bytes(out))


make(8, t2d.decode_atc_rgb4, "rgb")
make(16, t2d.decode_atc_rgba8, "rgba_interpolated")
print("ok")
