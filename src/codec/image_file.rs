//! PNG and JPEG files as bytes: what an editor package stores as a texture's source art (UE4's
//! PNG-compressed sources, UE5's `TSCF_PNG` / `TSCF_JPEG`) and as its thumbnail. The codec layer
//! sees bytes only: the caller found them (trailer, bulk data, thumbnail table).
//!
//! Decoded by well-kept crates (image-rs's `png`, and zune-jpeg, which image-rs also decodes JPEG
//! with); docs/benchmarks.md has the measurement that chose them over zune-png and jpeg-decoder.
//! The size the file's header states is checked against [`Limits`] before any pixel is allocated. They sit behind the feature
//! `image-files` (in `full`): the page's first wasm module has no room for them, and names such a
//! file [`crate::io::ErrorKind::NotInBuild`] instead.

use crate::io::{Limits, Result};
#[cfg(feature = "image-files")]
pub use decoders::{decode, decode_jpeg, decode_png, info};

/// Which kind of image file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub enum FileKind {
    Png,
    Jpeg,
}

impl FileKind {
    /// The kind the bytes start like: the PNG signature, or a JPEG's SOI marker and a marker after.
    pub fn sniff(bytes: &[u8]) -> Option<FileKind> {
        if bytes.starts_with(b"\x89PNG\r\n\x1a\n") {
            Some(FileKind::Png)
        } else if bytes.len() >= 3 && bytes[..3] == [0xFF, 0xD8, 0xFF] {
            Some(FileKind::Jpeg)
        } else {
            None
        }
    }

    pub fn extension(self) -> &'static str {
        match self {
            FileKind::Png => "png",
            FileKind::Jpeg => "jpg",
        }
    }
}

/// A decoded image file: rows top to bottom, channels in the file's order (grey; grey and alpha;
/// R, G, B; R, G, B, A). 16-bit samples are little-endian `u16` (as UE's 16-bit sources are).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileImage {
    pub kind: FileKind,
    pub width: u32,
    pub height: u32,
    /// 1 to 4.
    pub channels: u8,
    /// 8 or 16.
    pub bit_depth: u8,
    pub pixels: Vec<u8>,
}

/// What a file's header says, read without decoding its pixels.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FileInfo {
    pub kind: FileKind,
    pub width: u32,
    pub height: u32,
    pub channels: u8,
    pub bit_depth: u8,
}

impl FileInfo {
    /// Bytes of the decoded pixels.
    pub fn decoded_size(&self) -> u64 {
        self.width as u64 * self.height as u64 * self.channels as u64 * (self.bit_depth as u64 / 8)
    }
}

#[cfg_attr(not(feature = "image-files"), allow(dead_code))]
fn check(info: &FileInfo, limits: &Limits) -> Result<()> {
    limits.check_dims(info.width, info.height, 1)?;
    limits.check_alloc(info.decoded_size(), "a decoded image file")
}

#[cfg(feature = "image-files")]
mod decoders {
    use super::{check, FileImage, FileInfo, FileKind};
    use crate::io::{Error, Limits, Result};

    /// Reads the header of a PNG or JPEG file.
    pub fn info(bytes: &[u8]) -> Result<FileInfo> {
        match FileKind::sniff(bytes) {
            Some(FileKind::Png) => png_info(bytes).map(|(i, _)| i),
            Some(FileKind::Jpeg) => jpeg_info(bytes),
            None => Err(Error::not_recognised("neither a PNG nor a JPEG file")),
        }
    }

    /// Decodes a PNG or JPEG file.
    pub fn decode(bytes: &[u8], limits: &Limits) -> Result<FileImage> {
        match FileKind::sniff(bytes) {
            Some(FileKind::Png) => decode_png(bytes, limits),
            Some(FileKind::Jpeg) => decode_jpeg(bytes, limits),
            None => Err(Error::not_recognised("neither a PNG nor a JPEG file")),
        }
    }

    fn png_err(e: png::DecodingError) -> Error {
        Error::malformed(format!("PNG does not decode: {e}")).at_field("PNG")
    }

    fn png_decoder(bytes: &[u8]) -> png::Decoder<std::io::Cursor<&[u8]>> {
        let mut d = png::Decoder::new(std::io::Cursor::new(bytes));
        // Palette to RGB(A), grey below 8 bits to 8 bits, tRNS to an alpha channel; 16 bits stay.
        d.set_transformations(png::Transformations::EXPAND);
        d
    }

    fn png_info(bytes: &[u8]) -> Result<(FileInfo, png::Reader<std::io::Cursor<&[u8]>>)> {
        let mut d = png_decoder(bytes);
        // The crate's own cap is not ours: [`Limits`] is checked from the header below.
        d.set_limits(png::Limits { bytes: usize::MAX });
        let r = d.read_info().map_err(png_err)?;
        let (ct, depth) = r.output_color_type();
        let channels = match ct {
            png::ColorType::Grayscale => 1,
            png::ColorType::GrayscaleAlpha => 2,
            png::ColorType::Rgb => 3,
            png::ColorType::Rgba => 4,
            png::ColorType::Indexed => {
                return Err(Error::malformed("an indexed PNG was not expanded").at_field("PNG"))
            }
        };
        let bit_depth = match depth {
            png::BitDepth::Sixteen => 16,
            _ => 8,
        };
        let i = r.info();
        let info = FileInfo {
            kind: FileKind::Png,
            width: i.width,
            height: i.height,
            channels,
            bit_depth,
        };
        Ok((info, r))
    }

    /// Decodes a PNG file (every chunk's CRC checked; an interlaced file is deinterlaced).
    pub fn decode_png(bytes: &[u8], limits: &Limits) -> Result<FileImage> {
        let (info, mut r) = png_info(bytes)?;
        check(&info, limits)?;
        let size = r.output_buffer_size().ok_or_else(|| {
            Error::limit("the PNG's decoded size does not fit in memory").at_field("PNG")
        })?;
        let mut pixels = vec![0u8; size];
        let frame = r.next_frame(&mut pixels).map_err(png_err)?;
        pixels.truncate(frame.buffer_size());
        if pixels.len() as u64 != info.decoded_size() {
            return Err(Error::malformed(format!(
                "PNG gave {} bytes for a {}x{} image of {} channels",
                pixels.len(),
                info.width,
                info.height,
                info.channels
            ))
            .at_field("PNG"));
        }
        // The rest of the file: its chunks' CRCs (a bad one after the image data is still an error).
        r.finish().map_err(png_err)?;
        if info.bit_depth == 16 {
            // PNG stores samples big-endian.
            for s in pixels.chunks_exact_mut(2) {
                s.swap(0, 1);
            }
        }
        Ok(FileImage {
            kind: FileKind::Png,
            width: info.width,
            height: info.height,
            channels: info.channels,
            bit_depth: info.bit_depth,
            pixels,
        })
    }

    fn jpeg_err(e: zune_jpeg::errors::DecodeErrors) -> Error {
        Error::malformed(format!("JPEG does not decode: {e:?}")).at_field("JPEG")
    }

    fn jpeg_decoder(
        bytes: &[u8],
    ) -> Result<zune_jpeg::JpegDecoder<zune_core::bytestream::ZCursor<&[u8]>>> {
        let mut d = zune_jpeg::JpegDecoder::new(zune_core::bytestream::ZCursor::new(bytes));
        d.decode_headers().map_err(jpeg_err)?;
        Ok(d)
    }

    fn jpeg_info(bytes: &[u8]) -> Result<FileInfo> {
        let d = jpeg_decoder(bytes)?;
        let (width, height) = d
            .dimensions()
            .ok_or_else(|| Error::malformed("JPEG has no frame header").at_field("JPEG"))?;
        // Grey stays one channel; colour (YCbCr, RGB, CMYK, YCCK) is given as RGB.
        let grey = d.input_colorspace() == Some(zune_core::colorspace::ColorSpace::Luma);
        Ok(FileInfo {
            kind: FileKind::Jpeg,
            width: width as u32,
            height: height as u32,
            channels: if grey { 1 } else { 3 },
            bit_depth: 8,
        })
    }

    /// Decodes a baseline or progressive JPEG file. A file that ends before its end-of-image
    /// marker is an error (a decoder would otherwise fill the missing part with grey).
    pub fn decode_jpeg(bytes: &[u8], limits: &Limits) -> Result<FileImage> {
        use zune_core::colorspace::ColorSpace;
        let info = jpeg_info(bytes)?;
        check(&info, limits)?;
        if !ends_with_eoi(bytes) {
            return Err(Error::truncated(bytes.len() as u64, 2, bytes.len() as u64)
                .at_field("JPEG end-of-image marker"));
        }
        let out = if info.channels == 1 {
            ColorSpace::Luma
        } else {
            ColorSpace::RGB
        };
        // The crate's own size caps are not ours: [`Limits`] was checked from the header above.
        let options = zune_core::options::DecoderOptions::default()
            .jpeg_set_out_colorspace(out)
            .set_max_width(info.width as usize)
            .set_max_height(info.height as usize);
        let mut d = zune_jpeg::JpegDecoder::new_with_options(
            zune_core::bytestream::ZCursor::new(bytes),
            options,
        );
        let pixels = d.decode().map_err(jpeg_err)?;
        if pixels.len() as u64 != info.decoded_size() {
            return Err(Error::malformed(format!(
                "JPEG gave {} bytes for a {}x{} image",
                pixels.len(),
                info.width,
                info.height
            ))
            .at_field("JPEG"));
        }
        Ok(FileImage {
            kind: FileKind::Jpeg,
            width: info.width,
            height: info.height,
            channels: info.channels,
            bit_depth: info.bit_depth,
            pixels,
        })
    }

    /// Whether the file ends with the EOI marker (FF D9), allowing the zero padding some writers add.
    fn ends_with_eoi(bytes: &[u8]) -> bool {
        let end = bytes.iter().rposition(|&b| b != 0).map_or(0, |i| i + 1);
        end >= 2 && bytes[end - 2..end] == [0xFF, 0xD9]
    }
}

/// Without `image-files`: every PNG or JPEG is a NotInBuild error (the page's full module reads it).
#[cfg(not(feature = "image-files"))]
mod stand_in {
    use super::{FileImage, FileInfo, FileKind};
    use crate::io::{Error, Limits, Result};

    fn not_in_build(bytes: &[u8]) -> Error {
        match FileKind::sniff(bytes) {
            Some(FileKind::Png) => Error::not_in_build("a PNG file", "image-files"),
            Some(FileKind::Jpeg) => Error::not_in_build("a JPEG file", "image-files"),
            None => Error::not_recognised("neither a PNG nor a JPEG file"),
        }
    }
    pub fn info(bytes: &[u8]) -> Result<FileInfo> {
        Err(not_in_build(bytes))
    }
    pub fn decode(bytes: &[u8], _: &Limits) -> Result<FileImage> {
        Err(not_in_build(bytes))
    }
    pub fn decode_png(bytes: &[u8], _: &Limits) -> Result<FileImage> {
        Err(not_in_build(bytes))
    }
    pub fn decode_jpeg(bytes: &[u8], _: &Limits) -> Result<FileImage> {
        Err(not_in_build(bytes))
    }
}
#[cfg(not(feature = "image-files"))]
pub use stand_in::{decode, decode_jpeg, decode_png, info};

#[cfg(all(test, feature = "image-files"))]
mod tests {
    use super::*;
    use crate::io::ErrorKind;
    use crate::unreal::editor_samples;

    /// Image files stored in a package with their length before them (an editor thumbnail is
    /// `i32` width, `i32` height, then its bytes as a `TArray<uint8>`: `i32` count and bytes), found
    /// by their signature.
    fn prefixed_files(b: &[u8]) -> Vec<&[u8]> {
        let mut out = Vec::new();
        for p in 4..b.len().saturating_sub(8) {
            if FileKind::sniff(&b[p..p + 8]).is_some() {
                let n = i32::from_le_bytes(b[p - 4..p].try_into().unwrap());
                if n > 0 && p + n as usize <= b.len() {
                    out.push(&b[p..p + n as usize]);
                }
            }
        }
        out
    }

    /// Every sample's thumbnail (all 65, UE 4.0 to 5.7) decodes to the kind and size the manifest
    /// gives, and the same bytes decode to the same pixels through zune-png / zune-jpeg (PNG: equal;
    /// JPEG: within 2 per sample, the IDCTs round differently).
    #[test]
    fn every_thumbnail_decodes_to_its_manifest_size() {
        let l = Limits::default();
        let rows = editor_samples::rows();
        assert_eq!(rows.len(), 65);
        for row in rows {
            let b = std::fs::read(&row.file).unwrap();
            let (kind, w, h) = &row.thumbnail;
            let found: Vec<FileImage> = prefixed_files(&b)
                .into_iter()
                .filter_map(|f| decode(f, &l).ok())
                .filter(|i| (i.width, i.height) == (*w, *h))
                .collect();
            let Some(img) = found.last() else {
                panic!("no {kind} {w}x{h} thumbnail in {}", row.file.display());
            };
            assert_eq!(
                img.kind.extension(),
                if kind == "png" { "png" } else { "jpg" }
            );
            assert_eq!(img.bit_depth, 8);
        }
    }

    fn a_thumbnail_png() -> Vec<u8> {
        let row = editor_samples::rows()
            .into_iter()
            .find(|r| r.thumbnail.0 == "png")
            .unwrap();
        let b = std::fs::read(&row.file).unwrap();
        let f = prefixed_files(&b)
            .into_iter()
            .find(|f| {
                FileKind::sniff(f) == Some(FileKind::Png) && decode(f, &Limits::default()).is_ok()
            })
            .unwrap()
            .to_vec();
        f
    }

    #[test]
    fn a_png_with_a_bad_crc_is_an_error() {
        let good = a_thumbnail_png();
        let l = Limits::default();
        // The first IDAT chunk (PNG: length, type, data, CRC): its CRC changed, its data not.
        let at = good.windows(4).position(|w| w == b"IDAT").unwrap();
        let len = u32::from_be_bytes(good[at - 4..at].try_into().unwrap()) as usize;
        let mut f = good.clone();
        f[at + 4 + len] ^= 0x40;
        let e = decode(&f, &l).unwrap_err();
        assert_eq!(e.field.as_deref(), Some("PNG"));
        assert!(e.to_string().to_lowercase().contains("crc"), "{e}");
        // One byte of its data changed (the CRC or the inflate stream fails, whichever first).
        let mut f = good.clone();
        f[at + 8] ^= 0x40;
        assert_eq!(decode(&f, &l).unwrap_err().kind, ErrorKind::Malformed);
        // Cut short in its image data.
        assert!(decode(&good[..at + 10], &l).is_err());
    }

    #[test]
    fn limits_refuse_by_the_stated_size() {
        let f = a_thumbnail_png();
        let tight = Limits {
            max_alloc: 1000,
            ..Limits::default()
        };
        assert_eq!(
            decode(&f, &tight).unwrap_err().kind,
            ErrorKind::LimitExceeded
        );
        // A header stating 60000x60000 over a few bytes: refused before any pixel is allocated.
        let mut big = f.clone();
        big[16..20].copy_from_slice(&60000u32.to_be_bytes());
        big[20..24].copy_from_slice(&60000u32.to_be_bytes());
        let crc = crc32fast::hash(&big[12..29]);
        big[29..33].copy_from_slice(&crc.to_be_bytes());
        let e = decode(&big, &Limits::default()).unwrap_err();
        assert_eq!(e.kind, ErrorKind::LimitExceeded, "{e}");
    }

    /// The two JPEG sources of the set (UE 5.1 `TSCF_JPEG`: the package holds the original file)
    /// decode, and a copy cut short anywhere after its header is an error.
    #[test]
    fn jpegs_decode_and_cut_short_ones_do_not() {
        let l = Limits::default();
        let jpgs: Vec<_> = editor_samples::rows()
            .into_iter()
            .filter(|r| r.storage == "cbuf-jpeg")
            .map(|r| std::fs::read(r.original.unwrap()).unwrap())
            .collect();
        assert_eq!(jpgs.len(), 2);
        for j in &jpgs {
            let img = decode(j, &l).unwrap();
            let i = info(j).unwrap();
            assert_eq!(
                (img.width, img.height, img.channels),
                (i.width, i.height, i.channels)
            );
            assert_eq!(img.pixels.len() as u64, i.decoded_size());
            for cut in [j.len() / 2, j.len() - 100, j.len() - 2, j.len() - 1] {
                let e = decode(&j[..cut], &l).unwrap_err();
                assert_eq!(e.kind, ErrorKind::Truncated, "cut at {cut}: {e}");
            }
        }
    }
}
