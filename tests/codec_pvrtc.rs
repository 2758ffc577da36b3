//! PVRTC1 2 bpp / 4 bpp against independent references:
//! - random blocks (tests/vectors/gen_pvrtc.py): every bit random, so both modulation modes,
//!   punch-through, the 2 bpp H/V/both interpolation flags, opaque and translucent colours occur;
//!   expected RGBA8 from PyPI texture2ddecoder 1.0.6 (Perfare's C++ PVRTC decoder); bit-exact.
//! - real files from shared/samples (read in place): PVRTexTool's PVRTCI_*.ktx2 of ferris_512.png
//!   (UniversalGameExtraction_texture2ddecoder) and AssetRipper_TextureDecoder's Unity Android
//!   Logo_09/10/13/14 (PVRTC 4/2 bpp RGBA/RGB, with Logo_00 the same logo as BGRA32) and
//!   Pvrtc/test.pvrtc4: the SHA-256 of texture2ddecoder 1.0.6's RGBA output of mip 0 must equal ours,
//!   and PSNR against the source image is recorded (measured with texture2ddecoder, 2026-12-02).
//! - images smaller than the 2x2 block minimum: the top-left corner of the minimum-size decode of
//!   the same blocks (PVRTC specification: such mips are stored as the minimum grid).

mod common;
use common::{ferris_512, psnr, samples};
use sha2::{Digest, Sha256};
use std::path::{Path, PathBuf};
use texscope::codec::{decode_surface, PixelFormat as PF, Pixels};
use texscope::io::{ErrorKind, Limits};

fn rgba8(format: PF, w: u32, h: u32, data: &[u8]) -> Vec<u8> {
    match decode_surface(format, w, h, data, &Limits::default())
        .unwrap()
        .pixels
    {
        Pixels::Rgba8(p) => p,
        other => panic!("PVRTC must decode to RGBA8, got {other:?}"),
    }
}

fn vector(name: &str) -> (u32, u32, Vec<u8>, Vec<u8>) {
    let path =
        Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("tests/vectors/pvrtc_{name}.bin"));
    let all = std::fs::read(&path).expect("vector file");
    let w = u32::from_le_bytes(all[0..4].try_into().unwrap());
    let h = u32::from_le_bytes(all[4..8].try_into().unwrap());
    let n = (w * h * 4) as usize;
    (
        w,
        h,
        all[8..all.len() - n].to_vec(),
        all[all.len() - n..].to_vec(),
    )
}

#[test]
fn random_blocks_bit_exact_with_texture2ddecoder() {
    for (name, rgb, rgba) in [
        ("4bpp_32x64", PF::PVRTC4RGB, PF::PVRTC4RGBA),
        ("4bpp_64x16", PF::PVRTC4RGB, PF::PVRTC4RGBA),
        ("4bpp_8x8", PF::PVRTC4RGB, PF::PVRTC4RGBA),
        ("2bpp_128x32", PF::PVRTC2RGB, PF::PVRTC2RGBA),
        ("2bpp_32x64", PF::PVRTC2RGB, PF::PVRTC2RGBA),
        ("2bpp_16x8", PF::PVRTC2RGB, PF::PVRTC2RGBA),
    ] {
        let (w, h, data, expected) = vector(name);
        for f in [rgb, rgba] {
            let got = rgba8(f, w, h, &data);
            if let Some(i) = (0..got.len()).find(|&i| got[i] != expected[i]) {
                let t = i as u32 / 4;
                panic!(
                    "{name} {}: texel ({}, {}) channel {}: ours {} reference {}",
                    f.name(),
                    t % w,
                    t / w,
                    i % 4,
                    got[i],
                    expected[i]
                );
            }
        }
    }
}

#[test]
fn smaller_than_minimum_is_the_corner_of_the_minimum_grid() {
    for (name, f, sizes) in [
        (
            "4bpp_8x8",
            PF::PVRTC4RGBA,
            &[(1, 1), (2, 2), (4, 4), (8, 4), (3, 7)][..],
        ),
        (
            "2bpp_16x8",
            PF::PVRTC2RGBA,
            &[(1, 1), (8, 4), (16, 2), (5, 8)][..],
        ),
    ] {
        let (w, h, data, expected) = vector(name);
        for &(sw, sh) in sizes {
            let got = rgba8(f, sw, sh, &data);
            for y in 0..sh as usize {
                let want = &expected[y * w as usize * 4..][..sw as usize * 4];
                assert_eq!(
                    &got[y * sw as usize * 4..][..sw as usize * 4],
                    want,
                    "{name} at {sw}x{sh} row {y}"
                );
            }
        }
        let _ = h;
    }
}

#[test]
fn non_power_of_two_is_a_clear_error() {
    // PVRTC1 twiddles blocks over a power-of-two grid (specification); 24x24 is 6x6 blocks.
    let e =
        decode_surface(PF::PVRTC4RGBA, 24, 24, &[0; 6 * 6 * 8], &Limits::default()).unwrap_err();
    assert_eq!(e.kind, ErrorKind::Unsupported);
    assert!(e.to_string().contains("power-of-two"), "{e}");
    let e = decode_surface(PF::PVRTC2RGB, 64, 64, &[0; 100], &Limits::default()).unwrap_err();
    assert_eq!(e.kind, ErrorKind::Truncated);
}

fn sha(p: &[u8]) -> String {
    Sha256::digest(p)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

fn swap_bgra(mut p: Vec<u8>) -> Vec<u8> {
    for t in p.chunks_exact_mut(4) {
        t.swap(0, 2);
    }
    p
}

#[test]
fn real_files_match_texture2ddecoder_and_reach_its_psnr() {
    let root = samples();
    let unity = root.join("unity");
    let t2d = unity.join("UniversalGameExtraction_texture2ddecoder/resources/tests");
    let ferris = ferris_512(&t2d);
    let ar = unity.join("AssetRipper_TextureDecoder/TestFiles");
    // Logo_00 is the BGRA32 original of the Android logos (its .json says Format BGRA32_14, 512x512).
    let logo = swap_bgra(std::fs::read(ar.join("Android/Logo_00")).unwrap());
    // (file, format, source, channels, texture2ddecoder's PSNR in dB, SHA-256 of its RGBA output)
    type Case<'a> = (PathBuf, PF, Option<&'a [u8]>, &'a [usize], f64, &'a str);
    let rgb: &[usize] = &[0, 1, 2];
    let rgba: &[usize] = &[0, 1, 2, 3];
    let tex = t2d.join("textures");
    let cases: Vec<Case> = vec![
        (
            tex.join("PVRTCI_2bpp_RGB.ktx2"),
            PF::PVRTC2RGB,
            Some(&ferris),
            rgb,
            21.814,
            "9c3c3c66a07fcbd731990a11178e08897a542b81a66dd746c5a8947ba91db47e",
        ),
        (
            tex.join("PVRTCI_2bpp_RGBA.ktx2"),
            PF::PVRTC2RGBA,
            Some(&ferris),
            rgba,
            21.880,
            "0b2d9de6950bc449ab80e91c1b1e977194e5b65896994b35b03ed9bd7e32bc29",
        ),
        (
            tex.join("PVRTCI_4bpp_RGB.ktx2"),
            PF::PVRTC4RGB,
            Some(&ferris),
            rgb,
            21.867,
            "191f7314d8042fa1ca5415609b6a3f24ea5ba793ad62218451c238cfc0f99702",
        ),
        (
            tex.join("PVRTCI_4bpp_RGBA.ktx2"),
            PF::PVRTC4RGBA,
            Some(&ferris),
            rgba,
            22.637,
            "ecef7d55fb8e4ad9bbf7d9613d7de78a868b349aa1041c005fe2e73bd04eaefd",
        ),
        (
            ar.join("Android/Logo_09"),
            PF::PVRTC4RGBA,
            Some(&logo),
            rgba,
            45.282,
            "9817740c949f555bd8fd7811bded6b85416fe5968b08fba895c0fa108dfa6223",
        ),
        (
            ar.join("Android/Logo_10"),
            PF::PVRTC2RGBA,
            Some(&logo),
            rgba,
            42.587,
            "d59a0f5bb01888f0abad57cecc9d380b5d749b942f894eed19964a8a8a3c83f2",
        ),
        (
            ar.join("Android/Logo_13"),
            PF::PVRTC4RGB,
            Some(&logo),
            rgb,
            44.033,
            "9817740c949f555bd8fd7811bded6b85416fe5968b08fba895c0fa108dfa6223",
        ),
        (
            ar.join("Android/Logo_14"),
            PF::PVRTC2RGB,
            Some(&logo),
            rgb,
            41.338,
            "d59a0f5bb01888f0abad57cecc9d380b5d749b942f894eed19964a8a8a3c83f2",
        ),
        // No source image ships with this one: the reference's hash only.
        (
            ar.join("Pvrtc/test.pvrtc4"),
            PF::PVRTC4RGBA,
            None,
            rgba,
            0.0,
            "3fc2741fa6b998f3f4e3dfb0a4cadc13b51d7e147eb3b501ce9e610b2d6fa5ac",
        ),
    ];
    for (path, f, source, channels, ref_psnr, ref_sha) in cases {
        let d = std::fs::read(&path).unwrap();
        let data = if path.extension().is_some_and(|e| e == "ktx2") {
            // Level 0 of an uncompressed KTX2: level index at byte 80 (KTX 2.0 section 3).
            assert_eq!(u32::from_le_bytes(d[44..48].try_into().unwrap()), 0);
            let off = u64::from_le_bytes(d[80..88].try_into().unwrap()) as usize;
            let len = u64::from_le_bytes(d[88..96].try_into().unwrap()) as usize;
            d[off..off + len].to_vec()
        } else {
            d
        };
        let got = rgba8(f, 512, 512, &data);
        assert_eq!(
            sha(&got),
            ref_sha,
            "{path:?}: differs from texture2ddecoder"
        );
        if let Some(src) = source {
            let p = psnr(&got, src, channels);
            eprintln!("{}: {p:.3} dB", path.display());
            assert!(p >= ref_psnr - 0.05, "{path:?}: {p:.3} dB < {ref_psnr}");
        }
    }
}
