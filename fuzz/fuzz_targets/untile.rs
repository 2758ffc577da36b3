//! The console untilers through `codec::tiling`: bytes 0-1 pick the format (every `PixelFormat`:
//! `ALL_FIXED` and each LDR ASTC footprint), bytes 2-5 the size (1-1024 texels a side), byte 6 the
//! mip level, byte 7 the `Tiling` and bytes 8-11 its parameter (any u32, so unknown block heights,
//! tile modes and swizzle modes are exercised); the rest is the tiled surface. `stored_size`, then
//! `untile` of whatever bytes there are (too few must be an error, never a panic), then a decode of
//! the linear blocks; the fused untile + decode (`codec::decode_tiled`, band by band) must give
//! the same image or the same error.
#![no_main]

use texscope::codec::decode_tiled;
use texscope::codec::tiling::{stored_size, untile, Tiling};
use texscope::codec::{ALL_FIXED, ASTC_FOOTPRINTS};
use texscope::PixelFormat;

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    if data.len() < 12 {
        return;
    }
    let mut formats: Vec<PixelFormat> = ALL_FIXED.to_vec();
    formats.extend(
        ASTC_FOOTPRINTS
            .iter()
            .map(|&(w, h)| PixelFormat::ASTC { w, h, hdr: false }),
    );
    let format = formats[u16::from_le_bytes([data[0], data[1]]) as usize % formats.len()];
    let w = 1 + u16::from_le_bytes([data[2], data[3]]) as u32 % 1024;
    let h = 1 + u16::from_le_bytes([data[4], data[5]]) as u32 % 1024;
    let level = data[6] as u32 % 16;
    let p = u32::from_le_bytes([data[8], data[9], data[10], data[11]]);
    let tiling = match data[7] % 4 {
        0 => Tiling::Linear,
        // Mostly valid block heights, sometimes any value.
        1 if p & 0x100 == 0 => Tiling::BlockLinear {
            block_height: 1 << (p % 6),
        },
        1 => Tiling::BlockLinear { block_height: p },
        2 => Tiling::Gcn {
            tile_mode: p % 32,
            pitch: w.div_ceil(format.block().width).next_multiple_of(8),
        },
        // The mip-tail start: any level up to past the chain's end (none in the tail).
        _ => Tiling::Rdna {
            swizzle_mode: p % 32,
            first_mip_in_tail: (p >> 8) % 18,
        },
    };
    let limits = texscope_fuzz::limits();
    let tiled = &data[12..];
    let Ok(size) = stored_size(tiling, format, level, w, h) else {
        return;
    };
    let result = untile(tiling, format, level, w, h, tiled, &limits);
    let fused = decode_tiled(tiling, format, level, w, h, tiled, &limits);
    if (tiled.len() as u64) < size {
        assert!(
            result.is_err() && fused.is_err(),
            "{size} bytes needed, {} given",
            tiled.len()
        );
        return;
    }
    let want = result.and_then(|linear| {
        assert_eq!(linear.len() as u64, format.surface_size(w, h));
        texscope::decode_surface(format, w, h, &linear, &limits)
    });
    match (want, fused) {
        (Ok(want), Ok(got)) => assert!(same(&want, &got), "fused decode differs"),
        (Err(want), Err(got)) => assert_eq!(want.to_string(), got.to_string()),
        (want, got) => panic!("{want:?} against {got:?}"),
    }
});

/// Equal sizes and texels, floats compared by their bits (a NaN equals itself).
fn same(a: &texscope::Image, b: &texscope::Image) -> bool {
    use texscope::codec::Pixels::*;
    (a.width, a.height) == (b.width, b.height)
        && match (&a.pixels, &b.pixels) {
            (Rgba8(x), Rgba8(y)) => x == y,
            (Rgba16(x), Rgba16(y)) => x == y,
            (Rgba32F(x), Rgba32F(y)) => x
                .iter()
                .map(|v| v.to_bits())
                .eq(y.iter().map(|v| v.to_bits())),
            _ => false,
        }
}
