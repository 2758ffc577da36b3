//! Loose .dds: the writer and the opener against each other and against an independent reader
//! (the image-rs `dds` crate), over generated fixtures of every decodable format and shape, the
//! real .dds samples, and broken files.

mod common;
use common::samples;
mod dds_fixtures;

use dds_fixtures::{desc, standard_set, Fixture};
use texscope::formats::dds::{self, Desc};
use texscope::io::BytesSource;
use texscope::model::{ColorSpace, NativeFormat};
use texscope::{open, Catalog, ErrorKind, OpenOptions, PixelFormat, TextureKind};

fn open_one(name: &str, bytes: Vec<u8>) -> Catalog {
    open(
        vec![BytesSource::shared(name, bytes)],
        &OpenOptions::default(),
    )
}

/// The image-rs `dds` crate's name for our format, where it has one (its `Format` enum).
fn dds_crate_name(f: PixelFormat) -> Option<&'static str> {
    use PixelFormat::*;
    Some(match f {
        RGBA8 => "R8G8B8A8_UNORM",
        RGB8 => "R8G8B8_UNORM",
        BGR8 => "B8G8R8_UNORM",
        BGRA8 => "B8G8R8A8_UNORM",
        BGRX8 => "B8G8R8X8_UNORM",
        RGB565 => "B5G6R5_UNORM",
        BGRA5551 => "B5G5R5A1_UNORM",
        ARGB4444 => "B4G4R4A4_UNORM",
        R8 => "R8_UNORM",
        RG8 => "R8G8_UNORM",
        A8 => "A8_UNORM",
        R16 => "R16_UNORM",
        RG16 => "R16G16_UNORM",
        RGBA16 => "R16G16B16A16_UNORM",
        RGB10A2 => "R10G10B10A2_UNORM",
        RG11B10F => "R11G11B10_FLOAT",
        RGB9E5 => "R9G9B9E5_SHAREDEXP",
        R16F => "R16_FLOAT",
        RG16F => "R16G16_FLOAT",
        RGBA16F => "R16G16B16A16_FLOAT",
        R32F => "R32_FLOAT",
        RG32F => "R32G32_FLOAT",
        RGB32F => "R32G32B32_FLOAT",
        RGBA32F => "R32G32B32A32_FLOAT",
        BC1 => "BC1_UNORM",
        BC2 => "BC2_UNORM",
        BC3 => "BC3_UNORM",
        BC4 => "BC4_UNORM",
        BC4S => "BC4_SNORM",
        BC5 => "BC5_UNORM",
        BC5S => "BC5_SNORM",
        BC6HU => "BC6H_UF16",
        BC6HS => "BC6H_SF16",
        BC7 => "BC7_UNORM",
        _ => return None,
    })
}

/// Writes, opens and reads back every mip and slice of `fx`; checks the listing.
fn check_round_trip(fx: &Fixture) {
    let bytes = fx.bytes();
    let cat = open_one(&fx.file, bytes.clone());
    assert!(cat.problems.is_empty(), "{}: {:?}", fx.file, cat.problems);
    assert_eq!(cat.textures.len(), 1, "{}", fx.file);
    let t = &cat.textures[0];
    let d = &fx.desc;
    // Expected values: the Desc the fixture was written from.
    assert_eq!(t.error, None, "{}", fx.file);
    assert_eq!(t.format, d.format, "{}", fx.file);
    assert_eq!((t.width, t.height, t.depth), (d.width, d.height, d.depth));
    assert_eq!(t.kind, d.kind, "{}", fx.file);
    assert_eq!(
        t.slices,
        if d.kind == TextureKind::Volume {
            1
        } else {
            d.slices
        }
    );
    assert_eq!(t.mips.len() as u32, d.mips);
    assert_eq!(t.mips_present(), vec![true; d.mips as usize]);
    assert_eq!(t.name, fx.file.trim_end_matches(".dds"));
    if d.srgb {
        assert_eq!(t.color_space, ColorSpace::Srgb);
    }
    for m in 0..d.mips {
        for s in 0..fx.surface_count(m) {
            let (want, w, h) = fx.surface(m, s);
            let (got, gw, gh) = cat.read_surface(0, m as usize, s).unwrap();
            assert_eq!((gw, gh), (w, h), "{} mip {m} slice {s}", fx.file);
            assert!(got == want, "{} mip {m} slice {s}: bytes differ", fx.file);
        }
    }
    // Exporting what was opened gives the same file back (the header is a function of the shape).
    if !d.force_dx10 {
        assert!(
            dds::export(&cat, 0).unwrap() == bytes,
            "{}: export differs",
            fx.file
        );
    }
    // An independent reader agrees on format, size, shape and data length.
    if let Some(name) = dds_crate_name(d.format) {
        let dec = ::dds::Decoder::new(std::io::Cursor::new(&bytes))
            .unwrap_or_else(|e| panic!("{}: the dds crate refuses our file: {e}", fx.file));
        assert_eq!(format!("{:?}", dec.format()), name, "{}", fx.file);
        let size = dec.main_size();
        assert_eq!(
            (size.width, size.height),
            (d.width, d.height),
            "{}",
            fx.file
        );
        let layout = dec.layout();
        use ::dds::DataRegion;
        let header_len = if cat.textures[0].metadata[0].1 == "DX10" {
            148
        } else {
            128
        };
        assert_eq!(
            layout.data_len(),
            bytes.len() as u64 - header_len,
            "{}",
            fx.file
        );
        assert_eq!(
            layout.is_cube_map(),
            d.kind == TextureKind::Cube,
            "{}",
            fx.file
        );
        assert_eq!(
            layout.is_volume(),
            d.kind == TextureKind::Volume,
            "{}",
            fx.file
        );
    }
}

#[test]
fn every_format_and_shape_round_trips() {
    let set = standard_set();
    // Issue 2's plain and BCn list must all be decodable, so all are covered here.
    for f in [
        "BC1", "BC3", "BC6HU", "BC6HS", "BC7", "RGB9E5", "RG11B10F", "ARGB4444", "R16",
    ] {
        assert!(
            set.iter().any(|fx| fx.desc.format.name() == f),
            "{f} missing"
        );
    }
    for fx in &set {
        check_round_trip(fx);
    }
}

#[test]
fn dx10_header_for_every_format_with_a_dxgi_number() {
    // Formats that also have a legacy encoding, forced through DX10, must read the same.
    for f in dds_fixtures::decodable_formats() {
        // DXGI has no 24-bit formats; the others without a `dds` crate name have no DXGI number.
        if dds_crate_name(f).is_none() || matches!(f, PixelFormat::RGB8 | PixelFormat::BGR8) {
            continue;
        }
        let fx = Fixture::new(
            &format!("{}_dx10.dds", f.name()),
            Desc {
                force_dx10: true,
                ..desc(f, 9, 5, 2)
            },
        );
        check_round_trip(&fx);
    }
}

#[test]
fn native_format_and_metadata() {
    // FourCC text for legacy headers, the DXGI number for DX10 (issue 2 census contract).
    let c = open_one(
        "a.dds",
        Fixture::simple("a.dds", PixelFormat::BC1, 8, 8, 1).bytes(),
    );
    assert_eq!(
        c.textures[0].native_format,
        NativeFormat::Name("DXT1".into())
    );
    let c = open_one(
        "b.dds",
        Fixture::simple("b.dds", PixelFormat::BC7, 8, 8, 1).bytes(),
    );
    // DXGI_FORMAT_BC7_UNORM = 98 (dxgiformat.h).
    assert_eq!(c.textures[0].native_format, NativeFormat::Id(98));
    assert_eq!(c.textures[0].color_space, ColorSpace::Linear);
    let srgb = Fixture::new(
        "c.dds",
        Desc {
            srgb: true,
            ..desc(PixelFormat::BC7, 8, 8, 1)
        },
    );
    let c = open_one("c.dds", srgb.bytes());
    // DXGI_FORMAT_BC7_UNORM_SRGB = 99.
    assert_eq!(c.textures[0].native_format, NativeFormat::Id(99));
    assert!(c.textures[0]
        .metadata
        .iter()
        .any(|(k, v)| k == "DXGI_FORMAT" && v == "99"));
    // D3DFMT_A16B16G16R16F = 113 (d3d9types.h) in the FourCC field.
    let c = open_one(
        "d.dds",
        Fixture::simple("d.dds", PixelFormat::RGBA16F, 4, 4, 1).bytes(),
    );
    assert_eq!(c.textures[0].native_format, NativeFormat::Id(113));
}

#[test]
fn real_atc_samples() {
    let dir =
        samples().join("unity/UniversalGameExtraction_texture2ddecoder/resources/tests/textures");
    // Headers read with xxd: 512x512, dwMipMapCount 1, FourCC "ATC "/"ATCA"/"ATCI"; file sizes
    // 131200 and 262272 are the 128-byte header plus 512*512/2 or 512*512 bytes of blocks.
    for (file, format, cc) in [
        ("ATC_RGB.dds", PixelFormat::ATCRGB, "ATC "),
        (
            "ATC_RGBA_Explicit.dds",
            PixelFormat::ATCRGBAExplicit,
            "ATCA",
        ),
        (
            "ATC_RGBA_Interpolated.dds",
            PixelFormat::ATCRGBAInterpolated,
            "ATCI",
        ),
    ] {
        let src = texscope::io::FileSource::open(&dir.join(file)).unwrap();
        let c = open(vec![std::sync::Arc::new(src)], &OpenOptions::default());
        let t = &c.textures[0];
        assert_eq!(t.format, format);
        assert_eq!((t.width, t.height, t.mips.len()), (512, 512, 1));
        assert_eq!(t.native_format, NativeFormat::Name(cc.into()));
        assert_eq!(t.mips_present(), vec![true]);
        assert!(t.notes.is_empty(), "{:?}", t.notes);
    }
}

#[test]
fn truncated_data_lists_missing_mips() {
    // An 8-layer array of 16x16 RGBA8 with 5 mips, cut inside layer 1: layer 0 is whole
    // (16*16*4 + 8*8*4 + 4*4*4 + 2*2*4 + 1*4 = 1364 bytes), layer 1 keeps mip 0 only, layers
    // 2-7 are gone, so no mip is present in every slice.
    let fx = Fixture::new(
        "cut.dds",
        Desc {
            kind: TextureKind::Array,
            slices: 8,
            ..desc(PixelFormat::RGBA8, 16, 16, 5)
        },
    );
    let mut b = fx.bytes();
    b.truncate(148 + 1364 + 1024 + 10);
    let c = open_one("cut.dds", b);
    let t = &c.textures[0];
    assert_eq!(t.error, None);
    assert_eq!(t.mips_present(), vec![false; 5]);
    assert!(c.read_surface(0, 4, 0).is_ok());
    assert!(c.read_surface(0, 1, 0).is_ok());
    assert!(c.read_surface(0, 0, 1).is_ok());
    let e = c.read_surface(0, 1, 1).unwrap_err();
    assert_eq!(e.kind, ErrorKind::Truncated);
    assert!(e.to_string().contains("cut.dds"), "{e}");
    assert!(
        t.notes.iter().any(|n| n.contains("cut short")),
        "{:?}",
        t.notes
    );
}

#[test]
fn every_truncation_is_handled() {
    // Cutting a valid file at every length must list or refuse it, never panic.
    let fx = Fixture::new(
        "t.dds",
        Desc {
            kind: TextureKind::Cube,
            slices: 6,
            force_dx10: true,
            ..desc(PixelFormat::BC1, 8, 8, 2)
        },
    );
    let b = fx.bytes();
    for n in 0..b.len() {
        let c = open_one("t.dds", b[..n].to_vec());
        assert_eq!(c.textures.len() + c.problems.len(), 1, "cut at {n}");
        if n < 148 {
            assert_eq!(c.textures.len(), 0, "cut at {n}");
        } else {
            for m in 0..2 {
                for s in 0..6 {
                    let _ = c.read_surface(0, m, s);
                }
            }
        }
    }
}

#[test]
fn hostile_headers_are_refused() {
    let base = Fixture::simple("h.dds", PixelFormat::BC1, 4, 4, 1).bytes();
    let patch = |at: usize, v: u32| {
        let mut b = base.clone();
        b[at..at + 4].copy_from_slice(&v.to_le_bytes());
        open_one("h.dds", b)
    };
    // dwHeight/dwWidth at 12/16 (Microsoft DDS_HEADER): 2^31 x 2^31 is over Limits::max_dim.
    let mut b = base.clone();
    b[12..16].copy_from_slice(&(1u32 << 31).to_le_bytes());
    b[16..20].copy_from_slice(&(1u32 << 31).to_le_bytes());
    let c = open_one("h.dds", b);
    assert!(c.textures.is_empty());
    assert!(
        c.problems[0].error.contains("limit"),
        "{}",
        c.problems[0].error
    );
    // dwMipMapCount at 28.
    let c = patch(28, u32::MAX);
    assert!(
        c.problems[0].error.contains("dwMipMapCount"),
        "{:?}",
        c.problems
    );
    // dwSize at 4.
    let c = patch(4, 0);
    assert!(c.problems[0].error.contains("dwSize"), "{:?}", c.problems);
    // Width 0.
    let c = patch(16, 0);
    assert!(
        c.problems[0].error.contains("at least one texel"),
        "{:?}",
        c.problems
    );
}

#[test]
fn hostile_dx10_fields() {
    let base = Fixture::new(
        "x.dds",
        Desc {
            force_dx10: true,
            ..desc(PixelFormat::BC7, 4, 4, 1)
        },
    )
    .bytes();
    let patch = |at: usize, v: u32| {
        let mut b = base.clone();
        b[at..at + 4].copy_from_slice(&v.to_le_bytes());
        open_one("x.dds", b)
    };
    // DDS_HEADER_DXT10 at 128: dxgiFormat, resourceDimension, miscFlag, arraySize.
    let c = patch(128, 500);
    let t = &c.textures[0];
    assert!(t.error.as_deref().unwrap().contains("DXGI_FORMAT 500"));
    assert_eq!(
        c.read_surface(0, 0, 0).unwrap_err().kind,
        ErrorKind::Unsupported
    );
    let c = patch(140, 0);
    assert!(
        c.problems[0].error.contains("arraySize"),
        "{:?}",
        c.problems
    );
    let c = patch(140, u32::MAX);
    assert!(c.problems[0].error.contains("limit"), "{:?}", c.problems);
    // A cube array of 2^31 cubes would overflow the face count.
    let mut b = base.clone();
    b[136..140].copy_from_slice(&4u32.to_le_bytes());
    b[140..144].copy_from_slice(&(1u32 << 31).to_le_bytes());
    let c = open_one("x.dds", b);
    assert_eq!(c.textures.len(), 0);
    let c = patch(132, 9);
    assert!(
        c.problems[0].error.contains("resourceDimension"),
        "{:?}",
        c.problems
    );
    // A huge array of 1x1 BC7 fits the limits but not the file: listed, mips missing.
    let c = patch(140, 1000);
    let t = &c.textures[0];
    assert_eq!(t.slices, 1000);
    assert_eq!(t.mips_present(), vec![false]);
    assert!(c.read_surface(0, 0, 0).is_ok());
    assert_eq!(
        c.read_surface(0, 0, 999).unwrap_err().kind,
        ErrorKind::Truncated
    );
}
