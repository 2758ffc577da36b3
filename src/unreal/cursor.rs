//! A ranged cursor over a [`Source`]: package metadata is read a few bytes at a time from the
//! exact place it lives, so a 4 GiB .uexp costs only the bytes the walk touches.

use crate::io::{read_range, Error, Limits, Result, Source};

pub struct Cursor<'a> {
    pub src: &'a dyn Source,
    pub pos: u64,
    /// Reads past this offset are truncation (the export's serial range, not the file).
    pub end: u64,
    pub limits: &'a Limits,
}

impl<'a> Cursor<'a> {
    pub fn new(src: &'a dyn Source, pos: u64, end: u64, limits: &'a Limits) -> Self {
        Cursor {
            src,
            pos,
            end: end.min(src.len()),
            limits,
        }
    }

    pub fn bytes(&mut self, n: u64) -> Result<Vec<u8>> {
        let stop = self
            .pos
            .checked_add(n)
            .ok_or_else(|| Error::malformed(format!("length {n} overflows")))?;
        if stop > self.end {
            return Err(Error::truncated(self.pos, n, self.end).in_file(self.src.name()));
        }
        let b = read_range(self.src, self.pos, n, self.limits)?;
        self.pos = stop;
        Ok(b)
    }

    pub fn skip(&mut self, n: u64) -> Result<()> {
        let stop = self.pos.checked_add(n).filter(|&s| s <= self.end);
        match stop {
            Some(s) => {
                self.pos = s;
                Ok(())
            }
            None => Err(Error::truncated(self.pos, n, self.end).in_file(self.src.name())),
        }
    }

    fn arr<const N: usize>(&mut self) -> Result<[u8; N]> {
        let b = self.bytes(N as u64)?;
        let mut a = [0u8; N];
        a.copy_from_slice(&b);
        Ok(a)
    }

    pub fn u8(&mut self) -> Result<u8> {
        Ok(self.arr::<1>()?[0])
    }
    pub fn u16(&mut self) -> Result<u16> {
        Ok(u16::from_le_bytes(self.arr()?))
    }
    pub fn u32(&mut self) -> Result<u32> {
        Ok(u32::from_le_bytes(self.arr()?))
    }
    pub fn i32(&mut self) -> Result<i32> {
        Ok(i32::from_le_bytes(self.arr()?))
    }
    pub fn i64(&mut self) -> Result<i64> {
        Ok(i64::from_le_bytes(self.arr()?))
    }
    pub fn u64(&mut self) -> Result<u64> {
        Ok(u64::from_le_bytes(self.arr()?))
    }
    pub fn f32(&mut self) -> Result<f32> {
        Ok(f32::from_le_bytes(self.arr()?))
    }

    pub fn bool32(&mut self) -> Result<bool> {
        let at = self.pos;
        match self.u32()? {
            0 => Ok(false),
            1 => Ok(true),
            v => Err(Error::malformed(format!(
                "expected a 32-bit boolean at offset {at}, found {v}"
            ))),
        }
    }

    /// A `TArray<u32>`: the count is checked against the bytes left before anything is allocated.
    pub fn u32_array(&mut self, what: &str) -> Result<Vec<u32>> {
        let n = self.i32()?;
        if n < 0 {
            return Err(Error::malformed(format!("{what}: negative count {n}")));
        }
        self.limits
            .check_count(n as u64, 4, self.end.saturating_sub(self.pos), what)?;
        let b = self.bytes(n as u64 * 4)?;
        Ok(b.chunks_exact(4)
            .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect())
    }

    /// An FString: i32 length including the NUL; negative = UTF-16 code units.
    pub fn fstring(&mut self) -> Result<String> {
        let at = self.pos;
        let n = self.i32()?;
        if n == 0 {
            return Ok(String::new());
        }
        let (units, wide) = if n < 0 {
            (n.unsigned_abs() as u64, true)
        } else {
            (n as u64, false)
        };
        if units > 65536 {
            return Err(Error::malformed(format!(
                "string of {units} characters at offset {at} is not plausible"
            )));
        }
        let b = self.bytes(if wide { units * 2 } else { units })?;
        Ok(decode_fstring(&b, wide))
    }
}

pub fn decode_fstring(b: &[u8], wide: bool) -> String {
    if wide {
        let u: Vec<u16> = b
            .chunks_exact(2)
            .map(|c| u16::from_le_bytes([c[0], c[1]]))
            .take_while(|&c| c != 0)
            .collect();
        String::from_utf16_lossy(&u)
    } else {
        let end = b.iter().position(|&c| c == 0).unwrap_or(b.len());
        String::from_utf8_lossy(&b[..end]).into_owned()
    }
}
