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

// The first wasm module leaves untiling to the full one (feature `tiling-switch`): its readers
// mark console textures NotInBuild before any layout is needed.
#[cfg(feature = "tiling-switch")]
pub mod block_linear;

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
    /// pitch in elements.
    Gcn { tile_mode: u32, pitch: u32 },
    /// AMD RDNA (PS5) swizzle mode (`SW_*` index of the texture descriptor).
    Rdna { swizzle_mode: u32 },
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
            Tiling::Rdna { swizzle_mode } => {
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
    match tiling {
        Tiling::Linear => Ok(format.surface_size(w, h)),
        #[cfg(feature = "tiling-switch")]
        Tiling::BlockLinear { block_height } => {
            Ok(block_linear::geometry(format, level, w, h, block_height)?.stored)
        }
        other => Err(not_yet(other, format, level)),
    }
}

/// Untiles one surface of mip `level` (`w` x `h` texels) from `tiled` (at least
/// [`stored_size`] bytes) into `format.surface_size(w, h)` bytes of row-major blocks.
pub fn untile(
    tiling: Tiling,
    format: PixelFormat,
    level: u32,
    w: u32,
    h: u32,
    tiled: &[u8],
    limits: &Limits,
) -> Result<Vec<u8>> {
    // (Only the untilers of the full module take the limits.)
    let _ = limits;
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

fn not_yet(tiling: Tiling, format: PixelFormat, level: u32) -> Error {
    Error::unsupported(format!(
        "mip {level} ({}) is stored {}, which this build cannot untile yet",
        format.name(),
        tiling.census_name()
    ))
}
