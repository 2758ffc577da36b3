//! WebGL build files compressed as a whole (issue 4): `X.data.gz`, `X.data.br`, Unity's
//! `X.data.unityweb`, and gzip files served without Content-Encoding under their plain name.
//! gzip is recognised by its magic (RFC 1952: 1f 8b, method 8 = deflate); brotli has no magic
//! (RFC 7932), so it is tried only for `.br` and `.unityweb` names, and a file is claimed only when
//! its first decompressed bytes are a Unity container signature.
//!
//! Neither format can be read at an offset without decompressing what comes before, so a wrapped
//! file is decompressed whole, once, into memory (bounded by `Limits::max_alloc`).

use crate::io::{read_range, BytesSource, Error, Limits, Result, Source, SourceRef};
use std::io::Read;

#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Wrap {
    Gzip,
    Brotli,
}

impl Wrap {
    pub fn name(self) -> &'static str {
        match self {
            Wrap::Gzip => "gzip",
            Wrap::Brotli => "brotli",
        }
    }
}

/// The wrapping a file may have, from its name and first bytes.
pub fn sniff(name: &str, head: &[u8]) -> Option<Wrap> {
    let lower = crate::base_name(name).to_ascii_lowercase();
    if head.starts_with(&[0x1f, 0x8b, 8]) {
        Some(Wrap::Gzip)
    } else if lower.ends_with(".br") || lower.ends_with(".unityweb") {
        Some(Wrap::Brotli)
    } else {
        None
    }
}

/// The sliding-window size of a brotli stream, as log2 (WBITS), from its first bits (RFC 7932
/// section 9.1, read LSB first): `0` is 16; `1` then three bits n > 0 is 17 + n; `1 000` then three
/// bits m is 17 for m = 0 and 8 + m for m = 2..7. `1 000 001` is reserved by the RFC; the
/// non-standard "large window" extension uses it for windows up to 2^30, and the decoder allocates
/// its ring buffer of that size before reading any data (a 6-byte stream asked for 256 MiB), so it
/// is refused here. A standard stream's window is at most 2^24 bytes (16 MiB).
pub fn brotli_window_bits(data: &[u8]) -> Result<u32> {
    let b = *data
        .first()
        .ok_or_else(|| Error::truncated(0, 1, 0).at_field("brotli WBITS"))?;
    if b & 1 == 0 {
        return Ok(16);
    }
    let n = (b >> 1) & 7;
    if n != 0 {
        return Ok(17 + n as u32);
    }
    match (b >> 4) & 7 {
        0 => Ok(17),
        1 => Err(Error::unsupported(
            "a large-window brotli stream (a non-standard extension; RFC 7932 windows are at \
             most 16 MiB)",
        )
        .at_field("brotli WBITS")),
        m => Ok(8 + m as u32),
    }
}

fn decoder<'a>(wrap: Wrap, data: &'a [u8]) -> Result<Box<dyn Read + 'a>> {
    if wrap == Wrap::Brotli {
        brotli_window_bits(data)?;
    }
    Ok(match wrap {
        // Multi-member: a gzip file may be several members back to back (RFC 1952 2.2).
        Wrap::Gzip => Box::new(flate2::read::MultiGzDecoder::new(data)),
        #[cfg(feature = "brotli")]
        Wrap::Brotli => Box::new(brotli_decompressor::Decompressor::new(data, 64 * 1024)),
        #[cfg(not(feature = "brotli"))]
        Wrap::Brotli => return Err(Error::unsupported(
            "brotli-compressed: the page leaves out the brotli decoder to stay small; open it with the texscope CLI, or decompress it first (e.g. `brotli -d`)",
        )),
    })
}

/// How many compressed bytes a probe reads: enough for the first decompressed bytes of any
/// stream (a gzip header with a long name or comment, a brotli stream's first meta-block).
const PROBE_INPUT: u64 = 64 * 1024;

/// The first `n` decompressed bytes (fewer if the stream, or the probe's input, ends first), or
/// `None` when the start does not decompress at all (not this format after all).
pub fn probe(src: &dyn Source, wrap: Wrap, n: usize, limits: &Limits) -> Option<Vec<u8>> {
    let input = read_range(src, 0, src.len().min(PROBE_INPUT), limits).ok()?;
    let mut d = decoder(wrap, &input).ok()?;
    let mut out = vec![0u8; n];
    let mut got = 0;
    while got < n {
        match d.read(&mut out[got..]) {
            Ok(0) | Err(_) => break,
            Ok(k) => got += k,
        }
    }
    out.truncate(got);
    (got > 0).then_some(out)
}

/// The whole decompressed file as a source named like the file itself.
pub fn unwrap(src: &SourceRef, wrap: Wrap, limits: &Limits) -> Result<SourceRef> {
    let name = src.name();
    let input = read_range(src.as_ref(), 0, src.len(), limits)?;
    let mut out = Vec::new();
    decoder(wrap, &input)
        .map_err(|e| e.in_file(name))?
        .take(limits.max_alloc.saturating_add(1))
        .read_to_end(&mut out)
        .map_err(|e| {
            Error::malformed(format!(
                "the {} stream does not decompress: {e}",
                wrap.name()
            ))
            .in_file(name)
        })?;
    if out.len() as u64 > limits.max_alloc {
        return Err(Error::limit(format!(
            "the {} stream decompresses to more than {} bytes",
            wrap.name(),
            limits.max_alloc
        ))
        .in_file(name));
    }
    Ok(BytesSource::shared(name, out))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Window sizes worked by hand from RFC 7932 section 9.1 (bits read from the least
    /// significant end of the first byte).
    #[test]
    fn brotli_window_bits_follow_the_rfc() {
        assert_eq!(brotli_window_bits(&[0b0000_0000]).unwrap(), 16);
        // 1, then n = 0b111: 17 + 7 = 24, the largest standard window.
        assert_eq!(brotli_window_bits(&[0b0000_1111]).unwrap(), 24);
        assert_eq!(brotli_window_bits(&[0b0000_0011]).unwrap(), 18);
        // 1 000 000: 17; 1 000 010: 8 + 2 = 10.
        assert_eq!(brotli_window_bits(&[0b0000_0001]).unwrap(), 17);
        assert_eq!(brotli_window_bits(&[0b0010_0001]).unwrap(), 10);
        assert!(brotli_window_bits(&[]).is_err());
    }

    /// The ue_editor fuzz target (seed 2, from an empty corpus) named a file `.exp.br` holding
    /// `11 9c 2e 00 5c 00`: 0x11 is `1 000 001`, the large-window marker, whose next six bits
    /// asked for a 2^28-byte ring buffer. Refused before the decoder allocates it.
    #[test]
    fn a_large_window_brotli_stream_is_refused_before_allocating() {
        let data = [0x11u8, 0x9c, 0x2e, 0x00, 0x5c, 0x00];
        let e = brotli_window_bits(&data).unwrap_err();
        assert_eq!(e.kind, crate::io::ErrorKind::Unsupported);
        assert!(e.to_string().contains("large-window"), "{e}");
        let src = BytesSource::new("x.data.br", data.to_vec());
        assert!(probe(&src, Wrap::Brotli, 16, &Limits::default()).is_none());
    }
}
