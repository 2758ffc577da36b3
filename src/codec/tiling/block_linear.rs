//! Tegra X1 (Nintendo Switch) block-linear surfaces.
//!
//! The GPU stores a surface as GOBs ("groups of bytes") of 64 bytes x 8 rows, stacked
//! `block_height` GOBs high into blocks; blocks run left to right, then down. Everything here is
//! in bytes and rows of a format's blocks (a 4x4 block of BC1 is an 8-byte "pixel"), so every
//! format goes through the same code.
//!
//! The sizes are computed here (u64, checked: they come from files) so that the first wasm module,
//! which leaves the untiler out, can still lay out a Switch texture's mips; the byte shuffling
//! (feature `tiling-switch`) is written here too, held to the `tegra_swizzle` crate by the tests.

use super::PixelFormat;
use crate::io::{Error, Limits, Result};

/// Bytes of a GOB: 64 bytes wide, 8 rows high (Tegra X1 TRM, "block linear" memory layout; the
/// same constants as `tegra_swizzle`'s GOB_WIDTH_IN_BYTES / GOB_HEIGHT_IN_BYTES).
const GOB_WIDTH: u64 = 64;
const GOB_HEIGHT: u64 = 8;
const GOB_SIZE: u64 = GOB_WIDTH * GOB_HEIGHT;

/// The block heights (in GOBs) the hardware takes: 1 to 32, powers of two.
pub const BLOCK_HEIGHTS: [u32; 6] = [1, 2, 4, 8, 16, 32];

/// One mip's geometry: blocks across and down, bytes per block, and its own block height.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Geometry {
    pub blocks_x: u64,
    pub blocks_y: u64,
    pub bytes_per_block: u64,
    pub block_height: u32,
    /// Bytes the tiled surface occupies, padding to whole GOBs and blocks included.
    pub stored: u64,
}

/// The geometry of mip `level` (`w` x `h` texels) of a surface whose mip 0 has `block_height_mip0`.
pub fn geometry(
    format: PixelFormat,
    level: u32,
    w: u32,
    h: u32,
    block_height_mip0: u32,
) -> Result<Geometry> {
    if !BLOCK_HEIGHTS.contains(&block_height_mip0) {
        return Err(Error::unsupported(format!(
            "mip {level}: block height {block_height_mip0} is not one the Switch GPU has (1, 2, 4, 8, 16 or 32 GOBs)"
        ))
        .at_field("block_height"));
    }
    let b = format.block();
    let blocks_x = (w as u64).div_ceil(b.width as u64).max(b.min_blocks as u64);
    let blocks_y = (h as u64)
        .div_ceil(b.height as u64)
        .max(b.min_blocks as u64);
    let bytes_per_block = b.bytes as u64;
    let block_height = mip_block_height(blocks_y, block_height_mip0);
    let gobs_x = blocks_x
        .checked_mul(bytes_per_block)
        .map(|row| row.div_ceil(GOB_WIDTH));
    let block_rows = GOB_HEIGHT * block_height as u64;
    let gobs_y = blocks_y.div_ceil(block_rows) * block_height as u64;
    let stored = gobs_x
        .and_then(|x| x.checked_mul(gobs_y))
        .and_then(|n| n.checked_mul(GOB_SIZE))
        .ok_or_else(|| {
            Error::limit(format!(
                "mip {level}: a {w}x{h} {} block-linear surface is too large",
                format.name()
            ))
        })?;
    Ok(Geometry {
        blocks_x,
        blocks_y,
        bytes_per_block,
        block_height,
        stored,
    })
}

/// A smaller mip's block height: the GPU halves mip 0's while a block would be over twice as
/// high as the mip's rows (the driver rule Ryujinx and `tegra_swizzle::mip_block_height` use:
/// halve while `rows <= block_height / 2 * 8`). Kept here, not called from the crate, so that
/// sizes work in a build without the untiler.
fn mip_block_height(rows: u64, block_height_mip0: u32) -> u32 {
    let mut bh = block_height_mip0;
    while bh > 1 && rows <= (bh as u64 / 2) * GOB_HEIGHT {
        bh /= 2;
    }
    bh
}

/// The block height a driver picks for a mip 0 of `rows` rows of blocks when nothing states one
/// (NVN's rule, as `tegra_swizzle::block_height_mip0`: the smallest of 1..16 GOBs whose block
/// is at least two thirds of the rows).
pub fn default_block_height(rows: u64) -> u32 {
    let rows_and_half = rows + rows / 2;
    match rows_and_half {
        128.. => 16,
        64.. => 8,
        32.. => 4,
        16.. => 2,
        _ => 1,
    }
}

/// Bytes from one array layer (or cube face) to the next in a surface of several, each holding a
/// chain of `chain` bytes whose mip 0 is `w` x `h` with `block_height_mip0`: the chain rounded
/// up to whole blocks of GOBs of mip 0's own block height (the mip-0 block height halved against
/// its rows of blocks, as for a smaller mip). A single layer is not padded. This is the driver's
/// layout as Ryujinx's `SizeCalculator.AlignLayerSize` reproduces it (the emulator runs real
/// games' array and cube textures from it) and as `tegra_swizzle`'s surface API aligns layers;
/// the crate halves the block height against texel rows rather than rows of blocks, which differs
/// only for compressed formats with a block height taller than mip 0 needs, where this follows
/// Ryujinx.
pub fn layer_size(
    format: PixelFormat,
    w: u32,
    h: u32,
    block_height_mip0: u32,
    chain: u64,
) -> Result<u64> {
    let g = geometry(format, 0, w, h, block_height_mip0)?;
    let block = g.block_height as u64 * GOB_SIZE;
    chain
        .div_ceil(block)
        .checked_mul(block)
        .ok_or_else(|| Error::limit(format!("a layer of {chain} bytes is too large")))
}

/// Untiles mip `level`: `tiled` holds at least [`geometry`]'s `stored` bytes.
pub fn untile(
    format: PixelFormat,
    level: u32,
    w: u32,
    h: u32,
    block_height_mip0: u32,
    tiled: &[u8],
    limits: &Limits,
) -> Result<Vec<u8>> {
    let rows = Rows::new(format, level, w, h, block_height_mip0, tiled, limits)?;
    let mut out = vec![0u8; rows.row * rows.rows];
    rows.untile(0, &mut out);
    Ok(out)
}

/// One mip's surface checked against its tiled bytes, untiled a band of block rows at a time
/// into the caller's buffer ([`Rows::untile`]): the whole surface for [`untile`], or one row of
/// GOBs after another for a decode that keeps each band in cache (`codec::decode_tiled`).
pub struct Rows<'a> {
    g: Geometry,
    tiled: &'a [u8],
    /// Bytes of one row of blocks, and the rows.
    pub row: usize,
    pub rows: usize,
}

impl<'a> Rows<'a> {
    /// The checks of [`untile`]: the block height, the tiled bytes there are against the
    /// stored size, the untiled size against `limits`.
    pub fn new(
        format: PixelFormat,
        level: u32,
        w: u32,
        h: u32,
        block_height_mip0: u32,
        tiled: &'a [u8],
        limits: &Limits,
    ) -> Result<Rows<'a>> {
        let g = geometry(format, level, w, h, block_height_mip0)?;
        if (tiled.len() as u64) < g.stored {
            return Err(Error::new(crate::io::ErrorKind::Truncated, format!(
                "mip {level}: a {w}x{h} {} block-linear surface (block height {}) needs {} bytes, {} are there",
                format.name(),
                g.block_height,
                g.stored,
                tiled.len()
            )));
        }
        let linear = g.blocks_x * g.blocks_y * g.bytes_per_block;
        limits.check_alloc(linear, "an untiled surface")?;
        // `stored` (at most the bytes read, checked above) bounds the row bytes and the rows,
        // and the linear size passed the allocation limit, so these fit usize even on wasm32.
        let fits = |v: u64| usize::try_from(v).ok();
        let (Some(row), Some(rows)) = (
            g.blocks_x.checked_mul(g.bytes_per_block).and_then(fits),
            fits(g.blocks_y),
        ) else {
            return Err(Error::limit(format!(
                "mip {level}: a block-linear surface of {}x{} blocks is too large",
                g.blocks_x, g.blocks_y
            )));
        };
        Ok(Rows {
            g,
            tiled,
            row,
            rows,
        })
    }

    /// Untiles rows of blocks `first..` into `dst` (whole rows of [`Rows::row`] bytes, as many as
    /// it holds, within the surface); `first` is a multiple of 8 (a row of GOBs).
    ///
    /// Untiles 8 output rows (one row of GOBs) at a time: each GOB is read once, front to back,
    /// and written as its 8 rows of 64 bytes (one cache line each), in 16-byte copies whose size
    /// is known at compile time ([`gob_row`]). Written here rather than calling `tegra_swizzle`
    /// (kept as a dev-dependency: the tests compare this with it) because it measured faster in
    /// the same run, on a 2048x2048 surface: natively BC1 0.09 ms against the crate's 0.17-0.18,
    /// BC7 and ASTC 4x4 0.17 against 0.30, RGBA8 2.4-3.2 against 3.0-3.1
    /// (examples/bench_untile.rs); in Chromium 0.48-0.84x the crate's time
    /// (scripts/bench-untile-wasm.sh). The crate's loop slices and bounds-checks every 16-byte
    /// piece and copies a GOB that ends flush with the surface's edge byte by byte.
    pub fn untile(&self, first: usize, dst: &mut [u8]) {
        debug_assert_eq!(
            first % GOB_HEIGHT as usize,
            0,
            "bands start at a row of GOBs"
        );
        let row = self.row;
        let rows = (dst.len() / row).min(self.rows.saturating_sub(first));
        let dst = &mut dst[..rows * row];
        if dst.is_empty() {
            return;
        }
        let tiled = self.tiled;
        let (gob_w, gob_h, gob_size) = (GOB_WIDTH as usize, GOB_HEIGHT as usize, GOB_SIZE as usize);
        let bh = self.g.block_height as usize;
        // Blocks are one GOB wide and `bh` GOBs high, left to right then down; inside a block its
        // GOBs run top to bottom (the order `geometry` sizes).
        let block_bytes = bh * gob_size;
        let row_of_blocks = row.div_ceil(gob_w) * block_bytes;
        let whole_gobs = row / gob_w;
        for (i, band) in dst.chunks_mut(gob_h * row).enumerate() {
            let band_y = first / gob_h + i;
            let base = (band_y / bh) * row_of_blocks + (band_y % bh) * gob_size;
            let gob = |gx: usize| -> &[u8; 512] {
                tiled[base + gx * block_bytes..][..512]
                    .try_into()
                    .expect("512 bytes")
            };
            // The last band may stop inside its GOBs (rows not a multiple of 8).
            let band_rows = band.len() / row;
            for gx in 0..whole_gobs {
                // A full band with its row count a constant: unrolled, this measured 2.3 ms for
                // a 2048x2048 RGBA8 surface where the loop over a counted `band_rows` took 6.5.
                if band_rows == 8 {
                    whole_gob(band, row, gx * gob_w, gob(gx), 8);
                } else {
                    whole_gob(band, row, gx * gob_w, gob(gx), band_rows);
                }
            }
            // Rows that end inside a GOB: that GOB's rows, clipped.
            let rest = row - whole_gobs * gob_w;
            if rest > 0 {
                let gob = gob(whole_gobs);
                let mut line = [0u8; 64];
                for r in 0..band_rows {
                    gob_row(&mut line, gob, r);
                    band[r * row + whole_gobs * gob_w..][..rest].copy_from_slice(&line[..rest]);
                }
            }
        }
    }
}

/// The first `rows` rows of a GOB into `band` (rows of `row` bytes) at byte `x` of each row.
#[cfg(feature = "tiling-switch")]
#[inline(always)]
fn whole_gob(band: &mut [u8], row: usize, x: usize, gob: &[u8; 512], rows: usize) {
    for r in 0..rows {
        let dst = &mut band[r * row + x..][..64];
        gob_row(dst.try_into().expect("64 bytes"), gob, r);
    }
}

/// Row `r` of a GOB: four 16-byte pieces. A byte (x, y) of a GOB is at
/// `(x / 32) * 256 + (y / 2) * 64 + (x % 32 / 16) * 32 + (y % 2) * 16 + x % 16` (Tegra X1 TRM
/// v1.3, the GOB address example; the same formula as `tegra_swizzle`'s `gob_offset`).
#[cfg(feature = "tiling-switch")]
#[inline(always)]
fn gob_row(dst: &mut [u8; 64], gob: &[u8; 512], r: usize) {
    let s = (r / 2) * 64 + (r % 2) * 16;
    for (k, piece) in [0, 32, 256, 288].into_iter().enumerate() {
        let src: &[u8; 16] = gob[s + piece..][..16].try_into().expect("16 bytes");
        dst[k * 16..][..16].copy_from_slice(src);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Sizes against `tegra_swizzle::swizzle::swizzled_mip_size`, the crate's own formula, for
    /// formats of 1 to 16 bytes a block, sizes that do and do not fill a GOB, and every block
    /// height (with the mip rule applied the crate's way, `mip_block_height`).
    #[cfg(feature = "tiling-switch")]
    #[test]
    fn sizes_match_the_crate() {
        use tegra_swizzle::{
            mip_block_height as crate_mbh, swizzle::swizzled_mip_size, BlockHeight,
        };
        let formats = [
            PixelFormat::R8,
            PixelFormat::RGBA8,
            PixelFormat::BC1,
            PixelFormat::BC7,
            PixelFormat::ASTC {
                w: 5,
                h: 5,
                hdr: false,
            },
        ];
        for f in formats {
            for &(w, h) in &[(1, 1), (7, 3), (64, 64), (100, 37), (1024, 2048), (333, 1)] {
                for &bh0 in &BLOCK_HEIGHTS {
                    for level in 0..3 {
                        let (mw, mh) = ((w >> level).max(1), (h >> level).max(1));
                        let g = geometry(f, level, mw, mh, bh0).unwrap();
                        let bh = crate_mbh(g.blocks_y as u32, BlockHeight::new(bh0).unwrap());
                        assert_eq!(g.block_height, bh as u32, "{f:?} {mw}x{mh} bh0 {bh0}");
                        let want = swizzled_mip_size(
                            g.blocks_x as u32,
                            g.blocks_y as u32,
                            1,
                            bh,
                            g.bytes_per_block as u32,
                        );
                        assert_eq!(g.stored, want as u64, "{f:?} {mw}x{mh} bh0 {bh0}");
                    }
                }
            }
        }
    }

    /// Six layers of a whole chain against `tegra_swizzle::surface::swizzled_surface_size`, which
    /// aligns each layer as the driver does (ported from Ryujinx). The crate halves the
    /// alignment's block height against texel rows, Ryujinx against rows of blocks: the two agree
    /// for uncompressed formats and wherever the halving does not reach, which are the cases
    /// compared; the others are counted, not compared.
    #[cfg(feature = "tiling-switch")]
    #[test]
    fn layer_sizes_match_the_crate() {
        use tegra_swizzle::surface::{swizzled_surface_size, BlockDim};
        use tegra_swizzle::BlockHeight;
        let (mut compared, mut skipped) = (0, 0);
        for (f, dim) in [
            (PixelFormat::RGBA8, BlockDim::uncompressed()),
            (PixelFormat::BC1, BlockDim::block_4x4()),
            (PixelFormat::BC7, BlockDim::block_4x4()),
        ] {
            for &(w, h) in &[
                (1u32, 1u32),
                (64, 64),
                (100, 37),
                (256, 256),
                (200, 200),
                (48, 640),
            ] {
                for &bh0 in &BLOCK_HEIGHTS {
                    let mips = 32 - w.max(h).leading_zeros();
                    let chain: u64 = (0..mips)
                        .map(|l| {
                            let (mw, mh) = ((w >> l).max(1), (h >> l).max(1));
                            geometry(f, l, mw, mh, bh0).unwrap().stored
                        })
                        .sum();
                    let ours = layer_size(f, w, h, bh0, chain).unwrap();
                    let rows = h.div_ceil(f.block().height) as u64;
                    if mip_block_height(rows, bh0) != mip_block_height(h as u64, bh0) {
                        skipped += 1;
                        continue;
                    }
                    let bh = BlockHeight::new(bh0).unwrap();
                    let b = f.block().bytes;
                    let want = swizzled_surface_size(w, h, 1, dim, Some(bh), b, mips, 6);
                    assert_eq!(ours * 6, want as u64, "{f:?} {w}x{h} bh0 {bh0}");
                    compared += 1;
                }
            }
        }
        assert!(
            compared > 50 && skipped > 0,
            "{compared} compared, {skipped} skipped"
        );
    }

    /// The default block height against `tegra_swizzle::block_height_mip0` for every row count a
    /// surface up to 65536 texels high has.
    #[cfg(feature = "tiling-switch")]
    #[test]
    fn default_block_height_matches_the_crate() {
        for rows in 1..=65536u32 {
            assert_eq!(
                default_block_height(rows as u64),
                tegra_swizzle::block_height_mip0(rows) as u32,
                "{rows}"
            );
        }
    }

    /// Our untiler against `tegra_swizzle::swizzle::deswizzle_block_linear` (an independent
    /// implementation of the same TRM layout) on the same random tiled bytes: formats of 1 to
    /// 16 bytes a block, sizes that fill whole GOBs and sizes that end inside one (right and
    /// bottom edges, 1x1), every mip-0 block height and the block height of mips 1 to 4.
    #[cfg(feature = "tiling-switch")]
    #[test]
    fn untile_matches_the_crate() {
        use tegra_swizzle::{swizzle::deswizzle_block_linear, BlockHeight};
        let formats = [
            PixelFormat::R8,
            PixelFormat::RG8,
            PixelFormat::RGBA8,
            PixelFormat::BC1,
            PixelFormat::BC7,
            PixelFormat::RGBA16F,
            PixelFormat::ASTC {
                w: 5,
                h: 4,
                hdr: false,
            },
        ];
        let (mut seed, mut checked) = (0, 0);
        for f in formats {
            for &(w, h) in &[
                (1, 1),
                (7, 3),
                (16, 16),
                (64, 64),
                (100, 37),
                (129, 257),
                (333, 1),
                (1, 300),
                (512, 96),
            ] {
                for &bh0 in &BLOCK_HEIGHTS {
                    for level in 0..5 {
                        let (mw, mh) = ((w >> level).max(1), (h >> level).max(1));
                        let g = geometry(f, level, mw, mh, bh0).unwrap();
                        seed += 1;
                        let tiled = crate::codec::sample::random_bytes(g.stored as usize, seed);
                        let ours =
                            untile(f, level, mw, mh, bh0, &tiled, &Limits::default()).unwrap();
                        let theirs = deswizzle_block_linear(
                            g.blocks_x as u32,
                            g.blocks_y as u32,
                            1,
                            &tiled,
                            BlockHeight::new(g.block_height).unwrap(),
                            g.bytes_per_block as u32,
                        )
                        .unwrap();
                        assert!(ours == theirs, "{f:?} {mw}x{mh} bh0 {bh0} mip {level}");
                        checked += 1;
                    }
                }
            }
        }
        assert_eq!(checked, 7 * 9 * 6 * 5);
    }

    #[test]
    fn unknown_block_heights_and_short_data_are_errors() {
        let e = geometry(PixelFormat::BC1, 0, 64, 64, 3).unwrap_err();
        assert!(e.to_string().contains("block height 3"), "{e}");
        let e = untile(
            PixelFormat::BC1,
            0,
            64,
            64,
            2,
            &[0; 100],
            &Limits::default(),
        )
        .unwrap_err();
        assert!(e.to_string().contains("needs 2048 bytes"), "{e}");
    }
}
