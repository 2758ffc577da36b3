//! Generated Frostbite fixtures: a Texture header laid out per seed 001 (or another layout of the
//! notes) plus its chunk, raw or as a CAS block stream, and the images the pixels were made from.
//! No real header is public (issue 6), so tests and the page's demos build these at run time.
//!
//! Block formats are written as blocks whose decode is fixed by the format specifications alone
//! (equal endpoints, index 0), so the expected image is known without a reference encoder.

use super::cas;
use super::texture::{name_hash, HeaderLayout, MIP_SLOTS, RES_META_LEN};
use crate::codec::{Image, Pixels};
use crate::io::{Error, Result};

/// How the chunk file is stored.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Packing {
    /// The chunk's bytes as they are.
    Raw,
    /// A CAS block stream whose blocks use these types in turn (cas::BLOCK_*).
    Cas(&'static [u8]),
}

/// What to build. Formats are 2014.4 ordinals (seed 001's table and the notes' enum).
#[derive(Debug, Clone)]
pub struct Spec {
    /// Resource name; the header file is `<name>.res`.
    pub name: String,
    pub kind: u32,
    pub format: u32,
    pub width: u16,
    pub height: u16,
    pub depth: u16,
    pub slices: u16,
    pub mip_count: u8,
    pub first_mip: u8,
    pub flags: u16,
    /// Write the 16-byte resource metadata in front of the header.
    pub res_meta: bool,
    pub layout: HeaderLayout,
    pub packing: Packing,
    /// The chunk file holds only the mips from `first_mip` on (a bundle's tail, seed 001).
    pub tail_only: bool,
    /// Decompressed bytes per CAS block (notes: 64 KiB).
    pub block_size: u32,
    pub guid: [u8; 16],
}

/// 2014.4 ordinals the builder can make pixels for.
pub const FORMATS: &[(u32, &str)] = &[
    (18, "R8G8B8A8_UNORM"),
    (20, "R8G8B8A8_SRGB"),
    (23, "B8G8R8A8_UNORM"),
    (40, "R16G16B16A16_FLOAT"),
    (54, "BC1_UNORM"),
    (55, "BC1_SRGB"),
    (60, "BC3_UNORM"),
    (61, "BC3_SRGB"),
    (62, "BC4_UNORM"),
    (63, "BC5_UNORM"),
    (64, "BC6U_FLOAT"),
    (66, "BC7_UNORM"),
    (67, "BC7_SRGB"),
];

impl Spec {
    /// A Skate-layout (seed 001) texture with its full mip chain in a raw chunk; volumes get one
    /// mip (as the seed's nine volume textures), cubes six slices, arrays three.
    pub fn new(name: &str, kind: u32, format: u32, width: u16, height: u16) -> Spec {
        let chain = 16 - (width.max(height).max(1)).leading_zeros() as u8;
        let h = name_hash(name);
        Spec {
            name: name.to_string(),
            kind,
            format,
            width,
            height,
            depth: if kind == 2 { 4 } else { 1 },
            slices: match kind {
                1 => 6,
                3 => 3,
                _ => 1,
            },
            mip_count: if kind == 2 {
                1
            } else {
                chain.min(MIP_SLOTS as u8)
            },
            first_mip: 0,
            flags: 0,
            res_meta: true,
            layout: HeaderLayout::V12 { guid_at: 0x28 },
            packing: Packing::Raw,
            tail_only: false,
            block_size: 0x10000,
            guid: std::array::from_fn(|i| (h >> ((i % 4) * 8)) as u8 ^ (i as u8).wrapping_mul(29)),
        }
    }

    fn layers(&self) -> u32 {
        if self.kind == 2 {
            1
        } else {
            self.slices.max(1) as u32
        }
    }

    fn mip_dims(&self, m: u32) -> (u32, u32, u32) {
        let d = if self.kind == 2 { self.depth as u32 } else { 1 };
        crate::model::mip_dims(self.width as u32, self.height as u32, d, m)
    }
}

/// A built header + chunk and the images they were made from.
pub struct Fixture {
    pub spec: Spec,
    pub header_name: String,
    pub header: Vec<u8>,
    pub chunk_name: String,
    pub chunk: Vec<u8>,
    /// Bytes of one layer of each mip, as written in the header.
    pub mip_sizes: Vec<u32>,
    pub chunk_size: u32,
    /// `images[mip][i]`: i is the slice, or the depth slice of a volume.
    pub images: Vec<Vec<Image>>,
}

/// The GUID of the chunk as tools print it.
impl Fixture {
    pub fn guid_text(&self) -> String {
        super::guid_text(&self.spec.guid)
    }

    /// Bad sibling: the right chunk under another GUID's name.
    pub fn wrong_guid_chunk(&self) -> (String, Vec<u8>) {
        let mut g = self.spec.guid;
        g[15] ^= 0xFF;
        (
            format!("{}.chunk", super::guid_text(&g)),
            self.chunk.clone(),
        )
    }

    /// Bad sibling: the chunk cut short by `cut` bytes, under its right name.
    pub fn short_chunk(&self, cut: usize) -> (String, Vec<u8>) {
        let n = self.chunk.len().saturating_sub(cut);
        (self.chunk_name.clone(), self.chunk[..n].to_vec())
    }

    /// Bad header: the resource metadata's version word set to `version`.
    pub fn header_with_version(&self, version: u32) -> Vec<u8> {
        let mut h = self.header.clone();
        h[..4].copy_from_slice(&version.to_le_bytes());
        h
    }
}

/// Builds the header, chunk and expected images for `spec`.
pub fn build(spec: &Spec) -> Result<Fixture> {
    if !FORMATS.iter().any(|(o, _)| *o == spec.format) {
        return Err(Error::unsupported(format!(
            "the fixture builder makes no pixels for format ordinal {}",
            spec.format
        )));
    }
    if spec.mip_count == 0
        || spec.mip_count as usize > MIP_SLOTS
        || spec.first_mip >= spec.mip_count
    {
        return Err(Error::malformed("fixture spec: bad mip count or first mip"));
    }
    let layers = spec.layers();
    let mut images = Vec::new();
    let mut mip_sizes = Vec::new();
    let mut data = Vec::new();
    let mut mip_starts = Vec::new();
    for m in 0..spec.mip_count as u32 {
        let (w, h, d) = spec.mip_dims(m);
        let mut mip_images = Vec::new();
        let mut size = 0;
        mip_starts.push(data.len() as u64);
        for l in 0..layers {
            let before = data.len();
            for z in 0..d {
                let (bytes, img) = surface(spec.format, w, h, [m, l, z]);
                data.extend(bytes);
                mip_images.push(img);
            }
            size = (data.len() - before) as u32;
        }
        mip_sizes.push(size);
        images.push(mip_images);
    }
    let chunk_size = data.len() as u32;
    let base = if spec.tail_only {
        mip_starts[spec.first_mip as usize]
    } else {
        0
    };
    let logical = &data[base as usize..];
    let mut offsets = [0u32; 2];
    let chunk = match spec.packing {
        Packing::Raw => logical.to_vec(),
        Packing::Cas(types) => {
            let mut out = Vec::new();
            let mut starts = Vec::new();
            for (i, piece) in logical.chunks(spec.block_size.max(1) as usize).enumerate() {
                let t = types[i % types.len().max(1)];
                starts.push(out.len() as u32);
                let payload = encode(t, piece)?;
                let stored = if t == cas::BLOCK_NONE {
                    piece.len()
                } else {
                    payload.len()
                };
                out.extend(cas::write_header(piece.len() as u32, t, stored as u32));
                out.extend(payload);
            }
            if !spec.tail_only {
                for (k, o) in offsets.iter_mut().enumerate() {
                    if let Some(&start) = mip_starts.get(k + 1) {
                        *o = starts[(start / spec.block_size.max(1) as u64) as usize];
                    }
                }
            }
            out
        }
    };
    let header = header_bytes(spec, &mip_sizes, chunk_size, offsets);
    Ok(Fixture {
        spec: spec.clone(),
        header_name: format!("{}.res", spec.name),
        header,
        chunk_name: format!("{}.chunk", super::guid_text(&spec.guid)),
        chunk,
        mip_sizes,
        chunk_size,
        images,
    })
}

fn encode(kind: u8, piece: &[u8]) -> Result<Vec<u8>> {
    Ok(match kind {
        cas::BLOCK_NONE => piece.to_vec(),
        cas::BLOCK_ZLIB => miniz_oxide::deflate::compress_to_vec_zlib(piece, 6),
        cas::BLOCK_LZ4 => lz4_flex::compress(piece),
        cas::BLOCK_ZSTD => {
            ruzstd::encoding::compress_to_vec(piece, ruzstd::encoding::CompressionLevel::Fastest)
        }
        t => {
            return Err(Error::unsupported(format!(
                "the fixture builder cannot write {} blocks",
                cas::block_type_name(t)
            )))
        }
    })
}

fn header_bytes(spec: &Spec, mip_sizes: &[u32], chunk_size: u32, offsets: [u32; 2]) -> Vec<u8> {
    let p = spec.layout.pos();
    let len = match spec.layout {
        HeaderLayout::V12 { guid_at: 0x24 } => 144,
        HeaderLayout::V12 { guid_at } if guid_at >= 0x28 => guid_at + 0x8C,
        _ => p.guid + 100,
    };
    let mut h = vec![0u8; len];
    let mut put = |off: usize, bytes: &[u8]| h[off..off + bytes.len()].copy_from_slice(bytes);
    let version = match spec.layout {
        HeaderLayout::V10 => 10u32,
        HeaderLayout::V11 => 11,
        HeaderLayout::V12 { guid_at } if guid_at > 0x28 => 13,
        HeaderLayout::V12 { .. } => 12,
    };
    if let Some(v) = p.version {
        put(v, &version.to_le_bytes());
    }
    if let Some(o) = p.mip_offsets {
        put(o, &offsets[0].to_le_bytes());
        put(o + 4, &offsets[1].to_le_bytes());
    }
    put(p.kind, &spec.kind.to_le_bytes());
    put(p.format, &spec.format.to_le_bytes());
    if p.flags_u32 {
        put(p.flags, &(spec.flags as u32).to_le_bytes());
    } else {
        put(p.flags, &spec.flags.to_le_bytes());
    }
    for (k, v) in [spec.width, spec.height, spec.depth, spec.slices]
        .iter()
        .enumerate()
    {
        put(p.dims + 2 * k, &v.to_le_bytes());
    }
    put(p.mip_count, &[spec.mip_count, spec.first_mip]);
    if let Some(f) = p.floor {
        put(f, &[spec.first_mip, spec.mip_count]);
    }
    put(p.guid, &spec.guid);
    for (k, s) in mip_sizes.iter().enumerate() {
        put(p.guid + 16 + 4 * k, &s.to_le_bytes());
    }
    put(p.guid + 76, &chunk_size.to_le_bytes());
    put(p.guid + 80, &name_hash(&spec.name).to_le_bytes());
    let group_at = if p.h64_high {
        put(p.guid + 84, &0x5eed_u32.to_le_bytes());
        p.guid + 88
    } else {
        p.guid + 84
    };
    put(group_at, b"Fixture");
    if !spec.res_meta {
        return h;
    }
    let mut out = Vec::with_capacity(RES_META_LEN + h.len());
    out.extend(version.to_le_bytes());
    out.extend((spec.flags as u32).to_le_bytes());
    out.extend([0u8; 8]);
    out.extend(h);
    out
}

/// A distinct colour for block (bx, by) of mip m, layer l, depth slice z.
fn block_colour(bx: u32, by: u32, [m, l, z]: [u32; 3]) -> [u8; 4] {
    [
        (bx * 53 + m * 71 + z * 13) as u8,
        (by * 47 + l * 89 + z * 31) as u8,
        ((bx ^ by) * 29 + m * 11 + l * 7) as u8,
        255u8.wrapping_sub(((bx + by) * 17 + m * 5 + l * 3) as u8),
    ]
}

/// D3D UNORM conversion of an n-bit value to 8 bits: round(v * 255 / (2^n - 1)).
fn unorm8(v: u32, bits: u32) -> u8 {
    let max = (1u32 << bits) - 1;
    ((v * 255 * 2 + max) / (2 * max)) as u8
}

/// Stored bytes and expected decode of one w x h image.
fn surface(format: u32, w: u32, h: u32, at: [u32; 3]) -> (Vec<u8>, Image) {
    let [m, l, z] = at;
    let n = (w * h) as usize;
    if format == 40 {
        // RGBA16F: values exactly representable in half precision.
        let mut bytes = Vec::with_capacity(n * 8);
        let mut px = Vec::with_capacity(n * 4);
        for y in 0..h {
            for x in 0..w {
                let v = [
                    x as f32 * 0.125,
                    y as f32 * -0.25,
                    (m * 4 + l) as f32 + 0.5,
                    1.0 + z as f32 * 64.0,
                ];
                for c in v {
                    bytes.extend(half::f16::from_f32(c).to_le_bytes());
                }
                px.extend(v);
            }
        }
        return (bytes, image(w, h, Pixels::Rgba32F(px)));
    }
    if matches!(format, 18 | 20 | 23) {
        let mut bytes = Vec::with_capacity(n * 4);
        let mut px = Vec::with_capacity(n * 4);
        for y in 0..h {
            for x in 0..w {
                let c = [
                    (x * 37 + m * 50) as u8,
                    (y * 59 + l * 40) as u8,
                    (z * 23 + (x ^ y)) as u8,
                    255u8.wrapping_sub((m * 16 + l * 8) as u8),
                ];
                px.extend(c);
                bytes.extend(if format == 23 {
                    [c[2], c[1], c[0], c[3]]
                } else {
                    c
                });
            }
        }
        return (bytes, image(w, h, Pixels::Rgba8(px)));
    }
    let (bw, bh) = (w.div_ceil(4), h.div_ceil(4));
    let mut bytes = Vec::new();
    if format == 64 {
        let mut px = vec![0f32; n * 4];
        for by in 0..bh {
            for bx in 0..bw {
                let (block, texel) = bc6h_solid(block_colour(bx, by, at));
                bytes.extend(block);
                for y in by * 4..(by * 4 + 4).min(h) {
                    for x in bx * 4..(bx * 4 + 4).min(w) {
                        let i = ((y * w + x) * 4) as usize;
                        px[i..i + 4].copy_from_slice(&texel);
                    }
                }
            }
        }
        return (bytes, image(w, h, Pixels::Rgba32F(px)));
    }
    let mut px = vec![0u8; n * 4];
    for by in 0..bh {
        for bx in 0..bw {
            let c = block_colour(bx, by, at);
            let (block, texel) = solid_block(format, c, (bx + by) & 1);
            bytes.extend(block);
            for y in by * 4..(by * 4 + 4).min(h) {
                for x in bx * 4..(bx * 4 + 4).min(w) {
                    let i = ((y * w + x) * 4) as usize;
                    px[i..i + 4].copy_from_slice(&texel);
                }
            }
        }
    }
    (bytes, image(w, h, Pixels::Rgba8(px)))
}

fn image(width: u32, height: u32, pixels: Pixels) -> Image {
    Image {
        width,
        height,
        pixels,
    }
}

/// A BC6H (unsigned) block of one colour and its texel, per the D3D BC6H specification: mode 11
/// (mode bits 0b00011) stores two 10-bit RGB endpoints directly; index 0 gives endpoint 0, which
/// unquantizes to ((x << 16) + 0x8000) >> 10 (0 < x < 1023) and is scaled by 31/64 to half bits.
fn bc6h_solid(c: [u8; 4]) -> (Vec<u8>, [f32; 4]) {
    let x: [u32; 3] = std::array::from_fn(|k| ((c[k] as u32) << 2) | 1);
    let mut v: u128 = 0b00011;
    for (k, &e) in x.iter().enumerate() {
        v |= (e as u128) << (5 + 10 * k);
        v |= (e as u128) << (35 + 10 * k);
    }
    let t = |e: u32| {
        let unq = ((e << 16) + 0x8000) >> 10;
        half::f16::from_bits(((unq * 31) >> 6) as u16).to_f32()
    };
    (v.to_le_bytes().to_vec(), [t(x[0]), t(x[1]), t(x[2]), 1.0])
}

/// One 4x4 block of a single colour and the texel the specifications say it decodes to.
fn solid_block(format: u32, c: [u8; 4], p: u32) -> (Vec<u8>, [u8; 4]) {
    // BC1 colour: c0 == c1, indices 0 -> c0 expanded from 5:6:5 (D3D BC1; alpha 255).
    let (r5, g6, b5) = (c[0] as u32 >> 3, c[1] as u32 >> 2, c[2] as u32 >> 3);
    let c565 = ((r5 << 11) | (g6 << 5) | b5) as u16;
    let mut bc1 = Vec::with_capacity(8);
    bc1.extend(c565.to_le_bytes());
    bc1.extend(c565.to_le_bytes());
    bc1.extend([0u8; 4]);
    let rgb = [unorm8(r5, 5), unorm8(g6, 6), unorm8(b5, 5)];
    // BC4: red0 == red1, indices 0 -> red0 exactly.
    let bc4 = |v: u8| [v, v, 0, 0, 0, 0, 0, 0];
    match format {
        54 | 55 => (bc1, [rgb[0], rgb[1], rgb[2], 255]),
        60 | 61 => {
            let mut b = bc4(c[3]).to_vec();
            b.extend(bc1);
            (b, [rgb[0], rgb[1], rgb[2], c[3]])
        }
        62 => (bc4(c[0]).to_vec(), [c[0], 0, 0, 255]),
        63 => {
            let mut b = bc4(c[0]).to_vec();
            b.extend(bc4(c[1]));
            (b, [c[0], c[1], 0, 255])
        }
        _ => {
            // BC7 mode 6: 7-bit RGBA endpoints + a shared p-bit each; indices 0 give endpoint 0,
            // (c7 << 1) | p per channel.
            let c7: [u128; 4] = std::array::from_fn(|k| (c[k] >> 1) as u128);
            let mut v: u128 = 1 << 6;
            for (k, &e) in c7.iter().enumerate() {
                v |= e << (7 + 14 * k);
                v |= e << (14 + 14 * k);
            }
            v |= (p as u128) << 63;
            v |= (p as u128) << 64;
            let t = std::array::from_fn(|k| ((c7[k] as u8) << 1) | p as u8);
            (v.to_le_bytes().to_vec(), t)
        }
    }
}
