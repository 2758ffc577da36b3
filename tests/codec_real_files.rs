//! Real compressed files from shared/samples (read in place), decoded through our codecs.
//! - UniversalGameExtraction_texture2ddecoder/resources/tests: ETC/EAC .ktx2 (PVRTexTool) and ATC .dds
//!   (Compressonator) of ferris_512.png. PSNR against the PNG is asserted not below what PyPI
//!   texture2ddecoder 1.0.6 reaches on the same file (measured 2026-12-02, figures below), less 0.05 dB.
//! - AssetRipper_TextureDecoder/TestFiles/Atc: 256x256 ATC with AssetRipper's own BGRA decode
//!   beside it; must match exactly.
//!
//! - The same folder's ASTC_*.ktx2 (every 2D footprint, 512x512 LDR): our RGBA8 decode must hash
//!   equal to astcenc's own decode of the same file (PyPI astc-encoder-py 0.1.12, LDR profile, RGBA8
//!   output, computed once on 2026-12-02, hashes below), and its RGBA PSNR against ferris_512.png must
//!   be astcenc's figure (22-23 dB: the files' alpha-0 texels carry other colours than the PNG).
//!   AssetRipper's TestFiles/Astc/test.astc is raw blocks with no size or footprint beside it, so it
//!   is not used.
//!
//! Skipped with a message if the samples folder is absent.

mod common;
use common::{ferris_512, psnr, samples};
use std::path::Path;
use texscope::codec::{decode_surface, PixelFormat as PF, Pixels};
use texscope::io::Limits;

fn rgba8(format: PF, w: u32, h: u32, data: &[u8]) -> Vec<u8> {
    match decode_surface(format, w, h, data, &Limits::default())
        .unwrap()
        .pixels
    {
        Pixels::Rgba8(p) => p,
        Pixels::Rgba16(p) => p.iter().map(|&v| (v >> 8) as u8).collect(),
        Pixels::Rgba32F(p) => p.iter().map(|&v| (v * 255.0).round() as u8).collect(),
    }
}

/// Level 0 of a KTX2 file without supercompression: the level index starts at byte 80
/// (byteOffset u64, byteLength u64), KTX 2.0 specification section 3.
fn ktx2_level0(path: &Path) -> Vec<u8> {
    let d = std::fs::read(path).unwrap();
    assert_eq!(&d[..12], b"\xABKTX 20\xBB\r\n\x1A\n", "{path:?}");
    assert_eq!(u32::from_le_bytes(d[44..48].try_into().unwrap()), 0);
    let off = u64::from_le_bytes(d[80..88].try_into().unwrap()) as usize;
    let len = u64::from_le_bytes(d[88..96].try_into().unwrap()) as usize;
    d[off..off + len].to_vec()
}

#[test]
fn etc_eac_atc_files_reach_reference_psnr() {
    let root = samples();
    let dir = root.join("unity/UniversalGameExtraction_texture2ddecoder/resources/tests");
    let src = ferris_512(&dir);
    let rgb: &[usize] = &[0, 1, 2];
    let rgba: &[usize] = &[0, 1, 2, 3];
    // (file, format, channels compared, texture2ddecoder's PSNR in dB)
    let cases: [(&str, PF, &[usize], f64); 8] = [
        ("ETC1_RGB.ktx2", PF::ETC1, rgb, 31.284),
        ("ETC2_RGB.ktx2", PF::ETC2RGB, rgb, 21.845),
        ("ETC2_RGBA.ktx2", PF::ETC2RGBA8, rgba, 20.302),
        // Alpha only: transparent punch-through texels are (0,0,0,0) by the ETC2 definition, where
        // texture2ddecoder keeps a colour, so RGB PSNR against the PNG is not comparable.
        ("ETC2_RGB_A1.ktx2", PF::ETC2RGBA1, &[3], 31.529),
        ("EAC_R11.ktx2", PF::EACR11, &[0], 27.447),
        ("EAC_RG11.ktx2", PF::EACRG11, &[0, 1], 20.138),
        ("ATC_RGB.dds", PF::ATCRGB, rgb, 42.953),
        (
            "ATC_RGBA_Interpolated.dds",
            PF::ATCRGBAInterpolated,
            rgba,
            43.949,
        ),
    ];
    for (name, format, channels, reference) in cases {
        let path = dir.join("textures").join(name);
        let data = if name.ends_with(".dds") {
            std::fs::read(&path).unwrap()[128..].to_vec()
        } else {
            ktx2_level0(&path)
        };
        let p = psnr(&rgba8(format, 512, 512, &data), &src, channels);
        eprintln!("{name}: {p:.3} dB (texture2ddecoder {reference})");
        assert!(p >= reference - 0.05, "{name}: {p:.3} dB < {reference}");
    }
}

#[test]
fn atc_matches_assetripper_decode() {
    let root = samples();
    let dir = root.join("unity/AssetRipper_TextureDecoder/TestFiles/Atc");
    for (name, format) in [
        ("atc_rgb4", PF::ATCRGB),
        ("atc_rgba8", PF::ATCRGBAInterpolated),
    ] {
        let data = std::fs::read(dir.join(format!("test.{name}"))).unwrap();
        let bgra = std::fs::read(dir.join(format!("test.{name}_decoded"))).unwrap();
        let got = rgba8(format, 256, 256, &data);
        for (i, (g, e)) in got.chunks_exact(4).zip(bgra.chunks_exact(4)).enumerate() {
            assert_eq!(g, [e[2], e[1], e[0], e[3]], "{name}: texel {i}");
        }
    }
}

#[test]
fn astc_ktx2_files_equal_astcenc_decode() {
    use sha2::{Digest, Sha256};
    let root = samples();
    let dir = root.join("unity/UniversalGameExtraction_texture2ddecoder/resources/tests");
    let src = ferris_512(&dir);
    // (footprint, astcenc's RGBA PSNR against the PNG in dB, SHA-256 of astcenc's RGBA8 decode)
    let cases: [(u8, u8, f64, &str); 14] = [
        (
            4,
            4,
            23.144,
            "d64001dee23e4ef471625a7be82da343ec1c19275f5c3fac6195e4e67a6e443f",
        ),
        (
            5,
            4,
            23.108,
            "04ae788c78c7d12f02c20ea3787e09c69d1364f86c44e3baa3a672e772d9ec2f",
        ),
        (
            5,
            5,
            23.071,
            "8a7125696db6355f48b45aa64b3514f09080ed56724d5054fcc24bb8bc81b77b",
        ),
        (
            6,
            5,
            23.043,
            "41d0b24196fede826fdb39af11c40cb2847f78310d40b595388b09684bc6c4d6",
        ),
        (
            6,
            6,
            23.024,
            "b8397d5371a89a417498704d8c2168e0893a88e07a676d4e9dcb908ce590c4eb",
        ),
        (
            8,
            5,
            22.977,
            "50b9d792f7094e7c3c1c251d35f4c2f9625cbdaf5b83de33b049729b25afb66e",
        ),
        (
            8,
            6,
            22.916,
            "2d185d2dd09561faaac9129b414a0c330977f586ec76761e998a63204713ae1f",
        ),
        (
            8,
            8,
            22.725,
            "c54520e97ebe08a5b0d0b212afa41f7b5dcc1bc7c3dce9605c16695887d2dc07",
        ),
        (
            10,
            5,
            22.947,
            "44f08add106b9fec3722426683990dcaea55094f736f43f197ff2fbe40af382a",
        ),
        (
            10,
            6,
            22.867,
            "c0b1c1cb5fbf9386ecea9bf4bfc7354599cc50a15605bb21337ed7642bb923c0",
        ),
        (
            10,
            8,
            22.518,
            "79a14ce2344b9808a9e5cd7429b5f9c434107af11ab6cd38fcb9bcf18bd86b9b",
        ),
        (
            10,
            10,
            22.306,
            "f9a1fdacd746eb5af9a1bcf0ee5e762edd7c3578f0143cc5896007e24c812824",
        ),
        (
            12,
            10,
            22.183,
            "89a707837dab4e6ae8ec9f5b709ed4e3d4f08114270cc9f79a7f62c32a5e362b",
        ),
        (
            12,
            12,
            22.014,
            "ac541fca3b485a0568a75dfedb81d591651c0bef21f20aedb4fdb1fec9aa5c7a",
        ),
    ];
    for (bw, bh, reference, hash) in cases {
        let name = format!("ASTC_{bw}x{bh}.ktx2");
        let data = ktx2_level0(&dir.join("textures").join(&name));
        let f = PF::ASTC {
            w: bw,
            h: bh,
            hdr: false,
        };
        let got = rgba8(f, 512, 512, &data);
        let p = psnr(&got, &src, &[0, 1, 2, 3]);
        eprintln!("{name}: {p:.3} dB (astcenc {reference})");
        let digest: String = Sha256::digest(&got)
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect();
        assert_eq!(digest, hash, "{name}: decode differs from astcenc's");
        assert!((p - reference).abs() < 0.001, "{name}: {p:.3} dB");
    }
}
