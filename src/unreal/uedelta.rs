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
        (self.width as u64 * self.height as u64)
            .saturating_mul(self.slices as u64 * self.bytes_per_pixel as u64)
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
    // 1 to 16 bytes a pixel (G8 to RGBA32F), whole samples: what the tile rules assume.
    let sample_bytes = match plane.sample {
        Sample::U8 => 1,
        Sample::U16 => 2,
        Sample::U32 => 4,
    };
    if !(1..=16).contains(&plane.bytes_per_pixel) || plane.bytes_per_pixel % sample_bytes != 0 {
        return Err(Error::unsupported(format!(
            "{} bytes a pixel of {sample_bytes}-byte samples",
            plane.bytes_per_pixel
        ))
        .at_field("TSCF_UEDELTA"));
    }
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
        // A plane no format gives: refused, not divided by.
        let odd = Plane {
            bytes_per_pixel: 100,
            ..p
        };
        let mut d = vec![0u8; odd.size() as usize];
        assert_eq!(
            undelta(&mut d, &[odd]).unwrap_err().kind,
            ErrorKind::Unsupported
        );
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

    /// PSNR in dB of two images of 8-bit RGB samples.
    fn psnr(a: &[u8], b: &[u8]) -> f64 {
        let se: f64 = a
            .iter()
            .zip(b)
            .map(|(x, y)| (*x as f64 - *y as f64).powi(2))
            .sum();
        10.0 * (255.0f64 * 255.0 / (se / a.len() as f64).max(1e-9)).log10()
    }

    /// The source as 8-bit RGB, box-filtered down to `tw` x `th`.
    fn shrink(raw: &[u8], fmt: &str, w: u32, h: u32, tw: u32, th: u32) -> Vec<u8> {
        let rgb = |i: usize| -> [u8; 3] {
            match fmt {
                "TSF_G8" => [raw[i]; 3],
                "TSF_BGRA8" => [raw[4 * i + 2], raw[4 * i + 1], raw[4 * i]],
                // Little-endian u16 R, G, B, A: the high bytes.
                _ => [raw[8 * i + 1], raw[8 * i + 3], raw[8 * i + 5]],
            }
        };
        let mut out = Vec::with_capacity((tw * th * 3) as usize);
        for ty in 0..th {
            for tx in 0..tw {
                let (x0, x1) = (tx * w / tw, ((tx + 1) * w / tw).max(tx * w / tw + 1));
                let (y0, y1) = (ty * h / th, ((ty + 1) * h / th).max(ty * h / th + 1));
                let mut sum = [0u64; 3];
                for y in y0..y1 {
                    for x in x0..x1 {
                        let p = rgb((y * w + x) as usize);
                        (0..3).for_each(|c| sum[c] += p[c] as u64);
                    }
                }
                let n = ((x1 - x0) * (y1 - y0)) as u64;
                out.extend(sum.map(|s| (s / n) as u8));
            }
        }
        out
    }

    /// Every UEDELTA sample (UE 5.6 and 5.7, the manifest's TSCF_UEDELTA rows) against its own
    /// editor thumbnail, which the editor rendered from the source it had: the decoded source,
    /// shrunk to the thumbnail's size, resembles it, and resembles it much more than the same
    /// bytes undone as one tile (a wrong tiling garbles every band after the first). Sizes: the
    /// payload's raw size over the format's bytes per pixel, in the thumbnail's shape (each
    /// sample's is exact: one mip). A rough check of the tile rules on real data where no
    /// original image was committed (the screenshot test above is the exact one).
    #[cfg(all(feature = "oodle", feature = "image-files"))]
    #[test]
    fn every_uedelta_source_resembles_its_thumbnail() {
        let l = Limits::default();
        let rows: Vec<_> = editor_samples::rows()
            .into_iter()
            .filter(|r| r.compression == "TSCF_UEDELTA")
            .collect();
        assert_eq!(rows.len(), 8);
        for row in rows {
            let bytes = std::fs::read(&row.file).unwrap();
            let (_, tw, th) = row.thumbnail.clone();
            let thumb = editor_samples::prefixed_image_files(&bytes)
                .into_iter()
                .filter_map(|f| crate::codec::image_file::decode(f, &l).ok())
                .find(|i| (i.width, i.height) == (tw, th))
                .unwrap();
            let thumb_rgb: Vec<u8> = thumb
                .pixels
                .chunks_exact(thumb.channels as usize)
                .flat_map(|p| {
                    if p.len() >= 3 {
                        [p[0], p[1], p[2]]
                    } else {
                        [p[0]; 3]
                    }
                })
                .collect();
            let path = row.file.strip_prefix(editor_samples::root()).unwrap();
            let rel = path.components().skip(1).collect::<std::path::PathBuf>();
            let raw = payload(rel.to_str().unwrap());
            let bpp = Plane::for_format(&row.source_format, 1, 1, 1)
                .unwrap()
                .bytes_per_pixel;
            let px = raw.len() as u64 / bpp as u64;
            let guess = (px as f64 * tw as f64 / th as f64).sqrt();
            let w = (guess * 0.97) as u64..=(guess * 1.03) as u64 + 1;
            let w = w
                .filter(|w| px % w == 0)
                .min_by_key(|w| (*w as f64 - guess).abs() as u64)
                .unwrap() as u32;
            let h = (px / w as u64) as u32;
            let plane = Plane::for_format(&row.source_format, w, h, 1).unwrap();
            let mut good = raw.clone();
            undelta(&mut good, &[plane]).unwrap();
            // The better of the two channel orders is judged: the RegionTexture sample's JPEG
            // thumbnail has red and blue swapped against its source (docs/unreal.md).
            let db = |img: &[u8]| {
                let small = shrink(img, &row.source_format, w, h, tw, th);
                let swapped: Vec<u8> = small
                    .chunks_exact(3)
                    .flat_map(|p| [p[2], p[1], p[0]])
                    .collect();
                (psnr(&small, &thumb_rgb), psnr(&swapped, &thumb_rgb))
            };
            let (good_db, swapped_db) = db(&good);
            let whole = tiles(w as u64, h as u64, bpp as u64).len() == 1;
            let mut bad = raw;
            if !whole {
                // One tile over the whole image: what a reader without ImageCore's cuts would do.
                let rows_bytes = (w * bpp) as usize;
                for y in 1..h as usize {
                    let (above, here) = bad.split_at_mut(y * rows_bytes);
                    combine(
                        &mut here[..rows_bytes],
                        &above[(y - 1) * rows_bytes..],
                        plane.sample,
                        false,
                    );
                }
            }
            let bad_db = db(&bad);
            eprintln!(
                "{}: {w}x{h} {} thumb {:?}: {good_db:.1} dB (R and B swapped {swapped_db:.1}), one tile {bad_db:.1?} dB",
                rel.display(),
                row.source_format,
                thumb.kind,
            );
            let (good_db, bad_db) = (good_db.max(swapped_db), bad_db.0.max(bad_db.1));
            assert!(good_db > 10.0, "{}: {good_db:.1} dB", rel.display());
            if !whole {
                assert!(
                    good_db > bad_db + 3.0,
                    "{}: {good_db:.1} / {bad_db:.1} dB",
                    rel.display()
                );
            }
        }
    }
}
