//! UE virtual textures: FVirtualTextureBuiltData (notes §5, correcting seed 000's VT section),
//! read into the engine-neutral tiled layout of `model::tiled`, which the viewer overlays and
//! decodes tile by tile.

use super::bulk::{entry_payload, read_bulk_header, Payload};
use super::cursor::Cursor;
use super::package::{Export, Package};
use super::pixel_format::pixel_format;
use crate::io::{Error, Result};
pub use crate::model::tiled::{
    decode_tiles, morton, TileCell as VtTile, TileChunk as VtChunk, TileCodec,
    TileLayer as VtLayer, TileMip as VtMip, TileRect, TileTable as VtLegacy, TiledImage as VtImage,
    TiledLayout as VtLayout,
};
use crate::model::Storage;

/// EVirtualTextureCodec (UE VirtualTextureBuiltData.h; notes §5): how a chunk stores a layer.
pub fn codec(id: u8) -> TileCodec {
    match id {
        0 => TileCodec::Fill {
            color: [0.0, 0.0, 0.0, 0.0],
        },
        1 => TileCodec::Fill {
            color: [0.0, 0.0, 0.0, 1.0],
        },
        2 => TileCodec::Fill {
            color: [1.0, 1.0, 1.0, 1.0],
        },
        // Flat: the flat normal (128, 125, 255, 255) / 255.
        3 => TileCodec::Fill {
            color: [128.0 / 255.0, 125.0 / 255.0, 1.0, 1.0],
        },
        4 => TileCodec::Raw,
        5 => TileCodec::Zlib,
        6 => TileCodec::Other {
            name: "codec 6 (Crunch)".into(),
        },
        n => TileCodec::Other {
            name: format!("codec {n} (unknown)"),
        },
    }
}

/// What the parser found before chunk payloads were mapped to opened files.
#[derive(Debug, Clone)]
pub struct VtRaw {
    pub layout: VtLayout,
    pub chunk_payloads: Vec<Payload>,
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
        let format = pixel_format(&name).ok_or_else(|| {
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
                    entry_payload(c, pkg, export.coord_delta, row)?,
                    format!("data resource {idx}"),
                )
            }
            None => {
                let flags_at = c.pos;
                let payload = read_bulk_header(c, pkg, export.coord_delta)?.0;
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
            codecs: codecs.iter().map(|&c| codec(c)).collect(),
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::io::{Limits, Source};

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
            legacy_version: -7,
            thumbnail_offset: 0,
            payload_toc_offset: -1,
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
