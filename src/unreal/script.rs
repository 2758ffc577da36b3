//! Zen packages name their exports' classes by FPackageObjectIndex, not by name: a script class
//! is the ScriptImport type (1 in the top two bits) over the low 62 bits of CityHash64 of its
//! object path, lower-cased, with '.' and ':' turned into '/', hashed as UTF-16LE code units
//! (UE's FPackageObjectIndex::GenerateImportHashFromObjectPath; CUE4Parse FPackageObjectIndex).
//! Texscope resolves a class by computing that hash for the engine's texture classes, which needs
//! nothing but the package: checked against the UE 5.8 fixtures, whose T_BC1 names class
//! 0x5B93BCA796D1FA6F = "/Script/Engine.Texture2D", template 0x6BFAD34AC8B1F6D0 =
//! "/Script/Engine.Default__Texture2D" and imports 0x51ACCED3DC7C0922 = "/Script/Engine"
//! (docs/unreal.md). The alternative, global.utoc's script-object table, needs the container's
//! global file, which a loose zen package does not come with.

/// Texture classes a cooked zen export may name, as `/Script/Engine.<Class>` (UE's Engine module;
/// the same list `unreal::is_texture_class` accepts by name in legacy packages).
const TEXTURE_CLASSES: &[&str] = &[
    "Texture2D",
    "TextureCube",
    "Texture2DArray",
    "TextureCubeArray",
    "VolumeTexture",
    "TextureLightProfile",
    "CurveLinearColorAtlas",
    "LightMapTexture2D",
    "ShadowMapTexture2D",
    "LightMapVirtualTexture2D",
    "VirtualTexture2D",
    "Texture2DDynamic",
    "TextureRenderTarget2D",
    "TextureRenderTargetCube",
];

/// FPackageObjectIndex type shift and the ScriptImport type (EType: Export 0, ScriptImport 1,
/// PackageImport 2, Null 3).
const TYPE_SHIFT: u32 = 62;
const SCRIPT_IMPORT: u64 = 1;

/// The FPackageObjectIndex of the script object at `path` (e.g. "/Script/Engine.Texture2D").
pub fn script_index(path: &str) -> u64 {
    let units: Vec<u8> = path
        .chars()
        .map(|c| match c {
            '.' | ':' => '/',
            c => c.to_ascii_lowercase(),
        })
        .collect::<String>()
        .encode_utf16()
        .flat_map(u16::to_le_bytes)
        .collect();
    let hash: u64 = cityhasher::hash(&units);
    (hash & !(3u64 << TYPE_SHIFT)) | (SCRIPT_IMPORT << TYPE_SHIFT)
}

/// The texture class a zen export's class index names, when it is one of the engine's. The
/// hashes are computed once per process (a container lists up to 100,000 packages).
pub fn class_name(index: u64) -> Option<&'static str> {
    static TABLE: std::sync::OnceLock<Vec<(u64, &'static str)>> = std::sync::OnceLock::new();
    let table = TABLE.get_or_init(|| {
        TEXTURE_CLASSES
            .iter()
            .map(|c| (script_index(&format!("/Script/Engine.{c}")), *c))
            .collect()
    });
    lookup(table, index)
}

/// Classes other than textures whose exports the texture reader needs, as (module, class):
/// UE 5.3+ cooks a landscape heightmap without pixels and stores them in this export
/// (`super::landscape`).
const OTHER_CLASSES: &[(&str, &str)] = &[("Landscape", "LandscapeTextureStorageProviderFactory")];

/// The class a zen export's class index names: a texture class ([`class_name`]) or one of
/// [`OTHER_CLASSES`].
pub fn known_class(index: u64) -> Option<&'static str> {
    static TABLE: std::sync::OnceLock<Vec<(u64, &'static str)>> = std::sync::OnceLock::new();
    let table = TABLE.get_or_init(|| {
        OTHER_CLASSES
            .iter()
            .map(|(m, c)| (script_index(&format!("/Script/{m}.{c}")), *c))
            .collect()
    });
    class_name(index).or_else(|| lookup(table, index))
}

fn lookup(table: &[(u64, &'static str)], index: u64) -> Option<&'static str> {
    if index >> TYPE_SHIFT != SCRIPT_IMPORT {
        return None;
    }
    table.iter().find(|(h, _)| *h == index).map(|(_, c)| *c)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hashes_match_the_ue58_fixture_package() {
        // Read from IoStore/*/T_BC1.uasset of the UE 5.8 set (export map Class / Template, import
        // map): the engine's own hashes, not ours.
        assert_eq!(
            script_index("/Script/Engine.Texture2D"),
            0x5B93_BCA7_96D1_FA6F
        );
        assert_eq!(
            script_index("/Script/Engine.Default__Texture2D"),
            0x6BFA_D34A_C8B1_F6D0
        );
        assert_eq!(script_index("/Script/Engine"), 0x51AC_CED3_DC7C_0922);
        assert_eq!(class_name(0x5B93_BCA7_96D1_FA6F), Some("Texture2D"));
        assert_eq!(class_name(0x6BFA_D34A_C8B1_F6D0), None);
        assert_eq!(class_name(u64::MAX), None);
    }
}
