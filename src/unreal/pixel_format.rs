//! UE's EPixelFormat names (`PF_DXT1`) as Texscope's pixel formats: what cooked platform data,
//! virtual textures and landscape heightmaps name their formats by.

use crate::codec::PixelFormat;

/// EPixelFormat name -> pixel format (notes §6; issue 5's list plus the other names UE uses for
/// formats Texscope decodes). DXGI memory orders: PF_A32B32G32R32F is R32G32B32A32_FLOAT and
/// PF_FloatRGBA is R16G16B16A16_FLOAT (UE4-DDS-Tools PF_TO_DXGI).
pub fn pixel_format(name: &str) -> Option<PixelFormat> {
    use PixelFormat::*;
    let name = name.strip_suffix("_crunched").unwrap_or(name);
    if let Some(rest) = name.strip_prefix("PF_ASTC_") {
        let (dims, hdr) = match rest.strip_suffix("_HDR") {
            Some(d) => (d, true),
            None => (rest, false),
        };
        let (w, h) = dims.split_once('x')?;
        let f = ASTC {
            w: w.parse().ok()?,
            h: h.parse().ok()?,
            hdr,
        };
        return PixelFormat::from_name(&f.name());
    }
    Some(match name {
        "PF_DXT1" => BC1,
        "PF_DXT3" => BC2,
        "PF_DXT5" => BC3,
        "PF_BC4" => BC4,
        "PF_BC5" => BC5,
        "PF_BC6H" => BC6HU,
        "PF_BC7" => BC7,
        "PF_B8G8R8A8" => BGRA8,
        "PF_R8G8B8A8" | "PF_R8G8B8A8_UINT" => RGBA8,
        "PF_G8" | "PF_R8" | "PF_R8_UINT" => R8,
        "PF_L8" => L8,
        "PF_A8" => A8,
        "PF_G16" | "PF_R16_UINT" => R16,
        "PF_R8G8" => RG8,
        "PF_G16R16" | "PF_R16G16_UINT" => RG16,
        "PF_R16F" | "PF_R16F_FILTER" => R16F,
        "PF_G16R16F" | "PF_G16R16F_FILTER" => RG16F,
        "PF_R32_FLOAT" => R32F,
        "PF_G32R32F" => RG32F,
        "PF_FloatRGBA" => RGBA16F,
        "PF_A32B32G32R32F" => RGBA32F,
        "PF_A16B16G16R16" | "PF_R16G16B16A16_UNORM" | "PF_R16G16B16A16_UINT" => RGBA16,
        "PF_A2B10G10R10" => RGB10A2,
        "PF_FloatR11G11B10" => RG11B10F,
        "PF_R5G6B5_UNORM" => RGB565,
        "PF_B5G5R5A1_UNORM" => BGRA5551,
        "PF_ETC1" => ETC1,
        "PF_ETC2_RGB" => ETC2RGB,
        "PF_ETC2_RGBA" => ETC2RGBA8,
        "PF_ETC2_R11_EAC" => EACR11,
        "PF_ETC2_RG11_EAC" => EACRG11,
        "PF_PVRTC2" => PVRTC2RGBA,
        "PF_PVRTC4" => PVRTC4RGBA,
        "PF_ATC_RGB" => ATCRGB,
        "PF_ATC_RGBA_E" => ATCRGBAExplicit,
        "PF_ATC_RGBA_I" => ATCRGBAInterpolated,
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pixel_format_names() {
        // Issue 5's list and notes §6's table.
        assert_eq!(pixel_format("PF_DXT1"), Some(PixelFormat::BC1));
        assert_eq!(pixel_format("PF_DXT5"), Some(PixelFormat::BC3));
        assert_eq!(pixel_format("PF_BC6H"), Some(PixelFormat::BC6HU));
        assert_eq!(pixel_format("PF_FloatRGBA"), Some(PixelFormat::RGBA16F));
        assert_eq!(pixel_format("PF_A32B32G32R32F"), Some(PixelFormat::RGBA32F));
        assert_eq!(
            pixel_format("PF_ASTC_6x6"),
            Some(PixelFormat::ASTC {
                w: 6,
                h: 6,
                hdr: false
            })
        );
        assert_eq!(pixel_format("PF_Unknown"), None);
    }

    #[test]
    fn every_seed_census_and_issue_format_is_mapped() {
        // Seed 000's census table (DXT1 1867, BC7 1209, BC5 982, DXT5 316, B8G8R8A8 128, BC4 108,
        // FloatRGBA 65, BC6H 44, G8 32, A32B32G32R32F 24, R16F 12) and issue 5's list; UE spells
        // R32F as PF_R32_FLOAT. Block sizes from the formats' specs (BC1/BC4 8 bytes per 4x4,
        // BC2/3/5/6H/7 16, ASTC 16 bytes per block of any footprint, ETC2 RGB 8, RGBA 16).
        let table: &[(&str, PixelFormat, u64)] = &[
            ("PF_DXT1", PixelFormat::BC1, 8),
            ("PF_BC7", PixelFormat::BC7, 16),
            ("PF_BC5", PixelFormat::BC5, 16),
            ("PF_DXT5", PixelFormat::BC3, 16),
            ("PF_B8G8R8A8", PixelFormat::BGRA8, 64),
            ("PF_BC4", PixelFormat::BC4, 8),
            ("PF_FloatRGBA", PixelFormat::RGBA16F, 128),
            ("PF_BC6H", PixelFormat::BC6HU, 16),
            ("PF_G8", PixelFormat::R8, 16),
            ("PF_A32B32G32R32F", PixelFormat::RGBA32F, 256),
            ("PF_R16F", PixelFormat::R16F, 32),
            ("PF_DXT3", PixelFormat::BC2, 16),
            ("PF_R8G8B8A8", PixelFormat::RGBA8, 64),
            ("PF_G16", PixelFormat::R16, 32),
            ("PF_R32_FLOAT", PixelFormat::R32F, 64),
            ("PF_A2B10G10R10", PixelFormat::RGB10A2, 64),
            ("PF_R8G8", PixelFormat::RG8, 32),
            ("PF_ETC2_RGB", PixelFormat::ETC2RGB, 8),
            ("PF_ETC2_RGBA", PixelFormat::ETC2RGBA8, 16),
            ("PF_ETC2_R11_EAC", PixelFormat::EACR11, 8),
            ("PF_ETC2_RG11_EAC", PixelFormat::EACRG11, 16),
        ];
        for &(name, f, bytes_4x4) in table {
            assert_eq!(pixel_format(name), Some(f), "{name}");
            assert_eq!(f.surface_size(4, 4), bytes_4x4, "{name}");
        }
        for (w, h) in [(4, 4), (5, 5), (6, 6), (8, 8), (10, 10), (12, 12)] {
            for hdr in ["", "_HDR"] {
                let name = format!("PF_ASTC_{w}x{h}{hdr}");
                let f = pixel_format(&name).unwrap_or_else(|| panic!("{name}"));
                // 24x24 texels: ceil(24/w) * ceil(24/h) blocks of 16 bytes.
                let blocks = 24u64.div_ceil(w) * 24u64.div_ceil(h);
                assert_eq!(f.surface_size(24, 24), blocks * 16, "{name}");
            }
        }
    }
}
