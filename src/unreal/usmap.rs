//! .usmap mapping files: the property schemas that unversioned packages (PKG_UnversionedProperties)
//! leave out. Layout learned from the public descriptions of CUE4Parse's UsmapParser, UAssetAPI's
//! Usmap and UsmapDotNet (format only, no code taken): u16 magic 0x30C4, u8 version, [v>=1: i32
//! has-versioning + UE4/UE5 object versions, custom versions, net CL], u8 compression, u32
//! compressed and u32 decompressed size, then names, enums and structs with property schemas.

// Without the `usmap` feature (the page's first wasm module) the unversioned reader is left out.
#![cfg_attr(not(feature = "usmap"), allow(dead_code))]

use crate::io::{Error, Limits, Reader, Result};
use std::collections::HashMap;

pub const MAGIC: u16 = 0x30C4;

/// EUsmapVersion: 0 Initial, 1 PackageVersioning, 2 LongFName, 3 LargeEnums, 4 ExplicitEnumValues.
const V_PACKAGE_VERSIONING: u8 = 1;
const V_LONG_FNAME: u8 = 2;
const V_LARGE_ENUMS: u8 = 3;
const V_EXPLICIT_ENUM_VALUES: u8 = 4;

/// Nesting of property types (Map<Array<Struct>> ...): real schemas stay under 4; a hostile file
/// must not recurse without bound.
const MAX_TYPE_DEPTH: u32 = 16;

/// EPropertyType of the usmap format (CUE4Parse's EPropertyType order).
pub mod kind {
    pub const BYTE: u8 = 0;
    pub const BOOL: u8 = 1;
    pub const INT: u8 = 2;
    pub const FLOAT: u8 = 3;
    pub const OBJECT: u8 = 4;
    pub const NAME: u8 = 5;
    pub const DELEGATE: u8 = 6;
    pub const DOUBLE: u8 = 7;
    pub const ARRAY: u8 = 8;
    pub const STRUCT: u8 = 9;
    pub const STR: u8 = 10;
    pub const TEXT: u8 = 11;
    pub const INTERFACE: u8 = 12;
    pub const MULTICAST_DELEGATE: u8 = 13;
    pub const WEAK_OBJECT: u8 = 14;
    pub const LAZY_OBJECT: u8 = 15;
    pub const ASSET_OBJECT: u8 = 16;
    pub const SOFT_OBJECT: u8 = 17;
    pub const UINT64: u8 = 18;
    pub const UINT32: u8 = 19;
    pub const UINT16: u8 = 20;
    pub const INT64: u8 = 21;
    pub const INT16: u8 = 22;
    pub const INT8: u8 = 23;
    pub const MAP: u8 = 24;
    pub const SET: u8 = 25;
    pub const ENUM: u8 = 26;
    pub const FIELD_PATH: u8 = 27;
    pub const OPTIONAL: u8 = 28;
    pub const UTF8_STR: u8 = 29;
    pub const ANSI_STR: u8 = 30;

    pub const NAMES: &[&str] = &[
        "ByteProperty",
        "BoolProperty",
        "IntProperty",
        "FloatProperty",
        "ObjectProperty",
        "NameProperty",
        "DelegateProperty",
        "DoubleProperty",
        "ArrayProperty",
        "StructProperty",
        "StrProperty",
        "TextProperty",
        "InterfaceProperty",
        "MulticastDelegateProperty",
        "WeakObjectProperty",
        "LazyObjectProperty",
        "AssetObjectProperty",
        "SoftObjectProperty",
        "UInt64Property",
        "UInt32Property",
        "UInt16Property",
        "Int64Property",
        "Int16Property",
        "Int8Property",
        "MapProperty",
        "SetProperty",
        "EnumProperty",
        "FieldPathProperty",
        "OptionalProperty",
        "Utf8StrProperty",
        "AnsiStrProperty",
    ];
}

/// A property's type as the schema gives it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PropType {
    pub kind: u8,
    /// EnumProperty: the enum; StructProperty: the struct.
    pub type_name: Option<String>,
    /// Array/Set/Optional/Enum: the element (or underlying) type; Map: key then value.
    pub inner: Vec<PropType>,
}

impl PropType {
    pub fn kind_name(&self) -> &'static str {
        kind::NAMES
            .get(self.kind as usize)
            .copied()
            .unwrap_or("UnknownProperty")
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Prop {
    /// Schema index inside its struct (the super's properties come first, notes in `schema`).
    pub index: u16,
    pub array_size: u8,
    pub name: String,
    pub ty: PropType,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Struct {
    pub name: String,
    pub super_name: Option<String>,
    /// Properties counting static-array elements one by one.
    pub prop_count: u16,
    pub props: Vec<Prop>,
}

#[derive(Debug, Clone, Default)]
pub struct Usmap {
    pub version: u8,
    pub names: Vec<String>,
    /// Enum name -> (value, entry name).
    pub enums: HashMap<String, Vec<(u64, String)>>,
    pub structs: HashMap<String, Struct>,
}

fn name_at(names: &[String], r: &mut Reader) -> Result<String> {
    let at = r.abs_pos();
    let i = r.u32()? as usize;
    names
        .get(i)
        .cloned()
        .ok_or_else(|| Error::malformed(format!("name index {i} at offset {at} is out of range")))
}

fn opt_name_at(names: &[String], r: &mut Reader) -> Result<Option<String>> {
    let at = r.abs_pos();
    let i = r.u32()?;
    if i == u32::MAX {
        return Ok(None);
    }
    names
        .get(i as usize)
        .cloned()
        .map(Some)
        .ok_or_else(|| Error::malformed(format!("name index {i} at offset {at} is out of range")))
}

fn read_type(names: &[String], r: &mut Reader, depth: u32) -> Result<PropType> {
    if depth > MAX_TYPE_DEPTH {
        return Err(Error::malformed("property types nest too deeply"));
    }
    let at = r.abs_pos();
    let k = r.u8()?;
    let mut t = PropType {
        kind: k,
        type_name: None,
        inner: Vec::new(),
    };
    match k {
        kind::ENUM => {
            t.inner.push(read_type(names, r, depth + 1)?);
            t.type_name = Some(name_at(names, r)?);
        }
        kind::STRUCT => t.type_name = Some(name_at(names, r)?),
        kind::ARRAY | kind::SET | kind::OPTIONAL => t.inner.push(read_type(names, r, depth + 1)?),
        kind::MAP => {
            t.inner.push(read_type(names, r, depth + 1)?);
            t.inner.push(read_type(names, r, depth + 1)?);
        }
        k if k <= kind::ANSI_STR => {}
        k => {
            return Err(Error::malformed(format!(
                "property type {k} at offset {at} is not a usmap EPropertyType"
            )))
        }
    }
    Ok(t)
}

/// The uncompressed body of a usmap file, checked against the declared sizes.
fn body(data: &[u8], limits: &Limits) -> Result<(u8, Vec<u8>)> {
    let mut r = Reader::new(data);
    let magic = r.u16()?;
    if magic != MAGIC {
        return Err(Error::not_recognised(format!(
            "not a .usmap mapping file (magic 0x{magic:04X}, expected 0x30C4)"
        )));
    }
    let version = r.u8()?;
    if version > V_EXPLICIT_ENUM_VALUES {
        return Err(
            Error::unsupported(format!("usmap version {version} (known: 0-4)"))
                .at_field("usmap/Version"),
        );
    }
    if version >= V_PACKAGE_VERSIONING && r.bool32()? {
        r.skip(8)?; // FileVersionUE4, FileVersionUE5
        let n = r.count_u32(20, limits, "usmap custom versions")?;
        r.skip(n * 20)?;
        r.skip(4)?; // NetCL
    }
    let method = r.u8()?;
    let packed = r.u32()? as usize;
    let size = r.u32()? as u64;
    limits.check_alloc(size, "the usmap body")?;
    let payload = r.bytes(packed).map_err(|_| {
        Error::malformed(format!(
            "the usmap says {packed} compressed bytes but the file has {} left",
            data.len() - r.pos()
        ))
        .at_field("usmap/CompressedSize")
    })?;
    let out = match method {
        0 => payload.to_vec(),
        1 => crate::io::compress::decompress(
            crate::io::compress::Method::Oodle,
            payload,
            size,
            limits,
        )
        .map_err(|e| e.at_field("usmap/CompressedData"))?,
        2 => unbrotli(payload, size)?,
        3 => crate::io::unzstd(payload, size, "usmap ZStandard body")?,
        m => {
            return Err(Error::unsupported(format!(
                "usmap compression method {m} (known: 0 none, 1 Oodle, 2 Brotli, 3 ZStandard)"
            ))
            .at_field("usmap/CompressionMethod"))
        }
    };
    if out.len() as u64 != size {
        return Err(Error::malformed(format!(
            "the usmap body is {} bytes but its header says {size}",
            out.len()
        ))
        .at_field("usmap/DecompressedSize"));
    }
    Ok((version, out))
}

/// A Brotli-compressed usmap body (method 2), at most `size` + 1 bytes out: the caller compares
/// the length with the header's.
#[cfg(feature = "brotli")]
fn unbrotli(raw: &[u8], size: u64) -> Result<Vec<u8>> {
    use std::io::Read;
    let mut out = Vec::with_capacity(size.min(raw.len() as u64 * 16) as usize);
    brotli_decompressor::Decompressor::new(raw, 64 * 1024)
        .take(size.saturating_add(1))
        .read_to_end(&mut out)
        .map_err(|e| {
            Error::malformed(format!("the usmap's Brotli body does not decompress: {e}"))
                .at_field("usmap/CompressedData")
        })?;
    Ok(out)
}

#[cfg(not(feature = "brotli"))]
fn unbrotli(_raw: &[u8], _size: u64) -> Result<Vec<u8>> {
    Err(Error::unsupported(
        "this usmap is Brotli-compressed: the page leaves out the Brotli decoder to stay small; \
         open the game with the texscope CLI, or re-export the usmap uncompressed, with Oodle or \
         with ZStandard",
    ))
}

/// Parses a whole .usmap file.
#[cfg(not(feature = "usmap"))]
pub fn parse(_data: &[u8], _limits: &Limits) -> Result<Usmap> {
    Err(crate::io::Error::not_in_build(
        "a .usmap mapping file",
        "usmap",
    ))
}

#[cfg(feature = "usmap")]
pub fn parse(data: &[u8], limits: &Limits) -> Result<Usmap> {
    let (version, body) = body(data, limits)?;
    let mut r = Reader::new(&body);
    let n = r.count_u32(1, limits, "usmap names")?;
    let mut names = Vec::with_capacity(n);
    for _ in 0..n {
        let len = if version >= V_LONG_FNAME {
            r.u16()? as usize
        } else {
            r.u8()? as usize
        };
        names.push(r.string_lossy(len)?);
    }
    let n = r.count_u32(5, limits, "usmap enums")?;
    let mut enums = HashMap::with_capacity(n);
    for _ in 0..n {
        let name = name_at(&names, &mut r)?;
        let count = if version >= V_LARGE_ENUMS {
            r.u16()? as usize
        } else {
            r.u8()? as usize
        };
        let mut entries = Vec::with_capacity(count);
        for k in 0..count {
            let value = if version >= V_EXPLICIT_ENUM_VALUES {
                r.u64()?
            } else {
                k as u64
            };
            entries.push((value, name_at(&names, &mut r)?));
        }
        enums.insert(name, entries);
    }
    let n = r.count_u32(12, limits, "usmap structs")?;
    let mut structs = HashMap::with_capacity(n);
    for _ in 0..n {
        let name = name_at(&names, &mut r)?;
        let super_name = opt_name_at(&names, &mut r)?;
        let prop_count = r.u16()?;
        let serializable = r.u16()?;
        let mut props = Vec::with_capacity(serializable as usize);
        for _ in 0..serializable {
            let index = r.u16()?;
            let array_size = r.u8()?;
            let pname = name_at(&names, &mut r)?;
            let ty = read_type(&names, &mut r, 0)?;
            props.push(Prop {
                index,
                array_size,
                name: pname,
                ty,
            });
        }
        structs.insert(
            name.clone(),
            Struct {
                name,
                super_name,
                prop_count,
                props,
            },
        );
    }
    // Extensions (CEXT ...) may follow; they carry nothing the texture walk uses.
    Ok(Usmap {
        version,
        names,
        enums,
        structs,
    })
}

impl Usmap {
    /// The flattened schema of `class`: the class's own properties first, then its super's, and
    /// so on up the chain (CUE4Parse's TypeMappings look an index past a struct's PropertyCount up
    /// in its super; the Clay packages confirm it: Texture2D's ImportedSize is slot 4, Texture's
    /// LightingGuid slot 5), one slot per static-array element.
    pub fn schema(&self, class: &str) -> Result<Vec<Option<(String, PropType)>>> {
        let mut chain = Vec::new();
        let mut at = Some(class.to_string());
        while let Some(c) = at {
            let s = self
                .structs
                .get(&c)
                .ok_or_else(|| Error::unsupported(format!("the usmap has no schema for {c}")))?;
            chain.push(s);
            if chain.len() > 64 {
                return Err(Error::malformed(format!(
                    "the usmap's super chain of {class} loops"
                )));
            }
            at = s.super_name.clone();
        }
        let mut out = Vec::new();
        for s in chain.iter() {
            let base = out.len();
            out.resize(base + s.prop_count as usize, None);
            for p in &s.props {
                for k in 0..p.array_size.max(1) as usize {
                    let i = base + p.index as usize + k;
                    if i >= out.len() {
                        return Err(Error::malformed(format!(
                            "the usmap's {} property {} lies past its {} slots",
                            s.name, p.name, s.prop_count
                        )));
                    }
                    out[i] = Some((p.name.clone(), p.ty.clone()));
                }
            }
        }
        Ok(out)
    }

    /// The name of `value` in enum `name`.
    pub fn enum_name(&self, name: &str, value: u64) -> Option<&str> {
        self.enums
            .get(name)?
            .iter()
            .find(|(v, _)| *v == value)
            .map(|(_, n)| n.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn header(version: u8, method: u8, body: &[u8], size: u32) -> Vec<u8> {
        let mut d = MAGIC.to_le_bytes().to_vec();
        d.push(version);
        if version >= 1 {
            d.extend_from_slice(&0u32.to_le_bytes());
        }
        d.push(method);
        d.extend_from_slice(&(body.len() as u32).to_le_bytes());
        d.extend_from_slice(&size.to_le_bytes());
        d.extend_from_slice(body);
        d
    }

    /// A tiny usmap written by hand from the format description in the module docs.
    fn tiny_body() -> Vec<u8> {
        let mut b = Vec::new();
        let names = ["E", "A", "B", "S", "X", "Y"];
        b.extend_from_slice(&(names.len() as u32).to_le_bytes());
        for n in names {
            b.extend_from_slice(&(n.len() as u16).to_le_bytes());
            b.extend_from_slice(n.as_bytes());
        }
        b.extend_from_slice(&1u32.to_le_bytes()); // one enum E { A = 0, B = 5 }
        b.extend_from_slice(&0u32.to_le_bytes());
        b.extend_from_slice(&2u16.to_le_bytes());
        for (v, n) in [(0u64, 1u32), (5, 2)] {
            b.extend_from_slice(&v.to_le_bytes());
            b.extend_from_slice(&n.to_le_bytes());
        }
        b.extend_from_slice(&1u32.to_le_bytes()); // one struct S { int X[2]; E Y; }
        b.extend_from_slice(&3u32.to_le_bytes());
        b.extend_from_slice(&u32::MAX.to_le_bytes());
        b.extend_from_slice(&3u16.to_le_bytes());
        b.extend_from_slice(&2u16.to_le_bytes());
        b.extend_from_slice(&0u16.to_le_bytes());
        b.push(2);
        b.extend_from_slice(&4u32.to_le_bytes());
        b.push(kind::INT);
        b.extend_from_slice(&2u16.to_le_bytes());
        b.push(1);
        b.extend_from_slice(&5u32.to_le_bytes());
        b.push(kind::ENUM);
        b.push(kind::BYTE);
        b.extend_from_slice(&0u32.to_le_bytes());
        b
    }

    #[test]
    fn hand_written_usmap_parses_in_both_compressions() {
        let body = tiny_body();
        let plain = header(4, 0, &body, body.len() as u32);
        let packed = ruzstd::encoding::compress_to_vec(
            &body[..],
            ruzstd::encoding::CompressionLevel::Fastest,
        );
        let zstd = header(4, 3, &packed, body.len() as u32);
        for data in [plain, zstd] {
            let m = parse(&data, &Limits::default()).unwrap();
            assert_eq!(m.enum_name("E", 5), Some("B"));
            let s = m.schema("S").unwrap();
            assert_eq!(s.len(), 3);
            assert_eq!(s[1].as_ref().unwrap().0, "X");
            assert_eq!(s[2].as_ref().unwrap().1.type_name.as_deref(), Some("E"));
        }
    }

    #[test]
    fn bad_usmaps_are_refused_with_the_field() {
        let l = Limits::default();
        let body = tiny_body();
        // Method 2 (Brotli) over bytes that are not a Brotli stream: the decoder ends at once,
        // so the body's size disagrees with the header's, and the field is named.
        let e = parse(&header(4, 2, &body, body.len() as u32), &l).unwrap_err();
        let want = format!(
            "the usmap body is 0 bytes but its header says {}",
            body.len()
        );
        assert!(e.to_string().contains("usmap/DecompressedSize"), "{e}");
        assert!(e.to_string().contains(&want), "{e}");
        let e = parse(&header(4, 0, &body, body.len() as u32 + 1), &l).unwrap_err();
        assert!(e.to_string().contains("DecompressedSize"), "{e}");
        let e = parse(&header(9, 0, &body, body.len() as u32), &l).unwrap_err();
        assert!(e.to_string().contains("version 9"), "{e}");
        let mut cut = header(4, 0, &body, body.len() as u32);
        cut.truncate(cut.len() - 3);
        assert!(parse(&cut, &l).is_err());
        assert!(parse(&[0u8; 3], &l).is_err());
    }
}
