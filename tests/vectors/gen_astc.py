"""Reference vectors for the ASTC LDR decoder (tests/codec_astc.rs), from ARM's astcenc through PyPI
`astc-encoder-py` 0.1.12 (the Khronos reference encoder/decoder).

For each of the 14 2D footprints: a (2*bw+3) x (2*bh+1) image (partial blocks on the right and
bottom) of smooth gradients, noise and alpha, compressed by astcenc (LDR profile, FAST preset), plus
16 random 16-byte blocks (many modes, some invalid: those decode to the error colour). Both are
decompressed by astcenc to RGBA8 (LDR profile, no decode_unorm8 flag set; measured: the RGBA8 values
are the top 8 bits of the interpolated 16-bit value all the same, and illegal blocks come out white,
where the specification and src/codec/astc.rs give magenta).

Run: pip install astc-encoder-py==0.1.12 && python3 tests/vectors/gen_astc.py
(Used by our own decoder, src/codec/astc.rs: astc-decode 0.3.1 decodes a valid random 4x4 block
wrongly and texture2ddecoder 0.1.2 panics with an overflow on a random block.) HDR and bit-flipped
blocks: gen_astc_hdr.py.
Writes tests/vectors/astc_<w>x<h>.bin = u32 LE width, u32 LE height, blocks, expected RGBA8,
then the same again for the random-block strip (width 4 blocks, height 4 blocks).
"""
import os
import random

from astc_encoder import (ASTCConfig, ASTCContext, ASTCImage, ASTCProfile,
                          ASTCQualityPreset, ASTCSwizzle, ASTCType)

HERE = os.path.dirname(os.path.abspath(__file__))
FOOTPRINTS = [(4, 4), (5, 4), (5, 5), (6, 5), (6, 6), (8, 5), (8, 6), (8, 8), (10, 5), (10, 6),
              (10, 8), (10, 10), (12, 10), (12, 12)]
rng = random.Random(1202)


def picture(w, h):
    px = bytearray()
    for y in range(h):
        for x in range(w):
            px += bytes([
                (x * 255 // max(w - 1, 1)) ^ (rng.getrandbits(3)),
                (y * 255 // max(h - 1, 1)),
                ((x * y) * 7) & 255,
                255 if (x + y) % 5 else rng.getrandbits(8),
            ])
    return bytes(px)


def record(ctx, w, h, blocks):
    out = ASTCImage(ASTCType.U8, w, h, 1)
    dec = ctx.decompress(blocks, out, ASTCSwizzle())
    return w.to_bytes(4, "little") + h.to_bytes(4, "little") + blocks + bytes(dec.data)


for bw, bh in FOOTPRINTS:
    cfg = ASTCConfig(ASTCProfile.LDR, bw, bh, 1, ASTCQualityPreset.FAST)
    ctx = ASTCContext(cfg)
    w, h = 2 * bw + 3, 2 * bh + 1
    img = ASTCImage(ASTCType.U8, w, h, 1, picture(w, h))
    comp = ctx.compress(img, ASTCSwizzle())
    rand = bytes(rng.getrandbits(8) for _ in range(16 * 16))
    with open(os.path.join(HERE, f"astc_{bw}x{bh}.bin"), "wb") as f:
        f.write(record(ctx, w, h, comp))
        f.write(record(ctx, 4 * bw, 4 * bh, rand))
print("ok")
