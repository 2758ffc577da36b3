//! Crunch (.crn) streams: crnlib's original format and Unity's fork, unpacked to the DXT1 / DXT5 /
//! BC4 / BC5 / ETC1 / ETC2 / ETC2 RGBA8 blocks of any level and face; the blocks then go through the
//! normal BC/ETC decoders.
//!
//! Written from the public descriptions of the format: crnlib's `crn_decomp.h` (Richard Geldreich,
//! zlib licence: `crn_header`, the static Huffman models, palettes and the 2x2-chunk tiling) and
//! Unity's fork of it (Unity 2017.3+: per-block endpoint references instead of chunk encodings,
//! XOR-coded selector palettes, and the ETC1 / ETC2 / ETC2A / ETC1S / ETC2AS formats), read as
//! reference, not copied.
//!
//! Why not a crate: texture2ddecoder 0.1.2 (the only Rust crunch decoder) unpacks mip 0 only,
//! returns garbage as success when given the other variant, and its output for crunch formats with
//! alpha differs between wasm32 and native (measured, shared/notes/crates-and-toolchain.md).
//!
//! The variant is not written in the header (both write the same 'Hx' header). It is read from the
//! selector palettes' alphabets instead: crnlib codes selector *deltas* per texel pair (49 colour
//! symbols with "no change" at 24; 225 alpha symbols with "no change" at 112), Unity's fork codes
//! XOR nibbles (at most 16 colour symbols; at most 64 alpha symbols). A stream whose palettes fit
//! neither, or disagree, is refused; so is a level whose blocks need more bits than it holds.
// Without the `codec-crunch` feature only the header and variant probe (used to list a texture)
// are reachable; the unpacker stays compiled but is left out of the linked module.
#![cfg_attr(not(feature = "codec-crunch"), allow(dead_code))]

use crate::codec::PixelFormat;
use crate::io::{Error, Limits, Result};

/// The two bytes every crunch stream starts with.
pub const SIGNATURE: &[u8; 2] = b"Hx";
/// Fixed part of `crn_header` before the level offsets.
const FIXED_HEADER: usize = 70;
/// crnlib's cCRNMaxLevels.
const MAX_LEVELS: usize = 16;
/// crnlib's prefix_coding::cMaxSupportedSyms.
const MAX_SYMBOLS: u32 = 8192;
/// crnlib's cMaxExpectedCodeSize.
const MAX_CODE_LEN: usize = 16;

/// `crn_format` values (crnlib, then Unity's additions 10-14).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CrnFormat {
    Dxt1,
    Dxt3,
    Dxt5,
    Dxt5CCxY,
    Dxt5xGxR,
    Dxt5xGBR,
    Dxt5AGBR,
    DxnXY,
    DxnYX,
    Dxt5A,
    Etc1,
    Etc2,
    Etc2A,
    Etc1S,
    Etc2AS,
}

impl CrnFormat {
    fn from_id(id: u8) -> Option<CrnFormat> {
        use CrnFormat::*;
        Some(match id {
            0 => Dxt1,
            1 => Dxt3,
            2 => Dxt5,
            3 => Dxt5CCxY,
            4 => Dxt5xGxR,
            5 => Dxt5xGBR,
            6 => Dxt5AGBR,
            7 => DxnXY,
            8 => DxnYX,
            9 => Dxt5A,
            10 => Etc1,
            11 => Etc2,
            12 => Etc2A,
            13 => Etc1S,
            14 => Etc2AS,
            _ => return None,
        })
    }

    /// crnlib's / Unity's name for the format (`cCRNFmt...` without the prefix).
    pub fn name(self) -> &'static str {
        use CrnFormat::*;
        match self {
            Dxt1 => "DXT1",
            Dxt3 => "DXT3",
            Dxt5 => "DXT5",
            Dxt5CCxY => "DXT5_CCxY",
            Dxt5xGxR => "DXT5_xGxR",
            Dxt5xGBR => "DXT5_xGBR",
            Dxt5AGBR => "DXT5_AGBR",
            DxnXY => "DXN_XY",
            DxnYX => "DXN_YX",
            Dxt5A => "DXT5A",
            Etc1 => "ETC1",
            Etc2 => "ETC2",
            Etc2A => "ETC2A",
            Etc1S => "ETC1S",
            Etc2AS => "ETC2AS",
        }
    }

    /// The GPU block format the unpacked blocks are in.
    pub fn block_format(self) -> PixelFormat {
        use CrnFormat::*;
        match self {
            Dxt1 => PixelFormat::BC1,
            Dxt3 => PixelFormat::BC2,
            Dxt5 | Dxt5CCxY | Dxt5xGxR | Dxt5xGBR | Dxt5AGBR => PixelFormat::BC3,
            Dxt5A => PixelFormat::BC4,
            DxnXY | DxnYX => PixelFormat::BC5,
            // Unity's ETC crunch only emits individual/differential blocks without overflow, so
            // ETC1 and ETC2 RGB decode alike; ETC2 keeps its own name.
            Etc1 | Etc1S => PixelFormat::ETC1,
            Etc2 => PixelFormat::ETC2RGB,
            Etc2A | Etc2AS => PixelFormat::ETC2RGBA8,
        }
    }

    fn is_etc(self) -> bool {
        use CrnFormat::*;
        matches!(self, Etc1 | Etc2 | Etc2A | Etc1S | Etc2AS)
    }

    /// ETC formats with two sub-block endpoints per block (not the "S" single-endpoint ones).
    fn has_subblocks(self) -> bool {
        use CrnFormat::*;
        matches!(self, Etc1 | Etc2 | Etc2A)
    }
}

/// Which decoder wrote the stream.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Variant {
    /// crnlib / crunch as published by its author (2x2 chunk encodings, delta-coded selectors).
    Crnlib,
    /// Unity's fork (Unity 2017.3 and later; the only one with ETC formats).
    Unity,
}

impl Variant {
    pub fn name(self) -> &'static str {
        match self {
            Variant::Crnlib => "crnlib (original)",
            Variant::Unity => "Unity's fork (2017.3+)",
        }
    }
}

/// `crn_palette`: where one palette's bit stream lives and how many entries it holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Palette {
    pub ofs: u32,
    pub size: u32,
    pub num: u32,
}

/// The parsed `crn_header` (all fields big-endian).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Header {
    pub header_size: u32,
    pub data_size: u32,
    pub width: u32,
    pub height: u32,
    pub levels: u32,
    pub faces: u32,
    pub format: CrnFormat,
    pub color_endpoints: Palette,
    pub color_selectors: Palette,
    pub alpha_endpoints: Palette,
    pub alpha_selectors: Palette,
    pub tables_ofs: u32,
    pub tables_size: u32,
    pub level_ofs: Vec<u32>,
}

fn be(b: &[u8]) -> u32 {
    b.iter().fold(0u32, |v, &x| (v << 8) | x as u32)
}

/// crnlib's crc16 (CCITT polynomial 0x1021, initial and final inversion), used for the header
/// and data checksums of `crn_header`.
pub fn crc16(data: &[u8]) -> u16 {
    let mut crc: u16 = !0;
    for &b in data {
        let q = (b as u16) ^ (crc >> 8);
        crc <<= 8;
        let mut r = (q >> 4) ^ q;
        crc ^= r;
        r <<= 5;
        crc ^= r;
        r <<= 7;
        crc ^= r;
    }
    !crc
}

fn bad(field: &str, msg: impl Into<String>) -> Error {
    Error::malformed(msg).at_field(&format!("crn/crn_header/{field}"))
}

/// Bytes needed to parse the header: the fixed part, then `levels` offsets (the levels count is
/// byte 16). Returns the fixed minimum when `head` is too short to say.
pub fn header_len(head: &[u8]) -> usize {
    match head.get(16) {
        Some(&n) => FIXED_HEADER + 4 * n as usize,
        None => FIXED_HEADER + 4,
    }
}

/// Quick test for openers: signature, a header CRC that matches, and a known format.
pub fn looks_like_crn(head: &[u8]) -> bool {
    head.len() >= FIXED_HEADER + 4
        && head.starts_with(SIGNATURE)
        && {
            let hs = be(&head[2..4]) as usize;
            hs >= header_len(head)
                && hs <= head.len()
                && crc16(&head[6..hs]) == be(&head[4..6]) as u16
        }
        && CrnFormat::from_id(head[18]).is_some()
}

/// Parses and checks `crn_header` from the first bytes of a stream whose whole length is
/// `stream_len`. Every offset and size is checked against the stream; counts are bounded by the
/// bytes they are coded in.
pub fn parse_header(head: &[u8], stream_len: u64) -> Result<Header> {
    if head.len() < 2 || !head.starts_with(SIGNATURE) {
        return Err(bad(
            "m_sig",
            "the stream does not start with the crunch signature 'Hx'",
        ));
    }
    let need = header_len(head);
    if head.len() < need {
        return Err(
            Error::truncated(head.len() as u64, (need - head.len()) as u64, stream_len)
                .at_field("crn/crn_header"),
        );
    }
    let header_size = be(&head[2..4]);
    if (header_size as usize) < need {
        return Err(bad(
            "m_header_size",
            format!("header size {header_size} is smaller than the {need} bytes its fields take"),
        ));
    }
    if head.len() < header_size as usize {
        return Err(Error::truncated(
            head.len() as u64,
            header_size as u64 - head.len() as u64,
            stream_len,
        )
        .at_field("crn/crn_header"));
    }
    let crc = crc16(&head[6..header_size as usize]);
    if crc != be(&head[4..6]) as u16 {
        return Err(bad(
            "m_header_crc16",
            format!(
                "header checksum is 0x{:04x} but the header bytes give 0x{crc:04x}: not a crunch stream, or a damaged one",
                be(&head[4..6])
            ),
        ));
    }
    let data_size = be(&head[6..10]);
    if data_size as u64 > stream_len {
        return Err(Error::new(
            crate::io::ErrorKind::Truncated,
            format!(
                "the crunch stream says it is {data_size} bytes, but only {stream_len} are present"
            ),
        )
        .at_field("crn/crn_header/m_data_size"));
    }
    let width = be(&head[12..14]);
    let height = be(&head[14..16]);
    let levels = head[16] as u32;
    let faces = head[17] as u32;
    let format = CrnFormat::from_id(head[18]).ok_or_else(|| {
        bad(
            "m_format",
            format!("format {} is not a crunch format (0-14)", head[18]),
        )
    })?;
    if width == 0 || height == 0 {
        return Err(bad("m_width", format!("size {width}x{height} is empty")));
    }
    if faces != 1 && faces != 6 {
        return Err(bad(
            "m_faces",
            format!("{faces} faces: crunch holds 1 or 6"),
        ));
    }
    let max_levels = 32 - width.max(height).leading_zeros();
    if levels == 0 || levels as usize > MAX_LEVELS || levels > max_levels {
        return Err(bad(
            "m_levels",
            format!("{levels} levels for {width}x{height} (1 to {max_levels} possible)"),
        ));
    }
    let pal = |at: usize, name: &str| -> Result<Palette> {
        let p = Palette {
            ofs: be(&head[at..at + 3]),
            size: be(&head[at + 3..at + 6]),
            num: be(&head[at + 6..at + 8]),
        };
        if p.num > 0 && (p.ofs < header_size || p.ofs as u64 + p.size as u64 > data_size as u64) {
            return Err(bad(
                name,
                format!(
                    "palette of {} bytes at {} lies outside the {data_size}-byte stream",
                    p.size, p.ofs
                ),
            ));
        }
        Ok(p)
    };
    let color_endpoints = pal(33, "m_color_endpoints")?;
    let color_selectors = pal(41, "m_color_selectors")?;
    let alpha_endpoints = pal(49, "m_alpha_endpoints")?;
    let alpha_selectors = pal(57, "m_alpha_selectors")?;
    let tables_size = be(&head[65..67]);
    let tables_ofs = be(&head[67..70]);
    if tables_ofs < header_size || tables_ofs as u64 + tables_size as u64 > data_size as u64 {
        return Err(bad(
            "m_tables_ofs",
            format!("tables of {tables_size} bytes at {tables_ofs} lie outside the stream"),
        ));
    }
    let level_ofs: Vec<u32> = (0..levels as usize)
        .map(|i| be(&head[FIXED_HEADER + 4 * i..FIXED_HEADER + 4 * i + 4]))
        .collect();
    let mut prev = header_size;
    for (i, &o) in level_ofs.iter().enumerate() {
        if o < prev || o >= data_size {
            return Err(bad(
                "m_level_ofs",
                format!("level {i} starts at {o}, outside {prev}..{data_size}"),
            ));
        }
        prev = o + 1;
    }
    let has_color = color_endpoints.num > 0;
    let has_alpha = alpha_endpoints.num > 0;
    let (want_color, want_alpha) = match format {
        CrnFormat::Dxt1 | CrnFormat::Etc1 | CrnFormat::Etc2 | CrnFormat::Etc1S => (true, false),
        CrnFormat::Dxt5A | CrnFormat::DxnXY | CrnFormat::DxnYX => (false, true),
        _ => (true, true),
    };
    if has_color != want_color || has_alpha != want_alpha {
        return Err(bad(
            "m_format",
            format!(
                "a {} stream needs {} colour and {} alpha palettes, but this one has {} and {}",
                format.name(),
                if want_color { "" } else { "no" },
                if want_alpha { "" } else { "no" },
                color_endpoints.num,
                alpha_endpoints.num
            ),
        ));
    }
    if has_color && color_selectors.num == 0 || has_alpha && alpha_selectors.num == 0 {
        return Err(bad(
            "m_color_selectors",
            "a palette of endpoints has no selectors",
        ));
    }
    Ok(Header {
        header_size,
        data_size,
        width,
        height,
        levels,
        faces,
        format,
        color_endpoints,
        color_selectors,
        alpha_endpoints,
        alpha_selectors,
        tables_ofs,
        tables_size,
        level_ofs,
    })
}

impl Header {
    /// Size of level `level` (max(1, size >> level), as crnlib computes it).
    pub fn level_dims(&self, level: u32) -> (u32, u32) {
        ((self.width >> level).max(1), (self.height >> level).max(1))
    }

    fn level_range(&self, level: usize) -> (usize, usize) {
        let start = self.level_ofs[level] as usize;
        let end = self
            .level_ofs
            .get(level + 1)
            .map_or(self.data_size as usize, |&o| o as usize);
        (start, end)
    }
}

/// MSB-first bit reader over one coded segment (crnlib's symbol_codec: bytes big-endian into the
/// top of the bit buffer, zeros after the end). `consumed` counts the bits taken, so a reader that
/// ran past its segment is caught.
struct Bits<'a> {
    data: &'a [u8],
    pos: usize,
    buf: u64,
    count: u32,
    consumed: u64,
}

impl<'a> Bits<'a> {
    fn new(data: &'a [u8]) -> Self {
        Bits {
            data,
            pos: 0,
            buf: 0,
            count: 0,
            consumed: 0,
        }
    }

    fn refill(&mut self) {
        while self.count <= 56 {
            let b = self.data.get(self.pos).copied().unwrap_or(0);
            self.pos += 1;
            self.buf |= (b as u64) << (56 - self.count);
            self.count += 8;
        }
    }

    fn bits(&mut self, n: u32) -> u32 {
        if n == 0 {
            return 0;
        }
        if self.count < n {
            self.refill();
        }
        let v = (self.buf >> (64 - n)) as u32;
        self.buf <<= n;
        self.count -= n;
        self.consumed += n as u64;
        v
    }

    fn peek16(&mut self) -> u32 {
        if self.count < 16 {
            self.refill();
        }
        (self.buf >> 48) as u32
    }

    fn skip(&mut self, n: u32) {
        self.buf <<= n;
        self.count -= n;
        self.consumed += n as u64;
    }

    /// Bits taken beyond the end of the segment (read as zeros).
    fn overrun(&self) -> u64 {
        self.consumed.saturating_sub(self.data.len() as u64 * 8)
    }
}

/// Bits of the fast lookup table; longer codes fall back to the per-length canonical search.
const FAST_BITS: u32 = 10;

/// A canonical prefix code (crnlib's static_huffman_data_model: codes assigned in order of code
/// length, then symbol, MSB first).
#[derive(Default)]
struct Huffman {
    /// Alphabet size as sent (highest used symbol + 1); 0 for a model that was not sent.
    total: u32,
    /// `(symbol << 8) | length` for codes up to FAST_BITS long, indexed by the next FAST_BITS bits;
    /// 0 when the prefix starts a longer code (or none).
    fast: Vec<u32>,
    first_code: [u32; MAX_CODE_LEN + 1],
    count: [u32; MAX_CODE_LEN + 1],
    first_index: [u32; MAX_CODE_LEN + 1],
    sorted: Vec<u16>,
    min_len: u32,
    max_len: u32,
}

impl Huffman {
    fn from_lengths(lengths: &[u8]) -> std::result::Result<Huffman, String> {
        let mut h = Huffman {
            total: lengths.len() as u32,
            ..Default::default()
        };
        for &l in lengths {
            if l as usize > MAX_CODE_LEN {
                return Err(format!("code length {l} is over 16"));
            }
            if l > 0 {
                h.count[l as usize] += 1;
            }
        }
        let used: u32 = h.count.iter().sum();
        if used == 0 {
            return Err("a prefix code with no symbols".into());
        }
        let mut code = 0u32;
        let mut index = 0u32;
        h.min_len = u32::MAX;
        for len in 1..=MAX_CODE_LEN {
            code <<= 1;
            h.first_code[len] = code;
            h.first_index[len] = index;
            if h.count[len] > 0 {
                h.min_len = h.min_len.min(len as u32);
                h.max_len = len as u32;
            }
            code += h.count[len];
            index += h.count[len];
            if code > 1 << len {
                return Err("code lengths over-subscribe the prefix code".into());
            }
        }
        let mut next = h.first_index;
        h.sorted = vec![0; used as usize];
        for (sym, &l) in lengths.iter().enumerate() {
            if l > 0 {
                h.sorted[next[l as usize] as usize] = sym as u16;
                next[l as usize] += 1;
            }
        }
        h.fast = vec![0; 1 << FAST_BITS];
        for len in 1..=(FAST_BITS as usize).min(h.max_len as usize) {
            for i in 0..h.count[len] {
                let c = h.first_code[len] + i;
                let sym = h.sorted[(h.first_index[len] + i) as usize] as u32;
                let shift = FAST_BITS as usize - len;
                for j in 0..(1u32 << shift) {
                    h.fast[((c << shift) | j) as usize] = (sym << 8) | len as u32;
                }
            }
        }
        Ok(h)
    }

    fn decode(&self, bits: &mut Bits) -> std::result::Result<u32, String> {
        if self.sorted.is_empty() {
            return Err("a symbol is coded with a model the tables did not send".into());
        }
        let peek = bits.peek16();
        let f = self.fast[(peek >> (16 - FAST_BITS)) as usize];
        if f != 0 {
            bits.skip(f & 0xff);
            return Ok(f >> 8);
        }
        for len in self.min_len.max(FAST_BITS + 1)..=self.max_len {
            let code = peek >> (16 - len);
            let l = len as usize;
            if code >= self.first_code[l] && code - self.first_code[l] < self.count[l] {
                bits.skip(len);
                return Ok(
                    self.sorted[(self.first_index[l] + code - self.first_code[l]) as usize] as u32,
                );
            }
        }
        Err("the bits match no code of the prefix code".into())
    }
}

/// crnlib's code-length alphabet order (g_most_probable_codelength_codes).
const CODELENGTH_ORDER: [usize; 21] = [
    17, 18, 19, 20, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15, 16,
];

/// decode_receive_static_data_model: the alphabet size, then code lengths coded with a small
/// prefix code of their own (0-16 literal, 17/18 zero runs, 19/20 repeats of the previous length).
fn receive_model(bits: &mut Bits) -> std::result::Result<Huffman, String> {
    let total = bits.bits(14);
    if total == 0 {
        return Ok(Huffman::default());
    }
    if total > MAX_SYMBOLS {
        return Err(format!("alphabet of {total} symbols is over crnlib's 8192"));
    }
    let n = bits.bits(5) as usize;
    if n == 0 || n > 21 {
        return Err(format!("{n} code-length codes (1 to 21 possible)"));
    }
    let mut cl = [0u8; 21];
    for &s in &CODELENGTH_ORDER[..n] {
        cl[s] = bits.bits(3) as u8;
    }
    let cl_model = Huffman::from_lengths(&cl)?;
    let mut lengths = vec![0u8; total as usize];
    let mut ofs = 0usize;
    while ofs < total as usize {
        let left = total as usize - ofs;
        let code = cl_model.decode(bits)?;
        match code {
            0..=16 => {
                lengths[ofs] = code as u8;
                ofs += 1;
            }
            17 | 18 => {
                let len = if code == 17 {
                    bits.bits(3) as usize + 3
                } else {
                    bits.bits(7) as usize + 11
                };
                if len > left {
                    return Err("a zero run passes the end of the alphabet".into());
                }
                ofs += len;
            }
            _ => {
                let len = if code == 19 {
                    bits.bits(2) as usize + 3
                } else {
                    bits.bits(6) as usize + 7
                };
                let prev = if ofs == 0 { 0 } else { lengths[ofs - 1] };
                if len > left || prev == 0 {
                    return Err("a repeat has no previous length or passes the end".into());
                }
                lengths[ofs..ofs + len].fill(prev);
                ofs += len;
            }
        }
    }
    let mut h = Huffman::from_lengths(&lengths)?;
    h.total = total;
    Ok(h)
}

/// Reads just the alphabet size a palette's first model sends (its first 14 bits).
fn alphabet_size(data: &[u8], p: &Palette) -> Option<u32> {
    let s = data.get(p.ofs as usize..p.ofs as usize + p.size.min(2) as usize)?;
    Some(Bits::new(s).bits(14))
}

/// Tells the variant from the first bytes of the selector palettes (see the module comment).
/// `data` needs only to hold the first two bytes of each selector palette at their offsets.
pub fn detect_variant(h: &Header, data: &[u8]) -> Result<Variant> {
    let mut votes = Vec::new();
    if h.color_selectors.num > 0 {
        let n = alphabet_size(data, &h.color_selectors).ok_or_else(|| {
            bad(
                "m_color_selectors",
                "the colour selector palette is cut off",
            )
        })?;
        votes.push((
            "colour",
            n,
            if n <= 16 {
                Variant::Unity
            } else {
                Variant::Crnlib
            },
        ));
    }
    if h.alpha_selectors.num > 0 {
        let n = alphabet_size(data, &h.alpha_selectors)
            .ok_or_else(|| bad("m_alpha_selectors", "the alpha selector palette is cut off"))?;
        let v = if n <= 64 {
            Variant::Unity
        } else if n <= 225 {
            Variant::Crnlib
        } else {
            return Err(bad(
                "m_alpha_selectors",
                format!("alpha selector alphabet of {n} symbols fits neither crnlib (225) nor Unity's fork (64)"),
            ));
        };
        votes.push(("alpha", n, v));
    }
    if let Some(&(_, n, v)) = votes.first() {
        if votes.len() == 2 && votes[1].2 != v {
            return Err(bad(
                "m_color_selectors",
                format!(
                    "the colour selectors ({n} symbols) look like {} but the alpha selectors ({} symbols) like {}: the stream matches neither variant",
                    v.name(),
                    votes[1].1,
                    votes[1].2.name()
                ),
            ));
        }
        if votes[0].0 == "colour" && n > 49 {
            return Err(bad(
                "m_color_selectors",
                format!("colour selector alphabet of {n} symbols fits neither crnlib (49) nor Unity's fork (16)"),
            ));
        }
        if v == Variant::Crnlib && h.format.is_etc() {
            return Err(bad(
                "m_format",
                format!(
                    "{} is only written by Unity's fork, but the selector palette is coded the crnlib way",
                    h.format.name()
                ),
            ));
        }
        return Ok(v);
    }
    Err(bad(
        "m_color_selectors",
        "the stream has no selector palette",
    ))
}

/// A crunch stream with its tables and palettes decoded, ready to unpack any level.
pub struct Crunch<'a> {
    pub header: Header,
    pub variant: Variant,
    data: &'a [u8],
    /// crnlib: chunk encodings; Unity: endpoint references.
    chunk_dm: Huffman,
    endpoint_dm: [Huffman; 2],
    selector_dm: [Huffman; 2],
    color_endpoints: Vec<u32>,
    /// 32-bit DXT1/ETC selector words; ETC with sub-blocks keeps two per entry (unflipped, flipped).
    color_selectors: Vec<u32>,
    alpha_endpoints: Vec<u16>,
    /// Alpha selector bytes as they go after the two endpoint bytes of a DXT5-alpha / EAC block;
    /// `alpha_stride` bytes per entry (12 for ETC2A: unflipped then flipped).
    alpha_selectors: Vec<u8>,
    alpha_stride: usize,
}

fn segment<'a>(data: &'a [u8], ofs: u32, size: u32, what: &str) -> Result<&'a [u8]> {
    data.get(ofs as usize..ofs as usize + size as usize)
        .ok_or_else(|| {
            bad(
                what,
                format!("{size} bytes at {ofs} lie outside the stream"),
            )
        })
}

impl<'a> Crunch<'a> {
    /// Parses the header, tells the variant and decodes the tables and palettes of a whole crunch
    /// stream held in `data`.
    pub fn new(data: &'a [u8]) -> Result<Crunch<'a>> {
        let header = parse_header(
            &data[..data.len().min(FIXED_HEADER + 4 * 255)],
            data.len() as u64,
        )?;
        let data = &data[..header.data_size as usize];
        // crn_header's data checksum covers everything after the header (palettes, tables and
        // levels): a damaged stream is refused here instead of decoding to wrong texels.
        let want = be(&data[10..12]) as u16;
        let got = crc16(&data[header.header_size as usize..]);
        if got != want {
            return Err(bad(
                "m_data_crc16",
                format!("data checksum is 0x{want:04x} but the data gives 0x{got:04x}: the stream is damaged"),
            ));
        }
        let variant = detect_variant(&header, data)?;
        let mut c = Crunch {
            header,
            variant,
            data,
            chunk_dm: Huffman::default(),
            endpoint_dm: Default::default(),
            selector_dm: Default::default(),
            color_endpoints: Vec::new(),
            color_selectors: Vec::new(),
            alpha_endpoints: Vec::new(),
            alpha_selectors: Vec::new(),
            alpha_stride: 6,
        };
        c.decode_tables()?;
        if c.header.color_endpoints.num > 0 {
            c.decode_color_endpoints()?;
            c.decode_color_selectors()?;
        }
        if c.header.alpha_endpoints.num > 0 {
            c.decode_alpha_endpoints()?;
            c.decode_alpha_selectors()?;
        }
        Ok(c)
    }

    /// A palette's bit stream and the first prefix code it sends.
    fn palette(&self, p: Palette, field: &str) -> Result<(Bits<'a>, Huffman)> {
        let mut b = Bits::new(segment(self.data, p.ofs, p.size, field)?);
        let dm = receive_model(&mut b).map_err(|m| bad(field, m))?;
        Ok((b, dm))
    }

    fn decode_tables(&mut self) -> Result<()> {
        let h = &self.header;
        let seg = segment(self.data, h.tables_ofs, h.tables_size, "m_tables_ofs")?;
        let mut b = Bits::new(seg);
        let e = |m: String| bad("m_tables_ofs", format!("tables: {m}"));
        self.chunk_dm = receive_model(&mut b).map_err(e)?;
        if h.color_endpoints.num > 0 {
            self.endpoint_dm[0] = receive_model(&mut b).map_err(e)?;
            self.selector_dm[0] = receive_model(&mut b).map_err(e)?;
        }
        if h.alpha_endpoints.num > 0 {
            self.endpoint_dm[1] = receive_model(&mut b).map_err(e)?;
            self.selector_dm[1] = receive_model(&mut b).map_err(e)?;
        }
        Ok(())
    }

    fn decode_color_endpoints(&mut self) -> Result<()> {
        let p = self.header.color_endpoints;
        let etc = self.header.format.is_etc();
        let sub = self.header.format.has_subblocks();
        let e = |m: String| bad("m_color_endpoints", m);
        let (mut b, dm0) = self.palette(p, "m_color_endpoints")?;
        let dm1 = if etc {
            Huffman::default()
        } else {
            receive_model(&mut b).map_err(e)?
        };
        let mut out = Vec::with_capacity(p.num as usize);
        let mut v = [0u32; 6];
        let mut a = 0u32;
        for _ in 0..p.num {
            if etc {
                // Four 5-bit values (R, G, B and the table / "S" intensity) summed byte-wise.
                for sh in [0, 8, 16, 24] {
                    a = a.wrapping_add(dm0.decode(&mut b).map_err(e)?.wrapping_shl(sh));
                }
                a &= 0x1f1f_1f1f;
                out.push(if sub {
                    a
                } else {
                    // ETC1S: one colour for both halves, as a differential ETC1 block header
                    // (RGB in the top 5 bits, zero deltas, the same table for both halves).
                    ((a & 0x0700_0000) << 5)
                        | ((a & 0x0700_0000) << 2)
                        | 0x0200_0000
                        | ((a & 0x001f_1f1f) << 3)
                });
            } else {
                // Deltas of R0 G0 B0 R1 G1 B1 (5/6/5 bits), packed as two RGB565 colours.
                let order = [
                    (0, 31, 0),
                    (1, 63, 1),
                    (2, 31, 0),
                    (3, 31, 0),
                    (4, 63, 1),
                    (5, 31, 0),
                ];
                for (i, mask, m) in order {
                    let d = if m == 0 { &dm0 } else { &dm1 }.decode(&mut b).map_err(e)?;
                    v[i] = (v[i] + d) & mask;
                }
                out.push(
                    v[2] | (v[1] << 5) | (v[0] << 11) | (v[5] << 16) | (v[4] << 21) | (v[3] << 27),
                );
            }
        }
        check_overrun(&b, "m_color_endpoints")?;
        self.color_endpoints = out;
        Ok(())
    }

    fn decode_color_selectors(&mut self) -> Result<()> {
        let p = self.header.color_selectors;
        let fmt = self.header.format;
        let e = |m: String| bad("m_color_selectors", m);
        let (mut b, dm) = self.palette(p, "m_color_selectors")?;
        let sub = fmt.has_subblocks();
        let mut out = vec![0u32; (p.num as usize) << sub as usize];
        match self.variant {
            Variant::Crnlib => {
                // Texel-pair deltas in -3..3 of linear selectors, mapped to DXT1 order.
                const FROM_LINEAR: [u32; 4] = [0, 2, 3, 1];
                let mut cur = [0i32; 16];
                for o in out.iter_mut() {
                    for j in 0..8 {
                        let sym = dm.decode(&mut b).map_err(e)? as i32;
                        if sym >= 49 {
                            return Err(e(format!("selector delta symbol {sym} is over 48")));
                        }
                        cur[2 * j] = (cur[2 * j] + sym % 7 - 3) & 3;
                        cur[2 * j + 1] = (cur[2 * j + 1] + sym / 7 - 3) & 3;
                    }
                    *o = (0..16).fold(0, |w, j| w | FROM_LINEAR[cur[j] as usize] << (2 * j));
                }
            }
            Variant::Unity => {
                let mut s = 0u32;
                for i in 0..p.num as usize {
                    for j in (0..32).step_by(4) {
                        s ^= dm.decode(&mut b).map_err(e)?.wrapping_shl(j);
                    }
                    if fmt.is_etc() {
                        // Linear selectors to ETC's index bits (MSB plane then LSB plane, texels
                        // column-major); with sub-blocks, a transposed copy serves flipped blocks.
                        let sel = (!s & 0xaaaa_aaaa) | (!(s ^ (s >> 1)) & 0x5555_5555);
                        let mut t = 8u32;
                        for hh in 0..4u32 {
                            for w in 0..4u32 {
                                if sub {
                                    let s0 = sel >> ((w << 3) | (hh << 1));
                                    out[i << 1] |= (((s0 >> 1) & 1) | ((s0 & 1) << 16)) << (t & 15);
                                }
                                let s1 = sel >> ((hh << 3) | (w << 1));
                                let k = if sub { (i << 1) | 1 } else { i };
                                out[k] |= (((s1 >> 1) & 1) | ((s1 & 1) << 16)) << (t & 15);
                                t = t.wrapping_add(4);
                            }
                            t = t.wrapping_sub(15);
                        }
                    } else {
                        out[i] = ((s ^ (s << 1)) & 0xaaaa_aaaa) | ((s >> 1) & 0x5555_5555);
                    }
                }
            }
        }
        check_overrun(&b, "m_color_selectors")?;
        self.color_selectors = out;
        Ok(())
    }

    fn decode_alpha_endpoints(&mut self) -> Result<()> {
        let p = self.header.alpha_endpoints;
        let e = |m: String| bad("m_alpha_endpoints", m);
        let (mut b, dm) = self.palette(p, "m_alpha_endpoints")?;
        let (mut a, mut c) = (0u32, 0u32);
        let mut out = Vec::with_capacity(p.num as usize);
        for _ in 0..p.num {
            a = (a + dm.decode(&mut b).map_err(e)?) & 255;
            c = (c + dm.decode(&mut b).map_err(e)?) & 255;
            out.push((a | (c << 8)) as u16);
        }
        check_overrun(&b, "m_alpha_endpoints")?;
        self.alpha_endpoints = out;
        Ok(())
    }

    fn decode_alpha_selectors(&mut self) -> Result<()> {
        let p = self.header.alpha_selectors;
        let fmt = self.header.format;
        let e = |m: String| bad("m_alpha_selectors", m);
        let (mut b, dm) = self.palette(p, "m_alpha_selectors")?;
        const DXT5_FROM_LINEAR: [u64; 8] = [0, 2, 3, 4, 5, 6, 7, 1];
        let n = p.num as usize;
        let stride = if fmt == CrnFormat::Etc2A { 12 } else { 6 };
        let mut out = vec![0u8; n * stride];
        match (self.variant, fmt) {
            (Variant::Crnlib, _) => {
                // Texel-pair deltas in -7..7 of linear 3-bit selectors, mapped to DXT5 order.
                let mut cur = [0i32; 16];
                for o in out.chunks_exact_mut(6) {
                    for j in 0..8 {
                        let sym = dm.decode(&mut b).map_err(e)? as i32;
                        if sym >= 225 {
                            return Err(e(format!("selector delta symbol {sym} is over 224")));
                        }
                        cur[2 * j] = (cur[2 * j] + sym % 15 - 7) & 7;
                        cur[2 * j + 1] = (cur[2 * j + 1] + sym / 15 - 7) & 7;
                    }
                    let v = (0..16).fold(0u64, |w, j| {
                        w | DXT5_FROM_LINEAR[cur[j] as usize] << (3 * j)
                    });
                    o.copy_from_slice(&v.to_le_bytes()[..6]);
                }
            }
            (Variant::Unity, CrnFormat::Etc2A | CrnFormat::Etc2AS) => {
                // Pairs of 3-bit selectors XOR-coded per byte; written as EAC's 48 index bits
                // (big-endian, texels column-major), for ETC2A also transposed for flipped blocks.
                let mut lin = [0u8; 8];
                for o in out.chunks_exact_mut(stride) {
                    let mut group = 0u32;
                    for px in 0..16i32 {
                        if px & 1 == 1 {
                            group >>= 3;
                        } else {
                            lin[(px >> 1) as usize] ^= dm.decode(&mut b).map_err(e)? as u8;
                            group = lin[(px >> 1) as usize] as u32;
                        }
                        let mut s = group & 7;
                        if s <= 3 {
                            s = 3 - s;
                        }
                        let transposed = 3 * (px + 1) + 9 * ((px & 3) - (px >> 2));
                        let places: &[(i32, usize)] = if fmt == CrnFormat::Etc2A {
                            &[(3 * (px + 1), 0), (transposed, 6)]
                        } else {
                            &[(transposed, 0)]
                        };
                        for &(d, base) in places {
                            let (byte, bit) = ((d >> 3) as usize + base, (d & 7) as u32);
                            // At bit 0 the shifted value leaves the byte (crnlib ORs in zero).
                            if bit != 0 {
                                o[byte] |= (s << (8 - bit)) as u8;
                            }
                            if bit < 3 {
                                o[byte - 1] |= (s >> bit) as u8;
                            }
                        }
                    }
                }
            }
            (Variant::Unity, _) => {
                let mut table = [0u32; 64];
                for (i, t) in table.iter_mut().enumerate() {
                    *t = (DXT5_FROM_LINEAR[i & 7] | DXT5_FROM_LINEAR[i >> 3] << 3) as u32;
                }
                let (mut l0, mut l1) = (0u32, 0u32);
                for o in out.chunks_exact_mut(6) {
                    let (mut s0, mut s1) = (0u32, 0u32);
                    for j in (0..24).step_by(6) {
                        l0 ^= dm.decode(&mut b).map_err(e)?.wrapping_shl(j);
                        s0 |= table[((l0 >> j) & 0x3f) as usize] << j;
                    }
                    for j in (0..24).step_by(6) {
                        l1 ^= dm.decode(&mut b).map_err(e)?.wrapping_shl(j);
                        s1 |= table[((l1 >> j) & 0x3f) as usize] << j;
                    }
                    let v = s0 as u64 | (s1 as u64) << 24;
                    o.copy_from_slice(&v.to_le_bytes()[..6]);
                }
            }
        }
        check_overrun(&b, "m_alpha_selectors")?;
        self.alpha_selectors = out;
        self.alpha_stride = stride;
        Ok(())
    }

    /// The blocks of level `level`, face `face`, row-major, `block_format()` bytes per block.
    pub fn unpack(&self, level: u32, face: u32, limits: &Limits) -> Result<Vec<u8>> {
        let h = &self.header;
        if level >= h.levels {
            return Err(Error::malformed(format!(
                "the crunch stream holds {} levels; there is no level {level}",
                h.levels
            )));
        }
        if face >= h.faces {
            return Err(Error::malformed(format!(
                "the crunch stream holds {} faces; there is no face {face}",
                h.faces
            )));
        }
        let (w, hgt) = h.level_dims(level);
        let (bx, by) = (w.div_ceil(4) as usize, hgt.div_ceil(4) as usize);
        let bpb = h.format.block_format().block().bytes as usize;
        let size = (bx * by * bpb) as u64;
        limits.check_alloc(size * (face as u64 + 1), "crunch level")?;
        let (start, end) = h.level_range(level as usize);
        let mut bits = Bits::new(&self.data[start..end]);
        let mut out = Out {
            blocks: vec![0u8; size as usize],
            face: face as usize,
            bx,
            by,
            bpb,
        };
        let r = match (self.variant, h.format) {
            (_, CrnFormat::Dxt3) => Err(
                "DXT3 crunch streams are not decodable (crnlib has no unpacker for them)"
                    .to_string(),
            ),
            (Variant::Crnlib, _) => self.unpack_crnlib(&mut bits, &mut out),
            (Variant::Unity, CrnFormat::Etc1 | CrnFormat::Etc2 | CrnFormat::Etc2A) => {
                self.unpack_unity_etc(&mut bits, &mut out)
            }
            (Variant::Unity, _) => self.unpack_unity(&mut bits, &mut out),
        };
        // A cube's faces share the level's bit stream, one after another: face N needs faces
        // 0 to N-1 read first, so a stream cut in face N fails there and for later faces only.
        let place = if h.faces > 1 {
            format!("level {level}, face {face}")
        } else {
            format!("level {level}")
        };
        r.map_err(|m| Error::malformed(format!("{place}: {m}")).at_field("crn/level data"))?;
        // A stream read with the wrong rules, or cut short, asks for bits past its level.
        if bits.overrun() > 32 {
            return Err(Error::malformed(format!(
                "{place}: the blocks need {} more bits than the level's {} bytes hold: a damaged stream, or not the {} variant",
                bits.overrun(),
                end - start,
                self.variant.name()
            ))
            .at_field("crn/level data"));
        }
        Ok(out.blocks)
    }

    fn color_ep(&self, i: u32) -> std::result::Result<u32, String> {
        self.color_endpoints
            .get(i as usize)
            .copied()
            .ok_or_else(|| {
                format!(
                    "colour endpoint {i} is past the palette's {}",
                    self.color_endpoints.len()
                )
            })
    }

    fn color_sel(&self, i: u32) -> std::result::Result<u32, String> {
        self.color_selectors
            .get(i as usize)
            .copied()
            .ok_or_else(|| {
                format!(
                    "colour selector {i} is past the palette's {}",
                    self.color_selectors.len()
                )
            })
    }

    fn alpha_ep(&self, i: u32) -> std::result::Result<u16, String> {
        self.alpha_endpoints
            .get(i as usize)
            .copied()
            .ok_or_else(|| {
                format!(
                    "alpha endpoint {i} is past the palette's {}",
                    self.alpha_endpoints.len()
                )
            })
    }

    /// One alpha half-block (2 endpoint bytes + 6 selector bytes); `part` 1 picks ETC2A's flipped
    /// selector copy.
    fn alpha_block(&self, ep: u32, sel: u32, part: usize) -> std::result::Result<[u8; 8], String> {
        let e = self.alpha_ep(ep)?;
        let at = sel as usize * self.alpha_stride + part * 6;
        let s = self.alpha_selectors.get(at..at + 6).ok_or_else(|| {
            format!(
                "alpha selector {sel} is past the palette's {}",
                self.alpha_selectors.len() / self.alpha_stride
            )
        })?;
        let mut b = [0u8; 8];
        b[..2].copy_from_slice(&e.to_le_bytes());
        b[2..].copy_from_slice(s);
        Ok(b)
    }

    /// crnlib's original coding: per 2x2-block chunk, a chunk encoding (which of the four blocks
    /// share endpoints: 1-4 tiles) taken three at a time from one symbol, then endpoint index
    /// deltas per tile and selector index deltas per block. Chunk rows run serpentine.
    fn unpack_crnlib(&self, b: &mut Bits, out: &mut Out) -> std::result::Result<(), String> {
        const NUM_TILES: [usize; 8] = [1, 2, 2, 3, 3, 3, 3, 4];
        const TILES: [[usize; 4]; 8] = [
            [0, 0, 0, 0],
            [0, 0, 1, 1],
            [0, 1, 0, 1],
            [0, 0, 1, 2],
            [1, 2, 0, 0],
            [0, 1, 0, 2],
            [1, 0, 2, 0],
            [0, 1, 2, 3],
        ];
        let fmt = self.header.format;
        let (cx, cy) = (out.bx.div_ceil(2), out.by.div_ceil(2));
        let n_ce = self.color_endpoints.len() as u32;
        let n_cs = self.color_selectors.len() as u32;
        let n_ae = self.alpha_endpoints.len() as u32;
        let n_as = (self.alpha_selectors.len() / self.alpha_stride) as u32;
        let (mut ce, mut cs, mut ae0, mut ae1, mut as0, mut as1) =
            (0u32, 0u32, 0u32, 0u32, 0u32, 0u32);
        let mut enc_bits = 1u32;
        for face in 0..=out.face {
            for y in 0..cy {
                row_check(b)?;
                let xs: Box<dyn Iterator<Item = usize>> = if y & 1 == 1 {
                    Box::new((0..cx).rev())
                } else {
                    Box::new(0..cx)
                };
                for x in xs {
                    if enc_bits == 1 {
                        enc_bits = self.chunk_dm.decode(b)? | 512;
                    }
                    let enc = (enc_bits & 7) as usize;
                    enc_bits >>= 3;
                    let tiles = NUM_TILES[enc];
                    let (mut cep, mut a0, mut a1) = ([0u32; 4], [0u32; 4], [0u32; 4]);
                    let has_color =
                        !matches!(fmt, CrnFormat::Dxt5A | CrnFormat::DxnXY | CrnFormat::DxnYX);
                    let has_alpha = fmt != CrnFormat::Dxt1;
                    let dxn = matches!(fmt, CrnFormat::DxnXY | CrnFormat::DxnYX);
                    if has_alpha {
                        for t in a0.iter_mut().take(tiles) {
                            advance(&mut ae0, self.endpoint_dm[1].decode(b)?, n_ae);
                            *t = ae0;
                        }
                    }
                    if dxn {
                        for t in a1.iter_mut().take(tiles) {
                            advance(&mut ae1, self.endpoint_dm[1].decode(b)?, n_ae);
                            *t = ae1;
                        }
                    }
                    if has_color {
                        for t in cep.iter_mut().take(tiles) {
                            advance(&mut ce, self.endpoint_dm[0].decode(b)?, n_ce);
                            *t = ce;
                        }
                    }
                    for (k, &tile) in TILES[enc].iter().enumerate() {
                        let (dx, dy) = (k & 1, k >> 1);
                        let mut blk = [0u8; 16];
                        match fmt {
                            CrnFormat::Dxt1 => {
                                advance(&mut cs, self.selector_dm[0].decode(b)?, n_cs);
                                blk[..4].copy_from_slice(&self.color_ep(cep[tile])?.to_le_bytes());
                                blk[4..8].copy_from_slice(&self.color_sel(cs)?.to_le_bytes());
                            }
                            CrnFormat::Dxt5A => {
                                advance(&mut as0, self.selector_dm[1].decode(b)?, n_as);
                                blk[..8].copy_from_slice(&self.alpha_block(a0[tile], as0, 0)?);
                            }
                            CrnFormat::DxnXY | CrnFormat::DxnYX => {
                                advance(&mut as0, self.selector_dm[1].decode(b)?, n_as);
                                advance(&mut as1, self.selector_dm[1].decode(b)?, n_as);
                                blk[..8].copy_from_slice(&self.alpha_block(a0[tile], as0, 0)?);
                                blk[8..].copy_from_slice(&self.alpha_block(a1[tile], as1, 0)?);
                            }
                            _ => {
                                advance(&mut as0, self.selector_dm[1].decode(b)?, n_as);
                                advance(&mut cs, self.selector_dm[0].decode(b)?, n_cs);
                                blk[..8].copy_from_slice(&self.alpha_block(a0[tile], as0, 0)?);
                                blk[8..12]
                                    .copy_from_slice(&self.color_ep(cep[tile])?.to_le_bytes());
                                blk[12..].copy_from_slice(&self.color_sel(cs)?.to_le_bytes());
                            }
                        }
                        out.put(face, 2 * x + dx, 2 * y + dy, &blk);
                    }
                }
            }
        }
        Ok(())
    }

    /// Unity's fork for DXT1 / DXT5 / DXT5A / DXN / ETC1S / ETC2AS: blocks in raster order; per 2x2
    /// group one symbol gives each block's endpoint reference (0 new delta, 1 same as the left
    /// block, 2 same as the block above); selector indices are coded directly.
    fn unpack_unity(&self, b: &mut Bits, out: &mut Out) -> std::result::Result<(), String> {
        let fmt = self.header.format;
        let w = out.bx.next_multiple_of(2);
        let h = out.by.next_multiple_of(2);
        let n_ce = self.color_endpoints.len() as u32;
        let n_ae = self.alpha_endpoints.len() as u32;
        let has_color = !matches!(fmt, CrnFormat::Dxt5A | CrnFormat::DxnXY | CrnFormat::DxnYX);
        let has_alpha = !matches!(fmt, CrnFormat::Dxt1 | CrnFormat::Etc1S);
        let dxn = matches!(fmt, CrnFormat::DxnXY | CrnFormat::DxnYX);
        // Per column: the reference for the block below, and the indices of the block above.
        let mut buf = vec![[0u32; 4]; w];
        let (mut ce, mut ae0, mut ae1) = (0u32, 0u32, 0u32);
        let mut group = 0u32;
        for face in 0..=out.face {
            for y in 0..h {
                row_check(b)?;
                for (x, col) in buf.iter_mut().enumerate() {
                    if y & 1 == 0 && x & 1 == 0 {
                        group = self.chunk_dm.decode(b)?;
                    }
                    let reference = if y & 1 == 1 {
                        col[0]
                    } else {
                        let r = group & 3;
                        col[0] = (group >> 2) & 3;
                        group >>= 4;
                        r
                    };
                    match reference {
                        0 => {
                            if has_color {
                                advance(&mut ce, self.endpoint_dm[0].decode(b)?, n_ce);
                            }
                            if has_alpha {
                                advance(&mut ae0, self.endpoint_dm[1].decode(b)?, n_ae);
                            }
                            if dxn {
                                advance(&mut ae1, self.endpoint_dm[1].decode(b)?, n_ae);
                            }
                            col[1..].copy_from_slice(&[ce, ae0, ae1]);
                        }
                        1 => col[1..].copy_from_slice(&[ce, ae0, ae1]),
                        _ => [ce, ae0, ae1] = [col[1], col[2], col[3]],
                    }
                    let mut blk = [0u8; 16];
                    let visible = x < out.bx && y < out.by;
                    match fmt {
                        CrnFormat::Dxt1 | CrnFormat::Etc1S => {
                            let cs = self.selector_dm[0].decode(b)?;
                            if visible {
                                blk[..4].copy_from_slice(&self.color_ep(ce)?.to_le_bytes());
                                blk[4..8].copy_from_slice(&self.color_sel(cs)?.to_le_bytes());
                            }
                        }
                        CrnFormat::Dxt5A => {
                            let s0 = self.selector_dm[1].decode(b)?;
                            if visible {
                                blk[..8].copy_from_slice(&self.alpha_block(ae0, s0, 0)?);
                            }
                        }
                        CrnFormat::DxnXY | CrnFormat::DxnYX => {
                            let s0 = self.selector_dm[1].decode(b)?;
                            let s1 = self.selector_dm[1].decode(b)?;
                            if visible {
                                blk[..8].copy_from_slice(&self.alpha_block(ae0, s0, 0)?);
                                blk[8..].copy_from_slice(&self.alpha_block(ae1, s1, 0)?);
                            }
                        }
                        _ => {
                            let cs = self.selector_dm[0].decode(b)?;
                            let s0 = self.selector_dm[1].decode(b)?;
                            if visible {
                                blk[..8].copy_from_slice(&self.alpha_block(ae0, s0, 0)?);
                                blk[8..12].copy_from_slice(&self.color_ep(ce)?.to_le_bytes());
                                blk[12..].copy_from_slice(&self.color_sel(cs)?.to_le_bytes());
                            }
                        }
                    }
                    if visible {
                        out.put(face, x, y, &blk);
                    }
                }
            }
        }
        Ok(())
    }

    /// Unity's fork for ETC1 / ETC2 / ETC2A: every block has two sub-block endpoints; the first
    /// comes by reference (0 new, 1 left, 2 above, 3 the diagonal), the second is either the same
    /// or a new delta; the flip bit comes with the reference symbol.
    fn unpack_unity_etc(&self, b: &mut Bits, out: &mut Out) -> std::result::Result<(), String> {
        let fmt = self.header.format;
        let alpha = fmt == CrnFormat::Etc2A;
        let w = out.bx.next_multiple_of(2);
        let h = out.by.next_multiple_of(2);
        let n_ce = self.color_endpoints.len() as u32;
        let n_ae = self.alpha_endpoints.len() as u32;
        // Per column: [reference for below, colour index above, alpha index above] for the first
        // sub-block, and [_, colour, alpha] of the second sub-block (the next row's diagonal).
        let mut buf = vec![[0u32; 3]; 2 * w];
        let (mut ce, mut diag_ce, mut ae, mut diag_ae) = (0u32, 0u32, 0u32, 0u32);
        for face in 0..=out.face {
            for y in 0..h {
                row_check(b)?;
                for x in 0..w {
                    let reference = if y & 1 == 1 {
                        buf[2 * x][0]
                    } else {
                        let g = self.chunk_dm.decode(b)?;
                        buf[2 * x][0] = ((g >> 2) & 3) | ((g >> 4) & 12);
                        (g & 3) | ((g >> 2) & 12)
                    };
                    match reference & 3 {
                        0 => {
                            advance(&mut ce, self.endpoint_dm[0].decode(b)?, n_ce);
                            if alpha {
                                advance(&mut ae, self.endpoint_dm[1].decode(b)?, n_ae);
                            }
                            buf[2 * x][1] = ce;
                            buf[2 * x][2] = ae;
                        }
                        1 => {
                            buf[2 * x][1] = ce;
                            buf[2 * x][2] = ae;
                        }
                        3 => {
                            ce = diag_ce;
                            ae = diag_ae;
                            buf[2 * x][1] = ce;
                            buf[2 * x][2] = ae;
                        }
                        _ => {
                            ce = buf[2 * x][1];
                            ae = buf[2 * x][2];
                        }
                    }
                    let second = reference >> 2;
                    let e0 = self.color_ep(ce)?.to_le_bytes();
                    let sel = self.selector_dm[0].decode(b)?;
                    let asel = if alpha {
                        self.selector_dm[1].decode(b)?
                    } else {
                        0
                    };
                    if second != 0 {
                        advance(&mut ce, self.endpoint_dm[0].decode(b)?, n_ce);
                    }
                    let e1 = self.color_ep(ce)?.to_le_bytes();
                    diag_ce = buf[2 * x + 1][1];
                    diag_ae = buf[2 * x + 1][2];
                    buf[2 * x + 1][1] = ce;
                    buf[2 * x + 1][2] = ae;
                    if x < out.bx && y < out.by {
                        let flip = (second >> 1) ^ 1;
                        let diff = (0..3).all(|c| {
                            e0[c] as i32 + 3 >= e1[c] as i32 && e1[c] as i32 + 4 >= e0[c] as i32
                        });
                        let mut color = [0u8; 8];
                        for c in 0..3 {
                            color[c] = if diff {
                                (e0[c] << 3) | (e1[c].wrapping_sub(e0[c]) & 7)
                            } else {
                                ((e0[c] << 3) & 0xf0) | (e1[c] >> 1)
                            };
                        }
                        color[3] = (e0[3] << 5) | (e1[3] << 2) | ((diff as u8) << 1) | flip as u8;
                        color[4..]
                            .copy_from_slice(&self.color_sel((sel << 1) | flip)?.to_le_bytes());
                        let mut blk = [0u8; 16];
                        if alpha {
                            blk[..8].copy_from_slice(&self.alpha_block(ae, asel, flip as usize)?);
                            blk[8..].copy_from_slice(&color);
                        } else {
                            blk[..8].copy_from_slice(&color);
                        }
                        out.put(face, x, y, &blk);
                    }
                }
            }
        }
        Ok(())
    }
}

/// Stops a level early once it has read well past its data (a huge level of a cut or hostile
/// stream would otherwise decode millions of blocks from padding zeros before failing).
fn row_check(b: &Bits) -> std::result::Result<(), String> {
    if b.overrun() > 1024 {
        return Err(format!(
            "the blocks need more bits than the level's {} bytes hold",
            b.data.len()
        ));
    }
    Ok(())
}

/// Adds a coded delta to a palette index, wrapping once at the palette size (crnlib's `limit`).
fn advance(i: &mut u32, d: u32, n: u32) {
    *i += d;
    if *i >= n {
        *i -= n;
    }
}

fn check_overrun(b: &Bits, field: &str) -> Result<()> {
    if b.overrun() > 32 {
        return Err(bad(
            field,
            format!("the palette needs {} more bits than it holds", b.overrun()),
        ));
    }
    Ok(())
}

/// The blocks of the one face asked for; other faces are decoded (their state carries over) but
/// not kept.
struct Out {
    blocks: Vec<u8>,
    face: usize,
    bx: usize,
    by: usize,
    bpb: usize,
}

impl Out {
    fn put(&mut self, face: usize, x: usize, y: usize, blk: &[u8; 16]) {
        if face == self.face && x < self.bx && y < self.by {
            let at = (y * self.bx + x) * self.bpb;
            self.blocks[at..at + self.bpb].copy_from_slice(&blk[..self.bpb]);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn crc16_matches_the_ccitt_check_value() {
        // CRC-16/GENIBUS (poly 0x1021, init 0xffff, xorout 0xffff, not reflected): check value of
        // "123456789" is 0xd64e (Greg Cook's CRC catalogue). crnlib's crc16 is that CRC.
        assert_eq!(crc16(b"123456789"), 0xd64e);
    }

    #[test]
    fn canonical_codes_decode_in_length_then_symbol_order() {
        // Lengths a=2, b=1, c=3, d=3 give b=0, a=10, c=110, d=111 (DEFLATE's canonical rule,
        // RFC 1951 section 3.2.2, which crnlib's prefix coding follows).
        let h = Huffman::from_lengths(&[2, 1, 3, 3]).unwrap();
        let data = [0b0101_1011, 0b1000_0000];
        let mut b = Bits::new(&data);
        let got: Vec<u32> = (0..4).map(|_| h.decode(&mut b).unwrap()).collect();
        assert_eq!(got, vec![1, 0, 2, 3]);
        assert!(
            Huffman::from_lengths(&[1, 1, 1]).is_err(),
            "over-subscribed"
        );
    }
}
