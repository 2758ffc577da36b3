//! Byte access without whole-file reads: [`Source`] (length + ranged reads), the checked
//! [`Reader`] cursor, and [`Limits`] that refuse hostile sizes before anything is allocated;
//! the block machinery every container shares ([`compress`] dispatches zlib/gzip/LZ4/Oodle/
//! Zstandard/LZMA, [`blocks`] reads block-compressed entries through a small LRU, [`aes`] holds
//! the keys of encrypted Unreal containers).

#[cfg(feature = "containers")]
pub mod aes;
pub mod blocks;
pub mod compress;
mod error;
mod reader;

pub use error::{Context, Error, ErrorKind, Result};
pub use reader::{Endian, Reader};

use std::sync::Arc;

/// A file (or a view of one) that can be read by byte range. Nothing in the core needs a whole
/// file in memory: parsers read header ranges, decoders read just the mip asked for.
pub trait Source {
    /// The name the user knows the file by (path as given, or the dropped file's name).
    fn name(&self) -> &str;
    /// Total length in bytes.
    fn len(&self) -> u64;
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// Fills `buf` from `offset`; `offset + buf.len()` is within `len()` (callers check with
    /// [`read_range`], which gives the error a user can act on).
    fn read_exact_at(&self, offset: u64, buf: &mut [u8]) -> Result<()>;
}

pub type SourceRef = Arc<dyn Source>;

/// The end of the `len`-byte range at `offset` in a source of `total` bytes, or the truncation
/// error a `Source::read_exact_at` returns when the range does not fit (or overflows).
pub fn range_end(offset: u64, len: u64, total: u64) -> Result<u64> {
    offset
        .checked_add(len)
        .filter(|&e| e <= total)
        .ok_or_else(|| Error::truncated(offset, len, total))
}

/// Reads `len` bytes at `offset` of `src`, checking the range against the source's length and the
/// allocation budget first, so a hostile length never drives an allocation.
pub fn read_range(src: &dyn Source, offset: u64, len: u64, limits: &Limits) -> Result<Vec<u8>> {
    let end = offset
        .checked_add(len)
        .ok_or_else(|| Error::malformed(format!("range {offset}+{len} overflows")))?;
    if end > src.len() {
        return Err(Error::truncated(offset, len, src.len()).in_file(src.name()));
    }
    limits
        .check_alloc(len, "a read")
        .map_err(|e| e.in_file(src.name()))?;
    let mut buf = vec![0u8; len as usize];
    src.read_exact_at(offset, &mut buf)
        .map_err(|e| e.in_file(src.name()))?;
    Ok(buf)
}

/// Decompresses the Zstandard frame `payload`, reading at most `limit + 1` bytes out (one past the
/// declared size tells an over-long frame from an exact one without inflating it all; callers
/// compare the length). A bad frame is a malformed error starting with `what`. Without the `zstd`
/// feature (the page's first wasm module) it is a [`ErrorKind::NotInBuild`] error.
#[cfg(feature = "zstd")]
pub fn unzstd(payload: &[u8], limit: u64, what: &str) -> Result<Vec<u8>> {
    use std::io::Read;
    let bad = |e: &dyn std::fmt::Display| Error::malformed(format!("{what}: {e}"));
    let mut dec = ruzstd::decoding::StreamingDecoder::new(payload).map_err(|e| bad(&e))?;
    let mut out = Vec::new();
    (&mut dec)
        .take(limit.saturating_add(1))
        .read_to_end(&mut out)
        .map_err(|e| bad(&e))?;
    Ok(out)
}

#[cfg(not(feature = "zstd"))]
pub fn unzstd(_payload: &[u8], _limit: u64, what: &str) -> Result<Vec<u8>> {
    Err(Error::not_in_build(what, "zstd"))
}

/// Reads up to `len` bytes at `offset` (fewer when the source ends first).
pub fn read_up_to(src: &dyn Source, offset: u64, len: u64, limits: &Limits) -> Result<Vec<u8>> {
    let avail = src.len().saturating_sub(offset);
    read_range(src, offset.min(src.len()), len.min(avail), limits)
}

/// An in-memory source (generated fixtures, decompressed blocks, tests).
pub struct BytesSource {
    name: String,
    data: Arc<[u8]>,
}

impl BytesSource {
    pub fn new(name: impl Into<String>, data: impl Into<Arc<[u8]>>) -> Self {
        BytesSource {
            name: name.into(),
            data: data.into(),
        }
    }
    pub fn shared(name: impl Into<String>, data: impl Into<Arc<[u8]>>) -> SourceRef {
        Arc::new(Self::new(name, data))
    }
}

impl Source for BytesSource {
    fn name(&self) -> &str {
        &self.name
    }
    fn len(&self) -> u64 {
        self.data.len() as u64
    }
    fn read_exact_at(&self, offset: u64, buf: &mut [u8]) -> Result<()> {
        copy_at(&self.data, offset, buf)
    }
}

/// Fills `buf` from `data` at `offset`: the `read_exact_at` of a source held in memory (bytes,
/// a decompressed or decoded derived source), the truncation error when the range does not fit.
pub fn copy_at(data: &[u8], offset: u64, buf: &mut [u8]) -> Result<()> {
    let total = data.len() as u64;
    let src = usize::try_from(offset)
        .ok()
        .and_then(|start| data.get(start..start.checked_add(buf.len())?))
        .ok_or_else(|| Error::truncated(offset, buf.len() as u64, total))?;
    buf.copy_from_slice(src);
    Ok(())
}

/// A window `[offset, offset+len)` of another source, under its own name (a file inside a bundle,
/// a chunk inside a container).
pub struct WindowSource {
    name: String,
    inner: SourceRef,
    offset: u64,
    len: u64,
}

impl WindowSource {
    /// Fails when the window does not fit inside `inner`.
    pub fn new(name: impl Into<String>, inner: SourceRef, offset: u64, len: u64) -> Result<Self> {
        let end = offset
            .checked_add(len)
            .ok_or_else(|| Error::malformed("window range overflows"))?;
        if end > inner.len() {
            return Err(Error::truncated(offset, len, inner.len()).in_file(inner.name()));
        }
        Ok(WindowSource {
            name: name.into(),
            inner,
            offset,
            len,
        })
    }
}

impl Source for WindowSource {
    fn name(&self) -> &str {
        &self.name
    }
    fn len(&self) -> u64 {
        self.len
    }
    fn read_exact_at(&self, offset: u64, buf: &mut [u8]) -> Result<()> {
        range_end(offset, buf.len() as u64, self.len)?;
        self.inner.read_exact_at(self.offset + offset, buf)
    }
}

/// A native file read with positioned reads (never loaded whole).
#[cfg(not(target_arch = "wasm32"))]
pub struct FileSource {
    name: String,
    file: std::fs::File,
    len: u64,
}

#[cfg(not(target_arch = "wasm32"))]
impl FileSource {
    pub fn open(path: &std::path::Path) -> Result<Self> {
        let name = path.display().to_string();
        let file = std::fs::File::open(path)
            .map_err(|e| Error::io(format!("cannot open: {e}")).in_file(&name))?;
        let len = file
            .metadata()
            .map_err(|e| Error::io(format!("cannot stat: {e}")).in_file(&name))?
            .len();
        Ok(FileSource { name, file, len })
    }
}

#[cfg(not(target_arch = "wasm32"))]
impl Source for FileSource {
    fn name(&self) -> &str {
        &self.name
    }
    fn len(&self) -> u64 {
        self.len
    }
    fn read_exact_at(&self, offset: u64, buf: &mut [u8]) -> Result<()> {
        #[cfg(unix)]
        {
            use std::os::unix::fs::FileExt;
            self.file.read_exact_at(buf, offset).map_err(|e| {
                Error::io(format!(
                    "read of {} bytes at {offset} failed: {e}",
                    buf.len()
                ))
            })
        }
        #[cfg(not(unix))]
        {
            use std::io::{Read, Seek, SeekFrom};
            let mut f = &self.file;
            f.seek(SeekFrom::Start(offset))
                .and_then(|_| f.read_exact(buf))
                .map_err(|e| {
                    Error::io(format!(
                        "read of {} bytes at {offset} failed: {e}",
                        buf.len()
                    ))
                })
        }
    }
}

/// Caps that every parser and decoder checks before allocating (image-rs style).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Limits {
    /// Largest width, height or depth of a texture.
    pub max_dim: u32,
    /// Largest number of images per mip (faces x layers).
    pub max_slices: u32,
    /// Largest number of mips.
    pub max_mips: u32,
    /// Largest single allocation in bytes (a read, a decoded surface, a decompressed block).
    pub max_alloc: u64,
    /// Largest number of entries in a table read from a file (names, objects, tiles ...).
    pub max_entries: u64,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_dim: 65536,
            max_slices: 16384,
            max_mips: 32,
            // 1 GiB: a 16k x 16k RGBA f32 surface; wasm32 has 4 GiB of address space in all.
            max_alloc: 1 << 30,
            max_entries: 1 << 24,
        }
    }
}

impl Limits {
    pub fn check_alloc(&self, bytes: u64, what: &str) -> Result<()> {
        if bytes > self.max_alloc {
            return Err(Error::limit(format!(
                "{what} of {bytes} bytes is over the {} byte allocation limit",
                self.max_alloc
            )));
        }
        Ok(())
    }

    pub fn check_dims(&self, w: u32, h: u32, d: u32) -> Result<()> {
        if w > self.max_dim || h > self.max_dim || d > self.max_dim {
            return Err(Error::limit(format!(
                "size {w}x{h}x{d} is over the {} texel limit per axis",
                self.max_dim
            )));
        }
        Ok(())
    }

    /// Checks a count read from a file against the limit and against the bytes that remain
    /// (`count * min_elem_size <= remaining`), before anything is allocated for it.
    pub fn check_count(
        &self,
        count: u64,
        min_elem_size: u64,
        remaining: u64,
        what: &str,
    ) -> Result<()> {
        if count > self.max_entries {
            return Err(Error::limit(format!(
                "{what}: {count} entries is over the limit of {}",
                self.max_entries
            )));
        }
        if count.saturating_mul(min_elem_size) > remaining {
            return Err(Error::malformed(format!(
                "{what}: {count} entries of at least {min_elem_size} bytes do not fit in the {remaining} bytes left"
            )));
        }
        Ok(())
    }
}

/// A source that counts the reads made of it and the bytes they took, and (made by
/// [`Counted::logging`]) logs each read as (offset, length): what an open or a decode costs a
/// remote file, one range request per read. For the tests and the benchmarks.
pub struct Counted {
    inner: SourceRef,
    reads: std::cell::Cell<u64>,
    bytes: std::cell::Cell<u64>,
    log: Option<std::cell::RefCell<Vec<(u64, u64)>>>,
}

impl Counted {
    /// Counts the reads of `inner`.
    pub fn new(inner: SourceRef) -> Counted {
        Counted {
            inner,
            reads: Default::default(),
            bytes: Default::default(),
            log: None,
        }
    }

    /// Counts the reads of `inner` and logs each.
    pub fn logging(inner: SourceRef) -> Counted {
        Counted {
            log: Some(Default::default()),
            ..Counted::new(inner)
        }
    }

    /// Reads so far.
    pub fn reads(&self) -> u64 {
        self.reads.get()
    }

    /// Bytes read so far.
    pub fn bytes(&self) -> u64 {
        self.bytes.get()
    }

    /// The reads logged since the last call (empty unless made by [`Counted::logging`]).
    pub fn take(&self) -> Vec<(u64, u64)> {
        self.log.as_ref().map(|l| l.take()).unwrap_or_default()
    }

    /// Counts from zero again, the log emptied.
    pub fn reset(&self) {
        self.reads.set(0);
        self.bytes.set(0);
        self.take();
    }
}

impl Source for Counted {
    fn name(&self) -> &str {
        self.inner.name()
    }
    fn len(&self) -> u64 {
        self.inner.len()
    }
    fn read_exact_at(&self, offset: u64, buf: &mut [u8]) -> Result<()> {
        self.reads.set(self.reads.get() + 1);
        self.bytes.set(self.bytes.get() + buf.len() as u64);
        if let Some(log) = &self.log {
            log.borrow_mut().push((offset, buf.len() as u64));
        }
        self.inner.read_exact_at(offset, buf)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn read_range_checks_bounds_and_budget() {
        let s = BytesSource::new("a.bin", vec![1u8, 2, 3, 4]);
        let l = Limits::default();
        assert_eq!(read_range(&s, 1, 2, &l).unwrap(), vec![2, 3]);
        let e = read_range(&s, 3, 2, &l).unwrap_err();
        assert_eq!(e.kind, ErrorKind::Truncated);
        assert_eq!(e.file.as_deref(), Some("a.bin"));
        let e = read_range(&s, u64::MAX, 2, &l).unwrap_err();
        assert_eq!(e.kind, ErrorKind::Malformed);
        let tight = Limits {
            max_alloc: 1,
            ..Limits::default()
        };
        assert_eq!(
            read_range(&s, 0, 2, &tight).unwrap_err().kind,
            ErrorKind::LimitExceeded
        );
    }

    #[test]
    fn window_stays_inside() {
        let s: SourceRef = BytesSource::shared("a", vec![0u8, 1, 2, 3, 4, 5]);
        assert!(WindowSource::new("w", s.clone(), 4, 3).is_err());
        let w = WindowSource::new("w", s, 2, 3).unwrap();
        let mut b = [0u8; 3];
        w.read_exact_at(0, &mut b).unwrap();
        assert_eq!(b, [2, 3, 4]);
        assert!(w.read_exact_at(1, &mut b).is_err());
        assert_eq!(
            read_up_to(&w, 1, 100, &Limits::default()).unwrap(),
            vec![3, 4]
        );
    }

    #[test]
    fn counts_are_checked_against_remaining_bytes() {
        let l = Limits::default();
        assert!(l.check_count(10, 4, 40, "names").is_ok());
        assert_eq!(
            l.check_count(11, 4, 40, "names").unwrap_err().kind,
            ErrorKind::Malformed
        );
        assert_eq!(
            l.check_count(u64::MAX, 0, 40, "names").unwrap_err().kind,
            ErrorKind::LimitExceeded
        );
    }

    #[cfg(not(target_arch = "wasm32"))]
    #[test]
    fn file_source_reads_ranges() {
        let dir = std::env::temp_dir().join(format!("texscope-io-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let p = dir.join("f.bin");
        std::fs::write(&p, b"hello world").unwrap();
        let f = FileSource::open(&p).unwrap();
        assert_eq!(f.len(), 11);
        assert_eq!(read_range(&f, 6, 5, &Limits::default()).unwrap(), b"world");
        assert!(read_range(&f, 7, 5, &Limits::default()).is_err());
        std::fs::remove_dir_all(&dir).ok();
    }
}
