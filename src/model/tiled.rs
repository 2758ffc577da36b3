//! The engine-neutral tiled layout (issue 20): a texture stored as a grid of fixed-size tiles
//! with a border, per mip, grouped into chunks of bytes, in one or more layers of their own
//! formats, with cells that may be absent (UE virtual textures and UDIM VTs are the engine that
//! fills it: `unreal::vt`, seed 000, notes §5). The page's tile-grid overlay and tile streamer,
//! and the exports, read only this.
//!
//! Addressing: a mip's cells are found through a run table over Morton addresses (x bits at even
//! positions, y bits at odd): sorted range starts, each with its first tile index or
//! [`NO_TILE`]; tile `i` of a mip lies at `base_offset + i * tile_bytes + layer offset` of the
//! mip's chunk. Engines whose data names every tile's offset fill a [`TileTable`] instead.

use crate::codec::{decode_surface, Image, PixelFormat, Pixels};
use crate::io::{read_range, Error, Limits, Result, Source};
use crate::model::Storage;
use serde::Serialize;

/// The run-table offset of an empty run.
pub const NO_TILE: u32 = u32::MAX;

/// How a chunk stores one layer's tiles.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum TileCodec {
    /// Each tile is one physical P x P surface of the layer's format.
    Raw,
    /// Each tile is one zlib stream inflating to the raw surface.
    Zlib,
    /// Every tile of the layer in this chunk is one colour (RGBA 0..1), nothing stored.
    Fill { color: [f32; 4] },
    /// A coding Texscope does not decode, named by the engine ("codec 6 (Crunch)").
    Other { name: String },
}

/// One VT layer (e.g. base colour DXT1 + normal BC5).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TileLayer {
    pub format: PixelFormat,
    /// The LayerTypes string, e.g. "PF_DXT1".
    pub native_format: String,
    /// LayerFallbackColors: shown where a tile is absent.
    pub fallback: [f32; 4],
    /// Byte offset of this layer inside one tile record (from TileDataOffsetPerLayer).
    pub offset_in_tile: u32,
    /// Bytes of this layer's physical tile.
    pub bytes: u32,
}

/// One mip of the tile grid (FVirtualTextureTileOffsetData plus its chunk and base offset).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TileMip {
    /// Pixels at this mip (Width >> mip, at least 1).
    pub width: u32,
    pub height: u32,
    pub width_tiles: u32,
    pub height_tiles: u32,
    pub max_address: u32,
    pub chunk: u32,
    /// Chunk offset of the mip's first tile (counts the 4-byte chunk header).
    pub base_offset: u32,
    /// Sorted Morton range starts and, per range, the first tile index or 0xFFFFFFFF (empty).
    pub addresses: Vec<u32>,
    pub offsets: Vec<u32>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TileChunk {
    pub size: u32,
    pub codec_payload_size: u32,
    /// Per layer: how this chunk stores its tiles.
    pub codecs: Vec<TileCodec>,
    /// SHA-1 of the chunk bytes, hex.
    pub hash: String,
    pub storage: Storage,
    /// How the chunk's bulk data was referenced ("data resource 3", "header").
    pub bulk: String,
}

/// The whole tiled layout exposed through `Layout::Virtual`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TiledLayout {
    pub tile_size: u32,
    pub tile_border: u32,
    pub width: u32,
    pub height: u32,
    /// Blocks the grid is made of, across and down (UDIM tiles; 1x1 for an ordinary texture):
    /// block (x, y) covers an equal share of mip 0 and is UV tile 1001 + x + 10 y ([`TiledLayout::blocks`]).
    pub width_in_blocks: u32,
    pub height_in_blocks: u32,
    /// Bytes of one tile record, all layers (TileDataOffsetPerLayer.last()).
    pub tile_bytes: u32,
    pub layers: Vec<TileLayer>,
    pub mips: Vec<TileMip>,
    pub chunks: Vec<TileChunk>,
    /// Which serialisation of FVirtualTextureBuiltData was read ("UE5", "UE4.27",
    /// "UE4.23-4.26") and how it was chosen.
    pub record_form: String,
    /// Pre-UE5 addressing tables, when the data uses them (then `TileMip::addresses` are empty).
    /// Not serialised: they hold one entry per (Morton address, layer) and the page never reads them.
    #[serde(skip)]
    pub legacy: Option<TileTable>,
}

/// The pre-UE5 ("legacy") tile addressing of FVirtualTextureBuiltData (notes §5 "Legacy:"):
/// tileIndex = TileIndexPerMip[m] + vAddress * NumLayers; its chunk is the interval of
/// TileIndexPerChunk holding it; the layer's absolute chunk offset is TileOffsetInChunk[tileIndex + l].
#[derive(Debug, Clone, PartialEq, Default)]
pub struct TileTable {
    /// First tile index of each chunk (UE writes one more entry: the end).
    pub tile_index_per_chunk: Vec<u32>,
    /// First tile index of each mip (UE writes one more entry: the end).
    pub tile_index_per_mip: Vec<u32>,
    /// Absolute chunk offset of each (tile, layer); 0xFFFFFFFF marks no tile (our reading: an
    /// offset that cannot be inside a chunk; such an entry, or one past the table, is a missing tile).
    pub tile_offset_in_chunk: Vec<u32>,
}

impl TileTable {
    /// Tile index of Morton address `v` at mip `m` with `layers` layers, None when it falls past
    /// the mip's range (the next mip's start, or the table's end for the last mip).
    fn tile_index(&self, m: usize, v: u32, layers: u32) -> Option<u32> {
        let start = *self.tile_index_per_mip.get(m)?;
        let i = start.checked_add(v.checked_mul(layers)?)?;
        let end = self
            .tile_index_per_mip
            .get(m + 1)
            .copied()
            .unwrap_or(u32::MAX)
            .min(u32::try_from(self.tile_offset_in_chunk.len()).unwrap_or(u32::MAX));
        (i < end).then_some(i)
    }

    /// Chunk holding tile index `i`: the last chunk whose first index is <= i, and i must be
    /// before the next chunk's first index (when the table says it).
    pub fn chunk_of(&self, i: u32) -> Option<u32> {
        let k = self
            .tile_index_per_chunk
            .partition_point(|&s| s <= i)
            .checked_sub(1)?;
        u32::try_from(k).ok()
    }

    /// Chunk offset of entry `j` of chunk `chunk` (`chunk_size` bytes): the table's entry while
    /// `j` is inside the chunk's index range, the chunk's size past it — Epic's
    /// GetTileOffset_Legacy (UE4 VirtualTextureBuiltData.cpp, CUE4Parse FVirtualTextureBuiltData),
    /// which lets a tile's end be asked as the next entry's start.
    fn offset(&self, chunk: u32, j: u32, chunk_size: u32) -> Option<u32> {
        let next_chunk = self
            .tile_index_per_chunk
            .get(chunk as usize + 1)
            .copied()
            .unwrap_or(u32::MAX);
        if j < next_chunk {
            self.tile_offset_in_chunk.get(j as usize).copied()
        } else {
            Some(chunk_size)
        }
    }

    /// Whether tile index `i` (first layer entry) holds data. UE4's builder fills the entries of
    /// an absent tile with the next tile's offset (its "patch holes" pass), so an empty tile is a
    /// zero-length one: offset(i) == offset(i + NumLayers), as Epic's and CUE4Parse's readers
    /// test. 0xFFFFFFFF entries (the builder's unpatched marker) also mean no tile.
    fn present(&self, i: u32, layers: u32, chunk: u32, chunk_size: u32) -> bool {
        let first = self.offset(chunk, i, chunk_size);
        let next = i
            .checked_add(layers)
            .and_then(|j| self.offset(chunk, j, chunk_size));
        matches!(first, Some(o) if o != u32::MAX) && first != next
    }
}

/// One block of a UDIM-style layout ([`TiledLayout::blocks`]).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct TileBlock {
    pub x: u32,
    pub y: u32,
    /// The UV tile number: 1001 + x + 10 y.
    pub udim: u32,
    /// (x, y, width, height) in mip-0 pixels.
    pub pixels: (u32, u32, u32, u32),
    /// Tiles of mip 0 in the block, and how many of them hold data (0: an empty block).
    pub tiles: u32,
    pub tiles_present: u32,
}

/// One cell of the grid, for the overlay.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct TileCell {
    pub x: u32,
    pub y: u32,
    pub morton: u32,
    /// Index of the tile in its mip's run table, absent for an empty cell.
    pub tile_index: Option<u32>,
    pub chunk: u32,
    /// Byte range of this layer's tile inside the chunk.
    pub offset: u64,
    pub length: u64,
    /// The tile exists and its chunk was opened.
    pub present: bool,
}

/// Morton code: x bits at even positions, y bits at odd (seed 000, notes §5).
pub fn morton(x: u32, y: u32) -> u32 {
    fn spread(v: u32) -> u32 {
        let mut v = v & 0xFFFF;
        v = (v | (v << 8)) & 0x00FF_00FF;
        v = (v | (v << 4)) & 0x0F0F_0F0F;
        v = (v | (v << 2)) & 0x3333_3333;
        v = (v | (v << 1)) & 0x5555_5555;
        v
    }
    spread(x) | (spread(y) << 1)
}

impl TiledLayout {
    pub fn physical_tile(&self) -> u32 {
        self.tile_size + 2 * self.tile_border
    }

    /// Tile index at (x, y) of `mip` from the run table, None for an empty cell (notes §5:
    /// k = upper_bound(Addresses, v) - 1; index = Offsets[k] + v - Addresses[k]).
    pub fn tile_index(&self, mip: usize, x: u32, y: u32) -> Option<u32> {
        let m = self.mips.get(mip)?;
        if x >= m.width_tiles || y >= m.height_tiles {
            return None;
        }
        let v = morton(x, y);
        if let Some(lg) = &self.legacy {
            let layers = self.layers.len() as u32;
            let i = lg.tile_index(mip, v, layers)?;
            let chunk = lg.chunk_of(i)?;
            let size = self.chunks.get(chunk as usize).map_or(0, |c| c.size);
            return lg.present(i, layers, chunk, size).then_some(i);
        }
        let k = m.addresses.partition_point(|&a| a <= v).checked_sub(1)?;
        let base = *m.offsets.get(k)?;
        if base == u32::MAX {
            return None;
        }
        base.checked_add(v - m.addresses[k])
    }

    pub fn tile(&self, mip: usize, layer: usize, x: u32, y: u32) -> Option<TileCell> {
        let m = self.mips.get(mip)?;
        let l = self.layers.get(layer)?;
        if x >= m.width_tiles || y >= m.height_tiles {
            return None;
        }
        let mut tile_index = self.tile_index(mip, x, y);
        let mut chunk = m.chunk;
        let mut length = l.bytes as u64;
        let offset = match (&self.legacy, tile_index) {
            (Some(lg), Some(i)) => {
                let c = lg.chunk_of(i).unwrap_or(u32::MAX);
                let size = self.chunks.get(c as usize).map_or(0, |k| k.size);
                let j = i.checked_add(layer as u32);
                let entry = j
                    .and_then(|j| lg.offset(c, j, size))
                    .filter(|&o| o != u32::MAX);
                match entry {
                    Some(o) if (c as usize) < self.chunks.len() => {
                        chunk = c;
                        // The layer's bytes end where the next entry starts (Epic's
                        // GetTileOffset_Legacy); an unusable next entry leaves the fixed size.
                        let end = j
                            .and_then(|j| j.checked_add(1))
                            .and_then(|e| lg.offset(c, e, size))
                            .filter(|&e| e != u32::MAX && e >= o);
                        if let Some(e) = end {
                            length = (e - o) as u64;
                        }
                        o as u64
                    }
                    _ => {
                        tile_index = None;
                        0
                    }
                }
            }
            (None, Some(i)) => {
                m.base_offset as u64 + i as u64 * self.tile_bytes as u64 + l.offset_in_tile as u64
            }
            (_, None) => 0,
        };
        let chunk_ok = self
            .chunks
            .get(chunk as usize)
            .map(|c| matches!(c.storage, Storage::Range { .. }) && offset + length <= c.size as u64)
            .unwrap_or(false);
        Some(TileCell {
            x,
            y,
            morton: morton(x, y),
            tile_index,
            chunk,
            offset,
            length: if tile_index.is_some() { length } else { 0 },
            present: tile_index.is_some() && chunk_ok,
        })
    }

    /// The blocks of mip 0 (UDIM: block (x, y) is UV tile 1001 + x + 10 y, V growing down the
    /// image as the engine lays the blocks out), with how many of their tiles hold data: a block
    /// with none is an empty UDIM tile. Empty when the grid does not divide into the blocks.
    pub fn blocks(&self) -> Vec<TileBlock> {
        let (bw, bh) = (self.width_in_blocks.max(1), self.height_in_blocks.max(1));
        let Some(m) = self.mips.first() else {
            return Vec::new();
        };
        if m.width_tiles % bw != 0 || m.height_tiles % bh != 0 {
            return Vec::new();
        }
        let (tw, th) = (m.width_tiles / bw, m.height_tiles / bh);
        let mut out = Vec::new();
        for by in 0..bh {
            for bx in 0..bw {
                let present = (0..th)
                    .flat_map(|y| (0..tw).map(move |x| (bx * tw + x, by * th + y)))
                    .filter(|&(x, y)| self.tile_index(0, x, y).is_some())
                    .count() as u32;
                out.push(TileBlock {
                    x: bx,
                    y: by,
                    udim: 1001 + bx + 10 * by,
                    pixels: (
                        bx * tw * self.tile_size,
                        by * th * self.tile_size,
                        tw * self.tile_size,
                        th * self.tile_size,
                    ),
                    tiles: tw * th,
                    tiles_present: present,
                });
            }
        }
        out
    }

    /// Every cell of `mip`'s grid, row by row.
    pub fn tiles(&self, mip: usize, layer: usize) -> Vec<TileCell> {
        let Some(m) = self.mips.get(mip) else {
            return Vec::new();
        };
        (0..m.height_tiles)
            .flat_map(|y| (0..m.width_tiles).map(move |x| (x, y)))
            .filter_map(|(x, y)| self.tile(mip, layer, x, y))
            .collect()
    }
}

/// A zlib tile (UE4's ZippedGPU: its builder compresses each tile with FCompression NAME_Zlib
/// when bVirtualTextureEnableCompressZlib is set; ValidateCompression inflates it to exactly the
/// packed P x P size) — inflated here with that size as the limit.
fn unzip_tile(
    stored: &[u8],
    want: usize,
    (tx, ty): (u32, u32),
    mip: usize,
    layer: usize,
) -> Result<Vec<u8>> {
    let raw = crate::io::compress::inflate_zlib(stored, want as u64).map_err(|e| {
        Error::malformed(format!(
            "VT tile ({tx}, {ty}) of mip {mip}, layer {layer} is ZippedGPU but does not \
             inflate to {want} bytes: {e}"
        ))
    })?;
    if raw.len() != want {
        return Err(Error::malformed(format!(
            "VT tile ({tx}, {ty}) of mip {mip}, layer {layer} inflates to {} bytes, a tile is \
             {want}",
            raw.len()
        )));
    }
    Ok(raw)
}

/// A rectangle of tiles at one mip: `x`, `y` first tile, `w` x `h` tiles.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TileRect {
    pub x: u32,
    pub y: u32,
    pub w: u32,
    pub h: u32,
}

/// A decoded region and the grid cells that were filled with the fallback colour.
#[derive(Debug, Clone)]
pub struct TiledImage {
    pub image: Image,
    /// Pixel position of the image's top-left corner in the mip.
    pub origin: (u32, u32),
    /// (x, y) of tiles absent from the table or whose chunk file is missing.
    pub missing: Vec<(u32, u32)>,
    /// Files that would fill missing tiles.
    pub missing_files: Vec<String>,
}

fn fill(img: &mut Image, x0: u32, y0: u32, w: u32, h: u32, c: [f32; 4]) {
    let width = img.width as usize;
    for y in y0..y0 + h {
        for x in x0..x0 + w {
            let i = (y as usize * width + x as usize) * 4;
            match &mut img.pixels {
                Pixels::Rgba8(p) => {
                    for k in 0..4 {
                        p[i + k] = (c[k].clamp(0.0, 1.0) * 255.0).round() as u8;
                    }
                }
                Pixels::Rgba16(p) => {
                    for k in 0..4 {
                        p[i + k] = (c[k].clamp(0.0, 1.0) * 65535.0).round() as u16;
                    }
                }
                Pixels::Rgba32F(p) => p[i..i + 4].copy_from_slice(&c),
            }
        }
    }
}

/// Copies a `w` x `h` region from (sx, sy) of `src` to (dx, dy) of `dst` (same precision).
fn blit(dst: &mut Image, src: &Image, (sx, sy): (u32, u32), (dx, dy): (u32, u32), w: u32, h: u32) {
    fn rows<T: Copy>(
        d: &mut [T],
        s: &[T],
        dw: usize,
        sw: usize,
        a: [usize; 4],
        w: usize,
        h: usize,
    ) {
        let [sx, sy, dx, dy] = a;
        for r in 0..h {
            let so = ((sy + r) * sw + sx) * 4;
            let doff = ((dy + r) * dw + dx) * 4;
            d[doff..doff + w * 4].copy_from_slice(&s[so..so + w * 4]);
        }
    }
    let (dw, sw) = (dst.width as usize, src.width as usize);
    let a = [sx as usize, sy as usize, dx as usize, dy as usize];
    let (w, h) = (w as usize, h as usize);
    match (&mut dst.pixels, &src.pixels) {
        (Pixels::Rgba8(d), Pixels::Rgba8(s)) => rows(d, s, dw, sw, a, w, h),
        (Pixels::Rgba16(d), Pixels::Rgba16(s)) => rows(d, s, dw, sw, a, w, h),
        (Pixels::Rgba32F(d), Pixels::Rgba32F(s)) => rows(d, s, dw, sw, a, w, h),
        _ => {}
    }
}

/// Decodes a rectangle of tiles (or the whole mip when `rect` is None) of one layer: each present
/// tile's physical P x P block image is decoded and its centre (border cropped) placed at
/// (tx * TileSize, ty * TileSize); absent tiles get the layer's fallback colour and are listed.
/// `source` resolves a catalog source id.
pub fn decode_tiles<'s>(
    vt: &TiledLayout,
    mip: usize,
    layer: usize,
    rect: Option<TileRect>,
    source: impl Fn(usize) -> Option<&'s dyn Source>,
    limits: &Limits,
) -> Result<TiledImage> {
    let m = vt.mips.get(mip).ok_or_else(|| {
        Error::malformed(format!("the VT has {} mips; no mip {mip}", vt.mips.len()))
    })?;
    let l = vt.layers.get(layer).ok_or_else(|| {
        Error::malformed(format!(
            "the VT has {} layers; no layer {layer}",
            vt.layers.len()
        ))
    })?;
    let r = rect.unwrap_or(TileRect {
        x: 0,
        y: 0,
        w: m.width_tiles,
        h: m.height_tiles,
    });
    if r.w == 0
        || r.h == 0
        || r.x.checked_add(r.w).is_none_or(|e| e > m.width_tiles)
        || r.y.checked_add(r.h).is_none_or(|e| e > m.height_tiles)
    {
        return Err(Error::malformed(format!(
            "tile rectangle {}x{} at ({}, {}) is outside mip {mip}'s {}x{} tile grid",
            r.w, r.h, r.x, r.y, m.width_tiles, m.height_tiles
        )));
    }
    let t = vt.tile_size;
    let ox = r.x * t;
    let oy = r.y * t;
    let iw = (r.w * t).min(m.width.saturating_sub(ox)).max(1);
    let ih = (r.h * t).min(m.height.saturating_sub(oy)).max(1);
    let mut img = Image::new(iw, ih, l.format.precision(), limits)?;
    let mut missing = Vec::new();
    let mut missing_files = Vec::new();
    let p = vt.physical_tile();
    let b = vt.tile_border;
    let empty = Storage::Empty;
    // Only tiles that overlap the (clipped) image are visited.
    let x_end = r.x + r.w.min(iw.div_ceil(t));
    let y_end = r.y + r.h.min(ih.div_ceil(t));
    for ty in r.y..y_end {
        for tx in r.x..x_end {
            let dx = tx * t - ox;
            let dy = ty * t - oy;
            if dx >= iw || dy >= ih {
                continue;
            }
            let cw = t.min(iw - dx);
            let ch = t.min(ih - dy);
            let cell = vt.tile(mip, layer, tx, ty);
            // Each tile names its chunk (legacy VTs may spread a mip over chunks); a chunk index
            // past the table leaves the cell empty.
            let storage = cell
                .as_ref()
                .and_then(|c| vt.chunks.get(c.chunk as usize))
                .map_or(&empty, |c| &c.storage);
            let tile = match (&cell, storage) {
                (
                    Some(c),
                    Storage::Range {
                        source: s,
                        offset,
                        length,
                    },
                ) if c.tile_index.is_some() => {
                    // How this layer is stored in the tile's chunk.
                    let codec = vt
                        .chunks
                        .get(c.chunk as usize)
                        .and_then(|k| k.codecs.get(layer))
                        .unwrap_or(&TileCodec::Raw);
                    match codec {
                        TileCodec::Raw | TileCodec::Zlib => {}
                        TileCodec::Fill { color } => {
                            fill(&mut img, dx, dy, cw, ch, *color);
                            continue;
                        }
                        TileCodec::Other { name } => {
                            return Err(Error::unsupported(format!(
                                "VT chunk {} stores layer {layer} with {name}; only raw and \
                                 zlib-compressed tiles are decoded",
                                c.chunk
                            )))
                        }
                    }
                    if *codec == TileCodec::Raw && c.length != l.bytes as u64 {
                        // Only per-tile tables give per-tile sizes: a raw tile is exactly one
                        // P x P surface.
                        return Err(Error::malformed(format!(
                            "VT tile ({tx}, {ty}) of mip {mip}, layer {layer} spans {} bytes in \
                             its tile table, but a raw {p}x{p} {} tile is {} bytes (chunk {})",
                            c.length, l.native_format, l.bytes, c.chunk
                        )));
                    }
                    if c.offset + c.length > *length {
                        return Err(Error::malformed(format!(
                            "VT tile ({tx}, {ty}) of mip {mip} ends at {} but chunk {} holds {length} bytes",
                            c.offset + c.length,
                            c.chunk
                        )));
                    }
                    let src = source(*s)
                        .ok_or_else(|| Error::malformed("VT chunk names an unknown source"))?;
                    let stored = read_range(src, offset + c.offset, c.length, limits)?;
                    Some(if *codec == TileCodec::Zlib {
                        unzip_tile(&stored, l.bytes as usize, (tx, ty), mip, layer)?
                    } else {
                        stored
                    })
                }
                (Some(c), Storage::Missing { file, .. }) if c.tile_index.is_some() => {
                    if !missing_files.contains(file) {
                        missing_files.push(file.clone());
                    }
                    None
                }
                _ => None,
            };
            match tile {
                Some(bytes) => {
                    let dec = decode_surface(l.format, p, p, &bytes, limits)?;
                    blit(&mut img, &dec, (b, b), (dx, dy), cw, ch);
                }
                None => {
                    fill(&mut img, dx, dy, cw, ch, l.fallback);
                    missing.push((tx, ty));
                }
            }
        }
    }
    Ok(TiledImage {
        image: img,
        origin: (ox, oy),
        missing,
        missing_files,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn morton_interleaves_x_even_y_odd() {
        // Seed 000: x bits at even positions, y bits at odd.
        assert_eq!(morton(1, 0), 1);
        assert_eq!(morton(0, 1), 2);
        assert_eq!(morton(3, 3), 15);
        assert_eq!(morton(4, 0), 16);
    }

    fn layout(addresses: Vec<u32>, offsets: Vec<u32>) -> TiledLayout {
        TiledLayout {
            tile_size: 128,
            tile_border: 4,
            width: 512,
            height: 512,
            width_in_blocks: 1,
            height_in_blocks: 1,
            tile_bytes: 9248,
            layers: vec![TileLayer {
                format: PixelFormat::BC1,
                native_format: "PF_DXT1".into(),
                fallback: [0.0; 4],
                offset_in_tile: 0,
                bytes: 9248,
            }],
            mips: vec![TileMip {
                width: 512,
                height: 512,
                width_tiles: 4,
                height_tiles: 4,
                max_address: 16,
                chunk: 0,
                base_offset: 4,
                addresses,
                offsets,
            }],
            chunks: vec![TileChunk {
                size: 4 + 16 * 9248,
                codec_payload_size: 4,
                codecs: vec![TileCodec::Raw],
                hash: String::new(),
                storage: Storage::Empty,
                bulk: String::new(),
            }],
            record_form: "UE5".into(),
            legacy: None,
        }
    }

    #[test]
    fn run_table_lookup() {
        // Notes §5: index = Offsets[k] + v - Addresses[k], k = upper_bound - 1; ~0 = empty run.
        let vt = layout(vec![0, 4, 8], vec![0, u32::MAX, 4]);
        assert_eq!(vt.tile_index(0, 0, 0), Some(0));
        assert_eq!(vt.tile_index(0, 1, 1), Some(3)); // v = 3
        assert_eq!(vt.tile_index(0, 2, 0), None); // v = 4, empty run
        assert_eq!(vt.tile_index(0, 0, 2), Some(4)); // v = 8
        assert_eq!(vt.tile_index(0, 3, 3), Some(11)); // v = 15
        assert_eq!(vt.tile_index(0, 4, 0), None); // outside the grid
        let t = vt.tile(0, 0, 0, 2).unwrap();
        assert_eq!((t.offset, t.length), (4 + 4 * 9248, 9248));
        // Storage::Empty: the chunk is not readable, so nothing is present.
        assert!(!t.present);
    }

    #[test]
    fn table_without_a_start_at_zero_has_no_tiles_before_it() {
        let vt = layout(vec![2], vec![0]);
        assert_eq!(vt.tile_index(0, 0, 0), None);
        assert_eq!(vt.tile_index(0, 0, 1), Some(0));
    }

    #[test]
    fn legacy_lookup_follows_the_notes_formula() {
        // Notes §5 "Legacy:": tileIndex = TileIndexPerMip[m] + v * NumLayers (one layer here),
        // chunk = interval of TileIndexPerChunk, offset = TileOffsetInChunk[tileIndex + l].
        let mut vt = layout(Vec::new(), Vec::new());
        vt.chunks.push(vt.chunks[0].clone());
        let mut offs: Vec<u32> = (0..16).map(|i| 4 + (i % 8) * 9248).collect();
        offs[5] = u32::MAX; // v = 5 = (3, 0): no tile
        offs.truncate(14); // v = 14, 15: past the table
        vt.legacy = Some(TileTable {
            tile_index_per_chunk: vec![0, 8, 16],
            tile_index_per_mip: vec![0, 16],
            tile_offset_in_chunk: offs,
        });
        assert_eq!(vt.tile_index(0, 1, 1), Some(3));
        let t = vt.tile(0, 0, 0, 2).unwrap(); // v = 8: first tile of chunk 1
        assert_eq!((t.tile_index, t.chunk, t.offset), (Some(8), 1, 4));
        let t = vt.tile(0, 0, 3, 1).unwrap(); // v = 7, chunk 0
        assert_eq!((t.chunk, t.offset), (0, 4 + 7 * 9248));
        assert_eq!(vt.tile_index(0, 3, 0), None);
        assert_eq!(vt.tile_index(0, 2, 3), None); // v = 14
        assert_eq!(vt.tile_index(0, 3, 3), None); // v = 15
                                                  // A TileIndexPerMip start near u32::MAX overflows into no tile, not a wrap.
        vt.legacy.as_mut().unwrap().tile_index_per_mip[0] = u32::MAX - 1;
        assert_eq!(vt.tile_index(0, 1, 1), None);
    }
}
