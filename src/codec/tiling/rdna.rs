//! AMD RDNA (GFX10, PS5) swizzle modes: `SW_LINEAR` (0), `SW_256B_S` (1), `SW_4KB_S` (5) and
//! `SW_64KB_S` (9), with GFX10's mip chain and mip tail.
//!
//! Facts (AMD addrlib, GPUOpen, `gfx10addrlib.cpp` / `addrlib2.cpp`; swizzle mode numbers are the
//! `AddrSwizzleMode` / `SW_MODE` values of the GFX10 image descriptor):
//! - A swizzled surface is a row-major grid of blocks (256 B, 4 KiB or 64 KiB). Inside a block
//!   the element address is a fixed interleave of x and y bits, no XOR in the `_S` modes.
//! - The low 256 bytes follow the "standard" micro-block pattern of the element size (addrlib
//!   `HwlComputeBlock256Equation`, `IsStandardSwizzle` cases): 1 B `x0 x1 x2 x3 y0 y1 y2 y3`,
//!   2 B `x0 x1 x2 y0 y1 y2 x3`, 4 B `x0 x1 y0 y1 y2 x2`, 8 B `x0 y0 y1 x1 x2`, 16 B `y0 y1 x0 x1`.
//! - Above 256 B the bits alternate, even address bits taking the next y bit and odd ones the next
//!   x bit. This is the reading under which addrlib's mip-tail origins (`mipX` from the odd bits
//!   of the tail offset, `mipY` from the even ones) land inside the tail, and it is checked on the
//!   shared PS5 files: every one comes within BC1 loss of its source.
//! - Mip chains are stored smallest first: the mip tail's block, then the other levels from the
//!   smallest up, mip 0 last (`Gfx10Lib::ComputeSurfaceInfoMacroTiled`). Each level outside the
//!   tail is padded to whole blocks.
//! - A level is in the tail when it fits in half a block (the half of the top address bit's axis:
//!   `GetMipTailDim`) and at most `GetMaxNumMipsInTail` levels remain; tail level `i` sits at byte
//!   offset `m << 8` (m <= 6) or `16 << m` of the tail block, `m = max_in_tail - 1 - i`.
//! - A linear surface has rows padded to 256 bytes, its mips also smallest first
//!   (`Gfx10Lib::ComputeSurfaceInfoLinear`); not seen in a real file.
//!
//! A level's size in elements comes from its size in texels (`ceil(w / block width)`); addrlib
//! halves mip 0's element count instead, which differs only for a block-compressed chain whose
//! halved size crosses a multiple of the block width (not in the shared files).

use super::{elements, PixelFormat};
use crate::io::{Error, Limits, Result};

pub const SW_LINEAR: u32 = 0;
pub const SW_256B_S: u32 = 1;
pub const SW_4KB_S: u32 = 5;
pub const SW_64KB_S: u32 = 9;

/// The addrlib name of a GFX10 swizzle mode ("64KB_S"), for the info panel and errors.
pub fn mode_name(mode: u32) -> String {
    const NAMES: [&str; 28] = [
        "LINEAR", "256B_S", "256B_D", "256B_R", "4KB_Z", "4KB_S", "4KB_D", "4KB_R", "64KB_Z",
        "64KB_S", "64KB_D", "64KB_R", "VAR_Z", "VAR_S", "VAR_D", "VAR_R", "64KB_Z_T", "64KB_S_T",
        "64KB_D_T", "64KB_R_T", "4KB_Z_X", "4KB_S_X", "4KB_D_X", "4KB_R_X", "64KB_Z_X", "64KB_S_X",
        "64KB_D_X", "64KB_R_X",
    ];
    NAMES
        .get(mode as usize)
        .map_or_else(|| format!("mode {mode}"), |s| s.to_string())
}

/// One bit of an element address: which axis and which bit of the coordinate.
#[derive(Clone, Copy)]
enum Bit {
    X(u32),
    Y(u32),
}

/// The block of a swizzle mode for one element size: its address pattern and dimensions.
struct Block {
    /// log2 of the block's bytes.
    log2_bytes: u32,
    /// Element address bits, lowest first (the element's own byte bits excluded).
    bits: Vec<Bit>,
    /// log2 of the block's width and height in elements.
    log2_w: u32,
    log2_h: u32,
}

impl Block {
    fn new(mode: u32, bpe: u64) -> Result<Block> {
        let log2_bytes = match mode {
            SW_256B_S => 8,
            SW_4KB_S => 12,
            SW_64KB_S => 16,
            other => {
                return Err(Error::unsupported(format!(
                    "RDNA swizzle mode {other} ({}) is not one this build untiles (it reads LINEAR, 256B_S, 4KB_S and 64KB_S)",
                    mode_name(other)
                )))
            }
        };
        use Bit::{X, Y};
        let (mut bits, mut xn, mut yn) = match bpe {
            1 => (vec![X(0), X(1), X(2), X(3), Y(0), Y(1), Y(2), Y(3)], 4, 4),
            2 => (vec![X(0), X(1), X(2), Y(0), Y(1), Y(2), X(3)], 4, 3),
            4 => (vec![X(0), X(1), Y(0), Y(1), Y(2), X(2)], 3, 3),
            8 => (vec![X(0), Y(0), Y(1), X(1), X(2)], 3, 2),
            16 => (vec![Y(0), Y(1), X(0), X(1)], 2, 2),
            other => {
                return Err(Error::unsupported(format!(
                    "{other}-byte elements have no RDNA standard swizzle"
                )))
            }
        };
        for addr_bit in 8..log2_bytes {
            if addr_bit % 2 == 0 {
                bits.push(Y(yn));
                yn += 1;
            } else {
                bits.push(X(xn));
                xn += 1;
            }
        }
        Ok(Block {
            log2_bytes,
            bits,
            log2_w: xn,
            log2_h: yn,
        })
    }

    fn bytes(&self) -> u64 {
        1 << self.log2_bytes
    }

    /// Per-coordinate parts of the element index inside the block: `index = xs[x] | ys[y]`.
    fn tables(&self) -> (Vec<u32>, Vec<u32>) {
        let mut xs = vec![0u32; 1 << self.log2_w];
        let mut ys = vec![0u32; 1 << self.log2_h];
        for (i, b) in self.bits.iter().enumerate() {
            match *b {
                Bit::X(k) => xs.iter_mut().enumerate().for_each(|(x, v)| {
                    *v |= ((x as u32 >> k) & 1) << i;
                }),
                Bit::Y(k) => ys.iter_mut().enumerate().for_each(|(y, v)| {
                    *v |= ((y as u32 >> k) & 1) << i;
                }),
            }
        }
        (xs, ys)
    }

    /// Element coordinates of a byte offset inside the block (the inverse of the pattern).
    fn coords(&self, offset: u64, bpe: u64) -> (u64, u64) {
        let index = offset / bpe;
        let (mut x, mut y) = (0, 0);
        for (i, b) in self.bits.iter().enumerate() {
            let bit = (index >> i) & 1;
            match *b {
                Bit::X(k) => x |= bit << k,
                Bit::Y(k) => y |= bit << k,
            }
        }
        (x, y)
    }

    /// The mip tail's extent: half the block, halved along the axis of the top address bit
    /// (addrlib `GetMipTailDim`).
    fn tail_dims(&self) -> (u64, u64) {
        let (w, h) = (1u64 << self.log2_w, 1u64 << self.log2_h);
        match self.bits.last() {
            Some(Bit::X(_)) => (w / 2, h),
            _ => (w, h / 2),
        }
    }

    /// addrlib `GetMaxNumMipsInTail` for a thin (2D) surface.
    fn max_mips_in_tail(&self) -> u32 {
        if self.log2_bytes <= 8 {
            1
        } else if self.log2_bytes <= 11 {
            1 + (1 << (self.log2_bytes - 9))
        } else {
            self.log2_bytes - 4
        }
    }
}

/// Where one level of a chain lives, relative to the start of the surface data.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Placement {
    pub offset: u64,
    pub length: u64,
}

/// Places every level of a 2D chain (`w` x `h` texels at mip 0, `mips` levels) as GFX10 stores
/// it, and returns the placements (in mip order), the first level stored in the mip tail
/// (`mips` when none is) and the whole chain's size.
pub fn chain(
    mode: u32,
    format: PixelFormat,
    w: u32,
    h: u32,
    mips: u32,
) -> Result<(Vec<Placement>, u32, u64)> {
    let level_dims = |l: u32| {
        (
            w.checked_shr(l).unwrap_or(0).max(1),
            h.checked_shr(l).unwrap_or(0).max(1),
        )
    };
    let mut sizes = Vec::with_capacity(mips.min(32) as usize);
    let mut first_in_tail = mips;
    let mut tail_bytes = 0;
    for l in 0..mips {
        let (lw, lh) = level_dims(l);
        let (ew, eh, bpe) = elements(format, lw, lh);
        if mode == SW_LINEAR {
            sizes.push(linear_pitch(ew, bpe) * eh * bpe);
            continue;
        }
        let block = Block::new(mode, bpe)?;
        let (tw, th) = block.tail_dims();
        if mips > 1 && ew <= tw && eh <= th && mips - l <= block.max_mips_in_tail() {
            first_in_tail = l;
            tail_bytes = block.bytes();
            break;
        }
        let (pw, ph) = (
            ew.div_ceil(1 << block.log2_w) << block.log2_w,
            eh.div_ceil(1 << block.log2_h) << block.log2_h,
        );
        sizes.push(pw * ph * bpe);
    }
    let mut placements = vec![
        Placement {
            offset: 0,
            length: 0
        };
        mips as usize
    ];
    for p in placements.iter_mut().skip(first_in_tail as usize) {
        *p = Placement {
            offset: 0,
            length: tail_bytes,
        };
    }
    let mut offset = tail_bytes;
    for l in (0..first_in_tail.min(sizes.len() as u32)).rev() {
        let length = sizes[l as usize];
        placements[l as usize] = Placement { offset, length };
        offset = offset
            .checked_add(length)
            .ok_or_else(|| Error::malformed("the mip chain's size overflows"))?;
    }
    Ok((placements, first_in_tail, offset))
}

fn linear_pitch(ew: u64, bpe: u64) -> u64 {
    // Rows are padded to 256 bytes (addrlib `pitchAlign = 256 / elementBytes`).
    let align = (256 / bpe).max(1);
    ew.div_ceil(align) * align
}

/// One level of an RDNA surface: its size in elements and where it sits in its blocks.
pub struct Surface {
    level: u32,
    ew: u64,
    eh: u64,
    bpe: u64,
    mode: u32,
    /// The swizzle block (none for `SW_LINEAR`).
    block: Option<Block>,
    /// The level's top-left element inside its blocks (a tail level's slot origin, else 0, 0)
    /// and the blocks across one row of the stored level.
    origin: (u64, u64),
    blocks_across: u64,
    stored: u64,
}

impl Surface {
    /// Mip `level` (`w` x `h` texels) of a chain stored in swizzle `mode` whose levels from
    /// `first_in_tail` on share the mip tail.
    pub fn new(
        mode: u32,
        first_in_tail: u32,
        format: PixelFormat,
        level: u32,
        w: u32,
        h: u32,
    ) -> Result<Surface> {
        let (ew, eh, bpe) = elements(format, w, h);
        let mut s = Surface {
            level,
            ew,
            eh,
            bpe,
            mode,
            block: None,
            origin: (0, 0),
            blocks_across: 1,
            // Saturating: a hostile size (u32::MAX a side) overflowed u64, wrapped to a small
            // size in a release build and passed the checks against the bytes there are.
            stored: linear_pitch(ew, bpe).saturating_mul(eh).saturating_mul(bpe),
        };
        if mode == SW_LINEAR {
            return Ok(s);
        }
        let block = Block::new(mode, bpe)?;
        let (bw, bh) = (1u64 << block.log2_w, 1u64 << block.log2_h);
        if level >= first_in_tail {
            // A tail level is a rectangle of the tail block at the origin of its slot.
            let i = level - first_in_tail;
            let m = block.max_mips_in_tail().saturating_sub(1).saturating_sub(i);
            let slot = if m > 6 { 16u64 << m } else { (m as u64) << 8 };
            let (ox, oy) = block.coords(slot, bpe);
            if ox + ew > bw || oy + eh > bh {
                return Err(Error::malformed(format!(
                    "mip {level} ({ew}x{eh} elements) does not fit its slot of the {} mip tail",
                    mode_name(mode)
                )));
            }
            s.origin = (ox, oy);
            s.stored = block.bytes();
        } else {
            s.blocks_across = ew.div_ceil(bw);
            s.stored = (s.blocks_across * bw)
                .saturating_mul(eh.div_ceil(bh) * bh)
                .saturating_mul(bpe);
        }
        s.block = Some(block);
        Ok(s)
    }

    /// Bytes the stored level occupies: its padded blocks, or the whole tail block.
    pub fn stored_size(&self) -> u64 {
        self.stored
    }

    /// The level checked against its stored bytes (at least [`Surface::stored_size`]) and the
    /// untiled size against `limits`, ready to untile a band of rows at a time
    /// ([`Rows::untile`]; the whole level through `tiling::untile`).
    pub fn rows<'a>(&self, tiled: &'a [u8], limits: &Limits) -> Result<Rows<'a>> {
        if (tiled.len() as u64) < self.stored {
            return Err(Error::malformed(format!(
                "the RDNA {} surface holds {} bytes, but mip {} needs {}",
                mode_name(self.mode),
                tiled.len(),
                self.level,
                self.stored
            )));
        }
        let (ew, bpe) = (self.ew as usize, self.bpe as usize);
        let out_len = self.ew.saturating_mul(self.eh).saturating_mul(self.bpe);
        limits.check_alloc(out_len, "the untiled surface")?;
        let row = ew * bpe;
        let mut rows = Rows {
            tiled,
            row,
            rows: self.eh as usize,
            origin_y: 0,
            block_h: 1,
            ys: Vec::new(),
            bpe,
            row_of_blocks: (linear_pitch(self.ew, self.bpe) * self.bpe) as usize,
            run_offsets: Vec::new(),
            run_bytes: row,
        };
        let Some(block) = &self.block else {
            // SW_LINEAR: one run a row, at the row's padded pitch.
            rows.run_offsets.push(0);
            return Ok(rows);
        };
        let (bw, bh) = (1usize << block.log2_w, 1usize << block.log2_h);
        let (xs, ys) = block.tables();
        let (ox, oy) = (self.origin.0 as usize, self.origin.1 as usize);
        // Elements adjacent in memory: the pattern's lowest x bits (16 bytes in every standard
        // micro-block). A tail origin is a whole micro-block, so runs stay aligned.
        let leading_x = block
            .bits
            .iter()
            .take_while(|b| matches!(b, Bit::X(_)))
            .count();
        let run = if ox % (1 << leading_x) == 0 {
            1usize << leading_x
        } else {
            1
        };
        let block_bytes = block.bytes() as usize;
        // Byte offset of each run of a row, across the row's blocks, computed once: the inner
        // loop is then one table read and one copy per run, no per-element address arithmetic.
        rows.run_offsets = (0..ew.div_ceil(run))
            .map(|k| {
                let sx = ox + k * run;
                (sx / bw) * block_bytes + xs[sx % bw] as usize * bpe
            })
            .collect();
        rows.run_bytes = run * bpe;
        rows.row_of_blocks = self.blocks_across as usize * block_bytes;
        rows.origin_y = oy;
        rows.block_h = bh;
        rows.ys = ys;
        Ok(rows)
    }
}

/// An RDNA level checked against its stored bytes ([`Surface::rows`]), untiled a band of rows at
/// a time into the caller's buffer. `SW_LINEAR` is the same walk with one block a row: a run of
/// the whole row at each padded pitch.
pub struct Rows<'a> {
    tiled: &'a [u8],
    /// Bytes of one untiled row of elements, and the rows.
    pub row: usize,
    pub rows: usize,
    /// The level's first row inside its blocks (a tail slot's), the blocks' height in rows and
    /// each row's part of the element index (`Block::tables`; empty for `SW_LINEAR`).
    origin_y: usize,
    block_h: usize,
    ys: Vec<u32>,
    bpe: usize,
    /// Bytes of one row of blocks (`SW_LINEAR`: the padded pitch).
    row_of_blocks: usize,
    /// Each run's byte offset within its row of blocks, and the bytes of a run.
    run_offsets: Vec<usize>,
    run_bytes: usize,
}

impl Rows<'_> {
    /// Untiles rows `first..` into `dst` (whole rows, as many as it holds, within the level).
    pub fn untile(&self, first: usize, dst: &mut [u8]) {
        let rows = (dst.len() / self.row).min(self.rows.saturating_sub(first));
        let dst = &mut dst[..rows * self.row];
        for (i, dst_row) in dst.chunks_exact_mut(self.row).enumerate() {
            let sy = first + i + self.origin_y;
            let within = self.ys.get(sy % self.block_h).map_or(0, |&v| v as usize);
            let base = (sy / self.block_h) * self.row_of_blocks + within * self.bpe;
            super::copy_runs(dst_row, self.tiled, base, &self.run_offsets, self.run_bytes);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::{untile, Tiling};
    use super::*;

    /// Chain placements against the worked examples of addrlib's GFX10 chain math published with
    /// a public PS5 emulator port (SharpEmu's `GnmTiling` notes): 512x512 RGBA8 64KB_S, 10 levels:
    /// mip 0 at 0x60000 of a 1,441,792-byte chain; 256x256 RGBA8 4KB_S, 9 levels: mip 0 at
    /// 90,112 of 352,256.
    #[test]
    fn chain_matches_addrlib_worked_examples() {
        let (p, first, total) = chain(SW_64KB_S, PixelFormat::RGBA8, 512, 512, 10).unwrap();
        assert_eq!((p[0].offset, first, total), (0x60000, 3, 1_441_792));
        let (p, first, total) = chain(SW_4KB_S, PixelFormat::RGBA8, 256, 256, 9).unwrap();
        assert_eq!((p[0].offset, first, total), (90_112, 4, 352_256));
    }

    /// Untiling against the element address written out (block `(y / bh) * blocks_across +
    /// x / bw`, element index `xs[x % bw] | ys[y % bh]` of the block's pattern, offset by a tail
    /// level's slot origin): every swizzle mode, element sizes 1 to 16 bytes, sizes that do and
    /// do not fill micro-blocks and blocks, levels in and out of the mip tail; whole levels and
    /// bands of 8 rows.
    #[test]
    fn untile_matches_element_addresses() {
        let formats = [
            PixelFormat::R8,
            PixelFormat::RG8,
            PixelFormat::RGBA8,
            PixelFormat::BC1,
            PixelFormat::BC7,
        ];
        let mut seed = 0;
        for f in formats {
            for mode in [SW_256B_S, SW_4KB_S, SW_64KB_S] {
                for (w, h) in [(64u32, 64u32), (100, 37), (260, 36), (8, 8), (1, 1)] {
                    let (_, first_in_tail, _) = chain(mode, f, w, h, 6).unwrap();
                    for level in 0..6u32 {
                        let (lw, lh) = ((w >> level).max(1), (h >> level).max(1));
                        let s = Surface::new(mode, first_in_tail, f, level, lw, lh).unwrap();
                        let block = s.block.as_ref().unwrap();
                        let (xs, ys) = block.tables();
                        let (bw, bh) = (1u64 << block.log2_w, 1u64 << block.log2_h);
                        seed += 1;
                        let tiled =
                            crate::codec::sample::random_bytes(s.stored_size() as usize, seed);
                        let mut want = Vec::new();
                        for y in 0..s.eh {
                            for x in 0..s.ew {
                                let (sx, sy) = (x + s.origin.0, y + s.origin.1);
                                let blk = (sy / bh) * s.blocks_across + sx / bw;
                                let idx = (xs[(sx % bw) as usize] | ys[(sy % bh) as usize]) as u64;
                                let at = (blk * block.bytes() + idx * s.bpe) as usize;
                                want.extend_from_slice(&tiled[at..at + s.bpe as usize]);
                            }
                        }
                        let case = format!("{f:?} mode {mode} {lw}x{lh} mip {level}");
                        let tiling = Tiling::Rdna {
                            swizzle_mode: mode,
                            first_mip_in_tail: first_in_tail,
                        };
                        let limits = Limits::default();
                        let got = untile(tiling, f, level, lw, lh, &tiled, &limits).unwrap();
                        assert!(got == want, "{case}");
                        let rows = s.rows(&tiled, &Limits::default()).unwrap();
                        for first in (0..rows.rows).step_by(8) {
                            let mut band = vec![0u8; 8 * rows.row];
                            rows.untile(first, &mut band);
                            let n = (rows.rows - first).min(8) * rows.row;
                            assert!(
                                band[..n] == want[first * rows.row..][..n],
                                "{case} from {first}"
                            );
                        }
                    }
                }
            }
        }
    }

    /// The tail slots' origins from the pattern's inverse equal addrlib's formula
    /// (`Gfx10Lib` mip-tail origin: x from the odd address bits above bit 8, y from the even
    /// ones, in units of the 256-byte micro-block), for every element size and slot.
    #[test]
    fn tail_origins_match_addrlib_formula() {
        for bpe in [1u64, 2, 4, 8, 16] {
            let block = Block::new(SW_64KB_S, bpe).unwrap();
            let micro = match bpe {
                1 => (16, 16),
                2 => (16, 8),
                4 => (8, 8),
                8 => (8, 4),
                _ => (4, 4),
            };
            for m in 0..block.max_mips_in_tail() {
                let off = if m > 6 { 16u64 << m } else { (m as u64) << 8 };
                let (mut mx, mut my) = (0, 0);
                for k in 0..6 {
                    mx |= ((off >> (9 + 2 * k)) & 1) << k;
                    my |= ((off >> (8 + 2 * k)) & 1) << k;
                }
                assert_eq!(
                    block.coords(off, bpe),
                    (mx * micro.0, my * micro.1),
                    "{bpe}-byte elements, slot {m}"
                );
            }
        }
    }
}
