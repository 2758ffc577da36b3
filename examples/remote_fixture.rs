//! Writes a sparse IoStore container for the remote-file tests and benchmark (share links read
//! `?src=` files by HTTP range): `cargo run --example remote_fixture -- DIR LEN`.
//!
//! `DIR/Remote.utoc` + `DIR/Remote.ucas` (zlib, 64 KiB blocks, the project's fixture writers in
//! src/fixtures/containers.rs): 200 small packages of another class and a small texture
//! `T_First` at the start, then, after a hole, the texture `T_Far` (B8G8R8A8 512x512, 10 mips,
//! mip 0 in its .ubulk) placed so that the .ucas is LEN bytes long (a sparse file: the hole takes
//! no disk). `DIR/T_Far.mip0` holds T_Far's mip 0 as stored (B, G, R, A per texel, rows top
//! first): the expected pixels, from the writer's own input rather than from a decoder. Also
//! `A.pak` (T_PakA, 64x64, `T_PakA.mip0` as for T_Far) and `B.pak` (T_PakB), zlib: a Paks folder
//! given as several URLs. `Vt.pak`: T_VtPak, a 2048 x 2048 virtual texture whose tiles stream.
//! `DIR/Spread.utoc` + `DIR/Spread.ucas` (LEN bytes, sparse) hold the same
//! names, but the 200 other packages are 128x128 textures (87 KiB each, random texels) spread
//! through the file with holes between them, as a game's packages lie among their bulk data:
//! an open that looks at every package reads each one's first block (`header_blocks`, the sum
//! the writer stored); `DIR/Spread_T_Far.mip0` holds that container's T_Far mip 0.
//! Prints one JSON line: {"utoc_len", "ucas_len", "far_at", "side", "mip_bytes",
//! "header_blocks", "spread_far_at", "spread_header_blocks"}.

use texscope::fixtures::containers as cx;
use texscope::fixtures::unreal::{self as ue, Rng};
use texscope::PixelFormat;

const SIDE: u32 = cx::FAR_SIDE;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (Some(dir), Some(len)) = (
        args.first(),
        args.get(1).and_then(|v| v.parse::<u64>().ok()),
    ) else {
        eprintln!("usage: remote_fixture DIR LEN");
        std::process::exit(2);
    };
    if let Err(e) = write(std::path::Path::new(dir), len) {
        eprintln!("remote_fixture: {dir}: {e}");
        std::process::exit(1);
    }
}

fn write(dir: &std::path::Path, len: u64) -> std::io::Result<()> {
    std::fs::create_dir_all(dir)?;
    let mut rng = Rng(0x5EC);
    // The far files' blocks (a few MiB) end well before LEN; the hole is placed so they do.
    let far_at = len.saturating_sub(16 << 20);
    let remote = cx::far_container(far_at, &cx::Props::PACKED, &mut rng);
    write_toc(dir, "Remote", &remote.toc, len)?;
    std::fs::write(dir.join("T_Far.mip0"), &remote.far_mips[0])?;

    // Two .pak files, as a game's Paks folder given as several URLs: `A.pak` holds T_PakA
    // (B8G8R8A8 64x64, mip 0 in its .ubulk; `T_PakA.mip0` its mip 0 as stored), `B.pak` T_PakB.
    let (a, a_mips) = ue::classic_texture("T_PakA", PixelFormat::BGRA8, 64, 64, 7, 1, &mut rng);
    let (b, _) = ue::classic_texture("T_PakB", PixelFormat::BGRA8, 32, 32, 6, 0, &mut rng);
    let legacy = |dir: &str, name: &str, p: &ue::PackageFiles| {
        [
            (".uasset", &p.uasset),
            (".uexp", &p.uexp),
            (".ubulk", &p.ubulk),
        ]
        .into_iter()
        .filter(|(_, bytes)| !bytes.is_empty())
        .map(|(ext, bytes)| (format!("{dir}/{name}{ext}"), bytes.clone()))
        .collect::<Vec<_>>()
    };
    let zlib = cx::PakOptions {
        zlib: true,
        ..Default::default()
    };
    std::fs::write(
        dir.join("A.pak"),
        cx::pak(&legacy("A", "T_PakA", &a), &zlib),
    )?;
    std::fs::write(
        dir.join("B.pak"),
        cx::pak(&legacy("B", "T_PakB", &b), &zlib),
    )?;
    std::fs::write(dir.join("T_PakA.mip0"), &a_mips[0])?;

    // `Vt.pak`: T_VtPak, a UE5 virtual texture of 2048 x 2048 (BC1, 16 x 16 tiles of 128 px, 5
    // mips), large enough that the page streams its tiles through the decode pool, whose workers
    // open the .pak too. Stored (not zlib) so that its index lies past the page's first 64 KiB.
    let vt = ue::virtual_texture(
        "T_VtPak",
        &ue::VtSpec {
            layers: vec![PixelFormat::BC1],
            fallback: vec![[1.0, 0.0, 1.0, 1.0]],
            tile_size: 128,
            border: 4,
            width_tiles: 16,
            height_tiles: 16,
            mips: 5,
            chunk_of_mip: vec![0; 5],
            holes: Vec::new(),
        },
        &mut rng,
    );
    std::fs::write(
        dir.join("Vt.pak"),
        cx::pak(&legacy("V", "T_VtPak", &vt.files), &Default::default()),
    )?;

    // Spread: the other packages are 128x128 textures (8 mips inline, 87 KiB of random texels),
    // one every (LEN - 48 MiB) / 220 bytes, as a game's packages lie among their bulk data, so
    // looking at each one's header costs a read of its own first block.
    let spread = cx::Props {
        format: PixelFormat::BGRA8,
        side: 128,
        mips: 8,
        spread: len.saturating_sub(48 << 20) / 220,
    };
    let far = cx::far_container(0, &spread, &mut Rng(0x5EC2));
    write_toc(dir, "Spread", &far.toc, len)?;
    std::fs::write(dir.join("Spread_T_Far.mip0"), &far.far_mips[0])?;
    println!(
        "{{\"utoc_len\": {}, \"ucas_len\": {len}, \"far_at\": {far_at}, \"side\": {SIDE}, \"mip_bytes\": {}, \"header_blocks\": {}, \"spread_far_at\": {}, \"spread_header_blocks\": {}}}",
        remote.toc.utoc.len(),
        remote.far_mips[0].len(),
        remote.header_blocks,
        far.far_at,
        far.header_blocks,
    );
    Ok(())
}

/// `DIR/STEM.utoc` and a sparse `DIR/STEM.ucas` of `len` bytes.
fn write_toc(
    dir: &std::path::Path,
    stem: &str,
    toc: &cx::TocFiles,
    len: u64,
) -> std::io::Result<()> {
    use std::io::{Seek, SeekFrom, Write};
    std::fs::write(dir.join(format!("{stem}.utoc")), &toc.utoc)?;
    let mut f = std::fs::File::create(dir.join(format!("{stem}.ucas")))?;
    let mut end = 0;
    for (part, at, bytes) in &toc.pieces {
        assert_eq!(*part, 0, "one partition");
        f.seek(SeekFrom::Start(*at))?;
        f.write_all(bytes)?;
        end = end.max(at + bytes.len() as u64);
    }
    assert!(
        end <= len,
        "the container's blocks end at {end}, past {len}"
    );
    f.set_len(len)
}
