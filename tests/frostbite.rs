//! Frostbite Texture resources and chunks (issue 6, seed 001). No real header is public, so the
//! headers and chunks are generated here by src/fixtures/frostbite.rs from the seed's layout; every
//! decode is compared with the image the fixture's bytes were made from.

mod common;
use common::{counted, samples};
use texscope::fixtures::frostbite::{self as fixture, Fixture, Packing, Spec};
use texscope::frostbite::cas::{BLOCK_LZ4, BLOCK_NONE, BLOCK_ZLIB, BLOCK_ZSTD};
use texscope::frostbite::render_format;
use texscope::frostbite::texture::{name_hash, HeaderLayout};
use texscope::io::BytesSource;
use texscope::model::{ColorSpace, Storage};
use texscope::{open, Catalog, ErrorKind, OpenOptions, PixelFormat, SourceRef, TextureKind};

fn src(name: &str, bytes: Vec<u8>) -> SourceRef {
    BytesSource::shared(name, bytes)
}

fn open_with(files: Vec<SourceRef>, profile: Option<&str>) -> Catalog {
    let opts = OpenOptions {
        frostbite_profile: profile.map(str::to_string),
        ..OpenOptions::default()
    };
    open(files, &opts)
}

fn open_fixture(fx: &Fixture) -> Catalog {
    open_with(
        vec![
            src(&fx.header_name, fx.header.clone()),
            src(&fx.chunk_name, fx.chunk.clone()),
        ],
        None,
    )
}

fn meta<'a>(c: &'a Catalog, key: &str) -> &'a str {
    c.textures[0]
        .metadata
        .iter()
        .find(|(k, _)| k == key)
        .map(|(_, v)| v.as_str())
        .unwrap_or_else(|| panic!("no metadata {key}: {:?}", c.textures[0].metadata))
}

/// Decodes every present mip and slice and compares it with the fixture's source image.
fn assert_decodes(c: &Catalog, fx: &Fixture) -> usize {
    assert!(c.problems.is_empty(), "{:?}", c.problems);
    assert_eq!(c.textures.len(), 1);
    let t = &c.textures[0];
    assert_eq!(t.error, None, "{}", fx.spec.name);
    let mut n = 0;
    for (m, imgs) in fx.images.iter().enumerate() {
        if !t.mips[m].is_present() {
            continue;
        }
        for (s, want) in imgs.iter().enumerate() {
            let got = c
                .decode(0, m, s as u32, Default::default())
                .unwrap_or_else(|e| panic!("{} mip {m} slice {s}: {e}", fx.spec.name));
            assert!(
                &got == want,
                "{} mip {m} slice {s} differs from its source image",
                fx.spec.name
            );
            n += 1;
        }
    }
    n
}

#[test]
fn seed_skate_header_written_by_hand_is_read() {
    // Seed 001's table, byte by byte: 64x32 BC7 (ordinal 66), 7 mips, with the 16-byte resource
    // metadata (0x0c, flags as u32, two zero words) in front.
    let mut h = vec![0u8; 180];
    let put = |h: &mut Vec<u8>, off: usize, b: &[u8]| h[off..off + b.len()].copy_from_slice(b);
    put(&mut h, 0x8, &0u32.to_le_bytes());
    put(&mut h, 0xC, &66u32.to_le_bytes());
    put(&mut h, 0x14, &1u16.to_le_bytes());
    put(&mut h, 0x16, &64u16.to_le_bytes());
    put(&mut h, 0x18, &32u16.to_le_bytes());
    put(&mut h, 0x1A, &1u16.to_le_bytes());
    put(&mut h, 0x1C, &1u16.to_le_bytes());
    put(&mut h, 0x1E, &[7, 1, 2, 7]);
    let guid: [u8; 16] = std::array::from_fn(|i| 0xA0 + i as u8);
    put(&mut h, 0x28, &guid);
    // ceil(w/4)*ceil(h/4)*16 with at least one block per axis (seed 001).
    let sizes = [16 * 8 * 16, 8 * 4 * 16, 4 * 2 * 16, 2 * 16, 16, 16, 16u32];
    for (i, s) in sizes.iter().enumerate() {
        put(&mut h, 0x38 + 4 * i, &s.to_le_bytes());
    }
    let total: u32 = sizes.iter().sum();
    put(&mut h, 0x74, &total.to_le_bytes());
    put(&mut h, 0x78, &name_hash("ui/logo").to_le_bytes());
    put(&mut h, 0x80, b"UI\0");
    let mut file = vec![0x0c, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0];
    file.extend(&h);
    assert_eq!(file.len(), 16 + 180);
    let c = open_with(vec![src("dump/ui/logo.res", file)], None);
    assert!(c.problems.is_empty(), "{:?}", c.problems);
    let t = &c.textures[0];
    assert_eq!((t.width, t.height, t.mips.len()), (64, 32, 7));
    assert_eq!(t.format, PixelFormat::BC7);
    assert_eq!(t.kind, TextureKind::Tex2D);
    assert!(meta(&c, "Header").contains("0x28"));
    assert!(meta(&c, "Header").contains("180 bytes"));
    assert!(meta(&c, "Name hash").contains("matches \"ui/logo\""));
    assert!(meta(&c, "Flags").contains("Streaming"));
    assert_eq!(meta(&c, "Streaming mip floor"), "2");
    assert_eq!(meta(&c, "Texture group"), "UI");
    // No chunk dropped: every mip names the GUID file to drop.
    let want = format!("{}.chunk", texscope::frostbite::guid_text(&guid));
    assert!(t.notes.iter().any(|n| n.contains(&want)));
    for m in &t.mips {
        assert!(matches!(&m.surfaces[0], Storage::Missing { file, .. } if *file == want));
    }
    let e = c.decode(0, 0, 0, Default::default()).unwrap_err();
    assert_eq!(e.kind, ErrorKind::MissingSibling);
    assert!(e.message.contains(&want));
}

#[test]
fn every_kind_and_format_decodes_to_its_source_image() {
    let mut decodes = 0;
    for kind in 0..4u32 {
        for &(format, fname) in fixture::FORMATS {
            let mut spec = Spec::new(&format!("k{kind}_{fname}"), kind, format, 20, 12);
            if kind == 2 {
                spec.depth = 5;
            }
            let fx = fixture::build(&spec).unwrap();
            let c = open_fixture(&fx);
            let t = &c.textures[0];
            let want_kind = [
                TextureKind::Tex2D,
                TextureKind::Cube,
                TextureKind::Volume,
                TextureKind::Array,
            ][kind as usize];
            assert_eq!(t.kind, want_kind);
            // Seed 001: chunk size = sum(mip sizes) x layer count.
            let layers = if kind == 2 { 1 } else { spec.slices as u32 };
            assert_eq!(t.slices, layers);
            assert_eq!(
                fx.chunk_size,
                fx.mip_sizes.iter().sum::<u32>() * layers,
                "{fname}"
            );
            // Odd _SRGB ordinals mean sRGB (notes).
            let srgb = fname.ends_with("_SRGB");
            assert_eq!(t.color_space == ColorSpace::Srgb, srgb, "{fname}");
            decodes += assert_decodes(&c, &fx);
        }
    }
    assert!(decodes > 500, "{decodes}");
}

#[test]
fn mips_are_mip_major_ranges_per_slice() {
    // Seed 001: all images of mip 0, then all images of mip 1 ...; 3-layer BC1 array 16x8.
    let fx = fixture::build(&Spec::new("arr", 3, 54, 16, 8)).unwrap();
    let c = open_fixture(&fx);
    let t = &c.textures[0];
    // ceil(w/4)*ceil(h/4)*8 bytes, at least one block per axis: 16x8, 8x4, 4x2, 2x1, 1x1.
    assert_eq!(fx.mip_sizes, vec![64, 16, 8, 8, 8]);
    let mut expect = 0u64;
    for (m, size) in fx.mip_sizes.iter().enumerate() {
        for s in 0..3 {
            assert_eq!(
                t.mips[m].surfaces[s],
                Storage::Range {
                    source: 1,
                    offset: expect,
                    length: *size as u64
                }
            );
            expect += *size as u64;
        }
    }
    assert_eq!(expect, fx.chunk.len() as u64);
}

#[test]
fn seed_volume_128_cubed_bc7_is_2097152_bytes() {
    // Seed 001: "a 128³ BC7 texture occupying 2,097,152 bytes", one mip covering the volume.
    let mut spec = Spec::new("vol", 2, 66, 128, 128);
    spec.depth = 128;
    let fx = fixture::build(&spec).unwrap();
    assert_eq!(fx.mip_sizes, vec![2_097_152]);
    assert_eq!(fx.chunk_size, 2_097_152);
    let c = open_fixture(&fx);
    let t = &c.textures[0];
    assert_eq!(
        (t.kind, t.depth, t.mips.len()),
        (TextureKind::Volume, 128, 1)
    );
    assert_eq!(t.surface_count(0), 128);
    for z in [0u32, 77, 127] {
        let got = c.decode(0, 0, z, Default::default()).unwrap();
        assert!(got == fx.images[0][z as usize], "depth slice {z}");
    }
}

#[test]
fn seed_header_is_180_bytes() {
    // Seed 001: every stock header is 180 bytes; the resource metadata adds 16.
    let mut spec = Spec::new("plain", 0, 18, 8, 8);
    assert_eq!(fixture::build(&spec).unwrap().header.len(), 196);
    spec.res_meta = false;
    let fx = fixture::build(&spec).unwrap();
    assert_eq!(fx.header.len(), 180);
    let c = open_fixture(&fx);
    assert_eq!(meta(&c, "Resource metadata"), "absent (bare header)");
    assert_decodes(&c, &fx);
}

#[test]
fn other_layouts_are_found_by_the_mip_size_check() {
    // Notes: GUID at 0x1C (v10, v11), 0x20, 0x24, 0x28, 0x2C, with or without metadata.
    let layouts = [
        HeaderLayout::V10,
        HeaderLayout::V11,
        HeaderLayout::V12 { guid_at: 0x20 },
        HeaderLayout::V12 { guid_at: 0x24 },
        HeaderLayout::V12 { guid_at: 0x28 },
        HeaderLayout::V12 { guid_at: 0x2C },
    ];
    for layout in layouts {
        for res_meta in [true, false] {
            let mut spec = Spec::new("lay", 3, 60, 24, 16);
            spec.layout = layout;
            spec.res_meta = res_meta;
            let fx = fixture::build(&spec).unwrap();
            let c = open_fixture(&fx);
            assert_eq!(c.textures.len(), 1, "{layout:?} meta {res_meta}");
            assert!(
                meta(&c, "Header").starts_with(&layout.describe()),
                "{layout:?} meta {res_meta}: {}",
                meta(&c, "Header")
            );
            assert_decodes(&c, &fx);
        }
    }
}

#[test]
fn first_mip_tail_lists_present_mips_and_points_at_the_toc() {
    let mut spec = Spec::new("tail", 0, 66, 64, 64);
    spec.first_mip = 2;
    spec.tail_only = true;
    let fx = fixture::build(&spec).unwrap();
    // The tail starts after mips 0 and 1: 16*16*16 + 8*8*16 bytes (seed's block formula).
    assert_eq!(fx.chunk.len() as u32, fx.chunk_size - (4096 + 1024));
    let c = open_fixture(&fx);
    let t = &c.textures[0];
    assert_eq!(
        t.mips_present(),
        vec![false, false, true, true, true, true, true]
    );
    assert!(t
        .notes
        .iter()
        .any(|n| n.contains("tail") && n.contains("not corruption")));
    assert_eq!(
        t.mips[0].location_note,
        format!("TOC chunk {}", fx.guid_text())
    );
    assert_eq!(assert_decodes(&c, &fx), 5);
    let e = c.decode(0, 0, 0, Default::default()).unwrap_err();
    assert!(e.message.contains("from the TOC"), "{e}");

    // The same header with the whole chain: every mip is there.
    spec.tail_only = false;
    let fx = fixture::build(&spec).unwrap();
    assert_eq!(assert_decodes(&open_fixture(&fx), &fx), 7);
}

#[test]
fn cas_streams_of_each_compression_decode() {
    let mixes: [&'static [u8]; 5] = [
        &[BLOCK_NONE],
        &[BLOCK_ZLIB],
        &[BLOCK_LZ4],
        &[BLOCK_ZSTD],
        &[BLOCK_ZLIB, BLOCK_LZ4, BLOCK_ZSTD, BLOCK_NONE],
    ];
    for types in mixes {
        for kind in [0u32, 1, 3] {
            let mut spec = Spec::new("cas", kind, 66, 128, 64);
            spec.packing = Packing::Cas(types);
            spec.block_size = 0x1000;
            let fx = fixture::build(&spec).unwrap();
            let c = open_fixture(&fx);
            assert!(meta(&c, "Chunk storage").starts_with("CAS block stream"));
            // The header's mip-1/mip-2 block offsets name the blocks holding those mips (seed 001).
            assert!(
                meta(&c, "Compressed mip offsets").contains("mip 2 block"),
                "{types:?}"
            );
            assert_decodes(&c, &fx);
        }
    }
}

#[test]
fn cas_read_decompresses_only_the_blocks_it_touches() {
    let mut spec = Spec::new("lazy", 0, 18, 256, 256);
    spec.packing = Packing::Cas(&[BLOCK_ZLIB]);
    let fx = fixture::build(&spec).unwrap();
    let counting = counted(&fx.chunk_name, fx.chunk.clone());
    let c = open_with(
        vec![src(&fx.header_name, fx.header.clone()), counting.clone()],
        None,
    );
    // 256x256 RGBA8 in 64 KiB blocks: mip 0 is blocks 0-3, mip 1 block 4, mips 2+ (21,844 bytes)
    // block 5, the last. Opening reads the 8-byte sniff and walks the block headers from the
    // header's mip-2 block to the stream's end (one header), besides the one shared probe read of
    // the file's start that every engine's recogniser looks at.
    assert_eq!(fx.chunk_size.div_ceil(0x10000), 6);
    assert_eq!(counting.bytes(), texscope::HEAD_LEN + 8 + 8);
    counting.reset();
    let got = c.decode(0, 1, 0, Default::default()).unwrap();
    assert!(got == fx.images[1][0]);
    // Mip 1 (128x128 RGBA8 = 64 KiB) is exactly the second 64 KiB block: one payload read.
    let read = counting.bytes();
    assert!(
        read < fx.chunk.len() as u64 / 3,
        "{read} of {}",
        fx.chunk.len()
    );
}

#[test]
fn chunk_without_its_name_is_paired_by_size_when_alone() {
    let fx = fixture::build(&Spec::new("bysize", 0, 54, 32, 32)).unwrap();
    let c = open_with(
        vec![
            src(&fx.header_name, fx.header.clone()),
            src("payload.bin", fx.chunk.clone()),
        ],
        None,
    );
    assert!(meta(&c, "Chunk file").contains("paired by size"));
    assert_decodes(&c, &fx);
    // Two files of the fitting size: no guess.
    let c = open_with(
        vec![
            src(&fx.header_name, fx.header.clone()),
            src("a.bin", fx.chunk.clone()),
            src("b.bin", fx.chunk.clone()),
        ],
        None,
    );
    assert!(!c.textures[0].mips[0].is_present());
}

#[test]
fn guid_names_with_braces_uppercase_and_cas_extension_pair() {
    let fx = fixture::build(&Spec::new("braces", 0, 63, 16, 16)).unwrap();
    for name in [
        format!("{{{}}}", fx.guid_text().to_uppercase()),
        format!("{}.cas", fx.guid_text()),
        fx.guid_text(),
    ] {
        let c = open_with(
            vec![
                src(&fx.header_name, fx.header.clone()),
                src(&name, fx.chunk.clone()),
            ],
            None,
        );
        assert!(meta(&c, "Chunk file").contains("named by"), "{name}");
        assert_decodes(&c, &fx);
    }
}

#[test]
fn bad_siblings_say_what_is_wrong() {
    let fx = fixture::build(&Spec::new("bad", 0, 66, 32, 32)).unwrap();
    // Wrong GUID: the texture waits for its chunk; the stray chunk asks for its header.
    let (wrong, bytes) = fx.wrong_guid_chunk();
    let c = open_with(
        vec![src(&fx.header_name, fx.header.clone()), src(&wrong, bytes)],
        None,
    );
    assert!(!c.textures[0].mips[0].is_present());
    assert_eq!(c.problems.len(), 1);
    assert!(c.problems[0].error.contains("drop its Texture header"));

    // Short chunk: listed, with an error naming the sizes.
    let (name, bytes) = fx.short_chunk(100);
    let c = open_with(
        vec![src(&fx.header_name, fx.header.clone()), src(&name, bytes)],
        None,
    );
    let e = c.textures[0].error.as_deref().unwrap();
    assert!(
        e.contains(&fx.chunk_size.to_string()) && e.contains("cut short"),
        "{e}"
    );
    assert!(c.decode(0, 0, 0, Default::default()).is_err());

    // Wrong version in the resource metadata: a Frostbite resource, but not a Texture header.
    let c = open_with(vec![src(&fx.header_name, fx.header_with_version(9))], None);
    assert!(c.textures.is_empty());
    assert!(
        c.problems[0].error.contains("version 9"),
        "{}",
        c.problems[0].error
    );

    // Random bytes named .res are not claimed.
    let junk: Vec<u8> = (0..196u32).map(|i| (i * 7919 % 251) as u8).collect();
    let c = open_with(vec![src("junk.res", junk)], None);
    assert!(c.textures.is_empty());
    assert!(c.problems[0].engine.is_none());
}

#[test]
fn swizzled_console_data_is_listed_not_decoded() {
    let mut spec = Spec::new("console", 0, 60, 16, 16);
    spec.flags = 0x800;
    let fx = fixture::build(&spec).unwrap();
    let c = open_fixture(&fx);
    assert!(meta(&c, "Flags").contains("SwizzledData"));
    let e = c.decode(0, 0, 0, Default::default()).unwrap_err();
    assert!(e.message.contains("console"), "{e}");
}

#[test]
fn srgb_gamma_flag_and_profiles() {
    // Notes: flag 0x2 (SrgbGamma) makes a UNORM BC format sRGB.
    let mut spec = Spec::new("gamma", 0, 54, 8, 8);
    spec.flags = 0x2;
    let c = open_fixture(&fixture::build(&spec).unwrap());
    assert_eq!(c.textures[0].color_space, ColorSpace::Srgb);

    // The BF4 RenderFormat table (samples/frostbite/renderformat) has BC1 at 0; the default
    // 2014.4 table has Unknown there.
    let fx = fixture::build(&Spec::new("old", 0, 54, 8, 8)).unwrap();
    let mut header = fx.header.clone();
    header[16 + 0xC..16 + 0x10].copy_from_slice(&0u32.to_le_bytes());
    let files = || {
        vec![
            src(&fx.header_name, header.clone()),
            src(&fx.chunk_name, fx.chunk.clone()),
        ]
    };
    let c = open_with(files(), Some("bf4"));
    assert_eq!(c.textures[0].format, PixelFormat::BC1);
    assert!(c.decode(0, 0, 0, Default::default()).unwrap() == fx.images[0][0]);
    let c = open_with(files(), None);
    assert!(c.textures[0].error.as_deref().unwrap().contains("Unknown"));
    let c = open_with(files(), Some("nonesuch"));
    assert!(c.textures[0].notes.iter().any(|n| n.contains("nonesuch")));
}

#[test]
fn profile_tables_match_the_renderformat_tsv_files() {
    let dir = samples().join("frostbite/renderformat");
    let pairs = [
        (
            "2014.4",
            "RenderFormat__StarWarsSDK_MirrorsEdgeSDK_NFS16SDK_NFSEDGESDK_PVZ2SDK.tsv",
        ),
        ("fifa17", "RenderFormat__Fifa17SDK.tsv"),
        ("bf4", "RenderFormat__BF4SDK_BFHSDK_NFS14SDK_PVZ1SDK.tsv"),
        (
            "bf4-textureformat",
            "TextureFormat__BF4SDK_BFHSDK_PVZ1SDK.tsv",
        ),
        ("nfs14-textureformat", "TextureFormat__NFS14SDK.tsv"),
    ];
    for (profile, file) in pairs {
        let p = render_format::profile(profile).unwrap();
        let text = std::fs::read_to_string(dir.join(file)).unwrap();
        let rows: Vec<(u32, String)> = text
            .lines()
            .filter(|l| !l.starts_with('#') && !l.starts_with("value"))
            .map(|l| {
                let (v, n) = l.split_once('\t').unwrap();
                (v.parse().unwrap(), n.to_string())
            })
            .filter(|(_, n)| !n.ends_with("Count"))
            .collect();
        assert_eq!(p.names().len(), rows.len(), "{profile}");
        for (v, n) in rows {
            assert_eq!(
                format!("{}_{}", p.enum_name, p.ordinal_name(v).unwrap()),
                n,
                "{profile} {v}"
            );
        }
    }
    // Seed 001's Skate table under the default profile.
    let p = render_format::default_profile();
    let fmt = |o| p.format(o).unwrap().format.unwrap();
    for (o, f) in [
        (18, PixelFormat::RGBA8),
        (20, PixelFormat::RGBA8),
        (23, PixelFormat::BGRA8),
        (24, PixelFormat::BGRA8),
        (54, PixelFormat::BC1),
        (57, PixelFormat::BC1),
        (58, PixelFormat::BC2),
        (59, PixelFormat::BC2),
        (60, PixelFormat::BC3),
        (61, PixelFormat::BC3),
        (66, PixelFormat::BC7),
        (67, PixelFormat::BC7),
    ] {
        assert_eq!(fmt(o), f, "ordinal {o}");
    }
    // Notes: 62 BC4, 63 BC5, 64 BC6U, 65 BC6S, 40 RGBA16F, 26 R11G11B10F.
    assert_eq!(fmt(62), PixelFormat::BC4);
    assert_eq!(fmt(63), PixelFormat::BC5);
    assert_eq!(fmt(64), PixelFormat::BC6HU);
    assert_eq!(fmt(65), PixelFormat::BC6HS);
    assert_eq!(fmt(40), PixelFormat::RGBA16F);
    assert_eq!(fmt(26), PixelFormat::RG11B10F);
}

#[test]
fn floor_below_first_mip_and_repeated_count_mismatch_are_noted() {
    // Seed 001: 0x1F first mip, 0x20 streaming mip floor (never below the first mip in stock
    // data), 0x21 repeated mip count (always equal to the mip count at 0x1E).
    let mut spec = Spec::new("odd", 0, 54, 16, 16);
    spec.first_mip = 2;
    let fx = fixture::build(&spec).unwrap();
    let mut header = fx.header.clone();
    let mips = header[16 + 0x1E];
    assert_eq!(header[16 + 0x1F], 2);
    header[16 + 0x20] = 1;
    header[16 + 0x21] = mips + 1;
    let c = open_with(
        vec![
            src(&fx.header_name, header),
            src(&fx.chunk_name, fx.chunk.clone()),
        ],
        None,
    );
    let notes = c.textures[0].notes.join("\n");
    assert!(
        notes.contains("streaming mip floor 1 is below the first mip 2"),
        "{notes}"
    );
    assert!(
        notes.contains(&format!(
            "repeated mip count {} differs from the mip count {mips}",
            mips + 1
        )),
        "{notes}"
    );
    // Both are facts about the header, not corruption: the texture still decodes.
    assert!(c.textures[0].error.is_none());
    assert!(c.decode(0, 2, 0, Default::default()).unwrap() == fx.images[2][0]);
}

#[test]
fn compressed_mip_offsets_are_checked_against_the_block_walk() {
    // Seed 001: header words 0x0 and 0x4 are the CAS-stream offsets of the blocks holding the
    // first bytes of mips 1 and 2. 256x256 RGBA8 in 64 KiB blocks: mip 0 fills blocks 0-3, so
    // mip 1 starts in block 4 and mip 2 (after mip 1's 64 KiB) in block 5.
    let mut spec = Spec::new("offsets", 0, 18, 256, 256);
    spec.packing = Packing::Cas(&[BLOCK_ZLIB]);
    let fx = fixture::build(&spec).unwrap();
    let mut starts = Vec::new();
    let mut at = 0usize;
    while at < fx.chunk.len() {
        starts.push(at as u32);
        let h = texscope::frostbite::cas::parse_header(fx.chunk[at..at + 8].try_into().unwrap())
            .unwrap();
        at += 8 + h.stored as usize;
    }
    let mut header = fx.header.clone();
    header[16..20].copy_from_slice(&starts[4].to_le_bytes());
    // Mip 2 deliberately names block 4 too: the walk says block 5.
    header[20..24].copy_from_slice(&starts[4].to_le_bytes());
    let c = open_with(
        vec![
            src(&fx.header_name, header),
            src(&fx.chunk_name, fx.chunk.clone()),
        ],
        None,
    );
    assert!(meta(&c, "Compressed mip offsets")
        .contains(&format!("mip 1 block at {:#x} confirmed", starts[4])));
    let notes = c.textures[0].notes.join("\n");
    assert!(
        notes.contains(&format!(
            "names the block at {:#x} for mip 2, but mip 2 starts in the block at {:#x}",
            starts[4], starts[5]
        )),
        "{notes}"
    );
    assert!(c.decode(0, 1, 0, Default::default()).unwrap() == fx.images[1][0]);
}

/// Offsets of the block headers of a CAS stream, walked here from the notes' header layout.
fn block_starts(chunk: &[u8]) -> Vec<u64> {
    let mut starts = Vec::new();
    let mut at = 0usize;
    while at < chunk.len() {
        starts.push(at as u64);
        let h =
            texscope::frostbite::cas::parse_header(chunk[at..at + 8].try_into().unwrap()).unwrap();
        at += 8 + h.stored as usize;
    }
    starts
}

#[test]
fn showing_mip_2_walks_block_headers_from_the_mip_2_offset_only() {
    // Issue 6. 1024x1024 BC1 (seed 001: 8 bytes per 4x4 block) in 4 KiB blocks: mip 0 is
    // 512 KiB = blocks 0-127, mip 1 128 KiB = blocks 128-159, mip 2 32 KiB = blocks 160-167, and
    // mips 3-10 (8192+2048+512+128+32+8+8+8 = 10,936 bytes) blocks 168-170: 171 blocks in all.
    let mut spec = Spec::new("big", 0, 54, 1024, 1024);
    spec.packing = Packing::Cas(&[BLOCK_ZLIB]);
    spec.block_size = 0x1000;
    let fx = fixture::build(&spec).unwrap();
    let starts = block_starts(&fx.chunk);
    assert_eq!(starts.len(), 171);
    // The header's words 0x0/0x4 (after the 16-byte resource metadata) name blocks 128 and 160.
    let word = |at: usize| u32::from_le_bytes(fx.header[at..at + 4].try_into().unwrap()) as u64;
    assert_eq!((word(16), word(20)), (starts[128], starts[160]));

    let counting = counted(&fx.chunk_name, fx.chunk.clone());
    let c = open_with(
        vec![src(&fx.header_name, fx.header.clone()), counting.clone()],
        None,
    );
    assert!(c.problems.is_empty(), "{:?}", c.problems);
    assert_eq!(c.textures[0].error, None);
    let is_header = |&(o, n): &(u64, u64)| n == 8 && starts.binary_search(&o).is_ok();
    let is_payload = |&(o, _): &(u64, u64)| o >= 8 && starts.binary_search(&(o - 8)).is_ok();
    // Past the shared probe read at offset 0: block headers only, and only the sniff of block 0
    // plus blocks 160-170 (the walk from the mip-2 block to the stream's end).
    let opened: Vec<(u64, u64)> = counting.take()[1..].to_vec();
    let mut want: Vec<(u64, u64)> = vec![(0, 8)];
    want.extend(starts[160..].iter().map(|&o| (o, 8)));
    assert_eq!(opened, want);

    assert!(c.decode(0, 2, 0, Default::default()).unwrap() == fx.images[2][0]);
    // Mip 2: the payloads of blocks 160-167, and no further header.
    let log = counting.take();
    assert!(!log.iter().any(is_header), "{log:?}");
    let payloads: Vec<u64> = log
        .iter()
        .filter(|r| is_payload(r))
        .map(|r| r.0 - 8)
        .collect();
    assert_eq!(payloads, starts[160..168].to_vec());
    assert_eq!(log.len(), 8);
    // 12 header reads (96 bytes) to open and show mip 2, where the walk of every block takes 171
    // plus the sniff (1,376 bytes).
    assert_eq!(opened.iter().map(|r| r.1).sum::<u64>(), 96);

    // Mip 1 walks blocks 128-159 (from the mip-1 block up to the mip-2 block), mip 0 blocks 0-127:
    // every header is read once in all, besides the sniff.
    assert!(c.decode(0, 1, 0, Default::default()).unwrap() == fx.images[1][0]);
    let log = counting.take();
    let heads: Vec<u64> = log.iter().filter(|r| is_header(r)).map(|r| r.0).collect();
    assert_eq!(heads, starts[128..160].to_vec());
    assert!(c.decode(0, 0, 0, Default::default()).unwrap() == fx.images[0][0]);
    let log = counting.take();
    let heads: Vec<u64> = log.iter().filter(|r| is_header(r)).map(|r| r.0).collect();
    assert_eq!(heads, starts[..128].to_vec());
    assert_decodes(&c, &fx);
}

#[test]
fn a_wrong_mip_1_offset_is_dropped_and_the_walk_starts_over() {
    // The mip-2 offset is right (checked at open: its blocks end at the chunk size), the mip-1
    // offset names block 130 (whose logical start is not mip 1's) or a byte inside it (no block
    // header there). Either way mip 1 and mip 0 still decode to their source images, indexed from
    // the stream start.
    let mut spec = Spec::new("bad1", 0, 54, 1024, 1024);
    spec.packing = Packing::Cas(&[BLOCK_LZ4]);
    spec.block_size = 0x1000;
    let fx = fixture::build(&spec).unwrap();
    let starts = block_starts(&fx.chunk);
    for bad in [starts[130], starts[130] + 3] {
        let mut header = fx.header.clone();
        header[16..20].copy_from_slice(&(bad as u32).to_le_bytes());
        let c = open_with(
            vec![
                src(&fx.header_name, header),
                src(&fx.chunk_name, fx.chunk.clone()),
            ],
            None,
        );
        assert!(meta(&c, "Compressed mip offsets").contains("mip 2 block at"));
        assert_eq!(assert_decodes(&c, &fx), 11);
    }
    // A mip-2 offset whose walk does not end at the chunk size: a note, and every header walked.
    let mut header = fx.header.clone();
    header[20..24].copy_from_slice(&(starts[161] as u32).to_le_bytes());
    let c = open_with(
        vec![
            src(&fx.header_name, header),
            src(&fx.chunk_name, fx.chunk.clone()),
        ],
        None,
    );
    let notes = c.textures[0].notes.join("\n");
    assert!(notes.contains("walked from the stream start"), "{notes}");
    assert!(meta(&c, "Chunk storage").contains("171 blocks"));
    assert_eq!(assert_decodes(&c, &fx), 11);
}
