"""Reference vectors for the ETC1/ETC2/EAC decoders (tests/codec_etc.rs).

Input: random blocks from a fixed seed, with the mode bits steered so that every ETC2 mode
(individual, differential, T, H, planar; punch-through opaque and transparent) occurs often.
Expected output: PyPI `texture2ddecoder` 1.0.6 (Perfare's C++ Texture2DDecoder, independent of
our Rust code), which returns BGRA8; it is stored here converted to RGBA8.

Run: pip install texture2ddecoder==1.0.6 && python3 tests/vectors/gen_etc.py
Writes tests/vectors/etc_<format>.bin = u32 LE width, u32 LE height, blocks, expected RGBA8.
"""
import os
import random

import texture2ddecoder as t2d

HERE = os.path.dirname(os.path.abspath(__file__))
W, H = 64, 16  # 16 x 4 = 64 blocks per format

rng = random.Random(20261202)


def etc_rgb_block():
    b = bytearray(rng.getrandbits(8) for _ in range(8))
    kind = rng.randrange(5)
    if kind == 0:
        b[3] &= ~0x02  # individual mode: diff bit 33 (byte 3 bit 1) clear
    else:
        b[3] |= 0x02
        # Steer R/G/B base+delta to overflow (T, H, planar) or not (differential).
        def set_channel(byte_idx, overflow):
            base = rng.randrange(32)
            if overflow:
                delta = rng.choice([d for d in range(-4, 4) if not 0 <= base + d <= 31] or [0])
                if 0 <= base + delta <= 31:  # base in the middle cannot overflow: force an edge
                    base, delta = (31, 1) if rng.random() < 0.5 else (0, -1)
            else:
                delta = rng.choice([d for d in range(-4, 4) if 0 <= base + d <= 31])
            b[byte_idx] = (base << 3) | (delta & 7)
        set_channel(0, kind == 2)  # T: red overflows
        set_channel(1, kind == 3)  # H: green overflows (red does not)
        set_channel(2, kind == 4)  # planar: blue overflows
    return bytes(b)


def eac_block():
    return bytes(rng.getrandbits(8) for _ in range(8))


def blocks(n, make):
    return b"".join(make() for _ in range(n))


def bgra_to_rgba(buf):
    out = bytearray(buf)
    out[0::4], out[2::4] = buf[2::4], buf[0::4]
    return bytes(out)


def punch_block():
    b = bytearray(etc_rgb_block())
    # bit 33 is "opaque" in punch-through; individual mode does not exist there.
    if rng.random() < 0.5:
        b[3] &= ~0x02
    else:
        b[3] |= 0x02
    return bytes(b)


n = (W // 4) * (H // 4)
cases = {
    "etc1": (blocks(n, etc_rgb_block), t2d.decode_etc1),
    "etc2_rgb": (blocks(n, etc_rgb_block), t2d.decode_etc2),
    "etc2_rgba1": (blocks(n, punch_block), t2d.decode_etc2a1),
    "etc2_rgba8": (blocks(n, lambda: eac_block() + etc_rgb_block()), t2d.decode_etc2a8),
    "eac_r11": (blocks(n, eac_block), t2d.decode_eacr),
    "eac_r11s": (blocks(n, eac_block), t2d.decode_eacr_signed),
    "eac_rg11": (blocks(n, lambda: eac_block() + eac_block()), t2d.decode_eacrg),
    "eac_rg11s": (blocks(n, lambda: eac_block() + eac_block()), t2d.decode_eacrg_signed),
}
for name, (data, fn) in cases.items():
    expected = bgra_to_rgba(fn(data, W, H))
    with open(os.path.join(HERE, f"etc_{name}.bin"), "wb") as f:
        f.write(W.to_bytes(4, "little") + H.to_bytes(4, "little") + data + expected)
print("ok")
