//! Console GPU surface layouts ("tiling", "swizzling") and the untilers that turn a tiled surface
//! back into the row-major blocks every decoder takes.
//!
//! Consoles store textures in the order their GPU's texture units fetch fastest, not row by row:
//! Nintendo Switch (Tegra X1) in block-linear GOBs, PS4 (AMD GCN) in micro-tiled and macro-tiled
//! modes, PS5 (AMD RDNA) in swizzle modes. A texture read from a console build records its
//! [`Tiling`] (from the file, or from the platform the user chose); [`crate::Catalog::read_surface`]
//! reads [`stored_size`] bytes of each surface and passes them through [`untile`], so decoders,
//! the inspector and exports only ever see linear blocks.
//!
//! Like the rest of `codec`, this never sees a file or an engine: it works on a format's blocks
//! ("elements": a 4x4 block of BC1, a texel of RGBA8) and the surface's size.

// The first wasm module leaves untiling to the full one (features `gnf` and `tiling-switch`):
// its readers mark console textures NotInBuild before any layout is needed.
#[cfg(feature = "tiling-switch")]
pub mod block_linear;
#[cfg(feature = "gnf")]
pub mod gcn;
#[cfg(feature = "gnf")]
pub mod rdna;

use super::PixelFormat;
use crate::io::{Error, Limits, Result};
use serde::Serialize;

/// How one texture's surfaces are laid out in memory. The parameters are those of mip 0 as the
/// file states them; each scheme derives a smaller mip's own parameters as its GPU does.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Default)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Tiling {
    /// Rows of blocks one after another: every PC and mobile build.
    #[default]
    Linear,
    /// Tegra X1 (Switch) block-linear: GOBs of 64 bytes x 8 rows, stacked `block_height` GOBs
    /// high (1, 2, 4, 8, 16 or 32) into blocks, for mip 0.
    BlockLinear { block_height: u32 },
    /// AMD GCN (PS4) tile mode (the `TileMode` index of the texture descriptor) and mip 0's
    /// pitch in texels, as the descriptor states it (`gcn::Surface` divides it by the block
    /// width).
    Gcn { tile_mode: u32, pitch: u32 },
    /// AMD RDNA (PS5) swizzle mode (`SW_*` index of the texture descriptor) and the first mip
    /// level stored in the chain's mip tail (the mip count when none is: [`rdna::chain`]), which
    /// places a small level inside the shared tail block.
    Rdna {
        swizzle_mode: u32,
        first_mip_in_tail: u32,
    },
}

impl Tiling {
    pub fn is_linear(&self) -> bool {
        matches!(self, Tiling::Linear)
    }

    /// The layout for a person (the Info line): "Switch block-linear, block height 16".
    pub fn describe(&self) -> String {
        match self {
            Tiling::Linear => "linear".into(),
            Tiling::BlockLinear { block_height } => {
                format!("Switch block-linear, block height {block_height}")
            }
            Tiling::Gcn { tile_mode, pitch } => {
                format!("PS4 GCN tiled, tile mode {tile_mode}, pitch {pitch}")
            }
            Tiling::Rdna { swizzle_mode, .. } => {
                format!("PS5 RDNA swizzled, swizzle mode {swizzle_mode}")
            }
        }
    }

    /// The census `tiling` field: a short stable word.
    pub fn census_name(&self) -> &'static str {
        match self {
            Tiling::Linear => "linear",
            Tiling::BlockLinear { .. } => "block_linear",
            Tiling::Gcn { .. } => "gcn",
            Tiling::Rdna { .. } => "rdna",
        }
    }
}

/// Bytes that the tiled surface of mip `level` (`w` x `h` texels) occupies in the file, padding
/// included.
pub fn stored_size(tiling: Tiling, format: PixelFormat, level: u32, w: u32, h: u32) -> Result<u64> {
    block_grid(tiling, format, w, h)?;
    match tiling {
        Tiling::Linear => Ok(format.surface_size(w, h)),
        #[cfg(feature = "tiling-switch")]
        Tiling::BlockLinear { block_height } => {
            Ok(block_linear::geometry(format, level, w, h, block_height)?.stored)
        }
        #[cfg(feature = "gnf")]
        Tiling::Gcn { tile_mode, pitch } => {
            Ok(gcn::Surface::new(tile_mode, pitch, format, level, w, h)?.stored_size())
        }
        #[cfg(feature = "gnf")]
        Tiling::Rdna {
            swizzle_mode,
            first_mip_in_tail,
        } => Ok(
            rdna::Surface::new(swizzle_mode, first_mip_in_tail, format, level, w, h)?.stored_size(),
        ),
        // Reached in builds that leave an untiler out (the page's core module).
        #[allow(unreachable_patterns)]
        other => Err(not_yet(other, format, level)),
    }
}

/// Untiles one surface of mip `level` (`w` x `h` texels) from `tiled` (at least
/// [`stored_size`] bytes) into `format.surface_size(w, h)` bytes of row-major blocks.
#[cfg(feature = "gnf")]
pub fn untile(
    tiling: Tiling,
    format: PixelFormat,
    level: u32,
    w: u32,
    h: u32,
    tiled: &[u8],
    limits: &Limits,
) -> Result<Vec<u8>> {
    Ok(Untiler::new(tiling, format, level, w, h, tiled, limits)?.to_vec())
}

/// [`untile`] in a build without the AMD untilers (the page's core module has none; a build
/// with `tiling-switch` alone has Switch's).
#[cfg(not(feature = "gnf"))]
#[cfg_attr(not(feature = "tiling-switch"), allow(unused_variables))]
pub fn untile(
    tiling: Tiling,
    format: PixelFormat,
    level: u32,
    w: u32,
    h: u32,
    tiled: &[u8],
    limits: &Limits,
) -> Result<Vec<u8>> {
    block_grid(tiling, format, w, h)?;
    match tiling {
        Tiling::Linear => {
            let size = format.surface_size(w, h);
            match tiled.get(..usize::try_from(size).unwrap_or(usize::MAX)) {
                Some(surface) => Ok(surface.to_vec()),
                None => Err(Error::truncated(0, size, tiled.len() as u64)),
            }
        }
        #[cfg(feature = "tiling-switch")]
        Tiling::BlockLinear { block_height } => {
            block_linear::untile(format, level, w, h, block_height, tiled, limits)
        }
        other => Err(not_yet(other, format, level)),
    }
}

/// One surface's untiling, checked against its tiled bytes (the same checks and errors as
/// [`untile`]) and untiled a band of rows of blocks at a time into the caller's buffer: the fused
/// untile + decode (`codec::decode_tiled`) keeps a band of a few tens of KiB in cache between the
/// untile and the decode instead of writing a whole untiled surface and reading it back.
#[cfg(feature = "gnf")]
pub struct Untiler<'a> {
    rows: Rows<'a>,
}

#[cfg(feature = "gnf")]
enum Rows<'a> {
    Linear {
        tiled: &'a [u8],
        row: usize,
        rows: usize,
    },
    #[cfg(feature = "tiling-switch")]
    BlockLinear(block_linear::Rows<'a>),
    Gcn(gcn::Rows<'a>),
    Rdna(rdna::Rows<'a>),
}

#[cfg(feature = "gnf")]
impl<'a> Untiler<'a> {
    /// Bands start at a multiple of this many rows of blocks (a row of Switch GOBs, a row of
    /// GCN micro-tiles).
    pub const BAND_ALIGN: usize = 8;

    pub fn new(
        tiling: Tiling,
        format: PixelFormat,
        level: u32,
        w: u32,
        h: u32,
        tiled: &'a [u8],
        limits: &Limits,
    ) -> Result<Untiler<'a>> {
        block_grid(tiling, format, w, h)?;
        let rows = match tiling {
            Tiling::Linear => {
                let size = format.surface_size(w, h);
                if (tiled.len() as u64) < size {
                    return Err(Error::truncated(0, size, tiled.len() as u64));
                }
                // Any format: its rows of blocks (PVRTC's whole surface as one row).
                let b = format.block();
                let rows = (h as u64)
                    .div_ceil(b.height as u64)
                    .max(b.min_blocks as u64);
                let rows = if size % rows == 0 { rows } else { 1 };
                Rows::Linear {
                    tiled: &tiled[..size as usize],
                    row: (size / rows) as usize,
                    rows: rows as usize,
                }
            }
            #[cfg(feature = "tiling-switch")]
            Tiling::BlockLinear { block_height } => Rows::BlockLinear(block_linear::Rows::new(
                format,
                level,
                w,
                h,
                block_height,
                tiled,
                limits,
            )?),
            Tiling::Gcn { tile_mode, pitch } => Rows::Gcn(
                gcn::Surface::new(tile_mode, pitch, format, level, w, h)?.rows(tiled, limits)?,
            ),
            Tiling::Rdna {
                swizzle_mode,
                first_mip_in_tail,
            } => Rows::Rdna(
                rdna::Surface::new(swizzle_mode, first_mip_in_tail, format, level, w, h)?
                    .rows(tiled, limits)?,
            ),
            #[allow(unreachable_patterns)]
            other => return Err(not_yet(other, format, level)),
        };
        Ok(Untiler { rows })
    }

    /// Bytes of one untiled row of blocks, and the rows of blocks.
    pub fn shape(&self) -> (usize, usize) {
        match &self.rows {
            Rows::Linear { row, rows, .. } => (*row, *rows),
            #[cfg(feature = "tiling-switch")]
            Rows::BlockLinear(r) => (r.row, r.rows),
            Rows::Gcn(r) => (r.row, r.rows),
            Rows::Rdna(r) => (r.row, r.rows),
        }
    }

    /// Untiles rows of blocks `first..` (a multiple of [`Untiler::BAND_ALIGN`]) into `dst`:
    /// whole rows, as many as it holds, within the surface.
    pub fn untile(&self, first: usize, dst: &mut [u8]) {
        debug_assert_eq!(first % Self::BAND_ALIGN, 0);
        match &self.rows {
            Rows::Linear { tiled, row, rows } => {
                let n = (dst.len() / row).min(rows.saturating_sub(first));
                dst[..n * row].copy_from_slice(&tiled[first * row..][..n * row]);
            }
            #[cfg(feature = "tiling-switch")]
            Rows::BlockLinear(r) => r.untile(first, dst),
            Rows::Gcn(r) => r.untile(first, dst),
            Rows::Rdna(r) => r.untile(first, dst),
        }
    }

    /// The whole untiled surface, as [`untile`] returns it.
    pub fn to_vec(&self) -> Vec<u8> {
        let (row, rows) = self.shape();
        let mut out = vec![0u8; row * rows];
        self.untile(0, &mut out);
        out
    }
}

/// A surface's size in elements (blocks of a block-compressed format, else texels) and the
/// bytes of one element; the console layouts address elements, never texels.
#[cfg(feature = "gnf")]
pub(crate) fn elements(format: PixelFormat, w: u32, h: u32) -> (u64, u64, u64) {
    let b = format.block();
    (
        (w as u64).div_ceil(b.width as u64).max(1),
        (h as u64).div_ceil(b.height as u64).max(1),
        b.bytes as u64,
    )
}

/// Fills `dst_row` with runs of `run_bytes` bytes, run `k` read from `tiled` at
/// `base + offsets[k]` (the last run may be short). Runs of 8, 16 and 32 bytes (every standard
/// swizzle run and GCN Morton pair of a BCn or 32-bit format) are copied with a size known at
/// compile time, which the compiler turns into plain moves instead of a `memcpy` call per run:
/// that call was most of an untile's time (examples/bench_untile).
#[cfg(feature = "gnf")]
pub(crate) fn copy_runs(
    dst_row: &mut [u8],
    tiled: &[u8],
    base: usize,
    offsets: &[usize],
    run_bytes: usize,
) {
    fn fixed<const N: usize>(dst_row: &mut [u8], tiled: &[u8], base: usize, offsets: &[usize]) {
        let whole = dst_row.len() / N;
        let mut chunks = dst_row.chunks_exact_mut(N);
        for (dst, &off) in (&mut chunks).zip(offsets) {
            let src: &[u8; N] = tiled[base + off..][..N].try_into().unwrap();
            dst.copy_from_slice(src);
        }
        let rest = chunks.into_remainder();
        if let Some(&off) = offsets.get(whole) {
            rest.copy_from_slice(&tiled[base + off..][..rest.len()]);
        }
    }
    match run_bytes {
        8 => fixed::<8>(dst_row, tiled, base, offsets),
        16 => fixed::<16>(dst_row, tiled, base, offsets),
        32 => fixed::<32>(dst_row, tiled, base, offsets),
        _ => {
            for (dst, &off) in dst_row.chunks_mut(run_bytes).zip(offsets) {
                dst.copy_from_slice(&tiled[base + off..][..dst.len()]);
            }
        }
    }
}

/// The console layouts move a surface's blocks as a plain grid (whole blocks, row by row). A
/// format whose surface is more than that grid (PVRTC pads to at least 2x2 blocks) has no console
/// layout: refused, where an untiler would return fewer bytes than the decoder reads (the untile
/// fuzz target found PVRTC4 1x1 untiled to 8 bytes of a 32-byte surface).
fn block_grid(tiling: Tiling, format: PixelFormat, w: u32, h: u32) -> Result<()> {
    let b = format.block();
    // Saturating as `surface_size` is: a hostile size (u32::MAX a side of 16-byte blocks)
    // overflowed u64 here, and then fails the untilers' size checks.
    let grid = (w as u64)
        .div_ceil(b.width as u64)
        .max(1)
        .saturating_mul((h as u64).div_ceil(b.height as u64).max(1))
        .saturating_mul(b.bytes as u64);
    if tiling.is_linear() || format.surface_size(w, h) == grid {
        return Ok(());
    }
    Err(Error::unsupported(format!(
        "{} surfaces are not stored {} by any console this reads",
        format.name(),
        tiling.census_name()
    )))
}

fn not_yet(tiling: Tiling, format: PixelFormat, level: u32) -> Error {
    // The page's core module leaves the untilers out (Cargo.toml, features `gnf` for the AMD
    // layouts and `tiling-switch` for Tegra's): the page then reopens in the full module.
    let feature = match tiling {
        Tiling::Gcn { .. } | Tiling::Rdna { .. } if cfg!(not(feature = "gnf")) => Some("gnf"),
        Tiling::BlockLinear { .. } if cfg!(not(feature = "tiling-switch")) => Some("tiling-switch"),
        _ => None,
    };
    if let Some(feature) = feature {
        return Error::not_in_build(
            format_args!(
                "mip {level} ({}) stored {}",
                format.name(),
                tiling.census_name()
            ),
            feature,
        );
    }
    Error::unsupported(format!(
        "mip {level} ({}) is stored {}, which this build cannot untile yet",
        format.name(),
        tiling.census_name()
    ))
}
