//! What untiling a console surface costs next to decoding it: `cargo run --release --example
//! bench_untile [-- SIDE RUNS]` (default a 2048x2048 surface, 9 runs). For each layout the reader
//! untiles (RDNA 64KB_S, GCN 1D thin), one JSON line: the median untile and decode times in ms of
//! the same surface (seeded random blocks) and their ratio, both measured in this run. Not a
//! timed test: it prints, it asserts nothing.

use std::time::Instant;
use texscope::codec::tiling::{self, Tiling};
use texscope::codec::{decode_surface, PixelFormat};
use texscope::io::Limits;

fn median_ms(runs: usize, mut f: impl FnMut()) -> f64 {
    let mut t: Vec<f64> = (0..runs)
        .map(|_| {
            let start = Instant::now();
            f();
            start.elapsed().as_secs_f64() * 1e3
        })
        .collect();
    t.sort_by(f64::total_cmp);
    t[runs / 2]
}

fn main() {
    let mut args = std::env::args().skip(1);
    let side: u32 = args.next().map_or(2048, |s| s.parse().expect("SIDE"));
    let runs: usize = args.next().map_or(9, |s| s.parse().expect("RUNS"));
    let limits = Limits::default();
    let rdna = Tiling::Rdna {
        swizzle_mode: tiling::rdna::SW_64KB_S,
        first_mip_in_tail: 1,
    };
    let gcn = Tiling::Gcn {
        tile_mode: tiling::gcn::THIN_1D_THIN,
        pitch: side,
    };
    let mut x = 0x9e37_79b9_7f4a_7c15u64;
    for (name, format, layout) in [
        ("PS5 RDNA 64KB_S", PixelFormat::BC1, rdna),
        ("PS5 RDNA 64KB_S", PixelFormat::BC7, rdna),
        ("PS5 RDNA 64KB_S", PixelFormat::RGBA8, rdna),
        ("PS4 GCN 1D thin", PixelFormat::BC1, gcn),
        ("PS4 GCN 1D thin", PixelFormat::RGBA8, gcn),
    ] {
        let size = tiling::stored_size(layout, format, 0, side, side).unwrap();
        let tiled: Vec<u8> = (0..size)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                x as u8
            })
            .collect();
        let linear = tiling::untile(layout, format, 0, side, side, &tiled, &limits).unwrap();
        let untile = median_ms(runs, || {
            std::hint::black_box(
                tiling::untile(layout, format, 0, side, side, &tiled, &limits).unwrap(),
            );
        });
        let decode = median_ms(runs, || {
            std::hint::black_box(decode_surface(format, side, side, &linear, &limits).unwrap());
        });
        println!(
            "{{\"layout\":\"{name}\",\"format\":\"{}\",\"side\":{side},\"untile_ms\":{untile:.2},\"decode_ms\":{decode:.2},\"untile_over_decode\":{:.3}}}",
            format.name(),
            untile / decode
        );
    }
}
