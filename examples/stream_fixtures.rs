//! Writes the Unreal packages the streaming browser tests open (issue 8):
//! `cargo run --example stream_fixtures -- DIR` makes in DIR
//! - `T_Big16k`: a UE5 virtual texture of 16384 x 16384 (BC1, 128 x 128 tiles of 128 px, border 4,
//!   8 mips, every tile present but one at mip 4), about 190 MiB of .ubulk;
//! - `T_Small2k`: the same picture at 2048 x 2048 (16 x 16 tiles, 5 mips, no hole);
//! - `T_Dxt1`: a classic 2048 x 2048 DXT1 texture with its full chain (mips 0-1 in the .ubulk).
//!
//! Each is `.uasset` + `.uexp` + `.ubulk`, built by `texscope::fixtures::unreal` (the UE layout of
//! shared notes unreal-layout.md). The VT pictures are flat BC1 blocks (equal endpoints, index 0
//! decode to the endpoint's RGB565 expansion, BC1 specification), so a test knows the colour of
//! any texel of any mip from [`colour`] without a decoder; tests/browser/stream.test.mjs repeats
//! that formula.

use std::path::Path;

use texscope::fixtures::demo::bc1_flat;
use texscope::fixtures::unreal::{self as ue, PackageFiles, Rng, VtSpec};
use texscope::model::mip_dims;
use texscope::PixelFormat;

const TILE: u32 = 128;
const BORDER: u32 = 4;

/// The colour at mip-0 pixel (x, y) of mip `mip` of a `side` x `side` picture: red and green
/// ramps over the picture, blue a 16 x 16 checker (64) plus 24 per mip, so the mip shown can be
/// told from the colour.
fn colour(x: f32, y: f32, side: f32, mip: u32) -> [u8; 3] {
    let u = (x / side).clamp(0.0, 1.0);
    let v = (y / side).clamp(0.0, 1.0);
    let cell = side / 16.0;
    let checker = ((x / cell).floor() as i64 + (y / cell).floor() as i64).rem_euclid(2) as u32;
    [
        (u * 255.0).round() as u8,
        (v * 255.0).round() as u8,
        (checker * 64 + mip * 24) as u8,
    ]
}

fn vt(name: &str, tiles: u32, mips: u32, holes: Vec<(u32, u32, u32)>) -> PackageFiles {
    let side = (tiles * TILE) as f32;
    let spec = VtSpec {
        layers: vec![PixelFormat::BC1],
        fallback: vec![[1.0, 0.0, 1.0, 1.0]],
        tile_size: TILE,
        border: BORDER,
        width_tiles: tiles,
        height_tiles: tiles,
        mips,
        chunk_of_mip: vec![0; mips as usize],
        holes,
    };
    let fx = ue::virtual_texture_with(name, &spec, |_, mip, w, h| {
        let scale = (1u32 << mip) as f32;
        bc1_flat(w, h, |bx, by| {
            // Block centre in mip-0 pixels (the full image starts BORDER pixels before the mip).
            let x = ((bx * 4 + 2) as f32 - BORDER as f32) * scale;
            let y = ((by * 4 + 2) as f32 - BORDER as f32) * scale;
            colour(x, y, side, mip)
        })
    });
    fx.files
}

fn write(dir: &Path, name: &str, f: &PackageFiles) -> std::io::Result<()> {
    std::fs::write(dir.join(format!("{name}.uasset")), &f.uasset)?;
    std::fs::write(dir.join(format!("{name}.uexp")), &f.uexp)?;
    std::fs::write(dir.join(format!("{name}.ubulk")), &f.ubulk)
}

fn main() -> std::io::Result<()> {
    let dir = std::env::args().nth(1).expect("usage: stream_fixtures DIR");
    let dir = Path::new(&dir);
    std::fs::create_dir_all(dir)?;
    write(dir, "T_Big16k", &vt("T_Big16k", 128, 8, vec![(4, 3, 3)]))?;
    write(dir, "T_Small2k", &vt("T_Small2k", 16, 5, Vec::new()))?;
    let (w, h) = (2048, 2048);
    let mips = 12;
    let mut rng = Rng(0x005e_edd1);
    let (files, _) = ue::classic_texture("T_Dxt1", PixelFormat::BC1, w, h, mips, 2, &mut rng);
    debug_assert_eq!(mip_dims(w, h, 1, mips - 1), (1, 1, 1));
    write(dir, "T_Dxt1", &files)?;
    Ok(())
}
