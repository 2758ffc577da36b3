//! Loose .ktx2: the real samples (texture2ddecoder's test set) and generated files of every
//! decodable format with mips, arrays, cubes and volumes.

mod common;
use common::samples;
mod dds_fixtures;
mod ktx_fixtures;

use std::sync::Arc;

use dds_fixtures::random_bytes;
use ktx_fixtures::{ktx1, ktx2};
use texscope::io::{BytesSource, FileSource};
use texscope::model::{mip_dims, ColorSpace, NativeFormat, RowOrder};
use texscope::{open, OpenOptions, PixelFormat, TextureKind};

#[test]
fn real_ktx2_samples() {
    let dir =
        samples().join("unity/UniversalGameExtraction_texture2ddecoder/resources/tests/textures");
    // Expected values: each file's header read with Python struct.unpack (vkFormat, level 0
    // byteOffset/byteLength); all are 512x512 with one level, one layer, one face.
    let cases: &[(&str, &str, u32, u64, u64)] = &[
        ("BC1.ktx2", "BC1", 133, 224, 131072),
        ("BC2.ktx2", "BC2", 135, 240, 262144),
        ("BC3.ktx2", "BC3", 137, 240, 262144),
        ("BC4.ktx2", "BC4", 139, 224, 131072),
        ("BC5.ktx2", "BC5", 141, 240, 262144),
        ("BC6H.ktx2", "BC6HU", 143, 224, 262144),
        ("BC7.ktx2", "BC7", 145, 224, 262144),
        ("ETC1_RGB.ktx2", "ETC2RGB", 147, 216, 131072),
        ("ETC2_RGBA.ktx2", "ETC2RGBA8", 151, 240, 262144),
        ("ETC2_RGB_A1.ktx2", "ETC2RGBA1", 149, 240, 131072),
        ("EAC_R11.ktx2", "EACR11", 153, 224, 131072),
        ("EAC_RG11.ktx2", "EACRG11", 155, 240, 262144),
        ("ASTC_4x4.ktx2", "ASTC_4x4", 157, 224, 262144),
        ("ASTC_10x8.ktx2", "ASTC_10x8", 177, 224, 53248),
        ("ASTC_12x12.ktx2", "ASTC_12x12", 183, 224, 29584),
        (
            "PVRTCI_4bpp_RGBA.ktx2",
            "PVRTC4RGBA",
            1000054001,
            224,
            131072,
        ),
        ("PVRTCI_2bpp_RGB.ktx2", "PVRTC2RGBA", 1000054000, 224, 65536),
        ("SharedExponentR9G9B9E5.ktx2", "RGB9E5", 123, 304, 1048576),
    ];
    for &(file, format, vk, offset, length) in cases {
        let path = dir.join(file);
        let src = FileSource::open(&path).unwrap();
        let whole = std::fs::read(&path).unwrap();
        let c = open(vec![Arc::new(src)], &OpenOptions::default());
        assert!(c.problems.is_empty(), "{file}: {:?}", c.problems);
        let t = &c.textures[0];
        assert_eq!(t.error, None, "{file}");
        assert_eq!(t.format.name(), format, "{file}");
        assert_eq!(t.native_format, NativeFormat::Id(vk as i64));
        assert_eq!(
            (t.width, t.height, t.mips.len(), t.slices),
            (512, 512, 1, 1)
        );
        assert_eq!(t.kind, TextureKind::Tex2D);
        let (bytes, ..) = c.read_surface(0, 0, 0).unwrap();
        assert_eq!(bytes.len() as u64, length, "{file}");
        assert!(bytes[..] == whole[offset as usize..(offset + length) as usize]);
        if t.format.is_block_compressed() && t.format.name().starts_with("BC") {
            // bcdec_rs decodes these; the sample is a drawing of Ferris on a transparent ground,
            // so the corner and the body differ.
            let img = c.decode(0, 0, 0, Default::default()).unwrap();
            assert_ne!(img.texel(0, 0), img.texel(300, 200), "{file}");
        }
    }
    // Every cut of a real file is listed or refused, never a panic.
    let whole = std::fs::read(dir.join("BC1.ktx2")).unwrap();
    for n in (0..300).chain([whole.len() - 1]) {
        let c = open(
            vec![BytesSource::shared("cut.ktx2", whole[..n].to_vec())],
            &OpenOptions::default(),
        );
        assert_eq!(c.textures.len() + c.problems.len(), 1, "cut at {n}");
        if let Some(t) = c.textures.first() {
            assert_eq!(t.mips_present(), vec![false], "cut at {n}");
            assert!(c.read_surface(0, 0, 0).is_err());
        }
    }
    // The Basis and PVRTC2 files of this folder are decoded: tests/codec_basis.rs, codec_pvrtc.rs.
}

#[test]
fn generated_shapes_read_back() {
    // (vkFormat, our format) pairs from the Vulkan spec's VkFormat table.
    let formats = [
        (37, PixelFormat::RGBA8),
        (43, PixelFormat::RGBA8),
        (131, PixelFormat::BC1),
        (146, PixelFormat::BC7),
        (97, PixelFormat::RGBA16F),
        (123, PixelFormat::RGB9E5),
        (70, PixelFormat::R16),
    ];
    // (depth, layers, faces, levels, kind, slices)
    let shapes = [
        (0, 0, 1, 4, TextureKind::Tex2D, 1),
        (0, 3, 1, 2, TextureKind::Array, 3),
        (0, 0, 6, 3, TextureKind::Cube, 6),
        (0, 2, 6, 2, TextureKind::Cube, 12),
        (4, 0, 1, 3, TextureKind::Volume, 1),
    ];
    for (vk, format) in formats {
        for &(depth, layers, faces, nlevels, kind, slices) in &shapes {
            let (w, h) = (13, 9);
            let levels: Vec<Vec<u8>> = (0..nlevels)
                .map(|l| {
                    let (mw, mh, md) = mip_dims(w, h, depth.max(1), l);
                    let n = format.surface_size(mw, mh) * md as u64 * slices as u64;
                    random_bytes(vk as u64 * 100 + l as u64, n as usize)
                })
                .collect();
            // Every shape plain and Zstandard-supercompressed.
            for zstd in [false, true] {
                let file = ktx2(vk, w, h, depth, layers, faces, &levels, zstd);
                let c = open(
                    vec![BytesSource::shared("g.ktx2", file)],
                    &OpenOptions::default(),
                );
                let t = &c.textures[0];
                let what = format!("vk {vk} {kind:?} x{slices} zstd {zstd}");
                assert_eq!(t.error, None, "{what}");
                assert_eq!(t.format, format, "{what}");
                assert_eq!(
                    (t.kind, t.slices, t.mips.len()),
                    (kind, slices, nlevels as usize)
                );
                assert_eq!(t.rows, RowOrder::TopFirst);
                assert_eq!(t.color_space == ColorSpace::Srgb, vk == 43 || vk == 146);
                for (l, level) in levels.iter().enumerate() {
                    let (mw, mh, md) = mip_dims(w, h, depth.max(1), l as u32);
                    let image = format.surface_size(mw, mh) as usize;
                    let count = if kind == TextureKind::Volume {
                        md
                    } else {
                        slices
                    };
                    assert_eq!(t.surface_count(l), count);
                    for s in 0..count as usize {
                        let (got, gw, gh) = c.read_surface(0, l, s as u32).unwrap();
                        assert_eq!((gw, gh), (mw, mh));
                        assert!(
                            got[..] == level[s * image..(s + 1) * image],
                            "{what} level {l} slice {s}"
                        );
                    }
                }
            }
        }
    }
}

#[test]
fn cli_census_lists_ktx2() {
    let dir = samples()
        .join("unity/UniversalGameExtraction_texture2ddecoder/resources/tests/textures/BC7.ktx2");
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_texscope"))
        .args(["census", dir.to_str().unwrap()])
        .output()
        .unwrap();
    let line: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    // Header values as in real_ktx2_samples.
    assert_eq!(line["engine"], "ktx");
    assert_eq!(line["format"], "BC7");
    assert_eq!(line["native_format"], 145);
    assert_eq!(line["name"], "BC7");
    assert_eq!(line["mips_present"], serde_json::json!([true]));
}

#[test]
fn generated_ktx1_read_back() {
    // (glType, glFormat, glInternalFormat): 0/0/GL_COMPRESSED_RGBA_S3TC_DXT5_EXT and
    // GL_UNSIGNED_BYTE/GL_RGBA/GL_RGBA8, from the GL registry.
    let bc3 = ([0, 0, 0x83F3], PixelFormat::BC3);
    let rgba8 = ([0x1401, 0x1908, 0x8058], PixelFormat::RGBA8);
    // (layers, faces, levels, kind, slices)
    let shapes = [
        (0, 1, 3, TextureKind::Tex2D, 1),
        (0, 6, 2, TextureKind::Cube, 6),
        (3, 1, 2, TextureKind::Array, 3),
        (2, 6, 2, TextureKind::Cube, 12),
    ];
    for big in [false, true] {
        for (gl, format) in [bc3, rgba8] {
            if big && format == PixelFormat::RGBA8 {
                continue;
            }
            for &(layers, faces, nlevels, kind, slices) in &shapes {
                let (w, h) = (12, 8);
                let levels: Vec<Vec<Vec<u8>>> = (0..nlevels)
                    .map(|l| {
                        let (mw, mh, _) = mip_dims(w, h, 1, l);
                        (0..slices)
                            .map(|s| {
                                random_bytes(
                                    (l * 100 + s) as u64,
                                    format.surface_size(mw, mh) as usize,
                                )
                            })
                            .collect()
                    })
                    .collect();
                let file = ktx1(gl, w, h, layers, faces, &levels, big);
                let c = open(
                    vec![BytesSource::shared("g.ktx", file)],
                    &OpenOptions::default(),
                );
                let what = format!("{format:?} {kind:?} x{slices} big {big}");
                assert!(c.problems.is_empty(), "{what}: {:?}", c.problems);
                let t = &c.textures[0];
                assert_eq!(t.error, None, "{what}");
                assert_eq!(t.format, format);
                assert_eq!(t.native_format, NativeFormat::Id(gl[2] as i64));
                assert_eq!(
                    (t.kind, t.slices, t.mips.len()),
                    (kind, slices, nlevels as usize),
                    "{what}"
                );
                for (l, images) in levels.iter().enumerate() {
                    for (s, img) in images.iter().enumerate() {
                        let (got, ..) = c.read_surface(0, l, s as u32).unwrap();
                        assert!(got == *img, "{what} level {l} slice {s}");
                    }
                }
            }
        }
    }
}

#[test]
fn ktx1_errors() {
    let rgb8 = [0x1401, 0x1907, 0x8051]; // GL_UNSIGNED_BYTE, GL_RGB, GL_RGB8
                                         // 13 texels x 3 bytes = 39-byte rows, padded to 40 by the KTX 1 row alignment.
    let file = ktx1(rgb8, 13, 2, 0, 1, &[vec![vec![0; 80]]], false);
    let c = open(
        vec![BytesSource::shared("p.ktx", file)],
        &OpenOptions::default(),
    );
    assert!(c.textures[0].error.as_deref().unwrap().contains("padded"));
    // A BC1 chain cut inside level 1: level 0 stays readable.
    let bc1 = [0, 0, 0x83F0];
    let levels = vec![
        vec![random_bytes(1, 32)],
        vec![random_bytes(2, 8)],
        vec![random_bytes(3, 8)],
    ];
    let mut file = ktx1(bc1, 8, 8, 0, 1, &levels, false);
    file.truncate(64 + 4 + 32 + 4 + 3);
    let c = open(
        vec![BytesSource::shared("c.ktx", file)],
        &OpenOptions::default(),
    );
    let t = &c.textures[0];
    assert_eq!(t.mips_present(), vec![true, false, false]);
    assert!(c.read_surface(0, 0, 0).is_ok());
    assert!(c.read_surface(0, 1, 0).is_err());
    // A wrong imageSize is a malformed file, named.
    let mut file = ktx1(bc1, 8, 8, 0, 1, &levels, false);
    file[64..68].copy_from_slice(&31u32.to_le_bytes());
    let c = open(
        vec![BytesSource::shared("s.ktx", file)],
        &OpenOptions::default(),
    );
    assert!(
        c.problems[0].error.contains("imageSize"),
        "{:?}",
        c.problems
    );
}
