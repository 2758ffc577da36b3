//! BasisLZ / ETC1S (Basis Universal): the global codebooks (endpoints, selectors, the slice Huffman
//! tables) and the slices that index them, decoded to ETC1 blocks. ETC1S is the subset of ETC1
//! whose two half-blocks share one 5:5:5 colour and one intensity table (differential mode, zero
//! deltas), so every ETC1S block is an ETC1 block and the ETC1 decoder (etc.rs) turns it into
//! texels; an alpha slice is a second ETC1S image whose green channel is the alpha (what the
//! reference transcoder writes to RGBA32's alpha).
//!
//! Written from the KTX 2.0 specification's "BasisLZ/ETC1S Bitstream Specification" and "BasisLZ
//! Global Data" appendices (Khronos): RFC 1951-style canonical Huffman tables sent as run-length
//! coded code lengths, DPCM endpoint and XOR-delta selector codebooks, per-slice endpoint prediction
//! symbols every 2x2 blocks, the selector history buffer (approximate move-to-front) with its
//! run-length symbol, and the conditional-replenishment P-frames of ETC1S video. Not a crate: the
//! one pure-Rust transcoder (`basisu` 0.1.0) measured 534,702 B gzipped in a wasm build asking only
//! for RGBA32 output (it carries every target format's tables), more than the whole full module;
//! it is a dev-dependency that tests/codec_basis.rs holds this decoder to.
//!
//! Hostile input is an error, never a panic or an unbounded allocation: every count is checked
//! against what its field can hold and every decoded index against its codebook, and a stream that
//! runs out is an error (reads past the end are zeros, counted and refused at the end).

use crate::io::{Error, Result};

/// LSB-first bit reader (BasisLZ stores every field and Huffman code from the low bit up).
struct Bits<'a> {
    data: &'a [u8],
    /// Next byte to load.
    at: usize,
    buf: u64,
    /// Bits in `buf`.
    n: u32,
}

impl<'a> Bits<'a> {
    fn new(data: &'a [u8]) -> Bits<'a> {
        Bits {
            data,
            at: 0,
            buf: 0,
            n: 0,
        }
    }

    #[inline(always)]
    fn refill(&mut self) {
        while self.n <= 56 {
            let b = self.data.get(self.at).copied().unwrap_or(0);
            self.at += 1;
            self.buf |= (b as u64) << self.n;
            self.n += 8;
        }
    }

    /// The next `n` (at most 32) bits without consuming them.
    #[inline(always)]
    fn peek(&mut self, n: u32) -> u32 {
        if self.n < n {
            self.refill();
        }
        (self.buf & ((1u64 << n) - 1)) as u32
    }

    #[inline(always)]
    fn skip(&mut self, n: u32) {
        self.buf >>= n;
        self.n -= n;
    }

    #[inline(always)]
    fn get(&mut self, n: u32) -> u32 {
        let v = self.peek(n);
        self.skip(n);
        v
    }

    /// Whether more bits were consumed than the data holds.
    fn overrun(&self) -> bool {
        (self.at as u64 * 8 - self.n as u64) > self.data.len() as u64 * 8
    }

    /// A variable-length count: chunks of `bits` bits, the top one of each saying another follows
    /// (the specification's decode_vlc4 / decode_vlc7).
    fn vlc(&mut self, bits: u32) -> u32 {
        let (mut v, mut shift) = (0u32, 0u32);
        loop {
            let s = self.get(bits);
            v |= (s & ((1 << (bits - 1)) - 1)) << shift;
            shift += bits - 1;
            if s >> (bits - 1) == 0 || shift >= 32 {
                return v;
            }
        }
    }
}

/// A canonical Huffman code (RFC 1951 section 3.2.2), codes read MSB of the code first from the
/// LSB-first stream: a table of the first `FAST` bits for short codes, bit-by-bit canonical
/// decoding for longer ones.
struct Huffman {
    /// Per `FAST`-bit prefix: symbol << 5 | length, or 0 when the code is longer (or unused).
    fast: Vec<u32>,
    /// Codes of each length 0..=16, and the symbols sorted by (length, symbol).
    counts: [u16; 17],
    sorted: Vec<u16>,
}

const FAST: u32 = 10;
const MAX_CODE: usize = 16;

impl Huffman {
    fn new(lengths: &[u8]) -> Result<Huffman> {
        let mut counts = [0u16; 17];
        for &l in lengths {
            counts[l as usize] += 1;
        }
        counts[0] = 0;
        // Kraft: an oversubscribed code is no prefix code.
        let mut left = 1i64;
        for c in &counts[1..] {
            left = 2 * left - *c as i64;
            if left < 0 {
                return Err(Error::malformed(
                    "a Huffman table's code lengths are oversubscribed",
                ));
            }
        }
        let mut offsets = [0usize; 18];
        for l in 1..=MAX_CODE {
            offsets[l + 1] = offsets[l] + counts[l] as usize;
        }
        let mut sorted = vec![0u16; offsets[MAX_CODE + 1]];
        let mut next = offsets;
        for (sym, &l) in lengths.iter().enumerate() {
            if l > 0 {
                sorted[next[l as usize]] = sym as u16;
                next[l as usize] += 1;
            }
        }
        // Canonical codes, bit-reversed into the fast table.
        let mut fast = vec![0u32; 1 << FAST];
        let mut code = 0u32;
        let mut k = 0;
        for l in 1..=MAX_CODE as u32 {
            for _ in 0..counts[l as usize] {
                if l <= FAST {
                    let rev = code.reverse_bits() >> (32 - l);
                    let mut j = rev as usize;
                    while j < fast.len() {
                        fast[j] = (sorted[k] as u32) << 5 | l;
                        j += 1 << l;
                    }
                }
                code += 1;
                k += 1;
            }
            code <<= 1;
        }
        Ok(Huffman {
            fast,
            counts,
            sorted,
        })
    }

    #[inline(always)]
    fn decode(&self, r: &mut Bits) -> Result<u32> {
        let e = self.fast[r.peek(FAST) as usize];
        if e != 0 {
            r.skip(e & 31);
            return Ok(e >> 5);
        }
        self.slow(r)
    }

    #[inline(never)]
    fn slow(&self, r: &mut Bits) -> Result<u32> {
        let (mut code, mut first, mut index) = (0i32, 0i32, 0i32);
        for l in 1..=MAX_CODE {
            code |= r.get(1) as i32;
            let count = self.counts[l] as i32;
            if code - first < count {
                return Ok(self.sorted[(index + code - first) as usize] as u32);
            }
            index += count;
            first = (first + count) << 1;
            code <<= 1;
        }
        Err(Error::malformed("a Huffman code is not in its table"))
    }
}

/// Reads one Huffman table (specification "Compressed Huffman Tables": 1 to 16383 symbols, the
/// 14-bit count field). What a decoded symbol may be is checked where it is used.
fn read_table(r: &mut Bits, what: &str) -> Result<Huffman> {
    let bad = |why: String| Error::malformed(format!("{what} Huffman table: {why}"));
    let total = r.get(14);
    if total == 0 {
        return Err(bad("no symbols".into()));
    }
    let n = r.get(5) as usize;
    if !(1..=21).contains(&n) {
        return Err(bad(format!("{n} code length codes (1..21)")));
    }
    const ORDER: [usize; 21] = [
        17, 18, 19, 20, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15, 16,
    ];
    let mut small = [0u8; 21];
    for &o in &ORDER[..n] {
        small[o] = r.get(3) as u8;
    }
    let small = Huffman::new(&small)?;
    let total = total as usize;
    let mut lengths = vec![0u8; total];
    let mut cur = 0;
    while cur < total {
        let c = small.decode(r)?;
        let (len, run) = match c {
            0..=16 => (c as u8, 1),
            17 => (0, r.get(3) as usize + 3),
            18 => (0, r.get(7) as usize + 11),
            _ => {
                let prev = if cur == 0 { 0 } else { lengths[cur - 1] };
                if prev == 0 {
                    return Err(bad("a repeat of no code length".into()));
                }
                let run = if c == 19 {
                    r.get(2) as usize + 3
                } else {
                    r.get(7) as usize + 7
                };
                (prev, run)
            }
        };
        if cur + run > total {
            return Err(bad(format!("code lengths run past its {total} symbols")));
        }
        lengths[cur..cur + run].fill(len);
        cur += run;
        if r.overrun() {
            return Err(bad("the data ends inside it".into()));
        }
    }
    Huffman::new(&lengths).map_err(|e| bad(e.to_string()))
}

/// The global data of a BasisLZ texture, decoded: every endpoint as the high word of an ETC1 block
/// (base colour, zero deltas, both tables, differential bit) and every selector as the low word
/// (pixel-index bits), plus the slice tables.
pub struct Codebooks {
    endpoints: Vec<u32>,
    selectors: Vec<u32>,
    endpoint_pred: Huffman,
    endpoint_delta: Huffman,
    selector: Huffman,
    selector_rle: Huffman,
    history: usize,
}

/// Endpoint prediction symbols: 4 blocks x 2 bits (0..255), then the repeat symbol.
const PRED_REPEAT: u32 = 256;
const MAX_HISTORY: usize = 64;
/// Selector run lengths: symbols 0..63, the last one meaning "a long run follows as vlc7".
const RLE_SYMBOLS: u32 = 64;
const RLE_MIN: u32 = 3;

impl Codebooks {
    /// Decodes the endpoint and selector codebooks and the slice tables (`endpoints`, `selectors`,
    /// `tables`: the three byte strings of the global data; the counts from its header).
    pub fn new(
        endpoint_count: u32,
        selector_count: u32,
        endpoints: &[u8],
        selectors: &[u8],
        tables: &[u8],
    ) -> Result<Codebooks> {
        if endpoint_count == 0 || selector_count == 0 {
            return Err(Error::malformed(format!(
                "the BasisLZ global data has {endpoint_count} endpoints and {selector_count} selectors; both must be at least 1"
            )));
        }
        // Each endpoint takes at least 2 bits and each selector (after the first) at least 4 codes of
        // a bit: counts past that are refused before anything is allocated for them.
        if endpoint_count as u64 * 2 > endpoints.len() as u64 * 8 + 64
            || selector_count as u64 > selectors.len() as u64 * 8 + 64
        {
            return Err(Error::malformed(format!(
                "{endpoint_count} endpoints and {selector_count} selectors cannot fit in {} and {} bytes",
                endpoints.len(),
                selectors.len()
            )));
        }
        let endpoints = decode_endpoints(endpoint_count, endpoints)?;
        let selectors = decode_selectors(selector_count, selectors)?;
        let mut r = Bits::new(tables);
        let endpoint_pred = read_table(&mut r, "the endpoint prediction")?;
        let endpoint_delta = read_table(&mut r, "the endpoint delta")?;
        // Selector symbols: a codebook index, a history buffer index, or the history run symbol.
        let selector = read_table(&mut r, "the selector")?;
        let selector_rle = read_table(&mut r, "the selector history run")?;
        let history = r.get(13) as usize;
        if r.overrun() {
            return Err(Error::malformed("the BasisLZ slice tables end early"));
        }
        if history > MAX_HISTORY {
            return Err(Error::malformed(format!(
                "the selector history buffer holds {history} entries; at most {MAX_HISTORY} are allowed"
            )));
        }
        Ok(Codebooks {
            endpoints,
            selectors,
            endpoint_pred,
            endpoint_delta,
            selector,
            selector_rle,
            history,
        })
    }

    pub fn endpoint_count(&self) -> usize {
        self.endpoints.len()
    }

    pub fn selector_count(&self) -> usize {
        self.selectors.len()
    }

    /// Decodes one slice of `bw` x `bh` blocks into ETC1 blocks: block i's 8 bytes (ETC1's
    /// big-endian 64-bit word) at `out[i * stride + at..]`. `video`: the previous frame's per-block
    /// (endpoint, selector) indices, read when `p_frame` and then replaced by this frame's.
    #[allow(clippy::too_many_arguments)]
    pub fn decode_slice(
        &self,
        data: &[u8],
        bw: usize,
        bh: usize,
        out: &mut [u8],
        stride: usize,
        at: usize,
        mut video: Option<&mut Vec<(u16, u16)>>,
        p_frame: bool,
    ) -> Result<()> {
        let blocks = bw * bh;
        if blocks.checked_mul(stride).is_none_or(|n| out.len() < n) || at + 8 > stride {
            return Err(Error::malformed(
                "the ETC1S output is too small for the slice",
            ));
        }
        if let Some(v) = video.as_deref_mut() {
            if p_frame && v.len() != blocks {
                return Err(Error::malformed(
                    "an ETC1S P-frame has no previous frame of its size",
                ));
            }
            v.resize(blocks, (0, 0));
        } else if p_frame {
            return Err(Error::malformed(
                "an ETC1S P-frame outside a video sequence",
            ));
        }
        let (ne, ns) = (self.endpoints.len(), self.selectors.len());
        let mut r = Bits::new(data);
        // Endpoint indices of this and the previous row of blocks (upper and upper-left prediction).
        let mut rows = [vec![0u16; bw], vec![0u16; bw]];
        let mut pred_bits_below = vec![0u8; bw.div_ceil(2)];
        let mut history = vec![0u16; self.history];
        let mut rover = self.history / 2;
        let (mut run, mut pred_repeat, mut prev_pred) = (0u32, 0u32, 0u32);
        let mut prev_endpoint = 0usize;
        let mut cur_pred = 0u32;
        for by in 0..bh {
            let row = by & 1;
            for bx in 0..bw {
                if bx & 1 == 0 {
                    if row == 0 {
                        if pred_repeat > 0 {
                            pred_repeat -= 1;
                            cur_pred = prev_pred;
                        } else {
                            cur_pred = self.endpoint_pred.decode(&mut r)?;
                            if cur_pred > PRED_REPEAT {
                                return Err(Error::malformed(format!(
                                    "ETC1S endpoint prediction symbol {cur_pred} (at most {PRED_REPEAT})"
                                )));
                            }
                            if cur_pred == PRED_REPEAT {
                                pred_repeat = r.vlc(5).saturating_add(RLE_MIN - 1);
                                cur_pred = prev_pred;
                            } else {
                                prev_pred = cur_pred;
                            }
                        }
                        pred_bits_below[bx >> 1] = (cur_pred >> 4) as u8;
                    } else {
                        cur_pred = pred_bits_below[bx >> 1] as u32;
                    }
                }
                let pred = cur_pred & 3;
                cur_pred >>= 2;
                let mut selector = usize::MAX;
                let endpoint = match pred {
                    // Left (the previous block in memory, also across rows), upper.
                    0 => prev_endpoint,
                    1 => rows[row ^ 1][bx] as usize,
                    2 if p_frame => {
                        // Conditional replenishment: this block as in the previous frame.
                        let (e, s) = video.as_deref().map_or((0, 0), |v| v[by * bw + bx]);
                        selector = s as usize;
                        e as usize
                    }
                    2 => {
                        if bx == 0 || by == 0 {
                            return Err(Error::malformed(format!(
                                "ETC1S block ({bx}, {by}) predicts from an upper-left block it does not have"
                            )));
                        }
                        rows[row ^ 1][bx - 1] as usize
                    }
                    _ => {
                        let e = prev_endpoint + self.endpoint_delta.decode(&mut r)? as usize;
                        if e >= ne {
                            e - ne
                        } else {
                            e
                        }
                    }
                };
                if endpoint >= ne {
                    return Err(Error::malformed(format!(
                        "ETC1S block ({bx}, {by}) uses endpoint {endpoint} of {ne}"
                    )));
                }
                rows[row][bx] = endpoint as u16;
                prev_endpoint = endpoint;
                if selector == usize::MAX {
                    let sym = if run > 0 {
                        run -= 1;
                        ns
                    } else {
                        let s = self.selector.decode(&mut r)? as usize;
                        if s == ns + self.history {
                            let len = self.selector_rle.decode(&mut r)?;
                            run = if len == RLE_SYMBOLS - 1 {
                                r.vlc(8).saturating_add(RLE_MIN)
                            } else {
                                len + RLE_MIN
                            } - 1;
                            ns
                        } else {
                            s
                        }
                    };
                    selector = if sym >= ns {
                        let i = sym - ns;
                        if i >= self.history {
                            return Err(Error::malformed(format!(
                                "ETC1S block ({bx}, {by}) uses selector history entry {i} of {}",
                                self.history
                            )));
                        }
                        let s = history[i];
                        if i > 0 {
                            history.swap(i / 2, i);
                        }
                        s as usize
                    } else {
                        if self.history > 0 {
                            history[rover] = sym as u16;
                            rover += 1;
                            if rover == self.history {
                                rover = self.history / 2;
                            }
                        }
                        sym
                    };
                }
                if selector >= ns {
                    return Err(Error::malformed(format!(
                        "ETC1S block ({bx}, {by}) uses selector {selector} of {ns}"
                    )));
                }
                let i = by * bw + bx;
                if let Some(v) = video.as_deref_mut() {
                    v[i] = (endpoint as u16, selector as u16);
                }
                let word =
                    (self.endpoints[endpoint] as u64) << 32 | self.selectors[selector] as u64;
                out[i * stride + at..i * stride + at + 8].copy_from_slice(&word.to_be_bytes());
            }
            if r.overrun() {
                return Err(Error::malformed(format!(
                    "the ETC1S slice data ({} bytes) ends before block row {by} of {bh}",
                    data.len()
                )));
            }
        }
        Ok(())
    }
}

/// The endpoint codebook (specification "ETC1S Endpoint Codebooks"): DPCM colour and intensity.
fn decode_endpoints(count: u32, data: &[u8]) -> Result<Vec<u32>> {
    let mut r = Bits::new(data);
    let colour = [
        read_table(&mut r, "the endpoint colour delta 0")?,
        read_table(&mut r, "the endpoint colour delta 1")?,
        read_table(&mut r, "the endpoint colour delta 2")?,
    ];
    let inten_model = read_table(&mut r, "the endpoint intensity delta")?;
    let grey = r.get(1) == 1;
    let model = |prev: u32| {
        &colour[if prev <= 9 {
            0
        } else if prev <= 21 {
            1
        } else {
            2
        }]
    };
    let mut prev = [16u32; 3];
    let mut inten = 0u32;
    let mut out = Vec::with_capacity(count as usize);
    for _ in 0..count {
        inten = (inten + inten_model.decode(&mut r)?) & 7;
        let channels = if grey { 1 } else { 3 };
        for p in prev.iter_mut().take(channels) {
            *p = (*p + model(*p).decode(&mut r)?) & 31;
        }
        if grey {
            prev = [prev[0]; 3];
        }
        // ETC1 differential mode, zero deltas, one table for both halves, no flip: the block's
        // bits 63..32 (base R 59-63, G 51-55, B 43-47, tables 37-39 and 34-36, diff bit 33).
        out.push(prev[0] << 27 | prev[1] << 19 | prev[2] << 11 | inten << 5 | inten << 2 | 2);
        if r.overrun() {
            return Err(Error::malformed(format!(
                "the ETC1S endpoint codebook ({} bytes) ends before its {count} endpoints",
                data.len()
            )));
        }
    }
    Ok(out)
}

/// The selector codebook (specification "ETC1S Selector Codebooks"): rows of four 2-bit selectors,
/// raw or XOR-delta coded.
fn decode_selectors(count: u32, data: &[u8]) -> Result<Vec<u32>> {
    let mut r = Bits::new(data);
    if r.get(2) != 0 {
        return Err(Error::malformed(
            "the ETC1S selector codebook uses a global or hybrid selector codebook, which BasisLZ does not have",
        ));
    }
    let raw = r.get(1) == 1;
    let delta = if raw {
        None
    } else {
        Some(read_table(&mut r, "the selector delta")?)
    };
    let mut rows = [0u32; 4];
    let mut out = Vec::with_capacity(count as usize);
    for i in 0..count {
        for row in rows.iter_mut() {
            *row = match (&delta, i) {
                (Some(d), 1..) => *row ^ d.decode(&mut r)?,
                _ => r.get(8),
            } & 255;
        }
        out.push(etc1_selectors(rows));
        if r.overrun() {
            return Err(Error::malformed(format!(
                "the ETC1S selector codebook ({} bytes) ends before its {count} selectors",
                data.len()
            )));
        }
    }
    Ok(out)
}

/// Four rows of 2-bit ETC1S selectors (texel x at bits 2x) as an ETC1 block's low word: texel
/// (x, y) at bit x * 4 + y, the index's high bit 16 above its low bit. Selector 0..3 means -b, -a,
/// +a, +b (specification), which ETC1 indexes as 3, 2, 0, 1.
fn etc1_selectors(rows: [u32; 4]) -> u32 {
    const INDEX: [u32; 4] = [3, 2, 0, 1];
    let mut w = 0;
    for (y, row) in rows.iter().enumerate() {
        for x in 0..4 {
            let i = INDEX[(row >> (2 * x)) as usize & 3];
            let bit = x * 4 + y;
            w |= (i >> 1) << (16 + bit) | (i & 1) << bit;
        }
    }
    w
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn huffman_codes_are_canonical() {
        // RFC 1951 section 3.2.2's example: lengths (3, 3, 3, 3, 3, 2, 4, 4) give F = 00, A = 010,
        // ..., E = 110, G = 1110, H = 1111; codes go MSB first into the LSB-first stream.
        let h = Huffman::new(&[3, 3, 3, 3, 3, 2, 4, 4]).unwrap();
        // Symbols F (00), A (010), H (1111), E (110), written MSB first, bit by bit from bit 0.
        let codes: &[(u32, u32)] = &[(0b00, 2), (0b010, 3), (0b1111, 4), (0b110, 3)];
        let (mut v, mut n) = (0u32, 0);
        for &(c, l) in codes {
            for i in (0..l).rev() {
                v |= ((c >> i) & 1) << n;
                n += 1;
            }
        }
        let bytes = v.to_le_bytes();
        let mut r = Bits::new(&bytes);
        let got: Vec<u32> = (0..4).map(|_| h.decode(&mut r).unwrap()).collect();
        assert_eq!(got, [5, 0, 7, 4]);
        assert!(Huffman::new(&[1, 1, 1]).is_err(), "oversubscribed");
    }

    #[test]
    fn long_codes_decode_past_the_fast_table() {
        // Lengths 1, 2, ..., 15, 15: a complete code with codes longer than FAST bits.
        let mut lengths: Vec<u8> = (1..=15).collect();
        lengths.push(15);
        let h = Huffman::new(&lengths).unwrap();
        // Symbol 14 is 14 ones then a 0; symbol 15 is fifteen ones.
        let bytes = (0x3fffu32 | 0x7fff << 15).to_le_bytes();
        let mut r = Bits::new(&bytes);
        assert_eq!(h.decode(&mut r).unwrap(), 14);
        assert_eq!(h.decode(&mut r).unwrap(), 15);
    }

    #[test]
    fn endless_prediction_repeat_is_not_an_overflow() {
        // Found by the ktx fuzz target in CI (19,210 execs): an endpoint prediction repeat whose
        // count (vlc5, 4 bits a chunk while the 5th is set) is all ones read as 2^32 - 1, and
        // `+ RLE_MIN - 1` overflowed (a panic with overflow checks, as `cargo test` builds).
        // Tables: prediction symbols 0 and PRED_REPEAT of one bit each ("1" is the repeat),
        // selector and endpoint-delta symbols 0 and 1 of one bit each; then nothing but ones.
        let mut pred = vec![0u8; PRED_REPEAT as usize + 1];
        (pred[0], pred[PRED_REPEAT as usize]) = (1, 1);
        let books = Codebooks {
            endpoints: vec![0x1234_5678],
            selectors: vec![0xAAAA_0001, 0xBBBB_0002],
            endpoint_pred: Huffman::new(&pred).unwrap(),
            endpoint_delta: Huffman::new(&[1, 1]).unwrap(),
            selector: Huffman::new(&[1, 1]).unwrap(),
            selector_rle: Huffman::new(&[1, 1]).unwrap(),
            history: 0,
        };
        let ones = [0xFFu8; 64];
        let mut out = vec![0u8; 4 * 4 * 8];
        books
            .decode_slice(&ones, 4, 4, &mut out, 8, 0, None, false)
            .unwrap();
        // Expected from the stream as built: the repeat keeps the previous prediction (0: from
        // the left, which for block 0 is endpoint 0) for every block, and each selector code "1"
        // is symbol 1. So every block is endpoint 0 then selector 1, big-endian (ETC1's word).
        let want = (0x1234_5678u64 << 32 | 0xBBBB_0002).to_be_bytes();
        for (i, block) in out.chunks_exact(8).enumerate() {
            assert_eq!(block, want, "block {i}");
        }
    }

    #[test]
    fn vlc_reads_chunks() {
        // vlc4 of 0x25 = 0b10_0101: chunks 0101 (more) then 0010 (last): 5 | 1 << 4 = 0x15, 2 << 5.
        let v = 0x15u32 | 0x02 << 5;
        let bytes = v.to_le_bytes();
        assert_eq!(Bits::new(&bytes).vlc(5), 0x25);
    }
}
