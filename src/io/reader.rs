//! The one checked cursor every parser reads with. Every read that would pass the end returns
//! `Truncated` with the absolute file offset; sub-readers bound length-prefixed parts.

use super::{Error, Limits, Result};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Endian {
    Little,
    Big,
}

/// A cursor over a byte slice that was read from absolute offset `base` of some file.
#[derive(Debug, Clone)]
pub struct Reader<'a> {
    data: &'a [u8],
    pos: usize,
    base: u64,
    endian: Endian,
}

macro_rules! read_num {
    ($name:ident, $t:ty) => {
        pub fn $name(&mut self) -> Result<$t> {
            let b = self.array::<{ std::mem::size_of::<$t>() }>()?;
            Ok(match self.endian {
                Endian::Little => <$t>::from_le_bytes(b),
                Endian::Big => <$t>::from_be_bytes(b),
            })
        }
    };
}

impl<'a> Reader<'a> {
    /// A little-endian reader over `data`, which starts at file offset 0.
    pub fn new(data: &'a [u8]) -> Self {
        Self::at(data, 0)
    }

    /// A little-endian reader over `data`, which was read from file offset `base`.
    pub fn at(data: &'a [u8], base: u64) -> Self {
        Reader {
            data,
            pos: 0,
            base,
            endian: Endian::Little,
        }
    }

    pub fn endian(&self) -> Endian {
        self.endian
    }

    pub fn set_endian(&mut self, endian: Endian) {
        self.endian = endian;
    }

    pub fn big_endian(mut self) -> Self {
        self.endian = Endian::Big;
        self
    }

    /// Position relative to the start of this reader's data.
    pub fn pos(&self) -> usize {
        self.pos
    }

    /// Absolute position in the file.
    pub fn abs_pos(&self) -> u64 {
        self.base + self.pos as u64
    }

    pub fn len(&self) -> usize {
        self.data.len()
    }

    pub fn is_empty(&self) -> bool {
        self.data.is_empty()
    }

    pub fn remaining(&self) -> usize {
        self.data.len() - self.pos
    }

    pub fn data(&self) -> &'a [u8] {
        self.data
    }

    fn truncated(&self, need: usize) -> Error {
        Error::truncated(
            self.abs_pos(),
            need as u64,
            self.base + self.data.len() as u64,
        )
    }

    /// Moves to `pos` (relative to this reader's data); the end itself is a valid position.
    pub fn seek(&mut self, pos: usize) -> Result<()> {
        if pos > self.data.len() {
            return Err(Error::truncated(
                self.base + pos as u64,
                0,
                self.base + self.data.len() as u64,
            ));
        }
        self.pos = pos;
        Ok(())
    }

    /// Moves to absolute file offset `abs`, which must lie inside this reader's data.
    pub fn seek_abs(&mut self, abs: u64) -> Result<()> {
        let rel = abs
            .checked_sub(self.base)
            .and_then(|r| usize::try_from(r).ok())
            .ok_or_else(|| {
                Error::malformed(format!(
                    "offset {abs} is before the start ({}) of the data being read",
                    self.base
                ))
            })?;
        self.seek(rel)
    }

    pub fn skip(&mut self, n: usize) -> Result<()> {
        self.bytes(n).map(|_| ())
    }

    /// Skips to the next multiple of `align` (relative to this reader's start).
    pub fn align(&mut self, align: usize) -> Result<()> {
        let rem = self.pos % align.max(1);
        if rem != 0 {
            self.skip(align - rem)?;
        }
        Ok(())
    }

    pub fn bytes(&mut self, n: usize) -> Result<&'a [u8]> {
        let end = self.pos.checked_add(n).filter(|&e| e <= self.data.len());
        match end {
            Some(end) => {
                let s = &self.data[self.pos..end];
                self.pos = end;
                Ok(s)
            }
            None => Err(self.truncated(n)),
        }
    }

    /// `n` given as a file-derived u64/u32: converted with a check (usize is 32-bit on wasm32).
    pub fn bytes_u64(&mut self, n: u64) -> Result<&'a [u8]> {
        let n = usize::try_from(n).map_err(|_| self.truncated(usize::MAX))?;
        self.bytes(n)
    }

    pub fn peek(&self, n: usize) -> Result<&'a [u8]> {
        self.clone().bytes(n)
    }

    pub fn array<const N: usize>(&mut self) -> Result<[u8; N]> {
        let s = self.bytes(N)?;
        let mut a = [0u8; N];
        a.copy_from_slice(s);
        Ok(a)
    }

    pub fn u8(&mut self) -> Result<u8> {
        Ok(self.bytes(1)?[0])
    }

    pub fn i8(&mut self) -> Result<i8> {
        Ok(self.u8()? as i8)
    }

    read_num!(u16, u16);
    read_num!(i16, i16);
    read_num!(u32, u32);
    read_num!(i32, i32);
    read_num!(u64, u64);
    read_num!(i64, i64);
    read_num!(f32, f32);
    read_num!(f64, f64);

    /// A 32-bit boolean that must be 0 or 1.
    pub fn bool32(&mut self) -> Result<bool> {
        let at = self.abs_pos();
        match self.u32()? {
            0 => Ok(false),
            1 => Ok(true),
            v => Err(Error::malformed(format!(
                "expected a 32-bit boolean (0 or 1) at offset {at}, found {v}"
            ))),
        }
    }

    /// A sub-reader over the next `n` bytes; this reader moves past them.
    pub fn sub(&mut self, n: usize) -> Result<Reader<'a>> {
        let base = self.abs_pos();
        let data = self.bytes(n)?;
        Ok(Reader {
            data,
            pos: 0,
            base,
            endian: self.endian,
        })
    }

    /// Reads a count and checks it against the limit and against the remaining bytes
    /// (`count * min_elem_size`), so a hostile count cannot drive an allocation.
    pub fn count_u32(&mut self, min_elem_size: u64, limits: &Limits, what: &str) -> Result<usize> {
        let n = self.u32()? as u64;
        limits.check_count(n, min_elem_size, self.remaining() as u64, what)?;
        Ok(n as usize)
    }

    /// As [`Reader::count_u32`] for a signed count; negative counts are malformed.
    pub fn count_i32(&mut self, min_elem_size: u64, limits: &Limits, what: &str) -> Result<usize> {
        let at = self.abs_pos();
        let n = self.i32()?;
        if n < 0 {
            return Err(Error::malformed(format!(
                "{what}: negative count {n} at offset {at}"
            )));
        }
        limits.check_count(n as u64, min_elem_size, self.remaining() as u64, what)?;
        Ok(n as usize)
    }

    /// A NUL-terminated string (the NUL is consumed, not returned).
    pub fn cstr(&mut self) -> Result<&'a str> {
        let rest = &self.data[self.pos..];
        let at = self.abs_pos();
        let n = rest
            .iter()
            .position(|&b| b == 0)
            .ok_or_else(|| self.truncated(rest.len() + 1))?;
        let s = std::str::from_utf8(&rest[..n])
            .map_err(|_| Error::malformed(format!("string at offset {at} is not UTF-8")))?;
        self.pos += n + 1;
        Ok(s)
    }

    /// A string of `n` bytes, lossily decoded (file names in games are not always UTF-8).
    pub fn string_lossy(&mut self, n: usize) -> Result<String> {
        Ok(String::from_utf8_lossy(self.bytes(n)?).into_owned())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::io::ErrorKind;

    #[test]
    fn reads_both_endians() {
        let d = [1u8, 2, 3, 4, 5, 6, 7, 8];
        let mut r = Reader::new(&d);
        assert_eq!(r.u16().unwrap(), 0x0201);
        r.set_endian(Endian::Big);
        assert_eq!(r.u16().unwrap(), 0x0304);
        assert_eq!(r.u32().unwrap(), 0x05060708);
        assert_eq!(r.remaining(), 0);
    }

    #[test]
    fn truncation_reports_absolute_offset() {
        let d = [0u8; 6];
        let mut r = Reader::at(&d, 1000);
        r.u32().unwrap();
        let e = r.u32().unwrap_err();
        assert_eq!(e.kind, ErrorKind::Truncated);
        assert!(e.message.contains("offset 1004"), "{}", e.message);
        assert!(e.message.contains("ends at byte 1006"), "{}", e.message);
        // A failed read does not move the cursor.
        assert_eq!(r.pos(), 4);
    }

    #[test]
    fn sub_reader_is_bounded() {
        let d = [1u8, 2, 3, 4, 5];
        let mut r = Reader::at(&d, 10);
        r.u8().unwrap();
        let mut s = r.sub(2).unwrap();
        assert_eq!(s.abs_pos(), 11);
        assert_eq!(s.u16().unwrap(), 0x0302);
        assert!(s.u8().is_err());
        assert_eq!(r.u8().unwrap(), 4);
        assert!(r.sub(5).is_err());
    }

    #[test]
    fn seek_abs_and_align() {
        let d = [0u8; 16];
        let mut r = Reader::at(&d, 100);
        r.seek_abs(105).unwrap();
        r.align(4).unwrap();
        assert_eq!(r.pos(), 8);
        assert!(r.seek_abs(99).is_err());
        assert!(r.seek_abs(117).is_err());
        r.seek_abs(116).unwrap();
        assert_eq!(r.remaining(), 0);
    }

    #[test]
    fn counts_and_booleans_are_checked() {
        let l = Limits::default();
        let d = [0x00, 0x00, 0x01, 0x00, 0, 0, 0, 0];
        assert_eq!(
            Reader::new(&d).count_u32(1, &l, "names").unwrap_err().kind,
            ErrorKind::Malformed
        );
        let d = [2u8, 0, 0, 0];
        assert!(Reader::new(&d).bool32().is_err());
        let d = [0xffu8, 0xff, 0xff, 0xff];
        assert!(Reader::new(&d).count_i32(0, &l, "x").is_err());
    }

    #[test]
    fn cstr_needs_terminator() {
        let mut r = Reader::new(b"abc\0de");
        assert_eq!(r.cstr().unwrap(), "abc");
        assert!(r.cstr().is_err());
    }
}
