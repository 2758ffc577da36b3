//! UE5 virtual textures: FVirtualTextureBuiltData (notes §5, correcting seed 000's VT section),
//! the tile grid the viewer overlays, and decoding of a whole mip or any rectangle of tiles.

use super::cursor::Cursor;
use super::package::{Export, Package};
use super::texture::{self, Payload};
use crate::codec::{decode_surface, Image, PixelFormat, Pixels};
use crate::io::{read_range, Error, Limits, Result, Source};
use crate::model::Storage;
use serde::Serialize;

/// One VT layer (e.g. base colour DXT1 + normal BC5).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct VtLayer {
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
pub struct VtMip {
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
pub struct VtChunk {
    pub size: u32,
    pub codec_payload_size: u32,
    /// Per layer: 0 Black, 1 OpaqueBlack, 2 White, 3 Flat, 4 RawGPU, 5 ZippedGPU, 6 Crunch.
    pub codecs: Vec<u8>,
    /// SHA-1 of the chunk bytes, hex.
    pub hash: String,
    pub storage: Storage,
    /// How the chunk's bulk data was referenced ("data resource 3", "header").
    pub bulk: String,
}

/// The whole VT layout exposed through `Layout::Virtual`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct VtLayout {
    pub tile_size: u32,
    pub tile_border: u32,
    pub width: u32,
    pub height: u32,
    /// UDIM block counts (normally 1x1).
    pub width_in_blocks: u32,
    pub height_in_blocks: u32,
    /// Bytes of one tile record, all layers (TileDataOffsetPerLayer.last()).
    pub tile_bytes: u32,
    pub layers: Vec<VtLayer>,
    pub mips: Vec<VtMip>,
    pub chunks: Vec<VtChunk>,
    /// Which serialisation of FVirtualTextureBuiltData was read ("UE5", "UE4.27",
    /// "UE4.23-4.26") and how it was chosen.
    pub record_form: String,
    /// Pre-UE5 addressing tables, when the data uses them (then `VtMip::addresses` are empty).
    /// Not serialised: they hold one entry per (Morton address, layer) and the page never reads them.
    #[serde(skip)]
    pub legacy: Option<VtLegacy>,
}

/// The pre-UE5 ("legacy") tile addressing of FVirtualTextureBuiltData (notes §5 "Legacy:"):
/// tileIndex = TileIndexPerMip[m] + vAddress * NumLayers; its chunk is the interval of
/// TileIndexPerChunk holding it; the layer's absolute chunk offset is TileOffsetInChunk[tileIndex + l].
#[derive(Debug, Clone, PartialEq, Default)]
pub struct VtLegacy {
    /// First tile index of each chunk (UE writes one more entry: the end).
    pub tile_index_per_chunk: Vec<u32>,
    /// First tile index of each mip (UE writes one more entry: the end).
    pub tile_index_per_mip: Vec<u32>,
    /// Absolute chunk offset of each (tile, layer); 0xFFFFFFFF marks no tile (our reading: an
    /// offset that cannot be inside a chunk; such an entry, or one past the table, is a missing tile).
    pub tile_offset_in_chunk: Vec<u32>,
}

impl VtLegacy {
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
    fn chunk_of(&self, i: u32) -> Option<u32> {
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

/// One cell of the grid, for the overlay.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct VtTile {
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

/// What the parser found before chunk payloads were mapped to opened files.
#[derive(Debug, Clone)]
pub struct VtRaw {
    pub layout: VtLayout,
    pub chunk_payloads: Vec<Payload>,
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

impl VtLayout {
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

    pub fn tile(&self, mip: usize, layer: usize, x: u32, y: u32) -> Option<VtTile> {
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
        Some(VtTile {
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

    /// Every cell of `mip`'s grid, row by row.
    pub fn tiles(&self, mip: usize, layer: usize) -> Vec<VtTile> {
        let Some(m) = self.mips.get(mip) else {
            return Vec::new();
        };
        (0..m.height_tiles)
            .flat_map(|y| (0..m.width_tiles).map(move |x| (x, y)))
            .filter_map(|(x, y)| self.tile(mip, layer, x, y))
            .collect()
    }
}

fn read_u32s(c: &mut Cursor, what: &str) -> Result<Vec<u32>> {
    c.u32_array(what)
}

/// The grid drives per-tile loops in the overlay: bound it like any table from a file.
fn check_grid(c: &Cursor, m: usize, width_tiles: u32, height_tiles: u32) -> Result<()> {
    if width_tiles as u64 * height_tiles as u64 > c.limits.max_entries {
        return Err(Error::limit(format!(
            "VT mip {m}: a {width_tiles}x{height_tiles} tile grid is over the entry limit"
        )));
    }
    Ok(())
}

/// Which serialisation of FVirtualTextureBuiltData (notes §5) to read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum VtForm {
    Ue5,
    /// UE4.23-4.26: no TileDataOffsetPerLayer, no UE5 tile tables, no LayerFallbackColors;
    /// chunk records without the SHA-1 and with u16 CodecPayloadOffsets (Epic's UE4
    /// VirtualTextureBuiltData.h `uint16 CodecPayloadOffset[]`; CUE4Parse reads u16 before
    /// GAME_UE4_27).
    Ue4Pre427,
    /// UE4.27: as [`VtForm::Ue4Pre427`] with u32 CodecPayloadOffsets (CUE4Parse
    /// FVirtualTextureDataChunk: `Ar.Game >= GAME_UE4_27 ? uint : ushort`).
    Ue427,
}

impl VtForm {
    pub fn label(self) -> &'static str {
        match self {
            VtForm::Ue5 => "UE5",
            VtForm::Ue4Pre427 => "UE4.23-4.26",
            VtForm::Ue427 => "UE4.27",
        }
    }
}

/// FVirtualTextureBuiltData, UE5 layout (notes §5), read right after bIsVirtual = 1.
pub fn read_built_data(c: &mut Cursor, pkg: &Package, export: &Export) -> Result<VtRaw> {
    read_built_data_form(c, pkg, export, VtForm::Ue5)
}

/// [`read_built_data`] for a given serialisation form.
pub fn read_built_data_form(
    c: &mut Cursor,
    pkg: &Package,
    export: &Export,
    form: VtForm,
) -> Result<VtRaw> {
    let ue5 = form == VtForm::Ue5;
    let _cooked = c.bool32()?;
    let num_layers = c.u32()?;
    if !(1..=8).contains(&num_layers) {
        return Err(Error::malformed(format!(
            "VT NumLayers {num_layers} (1..8)"
        )));
    }
    let width_in_blocks = c.u32()?;
    let height_in_blocks = c.u32()?;
    let tile_size = c.u32()?;
    let tile_border = c.u32()?;
    if tile_size == 0 || tile_size > 4096 || tile_border > 64 {
        return Err(Error::malformed(format!(
            "VT tile size {tile_size} + border {tile_border} is not plausible"
        )));
    }
    let mut offsets_per_layer = if ue5 {
        read_u32s(c, "TileDataOffsetPerLayer")?
    } else {
        Vec::new()
    };
    if ue5 && offsets_per_layer.len() != num_layers as usize {
        return Err(Error::malformed(
            "TileDataOffsetPerLayer does not have one entry per layer",
        ));
    }
    let num_mips = c.u32()?;
    let width = c.u32()?;
    let height = c.u32()?;
    if num_mips == 0 || num_mips > c.limits.max_mips {
        return Err(Error::malformed(format!("VT NumMips {num_mips}")));
    }
    c.limits.check_dims(width, height, 1)?;
    let (chunk_per_mip, base_per_mip, n) = if ue5 {
        (
            read_u32s(c, "ChunkIndexPerMip")?,
            read_u32s(c, "BaseOffsetPerMip")?,
            c.i32()?,
        )
    } else {
        (Vec::new(), Vec::new(), 0)
    };
    if n < 0 || n as u32 > num_mips {
        return Err(Error::malformed(format!(
            "VT TileOffsetData has {n} entries for {num_mips} mips"
        )));
    }
    let mut tile_data = Vec::new();
    for m in 0..n as usize {
        let width_tiles = c.u32()?;
        let height_tiles = c.u32()?;
        check_grid(c, m, width_tiles, height_tiles)?;
        let max_address = c.u32()?;
        let addresses = read_u32s(c, "TileOffsetData.Addresses")?;
        let offsets = read_u32s(c, "TileOffsetData.Offsets")?;
        if addresses.len() != offsets.len() || addresses.windows(2).any(|w| w[0] >= w[1]) {
            return Err(Error::malformed(format!(
                "VT mip {m}: address ranges are not sorted or do not pair with offsets"
            )));
        }
        tile_data.push((width_tiles, height_tiles, max_address, addresses, offsets));
    }
    let legacy = VtLegacy {
        tile_index_per_chunk: read_u32s(c, "TileIndexPerChunk")?,
        tile_index_per_mip: read_u32s(c, "TileIndexPerMip")?,
        tile_offset_in_chunk: read_u32s(c, "TileOffsetInChunk")?,
    };
    let sh = |v: u32, m: usize| (v >> m.min(31)).max(1);
    let mut mips = Vec::new();
    // IsLegacyData <=> TileOffsetInChunk is non-empty (notes §5).
    let legacy = if legacy.tile_offset_in_chunk.is_empty() {
        if n as u32 != num_mips || chunk_per_mip.len() != n as usize {
            return Err(Error::malformed(
                "VT per-mip tables do not have one entry per mip",
            ));
        }
        if base_per_mip.len() != n as usize {
            return Err(Error::malformed(
                "BaseOffsetPerMip length differs from NumMips",
            ));
        }
        for (m, (width_tiles, height_tiles, max_address, addresses, offsets)) in
            tile_data.into_iter().enumerate()
        {
            mips.push(VtMip {
                width: sh(width, m),
                height: sh(height, m),
                width_tiles,
                height_tiles,
                max_address,
                chunk: chunk_per_mip[m],
                base_offset: base_per_mip[m],
                addresses,
                offsets,
            });
        }
        None
    } else {
        if n != 0 || !chunk_per_mip.is_empty() || !base_per_mip.is_empty() {
            return Err(Error::malformed(
                "VT has both UE5 tile tables and legacy TileOffsetInChunk",
            ));
        }
        if legacy.tile_index_per_mip.len() < num_mips as usize {
            return Err(Error::malformed(format!(
                "VT TileIndexPerMip has {} entries for {num_mips} mips",
                legacy.tile_index_per_mip.len()
            )));
        }
        for m in 0..num_mips as usize {
            // Legacy data has no per-mip grid: it follows from the size and the tile size.
            let (w, h) = (sh(width, m), sh(height, m));
            let (width_tiles, height_tiles) = (w.div_ceil(tile_size), h.div_ceil(tile_size));
            check_grid(c, m, width_tiles, height_tiles)?;
            let side = width_tiles.max(height_tiles).next_power_of_two();
            let first = legacy.tile_index_per_mip[m];
            // Epic's UE4 builder gives each mip (Morton(w-1, h-1) + 1) * NumLayers entries, so a
            // well-ordered range smaller than the grid means Width/Height disagree with the
            // tables; reading on would decode a huge grid of fallback cells (a mutated Height of
            // 65,376 took 3 s in the sweep). A start past the next mip's (unordered) is left to
            // the per-tile range checks: its cells are missing tiles.
            let next = legacy.tile_index_per_mip.get(m + 1).copied();
            if let Some(range) = next.and_then(|e| e.checked_sub(first)) {
                let need = (morton(width_tiles.max(1) - 1, height_tiles.max(1) - 1) as u64 + 1)
                    * num_layers as u64;
                if (range as u64) < need {
                    return Err(Error::malformed(format!(
                        "VT TileIndexPerMip gives mip {m} {range} entries, but its \
                         {width_tiles}x{height_tiles} tile grid ({w}x{h} px) needs {need}"
                    ))
                    .at_field("unreal/FVirtualTextureBuiltData/TileIndexPerMip"));
                }
            }
            mips.push(VtMip {
                width: w,
                height: h,
                width_tiles,
                height_tiles,
                max_address: side.saturating_mul(side),
                chunk: legacy.chunk_of(first).unwrap_or(0),
                base_offset: 0,
                addresses: Vec::new(),
                offsets: Vec::new(),
            });
        }
        Some(legacy)
    };
    let mut layers = Vec::new();
    let p = tile_size + 2 * tile_border;
    for l in 0..num_layers as usize {
        let name = c.fstring()?;
        let format = texture::pixel_format(&name).ok_or_else(|| {
            Error::unsupported(format!("VT layer {l} pixel format {name} is not supported"))
        })?;
        let start = if l == 0 { 0 } else { offsets_per_layer[l - 1] };
        let need = format.surface_size(p, p);
        if !ue5 {
            // UE4 has no per-layer table: each layer's tile is one P x P surface of its format.
            let end = u32::try_from(start as u64 + need)
                .map_err(|_| Error::malformed(format!("VT layer {l} tiles are too large")))?;
            offsets_per_layer.push(end);
        }
        let bytes = offsets_per_layer[l].saturating_sub(start);
        if bytes as u64 != need {
            return Err(Error::malformed(format!(
                "VT layer {l} ({name}) has {bytes}-byte tiles, but a {p}x{p} tile needs {need}"
            )));
        }
        layers.push(VtLayer {
            format,
            native_format: name,
            fallback: [0.0; 4],
            offset_in_tile: start,
            bytes,
        });
    }
    if ue5 {
        for layer in layers.iter_mut() {
            for v in layer.fallback.iter_mut() {
                *v = c.f32()?;
            }
        }
    }
    let nchunks = c.i32()?;
    if nchunks < 0 {
        return Err(Error::malformed("negative VT chunk count"));
    }
    // Smallest record: UE5 hash 20 + sizes 8 + per layer 5 (+ an i32 index); UE4 8 + 3 per layer
    // + a 20-byte bulk header.
    let (hash_len, codec_off_len) = match form {
        VtForm::Ue5 => (20, 4),
        VtForm::Ue427 => (0, 4),
        VtForm::Ue4Pre427 => (0, 2),
    };
    c.limits.check_count(
        nchunks as u64,
        28 + (1 + codec_off_len) * num_layers as u64,
        c.end.saturating_sub(c.pos),
        "VT chunks",
    )?;
    let mut chunks = Vec::new();
    let mut payloads = Vec::new();
    for _ in 0..nchunks {
        let hash: String = c
            .bytes(hash_len)?
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect();
        let size = c.u32()?;
        let codec_payload_size = c.u32()?;
        let mut bulk_flags = None;
        let mut codecs = Vec::new();
        let mut codec_offsets = Vec::new();
        for _ in 0..num_layers {
            codecs.push(c.u8()?);
            codec_offsets.push(if codec_off_len == 2 {
                c.u16()? as u32
            } else {
                c.u32()?
            });
        }
        let (payload, bulk) = match &pkg.resources {
            Some(rows) => {
                let idx = c.i32()?;
                let row = usize::try_from(idx)
                    .ok()
                    .and_then(|i| rows.get(i))
                    .copied()
                    .ok_or_else(|| {
                        Error::malformed(format!(
                            "VT chunk names data resource {idx}, which does not exist"
                        ))
                    })?;
                (
                    texture::entry_payload(c, pkg, export.coord_delta, row)?,
                    format!("data resource {idx}"),
                )
            }
            None => {
                let flags_at = c.pos;
                let payload = texture::read_bulk_header(c, pkg, export.coord_delta)?.0;
                let mut f = Cursor::new(c.src, flags_at, c.end, c.limits);
                bulk_flags = Some(f.u32()?);
                (payload, "header".to_string())
            }
        };
        if !ue5 {
            check_ue4_chunk(
                chunks.len(),
                form,
                size,
                codec_payload_size,
                &codecs,
                &codec_offsets,
                &payload,
                &bulk_flags,
            )?;
        }
        chunks.push(VtChunk {
            size,
            codec_payload_size,
            codecs,
            hash,
            storage: Storage::Empty,
            bulk,
        });
        payloads.push(payload);
    }
    if let Some(lg) = &legacy {
        // UE writes one start per chunk plus the end; more starts than chunks name chunks
        // that do not exist.
        let starts = lg.tile_index_per_chunk.len();
        if starts == 0 || starts > chunks.len() + 1 {
            return Err(Error::malformed(format!(
                "VT TileIndexPerChunk has {starts} entries for {} chunks",
                chunks.len()
            )));
        }
    }
    if legacy.is_some() {
        // A legacy mip's chunk is only its first tile's (each tile names its own, checked per
        // tile): a start past the tables leaves the mip with missing tiles, not an error.
        for mip in mips.iter_mut() {
            if mip.chunk as usize >= chunks.len() {
                mip.chunk = 0;
            }
        }
    }
    for (m, mip) in mips.iter().enumerate() {
        if mip.chunk as usize >= chunks.len() {
            return Err(Error::malformed(format!(
                "VT mip {m} names chunk {}, but there are {}",
                mip.chunk,
                chunks.len()
            )));
        }
    }
    let tile_bytes = *offsets_per_layer.last().unwrap_or(&0);
    Ok(VtRaw {
        layout: VtLayout {
            tile_size,
            tile_border,
            width,
            height,
            width_in_blocks,
            height_in_blocks,
            tile_bytes,
            layers,
            mips,
            chunks,
            record_form: form.label().to_string(),
            legacy,
        },
        chunk_payloads: payloads,
    })
}

/// The consistency a UE4 chunk record must show, which tells the u16 (4.23-4.26) and u32 (4.27)
/// CodecPayloadOffset forms apart when the package carries no engine version: read in the
/// wrong form, the 2 bytes per layer shift the bulk header so its flags, size and offsets stop
/// agreeing with the record (Epic's UE4 builder: the chunk's bulk data holds exactly
/// SizeInBytes bytes, flagged Force_NOT_InlinePayload; codec payloads lie inside the chunk).
#[allow(clippy::too_many_arguments)]
fn check_ue4_chunk(
    k: usize,
    form: VtForm,
    size: u32,
    codec_payload_size: u32,
    codecs: &[u8],
    codec_offsets: &[u32],
    payload: &Payload,
    bulk_flags: &Option<u32>,
) -> Result<()> {
    let bad = |what: String| {
        Err(Error::malformed(format!(
            "VT chunk {k} does not read as the {} record form: {what}",
            form.label()
        ))
        .at_field("unreal/FVirtualTextureDataChunk"))
    };
    if codec_payload_size > size {
        return bad(format!(
            "CodecPayloadSize {codec_payload_size} exceeds SizeInBytes {size}"
        ));
    }
    if let Some(&o) = codec_offsets.iter().find(|&&o| o > codec_payload_size) {
        return bad(format!(
            "a CodecPayloadOffset {o} lies past CodecPayloadSize {codec_payload_size}"
        ));
    }
    // EVirtualTextureCodec: Black .. Crunch = 0..6 (Max = 7 is never written).
    if let Some(&t) = codecs.iter().find(|&&t| t > 6) {
        return bad(format!("codec type {t} is not an EVirtualTextureCodec"));
    }
    // EBulkDataFlags has no bit above LazyLoadable (0x40000) in UE4.
    if let Some(f) = bulk_flags.filter(|f| f & !0x7_FFFF != 0) {
        return bad(format!("bulk-data flags 0x{f:X} hold unknown bits"));
    }
    let stored = match payload {
        Payload::Inline { size, .. } | Payload::External { size, .. } => Some(*size),
        Payload::Nothing => Some(0),
        _ => None,
    };
    if let Some(s) = stored.filter(|&s| s != size as u64) {
        return bad(format!(
            "its bulk data holds {s} bytes but SizeInBytes says {size}"
        ));
    }
    Ok(())
}

const RAW_GPU: u8 = 4;
const ZIPPED_GPU: u8 = 5;

fn codec_name(codec: u8) -> &'static str {
    match codec {
        0 => "Black",
        1 => "OpaqueBlack",
        2 => "White",
        3 => "Flat",
        4 => "RawGPU",
        5 => "ZippedGPU",
        6 => "Crunch",
        _ => "unknown",
    }
}

/// A ZippedGPU tile: one zlib stream (UE4's builder compresses each tile with
/// FCompression NAME_Zlib when bVirtualTextureEnableCompressZlib is set; its
/// ValidateCompression inflates it to exactly the packed P x P size) — inflated here with that
/// size as the limit.
fn unzip_tile(
    stored: &[u8],
    want: usize,
    (tx, ty): (u32, u32),
    mip: usize,
    layer: usize,
) -> Result<Vec<u8>> {
    let raw =
        miniz_oxide::inflate::decompress_to_vec_zlib_with_limit(stored, want).map_err(|e| {
            Error::malformed(format!(
                "VT tile ({tx}, {ty}) of mip {mip}, layer {layer} is ZippedGPU but does not \
                 inflate to {want} bytes: {:?}",
                e.status
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
pub struct VtImage {
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
    vt: &VtLayout,
    mip: usize,
    layer: usize,
    rect: Option<TileRect>,
    source: impl Fn(usize) -> Option<&'s dyn Source>,
    limits: &Limits,
) -> Result<VtImage> {
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
                    // EVirtualTextureCodec of this layer in the tile's chunk (notes §5).
                    let codec = vt
                        .chunks
                        .get(c.chunk as usize)
                        .and_then(|k| k.codecs.get(layer))
                        .copied()
                        .unwrap_or(RAW_GPU);
                    if !matches!(codec, RAW_GPU | ZIPPED_GPU) {
                        return Err(Error::unsupported(format!(
                            "VT chunk {} stores layer {layer} with codec {codec} ({}); only RawGPU \
                             and ZippedGPU tiles are decoded",
                            c.chunk,
                            codec_name(codec)
                        )));
                    }
                    if codec == RAW_GPU && c.length != l.bytes as u64 {
                        // Only legacy tables give per-tile sizes: a RawGPU tile is exactly one
                        // P x P surface.
                        return Err(Error::malformed(format!(
                            "VT tile ({tx}, {ty}) of mip {mip}, layer {layer} spans {} bytes in \
                             TileOffsetInChunk, but a RawGPU {p}x{p} {} tile is {} bytes \
                             (chunk {})",
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
                    Some(if codec == ZIPPED_GPU {
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
    Ok(VtImage {
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

    fn layout(addresses: Vec<u32>, offsets: Vec<u32>) -> VtLayout {
        VtLayout {
            tile_size: 128,
            tile_border: 4,
            width: 512,
            height: 512,
            width_in_blocks: 1,
            height_in_blocks: 1,
            tile_bytes: 9248,
            layers: vec![VtLayer {
                format: PixelFormat::BC1,
                native_format: "PF_DXT1".into(),
                fallback: [0.0; 4],
                offset_in_tile: 0,
                bytes: 9248,
            }],
            mips: vec![VtMip {
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
            chunks: vec![VtChunk {
                size: 4 + 16 * 9248,
                codec_payload_size: 4,
                codecs: vec![4],
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
        vt.legacy = Some(VtLegacy {
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

    /// A UE4.25/4.26-form FVirtualTextureBuiltData (notes §5: no TileDataOffsetPerLayer, no UE5
    /// tables, no fallback colours; chunk record without SHA-1, u16 codec offset, legacy
    /// FByteBulkData header) with legacy addressing, as bytes.
    fn ue4_record(offsets: &[u32]) -> Vec<u8> {
        let mut b = Vec::new();
        let u = |b: &mut Vec<u8>, v: u32| b.extend_from_slice(&v.to_le_bytes());
        for v in [1, 1, 1, 1, 4, 0] {
            u(&mut b, v); // bCooked, NumLayers, Width/HeightInBlocks, TileSize 4, border 0
        }
        for v in [1, 8, 8] {
            u(&mut b, v); // NumMips, Width, Height: a 2x2 grid of 4-pixel tiles
        }
        for arr in [&[0u32, 4][..], &[0, 4], offsets] {
            u(&mut b, arr.len() as u32);
            for &v in arr {
                u(&mut b, v);
            }
        }
        u(&mut b, 8);
        b.extend_from_slice(b"PF_DXT1\0");
        u(&mut b, 1); // one chunk
        u(&mut b, 36); // SizeInBytes: header + 4 DXT1 tiles of 8 bytes
        u(&mut b, 4); // CodecPayloadSize
        b.push(4); // RawGPU
        b.extend_from_slice(&4u16.to_le_bytes());
        // FByteBulkData: PayloadInSeperateFile | NoOffsetFixUp, count, size, i64 offset.
        u(&mut b, 0x100 | 0x10000);
        u(&mut b, 36);
        u(&mut b, 36);
        b.extend_from_slice(&64i64.to_le_bytes());
        b
    }

    fn read_ue4(bytes: Vec<u8>) -> Result<VtRaw> {
        let src = crate::io::BytesSource::new("T.uexp", bytes);
        let limits = Limits::default();
        let len = src.len();
        let mut c = Cursor::new(&src, 0, len, &limits);
        let pkg = Package {
            flavor: super::super::package::Flavor::Legacy,
            names: Vec::new(),
            exports: Vec::new(),
            resources: None,
            bulk_data_start: 0,
            ue5_version: 0,
            engine_guess: String::new(),
            package_flags: 0,
            forced_old_tail: None,
            versions: Default::default(),
        };
        let export = Export {
            name: "T".into(),
            class: None,
            in_uexp: true,
            start: 0,
            size: len,
            coord_delta: 0,
        };
        let raw = read_built_data_form(&mut c, &pkg, &export, VtForm::Ue4Pre427)?;
        assert_eq!(c.pos, len, "the whole record is consumed");
        Ok(raw)
    }

    #[test]
    fn ue4_form_record_reads_with_legacy_addressing() {
        // Expected values: the record's own fields (written above per notes §5) and the legacy
        // formula: tile v of mip 0 at TileOffsetInChunk[v].
        let raw = read_ue4(ue4_record(&[4, 12, u32::MAX, 28])).unwrap();
        let vt = &raw.layout;
        assert_eq!(
            (vt.tile_bytes, vt.layers[0].bytes, vt.chunks[0].size),
            (8, 8, 36)
        );
        assert_eq!(vt.chunks[0].hash, "");
        assert_eq!((vt.mips[0].width_tiles, vt.mips[0].height_tiles), (2, 2));
        assert!(matches!(
            raw.chunk_payloads[0],
            Payload::External {
                offset: 64,
                size: 36,
                ..
            }
        ));
        let t = vt.tile(0, 0, 1, 1).unwrap();
        assert_eq!((t.tile_index, t.offset, t.length), (Some(3), 28, 8));
        assert_eq!(vt.tile_index(0, 0, 1), None); // v = 2 is marked absent
                                                  // A table shorter than the grid: v = 3 is out of range, so no tile (not a panic).
        let raw = read_ue4(ue4_record(&[4, 12, 20])).unwrap();
        assert_eq!(raw.layout.tile_index(0, 1, 1), None);
        // Truncated record: a clean error.
        let mut b = ue4_record(&[4, 12, 20, 28]);
        b.truncate(b.len() - 6);
        assert!(read_ue4(b).is_err());
    }
}
