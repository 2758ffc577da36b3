//! AMD GCN (PS4) surface layouts: the texture descriptor's tile mode index and pitch.
//!
//! The PS4 SDK (Gnm) names the 32 entries of GCN's tile mode table; the ones a texture tool writes
//! for sampled 2D textures are `Thin_1dThin` (13), `Display_LinearAligned` (8) and the 2D macro-tiled
//! modes (10, 14). Facts used here:
//! - A 1D-tiled thin surface is a row-major grid of 8x8-element micro-tiles, the grid `pitch / 8`
//!   micro-tiles wide, the height padded to 8 rows (AMD addrlib, `ADDR_TM_1D_TILED_THIN1`:
//!   `MicroTileWidth = MicroTileHeight = 8`, micro-tiles in linear order).
//! - Inside a micro-tile of the non-displayable ("thin") micro-tile mode the elements are in Morton
//!   order, x in the low bit: element index bits `x0 y0 x1 y1 x2 y2` for every element size (addrlib
//!   `ComputePixelIndexWithinMicroTile`, `ADDR_NON_DISPLAYABLE`). Checked on the shared PS4 samples:
//!   untiled this way, doge.gnf and brick.gnf equal their source images exactly.
//! - Linear-aligned surfaces are rows of `pitch` elements.
//!
//! An element is a format's block (a 4x4 block of BCn, a texel of RGBA8); the descriptor's pitch is
//! in texels, so a block-compressed surface's pitch in elements is `pitch / block width`.
//!
//! Only mip 0 is placed: the sample files carry one mip each, and the placement of GCN's smaller
//! mips (pow2-padded pitches, per-level alignment) is not verified on a real file, so a smaller mip
//! of a tiled chain is an Unsupported error naming the mip rather than a guess.

use super::{elements, PixelFormat};
use crate::io::{Error, Limits, Result};

/// Gnm `kTileModeDisplay_LinearAligned`.
pub const DISPLAY_LINEAR_ALIGNED: u32 = 8;
/// Gnm `kTileModeThin_1dThin`.
pub const THIN_1D_THIN: u32 = 13;

/// A readable name of a Gnm tile mode index, for the info panel ("1D thin").
pub fn mode_name(tile_mode: u32) -> String {
    // Gnm's TileMode enumeration (the PS4 SDK's names of GCN's tile mode table entries).
    const NAMES: [&str; 32] = [
        "depth 2D thin 64",
        "depth 2D thin 128",
        "depth 2D thin 256",
        "depth 2D thin 512",
        "depth 2D thin 1K",
        "depth 1D thin",
        "depth 2D thin PRT 256",
        "depth 2D thin PRT 1K",
        "display linear aligned",
        "display 1D thin",
        "display 2D thin",
        "display thin PRT",
        "display 2D thin PRT",
        "1D thin",
        "2D thin",
        "3D thin",
        "thin PRT",
        "2D thin PRT",
        "3D thin PRT",
        "1D thick",
        "2D thick",
        "3D thick",
        "thick PRT",
        "2D thick PRT",
        "3D thick PRT",
        "2D XThick",
        "3D XThick",
        "mode 27",
        "mode 28",
        "mode 29",
        "mode 30",
        "display linear general",
    ];
    NAMES
        .get(tile_mode as usize)
        .map_or_else(|| format!("mode {tile_mode}"), |s| s.to_string())
}

/// One GCN surface in elements: its size, pitch and padded height.
pub struct Surface {
    tile_mode: u32,
    /// Elements across and down the image.
    ew: u64,
    eh: u64,
    /// Bytes per element.
    bpe: u64,
    /// Elements per stored row (the pitch) and stored rows.
    pitch: u64,
    rows: u64,
}

impl Surface {
    /// Mip `level` (`w` x `h` texels) of a texture whose descriptor gives `tile_mode` and mip 0's
    /// `pitch` in texels.
    pub fn new(
        tile_mode: u32,
        pitch: u32,
        format: PixelFormat,
        level: u32,
        w: u32,
        h: u32,
    ) -> Result<Surface> {
        if level > 0 {
            return Err(Error::unsupported(format!(
                "mip {level} is stored GCN {}: this build places only mip 0 of a GCN-tiled chain",
                mode_name(tile_mode)
            )));
        }
        let (ew, eh, bpe) = elements(format, w, h);
        let block_w = format.block().width as u64;
        let pitch = (pitch as u64).div_ceil(block_w);
        if pitch < ew {
            return Err(Error::malformed(format!(
                "the texture descriptor's pitch ({pitch} elements) is less than the width ({ew} elements)"
            )));
        }
        let rows = match tile_mode {
            DISPLAY_LINEAR_ALIGNED => eh,
            THIN_1D_THIN => {
                if pitch % 8 != 0 {
                    return Err(Error::malformed(format!(
                        "the texture descriptor's pitch ({pitch} elements) is not a whole number of 8-element micro-tiles, as GCN 1D thin tiling needs"
                    )));
                }
                eh.div_ceil(8) * 8
            }
            other => {
                return Err(Error::unsupported(format!(
                    "GCN tile mode {other} ({}) is not one this build untiles (it reads 1D thin and linear aligned)",
                    mode_name(other)
                )))
            }
        };
        Ok(Surface {
            tile_mode,
            ew,
            eh,
            bpe,
            pitch,
            rows,
        })
    }

    /// Bytes the tiled surface occupies: the padded pitch times the padded rows.
    pub fn stored_size(&self) -> u64 {
        // Saturating: a hostile size (u32::MAX a side) overflowed u64, wrapped to a small size
        // in a release build and passed the checks against the bytes there are.
        self.pitch
            .saturating_mul(self.rows)
            .saturating_mul(self.bpe)
    }

    /// The surface checked against its tiled bytes (at least [`Surface::stored_size`]) and the
    /// untiled size against `limits`, ready to untile a band of rows at a time
    /// ([`Rows::untile`]; the whole surface through `tiling::untile`).
    pub fn rows<'a>(&self, tiled: &'a [u8], limits: &Limits) -> Result<Rows<'a>> {
        let need = self.stored_size();
        if (tiled.len() as u64) < need {
            return Err(Error::malformed(format!(
                "the GCN surface holds {} bytes, but its pitch and height need {need}",
                tiled.len()
            )));
        }
        let out_len = self.eh.saturating_mul(self.ew).saturating_mul(self.bpe);
        limits.check_alloc(out_len, "the untiled surface")?;
        // The tiled bytes (in memory) hold the pitch, the rows and the padded rows, so all
        // of these fit usize.
        let (ew, bpe, pitch) = (self.ew as usize, self.bpe as usize, self.pitch as usize);
        let tile_bytes = 64 * bpe;
        let linear = self.tile_mode == DISPLAY_LINEAR_ALIGNED;
        // Morton pairs: x0 is the lowest index bit, so elements x and x + 1 (x even) of a
        // micro-tile row sit side by side and move as one copy of two elements. The byte offset
        // of each pair within a row of micro-tiles is computed once, so the inner loop is one
        // table read and one copy per pair, no per-element address arithmetic.
        let offsets = if linear {
            Vec::new()
        } else {
            (0..ew.div_ceil(2))
                .map(|pair| {
                    let x = pair * 2;
                    (x / 8) * tile_bytes + X_MORTON[x % 8] * bpe
                })
                .collect()
        };
        Ok(Rows {
            tiled,
            row: ew * bpe,
            rows: self.eh as usize,
            bpe,
            linear,
            pitch_bytes: pitch * bpe,
            tile_row_bytes: (pitch / 8) * tile_bytes,
            offsets,
        })
    }
}

/// A GCN surface checked against its tiled bytes ([`Surface::rows`]), untiled a band of rows at
/// a time into the caller's buffer.
pub struct Rows<'a> {
    tiled: &'a [u8],
    /// Bytes of one untiled row of elements, and the rows.
    pub row: usize,
    pub rows: usize,
    bpe: usize,
    linear: bool,
    pitch_bytes: usize,
    tile_row_bytes: usize,
    /// 1D thin: each Morton pair's byte offset within a row of micro-tiles.
    offsets: Vec<usize>,
}

impl Rows<'_> {
    /// Untiles rows `first..` into `dst` (whole rows, as many as it holds, within the surface).
    pub fn untile(&self, first: usize, dst: &mut [u8]) {
        let row = self.row;
        let rows = (dst.len() / row).min(self.rows.saturating_sub(first));
        let dst = &mut dst[..rows * row];
        let run = 2 * self.bpe;
        if self.linear || first % 8 != 0 || !matches!(run, 8 | 16 | 32) {
            for (i, dst_row) in dst.chunks_exact_mut(row).enumerate() {
                let y = first + i;
                if self.linear {
                    dst_row.copy_from_slice(&self.tiled[y * self.pitch_bytes..][..row]);
                } else {
                    let base = (y / 8) * self.tile_row_bytes + Y_MORTON[y % 8] * self.bpe;
                    super::copy_runs(dst_row, self.tiled, base, &self.offsets, run);
                }
            }
            return;
        }
        // Pairs of 8, 16 and 32 bytes (RGBA8 and other 4-byte texels, BC1-BC7): a row of
        // micro-tiles (8 rows) at a time, each whole micro-tile read once, front to back, and
        // written as its 8 rows of 4 pairs, where the row-by-row walk through the pair table
        // visits every micro-tile of the row of tiles 8 times. Measured on a 2048x2048 surface
        // (`texscope bench --untile --runs 101`, 51 for RGBA8; PS4 `untile_ms`, alternating
        // builds): BC1 0.41-0.48 -> 0.26-0.31 ms, BC7 0.78-0.84 -> 0.66-0.73, RGBA8 3.9-4.3 -> 3.1.
        let whole_tiles = row / (8 * self.bpe);
        for (b, band) in dst.chunks_mut(8 * row).enumerate() {
            let ty = first / 8 + b;
            let tile_row = &self.tiled[ty * self.tile_row_bytes..];
            let whole = if band.len() == 8 * row {
                whole_tiles
            } else {
                0
            };
            if run == 8 {
                micro_tiles::<8>(band, row, tile_row, whole);
            } else if run == 16 {
                micro_tiles::<16>(band, row, tile_row, whole);
            } else {
                micro_tiles::<32>(band, row, tile_row, whole);
            }
            // The columns right of the whole micro-tiles (and every column of a band cut short
            // by the surface's last row), row by row.
            let skip = whole * 8 * self.bpe;
            if skip < row {
                for (r, dst_row) in band.chunks_exact_mut(row).enumerate() {
                    let base = ty * self.tile_row_bytes + Y_MORTON[r] * self.bpe;
                    let offsets = &self.offsets[whole * 4..];
                    super::copy_runs(&mut dst_row[skip..], self.tiled, base, offsets, run);
                }
            }
        }
    }
}

/// The first `tiles` micro-tiles of a row of them (`tile_row`) into `band` (8 rows of `row`
/// bytes): a micro-tile is 32 Morton pairs of `N` bytes in order; pair `k` (element index
/// `2k`, bits `x0 y0 x1 y1 x2 y2`) is row `y0 | y1 << 1 | y2 << 2`, pair column `x1 | x2 << 1`.
/// Each of a micro-tile's rows is one slice of the band (its 4 pairs), so the copies inside it
/// have constant offsets and no bounds checks of their own.
#[inline(always)]
fn micro_tiles<const N: usize>(band: &mut [u8], row: usize, tile_row: &[u8], tiles: usize) {
    for t in 0..tiles {
        let src = &tile_row[t * 32 * N..][..32 * N];
        for y in 0..8 {
            let dst = &mut band[y * row + t * 4 * N..][..4 * N];
            for xp in 0..4 {
                let k =
                    (y & 1) | (xp & 1) << 1 | ((y >> 1) & 1) << 2 | (xp >> 1) << 3 | (y >> 2) << 4;
                let piece: &[u8; N] = src[k * N..][..N].try_into().expect("N bytes");
                dst[xp * N..][..N].copy_from_slice(piece);
            }
        }
    }
}

/// Morton position of x (bits 0, 2, 4 of the element index) inside a micro-tile.
const X_MORTON: [usize; 8] = [0, 1, 4, 5, 16, 17, 20, 21];
/// Morton position of y (bits 1, 3, 5).
const Y_MORTON: [usize; 8] = [0, 2, 8, 10, 32, 34, 40, 42];

#[cfg(test)]
mod tests {
    use super::super::{untile, Tiling};
    use super::*;

    /// A 1D-thin surface written by the textbook formula (element (x, y) at micro-tile
    /// `(y/8) * pitch/8 + x/8`, index `morton(x%8, y%8)`) comes back row-major; the formula is
    /// addrlib's for `ADDR_TM_1D_TILED_THIN1` with the non-displayable micro-tile mode. Elements
    /// of 4, 8 and 16 bytes (RGBA8, BC1, BC7: the three Morton pair sizes the micro-tile loop
    /// copies), widths and heights that do and do not fill micro-tiles, padded pitches, whole
    /// surfaces and bands of 8 rows from row 8 on.
    #[test]
    fn thin_1d_round_trip_with_padded_pitch() {
        for (format, bpe) in [
            (PixelFormat::RGBA8, 4usize),
            (PixelFormat::BC1, 8),
            (PixelFormat::BC7, 16),
        ] {
            let bw = format.block().width as usize;
            // Elements across and down, and the pitch in elements.
            for (ew, eh, pitch) in [
                (13usize, 10usize, 16usize),
                (64, 24, 64),
                (70, 17, 80),
                (1, 1, 8),
            ] {
                let rows = eh.div_ceil(8) * 8;
                let mut tiled = vec![0u8; pitch * rows * bpe];
                let mut expect = Vec::new();
                for y in 0..eh {
                    for x in 0..ew {
                        let v: Vec<u8> =
                            (0..bpe).map(|i| (x * 7 + y * 131 + i * 29) as u8).collect();
                        expect.extend_from_slice(&v);
                        let mut m = 0;
                        for b in 0..3 {
                            m |= (((x % 8) >> b) & 1) << (2 * b);
                            m |= (((y % 8) >> b) & 1) << (2 * b + 1);
                        }
                        let at = ((y / 8) * (pitch / 8) + x / 8) * 64 * bpe + m * bpe;
                        tiled[at..at + bpe].copy_from_slice(&v);
                    }
                }
                let (w, h) = ((ew * bw) as u32, (eh * bw) as u32);
                let surface =
                    Surface::new(THIN_1D_THIN, (pitch * bw) as u32, format, 0, w, h).unwrap();
                let tiling = Tiling::Gcn {
                    tile_mode: THIN_1D_THIN,
                    pitch: (pitch * bw) as u32,
                };
                let got = untile(tiling, format, 0, w, h, &tiled, &Limits::default()).unwrap();
                assert!(got == expect, "{format:?} {ew}x{eh} pitch {pitch}");
                let band = surface.rows(&tiled, &Limits::default()).unwrap();
                let row = ew * bpe;
                for first in (8..eh).step_by(8) {
                    let mut dst = vec![0u8; 8 * row];
                    band.untile(first, &mut dst);
                    let n = (eh - first).min(8) * row;
                    assert!(
                        dst[..n] == expect[first * row..][..n],
                        "{format:?} {ew}x{eh} from {first}"
                    );
                }
            }
        }
    }

    /// 1D thin against `swizzleinator`'s PS4 deswizzler (an independent implementation of the
    /// same layout, used by PS4 modding tools): random tiled bytes of BC1, BC3, BC7 and RGBA8
    /// surfaces untiled by both. Its pitch is the width rounded up to whole micro-tiles, or with
    /// `align_resolution` the width rounded up to a power of two (for block-compressed formats),
    /// which exercises a padded pitch; sizes are whole blocks (it rounds partial blocks down).
    #[test]
    fn thin_1d_matches_swizzleinator() {
        use swizzleinator::format::GcnSurfaceFormat as G;
        use swizzleinator::swizzle::{ps::Ps4, Deswizzler};
        let mut checked = 0;
        for (format, theirs) in [
            (PixelFormat::BC1, G::BC1),
            (PixelFormat::BC3, G::BC3),
            (PixelFormat::BC7, G::BC7),
            (PixelFormat::RGBA8, G::Format8_8_8_8),
        ] {
            let b = format.block();
            let (bw, bpe) = (b.width as usize, b.bytes as usize);
            for (w, h) in [
                (64usize, 64usize),
                (256, 128),
                (100, 36),
                (340, 752),
                (4, 4),
                (32, 1024),
            ] {
                for align in [false, true] {
                    if align && bw == 1 {
                        continue; // it pads only block-compressed formats
                    }
                    let (sw, sh) = if align {
                        (w.next_power_of_two(), h.next_power_of_two())
                    } else {
                        (w, h)
                    };
                    // Elements of the stored surface: micro-tiles across and down.
                    let (tx, ty) = ((sw / bw).div_ceil(8), (sh / bw).div_ceil(8));
                    let mut tiled =
                        crate::codec::sample::random_bytes(tx * ty * 64 * bpe, checked + 1);
                    let mut want = vec![0u8; (w / bw) * (h / bw) * bpe];
                    Ps4::deswizzle(&mut tiled, &mut want, (w, h, 1), theirs, align).unwrap();
                    let pitch = (tx * 8 * bw) as u32;
                    let tiling = Tiling::Gcn {
                        tile_mode: THIN_1D_THIN,
                        pitch,
                    };
                    let (w32, h32) = (w as u32, h as u32);
                    let got =
                        untile(tiling, format, 0, w32, h32, &tiled, &Limits::default()).unwrap();
                    assert!(got == want, "{format:?} {w}x{h} align {align}");
                    checked += 1;
                }
            }
        }
        assert_eq!(checked, 3 * 6 * 2 + 6);
    }

    #[test]
    fn refuses_unknown_modes_short_data_and_small_pitch() {
        let l = Limits::default();
        let new =
            |mode, pitch, level, w| Surface::new(mode, pitch, PixelFormat::RGBA8, level, w, w);
        let e = new(14, 64, 0, 64).err().unwrap();
        assert!(e.to_string().contains("tile mode 14"), "{e}");
        let e = new(THIN_1D_THIN, 8, 0, 64).err().unwrap();
        assert!(e.to_string().contains("pitch"), "{e}");
        let e = new(THIN_1D_THIN, 64, 0, 64)
            .unwrap()
            .rows(&[0; 100], &l)
            .err()
            .unwrap();
        assert!(e.to_string().contains("holds 100 bytes"), "{e}");
        let e = new(THIN_1D_THIN, 64, 1, 32).err().unwrap();
        assert!(e.to_string().contains("mip 1"), "{e}");
    }
}
