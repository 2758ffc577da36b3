//! The image files `texscope export` writes: PNG (8- or 16-bit, RGB when opaque) and OpenEXR.

use std::path::Path;

use texscope::{Image, Pixels};

/// PNG deflate: fdeflate's fast mode with the Paeth filter, picked by examples/bench_png.rs on
/// the shared Unity corpus (docs/benchmarks.md): ~28x the old level-6 + adaptive encoder's speed,
/// within 1.5x of its size; level 1 was ~3x slower for files ~25% smaller.
const DEFLATE: png::Compression = png::Compression::Fast;
const FILTER: png::Filter = png::Filter::Paeth;

/// Writes `img` as a PNG: 16-bit for 16-bit texels, else 8-bit (floats clamped to 0..1, which
/// the caller reports). RGB without alpha when every texel's alpha is full (checked on the
/// decoded texels, so a BC1 block with punch-through alpha keeps RGBA); reading it back gives the
/// same RGBA texels either way.
pub fn png(path: &Path, img: &Image) -> Result<(), String> {
    let (data, color, depth): (std::borrow::Cow<[u8]>, _, _) = match &img.pixels {
        Pixels::Rgba16(p) => {
            let opaque = p.chunks_exact(4).all(|t| t[3] == u16::MAX);
            let keep = if opaque { 3 } else { 4 };
            let mut bytes = Vec::with_capacity(p.len() / 4 * keep * 2);
            for t in p.chunks_exact(4) {
                for v in &t[..keep] {
                    bytes.extend_from_slice(&v.to_be_bytes());
                }
            }
            (bytes.into(), opaque, png::BitDepth::Sixteen)
        }
        pixels => {
            let p: std::borrow::Cow<[u8]> = match pixels {
                Pixels::Rgba8(p) => p.into(),
                _ => img.to_rgba8().into(),
            };
            let opaque = p.chunks_exact(4).all(|t| t[3] == 255);
            let bytes = if opaque {
                // Sized up front: a flat_map collect grows the vector step by step.
                let mut rgb = Vec::with_capacity(p.len() / 4 * 3);
                for t in p.chunks_exact(4) {
                    rgb.extend_from_slice(&t[..3]);
                }
                rgb.into()
            } else {
                p
            };
            (bytes, opaque, png::BitDepth::Eight)
        }
    };
    let file = std::fs::File::create(path).map_err(|e| e.to_string())?;
    let mut enc = png::Encoder::new(std::io::BufWriter::new(file), img.width, img.height);
    enc.set_color(if color {
        png::ColorType::Rgb
    } else {
        png::ColorType::Rgba
    });
    enc.set_depth(depth);
    enc.set_compression(DEFLATE);
    enc.set_filter(FILTER);
    let mut w = enc.write_header().map_err(|e| e.to_string())?;
    w.write_image_data(&data).map_err(|e| e.to_string())?;
    w.finish().map_err(|e| e.to_string())
}

/// Writes `img` as a 32-bit float RGBA OpenEXR (unorm texels scaled to 0..1).
pub fn exr(path: &Path, img: &Image) -> Result<(), String> {
    let w = img.width as usize;
    let texel = |x: usize, y: usize| -> (f32, f32, f32, f32) {
        let i = (y * w + x) * 4;
        let v: [f32; 4] = match &img.pixels {
            Pixels::Rgba8(p) => std::array::from_fn(|c| p[i + c] as f32 / 255.0),
            Pixels::Rgba16(p) => std::array::from_fn(|c| p[i + c] as f32 / 65535.0),
            Pixels::Rgba32F(p) => std::array::from_fn(|c| p[i + c]),
        };
        (v[0], v[1], v[2], v[3])
    };
    exr::prelude::write_rgba_file(path, w, img.height as usize, texel).map_err(|e| e.to_string())
}
