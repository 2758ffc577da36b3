//! Loose crunch (.crn) files: crnlib's or Unity's fork, 1 or 6 faces, every level. Opening reads
//! the header and the first bytes of the selector palettes (to tell the variant); the stream is
//! read whole only when a level is decoded (`codec::crunch`). Without `codec-crunch` (the page's
//! first module) a crunch file is only recognised, as NotInBuild.
#![cfg_attr(not(feature = "codec-crunch"), allow(dead_code, unused_imports))]

use crate::codec::crunch::{self, Header};
use crate::io::{read_up_to, Result};
use crate::model::{
    ColorSpace, Engine, Layout, Mip, NativeFormat, RowOrder, Storage, Texture, TextureKind,
};
use crate::{file_stem, FileProblem, OpenContext};

/// Claims files that start with 'Hx' and either are named .crn or carry a valid header checksum
/// (two bytes of signature alone are too weak to claim an unnamed file).
pub fn open(ctx: &mut OpenContext) {
    for i in ctx.unclaimed() {
        let name = ctx.sources[i].name().to_string();
        let Ok(head) = ctx.head(i, crate::HEAD_LEN) else {
            continue;
        };
        if !head.starts_with(crunch::SIGNATURE) {
            continue;
        }
        let named = name.to_ascii_lowercase().ends_with(".crn");
        if !named && !crunch::looks_like_crn(&head) {
            continue;
        }
        ctx.claimed[i] = true;
        // The page's first module lacks the crunch decoder, so it leaves the header to the full
        // one too (the worker reopens the drop with it on NotInBuild): that kept the core module
        // under its 300 KB budget when the containers landed (301,235 -> 295,777 B gzipped).
        #[cfg(not(feature = "codec-crunch"))]
        let described = Err(crate::io::Error::not_in_build(
            "a crunch (.crn) file",
            "codec-crunch",
        ));
        #[cfg(feature = "codec-crunch")]
        let described = describe(ctx, i, &head, &name);
        match described {
            Ok(tex) => ctx.textures.push(tex),
            Err(e) => ctx.problems.push(FileProblem::new(
                &name,
                Some(Engine::Crn),
                &e.in_file(&name),
            )),
        }
    }
}

fn describe(ctx: &OpenContext, i: usize, head: &[u8], name: &str) -> Result<Texture> {
    let src = ctx.sources[i].as_ref();
    let file_len = src.len();
    let mut head = head.to_vec();
    let need = crunch::header_len(&head).max(if head.len() > 3 {
        u16::from_be_bytes([head[2], head[3]]) as usize
    } else {
        0
    });
    if head.len() < need && (head.len() as u64) < file_len {
        head = read_up_to(src, 0, need as u64, &ctx.limits)?;
    }
    let h = crunch::parse_header(&head, file_len)?;
    // The variant is told by the first two bytes of each selector palette.
    let variant = {
        let mut sparse = SparseHead::default();
        for p in [h.color_selectors, h.alpha_selectors] {
            if p.num > 0 {
                let b = read_up_to(src, p.ofs as u64, 2.min(p.size as u64), &ctx.limits)?;
                sparse.put(p.ofs as usize, &b);
            }
        }
        crunch::detect_variant(&h, &sparse.bytes)?
    };
    ctx.limits.check_dims(h.width, h.height, 1)?;
    Ok(texture(name, i, &h, variant, file_len))
}

/// A byte buffer holding a few ranges at their own offsets (zeros elsewhere), for the variant
/// probe; never larger than the last range's end, which the header bounds by the stream size.
#[derive(Default)]
struct SparseHead {
    bytes: Vec<u8>,
}

impl SparseHead {
    fn put(&mut self, at: usize, b: &[u8]) {
        if self.bytes.len() < at + b.len() {
            self.bytes.resize(at + b.len(), 0);
        }
        self.bytes[at..at + b.len()].copy_from_slice(b);
    }
}

fn texture(name: &str, i: usize, h: &Header, variant: crunch::Variant, file_len: u64) -> Texture {
    let format = h.format.block_format();
    let mips = (0..h.levels)
        .map(|l| {
            let (w, hh) = h.level_dims(l);
            Mip {
                width: w,
                height: hh,
                depth: 1,
                surfaces: Vec::new(),
                location_note: "crunch stream".into(),
            }
        })
        .collect();
    let mut notes = Vec::new();
    if (h.data_size as u64) < file_len {
        notes.push(format!(
            "{} bytes after the crunch stream are not used",
            file_len - h.data_size as u64
        ));
    }
    match h.format {
        crunch::CrnFormat::Dxt5CCxY => {
            notes.push("DXT5_CCxY: YCoCg colour (Co in red, Cg in green, scale in blue, Y in alpha), shown as stored".into())
        }
        crunch::CrnFormat::Dxt5xGxR | crunch::CrnFormat::Dxt5xGBR | crunch::CrnFormat::Dxt5AGBR => {
            notes.push(format!(
                "{}: a swizzled DXT5 (red is kept in alpha), shown as stored",
                h.format.name()
            ))
        }
        _ => {}
    }
    Texture {
        file: name.to_string(),
        path: None,
        engine: Engine::Crn,
        name: file_stem(name).to_string(),
        class: "CRN".into(),
        kind: if h.faces == 6 {
            TextureKind::Cube
        } else {
            TextureKind::Tex2D
        },
        format,
        native_format: NativeFormat::Name(h.format.name().into()),
        width: h.width,
        height: h.height,
        depth: 1,
        authored: None,
        slices: h.faces,
        mips,
        color_space: ColorSpace::Unknown,
        normal_map: None,
        platform: None,
        tiling: crate::codec::tiling::Tiling::Linear,
        rows: RowOrder::TopFirst,
        layout: Layout::Crunched {
            data: Storage::Range {
                source: i,
                offset: 0,
                length: h.data_size as u64,
            },
        },
        metadata: vec![
            ("crunch format".into(), h.format.name().into()),
            ("crunch variant".into(), variant.name().into()),
            ("levels".into(), h.levels.to_string()),
            ("faces".into(), h.faces.to_string()),
            ("stream bytes".into(), h.data_size.to_string()),
            (
                "palettes (colour endpoints/selectors, alpha endpoints/selectors)".into(),
                format!(
                    "{} / {} / {} / {}",
                    h.color_endpoints.num,
                    h.color_selectors.num,
                    h.alpha_endpoints.num,
                    h.alpha_selectors.num
                ),
            ),
        ],
        notes,
        error: None,
    }
}
