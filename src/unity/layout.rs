//! Texture2D / Cubemap field layouts for stripped files (player builds written without a type
//! tree), per Unity version, produced as type tree nodes so one reader serves both kinds of file.
//!
//! Where each field appears was read from the type trees of the shared samples' player and bundle
//! builds (5.0.0b21, 5.2.1p3, 5.2.4f1, 2017.4.37f1, 2018.2.1f1, 2018.4.4f1/11f1, 2019.4.0f1,
//! 2019.4.20f1, 2020.3.0f1/33f1, 2021.3.0f1, 2022.1.20f1, 2022.3.10f1, 2023.1.0a16); the test in
//! tests/unity_census.rs compares this table with every one of those trees. The version bounds
//! between observed versions (2017.3, 2019.3, 2019.4.9, 2020.1, 2020.2, 2022.2, 5.3, 5.5) are the
//! releases community readers (AssetStudio, UnityPy) give for the same fields: inferred, not
//! observed here. Editor files (Library/metadata) carry extra editor-only fields and always have
//! a type tree, so they need no entry.

use super::serialized::Node;
use super::texture::{CLASS_CUBEMAP, CLASS_TEXTURE2D};
use crate::io::{Error, Result};

/// `2021.1.28f1c1` -> (2021, 1, 28); `5.2.1p1` -> (5, 2, 1).
pub fn parse_version(v: &str) -> Option<(u32, u32, u32)> {
    let mut parts = v.split('.');
    let major = parts.next()?.parse().ok()?;
    let minor = parts.next()?.parse().ok()?;
    let patch: String = parts
        .next()
        .unwrap_or("0")
        .chars()
        .take_while(|c| c.is_ascii_digit())
        .collect();
    Some((major, minor, patch.parse().unwrap_or(0)))
}

struct Builder {
    nodes: Vec<Node>,
}

impl Builder {
    fn node(&mut self, level: u8, t: &str, name: &str, is_array: bool, align: bool) {
        self.nodes.push(Node {
            type_name: t.into(),
            name: name.into(),
            byte_size: -1,
            level,
            is_array,
            meta_flag: if align { 0x4000 } else { 0 },
        });
    }
    fn int(&mut self, name: &str) {
        self.node(1, "int", name, false, false);
    }
    /// A run of bools: Unity aligns after the last one (seen in every sample tree).
    fn bools(&mut self, names: &[&str]) {
        for (i, n) in names.iter().enumerate() {
            self.node(1, "bool", n, false, i + 1 == names.len());
        }
    }
    fn string(&mut self, level: u8, name: &str) {
        self.node(level, "string", name, false, false);
        self.node(level + 1, "Array", "Array", true, true);
        self.node(level + 2, "int", "size", false, false);
        self.node(level + 2, "char", "data", false, false);
    }
}

/// The nodes a stripped Texture2D (28) or Cubemap (89) of Unity `version` is read with. A
/// Cubemap serializes as a Texture2D followed by `m_SourceTextures`, which is not needed here.
pub fn texture_nodes(class_id: i32, version: &str) -> Result<Vec<Node>> {
    let root = match class_id {
        CLASS_TEXTURE2D => "Texture2D",
        CLASS_CUBEMAP => "Cubemap",
        _ => {
            return Err(Error::unsupported(format!(
                "no stripped layout for class {class_id}"
            )))
        }
    };
    let v = parse_version(version).ok_or_else(|| {
        Error::unsupported(format!(
            "Unity version \"{version}\" cannot be read, so this stripped file's Texture2D layout is unknown"
        ))
    })?;
    if v < (5, 0, 0) {
        return Err(Error::unsupported(format!(
            "stripped Texture2D of Unity {version}: layouts before 5.0 are not in the table"
        )));
    }
    let at = |a: u32, b: u32, c: u32| v >= (a, b, c);
    let mut b = Builder { nodes: Vec::new() };
    b.node(0, root, "Base", false, false);
    b.string(1, "m_Name");
    // 2023.2 dropped m_ForcedFallbackFormat and m_DownscaleFallback (UnityPy 1.25.4's type
    // tree package: 2023.2.0b1 and 6000.0 start m_Name, m_IsAlphaChannelOptional, m_Width).
    if at(2023, 2, 0) {
        b.bools(&["m_IsAlphaChannelOptional"]);
    } else if at(2017, 3, 0) {
        b.int("m_ForcedFallbackFormat");
        if at(2020, 2, 0) {
            b.bools(&["m_DownscaleFallback", "m_IsAlphaChannelOptional"]);
        } else {
            b.bools(&["m_DownscaleFallback"]);
        }
    }
    b.int("m_Width");
    b.int("m_Height");
    b.node(
        1,
        if at(2020, 1, 0) {
            "unsigned int"
        } else {
            "int"
        },
        "m_CompleteImageSize",
        false,
        false,
    );
    if at(2020, 1, 0) {
        b.int("m_MipsStripped");
    }
    b.int("m_TextureFormat");
    let mut flags: Vec<&str> = Vec::new();
    if at(5, 2, 0) {
        b.int("m_MipCount");
    } else {
        flags.push("m_MipMap");
    }
    flags.push("m_IsReadable");
    if at(2020, 1, 0) {
        flags.push("m_IsPreProcessed");
    }
    if at(2022, 2, 0) {
        flags.push("m_IgnoreMipmapLimit");
    } else if at(2019, 3, 0) {
        flags.push("m_IgnoreMasterTextureLimit");
    }
    // 2019.4 added m_IsPreProcessed after the limit flag (2019.4.0f1 lacks it, 2019.4.20f1 has it).
    if at(2019, 4, 9) && !at(2020, 1, 0) {
        flags.push("m_IsPreProcessed");
    }
    if !at(5, 5, 0) {
        flags.push("m_ReadAllowed");
    }
    if at(2022, 2, 0) {
        b.bools(&flags);
        b.string(1, "m_MipmapLimitGroupName");
        flags.clear();
    }
    if at(2018, 2, 0) {
        flags.push("m_StreamingMipmaps");
    }
    if !flags.is_empty() {
        b.bools(&flags);
    }
    if at(2018, 2, 0) {
        b.node(1, "int", "m_StreamingMipmapsPriority", false, true);
    }
    b.int("m_ImageCount");
    b.int("m_TextureDimension");
    b.node(1, "GLTextureSettings", "m_TextureSettings", false, false);
    b.node(2, "int", "m_FilterMode", false, false);
    b.node(2, "int", "m_Aniso", false, false);
    b.node(2, "float", "m_MipBias", false, false);
    if at(2017, 1, 0) {
        b.node(2, "int", "m_WrapU", false, false);
        b.node(2, "int", "m_WrapV", false, false);
        b.node(2, "int", "m_WrapW", false, false);
    } else {
        b.node(2, "int", "m_WrapMode", false, false);
    }
    b.int("m_LightmapFormat");
    b.int("m_ColorSpace");
    if at(2020, 2, 0) {
        b.node(1, "vector", "m_PlatformBlob", false, false);
        b.node(2, "Array", "Array", true, true);
        b.node(3, "int", "size", false, false);
        b.node(3, "UInt8", "data", false, false);
    }
    b.node(1, "TypelessData", "image data", true, true);
    b.node(2, "int", "size", false, false);
    b.node(2, "UInt8", "data", false, false);
    if at(5, 3, 0) {
        b.node(1, "StreamingInfo", "m_StreamData", false, false);
        let off = if at(2020, 1, 0) {
            "UInt64"
        } else {
            "unsigned int"
        };
        b.node(2, off, "offset", false, false);
        b.node(2, "unsigned int", "size", false, false);
        b.string(2, "path");
    }
    Ok(b.nodes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions_parse() {
        assert_eq!(parse_version("2021.1.28f1c1"), Some((2021, 1, 28)));
        assert_eq!(parse_version("5.2.1p1"), Some((5, 2, 1)));
        assert_eq!(parse_version("6000.0.23f1"), Some((6000, 0, 23)));
        assert_eq!(parse_version("0.0.0"), Some((0, 0, 0)));
        assert_eq!(parse_version("x"), None);
    }

    #[test]
    fn old_and_unreadable_versions_say_so() {
        assert!(texture_nodes(28, "4.7.2f1").is_err());
        assert!(texture_nodes(28, "").is_err());
        assert!(texture_nodes(1, "2020.3.0f1").is_err());
    }
}
