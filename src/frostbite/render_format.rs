//! Frostbite format ordinals, per engine generation ("profile").
//!
//! The header's format word indexes an engine enum that changed between Frostbite generations. The
//! tables below hold the enum names (without their `RenderFormat_`/`TextureFormat_` prefix) as read
//! out of Frosty's per-game SDKs (shared/samples/frostbite/renderformat/*.tsv; a test checks every
//! row against those files). Seed 001's Skate table (18/20 RGBA8, 23/24 BGRA8, 54-57 BC1, 58/59 BC2,
//! 60/61 BC3, 66/67 BC7) is the 2014.4+ enum, so that profile is the default.

use crate::codec::PixelFormat;
use crate::model::NormalEncoding;

/// The profile used when none is chosen: Skate and Frostbite 2014.4+ (seed 001, notes).
pub const DEFAULT_PROFILE: &str = "2014.4";

enum Table {
    Names(&'static [&'static str]),
    /// FIFA 17 inserts four EAC formats at 76-79 into the 2014.4 enum, shifting the later ids (notes).
    Fifa17,
}

/// One engine generation's format enum.
pub struct Profile {
    /// The name to select it by (CLI `--frostbite-profile`, the page, [`crate::OpenOptions`]).
    pub name: &'static str,
    pub games: &'static str,
    /// The engine enum the ordinals index (its names carry this prefix).
    pub enum_name: &'static str,
    table: Table,
}

pub const PROFILES: &[Profile] = &[
    Profile {
        name: "2014.4",
        games: "Frostbite 2014.4 and later: Skate, Star Wars Battlefront (2015), Mirror's Edge Catalyst, Need for Speed (2015), Plants vs. Zombies GW2",
        enum_name: "RenderFormat",
        table: Table::Names(RENDER_FORMAT_2014_4),
    },
    Profile {
        name: "fifa17",
        games: "FIFA 17 (EAC formats at 76-79)",
        enum_name: "RenderFormat",
        table: Table::Fifa17,
    },
    Profile {
        name: "bf4",
        games: "Battlefield 4, Battlefield Hardline, Need for Speed Rivals, Plants vs. Zombies GW (RenderFormat)",
        enum_name: "RenderFormat",
        table: Table::Names(RENDER_FORMAT_BF4),
    },
    Profile {
        name: "bf4-textureformat",
        games: "Battlefield 4, Battlefield Hardline, Plants vs. Zombies GW (TextureFormat)",
        enum_name: "TextureFormat",
        table: Table::Names(TEXTURE_FORMAT_BF4),
    },
    Profile {
        name: "nfs14-textureformat",
        games: "Need for Speed Rivals (TextureFormat)",
        enum_name: "TextureFormat",
        table: Table::Names(TEXTURE_FORMAT_NFS14),
    },
];

/// Finds a profile by name, case-insensitively ("skate" names the default).
pub fn profile(name: &str) -> Option<&'static Profile> {
    let name = if name.eq_ignore_ascii_case("skate") {
        DEFAULT_PROFILE
    } else {
        name
    };
    PROFILES.iter().find(|p| p.name.eq_ignore_ascii_case(name))
}

/// Every profile name, comma-separated, for messages that list the valid choices.
pub fn profile_names() -> String {
    PROFILES
        .iter()
        .map(|p| p.name)
        .collect::<Vec<_>>()
        .join(", ")
}

pub fn default_profile() -> &'static Profile {
    &PROFILES[0]
}

/// What a format ordinal means under a profile.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FormatInfo {
    /// The enum name without its prefix, e.g. `BC7_SRGB`.
    pub name: &'static str,
    /// How the bytes are stored, when Texscope decodes it.
    pub format: Option<PixelFormat>,
    /// An `_SRGB` twin (the odd ordinals of the 2014.4 BCn/RGBA8 pairs).
    pub srgb: bool,
    pub normal: Option<NormalEncoding>,
}

impl Profile {
    /// The enum name of `ordinal`, without its prefix.
    pub fn ordinal_name(&self, ordinal: u32) -> Option<&'static str> {
        let i = usize::try_from(ordinal).ok()?;
        match self.table {
            Table::Names(names) => names.get(i).copied(),
            Table::Fifa17 => match i {
                0..76 => RENDER_FORMAT_2014_4.get(i).copied(),
                76..80 => EAC_FIFA17.get(i - 76).copied(),
                _ => RENDER_FORMAT_2014_4.get(i - 4).copied(),
            },
        }
    }

    pub fn format(&self, ordinal: u32) -> Option<FormatInfo> {
        let name = self.ordinal_name(ordinal)?;
        Some(FormatInfo {
            name,
            format: pixel_format(name),
            srgb: name.ends_with("_SRGB"),
            normal: (name == "NormalDXN").then_some(NormalEncoding::Rg),
        })
    }

    /// Every name of the enum in ordinal order (for the tables' test and the page's legend).
    pub fn names(&self) -> Vec<&'static str> {
        (0..)
            .map_while(|i| self.ordinal_name(i))
            .collect::<Vec<_>>()
    }
}

/// The storage of an enum name, for the formats the codecs decode. Depth, stencil, integer and
/// signed-normalised formats have no decoder and stay `None`.
fn pixel_format(name: &str) -> Option<PixelFormat> {
    use PixelFormat::*;
    if let Some(rest) = name.strip_prefix("ASTC_") {
        let dims = rest.split('_').next()?;
        let (w, h) = dims.split_once('x')?;
        return Some(ASTC {
            w: w.parse().ok()?,
            h: h.parse().ok()?,
            hdr: false,
        });
    }
    let base = name
        .strip_suffix("_UNORM")
        .or_else(|| name.strip_suffix("_SRGB"))
        .unwrap_or(name);
    Some(match base {
        "R8" => R8,
        "L8" => L8,
        "A8" => A8,
        "R8G8" | "RG8" => RG8,
        "R8G8B8" => RGB8,
        "R8G8B8A8" => RGBA8,
        // D3D9's A8R8G8B8 is B, G, R, A in memory, as DXGI's B8G8R8A8.
        "B8G8R8A8" | "ARGB8888" => BGRA8,
        // DXGI B5G6R5 and the D3D9 R5G6B5 both put red in the high bits.
        "B5G6R5" | "RGB565" => RGB565,
        "ARGB1555" => BGRA5551,
        "ARGB4444" => ARGB4444,
        "R11G11B10_FLOAT" | "R11G11B10F" => RG11B10F,
        "R10G10B10A2" => RGB10A2,
        "R9G9B9E5_FLOAT" | "R9G9B9E5F" => RGB9E5,
        "R16_FLOAT" | "R16F" => R16F,
        "R16" => R16,
        "R16G16_FLOAT" | "GR16F" => RG16F,
        "R16G16" | "GR16" => RG16,
        "R16G16B16A16_FLOAT" | "ABGR16F" => RGBA16F,
        "R16G16B16A16" | "ABGR16" => RGBA16,
        "R32_FLOAT" | "R32F" => R32F,
        "R32G32_FLOAT" | "GR32F" => RG32F,
        "R32G32B32A32_FLOAT" | "ABGR32F" => RGBA32F,
        "BC1" | "BC1A" | "DXT1" | "DXT1A" | "NormalDXT1" => BC1,
        "BC2" | "DXT3" => BC2,
        "BC3" | "DXT5" | "NormalDXT5" | "NormalDXT5RGA" => BC3,
        // DXT5A / BC3A: the alpha block of BC3 alone, which is BC4's layout.
        "BC4" | "BC3A" | "DXT5A" => BC4,
        "BC5" | "DXN" | "NormalDXN" => BC5,
        "BC6U_FLOAT" => BC6HU,
        "BC6S_FLOAT" => BC6HS,
        "BC7" => BC7,
        "ETC1" => ETC1,
        "ETC2RGB" | "ETC2_RGB" => ETC2RGB,
        "ETC2RGBA" | "ETC2_RGBA" => ETC2RGBA8,
        "ETC2RGBA1" | "ETC2_RGB_A1" => ETC2RGBA1,
        "EAC_R11" => EACR11,
        "EAC_R11_SNORM" => EACR11S,
        "EAC_RG11" => EACRG11,
        "EAC_RG11_SNORM" => EACRG11S,
        "PVRTC1_4BPP_RGBA" => PVRTC4RGBA,
        "PVRTC1_4BPP_RGB" => PVRTC4RGB,
        "PVRTC1_2BPP_RGBA" => PVRTC2RGBA,
        "PVRTC1_2BPP_RGB" => PVRTC2RGB,
        _ => return None,
    })
}

const EAC_FIFA17: &[&str] = &[
    "EAC_R11_UNORM",
    "EAC_R11_SNORM",
    "EAC_RG11_UNORM",
    "EAC_RG11_SNORM",
];

const RENDER_FORMAT_2014_4: &[&str] = &[
    "Unknown",
    "R4G4_UNORM",
    "R4G4B4A4_UNORM",
    "R5G6B5_UNORM",
    "B5G6R5_UNORM",
    "R5G5B5A1_UNORM",
    "R8_UNORM",
    "R8_SNORM",
    "R8_SRGB",
    "R8_UINT",
    "R8_SINT",
    "R8G8_UNORM",
    "R8G8_SNORM",
    "R8G8_SRGB",
    "R8G8_UINT",
    "R8G8_SINT",
    "R8G8B8_UNORM",
    "R8G8B8_SRGB",
    "R8G8B8A8_UNORM",
    "R8G8B8A8_SNORM",
    "R8G8B8A8_SRGB",
    "R8G8B8A8_UINT",
    "R8G8B8A8_SINT",
    "B8G8R8A8_UNORM",
    "B8G8R8A8_SRGB",
    "R10G11B11_FLOAT",
    "R11G11B10_FLOAT",
    "R10G10B10A2_UNORM",
    "R10G10B10A2_UINT",
    "R9G9B9E5_FLOAT",
    "R16_FLOAT",
    "R16_UNORM",
    "R16_SNORM",
    "R16_UINT",
    "R16_SINT",
    "R16G16_FLOAT",
    "R16G16_UNORM",
    "R16G16_SNORM",
    "R16G16_UINT",
    "R16G16_SINT",
    "R16G16B16A16_FLOAT",
    "R16G16B16A16_UNORM",
    "R16G16B16A16_SNORM",
    "R16G16B16A16_UINT",
    "R16G16B16A16_SINT",
    "R32_FLOAT",
    "R32_UINT",
    "R32_SINT",
    "R32G32_FLOAT",
    "R32G32_UINT",
    "R32G32_SINT",
    "R32G32B32A32_FLOAT",
    "R32G32B32A32_UINT",
    "R32G32B32A32_SINT",
    "BC1_UNORM",
    "BC1_SRGB",
    "BC1A_UNORM",
    "BC1A_SRGB",
    "BC2_UNORM",
    "BC2_SRGB",
    "BC3_UNORM",
    "BC3_SRGB",
    "BC4_UNORM",
    "BC5_UNORM",
    "BC6U_FLOAT",
    "BC6S_FLOAT",
    "BC7_UNORM",
    "BC7_SRGB",
    "ETC1_UNORM",
    "ETC1_SRGB",
    "ETC2RGB_UNORM",
    "ETC2RGB_SRGB",
    "ETC2RGBA_UNORM",
    "ETC2RGBA_SRGB",
    "ETC2RGBA1_UNORM",
    "ETC2RGBA1_SRGB",
    "PVRTC1_4BPP_RGBA_UNORM",
    "PVRTC1_4BPP_RGBA_SRGB",
    "PVRTC1_4BPP_RGB_UNORM",
    "PVRTC1_4BPP_RGB_SRGB",
    "PVRTC1_2BPP_RGBA_UNORM",
    "PVRTC1_2BPP_RGBA_SRGB",
    "PVRTC1_2BPP_RGB_UNORM",
    "PVRTC1_2BPP_RGB_SRGB",
    "PVRTC2_4BPP_UNORM",
    "PVRTC2_4BPP_SRGB",
    "PVRTC2_2BPP_UNORM",
    "PVRTC2_2BPP_SRGB",
    "ASTC_4x4_UNORM",
    "ASTC_4x4_SRGB",
    "ASTC_5x4_UNORM",
    "ASTC_5x4_SRGB",
    "ASTC_5x5_UNORM",
    "ASTC_5x5_SRGB",
    "ASTC_6x5_UNORM",
    "ASTC_6x5_SRGB",
    "ASTC_6x6_UNORM",
    "ASTC_6x6_SRGB",
    "ASTC_8x5_UNORM",
    "ASTC_8x5_SRGB",
    "ASTC_8x6_UNORM",
    "ASTC_8x6_SRGB",
    "ASTC_8x8_UNORM",
    "ASTC_8x8_SRGB",
    "ASTC_10x5_UNORM",
    "ASTC_10x5_SRGB",
    "ASTC_10x6_UNORM",
    "ASTC_10x6_SRGB",
    "ASTC_10x8_UNORM",
    "ASTC_10x8_SRGB",
    "ASTC_10x10_UNORM",
    "ASTC_10x10_SRGB",
    "ASTC_12x10_UNORM",
    "ASTC_12x10_SRGB",
    "ASTC_12x12_UNORM",
    "ASTC_12x12_SRGB",
    "D24_UNORM_S8_UINT",
    "D24_FLOAT_S8_UINT",
    "D32_FLOAT_S8_UINT",
    "D16_UNORM",
    "D24_UNORM",
    "D32_FLOAT",
];

const RENDER_FORMAT_BF4: &[&str] = &[
    "BC1_UNORM",
    "BC1A_UNORM",
    "BC2_UNORM",
    "BC3_UNORM",
    "BC3A_UNORM",
    "DXN",
    "BC7_UNORM",
    "RGB565",
    "RGB888",
    "ARGB1555",
    "ARGB4444",
    "ARGB8888",
    "L8",
    "L16",
    "ABGR16",
    "ABGR16F",
    "ABGR32F",
    "R16F",
    "R32F",
    "NormalDXN",
    "NormalDXT1",
    "NormalDXT5",
    "NormalDXT5RGA",
    "RG8",
    "GR16",
    "GR16F",
    "D16",
    "D24",
    "D24S8",
    "D24FS8",
    "D32F",
    "D32FS8",
    "S8",
    "ABGR32",
    "GR32F",
    "A2R10G10B10",
    "R11G11B10F",
    "ABGR16_SNORM",
    "ABGR16_UINT",
    "L16_UINT",
    "L32",
    "GR16_UINT",
    "GR32_UINT",
    "ETC1",
    "ETC2_RGB",
    "ETC2_RGBA",
    "ETC2_RGB_A1",
    "PVRTC1_4BPP_RGBA",
    "PVRTC1_4BPP_RGB",
    "PVRTC1_2BPP_RGBA",
    "PVRTC1_2BPP_RGB",
    "PVRTC2_4BPP",
    "PVRTC2_2BPP",
    "R8",
    "R9G9B9E5F",
    "Unknown",
];

const TEXTURE_FORMAT_BF4: &[&str] = &[
    "DXT1",
    "DXT1A",
    "DXT3",
    "DXT5",
    "DXT5A",
    "DXN",
    "BC7",
    "RGB565",
    "RGB888",
    "ARGB1555",
    "ARGB4444",
    "ARGB8888",
    "L8",
    "L16",
    "ABGR16",
    "ABGR16F",
    "ABGR32F",
    "R16F",
    "R32F",
    "NormalDXN",
    "NormalDXT1",
    "NormalDXT5",
    "NormalDXT5RGA",
    "RG8",
    "GR16",
    "GR16F",
    "D16",
    "D24S8",
    "D24FS8",
    "D32F",
    "D32FS8",
    "S8",
    "ABGR32",
    "GR32F",
    "A2R10G10B10",
    "R11G11B10F",
    "ABGR16_SNORM",
    "ABGR16_UINT",
    "L16_UINT",
    "L32",
    "GR16_UINT",
    "GR32_UINT",
    "R9G9B9E5F",
    "Unknown",
];

const TEXTURE_FORMAT_NFS14: &[&str] = &[
    "DXT1",
    "DXT1A",
    "DXT3",
    "DXT5",
    "DXT5A",
    "DXN",
    "BC7",
    "RGB565",
    "RGB888",
    "ARGB1555",
    "ARGB4444",
    "ARGB8888",
    "L8",
    "L16",
    "ABGR16",
    "ABGR16F",
    "ABGR32F",
    "R16F",
    "R32F",
    "NormalDXN",
    "NormalDXT1",
    "NormalDXT5",
    "NormalDXT5RGA",
    "RG8",
    "GB8",
    "GR16",
    "GR16F",
    "D16",
    "D24S8",
    "D24FS8",
    "D32F",
    "D32FS8",
    "S8",
    "ABGR32",
    "GR32F",
    "A2R10G10B10",
    "R11G11B10F",
    "ABGR16_SNORM",
    "ABGR16_UINT",
    "A8",
    "L16_UINT",
    "L32",
    "GR16_UINT",
    "GR32_UINT",
    "Unknown",
];
