//! Loose .dds files in and out: legacy headers (FourCC, D3DFMT numbers, bit masks) and the DX10
//! extension (DXGI formats, arrays, cube arrays, volumes).
//!
//! Header layout and flag values follow Microsoft's "DDS file format" reference (DDS_HEADER,
//! DDS_PIXELFORMAT, DDS_HEADER_DXT10) and DXGI_FORMAT numbering from dxgiformat.h; the legacy
//! bit-mask table follows DirectXTex's DDS.h (DDSPF_* constants).

use crate::codec::PixelFormat;
use crate::io::{Error, Reader, Result};
use crate::model::{
    mip_dims, ColorSpace, Engine, Layout, Mip, NativeFormat, RowOrder, Storage, Texture,
    TextureKind,
};
use crate::{file_stem, Catalog, FileProblem, OpenContext};

const MAGIC: &[u8; 4] = b"DDS ";
/// "DDS " + DDS_HEADER (124 bytes).
const LEGACY_HEADER: u64 = 128;
/// ... + DDS_HEADER_DXT10 (20 bytes).
const DX10_HEADER: u64 = 148;

// DDS_HEADER.dwFlags
const DDSD_CAPS: u32 = 0x1;
const DDSD_HEIGHT: u32 = 0x2;
const DDSD_WIDTH: u32 = 0x4;
const DDSD_PITCH: u32 = 0x8;
const DDSD_PIXELFORMAT: u32 = 0x1000;
const DDSD_MIPMAPCOUNT: u32 = 0x20000;
const DDSD_LINEARSIZE: u32 = 0x80000;
const DDSD_DEPTH: u32 = 0x800000;
// DDS_PIXELFORMAT.dwFlags
const DDPF_ALPHAPIXELS: u32 = 0x1;
const DDPF_ALPHA: u32 = 0x2;
const DDPF_FOURCC: u32 = 0x4;
const DDPF_RGB: u32 = 0x40;
const DDPF_LUMINANCE: u32 = 0x20000;
// dwCaps / dwCaps2
const DDSCAPS_COMPLEX: u32 = 0x8;
const DDSCAPS_TEXTURE: u32 = 0x1000;
const DDSCAPS_MIPMAP: u32 = 0x400000;
const DDSCAPS2_CUBEMAP: u32 = 0x200;
const DDSCAPS2_CUBEMAP_ALLFACES: u32 = 0xfc00;
const DDSCAPS2_VOLUME: u32 = 0x200000;
// DDS_HEADER_DXT10
const D3D10_RESOURCE_DIMENSION_TEXTURE1D: u32 = 2;
const D3D10_RESOURCE_DIMENSION_TEXTURE2D: u32 = 3;
const D3D10_RESOURCE_DIMENSION_TEXTURE3D: u32 = 4;
const DDS_RESOURCE_MISC_TEXTURECUBE: u32 = 0x4;

/// What a DXGI_FORMAT number means to us: format and whether it names a colour space.
#[derive(Clone, Copy)]
enum Srgb {
    /// The _SRGB variant.
    Yes,
    /// The _UNORM (or float) variant: linear.
    No,
    /// A _TYPELESS variant: the file does not say.
    Typeless,
}

/// DXGI_FORMAT numbers (dxgiformat.h) of every format we decode or name. ASTC numbers 133-187 are
/// the D3D12 ASTC values (typeless, unorm, srgb per footprint, stride 4) that Compressonator and
/// other ASTC-in-DDS writers use.
fn dxgi_format(id: u32) -> Option<(PixelFormat, Srgb)> {
    use PixelFormat::*;
    use Srgb::*;
    Some(match id {
        2 => (RGBA32F, No),
        6 => (RGB32F, No),
        10 => (RGBA16F, No),
        11 => (RGBA16, No),
        16 => (RG32F, No),
        24 => (RGB10A2, No),
        26 => (RG11B10F, No),
        27 => (RGBA8, Typeless),
        28 => (RGBA8, No),
        29 => (RGBA8, Yes),
        34 => (RG16F, No),
        35 => (RG16, No),
        41 => (R32F, No),
        49 => (RG8, No),
        54 => (R16F, No),
        56 => (R16, No),
        61 => (R8, No),
        65 => (A8, No),
        67 => (RGB9E5, No),
        70 => (BC1, Typeless),
        71 => (BC1, No),
        72 => (BC1, Yes),
        73 => (BC2, Typeless),
        74 => (BC2, No),
        75 => (BC2, Yes),
        76 => (BC3, Typeless),
        77 => (BC3, No),
        78 => (BC3, Yes),
        79 => (BC4, Typeless),
        80 => (BC4, No),
        81 => (BC4S, No),
        82 => (BC5, Typeless),
        83 => (BC5, No),
        84 => (BC5S, No),
        85 => (RGB565, No),
        86 => (BGRA5551, No),
        87 => (BGRA8, No),
        88 => (BGRX8, No),
        90 => (BGRA8, Typeless),
        91 => (BGRA8, Yes),
        92 => (BGRX8, Typeless),
        93 => (BGRX8, Yes),
        94 => (BC6HU, Typeless),
        95 => (BC6HU, No),
        96 => (BC6HS, No),
        97 => (BC7, Typeless),
        98 => (BC7, No),
        99 => (BC7, Yes),
        107 => (YUY2, No),
        115 => (ARGB4444, No),
        133..=187 => {
            let (w, h) = *crate::codec::ASTC_FOOTPRINTS.get(((id - 133) / 4) as usize)?;
            let srgb = match (id - 133) % 4 {
                0 => Typeless,
                1 => No,
                2 => Yes,
                _ => return None,
            };
            (ASTC { w, h, hdr: false }, srgb)
        }
        _ => return None,
    })
}

/// Whether [`write`] can store `format` (a legacy pixel format or a DXGI format exists for it).
pub fn can_write(format: PixelFormat) -> bool {
    legacy_pixel_format(format).is_some() || dxgi_id(format, false).is_some()
}

/// The DXGI_FORMAT number the writer uses for `format` (the _UNORM or _SRGB variant).
fn dxgi_id(format: PixelFormat, srgb: bool) -> Option<u32> {
    let wanted_srgb = |s: Srgb| match s {
        Srgb::Yes => srgb,
        Srgb::No => !srgb,
        Srgb::Typeless => false,
    };
    let astc_end = 187;
    (0..=astc_end).find(|&id| {
        dxgi_format(id).is_some_and(|(f, s)| {
            let f = match f {
                PixelFormat::ASTC { w, h, .. } => PixelFormat::ASTC { w, h, hdr: false },
                f => f,
            };
            let want = match format {
                PixelFormat::ASTC { w, h, .. } => PixelFormat::ASTC { w, h, hdr: false },
                f => f,
            };
            f == want && wanted_srgb(s)
        })
    })
}

/// FourCC codes of compressed and packed formats (legacy header).
const FOURCCS: &[(&[u8; 4], PixelFormat)] = {
    use PixelFormat::*;
    &[
        (b"DXT1", BC1),
        // DXT2/DXT4 are the premultiplied-alpha variants of DXT3/DXT5; same blocks.
        (b"DXT2", BC2),
        (b"DXT3", BC2),
        (b"DXT4", BC3),
        (b"DXT5", BC3),
        (b"ATI1", BC4),
        (b"BC4U", BC4),
        (b"BC4S", BC4S),
        (b"ATI2", BC5),
        (b"BC5U", BC5),
        (b"BC5S", BC5S),
        // AMD/Qualcomm ATC as written by Compressonator (samples: ATC_RGB.dds, ATC_RGBA_*.dds).
        (b"ATC ", ATCRGB),
        (b"ATCA", ATCRGBAExplicit),
        (b"ATCI", ATCRGBAInterpolated),
        (b"YUY2", YUY2),
    ]
};

/// D3DFORMAT numbers stored in the FourCC field (d3d9types.h).
const D3DFMT_NUMBERS: &[(u32, PixelFormat, &str)] = {
    use PixelFormat::*;
    &[
        (36, RGBA16, "A16B16G16R16"),
        (111, R16F, "R16F"),
        (112, RG16F, "G16R16F"),
        (113, RGBA16F, "A16B16G16R16F"),
        (114, R32F, "R32F"),
        (115, RG32F, "G32R32F"),
        (116, RGBA32F, "A32B32G32R32F"),
    ]
};

/// Legacy uncompressed formats by pixel-format flags, bit count and R/G/B/A masks (DirectXTex
/// DDSPF_* plus the Unity-style byte orders ARGB32 and RGBA4444, which have unambiguous masks).
struct MaskFormat {
    flags: u32,
    bits: u32,
    masks: [u32; 4],
    format: PixelFormat,
    name: &'static str,
}

const MASKS: &[MaskFormat] = {
    use PixelFormat::*;
    const RGBA: u32 = DDPF_RGB | DDPF_ALPHAPIXELS;
    const fn m(
        flags: u32,
        bits: u32,
        masks: [u32; 4],
        format: PixelFormat,
        name: &'static str,
    ) -> MaskFormat {
        MaskFormat {
            flags,
            bits,
            masks,
            format,
            name,
        }
    }
    &[
        m(
            RGBA,
            32,
            [0xff, 0xff00, 0xff_0000, 0xff00_0000],
            RGBA8,
            "A8B8G8R8",
        ),
        m(
            RGBA,
            32,
            [0xff_0000, 0xff00, 0xff, 0xff00_0000],
            BGRA8,
            "A8R8G8B8",
        ),
        m(
            DDPF_RGB,
            32,
            [0xff_0000, 0xff00, 0xff, 0],
            BGRX8,
            "X8R8G8B8",
        ),
        m(
            RGBA,
            32,
            [0xff00, 0xff_0000, 0xff00_0000, 0xff],
            ARGB8,
            "B8G8R8A8 (ARGB32 byte order)",
        ),
        m(
            RGBA,
            32,
            [0x3ff, 0xf_fc00, 0x3ff0_0000, 0xc000_0000],
            RGB10A2,
            "A2B10G10R10",
        ),
        // D3DX (and so most old writers) swapped the red and blue masks of 10:10:10:2; DirectXTex
        // reads these masks as R10G10B10A2_UNORM too.
        m(
            RGBA,
            32,
            [0x3ff0_0000, 0xf_fc00, 0x3ff, 0xc000_0000],
            RGB10A2,
            "A2R10G10B10 (D3DX masks)",
        ),
        m(DDPF_RGB, 32, [0xffff, 0xffff_0000, 0, 0], RG16, "G16R16"),
        m(DDPF_RGB, 24, [0xff_0000, 0xff00, 0xff, 0], BGR8, "R8G8B8"),
        m(DDPF_RGB, 24, [0xff, 0xff00, 0xff_0000, 0], RGB8, "B8G8R8"),
        m(DDPF_RGB, 16, [0xf800, 0x7e0, 0x1f, 0], RGB565, "R5G6B5"),
        m(
            RGBA,
            16,
            [0x7c00, 0x3e0, 0x1f, 0x8000],
            BGRA5551,
            "A1R5G5B5",
        ),
        m(RGBA, 16, [0xf00, 0xf0, 0xf, 0xf000], ARGB4444, "A4R4G4B4"),
        m(RGBA, 16, [0xf000, 0xf00, 0xf0, 0xf], RGBA4444, "R4G4B4A4"),
        m(DDPF_RGB, 16, [0xff, 0xff00, 0, 0], RG8, "R8G8"),
        m(DDPF_RGB, 16, [0xffff, 0, 0, 0], R16, "R16"),
        m(DDPF_RGB, 8, [0xff, 0, 0, 0], R8, "R8"),
        m(DDPF_LUMINANCE, 8, [0xff, 0, 0, 0], L8, "L8"),
        m(
            DDPF_LUMINANCE | DDPF_ALPHAPIXELS,
            16,
            [0xff, 0, 0, 0xff00],
            LA8,
            "A8L8",
        ),
        m(DDPF_ALPHA, 8, [0, 0, 0, 0xff], A8, "A8"),
    ]
};

/// DDS_PIXELFORMAT as stored.
struct DdsPixelFormat {
    flags: u32,
    four_cc: [u8; 4],
    rgb_bit_count: u32,
    masks: [u32; 4],
}

/// DDS_HEADER (+ DDS_HEADER_DXT10) fields we use, with Microsoft's names.
struct Header {
    flags: u32,
    height: u32,
    width: u32,
    pitch_or_linear_size: u32,
    depth: u32,
    mip_map_count: u32,
    ddspf: DdsPixelFormat,
    caps: u32,
    caps2: u32,
    dx10: Option<Dx10>,
}

struct Dx10 {
    dxgi_format: u32,
    resource_dimension: u32,
    misc_flag: u32,
    array_size: u32,
    misc_flags2: u32,
}

fn parse_header(head: &[u8]) -> Result<Header> {
    let mut r = Reader::new(head);
    r.skip(4)?;
    let size = r.u32()?;
    if size != 124 {
        return Err(Error::malformed(format!(
            "DDS_HEADER.dwSize is {size}, not 124: not a valid DDS header"
        ))
        .at_field("dds/DDS_HEADER/dwSize"));
    }
    let flags = r.u32()?;
    let height = r.u32()?;
    let width = r.u32()?;
    let pitch_or_linear_size = r.u32()?;
    let depth = r.u32()?;
    let mip_map_count = r.u32()?;
    r.skip(11 * 4)?;
    let pf_size = r.u32()?;
    if pf_size != 32 {
        return Err(Error::malformed(format!(
            "DDS_PIXELFORMAT.dwSize is {pf_size}, not 32: not a valid DDS header"
        ))
        .at_field("dds/DDS_PIXELFORMAT/dwSize"));
    }
    let ddspf = DdsPixelFormat {
        flags: r.u32()?,
        four_cc: r.array()?,
        rgb_bit_count: r.u32()?,
        masks: [r.u32()?, r.u32()?, r.u32()?, r.u32()?],
    };
    let caps = r.u32()?;
    let caps2 = r.u32()?;
    r.skip(12)?;
    let dx10 = if ddspf.flags & DDPF_FOURCC != 0 && &ddspf.four_cc == b"DX10" {
        Some(Dx10 {
            dxgi_format: r.u32()?,
            resource_dimension: r.u32()?,
            misc_flag: r.u32()?,
            array_size: r.u32()?,
            misc_flags2: r.u32()?,
        })
    } else {
        None
    };
    Ok(Header {
        flags,
        height,
        width,
        pitch_or_linear_size,
        depth,
        mip_map_count,
        ddspf,
        caps,
        caps2,
        dx10,
    })
}

fn four_cc_text(cc: &[u8; 4]) -> String {
    cc.iter()
        .map(|&b| {
            if b.is_ascii_graphic() || b == b' ' {
                b as char
            } else {
                '?'
            }
        })
        .collect()
}

/// The format the legacy pixel format names, with the census `native_format`.
fn legacy_format(pf: &DdsPixelFormat) -> std::result::Result<(PixelFormat, NativeFormat), String> {
    if pf.flags & DDPF_FOURCC != 0 {
        if let Some((_, f)) = FOURCCS.iter().find(|(cc, _)| **cc == pf.four_cc) {
            return Ok((*f, NativeFormat::Name(four_cc_text(&pf.four_cc))));
        }
        let n = u32::from_le_bytes(pf.four_cc);
        if let Some((id, f, _)) = D3DFMT_NUMBERS.iter().find(|(id, ..)| *id == n) {
            return Ok((*f, NativeFormat::Id(*id as i64)));
        }
        return Err(format!(
            "FourCC '{}' (0x{n:08x}) is not a format Texscope reads",
            four_cc_text(&pf.four_cc)
        ));
    }
    let family = pf.flags & (DDPF_RGB | DDPF_LUMINANCE | DDPF_ALPHA | DDPF_ALPHAPIXELS);
    let found = MASKS.iter().find(|m| {
        m.bits == pf.rgb_bit_count
            && m.masks == pf.masks
            && (m.flags & !DDPF_ALPHAPIXELS) == (family & !DDPF_ALPHAPIXELS)
    });
    match found {
        Some(m) => Ok((m.format, NativeFormat::Name(m.name.to_string()))),
        None => Err(format!(
            "legacy pixel format with flags 0x{:x}, {} bits and masks R {:08x} G {:08x} B {:08x} A {:08x} is not a format Texscope reads",
            pf.flags, pf.rgb_bit_count, pf.masks[0], pf.masks[1], pf.masks[2], pf.masks[3]
        )),
    }
}

/// Claims the files that start with "DDS " and lists one texture for each.
pub fn open(ctx: &mut OpenContext) {
    for i in ctx.unclaimed() {
        let name = ctx.sources[i].name().to_string();
        let Ok(head) = ctx.head(i, DX10_HEADER) else {
            continue;
        };
        if !head.starts_with(MAGIC) {
            continue;
        }
        ctx.claimed[i] = true;
        let file_len = ctx.sources[i].len();
        match describe(&head, &name, i, file_len, &ctx.limits) {
            Ok(tex) => ctx.textures.push(tex),
            Err(e) => ctx.problems.push(FileProblem::new(
                &name,
                Some(Engine::Dds),
                &e.in_file(&name),
            )),
        }
    }
}

/// Builds the texture of one .dds file from its header bytes (`head`, up to 148 bytes).
fn describe(
    head: &[u8],
    name: &str,
    source: usize,
    file_len: u64,
    limits: &crate::Limits,
) -> Result<Texture> {
    if (head.len() as u64) < LEGACY_HEADER {
        return Err(Error::truncated(
            head.len() as u64,
            LEGACY_HEADER - head.len() as u64,
            file_len,
        )
        .at_field("dds/DDS_HEADER"));
    }
    let is_dx10 = head.len() >= 88 && &head[84..88] == b"DX10" && {
        let pf_flags = u32::from_le_bytes([head[80], head[81], head[82], head[83]]);
        pf_flags & DDPF_FOURCC != 0
    };
    if is_dx10 && (head.len() as u64) < DX10_HEADER {
        return Err(
            Error::truncated(head.len() as u64, DX10_HEADER - head.len() as u64, file_len)
                .at_field("dds/DDS_HEADER_DXT10"),
        );
    }
    let h = parse_header(head)?;
    let data_start = if h.dx10.is_some() {
        DX10_HEADER
    } else {
        LEGACY_HEADER
    };

    let mut meta: Vec<(String, String)> = Vec::new();
    let mut put = |k: &str, v: String| meta.push((k.to_string(), v));
    put(
        "Header",
        if h.dx10.is_some() {
            "DX10".into()
        } else {
            "legacy".into()
        },
    );
    put("dwFlags", format!("0x{:08x}", h.flags));
    put("dwCaps", format!("0x{:08x}", h.caps));
    put("dwCaps2", format!("0x{:08x}", h.caps2));
    put("dwPitchOrLinearSize", h.pitch_or_linear_size.to_string());
    put("dwMipMapCount", h.mip_map_count.to_string());
    put("ddspf.dwFlags", format!("0x{:08x}", h.ddspf.flags));
    if h.ddspf.flags & DDPF_FOURCC != 0 {
        put("ddspf.dwFourCC", four_cc_text(&h.ddspf.four_cc));
    } else {
        put("ddspf.dwRGBBitCount", h.ddspf.rgb_bit_count.to_string());
        let [r, g, b, a] = h.ddspf.masks;
        put(
            "ddspf masks (R G B A)",
            format!("{r:08x} {g:08x} {b:08x} {a:08x}"),
        );
    }

    let mut notes = Vec::new();
    let (kind, depth, slices) = match &h.dx10 {
        Some(d) => {
            put("DXGI_FORMAT", d.dxgi_format.to_string());
            put("resourceDimension", d.resource_dimension.to_string());
            put("miscFlag", format!("0x{:x}", d.misc_flag));
            put("arraySize", d.array_size.to_string());
            put("miscFlags2 (alpha mode)", (d.misc_flags2 & 7).to_string());
            if d.array_size == 0 {
                return Err(Error::malformed(
                    "arraySize is 0; a DX10 DDS holds at least one image",
                )
                .at_field("dds/DDS_HEADER_DXT10/arraySize"));
            }
            match d.resource_dimension {
                D3D10_RESOURCE_DIMENSION_TEXTURE3D => {
                    if d.array_size != 1 {
                        return Err(Error::malformed(format!(
                            "a volume (3D) texture cannot be an array, but arraySize is {}",
                            d.array_size
                        ))
                        .at_field("dds/DDS_HEADER_DXT10/arraySize"));
                    }
                    (TextureKind::Volume, h.depth.max(1), 1)
                }
                D3D10_RESOURCE_DIMENSION_TEXTURE2D | D3D10_RESOURCE_DIMENSION_TEXTURE1D => {
                    if d.resource_dimension == D3D10_RESOURCE_DIMENSION_TEXTURE1D {
                        notes.push("a 1D texture, shown as one row".to_string());
                    }
                    if d.misc_flag & DDS_RESOURCE_MISC_TEXTURECUBE != 0 {
                        let slices = d.array_size.checked_mul(6).ok_or_else(|| {
                            Error::limit(format!("{} cube faces overflow", d.array_size))
                        })?;
                        (TextureKind::Cube, 1, slices)
                    } else if d.array_size > 1 {
                        (TextureKind::Array, 1, d.array_size)
                    } else {
                        (TextureKind::Tex2D, 1, 1)
                    }
                }
                other => {
                    return Err(Error::malformed(format!(
                        "resourceDimension {other} is not 1D (2), 2D (3) or 3D (4)"
                    ))
                    .at_field("dds/DDS_HEADER_DXT10/resourceDimension"))
                }
            }
        }
        None => {
            if h.caps2 & DDSCAPS2_CUBEMAP != 0 {
                let faces = (h.caps2 & DDSCAPS2_CUBEMAP_ALLFACES).count_ones();
                if faces == 6 {
                    (TextureKind::Cube, 1, 6)
                } else {
                    notes.push(format!(
                        "a partial cubemap: {faces} of 6 faces stored, listed as slices in +X -X +Y -Y +Z -Z order"
                    ));
                    (TextureKind::Array, 1, faces.max(1))
                }
            } else if h.caps2 & DDSCAPS2_VOLUME != 0 && h.depth > 1 {
                (TextureKind::Volume, h.depth, 1)
            } else {
                (TextureKind::Tex2D, 1, 1)
            }
        }
    };
    if h.width == 0 || h.height == 0 {
        return Err(Error::malformed(format!(
            "the header says {}x{}: a texture needs at least one texel",
            h.width, h.height
        ))
        .at_field("dds/DDS_HEADER/dwWidth"));
    }
    limits.check_dims(h.width, h.height, depth)?;
    if slices > limits.max_slices {
        return Err(Error::limit(format!(
            "{slices} slices is over the limit of {}",
            limits.max_slices
        )));
    }
    let mips = h.mip_map_count.max(1);
    if mips > limits.max_mips {
        return Err(Error::limit(format!(
            "dwMipMapCount {mips} is over the limit of {}",
            limits.max_mips
        ))
        .at_field("dds/DDS_HEADER/dwMipMapCount"));
    }

    let (format, native_format, color_space, error) = match &h.dx10 {
        Some(d) => match dxgi_format(d.dxgi_format) {
            Some((f, s)) => {
                let cs = match s {
                    Srgb::Yes => ColorSpace::Srgb,
                    Srgb::No => ColorSpace::Linear,
                    Srgb::Typeless => ColorSpace::Unknown,
                };
                (f, NativeFormat::Id(d.dxgi_format as i64), cs, None)
            }
            None => (
                PixelFormat::RGBA8,
                NativeFormat::Id(d.dxgi_format as i64),
                ColorSpace::Unknown,
                Some(format!(
                    "DXGI_FORMAT {} is not a format Texscope reads (the format shown is a placeholder)",
                    d.dxgi_format
                )),
            ),
        },
        None => match legacy_format(&h.ddspf) {
            Ok((f, n)) => {
                let cs = if f.is_hdr() { ColorSpace::Linear } else { ColorSpace::Unknown };
                if matches!(&h.ddspf.four_cc, b"DXT2" | b"DXT4") && h.ddspf.flags & DDPF_FOURCC != 0 {
                    notes.push("DXT2/DXT4: colour is premultiplied by alpha".to_string());
                }
                (f, n, cs, None)
            }
            Err(msg) => (
                PixelFormat::RGBA8,
                NativeFormat::Name(four_cc_text(&h.ddspf.four_cc)),
                ColorSpace::Unknown,
                Some(format!("{msg} (the format shown is a placeholder)")),
            ),
        },
    };

    // Slice-major layout: each array element / face holds its whole mip chain, then the next.
    // A volume's mip holds all its depth slices.
    let mut mip_list: Vec<Mip> = (0..mips)
        .map(|m| {
            let (w, hh, d) = mip_dims(h.width, h.height, depth, m);
            Mip {
                width: w,
                height: hh,
                depth: d,
                surfaces: Vec::new(),
                location_note: "inline".to_string(),
            }
        })
        .collect();
    let mut cut = Vec::new();
    if error.is_none() {
        let mut offset = data_start;
        for s in 0..slices {
            for (m, mip) in mip_list.iter_mut().enumerate() {
                let length = format
                    .surface_size(mip.width, mip.height)
                    .checked_mul(mip.depth as u64)
                    .ok_or_else(|| Error::limit("surface size overflows"))?;
                let end = offset
                    .checked_add(length)
                    .ok_or_else(|| Error::limit("data size overflows"))?;
                if end <= file_len {
                    mip.surfaces.push(Storage::Range {
                        source,
                        offset,
                        length,
                    });
                } else {
                    cut.push((m, s));
                    mip.surfaces.push(Storage::Missing {
                        file: name.to_string(),
                        length,
                    });
                }
                offset = end;
            }
        }
        if !cut.is_empty() {
            let (m, s) = cut[0];
            notes.push(format!(
                "the file is cut short: it ends at byte {file_len} but the data runs to byte {offset}; {} surface(s) are missing, from mip {m} of slice {s}",
                cut.len()
            ));
        } else if offset < file_len {
            notes.push(format!(
                "{} bytes after the last surface are not used",
                file_len - offset
            ));
        }
    }
    Ok(Texture {
        file: name.to_string(),
        path: None,
        engine: Engine::Dds,
        name: file_stem(name).to_string(),
        class: "DDS".to_string(),
        kind,
        format,
        native_format,
        width: h.width,
        height: h.height,
        depth,
        authored: None,
        slices,
        mips: mip_list,
        color_space,
        normal_map: None,
        platform: None,
        tiling: crate::codec::tiling::Tiling::Linear,
        rows: RowOrder::TopFirst,
        layout: Layout::Surfaces,
        metadata: meta,
        notes,
        error,
    })
}

/// What [`write`] stores: the shape of the texture. Surfaces come from a callback.
#[derive(Debug, Clone, PartialEq)]
pub struct Desc {
    pub format: PixelFormat,
    pub width: u32,
    pub height: u32,
    /// Depth of a volume, 1 otherwise.
    pub depth: u32,
    pub mips: u32,
    pub kind: TextureKind,
    /// Images per mip: 1, layers for an array, 6 x cubes for a cube (array).
    pub slices: u32,
    pub srgb: bool,
    /// Write the DX10 header even when a legacy header could say the same.
    pub force_dx10: bool,
}

impl Desc {
    /// One 2D image with `mips` mips, colour space not stated, the header the format allows.
    pub fn plain_2d(format: PixelFormat, width: u32, height: u32, mips: u32) -> Desc {
        Desc {
            format,
            width,
            height,
            depth: 1,
            mips,
            kind: TextureKind::Tex2D,
            slices: 1,
            srgb: false,
            force_dx10: false,
        }
    }

    /// The shape of an opened texture.
    pub fn of(t: &Texture) -> Desc {
        Desc {
            format: t.format,
            width: t.width,
            height: t.height,
            depth: t.depth.max(1),
            mips: t.mips.len() as u32,
            kind: t.kind,
            slices: t.slices,
            srgb: t.color_space == ColorSpace::Srgb,
            force_dx10: false,
        }
    }
}

/// The legacy DDS_PIXELFORMAT for `format`, when one exists.
fn legacy_pixel_format(format: PixelFormat) -> Option<(u32, [u8; 4], u32, [u32; 4])> {
    if let Some((cc, _)) = FOURCCS
        .iter()
        .find(|(cc, f)| *f == format && !matches!(*cc, b"DXT2" | b"DXT4" | b"BC4U" | b"BC5U"))
    {
        return Some((DDPF_FOURCC, **cc, 0, [0; 4]));
    }
    if let Some((id, ..)) = D3DFMT_NUMBERS.iter().find(|(_, f, _)| *f == format) {
        return Some((DDPF_FOURCC, id.to_le_bytes(), 0, [0; 4]));
    }
    // Readers disagree on the masks of these (10:10:10:2 red/blue, R8 vs L8, R16 vs L16), so
    // the writer states them with a DXGI number.
    if matches!(
        format,
        PixelFormat::R8 | PixelFormat::RG8 | PixelFormat::R16 | PixelFormat::RGB10A2
    ) {
        return None;
    }
    MASKS
        .iter()
        .find(|m| m.format == format)
        .map(|m| (m.flags, [0; 4], m.bits, m.masks))
}

/// Writes a .dds holding every mip and slice of `desc`; `surface(mip, slice)` returns the stored
/// bytes of one image (for a volume, slice 0 and all depth slices of that mip). A legacy header
/// is written when it can say everything (one 2D image, a cube or a volume in a format with a
/// FourCC or bit masks, not sRGB), the DX10 header otherwise.
pub fn write(desc: &Desc, mut surface: impl FnMut(u32, u32) -> Result<Vec<u8>>) -> Result<Vec<u8>> {
    let volume = desc.kind == TextureKind::Volume;
    let cube = desc.kind == TextureKind::Cube;
    if cube && (desc.slices == 0 || desc.slices % 6 != 0) {
        return Err(Error::malformed(format!(
            "a cube needs a multiple of 6 slices, not {}",
            desc.slices
        )));
    }
    let legacy = if desc.force_dx10
        || desc.srgb
        || (desc.kind == TextureKind::Array)
        || (cube && desc.slices != 6)
    {
        None
    } else {
        legacy_pixel_format(desc.format)
    };
    let dxgi = if legacy.is_none() {
        Some(dxgi_id(desc.format, desc.srgb).ok_or_else(|| {
            Error::unsupported(format!(
                "{}{} has no DDS encoding",
                desc.format.name(),
                if desc.srgb { " (sRGB)" } else { "" }
            ))
        })?)
    } else {
        None
    };

    let mut flags = DDSD_CAPS | DDSD_HEIGHT | DDSD_WIDTH | DDSD_PIXELFORMAT;
    let pitch = if desc.format.is_block_compressed() {
        flags |= DDSD_LINEARSIZE;
        desc.format.surface_size(desc.width, desc.height)
    } else {
        flags |= DDSD_PITCH;
        desc.width as u64 * desc.format.block().bytes as u64
    };
    let mut caps = DDSCAPS_TEXTURE;
    if desc.mips > 1 {
        flags |= DDSD_MIPMAPCOUNT;
        caps |= DDSCAPS_COMPLEX | DDSCAPS_MIPMAP;
    }
    let mut caps2 = 0;
    if cube {
        caps |= DDSCAPS_COMPLEX;
        caps2 |= DDSCAPS2_CUBEMAP | DDSCAPS2_CUBEMAP_ALLFACES;
    }
    if volume {
        flags |= DDSD_DEPTH;
        caps |= DDSCAPS_COMPLEX;
        caps2 |= DDSCAPS2_VOLUME;
    }
    let mut out = Vec::new();
    let u32s = |out: &mut Vec<u8>, vs: &[u32]| {
        for v in vs {
            out.extend_from_slice(&v.to_le_bytes());
        }
    };
    out.extend_from_slice(MAGIC);
    u32s(
        &mut out,
        &[
            124,
            flags,
            desc.height,
            desc.width,
            u32::try_from(pitch).unwrap_or(0),
            if volume { desc.depth } else { 0 },
            desc.mips,
        ],
    );
    u32s(&mut out, &[0; 11]);
    let (pf_flags, cc, bits, masks) = legacy.unwrap_or((DDPF_FOURCC, *b"DX10", 0, [0; 4]));
    u32s(&mut out, &[32, pf_flags]);
    out.extend_from_slice(&cc);
    u32s(&mut out, &[bits]);
    u32s(&mut out, &masks);
    u32s(&mut out, &[caps, caps2, 0, 0, 0]);
    if let Some(id) = dxgi {
        let (dim, misc, array) = if volume {
            (D3D10_RESOURCE_DIMENSION_TEXTURE3D, 0, 1)
        } else if cube {
            (
                D3D10_RESOURCE_DIMENSION_TEXTURE2D,
                DDS_RESOURCE_MISC_TEXTURECUBE,
                desc.slices / 6,
            )
        } else {
            (D3D10_RESOURCE_DIMENSION_TEXTURE2D, 0, desc.slices)
        };
        u32s(&mut out, &[id, dim, misc, array, 0]);
    }
    let slices = if volume { 1 } else { desc.slices };
    for s in 0..slices {
        for m in 0..desc.mips {
            let (w, h, d) = mip_dims(desc.width, desc.height, desc.depth, m);
            let want = desc.format.surface_size(w, h) * if volume { d as u64 } else { 1 };
            let bytes = surface(m, s)?;
            if bytes.len() as u64 != want {
                return Err(Error::malformed(format!(
                    "mip {m} slice {s} has {} bytes, but a {w}x{h}x{d} {} image needs {want}",
                    bytes.len(),
                    desc.format.name()
                )));
            }
            out.extend_from_slice(&bytes);
        }
    }
    Ok(out)
}

/// Writes texture `tex` of `cat` as a .dds, every mip and slice exactly as stored.
pub fn export(cat: &Catalog, tex: usize) -> Result<Vec<u8>> {
    let t = cat
        .textures
        .get(tex)
        .ok_or_else(|| Error::malformed(format!("no texture number {tex}")))?;
    write(&Desc::of(t), |m, s| stored(cat, tex, m, s))
}

/// The stored bytes of mip `m`, slice `s` of texture `tex` as the writers take them: a volume's
/// slice 0 holds every depth slice of the mip.
pub fn stored(cat: &Catalog, tex: usize, m: u32, s: u32) -> Result<Vec<u8>> {
    let t = cat
        .textures
        .get(tex)
        .ok_or_else(|| Error::malformed(format!("no texture number {tex}")))?;
    if t.kind == TextureKind::Volume {
        let mut all = Vec::new();
        for z in 0..t.surface_count(m as usize) {
            all.extend(cat.read_surface(tex, m as usize, z)?.0);
        }
        Ok(all)
    } else {
        Ok(cat.read_surface(tex, m as usize, s)?.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::io::BytesSource;
    use crate::{ErrorKind, OpenOptions};

    fn open_bytes(bytes: Vec<u8>) -> Catalog {
        crate::open(
            vec![BytesSource::shared("t.dds", bytes)],
            &OpenOptions::default(),
        )
    }

    fn desc(format: PixelFormat, w: u32, h: u32) -> Desc {
        Desc::plain_2d(format, w, h, 1)
    }

    fn zeros(d: &Desc) -> Vec<u8> {
        write(d, |m, _| {
            let (w, h, z) = mip_dims(d.width, d.height, d.depth, m);
            let n = d.format.surface_size(w, h)
                * if d.kind == TextureKind::Volume {
                    z as u64
                } else {
                    1
                };
            Ok(vec![0; n as usize])
        })
        .unwrap()
    }

    #[test]
    fn short_header_is_a_problem() {
        // 4 + 124 bytes make the header (Microsoft DDS reference); 100 bytes cannot hold it.
        let mut b = zeros(&desc(PixelFormat::BC1, 4, 4));
        b.truncate(100);
        let c = open_bytes(b);
        assert!(c.textures.is_empty());
        assert!(
            c.problems[0].error.contains("t.dds"),
            "{}",
            c.problems[0].error
        );
        assert!(
            c.problems[0].error.contains("ends"),
            "{}",
            c.problems[0].error
        );
    }

    #[test]
    fn hostile_size_is_refused() {
        let mut b = zeros(&desc(PixelFormat::BC1, 4, 4));
        b[12..16].copy_from_slice(&(1u32 << 31).to_le_bytes());
        b[16..20].copy_from_slice(&(1u32 << 31).to_le_bytes());
        let c = open_bytes(b);
        assert!(c.textures.is_empty());
        assert!(
            c.problems[0].error.contains("limit"),
            "{}",
            c.problems[0].error
        );
    }

    #[test]
    fn unknown_dxgi_is_listed_with_error() {
        let mut d = desc(PixelFormat::BC7, 4, 4);
        d.force_dx10 = true;
        let mut b = zeros(&d);
        b[128..132].copy_from_slice(&200u32.to_le_bytes());
        let c = open_bytes(b);
        let t = &c.textures[0];
        assert!(t.error.as_deref().unwrap().contains("DXGI_FORMAT 200"));
        assert_eq!(t.native_format, NativeFormat::Id(200));
        assert_eq!(
            c.read_surface(0, 0, 0).unwrap_err().kind,
            ErrorKind::Unsupported
        );
    }

    #[test]
    fn cut_data_marks_mips_missing() {
        // 8x8 BC1 with 4 mips: 32 + 8 + 8 + 8 bytes after the 128-byte header.
        let mut d = desc(PixelFormat::BC1, 8, 8);
        d.mips = 4;
        let mut b = zeros(&d);
        assert_eq!(b.len(), 128 + 56);
        b.truncate(128 + 40);
        let c = open_bytes(b);
        let t = &c.textures[0];
        assert_eq!(t.mips_present(), vec![true, true, false, false]);
        assert!(t.notes.iter().any(|n| n.contains("cut short")));
        let e = c.read_surface(0, 2, 0).unwrap_err();
        assert_eq!(e.kind, ErrorKind::Truncated, "{e}");
    }

    #[test]
    fn writer_refuses_formats_without_encoding() {
        let d = desc(PixelFormat::PVRTC4RGBA, 8, 8);
        assert_eq!(
            write(&d, |_, _| Ok(vec![0; 32])).unwrap_err().kind,
            ErrorKind::Unsupported
        );
    }
}
