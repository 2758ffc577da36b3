//! Decode throughput per format: a 2048x2048 surface of seeded pseudo-random bytes, best of 3 runs,
//! in MB/s of RGBA output (4 bytes per texel for RGBA8 and the same texel count for 16-bit and
//! float formats, so formats are comparable). Run with `cargo run --release --example decode_bench`.
//! Native only (it reads the clock); the wasm side of the benchmark is not written yet.
//! ASTC is measured on real encoder output instead (random bytes are mostly illegal blocks): the
//! blocks astcenc made for tests/vectors/astc_*.bin, repeated over the surface.

use std::time::Instant;
use texscope::codec::{decode_surface, PixelFormat};
use texscope::io::Limits;

fn main() {
    const SIDE: u32 = 2048;
    let formats = [
        PixelFormat::BC1,
        PixelFormat::BC3,
        PixelFormat::BC4,
        PixelFormat::BC5,
        PixelFormat::BC6HU,
        PixelFormat::BC7,
        PixelFormat::ETC1,
        PixelFormat::ETC2RGB,
        PixelFormat::ETC2RGBA8,
        PixelFormat::EACR11,
        PixelFormat::EACRG11S,
        PixelFormat::RGBA8,
        PixelFormat::RGB565,
        PixelFormat::RGBA16F,
        PixelFormat::YUY2,
        astc(4, 4, false),
        astc(6, 6, false),
        astc(8, 8, false),
        astc(12, 12, false),
        astc(4, 4, true),
        astc(8, 8, true),
    ];
    let limits = Limits::default();
    let mut seed = 0x2545_F491_4F6C_DD1Du64;
    println!("| format | MB/s of RGBA output |\n|---|---|");
    for f in formats {
        let data: Vec<u8> = match f {
            PixelFormat::ASTC { .. } => astc_blocks(f, f.surface_size(SIDE, SIDE) as usize),
            _ => (0..f.surface_size(SIDE, SIDE))
                .map(|_| {
                    seed ^= seed << 13;
                    seed ^= seed >> 7;
                    seed ^= seed << 17;
                    seed as u8
                })
                .collect(),
        };
        let mut best = f64::MAX;
        for _ in 0..3 {
            let t = Instant::now();
            let img = decode_surface(f, SIDE, SIDE, &data, &limits).expect("decode");
            best = best.min(t.elapsed().as_secs_f64());
            std::hint::black_box(img);
        }
        let mb = (SIDE as f64 * SIDE as f64 * 4.0) / 1e6;
        println!("| {} | {:.0} |", f.name(), mb / best);
    }
}

fn astc(w: u8, h: u8, hdr: bool) -> PixelFormat {
    PixelFormat::ASTC { w, h, hdr }
}

/// `len` bytes of astcenc-made blocks of `f`'s footprint (the first record of its vector file).
fn astc_blocks(f: PixelFormat, len: usize) -> Vec<u8> {
    let PixelFormat::ASTC { w, h, hdr } = f else {
        unreachable!()
    };
    let name = if hdr { "astc_hdr" } else { "astc" };
    let path = format!(
        "{}/tests/vectors/{name}_{w}x{h}.bin",
        env!("CARGO_MANIFEST_DIR")
    );
    let all = std::fs::read(&path).expect("ASTC vector file");
    let iw = u32::from_le_bytes(all[0..4].try_into().unwrap());
    let ih = u32::from_le_bytes(all[4..8].try_into().unwrap());
    let n = (iw.div_ceil(w as u32) * ih.div_ceil(h as u32)) as usize * 16;
    all[8..8 + n].iter().copied().cycle().take(len).collect()
}
