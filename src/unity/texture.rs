//! Texture2D (class 28) and Cubemap (class 89) objects: fields, TextureFormat table, mip chain
//! and where every level's bytes live (inline image data, a .resS inside the bundle, or a loose
//! .resS / .resource file).

use super::serialized::{self, SerializedFile};
use super::typetree::{read_object, Value};
use super::{layout, Found};
use crate::codec::tiling::{self, Tiling};
use crate::codec::PixelFormat;
use crate::io::{Error, Result};
use crate::model::{
    mip_dims, ColorSpace, Engine, Layout, Mip, NativeFormat, NormalEncoding, Platform, RowOrder,
    SourceId, Storage, Texture, TextureKind,
};
use crate::{base_name, FileProblem, OpenContext};

pub const CLASS_TEXTURE2D: i32 = 28;
pub const CLASS_CUBEMAP: i32 = 89;
pub const CLASS_ASSETBUNDLE: i32 = 142;
pub const CLASS_TEXTURE3D: i32 = 117;
pub const CLASS_TEXTURE2DARRAY: i32 = 187;
pub const CLASS_CUBEMAPARRAY: i32 = 188;

/// Texture3D, Texture2DArray and CubemapArray store `m_Format` as a GraphicsFormat, not a
/// TextureFormat. Ids and names are Unity's GraphicsFormat enum (UnityEngine.Experimental.Rendering;
/// the same numbers as UnityPy's enums/GraphicsFormat.py and the kFormat* list of Unity's
/// UnityGraphicsFormat.h): the formats this viewer decodes (8/16-bit, half and float colour,
/// packed HDR, BC, PVRTC, ETC/EAC, LDR ASTC). The bool says the format stores sRGB-encoded colour.
pub fn graphics_format(id: i64) -> Option<(PixelFormat, &'static str, bool)> {
    use PixelFormat as P;
    let astc = |w: u8| P::ASTC {
        w,
        h: w,
        hdr: false,
    };
    Some(match id {
        1 => (P::R8, "R8_SRGB", true),
        2 => (P::RG8, "R8G8_SRGB", true),
        3 => (P::RGB8, "R8G8B8_SRGB", true),
        4 => (P::RGBA8, "R8G8B8A8_SRGB", true),
        5 => (P::R8, "R8_UNorm", false),
        6 => (P::RG8, "R8G8_UNorm", false),
        7 => (P::RGB8, "R8G8B8_UNorm", false),
        8 => (P::RGBA8, "R8G8B8A8_UNorm", false),
        21 => (P::R16, "R16_UNorm", false),
        22 => (P::RG16, "R16G16_UNorm", false),
        24 => (P::RGBA16, "R16G16B16A16_UNorm", false),
        45 => (P::R16F, "R16_SFloat", false),
        46 => (P::RG16F, "R16G16_SFloat", false),
        48 => (P::RGBA16F, "R16G16B16A16_SFloat", false),
        49 => (P::R32F, "R32_SFloat", false),
        50 => (P::RG32F, "R32G32_SFloat", false),
        51 => (P::RGB32F, "R32G32B32_SFloat", false),
        52 => (P::RGBA32F, "R32G32B32A32_SFloat", false),
        56 => (P::BGR8, "B8G8R8_SRGB", true),
        57 => (P::BGRA8, "B8G8R8A8_SRGB", true),
        58 => (P::BGR8, "B8G8R8_UNorm", false),
        59 => (P::BGRA8, "B8G8R8A8_UNorm", false),
        // Shared exponent in the top 5 bits, R in the low 9 (as TextureFormat RGB9e5Float).
        73 => (P::RGB9E5, "E5B9G9R9_UFloatPack32", false),
        // R in the low 11 bits: the same packing as DXGI R11G11B10_FLOAT.
        74 => (P::RG11B10F, "B10G11R11_UFloatPack32", false),
        96 => (P::BC1, "RGBA_DXT1_SRGB", true),
        97 => (P::BC1, "RGBA_DXT1_UNorm", false),
        98 => (P::BC2, "RGBA_DXT3_SRGB", true),
        99 => (P::BC2, "RGBA_DXT3_UNorm", false),
        100 => (P::BC3, "RGBA_DXT5_SRGB", true),
        101 => (P::BC3, "RGBA_DXT5_UNorm", false),
        102 => (P::BC4, "R_BC4_UNorm", false),
        103 => (P::BC4S, "R_BC4_SNorm", false),
        104 => (P::BC5, "RG_BC5_UNorm", false),
        105 => (P::BC5S, "RG_BC5_SNorm", false),
        106 => (P::BC6HU, "RGB_BC6H_UFloat", false),
        107 => (P::BC6HS, "RGB_BC6H_SFloat", false),
        108 => (P::BC7, "RGBA_BC7_SRGB", true),
        109 => (P::BC7, "RGBA_BC7_UNorm", false),
        110 => (P::PVRTC2RGB, "RGB_PVRTC_2Bpp_SRGB", true),
        111 => (P::PVRTC2RGB, "RGB_PVRTC_2Bpp_UNorm", false),
        112 => (P::PVRTC4RGB, "RGB_PVRTC_4Bpp_SRGB", true),
        113 => (P::PVRTC4RGB, "RGB_PVRTC_4Bpp_UNorm", false),
        114 => (P::PVRTC2RGBA, "RGBA_PVRTC_2Bpp_SRGB", true),
        115 => (P::PVRTC2RGBA, "RGBA_PVRTC_2Bpp_UNorm", false),
        116 => (P::PVRTC4RGBA, "RGBA_PVRTC_4Bpp_SRGB", true),
        117 => (P::PVRTC4RGBA, "RGBA_PVRTC_4Bpp_UNorm", false),
        118 => (P::ETC1, "RGB_ETC_UNorm", false),
        119 => (P::ETC2RGB, "RGB_ETC2_SRGB", true),
        120 => (P::ETC2RGB, "RGB_ETC2_UNorm", false),
        121 => (P::ETC2RGBA1, "RGB_A1_ETC2_SRGB", true),
        122 => (P::ETC2RGBA1, "RGB_A1_ETC2_UNorm", false),
        123 => (P::ETC2RGBA8, "RGBA_ETC2_SRGB", true),
        124 => (P::ETC2RGBA8, "RGBA_ETC2_UNorm", false),
        125 => (P::EACR11, "R_EAC_UNorm", false),
        126 => (P::EACR11S, "R_EAC_SNorm", false),
        127 => (P::EACRG11, "RG_EAC_UNorm", false),
        128 => (P::EACRG11S, "RG_EAC_SNorm", false),
        // 129-140: ASTC 4x4, 5x5, 6x6, 8x8, 10x10, 12x12, each sRGB then UNorm.
        129 => (astc(4), "RGBA_ASTC4X4_SRGB", true),
        130 => (astc(4), "RGBA_ASTC4X4_UNorm", false),
        131 => (astc(5), "RGBA_ASTC5X5_SRGB", true),
        132 => (astc(5), "RGBA_ASTC5X5_UNorm", false),
        133 => (astc(6), "RGBA_ASTC6X6_SRGB", true),
        134 => (astc(6), "RGBA_ASTC6X6_UNorm", false),
        135 => (astc(8), "RGBA_ASTC8X8_SRGB", true),
        136 => (astc(8), "RGBA_ASTC8X8_UNorm", false),
        137 => (astc(10), "RGBA_ASTC10X10_SRGB", true),
        138 => (astc(10), "RGBA_ASTC10X10_UNorm", false),
        139 => (astc(12), "RGBA_ASTC12X12_SRGB", true),
        140 => (astc(12), "RGBA_ASTC12X12_UNorm", false),
        _ => return None,
    })
}

/// What a Unity TextureFormat id is: the block format, Unity's name, and whether it is crunched.
/// Ids and names are Unity's TextureFormat enum (Unity scripting reference, as seed 004 cites).
pub fn texture_format(id: i64) -> Option<(PixelFormat, &'static str, bool)> {
    use PixelFormat as P;
    let astc = |w: u8, hdr: bool| P::ASTC { w, h: w, hdr };
    Some(match id {
        1 => (P::A8, "Alpha8", false),
        2 => (P::ARGB4444, "ARGB4444", false),
        3 => (P::RGB8, "RGB24", false),
        4 => (P::RGBA8, "RGBA32", false),
        5 => (P::ARGB8, "ARGB32", false),
        7 => (P::RGB565, "RGB565", false),
        9 => (P::R16, "R16", false),
        10 => (P::BC1, "DXT1", false),
        12 => (P::BC3, "DXT5", false),
        13 => (P::RGBA4444, "RGBA4444", false),
        14 => (P::BGRA8, "BGRA32", false),
        15 => (P::R16F, "RHalf", false),
        16 => (P::RG16F, "RGHalf", false),
        17 => (P::RGBA16F, "RGBAHalf", false),
        18 => (P::R32F, "RFloat", false),
        19 => (P::RG32F, "RGFloat", false),
        20 => (P::RGBA32F, "RGBAFloat", false),
        21 => (P::YUY2, "YUY2", false),
        22 => (P::RGB9E5, "RGB9e5Float", false),
        // Unsigned: seed 004 "BC6H holds unsigned half floats".
        24 => (P::BC6HU, "BC6H", false),
        25 => (P::BC7, "BC7", false),
        26 => (P::BC4, "BC4", false),
        27 => (P::BC5, "BC5", false),
        28 => (P::BC1, "DXT1Crunched", true),
        29 => (P::BC3, "DXT5Crunched", true),
        30 => (P::PVRTC2RGB, "PVRTC_RGB2", false),
        31 => (P::PVRTC2RGBA, "PVRTC_RGBA2", false),
        32 => (P::PVRTC4RGB, "PVRTC_RGB4", false),
        33 => (P::PVRTC4RGBA, "PVRTC_RGBA4", false),
        34 => (P::ETC1, "ETC_RGB4", false),
        35 => (P::ATCRGB, "ATC_RGB4", false),
        36 => (P::ATCRGBAInterpolated, "ATC_RGBA8", false),
        41 => (P::EACR11, "EAC_R", false),
        42 => (P::EACR11S, "EAC_R_SIGNED", false),
        43 => (P::EACRG11, "EAC_RG", false),
        44 => (P::EACRG11S, "EAC_RG_SIGNED", false),
        45 => (P::ETC2RGB, "ETC2_RGB", false),
        46 => (P::ETC2RGBA1, "ETC2_RGBA1", false),
        47 => (P::ETC2RGBA8, "ETC2_RGBA8", false),
        48 => (astc(4, false), "ASTC_4x4", false),
        49 => (astc(5, false), "ASTC_5x5", false),
        50 => (astc(6, false), "ASTC_6x6", false),
        51 => (astc(8, false), "ASTC_8x8", false),
        52 => (astc(10, false), "ASTC_10x10", false),
        53 => (astc(12, false), "ASTC_12x12", false),
        // Deprecated RGBA names of the same block formats (alpha is always stored in ASTC).
        54 => (astc(4, false), "ASTC_RGBA_4x4", false),
        55 => (astc(5, false), "ASTC_RGBA_5x5", false),
        56 => (astc(6, false), "ASTC_RGBA_6x6", false),
        57 => (astc(8, false), "ASTC_RGBA_8x8", false),
        58 => (astc(10, false), "ASTC_RGBA_10x10", false),
        59 => (astc(12, false), "ASTC_RGBA_12x12", false),
        // Unity's RG16 is two 8-bit channels.
        62 => (P::RG8, "RG16", false),
        63 => (P::R8, "R8", false),
        64 => (P::ETC1, "ETC_RGB4Crunched", true),
        65 => (P::ETC2RGBA8, "ETC2_RGBA8Crunched", true),
        66 => (astc(4, true), "ASTC_HDR_4x4", false),
        67 => (astc(5, true), "ASTC_HDR_5x5", false),
        68 => (astc(6, true), "ASTC_HDR_6x6", false),
        69 => (astc(8, true), "ASTC_HDR_8x8", false),
        70 => (astc(10, true), "ASTC_HDR_10x10", false),
        71 => (astc(12, true), "ASTC_HDR_12x12", false),
        72 => (P::RG16, "RG32", false),
        74 => (P::RGBA16, "RGBA64", false),
        _ => return None,
    })
}

/// Unity's BuildTarget numbers for the info panel (the common ones; others print as numbers).
fn platform_name(p: i32) -> String {
    let n = match p {
        -2 => "NoTarget (editor)",
        2 => "StandaloneOSX",
        5 => "StandaloneWindows",
        9 => "iOS",
        13 => "Android",
        19 => "StandaloneWindows64",
        20 => "WebGL",
        24 => "StandaloneLinux64",
        31 => "PS4",
        33 => "XboxOne",
        38 => "Switch",
        _ => return p.to_string(),
    };
    format!("{n} ({p})")
}

/// Unity's BuildTarget for Nintendo Switch (UnityPy's enums/BuildTarget.py: Switch = 38).
const BUILD_TARGET_SWITCH: i32 = 38;

/// The console a file was built for, where it decides the surface layout (BuildTarget numbers as
/// in UnityPy's enums/BuildTarget.py: PS4 = 31, Switch = 38, PS5 = 44). Other targets are linear.
fn console(build_target: i32) -> Option<Platform> {
    match build_target {
        31 => Some(Platform::Ps4),
        BUILD_TARGET_SWITCH => Some(Platform::Switch),
        44 => Some(Platform::Ps5),
        _ => None,
    }
}

/// Largest `m_PlatformBlob` read: Unity 6's Switch blob is 92 bytes; anything far larger is not
/// a layout record and is refused before it is read.
#[cfg(feature = "tiling-switch")]
const MAX_PLATFORM_BLOB: u64 = 4096;

/// What a Switch texture's `m_PlatformBlob` states. The fields, as UnityPy 1.25.4's
/// helpers/TextureSwizzler.py reads them and the shared Foxiary files confirm: bytes 8..12 are
/// log2 of the GOBs per block (4: a block height of 16); the 92-byte blob of Unity 6 ends with
/// the padded surface size at bytes 84..88 (1048576 for a 1024x1024 ASTC 4x4 atlas).
#[cfg(feature = "tiling-switch")]
struct SwitchBlob {
    /// GOBs per block, 1 to 32.
    block_height: u32,
    /// The padded size in bytes, where the blob is long enough to hold it.
    padded: Option<u64>,
}

/// Where `m_PlatformBlob`'s bytes are (offset, length), when it has any.
fn blob_range(v: &Value) -> Option<(u64, u64)> {
    // `vector m_PlatformBlob { Array { size, UInt8 data } }`: the reader keeps the byte array as
    // a range under the vector's one child.
    let blob = v.get("m_PlatformBlob").map(|b| match b {
        Value::Struct(f) if f.len() == 1 => &f[0].1,
        other => other,
    });
    match blob {
        Some(&Value::Bytes { offset, len }) if len > 0 => Some((offset, len)),
        _ => None,
    }
}

/// Reads `m_PlatformBlob` (None: absent or empty, the texture is linear).
#[cfg(feature = "tiling-switch")]
fn switch_blob(ctx: &OpenContext, f: &Found, v: &Value) -> Result<Option<SwitchBlob>> {
    let Some((offset, len)) = blob_range(v) else {
        return Ok(None);
    };
    let field = |e: Error| e.at_field("m_PlatformBlob");
    if len > MAX_PLATFORM_BLOB {
        return Err(field(Error::malformed(format!(
            "{len} bytes, more than the {MAX_PLATFORM_BLOB} a Switch layout record can be"
        ))));
    }
    if len < 12 {
        return Err(field(Error::malformed(format!(
            "{len} bytes, too short to state a block height (bytes 8..12)"
        ))));
    }
    let b = crate::io::read_range(ctx.sources[f.source].as_ref(), offset, len, &ctx.limits)?;
    let u32_at = |i: usize| u32::from_le_bytes([b[i], b[i + 1], b[i + 2], b[i + 3]]);
    let log2 = u32_at(8);
    if log2 > 5 {
        return Err(field(Error::malformed(format!(
            "block height 2^{log2} GOBs (bytes 8..12 = {log2}); the Switch GPU has 1 to 32"
        ))));
    }
    Ok(Some(SwitchBlob {
        block_height: 1 << log2,
        padded: (b.len() >= 88).then(|| u32_at(84) as u64),
    }))
}

/// The layout of one texture of a Switch build: the tiling and the format its data is stored in.
struct SwitchLayout {
    tiling: Tiling,
    format: PixelFormat,
    padded: Option<u64>,
}

/// The first wasm module leaves the untiler out (feature `tiling-switch`): a texture with a blob
/// is `NotInBuild` there, and the page reopens the files in the full module.
#[cfg(not(feature = "tiling-switch"))]
fn switch_layout(_: &OpenContext, _: &Found, v: &Value, tex: &mut Texture) -> Result<SwitchLayout> {
    if blob_range(v).is_some() {
        return Err(Error::not_in_build(
            "a Switch block-linear texture",
            "tiling-switch",
        ));
    }
    Ok(SwitchLayout {
        tiling: Tiling::Linear,
        format: tex.format,
        padded: None,
    })
}

/// Decides how a Switch (38) texture is stored from its `m_PlatformBlob`.
#[cfg(feature = "tiling-switch")]
fn switch_layout(
    ctx: &OpenContext,
    f: &Found,
    v: &Value,
    tex: &mut Texture,
) -> Result<SwitchLayout> {
    let mut out = SwitchLayout {
        tiling: Tiling::Linear,
        format: tex.format,
        padded: None,
    };
    let Some(blob) = switch_blob(ctx, f, v)? else {
        return Ok(out);
    };
    tex.add_meta(
        "m_PlatformBlob",
        format!(
            "block height {}{}",
            blob.block_height,
            blob.padded
                .map(|p| format!(", padded size {p}"))
                .unwrap_or_default()
        ),
    );
    // A block height of 1 is still block-linear (one GOB per block: 64-byte x 8-row GOBs left
    // to right, then down), though UnityPy 1.25.4 reads it as linear (is_switch_swizzled:
    // gobs_per_block > 1); where the data is only the linear size, the callers take it linear
    // (`ONE_GOB`).
    out.tiling = Tiling::BlockLinear {
        block_height: blob.block_height,
    };
    out.padded = blob.padded;
    // A swizzled RGB24 / BGR24 is stored with four bytes a texel (UnityPy's parse_image_data reads
    // them as RGBA32 / BGRA32 before untiling): the GPU has no 3-byte texel format.
    out.format = match tex.format {
        PixelFormat::RGB8 => PixelFormat::RGBA8,
        PixelFormat::BGR8 => PixelFormat::BGRA8,
        f => f,
    };
    Ok(out)
}

/// The tiling a blob of one GOB per block states. It is block-linear (a block is a single GOB of
/// 64 bytes x 8 rows), and only the data's length tells it from the linear reading UnityPy 1.25.4
/// takes (`is_switch_swizzled`: gobs_per_block > 1). Where both sizes are the data's (rows that
/// already fill whole GOBs) the blob decides: block-linear.
const ONE_GOB: Tiling = Tiling::BlockLinear { block_height: 1 };

/// The note of a texture whose blob states one GOB per block but whose data is the linear size.
fn one_gob_linear_note(tiled: u64, data_len: u64) -> String {
    format!(
        "m_PlatformBlob states a block height of 1 GOB, but the data's {data_len} bytes are the linear size, not the {tiled} of the block-linear layout: read as linear"
    )
}

/// The error of a texture whose blob states one GOB per block and whose data fits neither layout.
fn one_gob_error(what: &str, tiled: u64, linear: u64, data_len: u64) -> String {
    format!(
        "m_PlatformBlob states a block height of 1 GOB (2^0), but the data holds {data_len} bytes: {what} takes {tiled} bytes block-linear with that block height and {linear} linear"
    )
}

/// Says why a Switch texture's format is not the one its TextureFormat names.
fn note_stored_as(tex: &mut Texture, stated: PixelFormat) {
    if tex.format != stated {
        tex.notes.push(format!(
            "stored as {} on Switch (a tiled surface has 4 bytes a texel)",
            tex.format.name()
        ));
    }
}

/// The first wasm module does not guess (no untiler there).
#[cfg(not(feature = "tiling-switch"))]
fn switch_guess(
    _: &OpenContext,
    _: PixelFormat,
    _: &[(u32, u32)],
    _: u32,
    _: u64,
) -> Option<std::result::Result<Tiling, String>> {
    None
}

/// When a Switch texture without a blob does not fit its linear size but does fit the
/// block-linear one (a driver's default block height): the user's platform choice decides, and
/// without it the texture names the setting rather than paint the tiled bytes as noise.
#[cfg(feature = "tiling-switch")]
fn switch_guess(
    ctx: &OpenContext,
    format: PixelFormat,
    dims: &[(u32, u32)],
    images: u32,
    data_len: u64,
) -> Option<std::result::Result<Tiling, String>> {
    let &(w, h) = dims.first()?;
    let rows = (h as u64).div_ceil(format.block().height as u64);
    let guess = Tiling::BlockLinear {
        block_height: tiling::block_linear::default_block_height(rows),
    };
    let mut chain = 0u64;
    for (level, &(mw, mh)) in dims.iter().enumerate() {
        chain =
            chain.checked_add(tiling::stored_size(guess, format, level as u32, mw, mh).ok()?)?;
    }
    let stride = image_stride(guess, format, w, h, images, chain).ok()?;
    if stride.checked_mul(images as u64)? != data_len {
        return None;
    }
    Some(if ctx.platform == Some(Platform::Switch) {
        Ok(guess)
    } else {
        Err(format!(
            "its {data_len} bytes are the size of a {w}x{h} Switch block-linear surface, not of a linear one, and no m_PlatformBlob says its layout: choose the platform Switch (--platform switch, or the page's Platform menu) to untile it"
        ))
    })
}

/// The version a file's objects were written by: its own header, else its bundle's.
fn effective_version(sf: &SerializedFile, f: &Found) -> Option<String> {
    let own = sf.unity_version.trim();
    if !own.is_empty() && !own.starts_with("0.0") {
        return Some(own.to_string());
    }
    f.bundle_version.clone()
}

/// Lists the textures of one serialized file into `ctx`.
pub fn list(ctx: &mut OpenContext, f: &Found, used: &mut [bool]) {
    let src = ctx.sources[f.source].clone();
    let sf = match serialized::parse(src.as_ref(), &ctx.limits) {
        Ok(sf) => sf,
        Err(e) => {
            let e = e.at_field(&format!("serialized file {}", f.name));
            ctx.problems.push(FileProblem::new(
                &f.file,
                Some(Engine::Unity),
                &e.in_file(&f.file),
            ));
            return;
        }
    };
    let version = effective_version(&sf, f);
    let containers = container_paths(ctx, f, &sf);
    for o in &sf.objects {
        let layered = matches!(
            o.class_id,
            CLASS_TEXTURE3D | CLASS_TEXTURE2DARRAY | CLASS_CUBEMAPARRAY
        );
        if o.class_id != CLASS_TEXTURE2D && o.class_id != CLASS_CUBEMAP && !layered {
            continue;
        }
        let res = object_fields(ctx, f, &sf, o, version.as_deref()).and_then(|v| {
            let b = if layered { build_layered } else { build };
            b(
                ctx,
                f,
                &sf,
                o.path_id,
                o.class_id,
                &v,
                version.as_deref(),
                used,
            )
        });
        match res {
            Ok(mut t) => {
                if let Some(p) = containers.iter().find(|(id, _)| *id == o.path_id) {
                    t.metadata
                        .insert(0, (crate::export::UNITY_CONTAINER_PATH.into(), p.1.clone()));
                }
                ctx.textures.push(t);
            }
            Err(e) => {
                let e = e
                    .at_field(&format!("{} path id {}", f.name, o.path_id))
                    .in_file(&f.file);
                ctx.problems
                    .push(FileProblem::new(&f.file, Some(Engine::Unity), &e));
            }
        }
    }
}

/// The object's fields, through its type tree when the file has one, else the layout table.
fn object_fields(
    ctx: &OpenContext,
    f: &Found,
    sf: &SerializedFile,
    o: &serialized::ObjectInfo,
    version: Option<&str>,
) -> Result<Value> {
    let src = ctx.sources[f.source].clone();
    let tree = o
        .type_index
        .and_then(|t| sf.types.get(t))
        .filter(|t| !t.nodes.is_empty());
    let owned;
    let nodes = match tree {
        Some(t) => &t.nodes,
        None => {
            let v = version.ok_or_else(|| {
                Error::unsupported(
                    "this file has no type tree and does not say its Unity version; open it with the bundle or the game's other data files",
                )
            })?;
            owned = layout::texture_nodes(o.class_id, v)?;
            &owned
        }
    };
    read_object(
        src.as_ref(),
        o.offset,
        o.size,
        sf.endian,
        nodes,
        &ctx.limits,
    )
}

/// `m_Container` of the file's AssetBundle object: asset path per object path id.
fn container_paths(ctx: &OpenContext, f: &Found, sf: &SerializedFile) -> Vec<(i64, String)> {
    let mut out = Vec::new();
    let src = ctx.sources[f.source].clone();
    for o in sf
        .objects
        .iter()
        .filter(|o| o.class_id == CLASS_ASSETBUNDLE)
    {
        let Some(t) = o.type_index.and_then(|t| sf.types.get(t)) else {
            continue;
        };
        if t.nodes.is_empty() {
            continue;
        }
        let Ok(v) = read_object(
            src.as_ref(),
            o.offset,
            o.size,
            sf.endian,
            &t.nodes,
            &ctx.limits,
        ) else {
            continue;
        };
        let Some(c) = v.get("m_Container") else {
            continue;
        };
        // An object of this file a PPtr points at.
        let local = |p: Option<&Value>| {
            let p = p?;
            let file = p.get("m_FileID").and_then(Value::as_i64)?;
            let id = p.get("m_PathID").and_then(Value::as_i64)?;
            (file == 0).then_some(id)
        };
        let preload = v.get("m_PreloadTable").map(Value::elements).unwrap_or(&[]);
        let mut set = |id: i64, p: &str| match out.iter_mut().find(|(i, _)| *i == id) {
            Some(e) => e.1 = p.to_string(),
            None => out.push((id, p.to_string())),
        };
        for pair in c.elements() {
            let Some(p) = pair.get("first").and_then(Value::as_str) else {
                continue;
            };
            // The objects the asset loads with it (a prefab's textures, an atlas's pages) take
            // its path too, as UnityPy gives them: m_PreloadTable[preloadIndex..+preloadSize].
            let from = int(pair, "second.preloadIndex").unwrap_or(0).max(0) as usize;
            let n = int(pair, "second.preloadSize").unwrap_or(0).max(0) as usize;
            for d in preload.iter().skip(from).take(n) {
                if let Some(id) = local(Some(d)) {
                    set(id, p);
                }
            }
            if let Some(id) = local(pair.path("second.asset")) {
                set(id, p);
            }
        }
    }
    out
}

fn int(v: &Value, path: &str) -> Option<i64> {
    v.path(path).and_then(Value::as_i64)
}

/// The fields of a Texture2D / Cubemap that the catalog needs, by Unity's names.
#[derive(Debug, Clone, PartialEq)]
pub struct TexFields {
    pub m_name: String,
    pub m_width: i64,
    pub m_height: i64,
    pub m_complete_image_size: Option<i64>,
    pub m_texture_format: i64,
    pub m_mip_count: i64,
    pub m_image_count: i64,
    pub m_color_space: Option<i64>,
    pub m_lightmap_format: Option<i64>,
    pub m_filter_mode: Option<i64>,
    pub m_aniso: Option<i64>,
    pub m_mip_bias: Option<f64>,
    pub m_wrap_u: Option<i64>,
    pub m_wrap_v: Option<i64>,
    pub m_is_readable: Option<bool>,
    pub m_streaming_mipmaps: Option<bool>,
    pub m_streaming_mipmaps_priority: Option<i64>,
    pub m_mips_stripped: Option<i64>,
    /// `image data`: absolute offset in the serialized file and length.
    pub image_data: (u64, u64),
    /// `m_StreamData`: offset, size, path.
    pub m_stream_data: Option<(u64, u64, String)>,
}

/// `image data`: absolute offset and length of the inline pixels (0, 0 when there are none).
fn image_data(v: &Value) -> (u64, u64) {
    match v.get("image data") {
        Some(Value::Bytes { offset, len }) => (*offset, *len),
        _ => (0, 0),
    }
}

/// `m_StreamData`: offset, size and path of pixels kept in a .resS / .resource file.
fn stream_data(v: &Value) -> Option<(u64, u64, String)> {
    v.get("m_StreamData").and_then(|s| {
        let off = int(s, "offset")? as u64;
        let size = int(s, "size")? as u64;
        let path = s.get("path").and_then(Value::as_str)?.to_string();
        (size > 0 && !path.is_empty()).then_some((off, size, path))
    })
}

pub fn fields(v: &Value) -> Result<TexFields> {
    let need =
        |p: &str| int(v, p).ok_or_else(|| Error::malformed(format!("the object has no {p}")));
    let (w, h) = (need("m_Width")?, need("m_Height")?);
    let mip_count = match int(v, "m_MipCount") {
        Some(n) => n,
        // Before 5.2 a bool said whether the full chain is there.
        None => match v.get("m_MipMap") {
            Some(Value::Bool(true)) => 64 - (w.max(h).max(1) as u64).leading_zeros() as i64,
            _ => 1,
        },
    };
    let image_data = image_data(v);
    let stream = stream_data(v);
    let b = |p: &str| v.path(p).map(|x| matches!(x, Value::Bool(true)));
    Ok(TexFields {
        m_name: v
            .get("m_Name")
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_string(),
        m_width: w,
        m_height: h,
        m_complete_image_size: int(v, "m_CompleteImageSize"),
        m_texture_format: need("m_TextureFormat")?,
        m_mip_count: mip_count,
        m_image_count: int(v, "m_ImageCount").unwrap_or(1),
        m_color_space: int(v, "m_ColorSpace"),
        m_lightmap_format: int(v, "m_LightmapFormat"),
        m_filter_mode: int(v, "m_TextureSettings.m_FilterMode"),
        m_aniso: int(v, "m_TextureSettings.m_Aniso"),
        m_mip_bias: v
            .path("m_TextureSettings.m_MipBias")
            .and_then(Value::as_f64),
        m_wrap_u: int(v, "m_TextureSettings.m_WrapU")
            .or_else(|| int(v, "m_TextureSettings.m_WrapMode")),
        m_wrap_v: int(v, "m_TextureSettings.m_WrapV")
            .or_else(|| int(v, "m_TextureSettings.m_WrapMode")),
        m_is_readable: b("m_IsReadable"),
        m_streaming_mipmaps: b("m_StreamingMipmaps"),
        m_streaming_mipmaps_priority: int(v, "m_StreamingMipmapsPriority"),
        m_mips_stripped: int(v, "m_MipsStripped"),
        image_data,
        m_stream_data: stream,
    })
}

/// Where the pixel bytes of the whole object live.
fn data_storage(
    ctx: &OpenContext,
    f: &Found,
    image_data: (u64, u64),
    stream_data: &Option<(u64, u64, String)>,
    used: &mut [bool],
) -> Result<(Storage, String)> {
    let Some((off, size, path)) = stream_data else {
        let (o, l) = image_data;
        return Ok((
            Storage::Range {
                source: f.source,
                offset: o,
                length: l,
            },
            format!("inline, {l} bytes"),
        ));
    };
    let base = base_name(path);
    let id: Option<SourceId> = f
        .siblings
        .iter()
        .find(|(n, _)| n.eq_ignore_ascii_case(base))
        .map(|(_, id)| *id)
        .or_else(|| {
            let i = super::find_sibling(ctx, &f.file, base)?;
            if let Some(u) = used.get_mut(i) {
                *u = true;
            }
            Some(i)
        });
    let note = format!("{path} @{off} +{size}");
    let Some(id) = id else {
        return Ok((
            Storage::Missing {
                file: base.to_string(),
                length: *size,
            },
            note,
        ));
    };
    let len = ctx.sources[id].len();
    if off.checked_add(*size).is_none_or(|e| e > len) {
        return Err(Error::malformed(format!(
            "m_StreamData says {size} bytes at {off} of {base}, which holds {len}: is it the {base} of this build?"
        ))
        .at_field("m_StreamData"));
    }
    Ok((
        Storage::Range {
            source: id,
            offset: *off,
            length: *size,
        },
        note,
    ))
}

fn describe(table: &[&str], v: Option<i64>) -> Option<String> {
    let v = v?;
    Some(match usize::try_from(v).ok().and_then(|i| table.get(i)) {
        Some(n) => format!("{n} ({v})"),
        None => v.to_string(),
    })
}

#[allow(clippy::too_many_arguments)]
fn build(
    ctx: &OpenContext,
    f: &Found,
    sf: &SerializedFile,
    path_id: i64,
    class_id: i32,
    v: &Value,
    version: Option<&str>,
    used: &mut [bool],
) -> Result<Texture> {
    let t = fields(v)?;
    let (format, fmt_name, crunched) = texture_format(t.m_texture_format).ok_or_else(|| {
        Error::unsupported(format!(
            "{}: TextureFormat {} is not one this viewer knows",
            t.m_name, t.m_texture_format
        ))
        .at_field("m_TextureFormat")
    })?;
    let (w, h) = (
        u32::try_from(t.m_width).map_err(|_| Error::malformed(format!("m_Width {}", t.m_width)))?,
        u32::try_from(t.m_height)
            .map_err(|_| Error::malformed(format!("m_Height {}", t.m_height)))?,
    );
    ctx.limits.check_dims(w, h, 1)?;
    let mips_n = u32::try_from(t.m_mip_count)
        .ok()
        .filter(|&n| n <= ctx.limits.max_mips)
        .ok_or_else(|| Error::malformed(format!("m_MipCount {}", t.m_mip_count)))?;
    let images = u32::try_from(t.m_image_count)
        .ok()
        .filter(|&n| n <= ctx.limits.max_slices)
        .ok_or_else(|| Error::malformed(format!("m_ImageCount {}", t.m_image_count)))?;
    let cube = class_id == CLASS_CUBEMAP;
    let (storage, note) = data_storage(ctx, f, t.image_data, &t.m_stream_data, used)?;
    let mut tex = Texture {
        file: f.file.clone(),
        path: None,
        engine: Engine::Unity,
        name: t.m_name.clone(),
        class: if cube { "Cubemap" } else { "Texture2D" }.into(),
        kind: if cube {
            TextureKind::Cube
        } else {
            TextureKind::Tex2D
        },
        format,
        native_format: NativeFormat::Id(t.m_texture_format),
        width: w,
        height: h,
        depth: 1,
        authored: None,
        slices: images.max(1),
        mips: Vec::new(),
        color_space: match t.m_color_space {
            Some(1) => ColorSpace::Srgb,
            Some(0) => ColorSpace::Linear,
            _ => ColorSpace::Unknown,
        },
        normal_map: match t.m_lightmap_format {
            Some(3) => Some(NormalEncoding::Dxt5nm),
            Some(4) => Some(NormalEncoding::Rgb),
            _ => None,
        },
        platform: None,
        tiling: crate::codec::tiling::Tiling::Linear,
        rows: RowOrder::BottomFirst,
        layout: Layout::Surfaces,
        metadata: Vec::new(),
        notes: Vec::new(),
        error: None,
    };
    meta(&mut tex, f, sf, path_id, fmt_name, &t, version, &note);
    if crunched {
        tex.add_meta("crunched", "yes");
    }
    if format == PixelFormat::RGBA4444 {
        tex.add_meta(
            "channel order",
            "RGBA4444's nibble order is not established by data (seed 004); decoded R in the top nibble, A in the bottom",
        );
    }
    // Empty textures (font atlases before first use): listed, with nothing to decode.
    if w == 0 || h == 0 || images == 0 {
        tex.mips = vec![Mip {
            width: w,
            height: h,
            depth: 1,
            surfaces: vec![Storage::Empty],
            location_note: "empty".into(),
        }];
        tex.notes
            .push("empty texture (0x0): it has no pixels".into());
        return Ok(tex);
    }
    let dims: Vec<(u32, u32)> = (0..mips_n)
        .map(|i| {
            let (a, b, _) = mip_dims(w, h, 1, i);
            (a, b)
        })
        .collect();
    let data_len = match &storage {
        Storage::Range { length, .. } | Storage::Missing { length, .. } => *length,
        Storage::Empty => 0,
    };
    if crunched {
        tex.layout = Layout::Crunched {
            data: storage.clone(),
        };
        tex.mips = dims
            .iter()
            .map(|&(mw, mh)| Mip {
                width: mw,
                height: mh,
                depth: 1,
                surfaces: match &storage {
                    Storage::Missing { .. } => vec![storage.clone()],
                    _ => Vec::new(),
                },
                location_note: "crunch stream".into(),
            })
            .collect();
        return Ok(tex);
    }
    tex.platform = console(sf.platform);
    // On Switch a non-empty m_PlatformBlob marks a tiled texture. For PS4 and PS5 builds no
    // sample or public reader says what the blob holds or how such a texture is laid out, so it
    // is read linear, and Info says why it may look scrambled rather than showing noise unexplained.
    if matches!(tex.platform, Some(Platform::Ps4 | Platform::Ps5)) && blob_range(v).is_some() {
        tex.notes.push(
            "m_PlatformBlob: Unity's tiled PS4/PS5 layout is not known here, so this is read as linear and may look scrambled"
                .into(),
        );
    }
    let stated = format;
    let mut format = format;
    let mut padded = None;
    if sf.platform == BUILD_TARGET_SWITCH {
        let l = switch_layout(ctx, f, v, &mut tex)?;
        (tex.tiling, tex.format, format, padded) = (l.tiling, l.format, l.format, l.padded);
    }
    let mut sizes = stored_sizes(tex.tiling, format, &dims)?;
    let mut stride = image_stride(tex.tiling, format, w, h, images, sizes.iter().sum())?;
    let chain_error = |sizes: &[u64], stride: u64| {
        chain_error(
            sizes,
            stride,
            fmt_name,
            w,
            h,
            images,
            t.m_complete_image_size,
            data_len,
        )
    };
    tex.error = chain_error(&sizes, stride);
    if tex.error.is_some() && tex.tiling == ONE_GOB {
        let linear = stored_sizes(Tiling::Linear, stated, &dims)?;
        let chain: u64 = linear.iter().sum();
        let tiled = stride.saturating_mul(images as u64);
        if chain_error(&linear, chain).is_none() {
            tex.notes.push(one_gob_linear_note(tiled, data_len));
            (tex.tiling, tex.format, format) = (Tiling::Linear, stated, stated);
            (sizes, stride, padded, tex.error) = (linear, chain, None, None);
        } else {
            let what = format!("a {w}x{h} {fmt_name} of {mips_n} levels x{images} images");
            let linear = chain.saturating_mul(images as u64);
            tex.error = Some(one_gob_error(&what, tiled, linear, data_len));
            // The blob's padded size cannot be the data's either; this error says more.
            padded = None;
        }
    }
    // Only a texture without a blob is guessed at: one with a blob says its layout, and its
    // errors say what the blob states.
    if tex.error.is_some()
        && sf.platform == BUILD_TARGET_SWITCH
        && tex.tiling.is_linear()
        && blob_range(v).is_none()
    {
        match switch_guess(ctx, format, &dims, images, data_len) {
            Some(Ok(guess)) => {
                tex.tiling = guess;
                tex.notes.push(
                    "no m_PlatformBlob: untiled with the driver's default block height, as the platform Switch was chosen".into(),
                );
                sizes = stored_sizes(guess, format, &dims)?;
                stride = image_stride(guess, format, w, h, images, sizes.iter().sum())?;
                tex.error = None;
            }
            Some(Err(e)) => tex.error = Some(e),
            None => {}
        }
    }
    if let Some(p) = padded.filter(|&p| p != data_len) {
        tex.error = Some(format!(
            "m_PlatformBlob says the padded surface is {p} bytes, but the data holds {data_len}"
        ));
    }
    note_stored_as(&mut tex, stated);
    let mut at = 0u64;
    for (m, &(mw, mh)) in dims.iter().enumerate() {
        let surfaces = (0..images as u64)
            .map(|face| part(&storage, face * stride + at, sizes[m]))
            .collect();
        tex.mips.push(Mip {
            width: mw,
            height: mh,
            depth: 1,
            surfaces,
            location_note: location_note(&storage, &t.m_stream_data),
        });
        at += sizes[m];
    }
    Ok(tex)
}

/// Bytes each mip of `dims` occupies stored with `tiling` (a format's surface size when linear).
fn stored_sizes(tiling: Tiling, format: PixelFormat, dims: &[(u32, u32)]) -> Result<Vec<u64>> {
    dims.iter()
        .enumerate()
        .map(|(level, &(mw, mh))| {
            tiling::stored_size(tiling, format, level as u32, mw, mh)
                .map_err(|e| e.at_field("m_PlatformBlob"))
        })
        .collect()
}

/// Bytes from one image (cube face, array slice) to the next, whose whole chain is `chain` bytes:
/// the chain itself, except that a block-linear surface of several images starts each on a whole
/// block of GOBs of mip 0 (`block_linear::layer_size`: the Switch driver's layout, as Ryujinx and
/// `tegra_swizzle` lay out array layers; tests/unity_switch_mips.rs holds cubemaps to the crate).
#[cfg_attr(not(feature = "tiling-switch"), allow(unused_variables))]
fn image_stride(
    tiling: Tiling,
    format: PixelFormat,
    w: u32,
    h: u32,
    images: u32,
    chain: u64,
) -> Result<u64> {
    match tiling {
        #[cfg(feature = "tiling-switch")]
        Tiling::BlockLinear { block_height } if images > 1 => {
            tiling::block_linear::layer_size(format, w, h, block_height, chain)
                .map_err(|e| e.at_field("m_PlatformBlob"))
        }
        _ => Ok(chain),
    }
}

/// `length` bytes at `at` within the object's data `storage`.
fn part(storage: &Storage, at: u64, length: u64) -> Storage {
    match storage {
        Storage::Range { source, offset, .. } => Storage::Range {
            source: *source,
            offset: offset + at,
            length,
        },
        Storage::Missing { file, .. } => Storage::Missing {
            file: file.clone(),
            length,
        },
        Storage::Empty => Storage::Empty,
    }
}

fn location_note(storage: &Storage, stream: &Option<(u64, u64, String)>) -> String {
    match (storage, stream) {
        (Storage::Range { .. }, None) => "inline".into(),
        (_, Some(s)) => base_name(&s.2).to_string(),
        _ => String::new(),
    }
}

/// One level of a layered texture: width, height, depth, and its bytes (all its depth slices).
type Level = (u32, u32, u32, u64);

/// Texture3D (117), Texture2DArray (187) and CubemapArray (188): one GraphicsFormat, one mip
/// chain, several images. How the images follow each other in the data (as UnityPy's and
/// AssetRipper's readers of these classes take it; no shared sample holds one):
/// - Texture2DArray: slice after slice, each with its whole mip chain (m_DataSize / m_Depth each);
/// - CubemapArray: 6 x m_CubemapCount faces stored the same way (cube 0's +X..-Z, cube 1's ...),
///   square (m_Width only);
/// - Texture3D: mip after mip, each the whole volume of that level (w x h x d, depth halving).
#[allow(clippy::too_many_arguments)]
fn build_layered(
    ctx: &OpenContext,
    f: &Found,
    sf: &SerializedFile,
    path_id: i64,
    class_id: i32,
    v: &Value,
    version: Option<&str>,
    used: &mut [bool],
) -> Result<Texture> {
    let need = |p: &str| {
        int(v, p).ok_or_else(|| Error::malformed(format!("the object has no {p}")).at_field(p))
    };
    let dim = |p: &str| -> Result<u32> {
        let n = need(p)?;
        u32::try_from(n).map_err(|_| Error::malformed(format!("{p} {n}")).at_field(p))
    };
    let name = v
        .get("m_Name")
        .and_then(Value::as_str)
        .unwrap_or("")
        .to_string();
    let gf = need("m_Format")?;
    let (format, fmt_name, srgb) = graphics_format(gf).ok_or_else(|| {
        Error::unsupported(format!(
            "{name}: GraphicsFormat {gf} is not one this viewer knows"
        ))
        .at_field("m_Format")
    })?;
    let w = dim("m_Width")?;
    let (class, kind, h, depth, slices) = match class_id {
        CLASS_TEXTURE3D => (
            "Texture3D",
            TextureKind::Volume,
            dim("m_Height")?,
            dim("m_Depth")?,
            1,
        ),
        CLASS_TEXTURE2DARRAY => (
            "Texture2DArray",
            TextureKind::Array,
            dim("m_Height")?,
            1,
            dim("m_Depth")?,
        ),
        _ => {
            let n = dim("m_CubemapCount")?;
            let faces = n.checked_mul(6).ok_or_else(|| {
                Error::malformed(format!("m_CubemapCount {n}")).at_field("m_CubemapCount")
            })?;
            ("CubemapArray", TextureKind::Array, w, 1, faces)
        }
    };
    ctx.limits.check_dims(w, h, depth)?;
    if slices > ctx.limits.max_slices {
        return Err(Error::limit(format!(
            "{slices} images are over the {} limit",
            ctx.limits.max_slices
        ))
        .at_field(if class_id == CLASS_CUBEMAPARRAY {
            "m_CubemapCount"
        } else {
            "m_Depth"
        }));
    }
    let mip_count = need("m_MipCount")?;
    let mips_n = u32::try_from(mip_count)
        .ok()
        .filter(|&n| n <= ctx.limits.max_mips)
        .ok_or_else(|| {
            Error::malformed(format!("m_MipCount {mip_count}")).at_field("m_MipCount")
        })?;
    let data_size = int(v, "m_DataSize");
    let stream = stream_data(v);
    let (storage, note) = data_storage(ctx, f, image_data(v), &stream, used)?;
    let mut tex = Texture {
        file: f.file.clone(),
        path: None,
        engine: Engine::Unity,
        name,
        class: class.into(),
        kind,
        format,
        native_format: NativeFormat::Id(gf),
        width: w,
        height: h,
        depth,
        authored: None,
        slices,
        mips: Vec::new(),
        color_space: match (srgb, int(v, "m_ColorSpace")) {
            (true, _) | (false, Some(1)) => ColorSpace::Srgb,
            (false, _) => ColorSpace::Linear,
        },
        normal_map: None,
        platform: None,
        tiling: crate::codec::tiling::Tiling::Linear,
        rows: RowOrder::BottomFirst,
        layout: Layout::Surfaces,
        metadata: Vec::new(),
        notes: Vec::new(),
        error: None,
    };
    meta_file(&mut tex, f, sf, path_id, version);
    tex.add_meta("GraphicsFormat", format!("{fmt_name} ({gf})"));
    tex.add_meta("m_MipCount", mip_count);
    match class_id {
        CLASS_CUBEMAPARRAY => tex.add_meta("m_CubemapCount", slices / 6),
        CLASS_TEXTURE3D => tex.add_meta("m_Depth", depth),
        _ => tex.add_meta("m_Depth", slices),
    }
    if let Some(d) = data_size {
        tex.add_meta("m_DataSize", d);
    }
    tex.add_meta("data", &note);
    if w == 0 || h == 0 || depth == 0 || slices == 0 || mips_n == 0 {
        tex.mips = vec![Mip {
            width: w,
            height: h,
            depth,
            surfaces: vec![Storage::Empty],
            location_note: "empty".into(),
        }];
        tex.notes.push("empty texture: it has no pixels".into());
        return Ok(tex);
    }
    let volume = kind == TextureKind::Volume;
    tex.platform = console(sf.platform);
    let stated = format;
    if sf.platform == BUILD_TARGET_SWITCH {
        let l = switch_layout(ctx, f, v, &mut tex)?;
        (tex.tiling, tex.format) = (l.tiling, l.format);
    }
    let data_len = match &storage {
        Storage::Range { length, .. } | Storage::Missing { length, .. } => *length,
        Storage::Empty => 0,
    };
    // (w, h, d, bytes) of each level (a volume level holds all its depth slices), and the bytes
    // from one image to the next, laid out with `tiling`.
    let layout = |tiling: Tiling, format: PixelFormat| -> Result<(Vec<Level>, u64)> {
        let levels = (0..mips_n)
            .map(|i| {
                let (a, b, d) = mip_dims(w, h, depth, i);
                let size = tiling::stored_size(tiling, format, i, a, b)
                    .map_err(|e| e.at_field("m_PlatformBlob"))?;
                // Saturating: hostile sizes then simply fit no data length.
                Ok((a, b, d, size.saturating_mul(d as u64)))
            })
            .collect::<Result<Vec<_>>>()?;
        let chain = levels.iter().fold(0u64, |a, l| a.saturating_add(l.3));
        // A volume has one image, so image_stride pads only slices and faces.
        let stride = image_stride(tiling, format, w, h, slices, chain)?;
        Ok((levels, stride))
    };
    let (mut levels, mut stride) = layout(tex.tiling, tex.format)?;
    let mut whole = stride.saturating_mul(slices as u64);
    let said = |whole: u64| data_size.map(|d| d.max(0) as u64).unwrap_or(whole);
    let fits = |whole: u64| whole == data_len && said(whole) == whole;
    if !fits(whole) && tex.tiling == ONE_GOB {
        let (lin_levels, lin_stride) = layout(Tiling::Linear, stated)?;
        let lin_whole = lin_stride.saturating_mul(slices as u64);
        if fits(lin_whole) {
            tex.notes.push(one_gob_linear_note(whole, data_len));
            (tex.tiling, tex.format) = (Tiling::Linear, stated);
            (levels, stride, whole) = (lin_levels, lin_stride, lin_whole);
        } else {
            let what = format!("a {w}x{h}x{depth} {fmt_name} of {mips_n} levels x{slices} images");
            tex.error = Some(one_gob_error(&what, whole, lin_whole, data_len));
        }
    }
    if volume && !tex.tiling.is_linear() {
        // A tiled volume interleaves depth slices in blocks of GOBs (block depth), a layout
        // no shared file shows; refused rather than untiled slice by slice wrongly.
        let also = tex.error.map(|e| format!("; {e}")).unwrap_or_default();
        return Err(Error::unsupported(format!(
            "a Switch block-linear Texture3D: tiled volumes are not read yet{also}"
        ))
        .at_field("m_PlatformBlob"));
    }
    if tex.error.is_none() && !fits(whole) {
        let said = said(whole);
        tex.error = Some(format!(
            "the {mips_n} levels of a {w}x{h}x{depth} {fmt_name} image take {stride} bytes, x{slices} images = {whole}; m_DataSize says {said} and the data holds {data_len}"
        ));
    }
    note_stored_as(&mut tex, stated);
    let mut at = 0u64;
    for &(mw, mh, md, size) in &levels {
        let surfaces = if volume {
            vec![part(&storage, at, size)]
        } else {
            (0..slices as u64)
                .map(|s| part(&storage, s * stride + at, size))
                .collect()
        };
        tex.mips.push(Mip {
            width: mw,
            height: mh,
            depth: md,
            surfaces,
            location_note: location_note(&storage, &stream),
        });
        at += size;
    }
    Ok(tex)
}

/// Seed 004: the levels follow each other with no padding and add up to m_CompleteImageSize, and
/// the images (6 for a cube) to the data. When they do not, the texture is refused with the numbers.
/// `stride` is one image's bytes: the levels' sum, or more where a tiled layout aligns images
/// ([`image_stride`]); m_CompleteImageSize may then be either.
#[allow(clippy::too_many_arguments)]
fn chain_error(
    sizes: &[u64],
    stride: u64,
    fmt_name: &str,
    w: u32,
    h: u32,
    images: u32,
    complete: Option<i64>,
    data_len: u64,
) -> Option<String> {
    let complete = complete.map(|c| c.max(0) as u64).unwrap_or(stride);
    let whole = stride * images as u64;
    // Where a layout pads between images (a Switch cubemap's faces), whether Unity counts a
    // face's m_CompleteImageSize with the padding or without is not known (no sample has one);
    // the data's length (and the blob's padded size) fix the layout, so either is taken.
    let chain: u64 = sizes.iter().sum();
    ((complete != stride && complete != chain) || whole != data_len).then(|| {
        format!(
            "the {} levels of a {w}x{h} {fmt_name} image take {stride} bytes, x{images} images = {whole}; m_CompleteImageSize says {complete} and the data holds {data_len} (seed 004: they must agree)",
            sizes.len()
        )
    })
}

#[allow(clippy::too_many_arguments)]
fn meta(
    tex: &mut Texture,
    f: &Found,
    sf: &SerializedFile,
    path_id: i64,
    fmt_name: &str,
    t: &TexFields,
    version: Option<&str>,
    note: &str,
) {
    meta_file(tex, f, sf, path_id, version);
    tex.add_meta(
        "TextureFormat",
        format!("{fmt_name} ({})", t.m_texture_format),
    );
    tex.add_meta("m_MipCount", t.m_mip_count);
    tex.add_meta("m_ImageCount", t.m_image_count);
    tex.add_meta("data", note);
    meta_settings(tex, t);
}

/// Where the object sits: version, platform, file, bundle, path id.
fn meta_file(
    tex: &mut Texture,
    f: &Found,
    sf: &SerializedFile,
    path_id: i64,
    version: Option<&str>,
) {
    tex.add_meta("Unity version", version.unwrap_or("unknown"));
    let own = sf.unity_version.trim();
    if (own.is_empty() || own.starts_with("0.0")) && version.is_some() {
        tex.add_meta("Unity version from", f.version_source);
    }
    tex.add_meta("platform", platform_name(sf.platform));
    tex.add_meta(
        "serialized file",
        format!("{} (format {})", f.name, sf.format_version),
    );
    if let Some(c) = &f.container {
        tex.add_meta("bundle", c);
    }
    tex.add_meta("path id", path_id);
}

fn meta_settings(tex: &mut Texture, t: &TexFields) {
    if let Some(c) = t.m_color_space {
        let s = match c {
            1 => "sRGB",
            0 => "linear",
            _ => "unknown",
        };
        tex.add_meta("m_ColorSpace", format!("{s} ({c})"));
    }
    if let Some(u) = t.m_lightmap_format {
        let s = match u {
            3 => "normal map, DXT5nm: x in alpha, y in green".to_string(),
            4 => "normal map, plain: x in red, y in green".to_string(),
            _ => u.to_string(),
        };
        tex.add_meta("usage (m_LightmapFormat)", s);
    }
    if let Some(s) = describe(&["point", "bilinear", "trilinear"], t.m_filter_mode) {
        tex.add_meta("filter mode", s);
    }
    let wraps = ["repeat", "clamp", "mirror", "mirror once"];
    if let Some(s) = describe(&wraps, t.m_wrap_u) {
        tex.add_meta("wrap U", s);
    }
    if let Some(s) = describe(&wraps, t.m_wrap_v) {
        tex.add_meta("wrap V", s);
    }
    if let Some(b) = t.m_mip_bias {
        tex.add_meta("mip bias", b);
    }
    if let Some(a) = t.m_aniso {
        tex.add_meta("aniso", a);
    }
    if let Some(r) = t.m_is_readable {
        tex.add_meta("readable", r);
    }
    if let Some(s) = t.m_streaming_mipmaps {
        let p = t
            .m_streaming_mipmaps_priority
            .map(|p| format!(", priority {p}"))
            .unwrap_or_default();
        tex.add_meta("streaming mips", format!("{s}{p}"));
    }
    if let Some(m) = t.m_mips_stripped.filter(|&m| m != 0) {
        tex.add_meta("m_MipsStripped", m);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn chain(f: PixelFormat, w: u32, h: u32, mips: u32) -> Vec<u64> {
        (0..mips)
            .map(|i| {
                let (a, b, _) = mip_dims(w, h, 1, i);
                f.surface_size(a, b)
            })
            .collect()
    }

    /// Sizes from the UnityPy census: MazeTurretAlbedo (64x64 DXT1, 7 levels) has
    /// m_CompleteImageSize 2744; the level0 Cubemap (128x128 BC6H, 8 levels, 6 faces) 21872 per
    /// face and 131232 bytes of stream.
    #[test]
    fn chains_add_up_as_the_census_says() {
        let s = chain(PixelFormat::BC1, 64, 64, 7);
        assert_eq!(
            chain_error(&s, s.iter().sum(), "DXT1", 64, 64, 1, Some(2744), 2744),
            None
        );
        let s = chain(PixelFormat::BC6HU, 128, 128, 8);
        assert_eq!(
            chain_error(&s, s.iter().sum(), "BC6H", 128, 128, 6, Some(21872), 131232),
            None
        );
    }

    #[test]
    fn chains_that_do_not_add_up_are_refused_with_the_numbers() {
        let s = chain(PixelFormat::BC1, 64, 64, 7);
        let e = chain_error(&s, s.iter().sum(), "DXT1", 64, 64, 1, Some(2744), 2048).unwrap();
        assert!(e.contains("2744") && e.contains("2048"), "{e}");
        let e = chain_error(&s, s.iter().sum(), "DXT1", 64, 64, 1, Some(4096), 4096).unwrap();
        assert!(e.contains("4096"), "{e}");
    }

    /// Numbers from Unity's GraphicsFormat enum (UnityPy enums/GraphicsFormat.py, Unity's
    /// UnityGraphicsFormat.h): 1-4 the sRGB 8-bit formats, 5-8 their UNorm twins, 96-109 BC1-BC7.
    #[test]
    fn graphics_format_table_follows_unitys_enum() {
        assert_eq!(
            graphics_format(4),
            Some((PixelFormat::RGBA8, "R8G8B8A8_SRGB", true))
        );
        assert_eq!(
            graphics_format(8),
            Some((PixelFormat::RGBA8, "R8G8B8A8_UNorm", false))
        );
        assert_eq!(graphics_format(5).unwrap().0, PixelFormat::R8);
        assert_eq!(graphics_format(97).unwrap().0, PixelFormat::BC1);
        assert_eq!(graphics_format(101).unwrap().0, PixelFormat::BC3);
        assert_eq!(graphics_format(106).unwrap().0, PixelFormat::BC6HU);
        assert_eq!(
            graphics_format(108),
            Some((PixelFormat::BC7, "RGBA_BC7_SRGB", true))
        );
        assert_eq!(graphics_format(48).unwrap().0, PixelFormat::RGBA16F);
        assert_eq!(graphics_format(124).unwrap().0, PixelFormat::ETC2RGBA8);
        let a = |w| PixelFormat::ASTC {
            w,
            h: w,
            hdr: false,
        };
        assert_eq!(
            graphics_format(129),
            Some((a(4), "RGBA_ASTC4X4_SRGB", true))
        );
        assert_eq!(graphics_format(140).unwrap().0, a(12));
        // 90-95 are depth / stencil formats.
        assert!(graphics_format(90).is_none() && graphics_format(0).is_none());
    }

    #[test]
    fn format_table_follows_the_seed() {
        // Seed 004: BC6H id 24 is unsigned; ARGB32 is A, R, G, B; crunched ids name their base.
        assert_eq!(texture_format(24).unwrap().0, PixelFormat::BC6HU);
        assert_eq!(texture_format(5).unwrap().0, PixelFormat::ARGB8);
        assert_eq!(texture_format(2).unwrap().0, PixelFormat::ARGB4444);
        assert_eq!(texture_format(13).unwrap().0, PixelFormat::RGBA4444);
        for (id, base) in [
            (28, PixelFormat::BC1),
            (29, PixelFormat::BC3),
            (64, PixelFormat::ETC1),
            (65, PixelFormat::ETC2RGBA8),
        ] {
            assert_eq!(
                texture_format(id),
                Some((base, texture_format(id).unwrap().1, true))
            );
        }
        // Every id of seed 004's tables is known.
        for id in [
            1, 2, 3, 4, 5, 9, 10, 12, 13, 15, 17, 19, 20, 24, 25, 26, 27, 63, 28, 29, 64, 65,
        ] {
            assert!(texture_format(id).is_some(), "{id}");
        }
        assert!(texture_format(11).is_none());
    }
}
