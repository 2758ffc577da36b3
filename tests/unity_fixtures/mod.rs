//! A small Unity writer for generated fixtures: a serialized file holding one Texture2D (format
//! 17 without a type tree, or 22 with one) and a UnityFS bundle. Shared by tests and by
//! examples/fuzz_seeds.rs (which includes this file by path); Unity has no fixture builder in
//! the crate.
#![allow(dead_code)]

use texscope::unity::layout::texture_nodes;
use texscope::unity::serialized::Node;

// Written from the reader's own description of the formats (src/unity/serialized.rs,
// bundle.rs and the layout table in layout.rs, which come from the shared notes and samples).

/// One Texture2D's values, by field name; every other field is written as zero.
pub struct UnityTex<'a> {
    pub width: i32,
    pub height: i32,
    /// Unity TextureFormat id (seed 004: 4 RGBA32, 10 DXT1, 12 DXT5, 34 ETC_RGB4, 3 RGB24).
    pub format: i32,
    pub mips: i32,
    /// Pixels inside the object, or empty when `stream` names a .resS.
    pub image: &'a [u8],
    pub stream: Option<(&'a str, u64, u32)>,
}

/// What a serialized file holds besides the texture's values: the class written, its image count,
/// the header's target platform and the object's `m_PlatformBlob` (only where the version's layout
/// has it: 2020.2 and later).
pub struct Build<'a> {
    /// 28 Texture2D or 89 Cubemap (a Texture2D's fields under another root, as `texture_nodes`
    /// lays it out).
    pub class_id: i32,
    /// `m_ImageCount`: 1, or 6 for a cubemap.
    pub images: i32,
    /// Unity BuildTarget id (5 StandaloneWindows, 38 Switch).
    pub platform: i32,
    /// `m_PlatformBlob`'s bytes; empty on every platform but a console's.
    pub blob: &'a [u8],
    /// `m_CompleteImageSize` when not one image's share of the data.
    pub complete: Option<i64>,
}

/// A Windows build of one Texture2D without a platform blob, what [`unity_serialized`] writes.
pub const WINDOWS: Build<'static> = Build {
    class_id: 28,
    images: 1,
    platform: 5,
    blob: &[],
    complete: None,
};

/// Unity 6's 92-byte Switch `m_PlatformBlob` stating `block_height` (GOBs, a power of two) and the
/// padded surface size. The shared Foxiary blobs (Unity 6000.0.56f1, dumped with UnityPy 1.25.4)
/// read, as little-endian u32s: 0, 32, log2(block height) = 4, 0x10007, seventeen zeros, then the
/// padded size twice (bytes 84..88 and 88..92, both 1048576 for a 1024x1024 ASTC 4x4 single-mip
/// atlas). The other words are copied as those files have them; the reader uses bytes 8..12 (as
/// UnityPy does) and 84..88.
pub fn switch_blob(block_height: u32, padded: u32) -> Vec<u8> {
    assert!(block_height.is_power_of_two() && block_height <= 32);
    let mut words = [0u32; 23];
    words[1] = 32;
    words[2] = block_height.trailing_zeros();
    words[3] = 0x1_0007;
    words[21] = padded;
    words[22] = padded;
    words.iter().flat_map(|w| w.to_le_bytes()).collect()
}

/// Tiles a linear surface of `rows` rows of `row_bytes` bytes (rows of a format's blocks) as the
/// Switch GPU lays it out with one GOB per block (block height 1), from the textbook address
/// rather than from any library: a GOB is 64 bytes x 8 rows, GOBs run left to right then down
/// (each block of GOBs is one GOB high), and inside a GOB the byte at (x, y) sits at
/// (x % 64 / 32) * 256 + (y % 8 / 2) * 64 + (x % 32 / 16) * 32 + (y % 2) * 16 + x % 16 (16-byte
/// x 2-row sectors; the Tegra X1 Technical Reference Manual's block-linear example, pages
/// 1187-1188, which yuzu and tegra_swizzle also cite). Padding bytes are zero.
pub fn tile_one_gob(linear: &[u8], row_bytes: usize, rows: usize) -> Vec<u8> {
    assert_eq!(linear.len(), row_bytes * rows);
    let gobs_x = row_bytes.div_ceil(64);
    let mut out = vec![0u8; gobs_x * rows.div_ceil(8) * 512];
    for y in 0..rows {
        for x in 0..row_bytes {
            let gob = (y / 8) * gobs_x + x / 64;
            let (gx, gy) = (x % 64, y % 8);
            let at =
                (gx / 32) * 256 + (gy / 2) * 64 + (gx % 32 / 16) * 32 + (gy % 2) * 16 + gx % 16;
            out[gob * 512 + at] = linear[y * row_bytes + x];
        }
    }
    out
}

/// The value of metadata `key` of a texture the reader listed.
pub fn meta<'a>(t: &'a texscope::Texture, key: &str) -> Option<&'a str> {
    t.metadata
        .iter()
        .find(|(k, _)| k == key)
        .map(|(_, v)| v.as_str())
}

pub fn prim_size(t: &str) -> usize {
    match t {
        "bool" | "char" | "UInt8" | "SInt8" => 1,
        "UInt16" | "SInt16" | "short" | "unsigned short" => 2,
        "UInt64" | "SInt64" | "long long" | "unsigned long long" | "double" => 8,
        _ => 4,
    }
}

/// Serializes `tex` by walking the flattened nodes (Unity's order and alignment rules).
pub fn unity_object(nodes: &[Node], tex: &UnityTex) -> Vec<u8> {
    unity_object_for(nodes, tex, &WINDOWS)
}

/// [`unity_object`] for `build`: its image count, cube dimension, m_CompleteImageSize and
/// `m_PlatformBlob`.
pub fn unity_object_for(nodes: &[Node], tex: &UnityTex, build: &Build) -> Vec<u8> {
    let mut b: Vec<u8> = Vec::new();
    let align = |b: &mut Vec<u8>| {
        while b.len() % 4 != 0 {
            b.push(0);
        }
    };
    let string = |b: &mut Vec<u8>, s: &str| {
        b.extend((s.len() as i32).to_le_bytes());
        b.extend(s.as_bytes());
    };
    let mut i = 1; // skip the root
    while i < nodes.len() {
        let n = &nodes[i];
        let children = nodes[i + 1..]
            .iter()
            .take_while(|c| c.level > n.level)
            .count();
        match n.type_name.as_str() {
            "string" => {
                let v = match n.name.as_str() {
                    "m_Name" => "T_Fuzz",
                    "path" => tex.stream.map_or("", |s| s.0),
                    _ => "",
                };
                string(&mut b, v);
                align(&mut b);
                i += 1 + children;
                continue;
            }
            "TypelessData" => {
                b.extend((tex.image.len() as i32).to_le_bytes());
                b.extend(tex.image);
                align(&mut b);
                i += 1 + children;
                continue;
            }
            "vector" => {
                // `vector { Array { int size, UInt8 data } }`: the count, the bytes, aligned.
                let v: &[u8] = if n.name == "m_PlatformBlob" {
                    build.blob
                } else {
                    &[]
                };
                b.extend((v.len() as i32).to_le_bytes());
                b.extend(v);
                align(&mut b);
                i += 1 + children;
                continue;
            }
            _ if children > 0 => {
                i += 1;
                continue;
            }
            t => {
                let v: i64 = match n.name.as_str() {
                    "m_Width" => tex.width as i64,
                    "m_Height" => tex.height as i64,
                    // One image's bytes: the data holds m_ImageCount of them.
                    "m_CompleteImageSize" => {
                        let all = tex.image.len().max(tex.stream.map_or(0, |s| s.2 as usize));
                        build
                            .complete
                            .unwrap_or((all / build.images.max(1) as usize) as i64)
                    }
                    "m_TextureFormat" => tex.format as i64,
                    "m_MipCount" => tex.mips as i64,
                    "m_MipMap" => (tex.mips > 1) as i64,
                    "m_ImageCount" => build.images as i64,
                    // Unity's TextureDimension: 2 Tex2D, 4 Cube.
                    "m_TextureDimension" => {
                        if build.class_id == 89 {
                            4
                        } else {
                            2
                        }
                    }
                    "m_ColorSpace" => 1,
                    "offset" => tex.stream.map_or(0, |s| s.1 as i64),
                    "size" => tex.stream.map_or(0, |s| s.2 as i64),
                    _ => 0,
                };
                b.extend(&v.to_le_bytes()[..prim_size(t)]);
            }
        }
        if n.align() {
            align(&mut b);
        }
        i += 1;
    }
    b
}

/// A serialized file (format 17 without a type tree, or 22 with one) holding one Texture2D.
pub fn unity_serialized(version: &str, format: u32, tex: &UnityTex) -> Vec<u8> {
    unity_serialized_for(version, format, tex, &WINDOWS)
}

/// [`unity_serialized`] for `build`: its target platform in the header, its `m_PlatformBlob` in
/// the object.
pub fn unity_serialized_for(version: &str, format: u32, tex: &UnityTex, build: &Build) -> Vec<u8> {
    let nodes = texture_nodes(build.class_id, version).expect("layout for the version");
    let object = unity_object_for(&nodes, tex, build);
    let type_tree = format >= 22;
    let mut m: Vec<u8> = Vec::new();
    m.extend(version.as_bytes());
    m.push(0);
    m.extend(build.platform.to_le_bytes()); // target platform (BuildTarget)
    m.push(type_tree as u8);
    m.extend(1i32.to_le_bytes()); // one type
    m.extend(build.class_id.to_le_bytes());
    m.push(0); // isStrippedType
    m.extend((-1i16).to_le_bytes()); // scriptTypeIndex
    m.extend([0u8; 16]); // old type hash
    if type_tree {
        // Blob tree (format 19+): 32-byte node records, then the string buffer.
        let mut strings: Vec<u8> = Vec::new();
        let mut recs: Vec<u8> = Vec::new();
        let mut intern = |s: &str| {
            let at = strings.len() as u32;
            strings.extend(s.as_bytes());
            strings.push(0);
            at
        };
        for (k, n) in nodes.iter().enumerate() {
            let (t, nm) = (intern(&n.type_name), intern(&n.name));
            recs.extend(1u16.to_le_bytes());
            recs.push(n.level);
            recs.push(n.is_array as u8);
            recs.extend(t.to_le_bytes());
            recs.extend(nm.to_le_bytes());
            recs.extend(n.byte_size.to_le_bytes());
            recs.extend((k as i32).to_le_bytes());
            recs.extend(n.meta_flag.to_le_bytes());
            recs.extend(0u64.to_le_bytes());
        }
        m.extend((nodes.len() as i32).to_le_bytes());
        m.extend((strings.len() as i32).to_le_bytes());
        m.extend(recs);
        m.extend(strings);
        m.extend(0i32.to_le_bytes()); // type dependencies (format 21+)
    }
    let header_len = if format >= 22 { 48 } else { 20 };
    m.extend(1i32.to_le_bytes()); // one object
    while (header_len + m.len()) % 4 != 0 {
        m.push(0);
    }
    m.extend(1i64.to_le_bytes()); // path id
    if format >= 22 {
        m.extend(0u64.to_le_bytes());
    } else {
        m.extend(0u32.to_le_bytes());
    }
    m.extend((object.len() as u32).to_le_bytes());
    m.extend(0i32.to_le_bytes()); // type index
    m.extend(0i32.to_le_bytes()); // script types
    m.extend(0i32.to_le_bytes()); // externals
    let data_offset = (header_len + m.len()).div_ceil(16) * 16;
    let total = data_offset + object.len();
    let mut f: Vec<u8> = Vec::new();
    if format >= 22 {
        f.extend([0u8; 8]);
        f.extend(format.to_be_bytes());
        f.extend([0u8; 4]);
        f.extend([0u8; 4]); // little-endian, reserved
        f.extend((m.len() as u32).to_be_bytes());
        f.extend((total as u64).to_be_bytes());
        f.extend((data_offset as u64).to_be_bytes());
        f.extend([0u8; 8]);
    } else {
        f.extend((m.len() as u32).to_be_bytes());
        f.extend((total as u32).to_be_bytes());
        f.extend(format.to_be_bytes());
        f.extend((data_offset as u32).to_be_bytes());
        f.extend([0u8; 4]);
    }
    f.extend(m);
    f.resize(data_offset, 0);
    f.extend(object);
    f
}

/// A UnityFS bundle (format 6) of `entries`, in one block of compression `method` (0 none,
/// 2 LZ4), block info uncompressed right after the header.
pub fn unityfs(version: &str, entries: &[(&str, &[u8])], method: u16) -> Vec<u8> {
    unityfs_claiming(version, entries, method, None)
}

/// [`unityfs`] whose block info states `claim` as the block's uncompressed size when given (a
/// hostile header). Method 1 (LZMA) stores the entries' bytes behind LZMA properties as they
/// are, not as an LZMA stream: enough for a test of what a bad stream costs.
pub fn unityfs_claiming(
    version: &str,
    entries: &[(&str, &[u8])],
    method: u16,
    claim: Option<u32>,
) -> Vec<u8> {
    let mut data: Vec<u8> = Vec::new();
    let mut dir: Vec<u8> = Vec::new();
    for (path, bytes) in entries {
        dir.extend((data.len() as u64).to_be_bytes());
        dir.extend((bytes.len() as u64).to_be_bytes());
        dir.extend(4u32.to_be_bytes());
        dir.extend(path.as_bytes());
        dir.push(0);
        data.extend(*bytes);
    }
    let stored = match method {
        2 => lz4_flex::block::compress(&data),
        1 => {
            // lc=3 lp=0 pb=2 and a 64 KiB dictionary (the LZMA SDK's defaults).
            let mut s = vec![0x5D, 0, 0, 1, 0];
            s.extend(&data);
            s
        }
        _ => data.clone(),
    };
    let mut info = vec![0u8; 16];
    info.extend(1i32.to_be_bytes());
    info.extend(claim.unwrap_or(data.len() as u32).to_be_bytes());
    info.extend((stored.len() as u32).to_be_bytes());
    info.extend(method.to_be_bytes());
    info.extend((entries.len() as i32).to_be_bytes());
    info.extend(dir);
    let mut f = b"UnityFS\0".to_vec();
    f.extend(6u32.to_be_bytes());
    f.extend(b"5.x.x\0");
    f.extend(version.as_bytes());
    f.push(0);
    let total_at = f.len();
    f.extend(0u64.to_be_bytes());
    f.extend((info.len() as u32).to_be_bytes());
    f.extend((info.len() as u32).to_be_bytes());
    f.extend(0u32.to_be_bytes()); // flags: info not compressed, after the header
    f.extend(info);
    f.extend(stored);
    let total = f.len() as u64;
    f[total_at..total_at + 8].copy_from_slice(&total.to_be_bytes());
    f
}

/// Side of the texture [`sparse_unity`] writes (RGBA32, one mip: 4 MiB).
pub const SPARSE_SIDE: u32 = 1024;
/// Where [`sparse_unity`] puts the pixels: past 4 GiB and aligned to nothing, so a 32-bit offset
/// anywhere on the way would miss them.
pub const SPARSE_OFFSET: u64 = (4 << 30) + (512 << 20) + 12_345;

/// Issue 8's "texture in a 4 GiB file": writes `big.assets` (Unity 2020.3, format 22, one
/// SPARSE_SIDE² RGBA32 Texture2D streamed from `big.resS`) and a sparse `big.resS` of 4.5 GiB
/// (set_len; only the texture's bytes are written, at SPARSE_OFFSET). Returns the pixels as
/// stored (rows bottom first, Unity's order) and the serialized file's length. Used by
/// tests/cli.rs and, through examples/sparse_fixture.rs, by tests/browser/ranges.test.mjs.
pub fn sparse_unity(dir: &std::path::Path) -> std::io::Result<(Vec<u8>, u64)> {
    use std::io::{Seek, SeekFrom, Write};
    let n = (SPARSE_SIDE * SPARSE_SIDE * 4) as usize;
    let mut rng = texscope::fixtures::unreal::Rng(0x5EED_4617);
    let mut pixels = vec![0u8; n];
    rng.fill(&mut pixels);
    let tex = UnityTex {
        width: SPARSE_SIDE as i32,
        height: SPARSE_SIDE as i32,
        format: 4, // RGBA32 (seed 004)
        mips: 1,
        image: &[],
        stream: Some(("big.resS", SPARSE_OFFSET, n as u32)),
    };
    let assets = unity_serialized("2020.3.0f1", 22, &tex);
    std::fs::write(dir.join("big.assets"), &assets)?;
    let mut f = std::fs::File::create(dir.join("big.resS"))?;
    f.set_len(SPARSE_OFFSET + n as u64 + (1 << 20))?;
    f.seek(SeekFrom::Start(SPARSE_OFFSET))?;
    f.write_all(&pixels)?;
    Ok((pixels, assets.len() as u64))
}
