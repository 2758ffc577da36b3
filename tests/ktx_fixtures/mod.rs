//! KTX 1 and KTX 2 writers for generated fixtures, shared by tests/ktx.rs and
//! examples/fuzz_seeds.rs (which includes this file by path).
#![allow(dead_code)]

/// A KTX 2 file (no DFD) holding `levels` one after another, each level `layers x faces`
/// images, per the KTX 2.0 specification's layout; with `zstd`, each level is one Zstandard
/// frame (supercompressionScheme 2) made by ruzstd's encoder.
#[allow(clippy::too_many_arguments)]
pub fn ktx2(
    vk: u32,
    w: u32,
    h: u32,
    depth: u32,
    layers: u32,
    faces: u32,
    levels: &[Vec<u8>],
    zstd: bool,
) -> Vec<u8> {
    let packed: Vec<Vec<u8>> = levels
        .iter()
        .map(|l| {
            if zstd {
                ruzstd::encoding::compress_to_vec(
                    &l[..],
                    ruzstd::encoding::CompressionLevel::Fastest,
                )
            } else {
                l.clone()
            }
        })
        .collect();
    let kvd = b"KTXorientation\0rd\0";
    let mut kv = (kvd.len() as u32).to_le_bytes().to_vec();
    kv.extend_from_slice(kvd);
    while kv.len() % 4 != 0 {
        kv.push(0);
    }
    let index_end = 80 + 24 * levels.len();
    let kvd_offset = index_end;
    let mut offset = (kvd_offset + kv.len()) as u64;
    let mut b = vec![
        0xAB, 0x4B, 0x54, 0x58, 0x20, 0x32, 0x30, 0xBB, 0x0D, 0x0A, 0x1A, 0x0A,
    ];
    for v in [
        vk,
        1,
        w,
        h,
        depth,
        layers,
        faces,
        levels.len() as u32,
        zstd as u32 * 2,
    ] {
        b.extend_from_slice(&v.to_le_bytes());
    }
    for v in [0u32, 0, kvd_offset as u32, kv.len() as u32] {
        b.extend_from_slice(&v.to_le_bytes());
    }
    b.extend_from_slice(&[0; 16]);
    for (l, p) in levels.iter().zip(&packed) {
        for v in [offset, p.len() as u64, l.len() as u64] {
            b.extend_from_slice(&v.to_le_bytes());
        }
        offset += p.len() as u64;
    }
    b.extend_from_slice(&kv);
    for p in &packed {
        b.extend_from_slice(p);
    }
    b
}

/// A KTX 1 file per the KTX 1.1 specification: 64-byte header, no key/value data, then per
/// level imageSize (one face for a non-array cube, else the whole level) and the images.
pub fn ktx1(
    gl: [u32; 3],
    w: u32,
    h: u32,
    layers: u32,
    faces: u32,
    levels: &[Vec<Vec<u8>>],
    big: bool,
) -> Vec<u8> {
    let u32b = |v: u32| {
        if big {
            v.to_be_bytes()
        } else {
            v.to_le_bytes()
        }
    };
    let mut b = vec![
        0xAB, 0x4B, 0x54, 0x58, 0x20, 0x31, 0x31, 0xBB, 0x0D, 0x0A, 0x1A, 0x0A,
    ];
    let [gl_type, gl_format, gl_internal] = gl;
    for v in [
        0x0403_0201,
        gl_type,
        1,
        gl_format,
        gl_internal,
        gl_format,
        w,
        h,
        0,
        layers,
        faces,
        levels.len() as u32,
        0,
    ] {
        b.extend_from_slice(&u32b(v));
    }
    for images in levels {
        let non_array_cube = faces == 6 && layers == 0;
        let size = if non_array_cube {
            images[0].len()
        } else {
            images.iter().map(Vec::len).sum()
        };
        b.extend_from_slice(&u32b(size as u32));
        for img in images {
            b.extend_from_slice(img);
            while non_array_cube && b.len() % 4 != 0 {
                b.push(0);
            }
        }
        while b.len() % 4 != 0 {
            b.push(0);
        }
    }
    b
}
