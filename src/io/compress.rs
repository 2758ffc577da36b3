//! One decompression dispatch for the blocks of every container Texscope reads: Unreal .pak
//! compression blocks and IoStore (.ucas) blocks, Frostbite CAS blocks, Unity bundle blocks.
//! Each call turns one block into exactly the number of bytes its table declares; anything else
//! is a malformed block, and a declared size over [`Limits::max_alloc`] is refused before any
//! output is allocated.

use super::{Error, Limits, Result};

/// How a block is stored.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Method {
    Stored,
    /// zlib (RFC 1950) stream.
    Zlib,
    /// gzip (RFC 1952) member(s).
    Gzip,
    /// LZ4 block format (no frame), Unity LZ4/LZ4HC and Frostbite.
    Lz4,
    /// Oodle Kraken, Mermaid, Selkie, Leviathan (the stream says which).
    Oodle,
    /// Zstandard frame.
    Zstd,
    /// Unity's LZMA: 5 property bytes (lc/lp/pb, dictionary size), then the raw stream.
    Lzma,
}

impl Method {
    pub fn name(self) -> &'static str {
        match self {
            Method::Stored => "stored",
            Method::Zlib => "zlib",
            Method::Gzip => "gzip",
            Method::Lz4 => "LZ4",
            Method::Oodle => "Oodle",
            Method::Zstd => "Zstandard",
            Method::Lzma => "LZMA",
        }
    }

    /// A compression method as Unreal names it in a .pak footer or a .utoc method table
    /// (FName-based since pak version 8 / every TOC: "Zlib", "Gzip", "LZ4", "Oodle"; some games add
    /// "Zstd"). `None` (the name) and the empty string mean stored.
    pub fn from_unreal_name(name: &str) -> Option<Method> {
        let n = name.trim_end_matches('\0').trim();
        Some(match n.to_ascii_lowercase().as_str() {
            "" | "none" => Method::Stored,
            "zlib" => Method::Zlib,
            "gzip" => Method::Gzip,
            "lz4" => Method::Lz4,
            "oodle" => Method::Oodle,
            "zstd" | "zstandard" => Method::Zstd,
            _ => return None,
        })
    }
}

/// Inflates the zlib stream `raw`, reading at most `size + 1` bytes out (one past the expected
/// size tells an over-long stream from an exact one; callers compare the length).
///
/// Through flate2's reader, the same inflate code its gzip reader uses (Unity's .gz WebGL data,
/// gzip blocks): calling miniz_oxide's one-shot `decompress_to_vec_zlib_with_limit` as well put a
/// second copy of the inflate loop into the page's first wasm module (~9.5 KB before gzip).
pub fn inflate_zlib(raw: &[u8], size: u64) -> std::io::Result<Vec<u8>> {
    use std::io::Read;
    let mut out = Vec::with_capacity(size.min(raw.len() as u64 * 8) as usize);
    flate2::read::ZlibDecoder::new(raw)
        .take(size.saturating_add(1))
        .read_to_end(&mut out)?;
    Ok(out)
}

/// Decompresses one block to exactly `size` bytes.
pub fn decompress(method: Method, raw: &[u8], size: u64, limits: &Limits) -> Result<Vec<u8>> {
    limits.check_alloc(size, "a decompressed block")?;
    let out = match method {
        Method::Stored => {
            if raw.len() as u64 != size {
                return Err(Error::malformed(format!(
                    "stored block of {} bytes declares {size}",
                    raw.len()
                )));
            }
            raw.to_vec()
        }
        Method::Zlib => inflate_zlib(raw, size)
            .map_err(|e| Error::malformed(format!("zlib block does not inflate: {e}")))?,
        Method::Gzip => {
            use std::io::Read;
            let mut out = Vec::with_capacity(size.min(raw.len() as u64 * 8) as usize);
            flate2::read::MultiGzDecoder::new(raw)
                .take(size.saturating_add(1))
                .read_to_end(&mut out)
                .map_err(|e| Error::malformed(format!("gzip block does not inflate: {e}")))?;
            out
        }
        Method::Lz4 => {
            // An LZ4 block gives at most 255 bytes per input byte (one match-length byte of 255
            // per input byte is the densest encoding, LZ4 block format spec), so a block whose
            // table claims more is refused before its output is allocated.
            if size > (raw.len() as u64).saturating_mul(255) + 16 {
                return Err(Error::malformed(format!(
                    "an LZ4 block of {} bytes cannot hold the {size} bytes its table says",
                    raw.len()
                )));
            }
            let mut out = vec![0u8; size as usize];
            let n = lz4_flex::block::decompress_into(raw, &mut out)
                .map_err(|e| Error::malformed(format!("LZ4 block does not decompress: {e}")))?;
            out.truncate(n);
            out
        }
        Method::Oodle => oodle(raw, size as usize)?,
        Method::Zstd => super::unzstd(raw, size, "Zstandard block")?,
        Method::Lzma => {
            // Unity: 5 property bytes (lc/lp/pb, then the dictionary size), then the raw stream.
            if raw.len() < 5 {
                return Err(Error::truncated(0, 5, raw.len() as u64).at_field("LZMA properties"));
            }
            let dict = u32::from_le_bytes([raw[1], raw[2], raw[3], raw[4]]);
            lzma(&raw[5..], raw[0], dict, size)?
        }
    };
    if out.len() as u64 != size {
        return Err(Error::malformed(format!(
            "{} block gives {}{} bytes, but its table says {size}",
            method.name(),
            if out.len() as u64 > size {
                "more than "
            } else {
                ""
            },
            out.len().min(size as usize)
        )));
    }
    Ok(out)
}

/// A raw LZMA stream of `size` bytes with the given properties byte and dictionary size.
#[cfg(feature = "lzma")]
pub fn lzma(stream: &[u8], props: u8, dict: u32, size: u64) -> Result<Vec<u8>> {
    use std::io::Read;
    // The decoder allocates its dictionary up front; a stream of `size` bytes never reaches further
    // back than `size`, so a hostile dictionary size cannot drive a larger allocation.
    let dict = dict.clamp(4096, u32::try_from(size.max(4096)).unwrap_or(u32::MAX));
    let rd = lzma_rust2::LzmaReader::new_with_props(stream, size, props, dict, None)
        .map_err(|e| Error::malformed(format!("LZMA header is invalid: {e}")))?;
    // The output grows with what the stream really gives (its window does too, in lzma-rust2),
    // so a header claiming a huge size over a few bytes of stream allocates little.
    let mut out = Vec::with_capacity(size.min(stream.len() as u64 * 8) as usize);
    rd.take(size)
        .read_to_end(&mut out)
        .map_err(|e| Error::malformed(format!("LZMA stream does not decompress: {e}")))?;
    Ok(out)
}

/// Without `lzma` (the page's core module): the full module reads LZMA bundles.
#[cfg(not(feature = "lzma"))]
pub fn lzma(_stream: &[u8], _props: u8, _dict: u32, _size: u64) -> Result<Vec<u8>> {
    Err(Error::not_in_build(
        "an LZMA-compressed Unity bundle",
        "lzma",
    ))
}

/// Oodle through oozextract 0.5.7 (the newest). Its decoder asserts on some corrupt streams
/// (`huffman.rs`: "src <= src_mid", found by the mutation sweep on the UE 5.8 Oodle container):
/// natively the panic is caught and becomes a malformed-block error; in wasm32 a panic cannot be
/// caught and traps the module. Fuzz builds (`cfg(fuzzing)`, where libFuzzer aborts on any
/// panic, caught or not) leave Oodle out; tests/mutation_sweep.rs covers it natively.
#[cfg(all(feature = "oodle", not(fuzzing)))]
fn oodle(raw: &[u8], size: usize) -> Result<Vec<u8>> {
    use std::cell::RefCell;
    thread_local! {
        // One decoder per thread, reused: a new one zeroes ~768 KiB of scratch, which would cost
        // more than decoding a 64 KiB block (a container's listing decodes one block a package).
        static OODLE: RefCell<Option<oozextract::Extractor>> = const { RefCell::new(None) };
    }
    let mut out = vec![0u8; size];
    let decode = |out: &mut [u8]| {
        OODLE.with(|o| {
            let mut o = o.borrow_mut();
            // Taken out while it works: after a panic the next block gets a fresh decoder.
            let mut ex = o.take().unwrap_or_else(oozextract::Extractor::new);
            let r = ex.read_from_slice(raw, out);
            if r.is_ok() {
                *o = Some(ex);
            }
            r.map_err(|e| format!("{e:?}"))
        })
    };
    #[cfg(not(target_arch = "wasm32"))]
    let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| decode(&mut out)))
        .unwrap_or_else(|_| Err("the decoder gave up on a corrupt stream".into()));
    #[cfg(target_arch = "wasm32")]
    let r = decode(&mut out);
    let n = r.map_err(|e| Error::malformed(format!("Oodle block does not decompress: {e}")))?;
    out.truncate(n);
    Ok(out)
}

#[cfg(all(feature = "oodle", fuzzing))]
fn oodle(_raw: &[u8], _size: usize) -> Result<Vec<u8>> {
    Err(Error::unsupported("Oodle is not fuzzed (see compress.rs)"))
}

#[cfg(not(feature = "oodle"))]
fn oodle(_raw: &[u8], _size: usize) -> Result<Vec<u8>> {
    Err(Error::not_in_build("an Oodle-compressed block", "oodle"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::io::ErrorKind;

    #[test]
    fn unreal_names() {
        // Names as they stand in the UE 5.8 fixtures' pak footers and .utoc method tables.
        assert_eq!(Method::from_unreal_name("Oodle\0\0"), Some(Method::Oodle));
        assert_eq!(Method::from_unreal_name("Zlib"), Some(Method::Zlib));
        assert_eq!(Method::from_unreal_name(""), Some(Method::Stored));
        assert_eq!(Method::from_unreal_name("LZMA2"), None);
    }

    #[test]
    fn every_method_checks_the_declared_size() {
        let l = Limits::default();
        let data: Vec<u8> = (0..5000u32).map(|i| (i * 7 % 251) as u8).collect();
        let z = miniz_oxide::deflate::compress_to_vec_zlib(&data, 6);
        let lz = lz4_flex::block::compress(&data);
        let mut gz = Vec::new();
        {
            use std::io::Write;
            let mut e = flate2::write::GzEncoder::new(&mut gz, flate2::Compression::fast());
            e.write_all(&data).unwrap();
            e.finish().unwrap();
        }
        for (m, raw) in [
            (Method::Stored, data.clone()),
            (Method::Zlib, z),
            (Method::Lz4, lz),
            (Method::Gzip, gz),
        ] {
            assert_eq!(decompress(m, &raw, 5000, &l).unwrap(), data, "{m:?}");
            let e = decompress(m, &raw, 4999, &l).unwrap_err();
            assert_eq!(e.kind, ErrorKind::Malformed, "{m:?}: {e}");
            assert!(decompress(m, &raw, 5001, &l).is_err(), "{m:?}");
        }
        let tight = Limits {
            max_alloc: 100,
            ..Limits::default()
        };
        let e = decompress(Method::Zlib, &[0u8; 4], 5000, &tight).unwrap_err();
        assert_eq!(e.kind, ErrorKind::LimitExceeded);
        // 4 bytes of LZ4 cannot make 1 MiB.
        let e = decompress(Method::Lz4, &[0u8; 4], 1 << 20, &l).unwrap_err();
        assert_eq!(e.kind, ErrorKind::Malformed);
    }
}
