//! The property block at the start of a texture export: tagged (FPropertyTag, UE4 and
//! versioned UE5 packages) or unversioned (FUnversionedHeader + a .usmap schema). Only the
//! values the info panel shows are kept; a walk that meets a type it cannot size stops and says
//! where, keeping what it read before.
//! Formats learned from the public descriptions of CUE4Parse, UAssetAPI and unreal_asset (no code
//! taken): tagged = FName Name ("None" ends), FName Type, i32 Size, i32 ArrayIndex, type extras
//! (StructName + Guid, BoolVal, EnumName, InnerType, ValueType), u8 HasGuid [+ Guid], then Size
//! bytes. Unversioned = u16 fragments (bits 0-6 SkipNum, 7 HasAnyZeroes, 8 IsLast, 9-15 ValueNum),
//! a zero mask (u8 / u16 / u32 words) over the fragments that have zeroes, then the non-zero
//! values in schema order.

// Without the `usmap` feature (the page's first wasm module) the unversioned reader is left out.
#![cfg_attr(not(feature = "usmap"), allow(dead_code))]

use super::usmap::Usmap;
#[cfg(feature = "usmap")]
use super::usmap::{kind, PropType};
use crate::io::{Error, Reader, Result};

/// The facts the info panel shows, in this order.
pub const WANTED: &[&str] = &[
    "SRGB",
    "CompressionSettings",
    "LODGroup",
    "Filter",
    "AddressX",
    "AddressY",
    "AddressZ",
    "NeverStream",
    "MipGenSettings",
    "LODBias",
    "VirtualTextureStreaming",
    "CompressionNoAlpha",
    "bPreserveBorder",
    "ImportedSize",
    // TextureLightProfile (IES) and CurveLinearColorAtlas facts.
    "Brightness",
    "TextureMultiplier",
    "TextureSize",
];

/// UTexture/UTexture2D constructor values, what an unversioned package leaves out when a
/// property equals its class default (UE's Texture.cpp / Texture2D.cpp: SRGB = true, LODGroup =
/// TEXTUREGROUP_World, Filter = TF_Default, AddressX/Y = TA_Wrap, CompressionSettings = TC_Default).
pub const CLASS_DEFAULTS: &[(&str, &str)] = &[
    ("SRGB", "true"),
    ("CompressionSettings", "TC_Default"),
    ("LODGroup", "TEXTUREGROUP_World"),
    ("Filter", "TF_Default"),
    ("AddressX", "TA_Wrap"),
    ("AddressY", "TA_Wrap"),
    ("NeverStream", "false"),
];

/// TEnumAsByte properties: the usmap gives them as plain ByteProperty, the enum is UE's.
fn byte_enum(prop: &str) -> Option<&'static str> {
    Some(match prop {
        "CompressionSettings" => "TextureCompressionSettings",
        "LODGroup" => "TextureGroup",
        "Filter" => "TextureFilter",
        "AddressX" | "AddressY" | "AddressZ" => "TextureAddress",
        "MipGenSettings" => "TextureMipGenSettings",
        _ => return None,
    })
}

/// What a walk found.
#[derive(Debug, Clone, Default)]
pub struct Walk {
    /// (property, value) for every top-level property read, in stream order.
    pub values: Vec<(String, String)>,
    /// Properties present in the schema but not serialised (equal to the class default).
    pub defaulted: Vec<String>,
    /// Why the walk stopped early, if it did.
    pub stopped: Option<String>,
    /// Bytes consumed from the start of the block.
    pub end: usize,
}

impl Walk {
    pub fn get(&self, name: &str) -> Option<&str> {
        self.values
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }
}

/// Context for sizing values: names of the package (FName), the usmap, engine layout.
pub struct Ctx<'a> {
    pub names: &'a [String],
    pub usmap: Option<&'a Usmap>,
    /// UE5 large-world coordinates (object version >= 1004): FVector etc. are doubles.
    pub lwc: bool,
    /// UE5.1+ soft object paths (FTopLevelAssetPath, object version >= 1007).
    pub top_level_paths: bool,
    /// The package's UE5 object version when it states one (versioned packages; 0 otherwise):
    /// from 1011 a tagged block starts with a serialization-control byte, from 1012 each tag
    /// names its complete type (see [`walk_tagged`]).
    pub ue5: i32,
    /// The package's UE4 object version (522 when unversioned): older tags lack the struct GUID
    /// (before 441), the property GUID byte (before 503) and an array's inner type (before 282).
    pub ue4: i32,
}

/// Structs whose fields a tagged walk records too, under `Struct.Field` names: UTexture's
/// `Source` (FTextureSource, its size, slices, mips, format and compression) and each of its
/// `Blocks` (FTextureSourceBlock, one per UDIM tile).
const NESTED: &[&str] = &["TextureSource", "TextureSourceBlock"];

/// The UE4 object versions the tag layout branches on (CUE4Parse FPropertyTag / ObjectVersion).
const UE4_ARRAY_PROPERTY_INNER_TAGS: i32 = 282;
const UE4_STRUCT_GUID_IN_PROPERTY_TAG: i32 = 441;
const UE4_PROPERTY_TAG_SET_MAP_SUPPORT: i32 = 500;
const UE4_PROPERTY_GUID_IN_PROPERTY_TAG: i32 = 503;

impl Ctx<'_> {
    fn fname(&self, r: &mut Reader) -> Result<String> {
        let at = r.abs_pos();
        let i = r.i32()?;
        let n = r.i32()?;
        let s = usize::try_from(i)
            .ok()
            .and_then(|i| self.names.get(i))
            .ok_or_else(|| Error::malformed(format!("FName index {i} at offset {at}")))?;
        Ok(if n > 0 {
            format!("{s}_{}", n - 1)
        } else {
            s.clone()
        })
    }
}

fn fstring(r: &mut Reader) -> Result<String> {
    let at = r.abs_pos();
    let n = r.i32()?;
    if n == 0 {
        return Ok(String::new());
    }
    if n.unsigned_abs() > 1 << 20 {
        return Err(Error::malformed(format!("FString of {n} at offset {at}")));
    }
    let wide = n < 0;
    let len = n.unsigned_abs() as usize * if wide { 2 } else { 1 };
    Ok(super::cursor::decode_fstring(r.bytes(len)?, wide))
}

/// Binary (natively serialised) structs: their byte size, or None for a nested property struct.
fn binary_struct(name: &str, lwc: bool) -> Option<usize> {
    let f = if lwc { 8 } else { 4 };
    Some(match name {
        "Guid" => 16,
        "Color" => 4,
        "LinearColor" => 16,
        "IntPoint" => 8,
        "IntVector" => 12,
        "Vector" | "Rotator" => 3 * f,
        "Vector2D" => 2 * f,
        "Vector4" | "Quat" | "Plane" => 4 * f,
        "Box" => 6 * f + 1,
        "Box2D" => 4 * f + 1,
        "DateTime" | "Timespan" => 8,
        "FrameNumber" => 4,
        _ => return None,
    })
}

fn stop(what: impl std::fmt::Display) -> Error {
    Error::unsupported(format!("{what}"))
}

/// Reads one unversioned value of type `t`; returns its display form.
#[cfg(feature = "usmap")]
fn read_unversioned(
    ctx: &Ctx,
    r: &mut Reader,
    t: &PropType,
    prop: &str,
    depth: u32,
) -> Result<String> {
    if depth > 16 {
        return Err(Error::malformed("properties nest too deeply"));
    }
    Ok(match t.kind {
        kind::BYTE => {
            let v = r.u8()?;
            enum_value(ctx, byte_enum(prop), v as u64)
        }
        kind::BOOL => (r.u8()? != 0).to_string(),
        kind::INT => r.i32()?.to_string(),
        kind::FLOAT => r.f32()?.to_string(),
        kind::DOUBLE => r.f64()?.to_string(),
        kind::OBJECT | kind::INTERFACE | kind::WEAK_OBJECT => format!("object {}", r.i32()?),
        kind::NAME => ctx.fname(r)?,
        kind::DELEGATE => {
            r.skip(4)?;
            ctx.fname(r)?
        }
        kind::STR => fstring(r)?,
        kind::UINT64 => r.u64()?.to_string(),
        kind::INT64 => r.i64()?.to_string(),
        kind::UINT32 => r.u32()?.to_string(),
        kind::UINT16 => r.u16()?.to_string(),
        kind::INT16 => r.i16()?.to_string(),
        kind::INT8 => r.i8()?.to_string(),
        kind::SOFT_OBJECT => soft_path(ctx, r)?,
        kind::ENUM => {
            let inner = t.inner.first().ok_or_else(|| stop("enum without type"))?;
            let v = match inner.kind {
                kind::BYTE => r.u8()? as u64,
                kind::INT | kind::UINT32 => r.u32()? as u64,
                kind::INT64 | kind::UINT64 => r.u64()?,
                kind::UINT16 | kind::INT16 => r.u16()? as u64,
                kind::INT8 => r.u8()? as u64,
                _ => return Err(stop(format!("enum {prop} over {}", inner.kind_name()))),
            };
            enum_value(ctx, t.type_name.as_deref(), v)
        }
        kind::STRUCT => {
            let name = t.type_name.as_deref().unwrap_or_default();
            read_struct(ctx, r, name, depth)?
        }
        kind::ARRAY | kind::SET => {
            if t.kind == kind::SET {
                let removed = r.count_i32(1, &crate::io::Limits::default(), "set removals")?;
                if removed != 0 {
                    return Err(stop(format!("set {prop} with removals")));
                }
            }
            let inner = t.inner.first().ok_or_else(|| stop("array without type"))?;
            let n = r.count_i32(1, &crate::io::Limits::default(), "array")?;
            for _ in 0..n {
                read_unversioned(ctx, r, inner, "", depth + 1)?;
            }
            format!("{n} elements")
        }
        kind::MAP => {
            let removed = r.count_i32(1, &crate::io::Limits::default(), "map removals")?;
            if removed != 0 || t.inner.len() != 2 {
                return Err(stop(format!("map {prop} with removals")));
            }
            let n = r.count_i32(1, &crate::io::Limits::default(), "map")?;
            for _ in 0..n {
                read_unversioned(ctx, r, &t.inner[0], "", depth + 1)?;
                read_unversioned(ctx, r, &t.inner[1], "", depth + 1)?;
            }
            format!("{n} entries")
        }
        _ => {
            return Err(stop(format!(
                "{prop} is a {}, which this walk does not size",
                t.kind_name()
            )))
        }
    })
}

#[cfg(feature = "usmap")]
fn soft_path(ctx: &Ctx, r: &mut Reader) -> Result<String> {
    let mut s = ctx.fname(r)?;
    if ctx.top_level_paths {
        let asset = ctx.fname(r)?;
        if asset != "None" {
            s = format!("{s}.{asset}");
        }
    }
    let sub = fstring(r)?;
    if !sub.is_empty() {
        s = format!("{s}:{sub}");
    }
    Ok(s)
}

#[cfg(feature = "usmap")]
fn enum_value(ctx: &Ctx, enum_name: Option<&str>, v: u64) -> String {
    match (ctx.usmap, enum_name) {
        (Some(m), Some(e)) => match m.enum_name(e, v) {
            Some(n) => n.rsplit("::").next().unwrap_or(n).to_string(),
            None => v.to_string(),
        },
        _ => v.to_string(),
    }
}

#[cfg(feature = "usmap")]
fn read_struct(ctx: &Ctx, r: &mut Reader, name: &str, depth: u32) -> Result<String> {
    if let Some(n) = binary_struct(name, ctx.lwc) {
        if name == "IntPoint" {
            return Ok(format!("{}x{}", r.i32()?, r.i32()?));
        }
        r.skip(n)?;
        return Ok(format!("({name})"));
    }
    match name {
        // FPerPlatform*: bCooked, Default [, per-platform map when not cooked].
        "PerPlatformFloat" | "PerPlatformInt" | "PerPlatformBool" | "PerPlatformFrameRate" => {
            if !r.bool32()? {
                return Err(stop(format!("{name} that was not cooked")));
            }
            let v = match name {
                "PerPlatformFloat" => r.f32()?.to_string(),
                "PerPlatformFrameRate" => format!("{}/{}", r.i32()?, r.i32()?),
                _ => r.i32()?.to_string(),
            };
            return Ok(v);
        }
        "SoftObjectPath" | "SoftClassPath" => return soft_path(ctx, r),
        _ => {}
    }
    let w = walk_unversioned_inner(ctx, r, name, depth + 1)?;
    if let Some(s) = w.stopped {
        return Err(stop(s));
    }
    Ok(format!("({name})"))
}

/// Walks an unversioned property block of `class` from the reader's position.
pub fn walk_unversioned(ctx: &Ctx, r: &mut Reader, class: &str) -> Walk {
    let start = r.pos();
    #[cfg(feature = "usmap")]
    let walked = walk_unversioned_inner(ctx, r, class, 0);
    // Without the feature no .usmap can be open (usmap::parse is a NotInBuild error).
    #[cfg(not(feature = "usmap"))]
    let walked: Result<Walk> = {
        let _ = (ctx, class);
        Err(stop("properties are unversioned and no .usmap was opened"))
    };
    let mut w = match walked {
        Ok(w) => w,
        Err(e) => Walk {
            stopped: Some(e.to_string()),
            ..Walk::default()
        },
    };
    w.end = r.pos() - start;
    w
}

#[cfg(feature = "usmap")]
fn walk_unversioned_inner(ctx: &Ctx, r: &mut Reader, class: &str, depth: u32) -> Result<Walk> {
    let usmap = ctx
        .usmap
        .ok_or_else(|| stop("properties are unversioned and no .usmap was opened"))?;
    let schema = usmap.schema(class)?;
    // Fragments: (first schema index, value count, has zeroes).
    let mut frags = Vec::new();
    let mut idx = 0usize;
    loop {
        let f = r.u16()?;
        let skip = (f & 0x7F) as usize;
        let zeroes = f & 0x80 != 0;
        let last = f & 0x100 != 0;
        let n = (f >> 9) as usize;
        idx += skip;
        frags.push((idx, n, zeroes));
        idx += n;
        if idx > schema.len() {
            return Err(Error::malformed(format!(
                "unversioned header of {class} names property {idx} of {}",
                schema.len()
            )));
        }
        if last {
            break;
        }
    }
    let zero_bits: usize = frags.iter().filter(|f| f.2).map(|f| f.1).sum();
    let mut mask = Vec::with_capacity(zero_bits);
    if zero_bits > 0 {
        let words: Vec<u32> = if zero_bits <= 8 {
            vec![r.u8()? as u32]
        } else if zero_bits <= 16 {
            vec![r.u16()? as u32]
        } else {
            (0..zero_bits.div_ceil(32))
                .map(|_| r.u32())
                .collect::<Result<_>>()?
        };
        for i in 0..zero_bits {
            mask.push(words[i / 32] >> (i % 32) & 1 != 0);
        }
    }
    let mut w = Walk::default();
    let mut serialised = vec![false; schema.len()];
    let mut zi = 0;
    for (first, n, zeroes) in frags {
        for i in first..first + n {
            serialised[i] = true;
            let is_zero = if zeroes {
                zi += 1;
                mask[zi - 1]
            } else {
                false
            };
            let Some((name, t)) = &schema[i] else {
                return Err(Error::malformed(format!(
                    "unversioned header of {class} names schema slot {i}, which has no property"
                )));
            };
            if is_zero {
                let v = match t.kind {
                    kind::BOOL => "false".to_string(),
                    kind::BYTE => enum_value(ctx, byte_enum(name), 0),
                    kind::ENUM => enum_value(ctx, t.type_name.as_deref(), 0),
                    _ => "0".into(),
                };
                if depth == 0 {
                    w.values.push((name.clone(), v));
                }
                continue;
            }
            match read_unversioned(ctx, r, t, name, depth) {
                Ok(v) => {
                    if depth == 0 {
                        w.values.push((name.clone(), v));
                    }
                }
                Err(e) => {
                    if depth > 0 {
                        return Err(e);
                    }
                    w.stopped = Some(format!("stopped at {name}: {e}"));
                    return Ok(w);
                }
            }
        }
    }
    if depth == 0 {
        w.defaulted = schema
            .iter()
            .zip(&serialised)
            .filter(|(_, s)| !**s)
            .filter_map(|(p, _)| p.as_ref().map(|p| p.0.clone()))
            .collect();
    }
    Ok(w)
}

/// Walks a tagged property block from the reader's position until "None".
///
/// Tag forms (docs/unreal.md, UE PropertyTag.cpp as CUE4Parse and UAssetAPI describe it):
/// before UE5 object version 1012, FName Name, FName Type, i32 Size, i32 ArrayIndex, the type's
/// extras (StructName + Guid, BoolVal, EnumName, InnerType, ValueType), u8 HasGuid [+ Guid]; from
/// 1012 (PROPERTY_TAG_COMPLETE_TYPE_NAME), FName Name, the complete type as a pre-order tree of
/// (FName, i32 parameter count) nodes — `StructProperty(IntPoint(/Script/CoreUObject))` —, i32
/// Size, u8 EPropertyTagFlags (1 HasArrayIndex, 2 HasPropertyGuid, 4 HasPropertyExtensions,
/// 8 HasBinaryOrNativeSerialize, 0x10 BoolTrue, 0x20 SkippedSerialize) and the fields those flags
/// announce. From 1011 the block of an object starts with a u8 EClassSerializationControlExtension
/// (+ u8 operation when bit 2 is set). Checked on the UE 5.8 Tagged fixtures.
pub fn walk_tagged(ctx: &Ctx, r: &mut Reader) -> Walk {
    let start = r.pos();
    let mut w = Walk::default();
    if let Err(e) = tagged_inner(ctx, r, &mut w) {
        w.stopped = Some(e.to_string());
    }
    w.end = r.pos() - start;
    w
}

/// One parsed tag: type name, size, bool value and the type's first parameter (struct or enum
/// name) where it has one.
struct Tag {
    ty: String,
    size: usize,
    bool_val: Option<bool>,
    param: Option<String>,
}

/// PROPERTY_TAG_EXTENSION_AND_OVERRIDABLE_SERIALIZATION and PROPERTY_TAG_COMPLETE_TYPE_NAME.
const UE5_TAG_EXTENSION: i32 = 1011;
const UE5_COMPLETE_TYPE_NAME: i32 = 1012;

/// A complete type name (pre-order (FName, parameter count) nodes): its first node and the
/// first node of its first parameter. At most 64 nodes, 8 deep.
fn type_name(ctx: &Ctx, r: &mut Reader) -> Result<(String, Option<String>)> {
    let mut first = None;
    let mut param = None;
    let mut pending = 1u32;
    let mut nodes = 0;
    while pending > 0 {
        nodes += 1;
        if nodes > 64 {
            return Err(Error::malformed(
                "a property type name of more than 64 nodes",
            ));
        }
        let name = ctx.fname(r)?;
        let params = r.i32()?;
        if !(0..=8).contains(&params) {
            return Err(Error::malformed(format!(
                "property type {name} with {params} parameters"
            )));
        }
        if first.is_none() {
            first = Some(name);
        } else if param.is_none() {
            param = Some(name);
        }
        pending = pending - 1 + params as u32;
    }
    Ok((first.unwrap_or_default(), param))
}

fn read_tag(ctx: &Ctx, r: &mut Reader, name: &str) -> Result<Tag> {
    if ctx.ue5 >= UE5_COMPLETE_TYPE_NAME {
        let (ty, param) = type_name(ctx, r)?;
        let size = r.i32()?;
        let flags = r.u8()?;
        if flags & 1 != 0 {
            r.i32()?; // ArrayIndex
        }
        if flags & 2 != 0 {
            r.skip(16)?; // property GUID
        }
        if flags & 4 != 0 {
            let ext = r.u8()?;
            if ext & 2 != 0 {
                // OverridableInformation: the u8 overridden-property operation and the bool
                // bExperimentalOverridableLogic, which archives write as 4 bytes (CUE4Parse
                // FPropertyTag reads it with FArchive.ReadBoolean, an int32).
                r.skip(5)?;
            }
        }
        let size = usize::try_from(size)
            .map_err(|_| Error::malformed(format!("property {name} of size {size}")))?;
        let bool_val = (ty == "BoolProperty").then_some(flags & 0x10 != 0);
        return Ok(Tag {
            ty,
            size,
            bool_val,
            param,
        });
    }
    let ty = ctx.fname(r)?;
    let size = r.i32()?;
    let size = usize::try_from(size)
        .map_err(|_| Error::malformed(format!("property {name} of size {size}")))?;
    let _array_index = r.i32()?;
    let mut bool_val = None;
    let mut param = None;
    let ue4 = if ctx.ue4 > 0 { ctx.ue4 } else { i32::MAX };
    match ty.as_str() {
        "StructProperty" => {
            param = Some(ctx.fname(r)?);
            if ue4 >= UE4_STRUCT_GUID_IN_PROPERTY_TAG {
                r.skip(16)?;
            }
        }
        "BoolProperty" => bool_val = Some(r.u8()? != 0),
        "ByteProperty" | "EnumProperty" => param = Some(ctx.fname(r)?),
        "ArrayProperty" if ue4 >= UE4_ARRAY_PROPERTY_INNER_TAGS => param = Some(ctx.fname(r)?),
        "OptionalProperty" => {
            ctx.fname(r)?;
        }
        "SetProperty" if ue4 >= UE4_PROPERTY_TAG_SET_MAP_SUPPORT => {
            ctx.fname(r)?;
        }
        "MapProperty" if ue4 >= UE4_PROPERTY_TAG_SET_MAP_SUPPORT => {
            ctx.fname(r)?;
            ctx.fname(r)?;
        }
        _ => {}
    }
    if ue4 >= UE4_PROPERTY_GUID_IN_PROPERTY_TAG && r.u8()? != 0 {
        r.skip(16)?; // property GUID
    }
    if ctx.ue5 >= UE5_TAG_EXTENSION {
        // UE5 1011 (before complete type names): a u8 EPropertyTagExtension after the GUID, and
        // when its OverridableInformation bit (2) is set the override operation and a bool
        // (CUE4Parse FPropertyTag, the non-complete-type branch): u8 + a 4-byte bool.
        if r.u8()? & 2 != 0 {
            r.skip(5)?;
        }
    }
    Ok(Tag {
        ty,
        size,
        bool_val,
        param,
    })
}

fn tagged_inner(ctx: &Ctx, r: &mut Reader, w: &mut Walk) -> Result<()> {
    if ctx.ue5 >= UE5_TAG_EXTENSION {
        let control = r.u8()?;
        if control & 2 != 0 {
            r.u8()?; // class-level overridden-property operation
        }
    }
    tagged_list(ctx, r, w, "", 0)
}

/// One list of tags up to "None"; `prefix` names the struct it is nested in ("Source.").
fn tagged_list(ctx: &Ctx, r: &mut Reader, w: &mut Walk, prefix: &str, depth: u32) -> Result<()> {
    if depth > 4 {
        return Err(Error::malformed("tagged structs nest too deeply"));
    }
    for _ in 0..4096 {
        let name = ctx.fname(r)?;
        if name == "None" {
            return Ok(());
        }
        let tag = read_tag(ctx, r, &name)?;
        let mut v = r.sub(tag.size)?;
        let enum_name = tag.param.as_deref();
        let name = format!("{prefix}{name}");
        if tag.ty == "StructProperty" && enum_name.is_some_and(|s| NESTED.contains(&s)) {
            tagged_list(ctx, &mut v, w, &format!("{name}."), depth + 1)?;
            continue;
        }
        if tag.ty == "ArrayProperty" && enum_name == Some("StructProperty") {
            // An array of structs: count, one inner tag (from ARRAY_PROPERTY_INNER_TAGS), then
            // each element's own tag list. Elements of a NESTED struct are recorded as
            // `Name[i].Field`; others are left as their size.
            let n = v.i32()?;
            w.values.push((name.clone(), format!("{n} elements")));
            if !(0..=4096).contains(&n) {
                continue;
            }
            // From PROPERTY_TAG_COMPLETE_TYPE_NAME the array's own tag names the element struct
            // and no inner tag follows (assumed from the tag carrying the whole type); the
            // walk only descends into FTextureSource's Blocks.
            let nested = if ctx.ue5 >= UE5_COMPLETE_TYPE_NAME {
                name == "Source.Blocks"
            } else {
                let elements = (|| {
                    let inner_name = ctx.fname(&mut v)?;
                    read_tag(ctx, &mut v, &inner_name)
                })();
                elements.is_ok_and(|t| t.param.as_deref().is_some_and(|s| NESTED.contains(&s)))
            };
            if nested {
                for i in 0..n {
                    if tagged_list(ctx, &mut v, w, &format!("{name}[{i}]."), depth + 1).is_err() {
                        break;
                    }
                }
            }
            continue;
        }
        let value = match (tag.ty.as_str(), tag.bool_val) {
            (_, Some(b)) => b.to_string(),
            ("ByteProperty", _) if enum_name.is_some_and(|e| e != "None") && tag.size == 8 => {
                enum_short(&ctx.fname(&mut v)?)
            }
            ("ByteProperty", _) if tag.size == 1 => v.u8()?.to_string(),
            ("EnumProperty", _) => enum_short(&ctx.fname(&mut v)?),
            ("IntProperty", _) => v.i32()?.to_string(),
            ("UInt32Property", _) => v.u32()?.to_string(),
            ("FloatProperty", _) => v.f32()?.to_string(),
            ("DoubleProperty", _) => v.f64()?.to_string(),
            ("NameProperty", _) => ctx.fname(&mut v)?,
            ("StructProperty", _) if enum_name == Some("Guid") && tag.size == 16 => {
                v.bytes(16)?.iter().map(|b| format!("{b:02x}")).collect()
            }
            ("ArrayProperty", _) if tag.size >= 4 && SOURCE_ARRAYS.contains(&name.as_str()) => {
                source_array(ctx, &mut v, &name, tag.size, w)?
            }
            ("ArrayProperty", _) if tag.size >= 4 => format!("{} elements", v.i32()?),
            ("StructProperty", _) if enum_name == Some("IntPoint") && tag.size == 8 => {
                format!("{}x{}", v.i32()?, v.i32()?)
            }
            (ty, _) => format!("({ty}, {} bytes)", tag.size),
        };
        w.values.push((name, value));
    }
    Err(Error::malformed("more than 4096 tagged properties"))
}

/// FTextureSource's arrays of plain values the editor reader needs, recorded element by element
/// as `Name[i]`: `LayerFormat` (UE 4.23+, one ETextureSourceFormat per layer) and
/// `BlockDataOffsets` (UE5, where each block starts in the payload).
const SOURCE_ARRAYS: &[&str] = &["Source.LayerFormat", "Source.BlockDataOffsets"];

/// One of [`SOURCE_ARRAYS`]: an i32 count, then 8 bytes an element. LayerFormat's elements are
/// FNames (an enum byte property is stored by name; the shared UE 5.1-5.7 samples hold
/// `01 00 00 00` + the FName of their one format), BlockDataOffsets' are i64 (the same samples:
/// one 0). A count the size does not fit is left as its count alone.
fn source_array(
    ctx: &Ctx,
    v: &mut Reader,
    name: &str,
    size: usize,
    w: &mut Walk,
) -> Result<String> {
    let n = v.i32()?;
    let fits = usize::try_from(n).is_ok_and(|n| n <= 4096 && size == 4 + 8 * n);
    if fits {
        for i in 0..n {
            let value = if name == "Source.LayerFormat" {
                enum_short(&ctx.fname(v)?)
            } else {
                v.i64()?.to_string()
            };
            w.values.push((format!("{name}[{i}]"), value));
        }
    }
    Ok(format!("{n} elements"))
}

fn enum_short(s: &str) -> String {
    s.rsplit("::").next().unwrap_or(s).to_string()
}
