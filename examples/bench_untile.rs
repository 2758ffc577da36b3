//! What untiling a console surface costs next to decoding it: `cargo run --release --example
//! bench_untile [-- SIDE RUNS]` (default a 2048x2048 surface, 9 runs). For each layout the reader
//! untiles (RDNA 64KB_S, GCN 1D thin), one JSON line: the median untile and decode times in ms of
//! the same surface (seeded random blocks) and their ratio, both measured in this run. Switch
//! block-linear lines add `tegra_swizzle_ms`: the `tegra_swizzle` crate untiling the same bytes in
//! the same run (the reason src/codec/tiling/block_linear.rs untiles by hand). Not a timed test:
//! it prints, it asserts nothing.

#[path = "common/timing.rs"]
mod timing;
use texscope::codec::tiling::{self, Tiling};
use texscope::codec::{decode_surface, PixelFormat};
use texscope::io::Limits;
use timing::median_ms;

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
    let astc = PixelFormat::ASTC {
        w: 4,
        h: 4,
        hdr: false,
    };
    let switch = |f: PixelFormat| Tiling::BlockLinear {
        block_height: tiling::block_linear::default_block_height(
            side.div_ceil(f.block().height) as u64
        ),
    };
    for (name, format, layout) in [
        (
            "Switch block-linear",
            PixelFormat::BC1,
            switch(PixelFormat::BC1),
        ),
        (
            "Switch block-linear",
            PixelFormat::BC7,
            switch(PixelFormat::BC7),
        ),
        ("Switch block-linear", astc, switch(astc)),
        (
            "Switch block-linear",
            PixelFormat::RGBA8,
            switch(PixelFormat::RGBA8),
        ),
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
        let crate_ms = match layout {
            Tiling::BlockLinear { block_height } => {
                let g =
                    tiling::block_linear::geometry(format, 0, side, side, block_height).unwrap();
                let bh = tegra_swizzle::BlockHeight::new(g.block_height).unwrap();
                let ms = median_ms(runs, || {
                    std::hint::black_box(
                        tegra_swizzle::swizzle::deswizzle_block_linear(
                            g.blocks_x as u32,
                            g.blocks_y as u32,
                            1,
                            &tiled,
                            bh,
                            g.bytes_per_block as u32,
                        )
                        .unwrap(),
                    );
                });
                format!(",\"tegra_swizzle_ms\":{ms:.2}")
            }
            _ => String::new(),
        };
        println!(
            "{{\"layout\":\"{name}\",\"format\":\"{}\",\"side\":{side},\"untile_ms\":{untile:.2}{crate_ms},\"decode_ms\":{decode:.2},\"untile_over_decode\":{:.3}}}",
            format.name(),
            untile / decode
        );
    }
}
