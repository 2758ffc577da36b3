//! Reads one object's fields by walking a type tree (the file's own, or one from the stripped
//! layout table). Byte arrays (image data, platform blobs) are not read: their offset and length
//! are recorded, so a texture's pixels stay in place until a mip is decoded.

use super::serialized::Node;
use crate::io::{read_range, Endian, Error, Limits, Result, Source};

#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    Int(i64),
    UInt(u64),
    Float(f64),
    Bool(bool),
    Str(String),
    /// A byte array left in the file: absolute offset in the object's source and length.
    Bytes {
        offset: u64,
        len: u64,
    },
    Array(Vec<Value>),
    Struct(Vec<(String, Value)>),
}

impl Value {
    /// A field of a struct by name; a struct holding only an array (vector, map) looks through it.
    pub fn get(&self, name: &str) -> Option<&Value> {
        match self {
            Value::Struct(f) => f.iter().find(|(n, _)| n == name).map(|(_, v)| v),
            _ => None,
        }
    }

    /// Follows a dotted path: `m_TextureSettings.m_FilterMode`.
    pub fn path(&self, path: &str) -> Option<&Value> {
        path.split('.').try_fold(self, |v, n| v.get(n))
    }

    pub fn as_i64(&self) -> Option<i64> {
        match *self {
            Value::Int(v) => Some(v),
            Value::UInt(v) => i64::try_from(v).ok(),
            Value::Bool(b) => Some(b as i64),
            _ => None,
        }
    }

    pub fn as_f64(&self) -> Option<f64> {
        match *self {
            Value::Float(v) => Some(v),
            _ => self.as_i64().map(|v| v as f64),
        }
    }

    pub fn as_str(&self) -> Option<&str> {
        match self {
            Value::Str(s) => Some(s),
            _ => None,
        }
    }

    /// The elements of a vector or map (the struct around its `Array`).
    pub fn elements(&self) -> &[Value] {
        match self {
            Value::Array(a) => a,
            Value::Struct(f) if f.len() == 1 => f[0].1.elements(),
            _ => &[],
        }
    }
}

/// A cursor over one object's range that fetches small windows on demand and skips byte arrays
/// without reading them.
struct Cursor<'a> {
    src: &'a dyn Source,
    start: u64,
    end: u64,
    pos: u64,
    buf: Vec<u8>,
    buf_at: u64,
    endian: Endian,
    limits: &'a Limits,
}

const WINDOW: u64 = 4096;

impl Cursor<'_> {
    fn take(&mut self, n: u64) -> Result<&[u8]> {
        let end = self
            .pos
            .checked_add(n)
            .filter(|&e| e <= self.end)
            .ok_or_else(|| {
                Error::truncated(self.pos - self.start, n, self.end - self.start)
                    .at_field("object data")
            })?;
        let have = self.pos >= self.buf_at && end <= self.buf_at + self.buf.len() as u64;
        if !have {
            let len = n.max(WINDOW).min(self.end - self.pos);
            self.buf = read_range(self.src, self.pos, len, self.limits)?;
            self.buf_at = self.pos;
        }
        let from = (self.pos - self.buf_at) as usize;
        self.pos = end;
        Ok(&self.buf[from..from + n as usize])
    }

    fn skip(&mut self, n: u64) -> Result<()> {
        let end = self
            .pos
            .checked_add(n)
            .filter(|&e| e <= self.end)
            .ok_or_else(|| {
                Error::truncated(self.pos - self.start, n, self.end - self.start)
                    .at_field("object data")
            })?;
        self.pos = end;
        Ok(())
    }

    fn align4(&mut self) -> Result<()> {
        let rel = self.pos - self.start;
        let pad = (4 - rel % 4) % 4;
        // A field ending flush with the object needs no padding bytes after it.
        if self.pos + pad > self.end {
            self.pos = self.end;
            return Ok(());
        }
        self.skip(pad)
    }

    fn num<const N: usize>(&mut self) -> Result<[u8; N]> {
        let mut b = [0u8; N];
        b.copy_from_slice(self.take(N as u64)?);
        if self.endian == Endian::Big {
            b.reverse();
        }
        Ok(b)
    }

    fn i32(&mut self) -> Result<i32> {
        Ok(i32::from_le_bytes(self.num()?))
    }

    fn count(&mut self, min_elem: u64, what: &str) -> Result<u64> {
        let n = self.i32()?;
        if n < 0 {
            return Err(Error::malformed(format!("{what}: negative count {n}")));
        }
        self.limits
            .check_count(n as u64, min_elem, self.end - self.pos, what)?;
        Ok(n as u64)
    }
}

/// Reads the object at `[offset, offset+size)` of `src` with the tree `nodes` (node 0 is the root).
pub fn read_object(
    src: &dyn Source,
    offset: u64,
    size: u64,
    endian: Endian,
    nodes: &[Node],
    limits: &Limits,
) -> Result<Value> {
    if nodes.is_empty() {
        return Err(Error::malformed("empty type tree"));
    }
    let end = offset
        .checked_add(size)
        .filter(|&e| e <= src.len())
        .ok_or_else(|| Error::truncated(offset, size, src.len()))?;
    let mut c = Cursor {
        src,
        start: offset,
        end,
        pos: offset,
        buf: Vec::new(),
        buf_at: 0,
        endian,
        limits,
    };
    let (v, _) = read_node(&mut c, nodes, 0, 0)?;
    Ok(v)
}

/// Indices of the direct children of node `i`, and the index after its subtree.
fn children(nodes: &[Node], i: usize) -> (Vec<usize>, usize) {
    let level = nodes[i].level;
    let mut out = Vec::new();
    let mut j = i + 1;
    while j < nodes.len() && nodes[j].level > level {
        if nodes[j].level == level + 1 {
            out.push(j);
        }
        j += 1;
    }
    (out, j)
}

fn primitive_size(t: &str) -> Option<u64> {
    Some(match t {
        "SInt8" | "UInt8" | "char" | "bool" => 1,
        "SInt16" | "UInt16" | "short" | "unsigned short" => 2,
        "SInt32" | "UInt32" | "int" | "unsigned int" | "float" | "Type*" => 4,
        "SInt64" | "UInt64" | "long long" | "unsigned long long" | "double" | "FileSize" => 8,
        _ => return None,
    })
}

fn read_primitive(c: &mut Cursor, t: &str) -> Result<Value> {
    Ok(match t {
        "SInt8" => Value::Int(c.num::<1>()?[0] as i8 as i64),
        "UInt8" | "char" => Value::UInt(c.num::<1>()?[0] as u64),
        "bool" => Value::Bool(c.num::<1>()?[0] != 0),
        "SInt16" | "short" => Value::Int(i16::from_le_bytes(c.num()?) as i64),
        "UInt16" | "unsigned short" => Value::UInt(u16::from_le_bytes(c.num()?) as u64),
        "SInt32" | "int" => Value::Int(i32::from_le_bytes(c.num()?) as i64),
        "UInt32" | "unsigned int" | "Type*" => Value::UInt(u32::from_le_bytes(c.num()?) as u64),
        "float" => Value::Float(f32::from_le_bytes(c.num()?) as f64),
        "SInt64" | "long long" => Value::Int(i64::from_le_bytes(c.num()?)),
        "UInt64" | "unsigned long long" | "FileSize" => Value::UInt(u64::from_le_bytes(c.num()?)),
        "double" => Value::Float(f64::from_le_bytes(c.num()?)),
        _ => return Err(Error::malformed(format!("{t} is not a primitive type"))),
    })
}

fn read_node(c: &mut Cursor, nodes: &[Node], i: usize, depth: u32) -> Result<(Value, usize)> {
    if depth > 64 {
        return Err(Error::malformed("type tree nests deeper than 64 levels"));
    }
    let node = &nodes[i];
    let (kids, next) = children(nodes, i);
    let value = if node.is_array {
        if kids.len() != 2 {
            return Err(Error::malformed(format!(
                "array {} has {} parts, not size and data",
                node.name,
                kids.len()
            )));
        }
        let elem = &nodes[kids[1]];
        let elem_size = primitive_size(&elem.type_name);
        let n = c.count(
            elem_size.unwrap_or(1).max(1),
            &format!("array {}", node.name),
        )?;
        if elem_size == Some(1) {
            let offset = c.pos;
            c.skip(n)?;
            Value::Bytes { offset, len: n }
        } else {
            let mut items = Vec::with_capacity(n.min(4096) as usize);
            for _ in 0..n {
                items.push(read_node(c, nodes, kids[1], depth + 1)?.0);
            }
            Value::Array(items)
        }
    } else if node.type_name == "string" {
        let n = c.count(1, &format!("string {}", node.name))?;
        let s = String::from_utf8_lossy(c.take(n)?).into_owned();
        if kids.first().is_some_and(|&k| nodes[k].align()) {
            c.align4()?;
        }
        Value::Str(s)
    } else if node.type_name == "TypelessData" {
        let n = c.count(1, &node.name)?;
        let offset = c.pos;
        c.skip(n)?;
        Value::Bytes { offset, len: n }
    } else if kids.is_empty() {
        read_primitive(c, &node.type_name)
            .map_err(|e| e.at_field(&format!("{} {}", node.type_name, node.name)))?
    } else {
        let mut fields = Vec::with_capacity(kids.len());
        for &k in &kids {
            let (v, _) = read_node(c, nodes, k, depth + 1)?;
            fields.push((nodes[k].name.clone(), v));
        }
        Value::Struct(fields)
    };
    if node.align() {
        c.align4()?;
    }
    Ok((value, next))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::io::{BytesSource, ErrorKind};

    fn n(level: u8, t: &str, name: &str, is_array: bool, align: bool) -> Node {
        Node {
            type_name: t.into(),
            name: name.into(),
            byte_size: -1,
            level,
            is_array,
            meta_flag: if align { 0x4000 } else { 0 },
        }
    }

    #[test]
    fn reads_strings_arrays_and_alignment() {
        let nodes = vec![
            n(0, "Texture2D", "Base", false, false),
            n(1, "string", "m_Name", false, false),
            n(2, "Array", "Array", true, true),
            n(3, "int", "size", false, false),
            n(3, "char", "data", false, false),
            n(1, "int", "m_Width", false, false),
            n(1, "TypelessData", "image data", false, true),
            n(1, "unsigned int", "after", false, false),
        ];
        let mut d = Vec::new();
        d.extend(3i32.to_le_bytes());
        d.extend(b"abc\0"); // name + padding to 4
        d.extend(7i32.to_le_bytes());
        d.extend(2i32.to_le_bytes());
        d.extend([9, 9, 0, 0]);
        d.extend(5u32.to_le_bytes());
        let src = BytesSource::new("o", d.clone());
        let v = read_object(
            &src,
            0,
            d.len() as u64,
            Endian::Little,
            &nodes,
            &Limits::default(),
        )
        .unwrap();
        assert_eq!(v.get("m_Name").and_then(Value::as_str), Some("abc"));
        assert_eq!(v.get("m_Width").and_then(Value::as_i64), Some(7));
        assert_eq!(
            v.get("image data"),
            Some(&Value::Bytes { offset: 16, len: 2 })
        );
        assert_eq!(v.get("after").and_then(Value::as_i64), Some(5));
    }

    #[test]
    fn hostile_array_count_is_refused() {
        let nodes = vec![
            n(0, "Texture2D", "Base", false, false),
            n(1, "TypelessData", "image data", false, true),
        ];
        let d = 0x7fff_0000i32.to_le_bytes().to_vec();
        let src = BytesSource::new("o", d);
        let e = read_object(&src, 0, 4, Endian::Little, &nodes, &Limits::default()).unwrap_err();
        assert_eq!(e.kind, ErrorKind::LimitExceeded, "{e}");
        // Under the limit, but past the object's end.
        let d = 100i32.to_le_bytes().to_vec();
        let src = BytesSource::new("o", d);
        let e = read_object(&src, 0, 4, Endian::Little, &nodes, &Limits::default()).unwrap_err();
        assert_eq!(e.kind, ErrorKind::Malformed, "{e}");
    }
}
