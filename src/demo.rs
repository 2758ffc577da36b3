//! The page's "Try a demo" files, made from the fixture builders (no binary file is committed and
//! nothing is downloaded from elsewhere): `scripts/demos.mjs` runs them in the full wasm module at
//! build time and the page fetches the result same-origin, so the builders stay out of the page's
//! first module (issue 8, size). Each demo is a set of files with the names a game would give them,
//! so they go through `open` exactly as dropped files do.
//!
//! Pictures are drawn one colour per 4x4 block: a BC1 block with equal endpoints and index 0
//! decodes to its endpoint (BC1 specification), and a BC4/BC5 block with r0 = r1 and index 0 to
//! r0, so every pixel's decoded value is known exactly without an encoder.

use crate::dds::{self, Desc};
use crate::frostbite::{cas, fixture as fb};
use crate::io::{Error, Result};
use crate::model::{mip_dims, TextureKind};
use crate::unreal::fixture::{self as ue, VtSpec};
use crate::PixelFormat;

/// A demo's files: (name, bytes).
pub type DemoFiles = Vec<(String, Vec<u8>)>;

/// Ids the page offers, in gallery order.
pub const IDS: &[&str] = &["ue5-vt", "ue-classic", "frostbite-cas", "hdr", "cubemap"];

/// Builds the files of demo `id`.
pub fn files(id: &str) -> Result<DemoFiles> {
    match id {
        "ue5-vt" => Ok(ue5_virtual_texture()),
        "ue-classic" => Ok(ue_classic()),
        "frostbite-cas" => frostbite(),
        "hdr" => hdr_sky(),
        "cubemap" => cubemap(),
        _ => Err(Error::not_recognised(format!("there is no demo {id:?}"))),
    }
}

/// RGB565 of an 8-bit colour (truncating; the decoded value is the 565 expansion).
fn rgb565([r, g, b]: [u8; 3]) -> u16 {
    ((r as u16 >> 3) << 11) | ((g as u16 >> 2) << 5) | (b as u16 >> 3)
}

/// A `w` x `h` BC1 surface whose block (bx, by) is the flat colour `colour(bx, by)`.
fn bc1_flat(w: u32, h: u32, mut colour: impl FnMut(u32, u32) -> [u8; 3]) -> Vec<u8> {
    let mut out = Vec::with_capacity(PixelFormat::BC1.surface_size(w, h) as usize);
    for by in 0..h.div_ceil(4) {
        for bx in 0..w.div_ceil(4) {
            let c = rgb565(colour(bx, by)).to_le_bytes();
            out.extend_from_slice(&[c[0], c[1], c[0], c[1], 0, 0, 0, 0]);
        }
    }
    out
}

/// A `w` x `h` BC5 surface whose block (bx, by) is the flat (red, green) `rg(bx, by)`.
fn bc5_flat(w: u32, h: u32, mut rg: impl FnMut(u32, u32) -> [u8; 2]) -> Vec<u8> {
    let mut out = Vec::with_capacity(PixelFormat::BC5.surface_size(w, h) as usize);
    for by in 0..h.div_ceil(4) {
        for bx in 0..w.div_ceil(4) {
            let [r, g] = rg(bx, by);
            out.extend_from_slice(&[r, r, 0, 0, 0, 0, 0, 0, g, g, 0, 0, 0, 0, 0, 0]);
        }
    }
    out
}

fn mix(a: [f32; 3], b: [f32; 3], t: f32) -> [f32; 3] {
    let t = t.clamp(0.0, 1.0);
    [0, 1, 2].map(|i| a[i] + (b[i] - a[i]) * t)
}

fn to8(c: [f32; 3]) -> [u8; 3] {
    c.map(|v| (v.clamp(0.0, 1.0) * 255.0).round() as u8)
}

/// A rolling landscape height in 0..1 at texture pixel (x, y) of a 512-pixel-wide picture.
fn height(x: f32, y: f32) -> f32 {
    let (u, v) = (
        x / 512.0 * std::f32::consts::TAU,
        y / 512.0 * std::f32::consts::TAU,
    );
    let h = 0.5
        + 0.22 * (u * 1.0 + 0.3).sin() * (v * 1.0).cos()
        + 0.14 * (u * 2.0 + v * 3.0).sin()
        + 0.07 * (u * 5.0 - v * 4.0 + 1.0).cos();
    h.clamp(0.0, 1.0)
}

/// A topographic colour ramp: water, sand, grass, rock, snow; contour lines every 1/12.
fn terrain_colour(x: f32, y: f32) -> [u8; 3] {
    let h = height(x, y);
    let c = if h < 0.36 {
        mix([0.05, 0.16, 0.35], [0.12, 0.42, 0.62], h / 0.36)
    } else if h < 0.42 {
        [0.80, 0.74, 0.52]
    } else if h < 0.66 {
        mix([0.28, 0.55, 0.22], [0.16, 0.36, 0.14], (h - 0.42) / 0.24)
    } else if h < 0.82 {
        mix([0.45, 0.38, 0.30], [0.55, 0.52, 0.50], (h - 0.66) / 0.16)
    } else {
        [0.94, 0.95, 0.97]
    };
    let contour = h >= 0.36 && (h * 12.0).fract() < 0.08;
    to8(if contour { mix(c, [0.0; 3], 0.35) } else { c })
}

/// The VT demo's fallback colours: magenta so a tile with no data is plain to see, and a flat
/// normal (0.5, 0.5) for the normal layer.
pub const VT_FALLBACK: [[f32; 4]; 2] = [[1.0, 0.0, 1.0, 1.0], [0.5, 0.5, 1.0, 1.0]];
/// (mip, tile x, tile y) cells of the VT demo that hold no tile.
pub const VT_HOLES: [(u32, u32, u32); 3] = [(0, 1, 2), (0, 6, 0), (1, 3, 3)];

/// UE5 virtual texture, 512x512 in 64-pixel tiles with a 4-pixel border, two layers (BC1 base
/// colour, BC5 normal), three mips in two .ubulk chunks, and a few tiles left out.
fn ue5_virtual_texture() -> DemoFiles {
    let border = 4;
    let spec = VtSpec {
        layers: vec![PixelFormat::BC1, PixelFormat::BC5],
        fallback: VT_FALLBACK.to_vec(),
        tile_size: 64,
        border,
        width_tiles: 8,
        height_tiles: 8,
        mips: 3,
        chunk_of_mip: vec![0, 1, 1],
        holes: VT_HOLES.to_vec(),
    };
    let fx = ue::virtual_texture_with("T_Landscape_VT", &spec, |layer, mip, w, h| {
        let scale = (1u32 << mip) as f32;
        // Block centre in mip-0 texture pixels (the full image starts `border` before the texture).
        let at = |bx: u32, by: u32| {
            (
                ((bx * 4 + 2) as f32 - border as f32) * scale,
                ((by * 4 + 2) as f32 - border as f32) * scale,
            )
        };
        if layer == 0 {
            bc1_flat(w, h, |bx, by| {
                let (x, y) = at(bx, by);
                terrain_colour(x, y)
            })
        } else {
            bc5_flat(w, h, |bx, by| {
                let (x, y) = at(bx, by);
                let d = 2.0;
                let dx = (height(x + d, y) - height(x - d, y)) * 40.0;
                let dy = (height(x, y + d) - height(x, y - d)) * 40.0;
                let n = |v: f32| ((-v).clamp(-1.0, 1.0) * 0.5 + 0.5) * 255.0;
                [n(dx).round() as u8, n(dy).round() as u8]
            })
        }
    });
    package_files("T_Landscape_VT", fx.files)
}

fn package_files(name: &str, p: ue::PackageFiles) -> DemoFiles {
    vec![
        (format!("{name}.uasset"), p.uasset),
        (format!("{name}.uexp"), p.uexp),
        (format!("{name}.ubulk"), p.ubulk),
    ]
}

/// Mortar colour of the brick demo (an exact RGB565 value: 20<<3|20>>2 = 165, 40<<2|40>>4 = 162).
pub const MORTAR: [u8; 3] = [165, 162, 165];

/// Brick colour at mip-0 pixel (x, y): 64x32 bricks in running bond with 4-pixel mortar.
fn brick_colour(x: u32, y: u32) -> [u8; 3] {
    let row = y / 32;
    let xs = x + if row % 2 == 1 { 32 } else { 0 };
    if y % 32 < 4 || xs % 64 < 4 {
        return MORTAR;
    }
    // A per-brick shade from a small integer hash, so neighbouring bricks differ.
    let k = (xs / 64).wrapping_mul(73_856_093) ^ row.wrapping_mul(19_349_663);
    let t = ((k >> 7) % 100) as f32 / 100.0;
    let grain = ((x / 4 + y / 4) % 3) as f32 * 0.02;
    to8(mix([0.55, 0.20, 0.13], [0.72, 0.36, 0.22], t + grain))
}

/// UE classic Texture2D, 512x512 BC1 with a full chain: mips 0-1 streamed from the .ubulk, the
/// rest inline in the .uexp.
fn ue_classic() -> DemoFiles {
    let (files, _) = ue::classic_texture_with(
        "T_Bricks_D",
        PixelFormat::BC1,
        512,
        512,
        10,
        2,
        |mip, w, h| {
            let s = 1u32 << mip;
            bc1_flat(w, h, |bx, by| {
                brick_colour((bx * 4 + 1) * s + s / 2, (by * 4 + 1) * s + s / 2)
            })
        },
    );
    package_files("T_Bricks_D", files)
}

/// Frostbite texture header + its chunk as a CAS block stream, 16 KiB blocks compressed with
/// zlib, LZ4 and ZStd in turn (notes/frostbite.md); RGBA8 so the fixture's pixel rule applies.
fn frostbite() -> Result<DemoFiles> {
    let mut spec = fb::Spec::new("textures/props/crate_d", 0, 18, 128, 128);
    spec.packing = fb::Packing::Cas(&[cas::BLOCK_ZLIB, cas::BLOCK_LZ4, cas::BLOCK_ZSTD]);
    spec.block_size = 0x4000;
    let fx = fb::build(&spec)?;
    Ok(vec![(fx.header_name, fx.header), (fx.chunk_name, fx.chunk)])
}

/// The HDR demo's sun: centre (192, 40), radius 10, radiance exactly representable in half.
pub const SUN: [f32; 3] = [16.0, 14.0, 10.0];

/// Linear radiance of the sky demo at mip-0 pixel (x, y) of 256x128.
fn sky(x: f32, y: f32) -> [f32; 4] {
    let (dx, dy) = (x - 192.0, y - 40.0);
    let r = (dx * dx + dy * dy).sqrt();
    if r <= 10.0 {
        return [SUN[0], SUN[1], SUN[2], 1.0];
    }
    let horizon = 88.0;
    let c = if y < horizon {
        let t = y / horizon;
        let base = mix([0.10, 0.25, 0.80], [0.75, 0.85, 1.10], t * t);
        // The sun's glow adds light above 1.0 around the disc.
        let glow = 3.0 * (-(r - 10.0) / 18.0).exp();
        [base[0] + glow, base[1] + glow * 0.85, base[2] + glow * 0.6]
    } else {
        let t = (y - horizon) / (128.0 - horizon);
        mix([0.30, 0.26, 0.20], [0.06, 0.05, 0.04], t)
    };
    [c[0], c[1], c[2], 1.0]
}

/// A 256x128 RGBA16F .dds sky with values up to 16 (every mip point-sampled from the formula).
fn hdr_sky() -> Result<DemoFiles> {
    let desc = Desc {
        format: PixelFormat::RGBA16F,
        width: 256,
        height: 128,
        depth: 1,
        mips: 9,
        kind: TextureKind::Tex2D,
        slices: 1,
        srgb: false,
        force_dx10: false,
    };
    let bytes = dds::write(&desc, |mip, _| {
        let (w, h, _) = mip_dims(256, 128, 1, mip);
        let s = (1u32 << mip) as f32;
        let mut out = Vec::with_capacity((w * h * 8) as usize);
        for y in 0..h {
            for x in 0..w {
                let v = sky(
                    x as f32 * s + (s - 1.0) / 2.0,
                    y as f32 * s + (s - 1.0) / 2.0,
                );
                for c in v {
                    out.extend(half::f16::from_f32(c).to_le_bytes());
                }
            }
        }
        Ok(out)
    })?;
    Ok(vec![("sky_hdr.dds".to_string(), bytes)])
}

/// Face colours of the cube demo in D3D face order +X, -X, +Y, -Y, +Z, -Z.
pub const FACES: [[u8; 3]; 6] = [
    [220, 60, 60],
    [60, 200, 200],
    [70, 200, 70],
    [200, 70, 200],
    [70, 90, 220],
    [220, 200, 60],
];

/// A 64x64 RGBA8 cube .dds: each face its colour in 8-pixel checks of full and 70% brightness
/// (the check holding (0, 0) and the centre is full), with a full mip chain.
fn cubemap() -> Result<DemoFiles> {
    let desc = Desc {
        format: PixelFormat::RGBA8,
        width: 64,
        height: 64,
        depth: 1,
        mips: 7,
        kind: TextureKind::Cube,
        slices: 6,
        srgb: false,
        force_dx10: false,
    };
    let bytes = dds::write(&desc, |mip, face| {
        let (w, h, _) = mip_dims(64, 64, 1, mip);
        let s = 1u32 << mip;
        let c = FACES[face as usize % 6];
        let mut out = Vec::with_capacity((w * h * 4) as usize);
        for y in 0..h {
            for x in 0..w {
                let dim = ((x * s / 8) + (y * s / 8)) % 2 == 1;
                let v = c.map(|v| if dim { (v as u32 * 7 / 10) as u8 } else { v });
                out.extend_from_slice(&[v[0], v[1], v[2], 255]);
            }
        }
        Ok(out)
    })?;
    Ok(vec![("sky_cube.dds".to_string(), bytes)])
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::io::{BytesSource, SourceRef};
    use crate::{open, DecodeOptions, OpenOptions};
    use std::sync::Arc;

    fn catalog(id: &str) -> crate::Catalog {
        let srcs: Vec<SourceRef> = files(id)
            .unwrap()
            .into_iter()
            .map(|(n, b)| Arc::new(BytesSource::new(n, b)) as SourceRef)
            .collect();
        open(srcs, &OpenOptions::default())
    }

    fn px(cat: &crate::Catalog, mip: usize, slice: u32, x: u32, y: u32) -> Vec<f32> {
        let img = cat.decode(0, mip, slice, DecodeOptions::default()).unwrap();
        let i = ((y * img.width + x) * 4) as usize;
        match &img.pixels {
            crate::Pixels::Rgba8(p) => p[i..i + 4].iter().map(|&v| v as f32).collect(),
            crate::Pixels::Rgba16(p) => p[i..i + 4].iter().map(|&v| v as f32).collect(),
            crate::Pixels::Rgba32F(p) => p[i..i + 4].to_vec(),
        }
    }

    #[test]
    fn every_demo_opens_whole() {
        for id in IDS {
            let cat = catalog(id);
            assert!(cat.problems.is_empty(), "{id}: {:?}", cat.problems);
            assert_eq!(cat.textures.len(), 1, "{id}");
            let t = &cat.textures[0];
            assert!(t.error.is_none(), "{id}: {:?}", t.error);
            for s in 0..t.slices {
                cat.decode(0, 0, s, DecodeOptions::default()).unwrap();
            }
        }
    }

    #[test]
    fn demo_pixels_are_the_drawn_ones() {
        // VT: a hole tile shows the layer's fallback as given (255 * VT_FALLBACK; 0.5 rounds to
        // 128, and the fill keeps the fallback's blue even on the BC5 layer);
        // tile (1, 2) of mip 0 covers pixels 64..128 x 128..192.
        let vt = catalog("ue5-vt");
        assert_eq!(vt.textures[0].slices, 2);
        assert_eq!(px(&vt, 0, 0, 100, 150), vec![255.0, 0.0, 255.0, 255.0]);
        assert_eq!(px(&vt, 0, 1, 100, 150), vec![128.0, 128.0, 255.0, 255.0]);
        // Bricks: (0, 0) is mortar in every mip, decoded as the exact 565 expansion.
        let ue = catalog("ue-classic");
        assert_eq!(ue.textures[0].mips.len(), 10);
        assert_eq!(px(&ue, 0, 0, 1, 1), vec![165.0, 162.0, 165.0, 255.0]);
        // Frostbite RGBA8: the fixture's rule (x*37, y*59, x^y, 255) at mip 0, slice 0.
        let fb = catalog("frostbite-cas");
        assert_eq!(
            px(&fb, 0, 0, 5, 3),
            vec![(5 * 37) as f32, (3 * 59) as f32, (5 ^ 3) as f32, 255.0]
        );
        // HDR: the sun's centre is exactly SUN (all representable in half precision).
        let hdr = catalog("hdr");
        assert_eq!(px(&hdr, 0, 0, 192, 40), vec![16.0, 14.0, 10.0, 1.0]);
        // Cube: each face's centre is its full colour.
        let cube = catalog("cubemap");
        assert_eq!(cube.textures[0].slices, 6);
        for (f, c) in FACES.iter().enumerate() {
            let want: Vec<f32> = c.iter().map(|&v| v as f32).chain([255.0]).collect();
            assert_eq!(px(&cube, 0, f as u32, 32, 32), want, "face {f}");
        }
    }
}
