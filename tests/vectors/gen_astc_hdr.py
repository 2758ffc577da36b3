"""HDR and mutated-block reference vectors for the ASTC decoder (tests/codec_astc.rs), from ARM's
astcenc through PyPI `astc-encoder-py` 0.1.12 (the Khronos reference encoder/decoder).

For each of the 14 2D footprints, astc_hdr_<w>x<h>.bin holds records decoded by astcenc with the HDR
profile to RGBA FP16 (astcenc's float decode is FP16-exact, so FP16 output loses nothing):
  1. a (2*bw+3) x (2*bh+1) float image (values 0..~60000, a constant patch for void-extent blocks,
     HDR alpha) compressed with the HDR profile (MEDIUM preset);
  2. 48 blocks of that encoding with 1-3 bits flipped (reaches many legal modes and errors);
  3. 32 blocks of an LDR-profile encoding of an 8-bit image, with bits flipped (LDR endpoint modes
     decoded by the HDR profile), plus 16 random blocks.
astc_mut_<w>x<h>.bin holds the same mutated blocks of records 2 and 3 decoded with the LDR profile
to RGBA8 (no decode_unorm8 flag): HDR endpoints and FP16 void extents inside an LDR texture.
Record layout: u32 LE width, u32 LE height, blocks (16 bytes each), expected texels (f16 LE or u8).

Run: pip install astc-encoder-py==0.1.12 && python3 tests/vectors/gen_astc_hdr.py
"""
import math
import os
import random
import struct

from astc_encoder import (ASTCConfig, ASTCContext, ASTCImage, ASTCProfile,
                          ASTCQualityPreset, ASTCSwizzle, ASTCType)

HERE = os.path.dirname(os.path.abspath(__file__))
FOOTPRINTS = [(4, 4), (5, 4), (5, 5), (6, 5), (6, 6), (8, 5), (8, 6), (8, 8), (10, 5), (10, 6),
              (10, 8), (10, 10), (12, 10), (12, 12)]
rng = random.Random(4242)


def hdr_picture(w, h):
    px = []
    for y in range(h):
        for x in range(w):
            if x < 4 and y < 4:
                px += [3.5, 0.25, 1200.0, 1.0]  # constant patch
                continue
            t = (x + 1) / w
            px += [
                math.exp(12.0 * t * (y + 1) / h) - 1.0,
                rng.random() * 8.0,
                (x * y % 7) * 0.125 + 0.001,
                0.5 + 2.0 * t if (x + y) % 3 else rng.random(),
            ]
    return struct.pack(f"<{len(px)}f", *px)


def ldr_picture(w, h):
    px = bytearray()
    for y in range(h):
        for x in range(w):
            px += bytes([(x * 37) & 255, (y * 53) & 255, rng.getrandbits(8), 255 - x])
    return bytes(px)


def mutate(blocks, n):
    out = bytearray()
    count = len(blocks) // 16
    for _ in range(n):
        b = bytearray(blocks[16 * rng.randrange(count):][:16])
        for _ in range(rng.randint(1, 3)):
            bit = rng.randrange(128)
            b[bit // 8] ^= 1 << (bit % 8)
        out += b
    return bytes(out)


def record(ctx, kind, w, h, blocks):
    out = ASTCImage(kind, w, h, 1)
    dec = ctx.decompress(blocks, out, ASTCSwizzle())
    return w.to_bytes(4, "little") + h.to_bytes(4, "little") + blocks + bytes(dec.data)


for bw, bh in FOOTPRINTS:
    hdr = ASTCContext(ASTCConfig(ASTCProfile.HDR, bw, bh, 1, ASTCQualityPreset.MEDIUM))
    ldr = ASTCContext(ASTCConfig(ASTCProfile.LDR, bw, bh, 1, ASTCQualityPreset.FAST))
    w, h = 2 * bw + 3, 2 * bh + 1
    hdr_comp = hdr.compress(ASTCImage(ASTCType.F32, w, h, 1, hdr_picture(w, h)), ASTCSwizzle())
    lw, lh = 4 * bw, 4 * bh
    ldr_comp = ldr.compress(ASTCImage(ASTCType.U8, lw, lh, 1, ldr_picture(lw, lh)), ASTCSwizzle())
    mut_hdr = mutate(hdr_comp, 48)
    mut_ldr = mutate(ldr_comp, 32) + bytes(rng.getrandbits(8) for _ in range(16 * 16))
    strip = (8 * bw, 6 * bh)  # 48 blocks
    with open(os.path.join(HERE, f"astc_hdr_{bw}x{bh}.bin"), "wb") as f:
        f.write(record(hdr, ASTCType.F16, w, h, hdr_comp))
        f.write(record(hdr, ASTCType.F16, *strip, mut_hdr))
        f.write(record(hdr, ASTCType.F16, *strip, mut_ldr))
    with open(os.path.join(HERE, f"astc_mut_{bw}x{bh}.bin"), "wb") as f:
        f.write(record(ldr, ASTCType.U8, *strip, mut_hdr))
        f.write(record(ldr, ASTCType.U8, *strip, mut_ldr))
print("ok")
