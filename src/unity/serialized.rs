//! Unity SerializedFile (format versions 9 to 22+): header, type table (with or without type
//! tree nodes), object table, externals. Reads the header and metadata range only; objects are
//! read later, each by its own range.

use crate::io::{read_range, Endian, Error, Limits, Reader, Result, Source};

/// One node of a type tree, flattened in depth-first order (as Unity stores it).
#[derive(Debug, Clone, PartialEq)]
pub struct Node {
    pub type_name: String,
    pub name: String,
    pub byte_size: i32,
    pub level: u8,
    pub is_array: bool,
    pub meta_flag: u32,
}

impl Node {
    /// Unity's kAlignBytesFlag: the reader aligns to 4 bytes after this field.
    pub fn align(&self) -> bool {
        self.meta_flag & 0x4000 != 0
    }
}

#[derive(Debug, Clone)]
pub struct SerializedType {
    pub class_id: i32,
    /// Empty when the file is stripped (no type tree).
    pub nodes: Vec<Node>,
}

#[derive(Debug, Clone)]
pub struct ObjectInfo {
    pub path_id: i64,
    /// Absolute offset in the file.
    pub offset: u64,
    pub size: u64,
    pub class_id: i32,
    /// Index into [`SerializedFile::types`], when there is one.
    pub type_index: Option<usize>,
}

#[derive(Debug, Clone)]
pub struct SerializedFile {
    pub format_version: u32,
    pub endian: Endian,
    /// Empty or "0.0.0" when the build stripped it (then the bundle's version applies).
    pub unity_version: String,
    pub platform: i32,
    pub type_tree: bool,
    pub types: Vec<SerializedType>,
    pub objects: Vec<ObjectInfo>,
    pub externals: Vec<String>,
}

/// Is this plausibly a SerializedFile? (Checks the header's sizes against the file length, so a
/// random file is not taken for one.)
pub fn sniff(head: &[u8], file_len: u64) -> bool {
    if head.len() < 20 {
        return false;
    }
    let be = |i: usize| u32::from_be_bytes([head[i], head[i + 1], head[i + 2], head[i + 3]]);
    let (meta, size, version, data) = (be(0) as u64, be(4) as u64, be(8), be(12) as u64);
    if !(9..=50).contains(&version) {
        return false;
    }
    if version >= 22 {
        if head.len() < 48 {
            return false;
        }
        let be64 = |i: usize| {
            let mut b = [0u8; 8];
            b.copy_from_slice(&head[i..i + 8]);
            u64::from_be_bytes(b)
        };
        let (size, data) = (be64(24), be64(32));
        return size == file_len && data <= size && head[16] <= 1;
    }
    size == file_len && meta < size && data <= size && head[16] <= 1
}

/// The metadata of a serialized file holds at most this many bytes (the largest in the shared
/// samples is under 1 MiB; a big game's resources.assets can have several MiB of type tree).
const MAX_METADATA: u64 = 256 << 20;

pub fn parse(src: &dyn Source, limits: &Limits) -> Result<SerializedFile> {
    let name = src.name();
    let head = read_range(src, 0, 48.min(src.len()), limits)?;
    let mut r = Reader::new(&head).big_endian();
    let mut meta_size = r.u32()? as u64;
    let _file_size = r.u32()? as u64;
    let version = r.u32()?;
    let mut data_offset = r.u32()? as u64;
    if version < 9 {
        return Err(Error::unsupported(format!(
            "serialized file format {version} (Unity 3.4 and older) is not supported; 9 and later are"
        ))
        .in_file(name));
    }
    let endian = if r.u8()? != 0 {
        Endian::Big
    } else {
        Endian::Little
    };
    r.skip(3)?;
    if version >= 22 {
        meta_size = r.u32()? as u64;
        let _file_size = r.u64()?;
        data_offset = r.u64()?;
        r.skip(8)?;
    }
    let meta_start = r.pos() as u64;
    if meta_size > MAX_METADATA {
        return Err(Error::limit(format!(
            "metadata of {meta_size} bytes is over the {MAX_METADATA} byte limit"
        ))
        .in_file(name));
    }
    let meta = read_range(src, meta_start, meta_size, limits).map_err(|e| e.in_file(name))?;
    let mut r = Reader::at(&meta, meta_start);
    r.set_endian(endian);
    let mut sf = parse_metadata(&mut r, version, endian, limits).map_err(|e| e.in_file(name))?;
    // Object offsets are relative to the data section.
    for o in &mut sf.objects {
        o.offset = o.offset.checked_add(data_offset).ok_or_else(|| {
            Error::malformed(format!("object {} offset overflows", o.path_id)).in_file(name)
        })?;
    }
    Ok(sf)
}

fn parse_metadata(
    r: &mut Reader,
    version: u32,
    endian: Endian,
    limits: &Limits,
) -> Result<SerializedFile> {
    let unity_version = r.cstr()?.to_string();
    let platform = r.i32()?;
    let type_tree = if version >= 13 { r.u8()? != 0 } else { true };
    let ntypes = r.count_i32(4, limits, "types")?;
    let mut types = Vec::with_capacity(ntypes);
    for _ in 0..ntypes {
        types.push(read_type(r, version, type_tree, limits)?);
    }
    let big_ids = if (7..14).contains(&version) {
        r.i32()? != 0
    } else {
        false
    };
    let nobj = r.count_i32(12, limits, "objects")?;
    let mut objects = Vec::with_capacity(nobj);
    for _ in 0..nobj {
        let path_id = if big_ids {
            r.i64()?
        } else if version < 14 {
            r.i32()? as i64
        } else {
            r.align(4)?;
            r.i64()?
        };
        let offset = if version >= 22 {
            r.u64()?
        } else {
            r.u32()? as u64
        };
        let size = r.u32()? as u64;
        let type_id = r.i32()?;
        let (class_id, type_index) = if version < 16 {
            let class = r.u16()? as i32;
            (class, types.iter().position(|t| t.class_id == type_id))
        } else {
            let t = usize::try_from(type_id)
                .ok()
                .filter(|&t| t < types.len())
                .ok_or_else(|| {
                    Error::malformed(format!(
                        "object {path_id} names type {type_id}; the file has {}",
                        types.len()
                    ))
                })?;
            (types[t].class_id, Some(t))
        };
        if version < 11 {
            r.skip(2)?; // isDestroyed
        }
        if (11..17).contains(&version) {
            r.skip(2)?; // scriptTypeIndex
        }
        if version == 15 || version == 16 {
            r.skip(1)?; // stripped
        }
        objects.push(ObjectInfo {
            path_id,
            offset,
            size,
            class_id,
            type_index,
        });
    }
    if version >= 11 {
        let n = r.count_i32(8, limits, "script types")?;
        for _ in 0..n {
            r.skip(4)?;
            if version < 14 {
                r.skip(4)?;
            } else {
                r.align(4)?;
                r.skip(8)?;
            }
        }
    }
    let n = r.count_i32(21, limits, "externals")?;
    let mut externals = Vec::with_capacity(n);
    for _ in 0..n {
        r.cstr()?; // empty
        r.skip(16 + 4)?; // guid, type
        externals.push(r.cstr()?.to_string());
    }
    Ok(SerializedFile {
        format_version: version,
        endian,
        unity_version,
        platform,
        type_tree,
        types,
        objects,
        externals,
    })
}

fn read_type(
    r: &mut Reader,
    version: u32,
    type_tree: bool,
    limits: &Limits,
) -> Result<SerializedType> {
    let class_id = r.i32()?;
    if version >= 16 {
        r.skip(1)?; // isStrippedType
    }
    if version >= 17 {
        r.skip(2)?; // scriptTypeIndex
    }
    if version >= 13 {
        // MonoBehaviours (class 114; negative ids before format 16) carry their script's hash.
        let has_script_id = if version < 16 {
            class_id < 0
        } else {
            class_id == 114
        };
        if has_script_id {
            r.skip(16)?;
        }
        r.skip(16)?; // old type hash
    }
    let mut nodes = Vec::new();
    if type_tree {
        if version >= 12 || version == 10 {
            nodes = read_blob_tree(r, version, limits)?;
        } else {
            read_legacy_tree(r, 0, &mut nodes, limits)?;
        }
        if version >= 21 {
            let n = r.count_i32(4, limits, "type dependencies")?;
            r.skip(n * 4)?;
        }
    }
    Ok(SerializedType { class_id, nodes })
}

/// Format 10 and 12+: node records, then a string buffer; a string offset with the top bit set
/// names one of Unity's built-in common strings.
fn read_blob_tree(r: &mut Reader, version: u32, limits: &Limits) -> Result<Vec<Node>> {
    let rec = if version >= 19 { 32 } else { 24 };
    let n = r.count_i32(rec, limits, "type tree nodes")?;
    let strings_len = r.i32()?;
    let strings_len = usize::try_from(strings_len)
        .map_err(|_| Error::malformed(format!("type tree string buffer of {strings_len} bytes")))?;
    let mut recs = r.sub(n * rec as usize)?;
    let strings = r.bytes(strings_len)?;
    let string = |off: u32| -> Result<String> {
        if off & 0x8000_0000 != 0 {
            return Ok(common_string(off & 0x7fff_ffff).to_string());
        }
        let rest = strings.get(off as usize..).ok_or_else(|| {
            Error::malformed(format!(
                "type tree string offset {off} is past the {strings_len} byte buffer"
            ))
        })?;
        let end = rest.iter().position(|&b| b == 0).unwrap_or(rest.len());
        Ok(String::from_utf8_lossy(&rest[..end]).into_owned())
    };
    let mut nodes = Vec::with_capacity(n);
    for _ in 0..n {
        let _version = recs.u16()?;
        let level = recs.u8()?;
        let flags = recs.u8()?;
        let type_off = recs.u32()?;
        let name_off = recs.u32()?;
        let byte_size = recs.i32()?;
        let _index = recs.i32()?;
        let meta_flag = recs.u32()?;
        if version >= 19 {
            recs.skip(8)?;
        }
        nodes.push(Node {
            type_name: string(type_off)?,
            name: string(name_off)?,
            byte_size,
            level,
            is_array: flags & 1 != 0,
            meta_flag,
        });
    }
    Ok(nodes)
}

/// Formats 9 and 11: each node is written recursively with its strings inline.
fn read_legacy_tree(r: &mut Reader, level: u8, out: &mut Vec<Node>, limits: &Limits) -> Result<()> {
    if level > 64 {
        return Err(Error::malformed("type tree nests deeper than 64 levels"));
    }
    let type_name = r.cstr()?.to_string();
    let name = r.cstr()?.to_string();
    let byte_size = r.i32()?;
    let _index = r.i32()?;
    let is_array = r.i32()? != 0;
    let _version = r.i32()?;
    let meta_flag = r.u32()?;
    out.push(Node {
        type_name,
        name,
        byte_size,
        level,
        is_array,
        meta_flag,
    });
    let children = r.count_i32(24, limits, "type tree children")?;
    for _ in 0..children {
        read_legacy_tree(r, level + 1, out, limits)?;
    }
    Ok(())
}

/// Unity's common string table (offsets into the engine's built-in buffer), limited to the
/// entries a texture or asset bundle tree uses and their neighbours; an unknown offset gives
/// a placeholder name, which only matters if a field we read were named by it.
fn common_string(off: u32) -> &'static str {
    match off {
        0 => "AABB",
        5 => "AnimationClip",
        19 => "AnimationCurve",
        34 => "AnimationState",
        49 => "Array",
        55 => "Base",
        60 => "BitField",
        69 => "bitset",
        76 => "bool",
        81 => "char",
        86 => "ColorRGBA",
        96 => "Component",
        106 => "data",
        111 => "deque",
        117 => "double",
        124 => "dynamic_array",
        138 => "FastPropertyName",
        155 => "first",
        161 => "float",
        167 => "Font",
        172 => "GameObject",
        183 => "Generic Mono",
        196 => "GradientNEW",
        208 => "GUID",
        213 => "GUIStyle",
        222 => "int",
        226 => "list",
        231 => "long long",
        241 => "map",
        245 => "Matrix4x4f",
        256 => "MdFour",
        263 => "MonoBehaviour",
        277 => "MonoScript",
        288 => "m_ByteSize",
        299 => "m_Curve",
        307 => "m_EditorClassIdentifier",
        331 => "m_EditorHideFlags",
        349 => "m_Enabled",
        359 => "m_ExtensionPtr",
        374 => "m_GameObject",
        387 => "m_Index",
        395 => "m_IsArray",
        405 => "m_IsStatic",
        416 => "m_MetaFlag",
        427 => "m_Name",
        434 => "m_ObjectHideFlags",
        452 => "m_PrefabInternal",
        469 => "m_PrefabParentObject",
        490 => "m_Script",
        499 => "m_StaticEditorFlags",
        519 => "m_Type",
        526 => "m_Version",
        536 => "Object",
        543 => "pair",
        548 => "PPtr<Component>",
        564 => "PPtr<GameObject>",
        581 => "PPtr<Material>",
        596 => "PPtr<MonoBehaviour>",
        616 => "PPtr<MonoScript>",
        633 => "PPtr<Object>",
        646 => "PPtr<Prefab>",
        659 => "PPtr<Sprite>",
        672 => "PPtr<TextAsset>",
        688 => "PPtr<Texture>",
        702 => "PPtr<Texture2D>",
        718 => "PPtr<Transform>",
        734 => "Prefab",
        741 => "Quaternionf",
        753 => "Rectf",
        759 => "RectInt",
        767 => "RectOffset",
        778 => "second",
        785 => "set",
        789 => "short",
        795 => "size",
        800 => "SInt16",
        807 => "SInt32",
        814 => "SInt64",
        821 => "SInt8",
        827 => "staticvector",
        840 => "string",
        847 => "TextAsset",
        857 => "TextMesh",
        866 => "Texture",
        874 => "Texture2D",
        884 => "Transform",
        894 => "TypelessData",
        907 => "UInt16",
        914 => "UInt32",
        921 => "UInt64",
        928 => "UInt8",
        934 => "unsigned int",
        947 => "unsigned long long",
        966 => "unsigned short",
        981 => "vector",
        988 => "Vector2f",
        997 => "Vector3f",
        1006 => "Vector4f",
        1015 => "m_ScriptingClassIdentifier",
        1042 => "Gradient",
        1051 => "Type*",
        1057 => "int2_storage",
        1070 => "int3_storage",
        1083 => "BoundsInt",
        1093 => "m_CorrespondingSourceObject",
        1121 => "m_PrefabInstance",
        1138 => "m_PrefabAsset",
        1152 => "FileSize",
        1161 => "Hash128",
        1169 => "RenderingLayerMask",
        1188 => "fixed_array",
        1200 => "EntityId",
        _ => "(unknown common string)",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::io::{BytesSource, ErrorKind};

    fn header_v17(meta: &[u8]) -> Vec<u8> {
        let total = 20 + meta.len() as u32;
        let mut f = Vec::new();
        f.extend((meta.len() as u32).to_be_bytes());
        f.extend(total.to_be_bytes());
        f.extend(17u32.to_be_bytes());
        f.extend(total.to_be_bytes());
        f.extend([0, 0, 0, 0]);
        f.extend(meta);
        f
    }

    #[test]
    fn truncated_header_is_an_error_naming_the_file() {
        let f = header_v17(b"2019.4.0f1\0");
        let cut = f[..f.len() - 3].to_vec();
        let e = parse(&BytesSource::new("level0", cut), &Limits::default()).unwrap_err();
        assert_eq!(e.kind, ErrorKind::Truncated, "{e}");
        assert_eq!(e.file.as_deref(), Some("level0"));
    }

    #[test]
    fn hostile_object_count_is_refused() {
        let mut meta = b"2019.4.0f1\0".to_vec();
        meta.extend(5i32.to_le_bytes()); // platform
        meta.push(0); // no type tree
        meta.extend(0i32.to_le_bytes()); // types
        meta.extend(0x7fff_ffffi32.to_le_bytes()); // objects
        let e = parse(
            &BytesSource::new("a.assets", header_v17(&meta)),
            &Limits::default(),
        )
        .unwrap_err();
        assert!(e.to_string().contains("objects"), "{e}");
        assert_eq!(e.kind, ErrorKind::LimitExceeded, "{e}");
    }

    #[test]
    fn negative_type_count_is_refused() {
        let mut meta = b"2019.4.0f1\0".to_vec();
        meta.extend(5i32.to_le_bytes());
        meta.push(0);
        meta.extend((-1i32).to_le_bytes());
        let e = parse(
            &BytesSource::new("a.assets", header_v17(&meta)),
            &Limits::default(),
        )
        .unwrap_err();
        assert_eq!(e.kind, ErrorKind::Malformed, "{e}");
    }

    /// The common string table is one buffer of NUL-terminated strings, so each offset is the
    /// previous one plus the previous string's length and its NUL (checks the table against itself;
    /// offsets as Unity's engine buffer, see UnityPy's CommonString).
    #[test]
    fn common_string_offsets_follow_the_lengths() {
        let mut off = 0u32;
        let mut n = 0;
        while off <= 1200 {
            let s = common_string(off);
            assert_ne!(s, "(unknown common string)", "gap at {off}");
            off += s.len() as u32 + 1;
            n += 1;
        }
        assert_eq!(n, 112);
    }

    #[test]
    fn sniff_wants_the_file_length_to_match() {
        let f = header_v17(b"2019.4.0f1\0");
        assert!(sniff(&f, f.len() as u64));
        assert!(!sniff(&f, f.len() as u64 + 1));
        assert!(!sniff(b"DDS ", 4));
    }
}
