//! UE 5.5+'s `TSCF_UEDELTA` texture-source compression: the pixels of each mip, tile by tile, as
//! the difference from the row above, then Oodle in the payload's `FCompressedBuffer`
//! (src/unreal/cbuf.rs undoes that part). This file undoes the delta.
//!
//! The rules (docs/unreal.md, "Editor payloads", from UE's ImageCoreDelta.cpp; none may change,
//! the engine says, as they are the file format): each slice of a mip is cut into tiles; a
//! slice of at most 136x136 pixels is one tile; a wider one is cut into vertical strips of at most
//! 4096 bytes per row (rounded to 64 bytes), and each strip into bands of rows of at least 32768
//! pixels (at most 512 bands). A tile's first row is stored as it is, every later row as its
//! samples minus the samples above: bytes for 8-bit formats, little-endian `u16` plus 0x8080 for
//! 16-bit ones, `u32` plus 0x80808080 for 32-bit float ones, wrapping.

use crate::io::{Error, Result};

/// The sample the differences are taken over.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Sample {
    U8,
    U16,
    U32,
}

/// One image the transform ran over: a mip of one block and layer, all its slices.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Plane {
    pub width: u32,
    pub height: u32,
    /// Faces, array layers or depth slices of this mip.
    pub slices: u32,
    pub bytes_per_pixel: u32,
    pub sample: Sample,
}

impl Plane {
    /// The plane of a mip of an `ETextureSourceFormat` (its `TSF_` name), as ImageCore sees it
    /// (`FImageCoreUtils::ConvertToRawImageFormat`); `None` for a format the transform does not
    /// take (the deprecated RGBA8/RGBE8, which the editor converts before it saves).
    pub fn for_format(format: &str, width: u32, height: u32, slices: u32) -> Option<Plane> {
        let (bytes_per_pixel, sample) = match format {
            "TSF_G8" => (1, Sample::U8),
            "TSF_BGRA8" | "TSF_BGRE8" => (4, Sample::U8),
            "TSF_G16" | "TSF_R16F" => (2, Sample::U16),
            "TSF_RGBA16" | "TSF_RGBA16F" => (8, Sample::U16),
            "TSF_R32F" => (4, Sample::U32),
            "TSF_RGBA32F" => (16, Sample::U32),
            _ => return None,
        };
        Some(Plane {
            width,
            height,
            slices,
            bytes_per_pixel,
            sample,
        })
    }

    /// Bytes of the plane.
    pub fn size(&self) -> u64 {
        self.width as u64 * self.height as u64 * self.slices as u64 * self.bytes_per_pixel as u64
    }
}

/// A tile of one slice: first column and width in pixels, first row and height.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Tile {
    pub x: u64,
    pub width: u64,
    pub y: u64,
    pub height: u64,
}

const MIN_PIXELS_PER_CUT: u64 = 32768;
const MIN_PIXELS_FOR_ANY_CUT: u64 = 136 * 136;
const CUT_STRIDE_BYTES: u64 = 4096;
const MAX_CUTS: u64 = 512;

/// Bands of rows for a strip `width` pixels wide: (rows per band, bands).
fn bands(width: u64, height: u64) -> (u64, u64) {
    let pixels = width * height;
    let mut cuts = 1;
    if pixels > MIN_PIXELS_PER_CUT {
        cuts = pixels / MIN_PIXELS_PER_CUT;
        while cuts > MAX_CUTS {
            cuts >>= 1;
        }
    }
    let rows = height.div_ceil(cuts);
    (rows, height.div_ceil(rows))
}

/// The tiles of one slice of `width` x `height` pixels of `bytes_per_pixel` bytes, in the order
/// the engine makes them (the order does not matter to the inverse: tiles are independent).
pub fn tiles(width: u64, height: u64, bytes_per_pixel: u64) -> Vec<Tile> {
    let mut out = Vec::new();
    if width == 0 || height == 0 {
        return out;
    }
    let whole = Tile {
        x: 0,
        width,
        y: 0,
        height,
    };
    if width * height <= MIN_PIXELS_FOR_ANY_CUT {
        out.push(whole);
        return out;
    }
    let stride = width * bytes_per_pixel;
    let (strip, strips) = if stride <= CUT_STRIDE_BYTES {
        (width, 1)
    } else {
        let parts = stride.div_ceil(CUT_STRIDE_BYTES);
        // Rounded division, then up to a 64-byte line (which is also a whole number of pixels
        // for every format's 1 to 16 bytes per pixel).
        let part_bytes = ((stride + parts / 2) / parts + 63) & !63;
        let px = part_bytes / bytes_per_pixel;
        (px, width.div_ceil(px))
    };
    for s in 0..strips {
        let x = s * strip;
        let w = strip.min(width - x);
        let (rows, n) = bands(w, height);
        for b in 0..n {
            let y = b * rows;
            out.push(Tile {
                x,
                width: w,
                y,
                height: rows.min(height - y),
            });
        }
    }
    out
}

/// Undoes the delta of one plane in place (`data` is exactly the plane's bytes).
pub fn undelta_plane(data: &mut [u8], plane: &Plane) -> Result<()> {
    transform(data, plane, false)
}

/// Every row but the first of every tile of every slice, with the row above it: `f(row, above)`.
/// Top down when inverting (each row adds the row above, already restored), bottom up when
/// encoding (each row is taken from the row above before that one changes).
fn transform(data: &mut [u8], plane: &Plane, forward: bool) -> Result<()> {
    if data.len() as u64 != plane.size() {
        return Err(Error::truncated(0, plane.size(), data.len() as u64).at_field("TSCF_UEDELTA"));
    }
    let bpp = plane.bytes_per_pixel as u64;
    let stride = plane.width as u64 * bpp;
    let slice_bytes = stride * plane.height as u64;
    let tiles = tiles(plane.width as u64, plane.height as u64, bpp);
    for s in 0..plane.slices as u64 {
        let base = s * slice_bytes;
        for t in &tiles {
            let n = (t.width * bpp) as usize;
            let rows = t.y + 1..t.y + t.height;
            let mut each = |y: u64| {
                let row = (base + y * stride + t.x * bpp) as usize;
                let (above, here) = data.split_at_mut(row);
                let prev = &above[row - stride as usize..][..n];
                combine(&mut here[..n], prev, plane.sample, forward);
            };
            if forward {
                rows.rev().for_each(&mut each);
            } else {
                rows.for_each(&mut each);
            }
        }
    }
    Ok(())
}

/// Inverse: `cur + prev - bias`; forward: `cur - prev + bias`, per sample, wrapping.
#[inline]
fn combine(cur: &mut [u8], prev: &[u8], sample: Sample, forward: bool) {
    match (sample, forward) {
        (Sample::U8, false) => cur
            .iter_mut()
            .zip(prev)
            .for_each(|(c, p)| *c = c.wrapping_add(*p)),
        (Sample::U8, true) => cur
            .iter_mut()
            .zip(prev)
            .for_each(|(c, p)| *c = c.wrapping_sub(*p)),
        (Sample::U16, _) => {
            for (c, p) in cur.chunks_exact_mut(2).zip(prev.chunks_exact(2)) {
                let (a, b) = (
                    u16::from_le_bytes([c[0], c[1]]),
                    u16::from_le_bytes([p[0], p[1]]),
                );
                let v = if forward {
                    a.wrapping_sub(b).wrapping_add(0x8080)
                } else {
                    a.wrapping_add(b).wrapping_sub(0x8080)
                };
                c.copy_from_slice(&v.to_le_bytes());
            }
        }
        (Sample::U32, _) => {
            for (c, p) in cur.chunks_exact_mut(4).zip(prev.chunks_exact(4)) {
                let a = u32::from_le_bytes([c[0], c[1], c[2], c[3]]);
                let b = u32::from_le_bytes([p[0], p[1], p[2], p[3]]);
                let v = if forward {
                    a.wrapping_sub(b).wrapping_add(0x8080_8080)
                } else {
                    a.wrapping_add(b).wrapping_sub(0x8080_8080)
                };
                c.copy_from_slice(&v.to_le_bytes());
            }
        }
    }
}

/// Undoes the delta of a whole source in place: `planes` in the order they are stored (each
/// mip of each layer of each block). The data must hold them all; bytes past them are an error
/// too (a size the source's properties do not explain).
pub fn undelta(data: &mut [u8], planes: &[Plane]) -> Result<()> {
    let mut at = 0u64;
    for (i, p) in planes.iter().enumerate() {
        let end = at.saturating_add(p.size());
        if end > data.len() as u64 {
            return Err(Error::truncated(at, p.size(), data.len() as u64)
                .at_field(&format!("TSCF_UEDELTA/Plane[{i}]")));
        }
        undelta_plane(&mut data[at as usize..end as usize], p)?;
        at = end;
    }
    if at != data.len() as u64 {
        return Err(Error::malformed(format!(
            "{} bytes of delta-coded pixels, but the source's mips take {at}",
            data.len()
        ))
        .at_field("TSCF_UEDELTA"));
    }
    Ok(())
}

/// The forward transform (what the editor does before it compresses): for tests and benchmarks
/// that need a UEDELTA source of a given size.
pub fn delta_plane(data: &mut [u8], plane: &Plane) -> Result<()> {
    transform(data, plane, true)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::io::{ErrorKind, FileSource, Limits};
    use crate::unreal::{cbuf, editor_samples, trailer};

    fn tile(x: u64, width: u64, y: u64, height: u64) -> Tile {
        Tile {
            x,
            width,
            y,
            height,
        }
    }

    /// Tiles worked by hand from the rules in the module comment.
    #[test]
    fn tiles_by_hand() {
        // 128x128 G8: 16384 pixels, under 136x136: one tile.
        assert_eq!(tiles(128, 128, 1), vec![tile(0, 128, 0, 128)]);
        // 623x643 BGRA8 (the screenshot sample): 2492-byte rows, no strips; 400589 pixels /
        // 32768 = 12 cuts; ceil(643 / 12) = 54 rows a band; 12 bands, the last 643 - 594 = 49.
        let t = tiles(623, 643, 4);
        assert_eq!(t.len(), 12);
        assert!(t.iter().all(|t| t.x == 0 && t.width == 623));
        assert_eq!((t[1].y, t[1].height), (54, 54));
        assert_eq!((t[11].y, t[11].height), (594, 49));
        // 2048x4096 RGBA16: 16384-byte rows: 4 strips of 4096 bytes (512 pixels); each strip
        // 512 * 4096 = 2 Mi pixels / 32768 = 64 cuts of 64 rows.
        let t = tiles(2048, 4096, 8);
        assert_eq!(t.len(), 4 * 64);
        assert_eq!(t[64], tile(512, 512, 0, 64));
        // 1000x300 BGRA8: 4000-byte rows, one strip; 300000 / 32768 = 9 cuts; ceil(300 / 9) = 34
        // rows; ceil(300 / 34) = 9 bands, the last 300 - 272 = 28.
        let t = tiles(1000, 300, 4);
        assert_eq!(t.len(), 9);
        assert_eq!(t[8], tile(0, 1000, 272, 28));
        // 1100x200 BGRA8: 4400-byte rows, 2 parts of (4400 + 1) / 2 = 2200 bytes, up to 2240
        // (560 pixels): strips of 560 and 540 pixels. 560 * 200 = 112000 / 32768 = 3 cuts of 67
        // rows; 540 * 200 = 108000 / 32768 = 3 cuts too.
        let t = tiles(1100, 200, 4);
        assert_eq!(t.len(), 6);
        assert_eq!(t[3], tile(560, 540, 0, 67));
        assert_eq!(t[5], tile(560, 540, 134, 66));
        // Over 512 cuts: 8192x8192 G8 is 2 strips of 4096 pixels, 4096 * 8192 / 32768 = 1024
        // cuts, halved to 512: 16 rows a band.
        let t = tiles(8192, 8192, 1);
        assert_eq!(t.len(), 2 * 512);
        assert_eq!(t[1].height, 16);
    }

    /// The forward transform written from the rules and its inverse give back the pixels, for
    /// every sample size, with strips, bands and slices.
    #[test]
    fn round_trip() {
        let mut x = 0x9E37_79B9u32;
        for (fmt, w, h, s) in [
            ("TSF_G8", 300, 200, 1),
            ("TSF_BGRA8", 1100, 200, 2),
            ("TSF_RGBA16", 700, 90, 1),
            ("TSF_G16", 100, 100, 6),
            ("TSF_RGBA32F", 300, 120, 1),
            ("TSF_R32F", 5, 3, 1),
        ] {
            let p = Plane::for_format(fmt, w, h, s).unwrap();
            let orig: Vec<u8> = (0..p.size())
                .map(|i| {
                    x ^= x << 13;
                    x ^= x >> 17;
                    x ^= x << 5;
                    // Smooth with noise, so rows differ and deltas wrap.
                    ((i / 7) as u32 ^ (x & 3)) as u8
                })
                .collect();
            let mut d = orig.clone();
            delta_plane(&mut d, &p).unwrap();
            assert_ne!(d, orig);
            // The first row of every tile is stored as it is.
            let row = (p.bytes_per_pixel * w) as usize;
            assert_eq!(d[..row], orig[..row]);
            undelta(&mut d, &[p]).unwrap();
            assert!(d == orig, "{fmt}");
        }
    }

    #[test]
    fn a_stream_that_ends_early_is_an_error() {
        let p = Plane::for_format("TSF_BGRA8", 64, 64, 1).unwrap();
        let q = Plane::for_format("TSF_BGRA8", 32, 32, 1).unwrap();
        let mut d = vec![0u8; (p.size() + q.size() - 1) as usize];
        let e = undelta(&mut d, &[p, q]).unwrap_err();
        assert_eq!(e.kind, ErrorKind::Truncated);
        assert_eq!(e.field.as_deref(), Some("TSCF_UEDELTA/Plane[1]"));
        let mut d = vec![0u8; (p.size() + 1) as usize];
        assert_eq!(
            undelta(&mut d, &[p]).unwrap_err().kind,
            ErrorKind::Malformed
        );
        assert!(Plane::for_format("TSF_RGBA8_DEPRECATED", 1, 1, 1).is_none());
    }

    /// The payload of a UEDELTA sample, Oodle-decoded (cbuf.rs checks it against its BLAKE3).
    fn payload(path: &str) -> Vec<u8> {
        let row = editor_samples::rows()
            .into_iter()
            .find(|r| r.file.ends_with(path))
            .unwrap();
        let l = Limits::default();
        let src = FileSource::open(&row.file).unwrap();
        let t = trailer::read_trailer(&src, None, &l).unwrap().unwrap();
        let e = &t.entries()[0];
        cbuf::decode(&src, e.offset.unwrap(), e.compressed_size.unwrap(), &l).unwrap()
    }

    /// BlasterGameUE5.6's screenshot (TSF_BGRA8, TSCF_UEDELTA) against the PNG the project
    /// committed beside it (manifest): every pixel equal, channels swapped from BGRA to RGBA.
    #[cfg(all(feature = "oodle", feature = "image-files"))]
    #[test]
    fn screenshot_equals_its_png() {
        let dir = editor_samples::root().join("lukesorvik+BlasterGameUE5.6/Content/Movies");
        let png = std::fs::read(dir.join("Screenshot 2024-12-04 021134.png")).unwrap();
        let img = crate::codec::image_file::decode(&png, &Limits::default()).unwrap();
        let mut raw = payload("Content/Movies/Screenshot_2024-12-04_021134.uasset");
        let (w, h) = (img.width, img.height);
        let plane = Plane::for_format("TSF_BGRA8", w, h, 1).unwrap();
        assert_eq!(raw.len() as u64, plane.size(), "{w}x{h}");
        undelta(&mut raw, &[plane]).unwrap();
        assert_eq!(img.bit_depth, 8);
        let c = img.channels as usize;
        for (i, (s, o)) in raw
            .chunks_exact(4)
            .zip(img.pixels.chunks_exact(c))
            .enumerate()
        {
            let rgba = [s[2], s[1], s[0], s[3]];
            let want = [o[0], o[1], o[2], if c == 4 { o[3] } else { 255 }];
            assert_eq!(rgba, want, "pixel {i} ({}, {})", i as u32 % w, i as u32 / w);
        }
    }
}
