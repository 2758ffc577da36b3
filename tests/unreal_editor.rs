//! Real Unreal editor (uncooked) packages, UE 4.0 beta to 5.7 (shared/samples/unreal-editor,
//! MANIFEST.md and MANIFEST.tsv there), against independent expectations: the manifest's class,
//! source format and storage (measured on the files by whoever built the set), and the original
//! images the projects committed beside their packages, decoded by independent decoders (the
//! `png` crate, `jpeg-decoder`).

use std::path::Path;
use std::sync::Arc;
use texscope::io::FileSource;
use texscope::{Catalog, Layout, Limits, Pixels};

mod common;
#[path = "../src/unreal/editor_manifest.rs"]
mod editor_manifest;
use editor_manifest::{root, rows};

fn open(p: &Path) -> Catalog {
    texscope::open(
        vec![Arc::new(FileSource::open(p).unwrap())],
        &Default::default(),
    )
}

fn meta<'a>(t: &'a texscope::Texture, key: &str) -> Option<&'a str> {
    t.metadata
        .iter()
        .find(|(k, _)| k == key)
        .map(|(_, v)| v.as_str())
}

/// Every package of the set opens alone (no .uexp asked for) and lists one texture of the
/// manifest's class and source format, said to be an editor package with the engine that saved
/// it; render targets say they have no source.
#[test]
fn every_editor_package_opens_as_the_manifest_says() {
    let rows = rows();
    assert_eq!(rows.len(), 65, "MANIFEST.tsv lists 65 packages");
    let mut failures = Vec::new();
    for r in &rows {
        let cat = open(&r.file);
        let name = r.file.display();
        if !cat.problems.is_empty() {
            failures.push(format!("{name}: problems {:?}", cat.problems));
            continue;
        }
        if cat.textures.len() != 1 {
            failures.push(format!("{name}: {} textures", cat.textures.len()));
            continue;
        }
        let t = &cat.textures[0];
        if t.class != r.class {
            failures.push(format!("{name}: class {} (manifest {})", t.class, r.class));
        }
        assert_eq!(
            meta(t, "Package"),
            Some("editor package (uncooked .uasset; export data inline)"),
            "{name}"
        );
        assert!(meta(t, "Engine (stated)").is_some(), "{name}");
        if r.class.starts_with("TextureRenderTarget") {
            let e = t.error.as_deref().unwrap_or("");
            assert!(
                e.contains("render target") && e.contains("no source"),
                "{name}: {e}"
            );
            continue;
        }
        match &t.native_format {
            texscope::model::NativeFormat::Name(f) if *f == r.source_format => {}
            f => failures.push(format!(
                "{name}: format {f:?} (manifest {})",
                r.source_format
            )),
        }
        if let Some(e) = &t.error {
            failures.push(format!("{name}: {e}"));
            continue;
        }
        let source = meta(t, "Source").unwrap_or("");
        if r.compression != "-" {
            assert!(source.contains(&r.compression), "{name}: {source}");
        }
        assert!(matches!(t.layout, Layout::Source(_)), "{name}");
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Sample i of a decoded image as 8-bit RGBA.
fn rgba8(img: &texscope::Image) -> Vec<u8> {
    match &img.pixels {
        Pixels::Rgba8(v) => v.clone(),
        Pixels::Rgba16(v) => v.iter().map(|&x| (x >> 8) as u8).collect(),
        Pixels::Rgba32F(v) => v
            .iter()
            .map(|&x| (x.clamp(0.0, 1.0) * 255.0).round() as u8)
            .collect(),
    }
}

/// The original image as RGBA8, by the `png` crate or `jpeg-decoder`.
fn original_rgba8(p: &Path) -> (u32, u32, Vec<u8>) {
    if p.extension().is_some_and(|e| e == "png") {
        common::read_png_rgba8(p)
    } else {
        let bytes = std::fs::read(p).unwrap();
        let mut d = jpeg_decoder::Decoder::new(std::io::Cursor::new(bytes));
        let px = d.decode().unwrap();
        let info = d.info().unwrap();
        let px = match info.pixel_format {
            jpeg_decoder::PixelFormat::L8 => px.iter().flat_map(|&g| [g, g, g, 255]).collect(),
            jpeg_decoder::PixelFormat::RGB24 => px
                .chunks_exact(3)
                .flat_map(|c| [c[0], c[1], c[2], 255])
                .collect(),
            f => panic!("{f:?}"),
        };
        (info.width as u32, info.height as u32, px)
    }
}

/// Per texel: the largest channel difference, counting colour only where alpha is not 0 (the
/// importer may refill colour under fully transparent texels, MANIFEST.md); and the largest
/// difference of BT.601 luma (0.299 R + 0.587 G + 0.114 B), rounded.
fn compare(a: &[u8], b: &[u8]) -> (u8, usize, u8) {
    let mut max = 0;
    let mut differing = 0;
    let mut luma = 0u8;
    let y = |p: &[u8]| 0.299 * p[0] as f32 + 0.587 * p[1] as f32 + 0.114 * p[2] as f32;
    for (x, z) in a.chunks_exact(4).zip(b.chunks_exact(4)) {
        let channels = if x[3] == 0 && z[3] == 0 { 3..4 } else { 0..4 };
        let d = channels.map(|k| x[k].abs_diff(z[k])).max().unwrap_or(0);
        max = max.max(d);
        differing += (d > 0) as usize;
        if x[3] != 0 || z[3] != 0 {
            luma = luma.max((y(x) - y(z)).abs().round() as u8);
        }
    }
    (max, differing, luma)
}

/// Where a project committed the original image, the decoded source equals it pixel for pixel
/// (colour compared where alpha is not 0). UE4 PNG-stored sources are decoded by Texscope's PNG
/// path; the originals by the `png` crate or `jpeg-decoder`.
///
/// A .jpg original imported by UE4 is held to what a JPEG decoder can promise: the editor
/// decoded it with its own decoder and stored the result, and decoders differ in IDCT rounding
/// and chroma upsampling. Measured: sofa_tex and sofa_tex2 (4:4:4) within 3 levels per channel;
/// House/grass.jpg (4:2:0) within 6 levels of luma, its colour up to 46 apart where chroma is
/// upsampled (PIL's libjpeg-turbo differs from the stored source by the same 46). UE5 stores a
/// JPEG source as the file itself: its payload must equal the .jpg byte for byte, and its pixels
/// (Texscope's zune-jpeg) come within 4 levels of `jpeg-decoder`'s (measured: 4, luma 2).
#[test]
fn decoded_sources_equal_the_committed_originals() {
    let mut report = Vec::new();
    let mut failures = Vec::new();
    for r in rows().iter().filter(|r| r.original.is_some()) {
        let orig = r.original.as_ref().unwrap();
        let cat = open(&r.file);
        let img = match cat.decode(0, 0, 0, Default::default()) {
            Ok(i) => i,
            Err(e) => {
                report.push(format!("{}: not decoded: {e}", r.file.display()));
                if !(r.engine.starts_with('5') && e.kind == texscope::ErrorKind::NotInBuild) {
                    failures.push(format!("{}: {e}", r.file.display()));
                }
                continue;
            }
        };
        let (w, h, want) = original_rgba8(orig);
        assert_eq!((img.width, img.height), (w, h), "{}", r.file.display());
        let got = rgba8(&img);
        let (max, n, luma) = compare(&got, &want);
        report.push(format!(
            "{} ({}): max difference {max} (luma {luma}), {n} texels differ",
            r.file.display(),
            r.storage
        ));
        let jpeg = orig.extension().is_some_and(|e| e == "jpg");
        if jpeg && r.engine.starts_with('5') {
            // UE5 keeps the imported file itself: the payload equals the .jpg byte for byte.
            let Layout::Source(s) = &cat.textures[0].layout else {
                panic!("{}: not a source layout", r.file.display())
            };
            let texscope::Storage::Range {
                source,
                offset,
                length,
            } = s.data
            else {
                panic!("{}: no stored range", r.file.display())
            };
            let src = cat.source(source).unwrap();
            let stored =
                texscope::unreal::cbuf::decode(src.as_ref(), offset, length, cat.limits()).unwrap();
            assert!(
                stored == std::fs::read(orig).unwrap(),
                "{}: the stored JPEG is not the original file",
                r.file.display()
            );
        }
        let ok = if jpeg {
            max <= 4 || luma <= 6
        } else {
            max == 0
        };
        if !ok {
            failures.push(format!(
                "{}: max difference {max} (luma {luma}) in {n} texels",
                r.file.display()
            ));
        }
    }
    eprintln!("{}", report.join("\n"));
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Every package carries one thumbnail (MANIFEST.md), of the kind and size the manifest gives;
/// the PNG ones decode to that size (JPEG ones wait for the shared image-file decoder).
#[test]
fn every_package_lists_its_thumbnail() {
    let mut failures = Vec::new();
    for r in rows() {
        let cat = open(&r.file);
        let name = r.file.display();
        let [th] = cat.thumbnails.as_slice() else {
            failures.push(format!("{name}: {} thumbnails", cat.thumbnails.len()));
            continue;
        };
        let kind = if th.jpeg { "jpeg" } else { "png" };
        if (kind, th.width, th.height) != (r.thumbnail.0.as_str(), r.thumbnail.1, r.thumbnail.2) {
            failures.push(format!(
                "{name}: {kind} {}x{} (manifest {:?})",
                th.width, th.height, r.thumbnail
            ));
        }
        assert_eq!(th.class, r.class, "{name}");
        match cat.decode_thumbnail(0) {
            Ok(img) => assert_eq!((img.width, img.height), (th.width, th.height), "{name}"),
            Err(e) if th.jpeg && e.kind == texscope::ErrorKind::NotInBuild => {}
            Err(e) => failures.push(format!("{name}: thumbnail: {e}")),
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

fn open_bytes(name: &str, bytes: Vec<u8>) -> Catalog {
    texscope::open(
        vec![Arc::new(texscope::io::BytesSource::new(name, bytes))],
        &Default::default(),
    )
}

/// Every message a catalog gives for a package: its problems, its textures' errors and the
/// error of decoding mip 0.
fn messages(cat: &Catalog) -> Vec<String> {
    let mut out: Vec<String> = cat.problems.iter().map(|p| p.error.clone()).collect();
    for (i, t) in cat.textures.iter().enumerate() {
        out.extend(t.error.clone());
        if let Err(e) = cat.decode(i, 0, 0, Default::default()) {
            out.push(e.to_string());
        }
    }
    out
}

/// Bad input: a package cut short anywhere, or a bulk-data offset past the end, gives errors that
/// name the file and the engine field, never a panic. The cut points are spread over the file
/// (summary, names, exports, properties, the payload at the end); the offset patched is sofa_tex's
/// FUntypedBulkData offset, found by hand (its Texture2D export's tags end with "None" at 73559:
/// then the i32 GUID flag, the 2 strip-flag bytes, u32 flags, i32 count, i32 size and the i64
/// offset at 73585).
#[test]
fn truncated_and_hostile_packages_name_file_and_field() {
    let dir = root();
    for rel in [
        "Mukudori+RoboWorld_UE4.22/Content/MyAssets/House/sofa_tex.uasset",
        "M1H1+MandM-4.11/Content/Effects/BasicHDR/HDR_SpotHighlightFinal_Color_Output0001.uasset",
        "M1H1+MandM-4.11/Content/Character/CAR/Textures/CAR_Helmet_Emissive.uasset",
    ] {
        let bytes = std::fs::read(dir.join(rel)).unwrap();
        let len = bytes.len();
        for cut in [8, 40, 100, 300, 700, len / 2, len - 100, len - 5] {
            let name = "cut.uasset";
            let cat = open_bytes(name, bytes[..cut].to_vec());
            let msgs = messages(&cat);
            assert!(!msgs.is_empty(), "{rel} cut at {cut}: no error");
            for m in &msgs {
                assert!(m.contains(name), "{rel} cut at {cut}: {m}");
                assert!(
                    m.contains("unreal/") || m.contains("Unreal") || m.contains("legacy"),
                    "{rel} cut at {cut}: no field in {m}"
                );
            }
        }
    }
    let mut sofa =
        std::fs::read(dir.join("Mukudori+RoboWorld_UE4.22/Content/MyAssets/House/sofa_tex.uasset"))
            .unwrap();
    assert_eq!(
        &sofa[73585..73593],
        &[0u8; 8],
        "the hand-found offset field (0: at BulkDataStart)"
    );
    sofa[73585..73593].copy_from_slice(&(1i64 << 40).to_le_bytes());
    let cat = open_bytes("far.uasset", sofa);
    let e = cat.textures[0].error.clone().unwrap();
    assert!(
        e.contains("far.uasset") && e.contains("BulkDataOffsetInFile"),
        "{e}"
    );
}

/// Every mip and slice of every source in the set decodes (render targets excepted), to the
/// source's size.
#[test]
fn every_source_decodes_every_mip_and_slice() {
    let mut failures = Vec::new();
    let mut images = 0;
    for r in rows()
        .iter()
        .filter(|r| !r.class.starts_with("TextureRenderTarget"))
    {
        let cat = open(&r.file);
        let t = &cat.textures[0];
        for mip in 0..t.mips.len() {
            for slice in 0..t.surface_count(mip) {
                match cat.decode(0, mip, slice, Default::default()) {
                    Ok(img) => {
                        images += 1;
                        let m = &t.mips[mip];
                        assert_eq!((img.width, img.height), (m.width, m.height));
                    }
                    Err(e) => {
                        failures.push(format!("{} mip {mip} slice {slice}: {e}", r.file.display()))
                    }
                }
            }
        }
    }
    eprintln!("{images} images decoded");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// The same template asset saved by different engines holds the same source art: the UE 5.1
/// LevelPrototyping T_GridChecker_A (PNG in an FCompressedBuffer) against the UE 5.6 one
/// (UEDELTA over raw BGRA8, whose channel order is the format's), and StarterContent's T_Burst_M
/// saved by UE 4.5 (zlib PNG) and UE 5.1 (PNG), the templates' UE4_LOGO_CARD saved by UE 4.9
/// (zlib PNG) and 5.6 (UEDELTA) and by 4.11 and 4.13, FirstPersonCrosshair by 4.11 and 4.13.
/// Independent of any decoder's channel convention:
/// each pair's files were written by different engine versions in different ways.
#[test]
fn one_asset_saved_by_two_engines_decodes_the_same() {
    let dir = root();
    for (a, b) in [
        (
            "7BrendanJackson+JTTTW/Content/LevelPrototyping/Textures/T_GridChecker_A.uasset",
            "lukesorvik+BlasterGameUE5.6/Content/Assets/LevelPrototyping/Textures/T_GridChecker_A.uasset",
        ),
        (
            "Andrew199617+TheDemented/Content/StarterContent/Textures/T_Burst_M.uasset",
            "7BrendanJackson+JTTTW/Content/StarterContent/Textures/T_Burst_M.uasset",
        ),
        (
            "Andrew199617+TheDemented/Content/Mannequin/Character/Textures/UE4_LOGO_CARD.uasset",
            "lukesorvik+BlasterGameUE5.6/Content/Assets/AnimStarterPack/UE4_Mannequin/Textures/UE4_LOGO_CARD.uasset",
        ),
        (
            "M1H1+MandM-4.11/Content/Ai/BasicAiEnemy/UE4_Mannequin/Textures/UE4_LOGO_CARD.uasset",
            "Andrew199617+TheDemented/Content/FirstPersonCPP/FirstPerson/Character/Textures/UE4_LOGO_CARD.uasset",
        ),
        (
            "M1H1+MandM-4.11/Content/Textures/FirstPersonCrosshair.uasset",
            "Andrew199617+TheDemented/Content/FirstPerson/Textures/FirstPersonCrosshair.uasset",
        ),
    ] {
        let x = open(&dir.join(a)).decode(0, 0, 0, Default::default()).unwrap();
        let y = open(&dir.join(b)).decode(0, 0, 0, Default::default()).unwrap();
        assert_eq!((x.width, x.height), (y.width, y.height), "{a}");
        let (max, n, _) = compare(&rgba8(&x), &rgba8(&y));
        eprintln!("{a} vs {b}: max difference {max}, {n} texels differ");
        assert_eq!(max, 0, "{a} vs {b}: {n} texels differ");
    }
}

/// The editor's thumbnail of a texture is that texture drawn small, so its colours must be the
/// source's: each thumbnail texel is compared with the source texel at the same relative place
/// (nearest), as decoded and with red and blue swapped; the decoded order must be the far closer
/// one (by half again at least: a photo's channels differ less than a colour chart's). Expected values: the sources themselves (held to committed originals above), not our
/// thumbnail decode. The packages are the set's colourful ones: a UE 4.9 PNG thumbnail (LD33)
/// and UE 5.1 / 5.7 JPEG thumbnails (the colour chart T_ColorGrid, ca2c1515, RegionTexture).
#[test]
fn thumbnails_have_their_sources_colours() {
    let picks = [
        "Quadtree+LD33/Content/Textures/abl_meteor.uasset",
        "AnimaStudios+TestBuild0.9.8/Content/_CORE/Assets/CompletedTestAssets/Materials/ColorCalibrator/T_ColorGrid.uasset",
        "AnimaStudios+TestBuild0.9.8/Content/_CORE/TempTextures/ca2c1515130ccc512a24f94aaff0876a.uasset",
        "ChiWon2+Muksi_UE5.7.4/Content/Assets/SharedAssets/Region/RegionTexture.uasset",
    ];
    for rel in picks {
        let cat = open(&root().join(rel));
        let th = cat
            .decode_thumbnail(0)
            .unwrap_or_else(|e| panic!("{rel}: {e}"));
        let src = cat
            .decode(0, 0, 0, Default::default())
            .unwrap_or_else(|e| panic!("{rel}: {e}"));
        let (t, s) = (rgba8(&th), rgba8(&src));
        let (mut same, mut swapped, mut n) = (0u64, 0u64, 0u64);
        for y in 0..th.height {
            for x in 0..th.width {
                let i = ((y * th.width + x) * 4) as usize;
                let sx = (x as u64 * src.width as u64 / th.width as u64) as u32;
                let sy = (y as u64 * src.height as u64 / th.height as u64) as u32;
                let j = ((sy * src.width + sx) * 4) as usize;
                // Fully transparent texels carry no colour worth comparing.
                if t[i + 3] == 0 || s[j + 3] == 0 {
                    continue;
                }
                let d = |a: u8, b: u8| (a as i32 - b as i32).unsigned_abs() as u64;
                same += d(t[i], s[j]) + d(t[i + 2], s[j + 2]);
                swapped += d(t[i], s[j + 2]) + d(t[i + 2], s[j]);
                n += 1;
            }
        }
        assert!(n > 0, "{rel}: no opaque texels");
        let (same, swapped) = (same as f64 / n as f64, swapped as f64 / n as f64);
        assert!(
            same * 1.5 < swapped,
            "{rel}: red/blue differ from the source by {same:.1} as decoded, {swapped:.1} swapped"
        );
    }
}

// Multi-block (UDIM) and multi-layer sources. The shared set has none, so these build editor
// packages with `fixture::editor_texture`. The payload is laid out as UE's
// FTextureSource::CalcMipOffset reads it (UE4 and UE5 Texture.cpp: block after block, each block
// all its layers, each layer all its mips, each mip all its slices; docs/unreal.md), and every
// expected texel comes from `texel` below: a pattern that differs per block, layer, mip, slice
// and position, so a block or layer read from the wrong place cannot match.

use texscope::fixtures::unreal::{self as fixture, EditorBlock, EditorSource};

fn block(x: i32, y: i32, size: (u32, u32), mips: u32) -> EditorBlock {
    EditorBlock {
        x,
        y,
        size_x: size.0,
        size_y: size.1,
        slices: 1,
        mips,
    }
}

/// Texel (x, y) of mip `m` of the block and layer tagged `tag`, in `format`'s bytes (TSF_BGRA8:
/// B, G, R, A; TSF_G8: one byte).
fn texel(format: &str, tag: u8, m: u32, x: u32, y: u32) -> Vec<u8> {
    match format {
        "TSF_G8" => vec![tag.wrapping_add((x + 3 * y + 7 * m) as u8)],
        _ => vec![tag, (16 * m) as u8, x as u8, y as u8 ^ 0x80],
    }
}

/// One mip of a block and layer, row after row.
fn image(format: &str, tag: u8, b: &EditorBlock, m: u32) -> Vec<u8> {
    let (w, h) = ((b.size_x >> m).max(1), (b.size_y >> m).max(1));
    (0..h)
        .flat_map(|y| (0..w).flat_map(move |x| texel(format, tag, m, x, y)))
        .collect()
}

/// The tag of block `b`, layer `l`.
fn tag(b: usize, l: usize) -> u8 {
    0x40 * b as u8 + 0x11 * (l as u8 + 1)
}

/// Every image of `src`, in CalcMipOffset's order; `delta` applies UEDELTA's forward transform
/// to each (uedelta::delta_plane, whose inverse is checked against the 5.6 screenshot sample).
fn payload(src: &EditorSource, delta: bool) -> Vec<u8> {
    let mut out = Vec::new();
    for (bi, b) in src.blocks.iter().enumerate() {
        for (li, f) in src.layer_formats.iter().enumerate() {
            for m in 0..b.mips {
                let mut img = image(f, tag(bi, li), b, m);
                if delta {
                    let (w, h) = ((b.size_x >> m).max(1), (b.size_y >> m).max(1));
                    let plane = texscope::unreal::uedelta::Plane::for_format(f, w, h, 1).unwrap();
                    texscope::unreal::uedelta::delta_plane(&mut img, &plane).unwrap();
                }
                out.extend(img);
            }
        }
    }
    out
}

/// Opens `src` as package `name`.uasset.
fn open_source(name: &str, src: &EditorSource) -> Catalog {
    open_bytes(
        &format!("{name}.uasset"),
        fixture::editor_texture(name, src),
    )
}

/// Every entry of `cat` is named as `names` says and decodes, every mip, to its block and
/// layer's pattern; returns the export bases (texscope::export::texture_target) of the entries.
fn check_entries(cat: &Catalog, src: &EditorSource, names: &[(&str, usize, usize)]) -> Vec<String> {
    assert!(cat.problems.is_empty(), "{:?}", cat.problems);
    let got: Vec<&str> = cat.textures.iter().map(|t| t.name.as_str()).collect();
    let want: Vec<&str> = names.iter().map(|n| n.0).collect();
    assert_eq!(got, want);
    for (i, &(name, bi, li)) in names.iter().enumerate() {
        let t = &cat.textures[i];
        let b = &src.blocks[bi];
        let f = &src.layer_formats[li];
        assert_eq!(t.error, None, "{name}");
        assert!(t.notes.is_empty(), "{name}: {:?}", t.notes);
        assert_eq!(
            (t.width, t.height, t.mips.len() as u32),
            (b.size_x, b.size_y, b.mips),
            "{name}"
        );
        assert_eq!(
            t.format,
            if f == "TSF_G8" {
                texscope::PixelFormat::L8
            } else {
                texscope::PixelFormat::BGRA8
            },
            "{name}"
        );
        for m in 0..b.mips {
            let (bytes, ..) = cat.read_surface(i, m as usize, 0).unwrap();
            assert!(bytes == image(f, tag(bi, li), b, m), "{name} mip {m}");
        }
        assert_eq!(t.census()["name"], name);
    }
    let counts = texscope::export::per_file(&cat.textures);
    let bases: Vec<String> = cat
        .textures
        .iter()
        .map(|t| {
            let file = texscope::base_name(&t.file).to_string();
            texscope::export::texture_target(t, &[file], &counts).base
        })
        .collect();
    bases
}

/// Two UDIM blocks of different sizes and mip counts (block 1 at grid (1, 0): UV tile 1002 by
/// 1001 + x + 10 y), raw: two textures, each its own block's pixels, exported as T_Udim and
/// T_Udim.1002.
#[test]
fn every_udim_block_is_a_texture() {
    let mut src = EditorSource {
        blocks: vec![block(0, 0, (8, 4), 2), block(1, 0, (4, 4), 3)],
        layer_formats: vec!["TSF_BGRA8".into()],
        compression: None,
        payload: Vec::new(),
    };
    src.payload = payload(&src, false);
    // 8x4 + 4x2 texels of block 0, 4x4 + 2x2 + 1x1 of block 1, 4 bytes each.
    assert_eq!(src.payload.len(), (32 + 8 + 16 + 4 + 1) * 4);
    let cat = open_source("T_Udim", &src);
    let bases = check_entries(
        &cat,
        &src,
        &[("T_Udim", 0, 0), ("T_Udim [UDIM 1002]", 1, 0)],
    );
    assert_eq!(bases, ["T_Udim", "T_Udim.1002"]);
    assert_eq!(
        meta(&cat.textures[1], "Source part"),
        Some("block 1 of 2 (UDIM 1002, at 1, 0), layer 0 of 1 (TSF_BGRA8)")
    );
}

/// Two layers of different formats (BGRA8 and G8, as LayerFormat states them), three mips: the
/// second layer is a G8 texture of its own, exported as T_Layers.layer1.
#[test]
fn every_source_layer_is_a_texture_in_its_own_format() {
    let mut src = EditorSource {
        blocks: vec![block(0, 0, (4, 4), 3)],
        layer_formats: vec!["TSF_BGRA8".into(), "TSF_G8".into()],
        compression: None,
        payload: Vec::new(),
    };
    src.payload = payload(&src, false);
    let cat = open_source("T_Layers", &src);
    let bases = check_entries(
        &cat,
        &src,
        &[("T_Layers", 0, 0), ("T_Layers [layer 1]", 0, 1)],
    );
    assert_eq!(bases, ["T_Layers", "T_Layers.layer1"]);
}

/// UEDELTA is undone over the whole payload: 2 blocks x 2 layers (BGRA8, G8), each plane
/// delta-coded on its own in stored order; all four entries decode to their patterns.
#[test]
fn uedelta_sources_of_blocks_and_layers_decode_every_part() {
    let mut src = EditorSource {
        blocks: vec![block(0, 0, (8, 8), 2), block(0, 1, (4, 8), 1)],
        layer_formats: vec!["TSF_BGRA8".into(), "TSF_G8".into()],
        compression: Some("TSCF_UEDELTA".into()),
        payload: Vec::new(),
    };
    src.payload = payload(&src, true);
    let cat = open_source("T_Delta", &src);
    let bases = check_entries(
        &cat,
        &src,
        &[
            ("T_Delta", 0, 0),
            ("T_Delta [layer 1]", 0, 1),
            ("T_Delta [UDIM 1011]", 1, 0),
            ("T_Delta [UDIM 1011, layer 1]", 1, 1),
        ],
    );
    assert_eq!(
        bases,
        [
            "T_Delta",
            "T_Delta.layer1",
            "T_Delta.1011",
            "T_Delta.1011.layer1"
        ]
    );
}

/// A payload too short for the blocks it declares: the raw source keeps block 0 (which fits)
/// and names block 1 in its entry's error; UEDELTA (undone whole) names the block and stops.
/// PNG with two blocks is refused as UE refuses it (one image file holds one block and layer).
#[test]
fn a_payload_short_of_its_blocks_names_the_block() {
    let mut src = EditorSource {
        blocks: vec![block(0, 0, (8, 4), 2), block(1, 0, (4, 4), 3)],
        layer_formats: vec!["TSF_BGRA8".into()],
        compression: None,
        payload: Vec::new(),
    };
    let full = payload(&src, false);
    // Block 0 takes (32 + 8) * 4 = 160 bytes; cut 10 from the end of block 1.
    src.payload = full[..full.len() - 10].to_vec();
    let cat = open_source("T_Short", &src);
    assert_eq!(cat.textures.len(), 2);
    assert_eq!(cat.textures[0].error, None);
    let (bytes, ..) = cat.read_surface(0, 1, 0).unwrap();
    assert!(bytes == image("TSF_BGRA8", tag(0, 0), &src.blocks[0], 1));
    let e = cat.textures[1].error.clone().expect("block 1 has no error");
    for want in [
        "T_Short.uasset",
        "block 1 (UDIM 1002)",
        "unreal/FTextureSource/BulkData",
    ] {
        assert!(e.contains(want), "{want} not in {e}");
    }

    src.compression = Some("TSCF_UEDELTA".into());
    let full = payload(&src, true);
    src.payload = full[..full.len() - 10].to_vec();
    let cat = open_source("T_ShortDelta", &src);
    assert_eq!(cat.textures.len(), 1);
    let e = cat.textures[0].error.clone().expect("no error");
    for want in ["T_ShortDelta.uasset", "block 1 (UDIM 1002)", "BulkData"] {
        assert!(e.contains(want), "{want} not in {e}");
    }

    src.compression = Some("TSCF_PNG".into());
    let cat = open_source("T_Png", &src);
    assert_eq!(cat.textures.len(), 1);
    let e = cat.textures[0].error.clone().expect("no error");
    assert!(
        e.contains("2 blocks and 1 layers") && e.contains("CompressionFormat"),
        "{e}"
    );
}

/// A real package rewritten into the form the editor saves with a `.upayload` sidecar
/// ([Core.System.Experimental] EnablePackageSidecarSaving), as UE's sources describe it
/// (docs/unreal.md, "Editor payloads"): the FEditorBulkData flags lose StoredInPackageTrailer and
/// gain HasPayloadSidecarFile, and the record gains its i64 OffsetInFile (EditorBulkData.cpp,
/// FEditorBulkData::Serialize: written whenever the payload is not in the trailer). The 8 bytes
/// are inserted after the record; the export's SerialSize, the summary's BulkDataStartOffset
/// and PayloadTocOffset (and any later export's SerialOffset) move with them, each found in the
/// header as its value's unique little-endian bytes.
struct SidecarForm {
    package: Vec<u8>,
    /// Where OffsetInFile is in `package`.
    offset_field: usize,
    /// The engine-written FCompressedBuffer and the trailer entry's hash and raw size.
    payload: Vec<u8>,
    hash: [u8; 20],
    raw_size: u64,
}

fn replace_unique(bytes: &mut [u8], within: usize, from: &[u8], to: &[u8], what: &str) {
    let hits: Vec<usize> = (0..within.saturating_sub(from.len()))
        .filter(|&p| &bytes[p..p + from.len()] == from)
        .collect();
    assert_eq!(
        hits.len(),
        1,
        "{what}: {} places hold its value",
        hits.len()
    );
    bytes[hits[0]..hits[0] + to.len()].copy_from_slice(to);
}

fn sidecar_form(original: &[u8]) -> SidecarForm {
    use texscope::unreal::{package, trailer};
    let src = texscope::io::BytesSource::new("T.uasset", original.to_vec());
    let limits = Limits::default();
    let pkg = package::parse_legacy(&src, &limits, None).unwrap();
    let t = trailer::read_trailer(&src, Some(pkg.payload_toc_offset as u64), &limits)
        .unwrap()
        .unwrap();
    assert_eq!(t.entries().len(), 1, "one payload: the texture's source");
    let e = &t.entries()[0];
    let (at, n) = (
        e.offset.unwrap() as usize,
        e.compressed_size.unwrap() as usize,
    );
    let payload = original[at..at + n].to_vec();
    // The record: u32 flags, 16-byte BulkDataId, the 20-byte hash, i64 PayloadSize; its hash
    // is found first in the export data (the trailer's lookup table holds it again, later).
    let first_export = pkg.exports.iter().map(|x| x.start).min().unwrap() as usize;
    let h = (first_export..original.len() - 20)
        .find(|&p| original[p..p + 20] == e.hash)
        .unwrap();
    let flags_at = h - 20;
    let flags = u32::from_le_bytes(original[flags_at..flags_at + 4].try_into().unwrap());
    assert_eq!(flags & (1 << 9), 1 << 9, "StoredInPackageTrailer, as saved");
    let size = i64::from_le_bytes(original[h + 20..h + 28].try_into().unwrap());
    assert_eq!(
        size as u64, e.raw_size,
        "PayloadSize is the trailer's raw size"
    );
    let end = h + 28;
    let header = first_export;
    let mut p = original[..end].to_vec();
    p[flags_at..flags_at + 4].copy_from_slice(&((flags & !(1 << 9)) | (1 << 1)).to_le_bytes());
    for x in &pkg.exports {
        let (s, o) = (x.size as i64, x.start as i64);
        let key = [s.to_le_bytes(), o.to_le_bytes()].concat();
        if (x.start as usize) < end && end <= (x.start + x.size) as usize {
            let to = [(s + 8).to_le_bytes(), o.to_le_bytes()].concat();
            replace_unique(&mut p, header, &key, &to, "the export's SerialSize");
        } else if x.start as usize >= end {
            let to = [s.to_le_bytes(), (o + 8).to_le_bytes()].concat();
            replace_unique(&mut p, header, &key, &to, "a later export's SerialOffset");
        }
    }
    for (v, what) in [
        (pkg.bulk_data_start, "BulkDataStartOffset"),
        (pkg.payload_toc_offset, "PayloadTocOffset"),
    ] {
        replace_unique(
            &mut p,
            header.min(1024),
            &v.to_le_bytes(),
            &(v + 8).to_le_bytes(),
            what,
        );
    }
    // OffsetInFile names the package's own copy of the payload (SerializeToLegacyPath writes
    // one beside the sidecar's): here the buffer still in the trailer, 8 bytes later.
    let offset_field = p.len();
    p.extend_from_slice(&((at + 8) as i64).to_le_bytes());
    p.extend_from_slice(&original[end..]);
    SidecarForm {
        package: p,
        offset_field,
        payload,
        hash: e.hash,
        raw_size: e.raw_size,
    }
}

/// The `.upayload` as CreatePayloadSidecarFile writes it since UE 5.1: an FPackageTrailer alone
/// (FPackageTrailerBuilder::BuildAndAppendTrailer into an empty archive): header (tag, version 2,
/// header length 28 + 49 per payload, payload bytes, count), one lookup entry (hash, offset 0
/// from the payload data, compressed size, raw size, u16 flags 0, u16 filter flags 0, u8 access
/// mode 0 = local), the FCompressedBuffer, and the 20-byte footer.
fn sidecar_file(payload: &[u8], hash: &[u8; 20], raw_size: u64) -> Vec<u8> {
    let n = payload.len() as u64;
    let mut s = Vec::new();
    s.extend_from_slice(&0xD1C4_3B2E_80A5_F697u64.to_le_bytes());
    s.extend_from_slice(&2i32.to_le_bytes());
    s.extend_from_slice(&77u32.to_le_bytes());
    s.extend_from_slice(&n.to_le_bytes());
    s.extend_from_slice(&1i32.to_le_bytes());
    s.extend_from_slice(hash);
    s.extend_from_slice(&0i64.to_le_bytes());
    s.extend_from_slice(&n.to_le_bytes());
    s.extend_from_slice(&raw_size.to_le_bytes());
    s.extend_from_slice(&[0, 0, 0, 0, 0]);
    assert_eq!(s.len(), 77);
    s.extend_from_slice(payload);
    s.extend_from_slice(&0x29BF_CA04_5138_DE76u64.to_le_bytes());
    s.extend_from_slice(&(77 + n + 20).to_le_bytes());
    s.extend_from_slice(&0x9E2A_83C1u32.to_le_bytes());
    s
}

fn open_named(files: Vec<(&str, Vec<u8>)>) -> Catalog {
    let sources: Vec<texscope::SourceRef> = files
        .into_iter()
        .map(|(n, b)| Arc::new(texscope::io::BytesSource::new(n, b)) as texscope::SourceRef)
        .collect();
    texscope::open(sources, &Default::default())
}

/// A source whose payload is in a `.upayload` sidecar decodes from it, to the pixels of the
/// project's committed original PNG (the independent expectation, decoded by the `png` crate)
/// and of the same package as the engine saved it (payload in the trailer). Without the sidecar
/// the package's own copy at OffsetInFile is read, as the engine does by default; with no usable
/// copy either, the error asks for the sidecar by name. A cut or foreign sidecar is an error
/// naming the sidecar file and the trailer field.
#[test]
fn a_source_in_a_payload_sidecar_decodes_from_it() {
    let r = rows()
        .into_iter()
        .find(|r| r.file.ends_with("Screenshot_2024-12-04_021134.uasset"))
        .expect("the 5.6 screenshot package of the shared set");
    let original = std::fs::read(&r.file).unwrap();
    let (w, h, want) = original_rgba8(r.original.as_ref().unwrap());
    let form = sidecar_form(&original);
    let sidecar = sidecar_file(&form.payload, &form.hash, form.raw_size);
    let pixels = |cat: &Catalog| {
        assert!(cat.problems.is_empty(), "{:?}", cat.problems);
        assert_eq!(cat.textures.len(), 1);
        assert_eq!(cat.textures[0].error, None);
        let img = cat.decode(0, 0, 0, Default::default()).unwrap();
        assert_eq!((img.width, img.height), (w, h));
        rgba8(&img)
    };
    let as_saved = pixels(&open_named(vec![("T.uasset", original.clone())]));
    assert_eq!(compare(&as_saved, &want).0, 0, "the package as saved");

    let both = open_named(vec![
        ("Content/T.uasset", form.package.clone()),
        ("Content/T.upayload", sidecar.clone()),
    ]);
    let storage = format!("{:?}", both.textures[0].metadata);
    assert!(storage.contains("in the sidecar T.upayload"), "{storage}");
    assert_eq!(pixels(&both), as_saved, "from the sidecar");

    let alone = open_named(vec![("T.uasset", form.package.clone())]);
    let storage = format!("{:?}", alone.textures[0].metadata);
    assert!(storage.contains("the sidecar was not opened"), "{storage}");
    assert_eq!(pixels(&alone), as_saved, "from the package's own copy");

    // No package copy (OffsetInFile -1) and no sidecar: the sidecar is asked for by name.
    let mut no_copy = form.package.clone();
    no_copy[form.offset_field..form.offset_field + 8].copy_from_slice(&(-1i64).to_le_bytes());
    let msgs = messages(&open_named(vec![("T.uasset", no_copy.clone())]));
    assert!(
        msgs.iter()
            .any(|m| m.contains("drop T.upayload too") && m.contains("T.uasset")),
        "{msgs:?}"
    );
    // The sidecar alone: it names the package it belongs to.
    let msgs = messages(&open_named(vec![("T.upayload", sidecar.clone())]));
    assert!(msgs.iter().any(|m| m.contains("T.uasset")), "{msgs:?}");
    // Cut short (its footer gone), listing another payload, or a header whose payload length or
    // count passes the file's end: errors naming the sidecar and the field.
    let patched = |at: usize, v: &[u8]| {
        let mut s = sidecar.clone();
        s[at..at + v.len()].copy_from_slice(v);
        s
    };
    for (bad, field) in [
        (
            patched(16, &(1u64 << 40).to_le_bytes()),
            "PayloadsDataLength",
        ),
        (patched(24, &(1i32 << 30).to_le_bytes()), "NumPayloads"),
        (sidecar[..sidecar.len() - 10].to_vec(), "Footer"),
        (sidecar[..100].to_vec(), "Footer"),
        (
            {
                let mut s = sidecar.clone();
                s[28] ^= 0xff;
                s
            },
            "PayloadLookupTable",
        ),
    ] {
        let cat = open_named(vec![("T.uasset", no_copy.clone()), ("T.upayload", bad)]);
        let msgs = messages(&cat);
        assert!(
            msgs.iter()
                .any(|m| m.contains("T.upayload") && m.contains(field)),
            "{field}: {msgs:?}"
        );
    }
}

/// The layout row an unversioned UE4 package of object version `v` is read as (CANDIDATES in
/// src/unreal/package.rs), by the gates a cooked package shows.
fn layout_row(v: i32) -> &'static str {
    match v {
        342..=364 => "UE4.0-4.2",
        365..=383 => "UE4.3",
        384..=443 => "UE4.4-4.7",
        444..=458 => "UE4.8",
        459..=484 => "UE4.9-4.10",
        485..=503 => "UE4.11",
        504..=507 => "UE4.12-4.13",
        508 | 509 => "UE4.14",
        510 => "UE4.15",
        _ => "UE4.x",
    }
}

/// The one real check of the older unversioned layouts: cooked UE 4.0-4.15 games are cooked
/// `-unversioned`, and none is among the samples, so the real editor packages of UE 4.0 to 4.13
/// (object versions 347 to 505, written by the engines themselves) are made unversioned here by
/// zeroing their FileVersionUE4 and licensee version in memory. With nothing stated, the reader
/// must find each one's layout row from the structure alone (summary end, export-map end, first
/// export offset, name-map end) — the row its real object version falls in — and read the
/// package the same as when the versions are stated: the same texture, properties and source
/// pixels. The pre-4.0 beta packages (object versions 216 and 315) have no row: an unversioned
/// one matches none, and is refused.
#[test]
fn real_ue4_summaries_unversioned_find_their_layout_row() {
    use texscope::unreal::package::parse_legacy;
    let mut checked = Vec::new();
    for r in rows() {
        if !r.engine.starts_with("4.") || r.engine.starts_with("4.22") {
            continue;
        }
        let name = r.file.display().to_string();
        let bytes = std::fs::read(&r.file).unwrap();
        let legacy = i32::from_le_bytes(bytes[4..8].try_into().unwrap());
        let at = if legacy == -4 { 8 } else { 12 };
        let stated = i32::from_le_bytes(bytes[at..at + 4].try_into().unwrap());
        let mut zeroed = bytes.clone();
        zeroed[at..at + 8].fill(0); // FileVersionUE4, FileVersionLicenseeUE4
        let file = r.file.file_name().unwrap().to_string_lossy().to_string();
        let src = texscope::io::BytesSource::new(&file, zeroed.clone());
        let parsed = parse_legacy(&src, &Limits::default(), None);
        if stated < 342 {
            assert!(
                parsed.is_err(),
                "{name} ({stated}): read as {:?}",
                parsed.map(|p| p.engine_guess)
            );
            continue;
        }
        let pkg = parsed.unwrap_or_else(|e| panic!("{name} ({stated}): {e}"));
        assert_eq!(
            pkg.engine_guess,
            layout_row(stated),
            "{name} (object version {stated})"
        );
        let (a, b) = (open_bytes(&file, bytes), open_bytes(&file, zeroed));
        assert!(b.problems.is_empty(), "{name}: {:?}", b.problems);
        let (ta, tb) = (&a.textures[0], &b.textures[0]);
        assert_eq!(
            (&ta.class, ta.width, ta.height),
            (&tb.class, tb.width, tb.height),
            "{name}"
        );
        let props = |t: &texscope::Texture| {
            t.metadata
                .iter()
                .filter(|(k, _)| !k.starts_with("Engine"))
                .cloned()
                .collect::<Vec<_>>()
        };
        assert_eq!(props(ta), props(tb), "{name}");
        if ta.error.is_none() {
            let pa = a.decode(0, 0, 0, Default::default()).unwrap();
            let pb = b.decode(0, 0, 0, Default::default()).unwrap();
            assert!(pa == pb, "{name}: pixels differ");
        }
        checked.push(format!("{stated} -> {}", pkg.engine_guess));
    }
    checked.sort();
    checked.dedup();
    println!("real UE4 editor summaries read unversioned: {checked:?}");
    assert!(checked.len() >= 7, "{checked:?}");
}
