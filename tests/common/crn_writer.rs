//! A test-only crunch (.crn) writer: packs given DXT1 / DXT5 / DXT5A / DXN blocks of every level and
//! face into a valid crunch stream, in crnlib's original layout or in Unity's fork, and ETC1S /
//! ETC2AS (`write`) and ETC1 / ETC2 / ETC2A (`write_etc1`, `write_etc2`, `write_etc2a`) blocks in
//! Unity's fork, the only layout with ETC. It is not a compressor: the palettes are exactly the
//! distinct endpoints and selectors of the blocks given, so a decoder that follows the format gives
//! those blocks back bit for bit. ETC specifics are described at `etc_keys` and `write_etc`.
//!
//! Written from the public description of the format (crnlib's `crn_decomp.h` and Unity's fork of
//! it, read as reference; no code taken), following the decoder side:
//! - `crn_header`: big-endian fields; 'Hx', header size, header crc16 (bytes 6..header size), data
//!   size, data crc16 (bytes header size..data size), width, height, levels, faces, format, flags,
//!   reserved, two user words, four palettes (offset 3 bytes, size 3, count 2), tables size (2) and
//!   offset (3), then one 4-byte offset per level. Segments follow: palettes, tables, levels.
//! - Every segment is its own MSB-first bit stream. A prefix code is sent as its alphabet size (14
//!   bits), the count of code-length code lengths sent (5 bits), those lengths (3 bits each, in the
//!   order 17 18 19 20 0 8 7 9 6 10 5 11 4 12 3 13 2 14 1 15 16), then the code lengths coded with
//!   that code: 0-16 literal, 17 / 18 runs of zeros (3 + 3 bits, 11 + 7 bits), 19 / 20 repeats of the
//!   previous length (3 + 2 bits, 7 + 6 bits). Codes are canonical: by length, then by symbol.
//! - Tables: the chunk-encoding (crnlib) or endpoint-reference (Unity) code, then the colour
//!   endpoint-delta and selector codes, then the alpha ones (each pair only if that palette exists).
//! - Colour endpoints: deltas of R0 G0 B0 R1 G1 B1 of the two RGB565 colours (5-bit ones with a first
//!   code, 6-bit ones with a second). Alpha endpoints: deltas of the two bytes, one code.
//! - crnlib selectors: per texel pair, deltas of the linear selectors (colour: -3..3, 7x7 symbols;
//!   alpha: -7..7, 15x15 symbols). Unity selectors: linear selectors XORed with the previous entry's,
//!   sent as 4-bit (colour) or 6-bit (alpha, two texels) pieces.
//! - crnlib levels: faces in order, 2x2-block chunks in serpentine rows; a chunk-encoding symbol for
//!   each three chunks (3 bits each, the first in the low bits); per chunk, endpoint-index deltas for
//!   each tile, then per block (top-left, top-right, bottom-left, bottom-right) selector-index deltas.
//!   Blocks outside the level in a partial chunk still get their selector deltas (we send 0).
//! - Unity levels: faces in order, blocks in raster order over the size rounded up to even; at each
//!   even (x, y) one symbol gives 2-bit endpoint references of (x, y), (x, y+1), (x+1, y),
//!   (x+1, y+1): 0 new (index deltas), 1 same as the previous block, 2 same as the block above.
//!   Selector indices are sent as they are.
//!
//! Tests using it say what it exercises (every chunk encoding, every reference kind).

#![allow(dead_code)]

use std::collections::BTreeMap;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    Dxt1,
    Dxt5,
    Dxt5A,
    DxnXY,
    /// Unity's fork only: ETC1 blocks with one colour (differential, zero deltas, one table, not
    /// flipped), coded like DXT1.
    Etc1S,
    /// Unity's fork only: ETC2 RGBA8 blocks with an ETC1S colour half, coded like DXT5.
    Etc2AS,
}

impl Format {
    pub fn id(self) -> u8 {
        match self {
            Format::Dxt1 => 0,
            Format::Dxt5 => 2,
            Format::DxnXY => 7,
            Format::Dxt5A => 9,
            Format::Etc1S => 13,
            Format::Etc2AS => 14,
        }
    }

    pub fn block_bytes(self) -> usize {
        match self {
            Format::Dxt1 | Format::Dxt5A | Format::Etc1S => 8,
            Format::Dxt5 | Format::DxnXY | Format::Etc2AS => 16,
        }
    }

    fn has_color(self) -> bool {
        !matches!(self, Format::Dxt5A | Format::DxnXY)
    }

    fn is_etc(self) -> bool {
        matches!(self, Format::Etc1S | Format::Etc2AS)
    }

    /// Byte offsets of the alpha half-blocks in a block.
    fn alpha_parts(self) -> &'static [usize] {
        match self {
            Format::Dxt1 | Format::Etc1S => &[],
            Format::Dxt5 | Format::Dxt5A | Format::Etc2AS => &[0],
            Format::DxnXY => &[0, 8],
        }
    }

    fn color_at(self) -> usize {
        if matches!(self, Format::Dxt5 | Format::Etc2AS) {
            8
        } else {
            0
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Variant {
    Crnlib,
    Unity,
}

/// A written stream and what its level data used.
pub struct Written {
    pub bytes: Vec<u8>,
    /// crnlib: how many chunks used each of the 8 chunk encodings.
    pub chunk_encodings: [usize; 8],
    /// Unity: how many blocks used each (first) endpoint reference: new, previous, above, and for
    /// ETC1 the up-left diagonal.
    pub references: [usize; 4],
    /// Per level, per face: the byte (from the level's start) where the face's first symbol is.
    pub face_starts: Vec<Vec<usize>>,
}

/// One block split into palette keys: colour (endpoints, selectors) and alpha halves
/// (endpoints, 48 selector bits).
struct Keys {
    color: Option<(u32, u32)>,
    alpha: Vec<(u16, u64)>,
}

fn keys(f: Format, b: &[u8]) -> Keys {
    if f.is_etc() {
        return etc_s_keys(f, b);
    }
    let color = f.has_color().then(|| {
        let c = f.color_at();
        let w = |i: usize| u32::from_le_bytes(b[i..i + 4].try_into().unwrap());
        (w(c), w(c + 4))
    });
    let alpha = f
        .alpha_parts()
        .iter()
        .map(|&a| {
            let ep = u16::from_le_bytes([b[a], b[a + 1]]);
            let mut s = [0u8; 8];
            s[..6].copy_from_slice(&b[a + 2..a + 8]);
            (ep, u64::from_le_bytes(s))
        })
        .collect();
    Keys { color, alpha }
}

/// Sorted distinct values and a lookup of each one's index.
struct Palette<T: Ord + Copy> {
    values: Vec<T>,
    index: BTreeMap<T, u32>,
}

impl<T: Ord + Copy> Palette<T> {
    fn new(it: impl Iterator<Item = T>) -> Self {
        let mut values: Vec<T> = it.collect();
        values.sort();
        values.dedup();
        let index = values
            .iter()
            .enumerate()
            .map(|(i, &v)| (v, i as u32))
            .collect();
        Palette { values, index }
    }
    fn at(&self, v: T) -> u32 {
        self.index[&v]
    }
    fn len(&self) -> u32 {
        self.values.len() as u32
    }
}

/// MSB-first bit writer.
#[derive(Default)]
struct Bits {
    bytes: Vec<u8>,
    nbits: usize,
}

impl Bits {
    fn put(&mut self, v: u32, n: u32) {
        for i in (0..n).rev() {
            if self.nbits % 8 == 0 {
                self.bytes.push(0);
            }
            if (v >> i) & 1 == 1 {
                *self.bytes.last_mut().unwrap() |= 0x80 >> (self.nbits % 8);
            }
            self.nbits += 1;
        }
    }
}

/// Code lengths of a Huffman code for `freq`, at most `limit` long. Symbols with frequency 0 get
/// length 0. A code with one used symbol gets a second (the neighbour, possibly one past the
/// alphabet) so the code is complete: one-symbol codes are legal in crnlib but untidy.
fn code_lengths(freq: &[u32], limit: u8) -> Vec<u8> {
    let mut f: Vec<u64> = freq.iter().map(|&x| x as u64).collect();
    let used: Vec<usize> = (0..f.len()).filter(|&i| f[i] > 0).collect();
    match used.len() {
        0 => {
            f.resize(f.len().max(2), 0);
            f[0] = 1;
            f[1] = 1;
        }
        1 => {
            let other = if used[0] == 0 { 1 } else { 0 };
            if other >= f.len() {
                f.resize(other + 1, 0);
            }
            f[other] = 1;
        }
        _ => {}
    }
    loop {
        let lens = huffman(&f);
        if lens.iter().all(|&l| l <= limit) {
            return lens;
        }
        // Flatten the distribution and try again (converges to a balanced code).
        for x in f.iter_mut().filter(|x| **x > 0) {
            *x = (*x).div_ceil(2);
        }
    }
}

/// Plain Huffman code lengths (two or more used symbols).
fn huffman(f: &[u64]) -> Vec<u8> {
    use std::cmp::Reverse;
    use std::collections::BinaryHeap;
    let mut parent: Vec<usize> = vec![usize::MAX; f.len()];
    let mut heap = BinaryHeap::new();
    for (i, &x) in f.iter().enumerate() {
        if x > 0 {
            heap.push(Reverse((x, i)));
        }
    }
    while heap.len() > 1 {
        let Reverse((a, ia)) = heap.pop().unwrap();
        let Reverse((b, ib)) = heap.pop().unwrap();
        let id = parent.len();
        parent.push(usize::MAX);
        parent[ia] = id;
        parent[ib] = id;
        heap.push(Reverse((a + b, id)));
    }
    (0..f.len())
        .map(|i| {
            if f[i] == 0 {
                return 0;
            }
            let (mut d, mut n) = (0u8, i);
            while parent[n] != usize::MAX {
                n = parent[n];
                d += 1;
            }
            d
        })
        .collect()
}

/// Canonical codes for the lengths: (code, length) per symbol.
fn canonical(lens: &[u8]) -> Vec<(u32, u8)> {
    let mut codes = vec![(0u32, 0u8); lens.len()];
    let mut code = 0u32;
    for len in 1..=16u8 {
        for (s, &l) in lens.iter().enumerate() {
            if l == len {
                codes[s] = (code, len);
                code += 1;
            }
        }
        code <<= 1;
    }
    codes
}

/// A prefix code built from counted symbols, written in a segment and then used for symbols.
struct Model {
    codes: Vec<(u32, u8)>,
    lens: Vec<u8>,
}

impl Model {
    fn from_freq(freq: &[u32]) -> Model {
        let mut lens = code_lengths(freq, 16);
        // The alphabet sent ends at the last symbol with a code.
        let end = lens.iter().rposition(|&l| l > 0).unwrap() + 1;
        lens.truncate(end);
        Model {
            codes: canonical(&lens),
            lens,
        }
    }

    /// Like `from_freq`, but the alphabet sent is at least `total` symbols long.
    fn with_total(freq: &[u32], total: usize) -> Model {
        let mut m = Model::from_freq(freq);
        if m.lens.len() < total {
            m.lens.resize(total, 0);
            m.codes = canonical(&m.lens);
        }
        m
    }

    fn put(&self, b: &mut Bits, sym: u32) {
        let (c, l) = self.codes[sym as usize];
        assert!(l > 0, "symbol {sym} has no code");
        b.put(c, l as u32);
    }

    /// Sends the code lengths (decode_receive_static_data_model's format).
    fn send(&self, b: &mut Bits) {
        const ORDER: [usize; 21] = [
            17, 18, 19, 20, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15, 16,
        ];
        // (code-length symbol, extra bits value, extra bit count)
        let mut items: Vec<(u32, u32, u32)> = Vec::new();
        let l = &self.lens;
        let mut i = 0;
        while i < l.len() {
            let v = l[i];
            let mut run = 1;
            while i + run < l.len() && l[i + run] == v {
                run += 1;
            }
            i += run;
            if v == 0 {
                let mut r = run;
                while r >= 11 {
                    let n = r.min(138);
                    items.push((18, (n - 11) as u32, 7));
                    r -= n;
                }
                if r >= 3 {
                    items.push((17, (r - 3) as u32, 3));
                    r = 0;
                }
                for _ in 0..r {
                    items.push((0, 0, 0));
                }
            } else {
                items.push((v as u32, 0, 0));
                let mut r = run - 1;
                while r >= 7 {
                    let n = r.min(70);
                    items.push((20, (n - 7) as u32, 6));
                    r -= n;
                }
                if r >= 3 {
                    items.push((19, (r - 3) as u32, 2));
                    r = 0;
                }
                for _ in 0..r {
                    items.push((v as u32, 0, 0));
                }
            }
        }
        let mut freq = [0u32; 21];
        for it in &items {
            freq[it.0 as usize] += 1;
        }
        let mut cl = code_lengths(&freq, 7);
        cl.resize(21, 0);
        let codes = canonical(&cl);
        let n = ORDER.iter().rposition(|&s| cl[s] > 0).unwrap() + 1;
        b.put(l.len() as u32, 14);
        b.put(n as u32, 5);
        for &s in &ORDER[..n] {
            b.put(cl[s] as u32, 3);
        }
        for (s, extra, nbits) in items {
            let (c, len) = codes[s as usize];
            b.put(c, len as u32);
            b.put(extra, nbits);
        }
    }
}

/// Symbols of one segment, each tagged with the model it is coded with.
type Stream = Vec<(usize, u32)>;

/// Codes a palette segment: its prefix codes first (one per entry of `totals`, each alphabet at
/// least that long), then the symbols, each tagged with the code it uses.
fn palette_segment(stream: &Stream, totals: &[usize]) -> Vec<u8> {
    let models: Vec<Model> = (0..totals.len())
        .map(|m| {
            let mut freq = vec![0u32; totals[m]];
            for &(mm, s) in stream {
                if mm == m {
                    if s as usize >= freq.len() {
                        freq.resize(s as usize + 1, 0);
                    }
                    freq[s as usize] += 1;
                }
            }
            Model::with_total(&freq, totals[m])
        })
        .collect();
    let mut b = Bits::default();
    for m in &models {
        m.send(&mut b);
    }
    for &(m, s) in stream {
        models[m].put(&mut b, s);
    }
    b.bytes
}

/// crnlib's DXT selector orders from linear ones (crn_decomp.h's g_dxt1_from_linear /
/// g_dxt5_from_linear), inverted here to get linear values from block selectors.
const DXT1_TO_LINEAR: [u32; 4] = [0, 3, 1, 2];
const DXT5_TO_LINEAR: [u64; 8] = [0, 7, 1, 2, 3, 4, 5, 6];

/// A signed delta in -max..=max congruent to `d` modulo `m` (the selector range, 4 or 8; crnlib
/// masks the sum); alternates between the two choices when there are two, so both halves of the
/// symbol alphabet occur.
fn signed_delta(d: i32, m: i32, max: i32, toggle: &mut bool) -> i32 {
    let d = d.rem_euclid(m);
    *toggle = !*toggle;
    if d == 0 {
        0
    } else if d > max || *toggle {
        d - m
    } else {
        d
    }
}

/// Chunk encodings (crnlib's numbering): which tile each block of a 2x2 chunk (TL, TR, BL, BR) takes its endpoints from.
pub const TILES: [[usize; 4]; 8] = [
    [0, 0, 0, 0],
    [0, 0, 1, 1],
    [0, 1, 0, 1],
    [0, 0, 1, 2],
    [1, 2, 0, 0],
    [0, 1, 0, 2],
    [1, 0, 2, 0],
    [0, 1, 2, 3],
];
const NUM_TILES: [usize; 8] = [1, 2, 2, 3, 3, 3, 3, 4];

const M_CHUNK: usize = 0;
const M_EP_C: usize = 1;
const M_SEL_C: usize = 2;
const M_EP_A: usize = 3;
const M_SEL_A: usize = 4;

/// Writes a crunch stream. `levels[l][f]` holds the blocks of level `l`, face `f`, row-major,
/// `format.block_bytes()` each; level `l` is `max(1, size >> l)` texels.
pub fn write(
    format: Format,
    variant: Variant,
    width: u32,
    height: u32,
    levels: &[Vec<Vec<u8>>],
) -> Written {
    let faces = levels[0].len();
    assert!(faces == 1 || faces == 6);
    let bpb = format.block_bytes();
    let dims: Vec<(usize, usize)> = (0..levels.len())
        .map(|l| {
            let w = (width >> l).max(1) as usize;
            let h = (height >> l).max(1) as usize;
            (w.div_ceil(4), h.div_ceil(4))
        })
        .collect();
    // Every block's keys, [level][face][block].
    let all: Vec<Vec<Vec<Keys>>> = levels
        .iter()
        .zip(&dims)
        .map(|(lv, &(bx, by))| {
            assert_eq!(lv.len(), faces, "every level has every face");
            lv.iter()
                .map(|f| {
                    assert_eq!(f.len(), bx * by * bpb, "blocks of a {bx}x{by}-block level");
                    f.chunks_exact(bpb).map(|b| keys(format, b)).collect()
                })
                .collect()
        })
        .collect();
    let flat = || all.iter().flatten().flatten();
    let ce = Palette::new(flat().filter_map(|k| k.color.map(|c| c.0)));
    let cs = Palette::new(flat().filter_map(|k| k.color.map(|c| c.1)));
    let ae = Palette::new(flat().flat_map(|k| k.alpha.iter().map(|a| a.0)));
    let asel = Palette::new(flat().flat_map(|k| k.alpha.iter().map(|a| a.1)));

    // Palettes.
    let mut seg_ce = Vec::new();
    let mut seg_cs = Vec::new();
    let mut seg_ae = Vec::new();
    let mut seg_as = Vec::new();
    if format.is_etc() {
        assert_eq!(variant, Variant::Unity, "ETC crunch is Unity's fork only");
        seg_ce = etc_endpoints(&ce.values);
        seg_cs = unity_color_selectors(cs.values.iter().copied());
    } else if format.has_color() {
        let mut s = Stream::new();
        let mut prev = [0u32; 6];
        for &v in &ce.values {
            // R0 G0 B0 R1 G1 B1 of color0 (low 16 bits) and color1 (high 16 bits).
            let comps = [
                (v >> 11) & 31,
                (v >> 5) & 63,
                v & 31,
                (v >> 27) & 31,
                (v >> 21) & 63,
                (v >> 16) & 31,
            ];
            for i in 0..6 {
                let m = if i % 3 == 1 { 64 } else { 32 };
                s.push((i % 3 % 2, (comps[i] + m - prev[i]) % m));
                prev[i] = comps[i];
            }
        }
        seg_ce = palette_segment(&s, &[32, 64]);
        let mut s = Stream::new();
        match variant {
            Variant::Crnlib => {
                let mut cur = [0i32; 16];
                let mut t = false;
                for &v in &cs.values {
                    let lin: Vec<i32> = (0..16)
                        .map(|i| DXT1_TO_LINEAR[((v >> (2 * i)) & 3) as usize] as i32)
                        .collect();
                    for j in 0..8 {
                        let d0 = signed_delta(lin[2 * j] - cur[2 * j], 4, 3, &mut t);
                        let d1 = signed_delta(lin[2 * j + 1] - cur[2 * j + 1], 4, 3, &mut t);
                        s.push((0, ((d0 + 3) + 7 * (d1 + 3)) as u32));
                    }
                    cur.copy_from_slice(&lin);
                }
                seg_cs = palette_segment(&s, &[49]);
            }
            Variant::Unity => {
                let lin = cs.values.iter().map(|&v| {
                    (0..16).fold(0u32, |w, i| {
                        w | DXT1_TO_LINEAR[((v >> (2 * i)) & 3) as usize] << (2 * i)
                    })
                });
                seg_cs = unity_color_selectors(lin);
            }
        }
    }
    if !format.alpha_parts().is_empty() {
        seg_ae = alpha_endpoints(&ae.values);
        let mut s = Stream::new();
        let lin_of = |v: u64| -> Vec<u64> {
            (0..16)
                .map(|i| DXT5_TO_LINEAR[((v >> (3 * i)) & 7) as usize])
                .collect()
        };
        match variant {
            Variant::Crnlib => {
                let mut cur = [0i32; 16];
                let mut t = false;
                for &v in &asel.values {
                    let lin = lin_of(v);
                    for j in 0..8 {
                        let d0 = signed_delta(lin[2 * j] as i32 - cur[2 * j], 8, 7, &mut t);
                        let d1 = signed_delta(lin[2 * j + 1] as i32 - cur[2 * j + 1], 8, 7, &mut t);
                        s.push((0, ((d0 + 7) + 15 * (d1 + 7)) as u32));
                    }
                    for i in 0..16 {
                        cur[i] = lin[i] as i32;
                    }
                }
                seg_as = palette_segment(&s, &[225]);
            }
            Variant::Unity if format.is_etc() => seg_as = unity_eac_selectors(&asel.values),
            Variant::Unity => {
                let (mut p0, mut p1) = (0u64, 0u64);
                for &v in &asel.values {
                    let lin = lin_of(v);
                    let l0 = (0..8).fold(0u64, |w, i| w | lin[i] << (3 * i));
                    let l1 = (0..8).fold(0u64, |w, i| w | lin[8 + i] << (3 * i));
                    for (x, p) in [(l0, &mut p0), (l1, &mut p1)] {
                        let d = x ^ *p;
                        for j in 0..4 {
                            s.push((0, ((d >> (6 * j)) & 63) as u32));
                        }
                        *p = x;
                    }
                }
                seg_as = palette_segment(&s, &[1]);
            }
        }
    }

    // Level symbol streams (the tables' models are shared by all levels).
    let mut chunk_encodings = [0usize; 8];
    let mut references = [0usize; 4];
    let pals = Palettes { ce, cs, ae, asel };
    let mut streams: Vec<(Stream, Vec<usize>)> = Vec::new();
    for (lv, &d) in all.iter().zip(&dims) {
        streams.push(match variant {
            Variant::Crnlib => level_crnlib(format, lv, d, &pals, &mut chunk_encodings),
            Variant::Unity => level_unity(format, lv, d, &pals, &mut references),
        });
    }
    let Palettes { ce, cs, ae, asel } = pals;
    let (bytes, face_starts) = finish(
        Header {
            format: format.id(),
            width,
            height,
            faces,
            has_color: format.has_color(),
            has_alpha: !format.alpha_parts().is_empty(),
        },
        &streams,
        [
            (seg_ce, ce.len()),
            (seg_cs, cs.len()),
            (seg_ae, ae.len()),
            (seg_as, asel.len()),
        ],
    );
    Written {
        bytes,
        chunk_encodings,
        references,
        face_starts,
    }
}

/// What `finish` writes into `crn_header` besides offsets and sizes.
struct Header {
    format: u8,
    width: u32,
    height: u32,
    faces: usize,
    has_color: bool,
    has_alpha: bool,
}

/// Builds the tables' models from the level streams, codes the levels and assembles the stream:
/// header, palettes (segment, entry count), tables, levels. Returns it and, per level and face,
/// the byte where the face's symbols start.
fn finish(
    h: Header,
    streams: &[(Stream, Vec<usize>)],
    pals: [(Vec<u8>, u32); 4],
) -> (Vec<u8>, Vec<Vec<usize>>) {
    let models: Vec<Model> = (0..5)
        .map(|m| {
            let mut freq = vec![0u32; 1];
            for (s, _) in streams {
                for &(mm, sym) in s {
                    if mm == m {
                        if sym as usize >= freq.len() {
                            freq.resize(sym as usize + 1, 0);
                        }
                        freq[sym as usize] += 1;
                    }
                }
            }
            Model::from_freq(&freq)
        })
        .collect();
    let mut tb = Bits::default();
    models[M_CHUNK].send(&mut tb);
    if h.has_color {
        models[M_EP_C].send(&mut tb);
        models[M_SEL_C].send(&mut tb);
    }
    if h.has_alpha {
        models[M_EP_A].send(&mut tb);
        models[M_SEL_A].send(&mut tb);
    }
    let seg_tables = tb.bytes;
    let mut seg_levels = Vec::new();
    let mut face_starts = Vec::new();
    for (s, starts) in streams {
        let mut b = Bits::default();
        let mut fs = Vec::new();
        for (i, &(m, sym)) in s.iter().enumerate() {
            if starts.contains(&i) {
                fs.push(b.nbits / 8);
            }
            models[m].put(&mut b, sym);
        }
        // A level is at least one byte (offsets must increase).
        if b.bytes.is_empty() {
            b.bytes.push(0);
        }
        seg_levels.push(b.bytes);
        face_starts.push(fs);
    }

    let header_size = 70 + 4 * streams.len();
    let mut out = vec![0u8; header_size];
    fn put_seg(out: &mut Vec<u8>, seg: &[u8]) -> (u32, u32) {
        let at = out.len() as u32;
        out.extend_from_slice(seg);
        (at, seg.len() as u32)
    }
    let mut pal_fields = Vec::new();
    for (seg, num) in &pals {
        if *num == 0 {
            pal_fields.push((0, 0, 0));
        } else {
            let (o, s) = put_seg(&mut out, seg);
            pal_fields.push((o, s, *num));
        }
    }
    let (tables_ofs, tables_size) = put_seg(&mut out, &seg_tables);
    let mut level_ofs = Vec::new();
    for seg in &seg_levels {
        level_ofs.push(put_seg(&mut out, seg).0);
    }
    let data_size = out.len() as u32;
    let hd = &mut out[..header_size];
    hd[0..2].copy_from_slice(b"Hx");
    hd[2..4].copy_from_slice(&(header_size as u16).to_be_bytes());
    hd[6..10].copy_from_slice(&data_size.to_be_bytes());
    hd[12..14].copy_from_slice(&(h.width as u16).to_be_bytes());
    hd[14..16].copy_from_slice(&(h.height as u16).to_be_bytes());
    hd[16] = streams.len() as u8;
    hd[17] = h.faces as u8;
    hd[18] = h.format;
    for (i, &(o, s, n)) in pal_fields.iter().enumerate() {
        let at = 33 + 8 * i;
        hd[at..at + 3].copy_from_slice(&o.to_be_bytes()[1..]);
        hd[at + 3..at + 6].copy_from_slice(&s.to_be_bytes()[1..]);
        hd[at + 6..at + 8].copy_from_slice(&(n as u16).to_be_bytes());
    }
    hd[65..67].copy_from_slice(&(tables_size as u16).to_be_bytes());
    hd[67..70].copy_from_slice(&tables_ofs.to_be_bytes()[1..]);
    for (i, &o) in level_ofs.iter().enumerate() {
        hd[70 + 4 * i..74 + 4 * i].copy_from_slice(&o.to_be_bytes());
    }
    fix_checksums(&mut out);
    (out, face_starts)
}

/// CRC-16/GENIBUS (poly 0x1021, init 0xffff, final xor 0xffff, MSB first): the crc16 of
/// `crn_header`. Bitwise, written from the CRC catalogue's parameters (not the decoder's table-free
/// form), so the two are independent.
pub fn crc16(data: &[u8]) -> u16 {
    let mut crc: u16 = 0xffff;
    for &b in data {
        crc ^= (b as u16) << 8;
        for _ in 0..8 {
            crc = if crc & 0x8000 != 0 {
                (crc << 1) ^ 0x1021
            } else {
                crc << 1
            };
        }
    }
    !crc
}

/// Recomputes the data crc16 (bytes header_size..data_size, when they are present) and then the
/// header crc16 (bytes 6..header_size), after a test edited the stream.
pub fn fix_checksums(d: &mut [u8]) {
    let hs = u16::from_be_bytes([d[2], d[3]]) as usize;
    // A header size the stream cannot hold (a test's damage) leaves both as they are.
    if hs < 12 || hs > d.len() {
        return;
    }
    let size = u32::from_be_bytes([d[6], d[7], d[8], d[9]]) as usize;
    if size <= d.len() && hs <= size {
        let c = crc16(&d[hs..size]);
        d[10..12].copy_from_slice(&c.to_be_bytes());
    }
    let c = crc16(&d[6..hs]);
    d[4..6].copy_from_slice(&c.to_be_bytes());
}

/// The four palettes: colour endpoints and selectors, alpha endpoints and selectors.
struct Palettes {
    ce: Palette<u32>,
    cs: Palette<u32>,
    ae: Palette<u16>,
    asel: Palette<u64>,
}

impl Palettes {
    /// Endpoint indices of a block: colour, alpha half 0, alpha half 1 (0 where absent).
    fn ep(&self, k: &Keys) -> [u32; 3] {
        let mut r = [0u32; 3];
        if let Some((e, _)) = k.color {
            r[0] = self.ce.at(e);
        }
        for (i, a) in k.alpha.iter().enumerate() {
            r[1 + i] = self.ae.at(a.0);
        }
        r
    }

    /// Selector indices of a block, in the same places.
    fn sel(&self, k: &Keys) -> [u32; 3] {
        let mut r = [0u32; 3];
        if let Some((_, s)) = k.color {
            r[0] = self.cs.at(s);
        }
        for (i, a) in k.alpha.iter().enumerate() {
            r[1 + i] = self.asel.at(a.1);
        }
        r
    }
}

/// Index delta with crnlib's single wrap at the palette size.
fn delta(to: u32, from: u32, n: u32) -> u32 {
    (to + n - from) % n
}

/// Block `k` (TL, TR, BL, BR) of chunk (x, y) in a level `bx` x `by` blocks; None outside.
fn in_chunk(face: &[Keys], bx: usize, by: usize, x: usize, y: usize, k: usize) -> Option<&Keys> {
    let (px, py) = (2 * x + (k & 1), 2 * y + (k >> 1));
    (px < bx && py < by).then(|| &face[py * bx + px])
}

fn level_crnlib(
    f: Format,
    faces: &[Vec<Keys>],
    (bx, by): (usize, usize),
    p: &Palettes,
    used: &mut [usize; 8],
) -> (Stream, Vec<usize>) {
    let (cx, cy) = (bx.div_ceil(2), by.div_ceil(2));
    // Chunks in stream order: (face, chunk x, chunk y, encoding).
    let mut chunks = Vec::new();
    for (face, fb) in faces.iter().enumerate() {
        for y in 0..cy {
            let xs: Vec<usize> = if y % 2 == 1 {
                (0..cx).rev().collect()
            } else {
                (0..cx).collect()
            };
            for x in xs {
                let blk = |k: usize| in_chunk(fb, bx, by, x, y, k);
                let enc = (0..8)
                    .find(|&e| {
                        (0..4).all(|t| {
                            let mut eps = (0..4)
                                .filter(|&k| TILES[e][k] == t)
                                .filter_map(blk)
                                .map(|b| p.ep(b));
                            match eps.next() {
                                Some(first) => eps.all(|o| o == first),
                                None => true,
                            }
                        })
                    })
                    .unwrap();
                chunks.push((face, x, y, enc));
            }
        }
    }
    let has_c = f.has_color();
    let n_alpha = f.alpha_parts().len();
    let (nce, ncs, nae, nas) = (p.ce.len(), p.cs.len(), p.ae.len(), p.asel.len());
    let mut prev_ep = [0u32; 3];
    let mut prev_sel = [0u32; 3];
    let mut s = Stream::new();
    let mut starts = Vec::new();
    let mut last_face = usize::MAX;
    for (i, &(face, x, y, enc)) in chunks.iter().enumerate() {
        if face != last_face {
            starts.push(s.len());
            last_face = face;
        }
        used[enc] += 1;
        if i % 3 == 0 {
            let e = |j: usize| chunks.get(i + j).map_or(0, |c| c.3 as u32);
            s.push((M_CHUNK, e(0) | e(1) << 3 | e(2) << 6));
        }
        let blk = |k: usize| in_chunk(&faces[face], bx, by, x, y, k);
        // Endpoints of each tile: those of its first block inside the level (none: keep).
        let tile_eps: Vec<Option<[u32; 3]>> = (0..NUM_TILES[enc])
            .map(|t| {
                (0..4)
                    .filter(|&k| TILES[enc][k] == t)
                    .find_map(blk)
                    .map(|b| p.ep(b))
            })
            .collect();
        // Alpha endpoint deltas first (each half in turn), then colour.
        let mut channels: Vec<(usize, usize, u32)> =
            (0..n_alpha).map(|a| (1 + a, M_EP_A, nae)).collect();
        if has_c {
            channels.push((0, M_EP_C, nce));
        }
        for (ch, model, n) in channels {
            for te in &tile_eps {
                let to = te.map_or(prev_ep[ch], |e| e[ch]);
                s.push((model, delta(to, prev_ep[ch], n)));
                prev_ep[ch] = to;
            }
        }
        // Selector deltas per block: alpha halves, then colour.
        for k in 0..4 {
            let sel = blk(k).map(|b| p.sel(b));
            let mut chs: Vec<(usize, usize, u32)> =
                (0..n_alpha).map(|a| (1 + a, M_SEL_A, nas)).collect();
            if has_c {
                chs.push((0, M_SEL_C, ncs));
            }
            for (ch, model, n) in chs {
                let to = sel.map_or(prev_sel[ch], |v| v[ch]);
                s.push((model, delta(to, prev_sel[ch], n)));
                prev_sel[ch] = to;
            }
        }
    }
    (s, starts)
}

fn level_unity(
    f: Format,
    faces: &[Vec<Keys>],
    (bx, by): (usize, usize),
    p: &Palettes,
    used: &mut [usize; 4],
) -> (Stream, Vec<usize>) {
    let (w, h) = (bx.next_multiple_of(2), by.next_multiple_of(2));
    let has_c = f.has_color();
    let n_alpha = f.alpha_parts().len();
    // Endpoint channels in the order their deltas are sent: colour, then alpha halves.
    let mut ep_ch: Vec<(usize, usize, u32)> = Vec::new();
    if has_c {
        ep_ch.push((0, M_EP_C, p.ce.len()));
    }
    for a in 0..n_alpha {
        ep_ch.push((1 + a, M_EP_A, p.ae.len()));
    }
    let mut sel_ch: Vec<(usize, usize)> = Vec::new();
    if has_c {
        sel_ch.push((0, M_SEL_C));
    }
    for a in 0..n_alpha {
        sel_ch.push((1 + a, M_SEL_A));
    }
    let mut s = Stream::new();
    let mut starts = Vec::new();
    let mut cur = [0u32; 3];
    let mut above = vec![[0u32; 3]; w];
    for face in faces {
        starts.push(s.len());
        // Pass 1: references and per-block symbols, simulating the decoder's state.
        let mut refs = vec![vec![0u32; w]; h];
        let mut syms: Vec<Vec<Stream>> = vec![vec![Stream::new(); w]; h];
        for y in 0..h {
            for x in 0..w {
                let vis = x < bx && y < by;
                let k = vis.then(|| &face[y * bx + x]);
                let want = k.map(|k| p.ep(k));
                let r = match want {
                    None => 1,
                    Some(e) if e == cur => 1,
                    Some(e) if y > 0 && e == above[x] => 2,
                    Some(_) => 0,
                };
                let out = &mut syms[y][x];
                match r {
                    0 => {
                        let e = want.unwrap();
                        for &(ch, model, n) in &ep_ch {
                            out.push((model, delta(e[ch], cur[ch], n)));
                            cur[ch] = e[ch];
                        }
                        above[x] = cur;
                    }
                    1 => above[x] = cur,
                    _ => cur = above[x],
                }
                refs[y][x] = r;
                used[r as usize] += 1;
                let sel = k.map_or([0; 3], |k| p.sel(k));
                for &(ch, model) in &sel_ch {
                    out.push((model, sel[ch]));
                }
            }
        }
        // Pass 2: the stream, a reference symbol before each 2x2 group.
        for y in 0..h {
            for x in 0..w {
                if y % 2 == 0 && x % 2 == 0 {
                    let g = refs[y][x]
                        | refs[y + 1][x] << 2
                        | refs[y][x + 1] << 4
                        | refs[y + 1][x + 1] << 6;
                    s.push((M_CHUNK, g));
                }
                s.extend_from_slice(&syms[y][x]);
            }
        }
    }
    (s, starts)
}

/// Unity's colour selector palette: each entry's 16 linear 2-bit selectors XORed with the previous
/// entry's, sent as eight 4-bit pieces, low first.
fn unity_color_selectors(linear: impl Iterator<Item = u32>) -> Vec<u8> {
    let mut s = Stream::new();
    let mut prev = 0u32;
    for lin in linear {
        let x = lin ^ prev;
        for j in 0..8 {
            s.push((0, (x >> (4 * j)) & 15));
        }
        prev = lin;
    }
    palette_segment(&s, &[1])
}

/// One ETC1 block as Unity's fork stores it: the two sub-block endpoints (R, G, B 5-bit and the
/// 3-bit table, one byte each, little-endian), the flip bit and the linear selectors (2 bits a
/// texel, in raster order for flipped blocks and column order for unflipped ones).
struct EtcKeys {
    e0: u32,
    e1: u32,
    flip: bool,
    s: u32,
}

/// Splits an ETC1 block (ETC1 specification layout: colour bytes 0-2, tables / diff / flip in byte
/// 3, index MSB plane in bytes 4-5 and LSB plane in 6-7, big-endian, texel x*4+y) into what the
/// fork codes. Differential colours become 5-bit endpoints as they are; individual 4-bit colours
/// get a low bit chosen to keep them apart, because the fork's decoder picks differential mode
/// whenever the two endpoints are within -4..3 of each other. Blocks the fork cannot carry
/// (overflowing differential ones, individual ones with all channels within 1) are refused.
fn etc_keys(b: &[u8]) -> EtcKeys {
    let diff = b[3] & 2 != 0;
    let flip = b[3] & 1 != 0;
    let (mut e0, mut e1) = ([0i32; 4], [0i32; 4]);
    for c in 0..3 {
        if diff {
            e0[c] = (b[c] >> 3) as i32;
            e1[c] = e0[c] + (((b[c] & 7) as i32) ^ 4) - 4;
            assert!(
                (0..32).contains(&e1[c]),
                "differential ETC1 block overflows"
            );
        } else {
            let (c0, c1) = ((b[c] >> 4) as i32, (b[c] & 15) as i32);
            (e0[c], e1[c]) = if c1 > c0 {
                (c0 << 1, c1 << 1 | 1)
            } else {
                (c0 << 1 | 1, c1 << 1)
            };
        }
    }
    if !diff {
        assert!(
            (0..3).any(|c| e0[c] + 3 < e1[c] || e1[c] + 4 < e0[c]),
            "an individual ETC1 block this close decodes as differential in Unity's fork"
        );
    }
    e0[3] = (b[3] >> 5) as i32;
    e1[3] = ((b[3] >> 2) & 7) as i32;
    let pack = |e: [i32; 4]| {
        e.iter()
            .enumerate()
            .fold(0u32, |w, (i, &v)| w | (v as u32) << (8 * i))
    };
    let s = etc_linear(b, flip);
    EtcKeys {
        e0: pack(e0),
        e1: pack(e1),
        flip,
        s,
    }
}

/// Splits an ETC2 RGBA8 block's EAC alpha half (base, multiplier and table, then 48 index bits,
/// big-endian, texel x*4+y) into the alpha endpoint (bytes 0-1, little-endian) and the fork's
/// linear selectors: a byte per texel pair (3 bits each, the first low), the pairs in column order
/// for unflipped blocks and in raster order for flipped ones (the fork keeps both copies of each
/// palette entry). EAC indices 3, 2, 1, 0, 4, 5, 6, 7 are the modifiers from most negative up.
fn eac_keys(b: &[u8], flip: bool) -> (u16, u64) {
    let bits = b[2..8].iter().fold(0u64, |v, &x| v << 8 | x as u64);
    let mut lin = 0u64;
    for x in 0..4 {
        for y in 0..4 {
            let idx = (bits >> (45 - 3 * (4 * x + y))) & 7;
            let l = if idx <= 3 { 3 - idx } else { idx };
            let at = if flip { 4 * y + x } else { 4 * x + y };
            lin |= l << (8 * (at / 2) + 3 * (at % 2));
        }
    }
    (u16::from_le_bytes([b[0], b[1]]), lin)
}

/// Writes an ETC1 crunch stream the way Unity's fork codes it (format 10); see `write_etc`.
pub fn write_etc1(width: u32, height: u32, levels: &[Vec<Vec<u8>>]) -> Written {
    write_etc(10, width, height, levels)
}

/// The same blocks labelled ETC2 (format 11): the fork codes and unpacks them as ETC1 (it emits no
/// ETC2-only modes), and they decode as ETC2 RGB.
pub fn write_etc2(width: u32, height: u32, levels: &[Vec<Vec<u8>>]) -> Written {
    write_etc(11, width, height, levels)
}

/// Writes an ETC2 RGBA8 (ETC2A, format 12) crunch stream the way Unity's fork codes it: blocks
/// are the EAC alpha half then the ETC colour half; see `write_etc`.
pub fn write_etc2a(width: u32, height: u32, levels: &[Vec<Vec<u8>>]) -> Written {
    write_etc(12, width, height, levels)
}

/// Unity's fork for ETC1 / ETC2 / ETC2A (format 10 / 11 / 12): per block, the first sub-block's endpoint (and the alpha
/// endpoint) by reference (0 new deltas, 1 the previous block's second colour endpoint and its
/// alpha, 2 the block above's first and alpha, 3 the up-left block's second and alpha), then the
/// colour (and alpha) selector index, then the second endpoint as a new delta, unless the block is
/// flipped and both endpoints are the same. At each even row, one symbol per block gives the
/// references of it and the block below: bits 0-1 and 4-5 its first reference and second-endpoint
/// kind, bits 2-3 and 6-7 the below block's. Second-endpoint kind: 0 same as the first and flip,
/// 1 new and flip, 2 or 3 new and no flip.
fn write_etc(format: u8, width: u32, height: u32, levels: &[Vec<Vec<u8>>]) -> Written {
    let alpha = format == 12;
    let faces = levels[0].len();
    let bpb = if alpha { 16 } else { 8 };
    let all: Vec<Vec<Vec<EtcBlock>>> = levels
        .iter()
        .map(|lv| {
            lv.iter()
                .map(|f| {
                    f.chunks_exact(bpb)
                        .map(|b| {
                            let k = etc_keys(&b[bpb - 8..]);
                            let a = alpha.then(|| eac_keys(&b[..8], k.flip));
                            (k, a)
                        })
                        .collect()
                })
                .collect()
        })
        .collect();
    let flat = || all.iter().flatten().flatten();
    let ce = Palette::new(flat().flat_map(|k| [k.0.e0, k.0.e1]));
    let cs = Palette::new(flat().map(|k| k.0.s));
    let ae = Palette::new(flat().filter_map(|k| k.1.map(|a| a.0)));
    let asel = Palette::new(flat().filter_map(|k| k.1.map(|a| a.1)));
    let seg_ce = etc_endpoints(&ce.values);
    let seg_cs = unity_color_selectors(cs.values.iter().copied());
    let (mut seg_ae, mut seg_as) = (Vec::new(), Vec::new());
    if alpha {
        seg_ae = alpha_endpoints(&ae.values);
        seg_as = unity_eac_selectors(&asel.values);
    }
    let pals = Palettes { ce, cs, ae, asel };
    let mut references = [0usize; 4];
    let mut streams = Vec::new();
    for (l, lv) in all.iter().enumerate() {
        let bx = ((width >> l).max(1) as usize).div_ceil(4);
        let by = ((height >> l).max(1) as usize).div_ceil(4);
        assert!(lv.iter().all(|f| f.len() == bx * by), "level {l} size");
        streams.push(level_etc(lv, (bx, by), &pals, &mut references));
    }
    let Palettes { ce, cs, ae, asel } = pals;
    let (bytes, face_starts) = finish(
        Header {
            format,
            width,
            height,
            faces,
            has_color: true,
            has_alpha: alpha,
        },
        &streams,
        [
            (seg_ce, ce.len()),
            (seg_cs, cs.len()),
            (seg_ae, ae.len()),
            (seg_as, asel.len()),
        ],
    );
    Written {
        bytes,
        chunk_encodings: [0; 8],
        references,
        face_starts,
    }
}

/// An ETC block's colour keys and, for ETC2A, its alpha endpoint and linear selectors.
type EtcBlock = (EtcKeys, Option<(u16, u64)>);

fn level_etc(
    faces: &[Vec<EtcBlock>],
    (bx, by): (usize, usize),
    p: &Palettes,
    used: &mut [usize; 4],
) -> (Stream, Vec<usize>) {
    let (w, h) = (bx.next_multiple_of(2), by.next_multiple_of(2));
    let (n, na) = (p.ce.len(), p.ae.len());
    let mut s = Stream::new();
    let mut starts = Vec::new();
    // Decoder state: the running (colour, alpha) endpoint indices, the diagonal, and per column
    // those of the block above: [first colour, alpha] and [second colour, alpha].
    let (mut cur, mut diag) = ([0u32; 2], [0u32; 2]);
    let mut above = vec![[[0u32; 2]; 2]; w];
    let mut alt = false;
    for face in faces {
        starts.push(s.len());
        let mut refs = vec![vec![(0u32, 0u32); w]; h];
        let mut syms: Vec<Vec<Stream>> = vec![vec![Stream::new(); w]; h];
        for y in 0..h {
            for x in 0..w {
                let k = (x < bx && y < by).then(|| &face[y * bx + x]);
                let (e0, e1, flip, sel, a) = match k {
                    Some((k, a)) => (
                        p.ce.at(k.e0),
                        p.ce.at(k.e1),
                        k.flip,
                        p.cs.at(k.s),
                        a.map(|(e, s)| (p.ae.at(e), p.asel.at(s))),
                    ),
                    None => (cur[0], cur[0], true, 0, (na > 0).then_some((cur[1], 0))),
                };
                let first_ep = [e0, a.map_or(0, |a| a.0)];
                let out = &mut syms[y][x];
                let first = if first_ep == cur {
                    1
                } else if y > 0 && first_ep == above[x][0] {
                    2
                } else if y > 0 && x > 0 && first_ep == diag {
                    3
                } else {
                    0
                };
                match first {
                    0 => {
                        out.push((M_EP_C, delta(e0, cur[0], n)));
                        if let Some((ai, _)) = a {
                            out.push((M_EP_A, delta(ai, cur[1], na)));
                        }
                        cur = first_ep;
                    }
                    2 => cur = above[x][0],
                    3 => cur = diag,
                    _ => {}
                }
                above[x][0] = cur;
                used[first as usize] += 1;
                out.push((M_SEL_C, sel));
                if let Some((_, asel)) = a {
                    out.push((M_SEL_A, asel));
                }
                let second = if flip && e1 == e0 {
                    0
                } else if flip {
                    1
                } else {
                    alt = !alt;
                    if alt {
                        2
                    } else {
                        3
                    }
                };
                if second != 0 {
                    out.push((M_EP_C, delta(e1, cur[0], n)));
                    cur[0] = e1;
                }
                diag = above[x][1];
                above[x][1] = cur;
                refs[y][x] = (first, second);
            }
        }
        for y in 0..h {
            for x in 0..w {
                if y % 2 == 0 {
                    let ((f0, s0), (f1, s1)) = (refs[y][x], refs[y + 1][x]);
                    s.push((M_CHUNK, f0 | f1 << 2 | s0 << 4 | s1 << 6));
                }
                s.extend_from_slice(&syms[y][x]);
            }
        }
    }
    (s, starts)
}

/// The alpha endpoint palette: deltas of both bytes, one code.
fn alpha_endpoints(values: &[u16]) -> Vec<u8> {
    let mut s = Stream::new();
    let (mut a, mut b) = (0u32, 0u32);
    for &v in values {
        let (lo, hi) = (v as u32 & 255, (v >> 8) as u32);
        s.push((0, (lo + 256 - a) & 255));
        s.push((0, (hi + 256 - b) & 255));
        (a, b) = (lo, hi);
    }
    palette_segment(&s, &[1])
}

/// An ETC colour half's 16 pixel indices as the fork's linear selectors (2 bits a texel): raster
/// order when `raster` (flipped blocks, and the single-colour "S" formats), else column order.
fn etc_linear(b: &[u8], raster: bool) -> u32 {
    let msb = u16::from_be_bytes([b[4], b[5]]);
    let lsb = u16::from_be_bytes([b[6], b[7]]);
    let mut s = 0u32;
    for x in 0..4 {
        for y in 0..4 {
            let p = 4 * x + y;
            // ETC index (msb, lsb) 11, 10, 00, 01 are the modifiers from most negative up.
            let lin = match ((msb >> p) & 1, (lsb >> p) & 1) {
                (1, 1) => 0,
                (1, 0) => 1,
                (0, 0) => 2,
                _ => 3,
            };
            let at = if raster { 4 * y + x } else { 4 * x + y };
            s |= lin << (2 * at);
        }
    }
    s
}

/// ETC1S / ETC2AS keys: the colour as the fork's 5-bit R, G, B and table (one byte each) and the
/// raster-order linear selectors; for ETC2AS the EAC half as for ETC2A, raster order. A colour
/// half that is not one colour (differential, zero deltas, equal tables, unflipped) is refused.
fn etc_s_keys(f: Format, b: &[u8]) -> Keys {
    let c = &b[f.color_at()..f.color_at() + 8];
    assert!(
        c[3] & 3 == 2 && c[3] >> 5 == (c[3] >> 2) & 7 && c[..3].iter().all(|&v| v & 7 == 0),
        "not an ETC1S colour: differential, zero deltas, one table, unflipped"
    );
    let a = (0..3).fold((c[3] as u32 >> 5) << 24, |w, i| {
        w | ((c[i] as u32) >> 3) << (8 * i)
    });
    let alpha = f
        .alpha_parts()
        .iter()
        .map(|&at| eac_keys(&b[at..at + 8], true))
        .collect();
    Keys {
        color: Some((a, etc_linear(c, true))),
        alpha,
    }
}

/// The fork's ETC colour endpoint palette: deltas of the four 5-bit bytes (R, G, B, table), one
/// code.
fn etc_endpoints(values: &[u32]) -> Vec<u8> {
    let mut s = Stream::new();
    let mut prev = 0u32;
    for &v in values {
        for k in 0..4 {
            let (a, p) = ((v >> (8 * k)) & 31, (prev >> (8 * k)) & 31);
            s.push((0, (a + 32 - p) % 32));
        }
        prev = v;
    }
    palette_segment(&s, &[1])
}

/// The fork's EAC alpha selector palette (ETC2A / ETC2AS): each entry's eight bytes of linear
/// texel pairs XORed with the previous entry's, one symbol a byte.
fn unity_eac_selectors(values: &[u64]) -> Vec<u8> {
    let mut s = Stream::new();
    let mut prev = 0u64;
    for &v in values {
        let x = v ^ prev;
        for k in 0..8 {
            s.push((0, ((x >> (8 * k)) & 63) as u32));
        }
        prev = v;
    }
    palette_segment(&s, &[1])
}
