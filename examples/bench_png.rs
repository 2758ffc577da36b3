//! The PNG settings benchmark behind `texscope export`'s choice (issue 19: "measure the `png`
//! crate's compression settings on the real corpus and pick by numbers"; docs/benchmarks.md).
//!
//! Decodes mip 0, slice 0 of every texture under the given folders once (as `texscope export`
//! does), then encodes all of them with each setting in turn, ROUNDS times, the settings taking
//! turns inside each round so drift in the shared machine's speed falls on all alike. Prints one
//! markdown row per setting: median encode time of the whole set, MB/s of RGBA input, output
//! bytes and the ratio to the uncompressed input. One thread: the numbers are CPU per image.
//!
//! usage: cargo run --release --example bench_png -- [--rounds N] FOLDER...
//! (`--features png/zlib-rs` measures the level settings with zlib-rs instead of miniz_oxide.)

use std::path::{Path, PathBuf};
use std::time::Instant;

use png::{BitDepth, ColorType, DeflateCompression, Filter};
use texscope::{io::BytesSource, open, DecodeOptions, OpenOptions, Pixels, SourceRef};

/// One decoded surface: RGBA8 texels, and whether every alpha is 255 (then the RGB form).
struct Surface {
    width: u32,
    height: u32,
    rgba: Vec<u8>,
    opaque: bool,
}

fn files(dir: &Path, out: &mut Vec<Vec<PathBuf>>) {
    let mut here = Vec::new();
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .map(|r| r.flatten().map(|e| e.path()).collect())
        .unwrap_or_default();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            files(&p, out);
        } else if p.is_file() {
            here.push(p);
        }
    }
    if !here.is_empty() {
        out.push(here);
    }
}

fn surfaces(folders: &[String]) -> Vec<Surface> {
    let mut groups = Vec::new();
    for f in folders {
        files(Path::new(f), &mut groups);
    }
    let mut out = Vec::new();
    for group in groups {
        let sources: Vec<SourceRef> = group
            .iter()
            .filter_map(|p| {
                let bytes = std::fs::read(p).ok()?;
                Some(BytesSource::shared(p.display().to_string(), bytes))
            })
            .collect();
        let cat = open(sources, &OpenOptions::default());
        for i in 0..cat.textures.len() {
            let Ok(img) = cat.decode(i, 0, 0, DecodeOptions::default()) else {
                continue;
            };
            let rgba = match img.pixels {
                Pixels::Rgba8(p) => p,
                _ => img.to_rgba8(),
            };
            let opaque = rgba.chunks_exact(4).all(|t| t[3] == 255);
            out.push(Surface {
                width: img.width,
                height: img.height,
                rgba,
                opaque,
            });
        }
    }
    out
}

#[derive(Clone, Copy)]
struct Setting {
    name: &'static str,
    compression: DeflateCompression,
    filter: Filter,
    /// Write opaque surfaces as RGB (3 bytes a texel) instead of RGBA.
    rgb: bool,
}

fn encode(s: &Surface, setting: &Setting, rgb_buf: &mut Vec<u8>) -> usize {
    let mut out = Vec::with_capacity(s.rgba.len() / 2);
    let mut enc = png::Encoder::new(&mut out, s.width, s.height);
    let data: &[u8] = if setting.rgb && s.opaque {
        enc.set_color(ColorType::Rgb);
        rgb_buf.clear();
        rgb_buf.extend(s.rgba.chunks_exact(4).flat_map(|t| [t[0], t[1], t[2]]));
        rgb_buf
    } else {
        enc.set_color(ColorType::Rgba);
        &s.rgba
    };
    enc.set_depth(BitDepth::Eight);
    enc.set_deflate_compression(setting.compression);
    enc.set_filter(setting.filter);
    let mut w = enc.write_header().expect("header");
    w.write_image_data(data).expect("encode");
    w.finish().expect("finish");
    out.len()
}

fn main() {
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    let mut rounds = 5;
    if let Some(i) = args.iter().position(|a| a == "--rounds") {
        rounds = args
            .get(i + 1)
            .and_then(|v| v.parse().ok())
            .expect("--rounds N");
        args.drain(i..i + 2);
    }
    if args.is_empty() {
        eprintln!("usage: bench_png [--rounds N] FOLDER...");
        std::process::exit(2);
    }
    let set = surfaces(&args);
    let input: usize = set.iter().map(|s| s.rgba.len()).sum();
    let opaque = set.iter().filter(|s| s.opaque).count();
    println!(
        "{} surfaces, {:.1} MB of RGBA8, {opaque} of them opaque; {rounds} rounds; backend {}",
        set.len(),
        input as f64 / 1e6,
        if cfg!(feature = "png-zlib-rs") {
            "zlib-rs"
        } else {
            "flate2 default (miniz_oxide)"
        }
    );
    let fast = DeflateCompression::FdeflateUltraFast;
    let mut settings = vec![Setting {
        name: "Balanced (level 6), Adaptive, RGBA (the old export)",
        compression: DeflateCompression::Level(6),
        filter: Filter::Adaptive,
        rgb: false,
    }];
    for (name, filter) in [
        ("Fast (fdeflate), NoFilter", Filter::NoFilter),
        ("Fast (fdeflate), Sub", Filter::Sub),
        ("Fast (fdeflate), Up", Filter::Up),
        ("Fast (fdeflate), Paeth", Filter::Paeth),
        ("Fast (fdeflate), Adaptive", Filter::Adaptive),
        ("Fast (fdeflate), MinEntropy", Filter::MinEntropy),
    ] {
        settings.push(Setting {
            name,
            compression: fast,
            filter,
            rgb: false,
        });
    }
    for (name, compression, filter) in [
        ("Fast (fdeflate), Up, RGB if opaque", fast, Filter::Up),
        ("Fast (fdeflate), Paeth, RGB if opaque", fast, Filter::Paeth),
        (
            "Fast (fdeflate), Adaptive, RGB if opaque",
            fast,
            Filter::Adaptive,
        ),
        (
            "level 1, Adaptive, RGB if opaque",
            DeflateCompression::Level(1),
            Filter::Adaptive,
        ),
        (
            "level 1, Up, RGB if opaque",
            DeflateCompression::Level(1),
            Filter::Up,
        ),
        (
            "level 6, Adaptive, RGB if opaque",
            DeflateCompression::Level(6),
            Filter::Adaptive,
        ),
        (
            "stored (no compression), RGB if opaque",
            DeflateCompression::NoCompression,
            Filter::NoFilter,
        ),
    ] {
        settings.push(Setting {
            name,
            compression,
            filter,
            rgb: true,
        });
    }
    let mut times = vec![Vec::new(); settings.len()];
    let mut sizes = vec![0usize; settings.len()];
    let mut rgb_buf = Vec::new();
    for _ in 0..rounds {
        for (k, setting) in settings.iter().enumerate() {
            let t = Instant::now();
            let bytes: usize = set.iter().map(|s| encode(s, setting, &mut rgb_buf)).sum();
            times[k].push(t.elapsed().as_secs_f64());
            sizes[k] = bytes;
        }
    }
    println!("| setting | encode s (median) | MB/s of RGBA in | output MB | output / RGBA in |");
    println!("|---|---|---|---|---|");
    for (k, s) in settings.iter().enumerate() {
        times[k].sort_by(f64::total_cmp);
        let med = times[k][times[k].len() / 2];
        println!(
            "| {} | {med:.3} | {:.0} | {:.2} | {:.3} |",
            s.name,
            input as f64 / 1e6 / med,
            sizes[k] as f64 / 1e6,
            sizes[k] as f64 / input as f64
        );
    }
}
