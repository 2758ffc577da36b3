//! Landscape heightmaps of UE 5.3+ cooks. The engine cooks a landscape's heightmap texture with
//! UTexture2D's bSerializeMipData 0 (its platform data holds each mip's size only) and stores the
//! pixels in a `ULandscapeTextureStorageProviderFactory` export of the same package, which hands
//! the texture its mips at load. Texscope reads that export and shows the height as a 16-bit grey
//! image.
//!
//! The export's layout after its (property) block, as UE's Landscape module writes it
//! (LandscapeTextureStorageProvider.cpp, ULandscapeTextureStorageProviderFactory::Serialize) and
//! CUE4Parse reads it (CUE4Parse/UE4/Assets/Exports/Component/Landscape/
//! ULandscapeTextureStorageProviderFactory.cs and FLandscapeTexture2DMipMap.cs, FabianFG/CUE4Parse):
//! i32 NumNonOptionalMips, i32 NumNonStreamingMips, FVector LandscapeGridScale (three f64: UE5's
//! large world coordinates), i32 mip count, per mip FLandscapeTexture2DMipMap { i32 SizeX, i32
//! SizeY, bool32 bCompressed, FByteBulkData }, then FPackageIndex Texture (the heightmap).
//!
//! A compressed mip (the same sources, DecompressMip) is SizeX*SizeY big-endian u16 height
//! deltas, summed with wrap-around from 32768 in row order, then one (normal x, normal y) byte
//! pair of deltas (summed from 128) for each edge texel, clockwise from the top left: (SizeX *
//! SizeY + 2 * (SizeX + SizeY) - 4) * 2 bytes. An uncompressed mip is the texture's own BGRA8:
//! height = R << 8 | G, normal x in B and y in A. Checked against the UE 5.8 and UE 6.0 fixture
//! maps (docs/unreal.md, "Landscape heightmaps"): every provider parses to the export's last byte,
//! and the 2x2 mip (stored as BGRA8) equals the four corners of the 64x64 mip (delta-compressed).

use super::bulk::{entry_payload, read_bulk_header, Payload};
use super::cursor::Cursor;
use super::package::{Export, Package};
use super::PackageSources;
use crate::io::{Error, Limits, Result, Source, SourceRef};
use crate::model::{SourceId, Storage, Texture};
use crate::OpenContext;

/// The provider's class name (legacy import map; zen: `script::known_class`).
pub const PROVIDER_CLASS: &str = "LandscapeTextureStorageProviderFactory";

/// The error texture.rs gives a texture cooked with bSerializeMipData 0 starts with this.
const NO_PIXELS: &str = "the texture is cooked without its pixels";

/// Mips a provider may list (and the bound on its two mip counts): a chain from the engine's
/// largest texture (16384) down to 1x1 has 15.
const MAX_MIPS: i32 = 16;

/// LandscapeDataAccess.h: a height of 32768 is local height 0, and 128 steps are one unit
/// (LANDSCAPE_ZSCALE = 1/128).
const MID_HEIGHT: f64 = 32768.0;
const ZSCALE: f64 = 1.0 / 128.0;

/// One FLandscapeTexture2DMipMap.
#[derive(Debug, Clone)]
pub struct ProviderMip {
    pub size_x: u32,
    pub size_y: u32,
    pub compressed: bool,
    pub payload: Payload,
    /// EBulkDataFlags of its bulk data.
    pub flags: u32,
}

/// A read `ULandscapeTextureStorageProviderFactory`.
#[derive(Debug, Clone)]
pub struct Provider {
    pub num_non_optional_mips: i32,
    pub num_non_streaming_mips: i32,
    pub landscape_grid_scale: [f64; 3],
    pub mips: Vec<ProviderMip>,
    /// FPackageIndex of the heightmap: export `Texture - 1` of the same package when positive.
    pub texture: i32,
}

/// Bytes a mip's payload holds (DecompressMip's size check for compressed mips; BGRA8 otherwise).
pub fn stored_size(w: u32, h: u32, compressed: bool) -> u64 {
    // Saturating: a hostile size must fail the length checks, not overflow (w, h <= 2^32).
    let (w, h) = (w as u64, h as u64);
    let texels = w.saturating_mul(h);
    if compressed {
        texels
            .saturating_add(2 * (w + h))
            .saturating_sub(4)
            .saturating_mul(2)
    } else {
        texels.saturating_mul(4)
    }
}

/// Reads the provider export. The property block before the fields has no length (an unversioned
/// one needs the game's .usmap to be walked), but what follows it is fixed and ends exactly at
/// the export's last byte; so each position in the export's first 4 KiB whose fields parse, with
/// a halving mip chain whose payload sizes match, to that last byte is taken.
pub fn read_provider(
    src: &dyn Source,
    pkg: &Package,
    export: &Export,
    limits: &Limits,
) -> Result<Provider> {
    let end = export
        .start
        .checked_add(export.size)
        .filter(|&e| e <= src.len())
        .ok_or_else(|| {
            Error::truncated(export.start, export.size, src.len()).in_file(src.name())
        })?;
    // The property block of every sample is under 64 bytes; 4 KiB bounds the scan.
    let scan_end = end.min(export.start.saturating_add(4096));
    let head = crate::io::read_range(src, export.start, scan_end - export.start, limits)?;
    let i32_at = |k: usize| {
        head.get(k..k + 4)
            .map(|b| i32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    };
    for k in 0..head.len() {
        // NumNonOptionalMips, NumNonStreamingMips and the mip count are small counts.
        let (Some(a), Some(b), Some(n)) = (i32_at(k), i32_at(k + 4), i32_at(k + 32)) else {
            break;
        };
        if !(0..=MAX_MIPS).contains(&a)
            || !(0..=MAX_MIPS).contains(&b)
            || !(1..=MAX_MIPS).contains(&n)
        {
            continue;
        }
        let mut c = Cursor::new(src, export.start + k as u64, end, limits);
        if let Ok(p) = parse_at(&mut c, pkg, export) {
            if c.pos == end {
                return Ok(p);
            }
        }
    }
    Err(Error::malformed(format!(
        "no position in export {} reads as its fields (NumNonOptionalMips, \
         NumNonStreamingMips, LandscapeGridScale, Mips, Texture) ending at its last byte",
        export.name
    ))
    .at_field("unreal/ULandscapeTextureStorageProviderFactory")
    .in_file(src.name()))
}

fn parse_at(c: &mut Cursor, pkg: &Package, export: &Export) -> Result<Provider> {
    let num_non_optional_mips = c.i32()?;
    let num_non_streaming_mips = c.i32()?;
    let mut landscape_grid_scale = [0f64; 3];
    for v in &mut landscape_grid_scale {
        *v = f64::from_bits(c.u64()?);
    }
    let n = c.i32()?;
    if !(1..=MAX_MIPS).contains(&n) {
        return Err(Error::malformed(format!("{n} mips")));
    }
    let mut mips: Vec<ProviderMip> = Vec::new();
    for i in 0..n {
        let size_x = c.i32()?;
        let size_y = c.i32()?;
        let compressed = match c.u32()? {
            0 => false,
            1 => true,
            v => return Err(Error::malformed(format!("mip {i}: bCompressed {v}"))),
        };
        let (w, h) = match (u32::try_from(size_x), u32::try_from(size_y)) {
            (Ok(w), Ok(h)) if w > 0 && h > 0 => (w, h),
            _ => return Err(Error::malformed(format!("mip {i} is {size_x}x{size_y}"))),
        };
        c.limits.check_dims(w, h, 1)?;
        if let Some(prev) = mips.last() {
            if (w, h) != ((prev.size_x / 2).max(1), (prev.size_y / 2).max(1)) {
                return Err(Error::malformed(format!(
                    "mip {i} ({w}x{h}) does not halve"
                )));
            }
        }
        let (payload, flags) = match &pkg.resources {
            // UE5.2+: the bulk data is an index into the package's data-resource table.
            Some(rows) => {
                let idx = c.i32()?;
                let row = usize::try_from(idx)
                    .ok()
                    .and_then(|r| rows.get(r))
                    .copied()
                    .ok_or_else(|| Error::malformed(format!("mip {i}: no data resource {idx}")))?;
                (entry_payload(c, pkg, export.coord_delta, row)?, row.flags)
            }
            None => read_bulk_header(c, pkg, export.coord_delta)?,
        };
        let size = match &payload {
            Payload::Inline { size, .. } | Payload::External { size, .. } => Some(*size),
            Payload::Zlib { raw_size, .. } if *raw_size > 0 => Some(*raw_size),
            _ => None,
        };
        if let Some(size) = size {
            if size != stored_size(w, h, compressed) {
                return Err(Error::malformed(format!(
                    "mip {i}: {size} bytes for a {w}x{h} mip"
                )));
            }
        }
        mips.push(ProviderMip {
            size_x: w,
            size_y: h,
            compressed,
            payload,
            flags,
        });
    }
    let texture = c.i32()?;
    Ok(Provider {
        num_non_optional_mips,
        num_non_streaming_mips,
        landscape_grid_scale,
        mips,
        texture,
    })
}

/// The heights of one mip from its stored bytes (module comment). Checks the size first.
pub fn decode_heights(w: u32, h: u32, compressed: bool, data: &[u8]) -> Result<Vec<u16>> {
    let need = stored_size(w, h, compressed);
    if data.len() as u64 != need {
        return Err(Error::malformed(format!(
            "a {w}x{h} landscape mip stores {need} bytes, not {}",
            data.len()
        ))
        .at_field("unreal/FLandscapeTexture2DMipMap/BulkData"));
    }
    let texels = (w as u64 * h as u64) as usize;
    if compressed {
        let mut last = 32768u16;
        Ok(data[..texels * 2]
            .chunks_exact(2)
            .map(|d| {
                last = last.wrapping_add(u16::from_be_bytes([d[0], d[1]]));
                last
            })
            .collect())
    } else {
        // BGRA8: G is byte 1 (low bits), R byte 2 (high bits).
        Ok(data
            .chunks_exact(4)
            .map(|t| u16::from_le_bytes([t[1], t[2]]))
            .collect())
    }
}

/// Where one mip of a [`HeightSource`] comes from.
struct HeightMip {
    src: SourceRef,
    offset: u64,
    length: u64,
    w: u32,
    h: u32,
    compressed: bool,
    /// Where its RGBA16 image sits in the height source, and its length (w * h * 8).
    at: u64,
    len: u64,
}

/// The heightmap's mips as RGBA16 images, height in R, G and B and alpha opaque, one after the
/// other: a derived source decoded on each read from the provider's stored bytes (a read is one
/// mip; decoding is one add per texel), so opening a map holds no decoded pixels.
struct HeightSource {
    name: String,
    mips: Vec<HeightMip>,
    len: u64,
}

impl Source for HeightSource {
    fn name(&self) -> &str {
        &self.name
    }
    fn len(&self) -> u64 {
        self.len
    }
    fn read_exact_at(&self, offset: u64, buf: &mut [u8]) -> Result<()> {
        let end = crate::io::range_end(offset, buf.len() as u64, self.len)?;
        let mut filled = 0u64;
        for m in &self.mips {
            let m_end = m.at + m.len;
            if m_end <= offset || m.at >= end {
                continue;
            }
            let mut stored = vec![0u8; m.length as usize];
            m.src.read_exact_at(m.offset, &mut stored)?;
            let image: Vec<u8> = decode_heights(m.w, m.h, m.compressed, &stored)?
                .into_iter()
                .flat_map(|v| {
                    let [a, b] = v.to_le_bytes();
                    [a, b, a, b, a, b, 0xFF, 0xFF]
                })
                .collect();
            let from = offset.max(m.at);
            let to = end.min(m_end);
            buf[(from - offset) as usize..(to - offset) as usize]
                .copy_from_slice(&image[(from - m.at) as usize..(to - m.at) as usize]);
            filled += to - from;
        }
        if filled != buf.len() as u64 {
            return Err(Error::malformed(format!(
                "bytes {offset}..{end} of {} are not all in read mips",
                self.name
            )));
        }
        Ok(())
    }
}

/// Gives the heightmaps of a package their pixels from the package's providers. `textures` maps
/// each texture export (by index in `pkg.exports`) to its entry in `ctx.textures`; a provider
/// naming one that was cooked without pixels turns it into the 16-bit height view.
pub(super) fn attach(
    ctx: &mut OpenContext,
    files: &PackageSources,
    pkg: &Package,
    textures: &[(usize, usize)],
) {
    for export in &pkg.exports {
        if export.class.as_deref() != Some(PROVIDER_CLASS) {
            continue;
        }
        let data_src = match (export.in_uexp, files.uexp) {
            (false, _) => files.main,
            (true, Some(j)) => j,
            (true, None) => continue, // the package's own reader names the missing .uexp
        };
        let src = ctx.sources[data_src].clone();
        let provider = match read_provider(src.as_ref(), pkg, export, &ctx.limits) {
            Ok(p) => p,
            Err(e) => {
                // The texture it would name is unknown: tell every texture still without pixels.
                for &(_, t) in textures {
                    let tex = &mut ctx.textures[t];
                    if tex
                        .error
                        .as_deref()
                        .is_some_and(|m| m.starts_with(NO_PIXELS))
                    {
                        tex.notes
                            .push(format!("the package's {PROVIDER_CLASS} was not read: {e}"));
                    }
                }
                continue;
            }
        };
        let target = usize::try_from(provider.texture - 1)
            .ok()
            .and_then(|x| textures.iter().find(|(e, _)| *e == x))
            .map(|&(_, t)| t);
        let Some(t) = target else {
            continue;
        };
        let tex = &ctx.textures[t];
        let no_pixels = tex
            .error
            .as_deref()
            .is_some_and(|m| m.starts_with(NO_PIXELS));
        let sizes_agree = tex.mips.len() == provider.mips.len()
            && tex
                .mips
                .iter()
                .zip(&provider.mips)
                .all(|(a, b)| (a.width, a.height) == (b.size_x, b.size_y));
        if !no_pixels {
            continue;
        }
        if !sizes_agree {
            ctx.textures[t].notes.push(format!(
                "{}'s mips ({}) do not match the texture's; its pixels are not read",
                export.name,
                mip_sizes(&provider)
            ));
            continue;
        }
        let mut tex = ctx.textures[t].clone();
        heights_view(ctx, files, data_src, export, &provider, &mut tex);
        ctx.textures[t] = tex;
    }
    for &(_, t) in textures {
        let tex = &mut ctx.textures[t];
        let said = tex.notes.iter().any(|n| n.contains(PROVIDER_CLASS));
        if !said
            && tex
                .error
                .as_deref()
                .is_some_and(|m| m.starts_with(NO_PIXELS))
        {
            tex.notes.push(format!(
                "no {PROVIDER_CLASS} of this package names the texture: the engine fills a \
                 landscape heightmap from that export, which sits in the package holding the \
                 landscape (its map, or its World Partition actor package)"
            ));
        }
    }
}

fn mip_sizes(p: &Provider) -> String {
    p.mips
        .iter()
        .map(|m| format!("{}x{}", m.size_x, m.size_y))
        .collect::<Vec<_>>()
        .join(", ")
}

/// Turns `t` (a heightmap listed without pixels) into its height view.
fn heights_view(
    ctx: &mut OpenContext,
    files: &PackageSources,
    data_src: SourceId,
    export: &Export,
    p: &Provider,
    t: &mut Texture,
) {
    let mut mips = Vec::new();
    let mut at = 0u64;
    let mut storages = Vec::new();
    for (i, m) in p.mips.iter().enumerate() {
        let (st, note) = super::storage(ctx, files, data_src, &m.payload);
        // w, h are checked against Limits::max_dim: at most 2^32 texels of 8 bytes each.
        let len = m.size_x as u64 * m.size_y as u64 * 8;
        let how = if m.compressed {
            "delta-compressed height + edge normals"
        } else {
            "BGRA8"
        };
        t.add_meta(
            &format!("{PROVIDER_CLASS} mip {i}"),
            format!(
                "{}x{} {how}, {} bytes ({}); {note}",
                m.size_x,
                m.size_y,
                stored_size(m.size_x, m.size_y, m.compressed),
                super::bulk::bulk_flags::describe(m.flags)
            ),
        );
        let budget = ctx.limits.check_alloc(len, "a landscape heightmap mip");
        match st {
            Storage::Range {
                source,
                offset,
                length,
            } if length == stored_size(m.size_x, m.size_y, m.compressed) && budget.is_ok() => {
                mips.push(HeightMip {
                    src: ctx.sources[source].clone(),
                    offset,
                    length,
                    w: m.size_x,
                    h: m.size_y,
                    compressed: m.compressed,
                    at,
                    len,
                });
                storages.push((Some((at, len)), note));
                at += len;
            }
            Storage::Missing { file, .. } => {
                storages.push((None, note.clone()));
                t.notes.push(format!(
                    "mip {i} of the heightmap lives in {file}, which was not opened: drop it \
                     with the package to see it"
                ));
                t.mips[i].surfaces = vec![Storage::Missing { file, length: len }];
            }
            _ => {
                storages.push((None, note));
                t.notes.push(format!(
                    "mip {i} of {PROVIDER_CLASS} holds no readable bytes"
                ));
            }
        }
    }
    let name = format!(
        "{} (heights of {} from {})",
        ctx.sources[data_src].name(),
        t.name,
        export.name
    );
    let source = HeightSource {
        name,
        mips,
        len: at,
    };
    // Heights of the first present mip for Info (decoded once at open: a heightmap mip is small).
    let range = source.mips.first().map(|m| {
        let mut b = vec![0u8; m.length as usize];
        m.src
            .read_exact_at(m.offset, &mut b)
            .and_then(|_| decode_heights(m.w, m.h, m.compressed, &b))
            .map(|hs| {
                let lo = hs.iter().copied().min().unwrap_or(0);
                let hi = hs.iter().copied().max().unwrap_or(0);
                (m.w, lo, hi)
            })
    });
    // Sources are `Arc<dyn Source>` without Send (a page's File is not); as the other derived
    // sources over a SourceRef.
    #[allow(clippy::arc_with_non_send_sync)]
    let id = ctx.add_source(std::sync::Arc::new(source));
    for (i, (place, note)) in storages.into_iter().enumerate() {
        if let Some((offset, length)) = place {
            t.mips[i].surfaces = vec![Storage::Range {
                source: id,
                offset,
                length,
            }];
        }
        t.mips[i].location_note = format!("{note}, {PROVIDER_CLASS}");
    }
    if !t.mips.iter().any(|m| {
        m.surfaces
            .iter()
            .any(|s| matches!(s, Storage::Range { .. } | Storage::Missing { .. }))
    }) {
        // Not one mip to read or to drop: the texture stays listed without pixels.
        return;
    }
    t.format = crate::PixelFormat::RGBA16;
    t.error = None;
    // The platform data's mip records say why they hold nothing; say where the pixels are.
    let without = format!("no pixels in the texture: they are in {}", export.name);
    for (_, v) in t.metadata.iter_mut() {
        if let Some(k) = v.find(NO_PIXELS) {
            v.replace_range(k.., &without);
        }
    }
    // The view holds heights, which are no colour: linear whatever the (maybe unread) SRGB says.
    t.color_space = crate::model::ColorSpace::Linear;
    t.notes.retain(|n| !n.starts_with("colour space unknown"));
    t.add_meta(
        "Heightmap",
        format!(
            "16-bit height in R, G and B (the engine's BGRA8 holds it as R << 8 | G, the normal \
             in B and A), from {}",
            export.name
        ),
    );
    match range {
        Some(Ok((w, lo, hi))) => {
            let local = |v: u16| (v as f64 - MID_HEIGHT) * ZSCALE;
            t.add_meta(
                "Height min / max",
                format!(
                    "{lo} / {hi} (local height {:.3} / {:.3}; the {w}-wide mip)",
                    local(lo),
                    local(hi)
                ),
            );
        }
        Some(Err(e)) => t.notes.push(format!("the heights were not read: {e}")),
        None => {}
    }
    let [x, y, z] = p.landscape_grid_scale;
    t.add_meta("LandscapeGridScale", format!("{x} {y} {z}"));
    t.add_meta(
        "NumNonOptionalMips / NumNonStreamingMips",
        format!("{} / {}", p.num_non_optional_mips, p.num_non_streaming_mips),
    );
    t.notes.push(format!(
        "landscape heightmap: shown as its 16-bit height in grey (R, G and B); the engine's \
         normal (B and A of its BGRA8) is not shown. The pixels come from the package's \
         {PROVIDER_CLASS} export {}",
        export.name
    ));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_follow_decompress_mip() {
        // DecompressMip's check (module comment): (texels + 2 * (w + h) - 4) * 2.
        assert_eq!(stored_size(64, 64, true), 8696);
        assert_eq!(stored_size(1, 1, true), 2);
        assert_eq!(stored_size(16, 16, false), 1024);
    }

    #[test]
    fn deltas_wrap_and_bgra_packs_r_over_g() {
        // 2x1 compressed: deltas 0x8000 (32768 + 32768 wraps to 0) and 0x0005; 2 edge pairs
        // ((2 + 2 * 3 - 4) * 2 = 8 bytes). Expected values worked by hand from the rule.
        let d = [0x80, 0x00, 0x00, 0x05, 0, 0, 0, 0];
        assert_eq!(decode_heights(2, 1, true, &d).unwrap(), vec![0, 5]);
        // BGRA8 texel B=9 G=0x34 R=0x12 A=7: height 0x1234.
        assert_eq!(
            decode_heights(1, 1, false, &[9, 0x34, 0x12, 7]).unwrap(),
            vec![0x1234]
        );
        // A wrong size is an error, not a panic.
        assert!(decode_heights(2, 1, true, &d[..7]).is_err());
        assert!(decode_heights(u32::MAX, u32::MAX, false, &d).is_err());
    }
}
