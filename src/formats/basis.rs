//! Basis Universal: loose `.basis` files (ETC1S and UASTC LDR 4x4), and the decoded-slice sources
//! both they and KTX 2 files with BasisLZ supercompression (ktx.rs) hand to the catalog.
//!
//! An ETC1S image is decoded by a derived source ([`Etc1sImage`]) on its first read: its slices
//! (colour, and alpha when there is one) become the ETC1 blocks of [`PixelFormat::BasisETC1S`] /
//! [`PixelFormat::BasisETC1SA`], which the codec decodes like ETC1. The global codebooks are decoded
//! once per file ([`Etc1sGlobal`]) and shared by every image. UASTC slices are plain 16-byte blocks,
//! read as ranges like any other surface.
//!
//! Without the `codec-basis` feature (the page's core module) only the signature is read: a
//! `.basis` file, or a KTX 2 file of BasisLZ data (ktx.rs), is a NotInBuild problem.
//!
//! `.basis` layout facts from Binomial's `basisu_file_headers.h` (the file format's definition):
//! a 77-byte packed little-endian header (signature "sB", version, header size, CRC-16s, data size,
//! slice and image counts, texture format and type, flags, then the endpoint/selector codebook and
//! Huffman table offsets and sizes, the slice descriptor table offset), then 23-byte slice
//! descriptors (image index u24, level u8, flags u8, original width/height u16, blocks x/y u16, file
//! offset/size u32, CRC-16). ETC1S files with alpha store each image level's colour slice then its
//! alpha slice.

#[cfg(feature = "codec-basis")]
use crate::codec::basislz::Codebooks;
#[cfg(feature = "codec-basis")]
use crate::codec::PixelFormat;
#[cfg(feature = "codec-basis")]
use crate::file_stem;
#[cfg(feature = "codec-basis")]
use crate::io::{read_range, Limits, Source};
use crate::io::{Error, Result, SourceRef};
#[cfg(feature = "codec-basis")]
use crate::model::{ColorSpace, Layout, Mip, NativeFormat, RowOrder, Storage, TextureKind};
use crate::model::{Engine, Texture};
use crate::{FileProblem, OpenContext};
#[cfg(feature = "codec-basis")]
use std::sync::{Arc, OnceLock};

#[cfg(feature = "codec-basis")]
/// The ETC1S global data of one file: where its codebooks and slice tables are, decoded once, on
/// the first image read.
pub(crate) struct Etc1sGlobal {
    inner: SourceRef,
    /// (offset, length) in `inner` of the endpoint codebook, selector codebook and slice tables.
    pub(crate) ranges: [(u64, u64); 3],
    pub(crate) endpoint_count: u32,
    pub(crate) selector_count: u32,
    limits: Limits,
    books: OnceLock<std::result::Result<Arc<Codebooks>, Error>>,
}

#[cfg(feature = "codec-basis")]
impl Etc1sGlobal {
    pub(crate) fn new(
        inner: SourceRef,
        ranges: [(u64, u64); 3],
        endpoint_count: u32,
        selector_count: u32,
        limits: &Limits,
    ) -> Etc1sGlobal {
        Etc1sGlobal {
            inner,
            ranges,
            endpoint_count,
            selector_count,
            limits: limits.clone(),
            books: OnceLock::new(),
        }
    }

    fn books(&self) -> Result<Arc<Codebooks>> {
        self.books
            .get_or_init(|| {
                let [e, s, t] = self
                    .ranges
                    .map(|(o, l)| read_range(self.inner.as_ref(), o, l, &self.limits));
                Codebooks::new(self.endpoint_count, self.selector_count, &e?, &s?, &t?)
                    .map(Arc::new)
                    .map_err(|e| e.at_field("basis/global codebooks"))
            })
            .clone()
            .map_err(|e| e.in_file(self.inner.name()))
    }
}

#[cfg(feature = "codec-basis")]
/// One slice's bytes: (offset, length) in the file.
pub(crate) type Slice = (u64, u64);

#[cfg(feature = "codec-basis")]
/// One ETC1S image (a level of a layer or face), decoded to ETC1 blocks on its first read. For a
/// P-frame of ETC1S video, `frames` runs from the last I-frame to this frame, decoded in order.
pub(crate) struct Etc1sImage {
    name: String,
    inner: SourceRef,
    global: Arc<Etc1sGlobal>,
    /// (colour slice, alpha slice, is a P-frame) per frame; the last one is this image.
    frames: Vec<(Slice, Option<Slice>, bool)>,
    bw: usize,
    bh: usize,
    /// Alpha slices present (and so 16 bytes a block: BasisETC1SA).
    alpha: bool,
    limits: Limits,
    data: OnceLock<std::result::Result<Arc<[u8]>, Error>>,
}

#[cfg(feature = "codec-basis")]
impl Etc1sImage {
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn new(
        name: String,
        inner: SourceRef,
        global: Arc<Etc1sGlobal>,
        frames: Vec<(Slice, Option<Slice>, bool)>,
        width: u32,
        height: u32,
        alpha: bool,
        limits: &Limits,
    ) -> Etc1sImage {
        Etc1sImage {
            name,
            inner,
            global,
            frames,
            bw: width.div_ceil(4) as usize,
            bh: height.div_ceil(4) as usize,
            alpha,
            limits: limits.clone(),
            data: OnceLock::new(),
        }
    }

    fn stride(&self) -> usize {
        if self.alpha {
            16
        } else {
            8
        }
    }

    fn decode(&self) -> Result<Arc<[u8]>> {
        let books = self.global.books()?;
        let len = self.len();
        self.limits
            .check_alloc(len, "the ETC1 blocks of an ETC1S image")?;
        let mut out = vec![0u8; len as usize];
        let video = self.frames.len() > 1 || self.frames.iter().any(|f| f.2);
        let (mut rgb_prev, mut alpha_prev) = (Vec::new(), Vec::new());
        for (i, &(rgb, alpha, p_frame)) in self.frames.iter().enumerate() {
            let p_frame = p_frame && i > 0;
            let slices = [
                (rgb, 0, &mut rgb_prev),
                (alpha.unwrap_or((0, 0)), 8, &mut alpha_prev),
            ];
            for ((offset, length), at, prev) in slices {
                if at == 8 && !self.alpha {
                    continue;
                }
                if at == 8 && alpha.is_none() {
                    return Err(Error::malformed(
                        "the image has no alpha slice, where the texture's others have one",
                    ));
                }
                let bytes = read_range(self.inner.as_ref(), offset, length, &self.limits)?;
                books
                    .decode_slice(
                        &bytes,
                        self.bw,
                        self.bh,
                        &mut out,
                        self.stride(),
                        at,
                        video.then_some(prev),
                        p_frame,
                    )
                    .map_err(|e| e.in_file(&self.name))?;
            }
        }
        Ok(out.into())
    }
}

#[cfg(feature = "codec-basis")]
impl Source for Etc1sImage {
    fn name(&self) -> &str {
        &self.name
    }
    fn len(&self) -> u64 {
        (self.bw * self.bh * self.stride()) as u64
    }
    fn read_exact_at(&self, offset: u64, buf: &mut [u8]) -> Result<()> {
        let data = self
            .data
            .get_or_init(|| self.decode())
            .as_ref()
            .map_err(|e| e.clone())?;
        crate::io::copy_at(data, offset, buf)
    }
}

const SIGNATURE: &[u8; 2] = b"sB";
const HEADER_LEN: u64 = 77;
#[cfg(feature = "codec-basis")]
const SLICE_DESC_LEN: u64 = 23;

/// A packed little-endian unsigned field of `n` bytes at `at`.
fn field(h: &[u8], at: usize, n: usize) -> u64 {
    h[at..at + n]
        .iter()
        .rev()
        .fold(0, |v, &b| (v << 8) | b as u64)
}

#[cfg(feature = "codec-basis")]
/// One slice descriptor.
#[derive(Clone, Copy)]
struct SliceDesc {
    image: u32,
    level: u32,
    flags: u8,
    width: u32,
    height: u32,
    blocks_x: u32,
    blocks_y: u32,
    offset: u64,
    size: u64,
}

#[cfg(feature = "codec-basis")]
const SLICE_HAS_ALPHA: u8 = 1;
#[cfg(feature = "codec-basis")]
const SLICE_I_FRAME: u8 = 2;
#[cfg(feature = "codec-basis")]
const FLAG_ETC1S: u64 = 1;
#[cfg(feature = "codec-basis")]
const FLAG_Y_FLIPPED: u64 = 2;
#[cfg(feature = "codec-basis")]
const FLAG_ALPHA: u64 = 4;
#[cfg(feature = "codec-basis")]
const FLAG_GLOBAL_CODEBOOK: u64 = 8;
#[cfg(feature = "codec-basis")]
const FLAG_SRGB: u64 = 16;

/// Claims `.basis` files: the "sB" signature and a header size of 77, or the name.
pub fn open(ctx: &mut OpenContext) {
    for i in ctx.unclaimed() {
        let Ok(head) = ctx.head(i, HEADER_LEN) else {
            continue;
        };
        let name = ctx.sources[i].name().to_string();
        let named = name.to_ascii_lowercase().ends_with(".basis");
        if !head.starts_with(SIGNATURE)
            || !(named || (head.len() >= 6 && field(&head, 4, 2) == HEADER_LEN))
        {
            continue;
        }
        ctx.claimed[i] = true;
        // Without the Basis codec (the page's core module) the file is a NotInBuild problem: the
        // page then reopens the files in its full module.
        #[cfg(feature = "codec-basis")]
        let found = describe(ctx, i, &head, &name);
        #[cfg(not(feature = "codec-basis"))]
        let found: Result<(Vec<Texture>, Vec<SourceRef>)> = Err(Error::not_in_build(
            "a Basis Universal .basis file",
            "codec-basis",
        ));
        match found {
            Ok((textures, derived)) => {
                for d in derived {
                    ctx.add_source(d);
                }
                ctx.textures.extend(textures);
            }
            Err(e) => ctx.problems.push(FileProblem::new(
                &name,
                Some(Engine::Basis),
                &e.in_file(&name),
            )),
        }
    }
}

#[cfg(feature = "codec-basis")]
/// The textures of a `.basis` file (one, or one per image of a "2D" file whose images differ),
/// and the derived ETC1S sources their surfaces name, numbered from `ctx.sources.len()`.
#[allow(clippy::arc_with_non_send_sync)]
fn describe(
    ctx: &OpenContext,
    source: usize,
    head: &[u8],
    name: &str,
) -> Result<(Vec<Texture>, Vec<SourceRef>)> {
    let src = ctx.sources[source].clone();
    let file_len = src.len();
    let limits = &ctx.limits;
    if (head.len() as u64) < HEADER_LEN {
        return Err(
            Error::truncated(head.len() as u64, HEADER_LEN - head.len() as u64, file_len)
                .at_field("basis/header"),
        );
    }
    let h = |at, n| field(head, at, n);
    let (version, header_size) = (h(2, 2), h(4, 2));
    if header_size != HEADER_LEN {
        return Err(Error::malformed(format!(
            "the header size is {header_size}; .basis headers are {HEADER_LEN} bytes"
        ))
        .at_field("basis/m_header_size"));
    }
    let (total_slices, total_images) = (h(14, 3), h(17, 3));
    let (tex_format, flags, tex_type) = (h(20, 1), h(21, 2), h(23, 1));
    let (endpoints, endpoint_ofs, endpoint_size) = (h(39, 2), h(41, 4), h(45, 3));
    let (selectors, selector_ofs, selector_size) = (h(48, 2), h(50, 4), h(54, 3));
    let (tables_ofs, tables_size, slices_ofs) = (h(57, 4), h(61, 4), h(65, 4));
    if total_slices == 0 || total_slices > limits.max_entries {
        return Err(
            Error::malformed(format!("{total_slices} slices (1..{})", limits.max_entries))
                .at_field("basis/m_total_slices"),
        );
    }
    let table = read_range(
        src.as_ref(),
        slices_ofs,
        total_slices * SLICE_DESC_LEN,
        limits,
    )
    .map_err(|e| e.at_field("basis/slice descriptors"))?;
    let mut slices = Vec::with_capacity(total_slices as usize);
    for d in table.chunks_exact(SLICE_DESC_LEN as usize) {
        let f = |at, n| field(d, at, n);
        let s = SliceDesc {
            image: f(0, 3) as u32,
            level: f(3, 1) as u32,
            flags: f(4, 1) as u8,
            width: f(5, 2) as u32,
            height: f(7, 2) as u32,
            blocks_x: f(9, 2) as u32,
            blocks_y: f(11, 2) as u32,
            offset: f(13, 4),
            size: f(17, 4),
        };
        if s.width == 0
            || s.height == 0
            || s.blocks_x != s.width.div_ceil(4)
            || s.blocks_y != s.height.div_ceil(4)
        {
            return Err(Error::malformed(format!(
                "slice of image {} level {} is {}x{} in {}x{} blocks",
                s.image, s.level, s.width, s.height, s.blocks_x, s.blocks_y
            ))
            .at_field("basis/slice descriptors"));
        }
        slices.push(s);
    }
    let etc1s = flags & FLAG_ETC1S != 0 || tex_format == 0;
    let format = match (tex_format, etc1s, flags & FLAG_ALPHA != 0) {
        (0, _, false) => PixelFormat::BasisETC1S,
        (0, _, true) => PixelFormat::BasisETC1SA,
        (1, false, _) => PixelFormat::BasisUASTC,
        (f, ..) => {
            return Err(Error::unsupported(format!(
                "texture format {f} ({}) is not decoded",
                match f {
                    2 => "UASTC HDR 4x4",
                    3 => "ASTC HDR 6x6",
                    4 => "UASTC HDR 6x6 intermediate",
                    _ => "unknown",
                }
            ))
            .at_field("basis/m_tex_format"))
        }
    };
    let alpha = format == PixelFormat::BasisETC1SA;
    let mut derived: Vec<SourceRef> = Vec::new();
    let global = if format == PixelFormat::BasisUASTC {
        None
    } else {
        if flags & FLAG_GLOBAL_CODEBOOK != 0 {
            return Err(Error::unsupported(
                "this .basis file uses the codebook of another .basis file, which is not given",
            )
            .at_field("basis/m_flags"));
        }
        Some(Arc::new(Etc1sGlobal::new(
            src.clone(),
            [
                (endpoint_ofs, endpoint_size),
                (selector_ofs, selector_size),
                (tables_ofs, tables_size),
            ],
            endpoints as u32,
            selectors as u32,
            limits,
        )))
    };
    // Per image, its levels' (colour slice, alpha slice).
    let images = total_images.min(total_slices) as usize;
    let mut levels: Vec<Vec<(SliceDesc, Option<SliceDesc>)>> = vec![Vec::new(); images];
    let mut it = slices.iter().peekable();
    while let Some(&s) = it.next() {
        if s.image as usize >= images {
            return Err(Error::malformed(format!(
                "a slice names image {} of {total_images}",
                s.image
            ))
            .at_field("basis/slice descriptors"));
        }
        let a = if alpha {
            match it.next() {
                Some(&a) if a.flags & SLICE_HAS_ALPHA != 0 && a.image == s.image => Some(a),
                _ => {
                    return Err(Error::malformed(format!(
                        "image {} level {} has no alpha slice after its colour slice",
                        s.image, s.level
                    ))
                    .at_field("basis/slice descriptors"))
                }
            }
        } else {
            None
        };
        let l = &mut levels[s.image as usize];
        if s.level as usize != l.len() {
            return Err(Error::malformed(format!(
                "image {} lists level {} after {} levels",
                s.image,
                s.level,
                l.len()
            ))
            .at_field("basis/slice descriptors"));
        }
        l.push((s, a));
    }
    let kind = match tex_type {
        2 => TextureKind::Cube,
        1 | 3 | 4 => TextureKind::Array,
        _ => TextureKind::Tex2D,
    };
    // Images that share the first one's size and levels are one texture (array, cube, video,
    // volume shown as its slices); a 2D file of images that differ is a texture per image.
    let same = levels.iter().all(|l| {
        l.len() == levels[0].len()
            && l.iter()
                .zip(&levels[0])
                .all(|(a, b)| (a.0.width, a.0.height) == (b.0.width, b.0.height))
    });
    let groups: Vec<Vec<usize>> = if same || tex_type != 0 {
        if !same {
            return Err(Error::malformed(
                "the images of an array, cube, video or volume differ in size or levels",
            )
            .at_field("basis/slice descriptors"));
        }
        vec![(0..images).collect()]
    } else {
        (0..images).map(|i| vec![i]).collect()
    };
    if kind == TextureKind::Cube && images % 6 != 0 {
        return Err(Error::malformed(format!(
            "a cube map of {images} images (a multiple of 6 is needed)"
        ))
        .at_field("basis/m_total_images"));
    }
    let video = tex_type == 3;
    let mut textures = Vec::new();
    for (g, group) in groups.iter().enumerate() {
        let first = &levels[group[0]];
        let Some((top, _)) = first.first() else {
            return Err(Error::malformed(format!(
                "image {} has no slices",
                group[0]
            )));
        };
        limits.check_dims(top.width, top.height, 1)?;
        if group.len() as u64 > limits.max_slices as u64 {
            return Err(Error::limit(format!(
                "{} images is over the limit of {} slices",
                group.len(),
                limits.max_slices
            )));
        }
        let mut mips = Vec::with_capacity(first.len());
        for (level, (s0, _)) in first.iter().enumerate() {
            let mut surfaces = Vec::with_capacity(group.len());
            for (k, &image) in group.iter().enumerate() {
                let (s, a) = levels[image][level];
                let slice = |d: SliceDesc| (d.offset, d.size);
                let in_file =
                    |d: &SliceDesc| d.offset.checked_add(d.size).is_some_and(|e| e <= file_len);
                if !in_file(&s) || a.as_ref().is_some_and(|a| !in_file(a)) {
                    surfaces.push(Storage::Missing {
                        file: name.to_string(),
                        length: format.surface_size(s.width, s.height),
                    });
                    continue;
                }
                let Some(global) = &global else {
                    let need = format.surface_size(s.width, s.height);
                    surfaces.push(if s.size >= need {
                        Storage::Range {
                            source,
                            offset: s.offset,
                            length: need,
                        }
                    } else {
                        return Err(Error::malformed(format!(
                            "the UASTC slice of image {image} level {level} holds {} bytes; {}x{} needs {need}",
                            s.size, s.width, s.height
                        ))
                        .at_field("basis/slice descriptors"));
                    });
                    continue;
                };
                // Video: decode from the last I-frame up to this frame.
                let mut start = k;
                if video {
                    while start > 0 && levels[group[start]][level].0.flags & SLICE_I_FRAME == 0 {
                        start -= 1;
                    }
                }
                let frames = group[start..=k]
                    .iter()
                    .map(|&im| {
                        let (s, a) = levels[im][level];
                        (
                            slice(s),
                            a.map(slice),
                            video && s.flags & SLICE_I_FRAME == 0,
                        )
                    })
                    .collect();
                derived.push(Arc::new(Etc1sImage::new(
                    format!("{name} (image {image}, level {level}, ETC1S)"),
                    src.clone(),
                    global.clone(),
                    frames,
                    s.width,
                    s.height,
                    alpha,
                    limits,
                )) as SourceRef);
                surfaces.push(Storage::Range {
                    source: ctx.sources.len() + derived.len() - 1,
                    offset: 0,
                    length: format.surface_size(s.width, s.height),
                });
            }
            mips.push(Mip {
                width: s0.width,
                height: s0.height,
                depth: 1,
                surfaces,
                location_note: "inline".into(),
            });
        }
        let mut notes = Vec::new();
        if mips.iter().any(|m| !m.is_present()) {
            notes.push(format!(
                "the file ({file_len} bytes) is cut short: some slices lie past its end"
            ));
        }
        if tex_type == 4 {
            notes.push("a volume texture, shown as its depth slices".into());
        }
        let mut metadata = vec![
            ("basis version".to_string(), format!("0x{version:x}")),
            (
                "texture format".into(),
                if etc1s { "ETC1S" } else { "UASTC LDR 4x4" }.into(),
            ),
            (
                "texture type".into(),
                match tex_type {
                    0 => "2D",
                    1 => "2D array",
                    2 => "cube map array",
                    3 => "video frames",
                    4 => "volume",
                    _ => "unknown",
                }
                .into(),
            ),
            ("images".into(), total_images.to_string()),
            ("slices".into(), total_slices.to_string()),
        ];
        if etc1s {
            metadata.push((
                "endpoints / selectors".into(),
                format!("{endpoints} / {selectors}"),
            ));
        }
        if flags & FLAG_Y_FLIPPED != 0 {
            metadata.push((
                "Y flipped".into(),
                "yes (the encoder flipped the image)".into(),
            ));
        }
        if video {
            metadata.push(("µs per frame".into(), h(24, 3).to_string()));
        }
        textures.push(Texture {
            file: name.to_string(),
            path: None,
            engine: Engine::Basis,
            name: if groups.len() > 1 {
                format!("{} (image {g})", file_stem(name))
            } else {
                file_stem(name).to_string()
            },
            class: "Basis".into(),
            kind,
            format,
            native_format: NativeFormat::Name(if etc1s { "ETC1S" } else { "UASTC4x4" }.into()),
            width: top.width,
            height: top.height,
            depth: 1,
            authored: None,
            slices: group.len() as u32,
            mips,
            color_space: if flags & FLAG_SRGB != 0 {
                ColorSpace::Srgb
            } else {
                ColorSpace::Linear
            },
            normal_map: None,
            platform: None,
            tiling: crate::codec::tiling::Tiling::Linear,
            rows: RowOrder::TopFirst,
            layout: Layout::Surfaces,
            metadata,
            notes,
            error: None,
        });
    }
    Ok((textures, derived))
}
