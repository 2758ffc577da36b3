//! Frostbite Texture resources (seed 001) and their pixel chunks, raw or as CAS block streams.
//!
//! A header file (`<name>.res`, `<name>.texture`, `<resource id>.res`) is paired with the chunk
//! file named by the header's chunk GUID (`<guid>`, `{<guid>}`, `.chunk`/`.cas` or no extension),
//! or, failing that, with the one dropped file whose size fits.

pub mod cas;
pub mod render_format;
pub mod texture;

use crate::codec::PixelFormat;
use crate::io::{Error, Source, SourceRef};
use crate::model::{
    ColorSpace, Engine, Layout, Mip, NativeFormat, RowOrder, SourceId, Storage, Texture,
    TextureKind,
};
use crate::{base_name, file_stem, FileProblem, OpenContext};
use render_format::{FormatInfo, Profile};
use std::sync::Arc;
use texture::{NotAHeader, TextureHeader};

/// Largest header file taken for a look: the longest layout plus metadata, with room to spare.
const MAX_HEADER_FILE: u64 = 1024;

/// The GUID as tools print it (.NET order: the first three groups little-endian), lowercase.
pub fn guid_text(g: &[u8; 16]) -> String {
    let hex = |b: &[u8]| b.iter().map(|x| format!("{x:02x}")).collect::<String>();
    let rev = |b: &[u8]| hex(&b.iter().rev().copied().collect::<Vec<_>>());
    format!(
        "{}-{}-{}-{}-{}",
        rev(&g[0..4]),
        rev(&g[4..6]),
        rev(&g[6..8]),
        hex(&g[8..10]),
        hex(&g[10..16])
    )
}

/// The 32 hex digits a file name spells as a GUID (braces, dashes and a `.chunk`/`.cas` extension
/// dropped), lowercase; `None` when the name is not a GUID.
fn name_guid_hex(name: &str) -> Option<String> {
    let b = base_name(name).to_ascii_lowercase();
    let stem = b
        .strip_suffix(".chunk")
        .or_else(|| b.strip_suffix(".cas"))
        .unwrap_or(&b);
    let stem = stem
        .strip_prefix('{')
        .and_then(|s| s.strip_suffix('}'))
        .unwrap_or(stem);
    let dashed = stem.len() == 36 && [8, 13, 18, 23].iter().all(|&i| stem.as_bytes()[i] == b'-');
    let hex: String = stem.chars().filter(|&c| c != '-').collect();
    (hex.len() == 32 && (dashed || stem.len() == 32) && hex.bytes().all(|c| c.is_ascii_hexdigit()))
        .then_some(hex)
}

/// How a chunk file's name spells `guid`: the printed (.NET) form, or the raw byte order.
fn names_guid(name: &str, guid: &[u8; 16]) -> Option<&'static str> {
    let hex = name_guid_hex(name)?;
    if hex == guid_text(guid).replace('-', "") {
        Some("its GUID as tools print it")
    } else if hex == guid.iter().map(|x| format!("{x:02x}")).collect::<String>() {
        Some("its GUID in raw byte order")
    } else {
        None
    }
}

fn is_header_name(name: &str) -> bool {
    let l = name.to_ascii_lowercase();
    l.ends_with(".res") || l.ends_with(".texture")
}

/// A chunk's bytes as the catalog will read them.
struct Chunk {
    source: SourceId,
    file: String,
    /// Logical chunk offset of the first byte the file holds (non-zero for a tail-only chunk).
    base: u64,
    facts: Vec<(String, String)>,
    notes: Vec<String>,
}

/// Claims and lists Frostbite Texture headers and their chunks.
pub fn open(ctx: &mut OpenContext) {
    let (profile, profile_note) = match ctx.frostbite_profile.as_deref() {
        None => (render_format::default_profile(), None),
        Some(n) => match render_format::profile(n) {
            Some(p) => (p, None),
            None => (
                render_format::default_profile(),
                Some(format!(
                    "no Frostbite profile is named \"{n}\"; used {} (profiles: {})",
                    render_format::DEFAULT_PROFILE,
                    render_format::profile_names()
                )),
            ),
        },
    };
    let limits = ctx.limits.clone();
    let mut headers = Vec::new();
    for i in ctx.unclaimed() {
        let name = ctx.sources[i].name().to_string();
        let len = ctx.sources[i].len();
        if !is_header_name(&name) || len > MAX_HEADER_FILE {
            continue;
        }
        let Ok(head) = ctx.head(i, len) else {
            continue;
        };
        match texture::parse(&head, profile, &limits) {
            Ok((h, info)) => {
                ctx.claimed[i] = true;
                headers.push((i, h, info));
            }
            Err(NotAHeader::Bad(e)) => {
                ctx.claimed[i] = true;
                ctx.problems.push(FileProblem::new(
                    &name,
                    Some(Engine::Frostbite),
                    &e.in_file(&name),
                ));
            }
            Err(NotAHeader::Foreign) => {}
        }
    }
    if headers.is_empty() {
        claim_orphan_chunks(ctx);
        return;
    }
    // Chunks named by GUID first; a chunk file may serve several headers.
    let mut chunk_file: Vec<Option<(usize, String)>> = headers
        .iter()
        .map(|(_, h, _)| {
            (0..ctx.claimed.len()).find_map(|j| {
                names_guid(ctx.sources[j].name(), &h.chunk_guid)
                    .filter(|_| !ctx.claimed[j])
                    .map(|how| (j, format!("named by {how}")))
            })
        })
        .collect();
    for (j, _) in chunk_file.iter().flatten() {
        ctx.claimed[*j] = true;
    }
    // Then exactly one unnamed dropped file whose size fits.
    for k in 0..headers.len() {
        if chunk_file[k].is_some() {
            continue;
        }
        let h = &headers[k].1;
        let fits: Vec<usize> = ctx
            .unclaimed()
            .into_iter()
            .filter(|&j| {
                let n = ctx.sources[j].name();
                name_guid_hex(n).is_none()
                    && !is_header_name(n)
                    && size_fits(&ctx.sources[j], h, &limits)
            })
            .collect();
        if let [j] = fits[..] {
            ctx.claimed[j] = true;
            chunk_file[k] = Some((
                j,
                "paired by size: it is the one dropped file whose size fits".into(),
            ));
        }
    }
    for ((i, h, info), chunk) in headers.into_iter().zip(chunk_file) {
        let tex = build_texture(ctx, i, &h, info, profile, chunk);
        let mut tex = tex;
        if let Some(n) = &profile_note {
            tex.notes.push(n.clone());
        }
        ctx.textures.push(tex);
    }
    claim_orphan_chunks(ctx);
}

/// GUID-named `.chunk`/`.cas` files no header asked for: say what they are and what to drop.
fn claim_orphan_chunks(ctx: &mut OpenContext) {
    for j in ctx.unclaimed() {
        let name = ctx.sources[j].name().to_string();
        let l = name.to_ascii_lowercase();
        if name_guid_hex(&name).is_some() && (l.ends_with(".chunk") || l.ends_with(".cas")) {
            ctx.claimed[j] = true;
            ctx.problems.push(FileProblem::new(
                &name,
                Some(Engine::Frostbite),
                &Error::missing_sibling(
                    "its Texture header (.res)",
                    "the texture this Frostbite chunk belongs to",
                )
                .in_file(&name),
            ));
        }
    }
}

/// Whether `src` could be `h`'s chunk by size: raw whole or tail, or a CAS stream decompressing to
/// either (its block headers are walked, not its payloads).
fn size_fits(src: &SourceRef, h: &TextureHeader, limits: &crate::Limits) -> bool {
    let sizes = [h.chunk_size as u64, h.tail_size()];
    sizes.contains(&src.len())
        || (cas::looks_like_cas(src.as_ref())
            && cas::CasSource::new(src.clone(), limits).is_ok_and(|c| sizes.contains(&c.len())))
}

/// Reads the chunk file as raw or CAS and places its first byte in the logical chunk.
fn open_chunk(
    ctx: &mut OpenContext,
    j: usize,
    how: String,
    h: &TextureHeader,
) -> Result<Chunk, String> {
    let src = ctx.sources[j].clone();
    let file = src.name().to_string();
    let whole = h.chunk_size as u64;
    let tail = h.tail_size();
    let tail_base = whole - tail;
    let mut facts = vec![("Chunk file".to_string(), format!("{file} ({how})"))];
    let mut notes = Vec::new();
    let place = |len: u64, what: &str| -> Result<u64, String> {
        if len == whole {
            Ok(0)
        } else if h.first_mip > 0 && len == tail {
            Ok(tail_base)
        } else {
            let tail_hint = if h.first_mip > 0 {
                format!(" or {tail} (the tail from first mip {})", h.first_mip)
            } else {
                String::new()
            };
            Err(format!(
                "chunk {file} {what} {len} bytes, but the header's chunk size is {whole}{tail_hint}: it is not this texture's chunk, or it is cut short"
            ))
        }
    };
    let raw_base = place(src.len(), "holds");
    let (source, base) = match raw_base {
        Ok(base) => {
            facts.push(("Chunk storage".into(), format!("raw, {} bytes", src.len())));
            (j, base)
        }
        Err(raw_err) => {
            if !cas::looks_like_cas(src.as_ref()) {
                return Err(raw_err);
            }
            if let Some(c) = open_lazy(h, &src, &ctx.limits, &mut facts, &mut notes) {
                // SourceRef is not Send by design (wasm sources hold JS handles), so neither is this view.
                #[allow(clippy::arc_with_non_send_sync)]
                let view: SourceRef = Arc::new(c);
                return Ok(Chunk {
                    source: ctx.add_source(view),
                    file,
                    base: 0,
                    facts,
                    notes,
                });
            }
            let c = cas::CasSource::new(src.clone(), &ctx.limits)
                .map_err(|e| format!("chunk {file} is not a whole CAS block stream: {e}"))?;
            let base = place(c.len(), "decompresses to")?;
            let mut kinds: Vec<(u8, usize)> = Vec::new();
            for b in c.blocks() {
                match kinds.iter_mut().find(|(k, _)| *k == b.header.kind) {
                    Some((_, n)) => *n += 1,
                    None => kinds.push((b.header.kind, 1)),
                }
            }
            let kinds: Vec<String> = kinds
                .iter()
                .map(|(k, n)| format!("{n} {}", cas::block_type_name(*k)))
                .collect();
            facts.push((
                "Chunk storage".into(),
                format!(
                    "CAS block stream: {} blocks ({}), {} bytes -> {} bytes",
                    c.blocks().len(),
                    kinds.join(", "),
                    src.len(),
                    c.len()
                ),
            ));
            check_mip_offsets(h, &c, base, &mut facts, &mut notes);
            // SourceRef is not Send by design (wasm sources hold JS handles), so neither is this view.
            #[allow(clippy::arc_with_non_send_sync)]
            let view: SourceRef = Arc::new(c);
            (ctx.add_source(view), base)
        }
    };
    if base > 0 {
        notes.push(format!(
            "this chunk holds only the tail from mip {} (first mip); mips 0-{} live in the whole chunk that the TOC locates: a smaller chunk here is a tail, not corruption (seed 001)",
            h.first_mip,
            h.first_mip - 1
        ));
    }
    Ok(Chunk {
        source,
        file,
        base,
        facts,
        notes,
    })
}

/// The header's mip-1/mip-2 block offsets as index anchors (seed 001; notes: set only where a block
/// boundary falls on the mip boundary, so the block starts at the mip's logical offset). Only for a
/// header whose chunk is whole (first mip 0): a tail's stream starts elsewhere.
fn header_anchors(h: &TextureHeader) -> Vec<(usize, cas::Anchor)> {
    if h.first_mip != 0 {
        return Vec::new();
    }
    h.compressed_mip_offsets
        .iter()
        .enumerate()
        .filter(|&(k, &off)| off != 0 && k + 1 < h.mip_count as usize)
        .map(|(k, &off)| {
            let anchor = cas::Anchor {
                offset: off as u64,
                logical: h.mip_offset(k + 1),
            };
            (k + 1, anchor)
        })
        .collect()
}

/// Issue 6: a CAS chunk indexed on demand from the header's mip block offsets, so showing a small
/// mip reads only the block headers from its anchor on. The last anchor is checked here by walking
/// from it to the stream's end, which must come at the header's chunk size; when it does not, the
/// caller walks every block header from the stream start (`None`, with a note).
fn open_lazy(
    h: &TextureHeader,
    src: &SourceRef,
    limits: &crate::Limits,
    facts: &mut Vec<(String, String)>,
    notes: &mut Vec<String>,
) -> Option<cas::CasSource> {
    let wanted = header_anchors(h);
    let (last_mip, last) = *wanted.last()?;
    let anchors: Vec<cas::Anchor> = wanted.iter().map(|(_, a)| *a).collect();
    let c = cas::CasSource::lazy(src.clone(), limits, h.chunk_size as u64, &anchors);
    let used = c.anchors();
    if used.last() != Some(&last) || !c.check_anchor(last.offset).unwrap_or(false) {
        notes.push(format!(
            "the header's mip {last_mip} block offset {:#x} does not start a run of CAS blocks that ends at the chunk size {}: every block header is walked from the stream start instead",
            last.offset, h.chunk_size
        ));
        return None;
    }
    facts.push((
        "Chunk storage".into(),
        format!(
            "CAS block stream: {} bytes -> {} bytes; block headers are walked on demand from the stream start and the header's mip block offsets",
            src.len(),
            c.len()
        ),
    ));
    let said: Vec<String> = wanted
        .iter()
        .map(|&(mip, a)| {
            if a == last {
                format!(
                    "mip {mip} block at {:#x} confirmed (its blocks end at the chunk size)",
                    a.offset
                )
            } else if used.contains(&a) {
                format!(
                    "mip {mip} block at {:#x} used as an index anchor, checked against the walk when read",
                    a.offset
                )
            } else {
                format!("mip {mip} block at {:#x} out of order, not used", a.offset)
            }
        })
        .collect();
    facts.push(("Compressed mip offsets".into(), said.join("; ")));
    Some(c)
}

/// Seed 001: the header's first two words are the compressed offsets of the blocks that hold the
/// first bytes of mips 1 and 2. When every block header is walked anyway (a tail, or offsets that
/// [`open_lazy`] refused), they are checked against that walk.
fn check_mip_offsets(
    h: &TextureHeader,
    c: &cas::CasSource,
    base: u64,
    facts: &mut Vec<(String, String)>,
    notes: &mut Vec<String>,
) {
    let mut said = Vec::new();
    for (k, &off) in h.compressed_mip_offsets.iter().enumerate() {
        let mip = k + 1;
        if off == 0 || mip >= h.mip_count as usize {
            continue;
        }
        let Some(logical) = h.mip_offset(mip).checked_sub(base) else {
            continue;
        };
        match c.block_at(logical).ok() {
            Some(b) if b.offset == off as u64 => {
                said.push(format!("mip {mip} block at {off:#x} confirmed"));
            }
            Some(b) => notes.push(format!(
                "the header names the block at {off:#x} for mip {mip}, but mip {mip} starts in the block at {:#x}",
                b.offset
            )),
            None => {}
        }
    }
    if !said.is_empty() {
        facts.push(("Compressed mip offsets".into(), said.join("; ")));
    }
}

fn build_texture(
    ctx: &mut OpenContext,
    i: usize,
    h: &TextureHeader,
    info: Option<FormatInfo>,
    profile: &Profile,
    chunk_file: Option<(usize, String)>,
) -> Texture {
    let file = ctx.sources[i].name().to_string();
    let kind = h.kind().unwrap_or(TextureKind::Tex2D);
    let format = info.as_ref().and_then(|f| f.format);
    let mut tex = Texture {
        file: file.clone(),
        path: None,
        engine: Engine::Frostbite,
        name: file_stem(&file).to_string(),
        class: "Texture".into(),
        kind,
        format: format.unwrap_or(PixelFormat::RGBA8),
        native_format: match &info {
            Some(f) => NativeFormat::Name(format!("{}_{}", profile.enum_name, f.name)),
            None => NativeFormat::Id(h.format as i64),
        },
        width: h.width as u32,
        height: h.height as u32,
        depth: if kind == TextureKind::Volume {
            h.depth as u32
        } else {
            1
        },
        authored: None,
        slices: h.layers(),
        mips: Vec::new(),
        color_space: if info.as_ref().is_some_and(|f| f.srgb)
            || h.flags & texture::FLAG_SRGB_GAMMA != 0
        {
            ColorSpace::Srgb
        } else {
            ColorSpace::Linear
        },
        normal_map: info.as_ref().and_then(|f| f.normal),
        platform: None,
        tiling: crate::codec::tiling::Tiling::Linear,
        rows: RowOrder::TopFirst,
        layout: Layout::Surfaces,
        metadata: Vec::new(),
        notes: Vec::new(),
        error: None,
    };
    add_header_facts(&mut tex, h, info.as_ref(), profile);
    if format.is_none() {
        tex.error = Some(match &info {
            Some(f) => format!(
                "format {}_{} (ordinal {}) has no decoder in Texscope",
                profile.enum_name, f.name, h.format
            ),
            None => format!(
                "format ordinal {} is not in the {} profile's table; choose another Frostbite profile",
                h.format, profile.name
            ),
        });
    }
    if h.flags & texture::FLAG_SWIZZLED_DATA != 0 {
        tex.error = Some(
            "console data: the SwizzledData flag (0x800) is set, and Texscope does not unswizzle console textures".into(),
        );
    }
    let guid = h.guid_text();
    let chunk = chunk_file.map(|(j, how)| open_chunk(ctx, j, how, h));
    let chunk = match chunk {
        Some(Ok(c)) => {
            tex.metadata.extend(c.facts.iter().cloned());
            tex.notes.extend(c.notes.iter().cloned());
            Some(c)
        }
        Some(Err(why)) => {
            tex.error.get_or_insert(why);
            None
        }
        None => {
            tex.notes.push(format!(
                "the pixels live in the chunk {guid}: drop the file named {guid}.chunk (or {guid}, {{{guid}}}, {guid}.cas)"
            ));
            None
        }
    };
    let missing_name = format!("{guid}.chunk");
    // A tail-only chunk was dropped: the top mips are in the whole chunk, which the TOC locates.
    let toc_name = format!("the whole chunk {guid} (from the TOC; the dropped one is its tail)");
    let layers = if kind == TextureKind::Volume {
        1
    } else {
        h.layers()
    };
    for m in 0..h.mip_count as usize {
        let (w, hh, d) = h.mip_dims(m as u32);
        let size = h.mip_sizes[m] as u64;
        let start = h.mip_offset(m);
        let surfaces = (0..layers as u64)
            .map(|s| match &chunk {
                Some(c) if start >= c.base => Storage::Range {
                    source: c.source,
                    offset: start - c.base + s * size,
                    length: size,
                },
                Some(_) => Storage::Missing {
                    file: toc_name.clone(),
                    length: size,
                },
                None => Storage::Missing {
                    file: missing_name.clone(),
                    length: size,
                },
            })
            .collect();
        let location_note = match &chunk {
            Some(c) if start >= c.base => base_name(&c.file).to_string(),
            Some(_) => format!("TOC chunk {guid}"),
            None => missing_name.clone(),
        };
        tex.mips.push(Mip {
            width: w,
            height: hh,
            depth: d,
            surfaces,
            location_note,
        });
    }
    if kind == TextureKind::Cube {
        tex.notes.push(
            "cube face order is not established (seed 001): faces are shown in stored order, assumed +X -X +Y -Y +Z -Z".into(),
        );
    }
    tex
}

fn add_header_facts(
    tex: &mut Texture,
    h: &TextureHeader,
    info: Option<&FormatInfo>,
    profile: &Profile,
) {
    tex.add_meta(
        "Header",
        format!("{}, {} bytes", h.layout.describe(), h.header_len),
    );
    tex.add_meta(
        "Resource metadata",
        match h.res_meta {
            Some(m) => format!("version {}, flags {:#x}", m.version, m.flags),
            None => "absent (bare header)".into(),
        },
    );
    if let Some(v) = h.version {
        tex.add_meta("Header version", v);
    }
    tex.add_meta(
        "Kind",
        format!("{} ({})", h.kind, texture::kind_name(h.kind)),
    );
    tex.add_meta(
        "Format",
        match info {
            Some(f) => format!(
                "{} = {}_{} (profile {})",
                h.format, profile.enum_name, f.name, profile.name
            ),
            None => format!("{} (not in profile {})", h.format, profile.name),
        },
    );
    tex.add_meta("Flags", h.flag_names());
    tex.add_meta(
        "Size",
        format!("{}x{}x{}, {} slices", h.width, h.height, h.depth, h.slices),
    );
    tex.add_meta("Mip count", h.mip_count);
    tex.add_meta("First mip", h.first_mip);
    if let Some(f) = h.streaming_mip_floor {
        tex.add_meta("Streaming mip floor", f);
        if f < h.first_mip {
            tex.notes.push(format!(
                "streaming mip floor {f} is below the first mip {} (seed 001: never below in stock data)",
                h.first_mip
            ));
        }
    }
    if let Some(r) = h.repeated_mip_count {
        tex.add_meta("Repeated mip count", r);
        if r != h.mip_count {
            tex.notes.push(format!(
                "repeated mip count {r} differs from the mip count {} (seed 001: equal in every stock header)",
                h.mip_count
            ));
        }
    }
    if let Some(p) = h.custom_pool_id {
        tex.add_meta("Custom pool id (0x10)", p);
    }
    tex.add_meta("Chunk GUID", h.guid_text());
    tex.add_meta("Chunk size", h.chunk_size);
    tex.add_meta(
        "Mip sizes",
        h.mip_sizes[..h.mip_count as usize]
            .iter()
            .map(|s| s.to_string())
            .collect::<Vec<_>>()
            .join(", "),
    );
    if h.compressed_mip_offsets != [0, 0] {
        tex.add_meta(
            "Mip 1 / mip 2 block offsets",
            format!(
                "{:#x} / {:#x}",
                h.compressed_mip_offsets[0], h.compressed_mip_offsets[1]
            ),
        );
    }
    tex.add_meta("Name hash", name_hash_fact(&tex.file, h.name_hash));
    if let Some(v) = h.h64_high {
        tex.add_meta("h64 high half", format!("{v:#010x}"));
    }
    if let Some(g) = &h.texture_group {
        tex.add_meta("Texture group", g);
    }
}

/// Checks the header's name hash against the names the file's path offers: the stem, then the stem
/// with more and more of its folders (resource names are paths).
fn name_hash_fact(file: &str, hash: u32) -> String {
    let stem = file_stem(file);
    if stem.len() == 16 && stem.bytes().all(|b| b.is_ascii_hexdigit()) {
        return format!("{hash:#010x} (not checked: the file is named by resource id)");
    }
    let path = file.replace('\\', "/");
    let path = match path.rfind('.') {
        Some(d) if d > path.rfind('/').map_or(0, |s| s + 1) => &path[..d],
        _ => &path[..],
    };
    let parts: Vec<&str> = path.split('/').filter(|p| !p.is_empty()).collect();
    for k in (0..parts.len()).rev() {
        let name = parts[k..].join("/").to_ascii_lowercase();
        if texture::name_hash(&name) == hash {
            return format!("{hash:#010x} matches \"{name}\"");
        }
    }
    format!(
        "{hash:#010x} does not match \"{}\" (djb2 {:#010x}); the resource name is probably a longer path",
        stem.to_ascii_lowercase(),
        texture::name_hash(stem)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn guid_text_uses_dotnet_order() {
        let g: [u8; 16] = core::array::from_fn(|i| i as u8);
        // .NET Guid(byte[]) prints the first three groups little-endian.
        assert_eq!(guid_text(&g), "03020100-0504-0706-0809-0a0b0c0d0e0f");
        assert!(names_guid("x/{03020100-0504-0706-0809-0A0B0C0D0E0F}.chunk", &g).is_some());
        assert!(names_guid("03020100050407060809 0a0b0c0d0e0f", &g).is_none());
        assert!(names_guid("000102030405060708090a0b0c0d0e0f.cas", &g).is_some());
        assert!(names_guid("03020100-0504-0706-0809-0a0b0c0d0e0e", &g).is_none());
        assert!(name_guid_hex("notes.txt").is_none());
    }

    #[test]
    fn name_hash_tries_folders() {
        let h = texture::name_hash("characters/bob/bob_d");
        assert!(name_hash_fact("dump/characters/bob/bob_d.res", h).contains("matches"));
        assert!(name_hash_fact("bob_d.res", h).contains("does not match"));
        assert!(name_hash_fact("0123456789abcdef.res", h).contains("not checked"));
    }
}
