//! PNG and JPEG decoding, the crates Texscope keeps against the other well-kept one, natively:
//! `cargo run --release --example bench_image_files [-- RUNS [OUT_DIR]]` (default 9 runs). The
//! inputs are real editor-package image files from the shared samples (unreal-editor/): the PNG
//! and JPEG originals projects committed beside their packages, and the PNG sources UE 5.1-5.3
//! stored inside Oodle-compressed payloads (16-bit ones among them), decoded from the packages.
//! For each file, one JSON line: the median ms of Texscope's decode (`codec::image_file`: `png`
//! or zune-jpeg) and of the other crate (zune-png with CRCs checked, or jpeg-decoder) on the same
//! bytes in the same run, their ratio, whether the pixels agree (PNG: equal; JPEG: within 4 per
//! sample, the IDCTs and chroma upsampling round differently) and the largest 8-bit difference.
//! With OUT_DIR, the inputs are also written there (bench/image-wasm/run.mjs times the same
//! bytes in wasm). Not a timed test: it prints, it asserts nothing.

#[path = "common/timing.rs"]
mod timing;
use std::path::{Path, PathBuf};
use texscope::codec::image_file::{self, FileKind};
use texscope::io::{FileSource, Limits};
use texscope::unreal::{cbuf, trailer};
use timing::median_ms;

fn samples() -> PathBuf {
    let rel = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared/samples/unreal-editor");
    if rel.exists() {
        rel
    } else {
        PathBuf::from("/work/shared/samples/unreal-editor")
    }
}

/// (name, bytes) of every input.
fn inputs(root: &Path) -> Vec<(String, Vec<u8>)> {
    let mut out = Vec::new();
    let l = Limits::default();
    let text = std::fs::read_to_string(root.join("MANIFEST.tsv")).expect("MANIFEST.tsv");
    for line in text.lines().skip(1) {
        let c: Vec<&str> = line.split('\t').collect();
        let dir = root.join(c[0].replace('/', "+"));
        if let Some(orig) = c.get(11).filter(|s| !s.is_empty()) {
            let name = orig.rsplit('/').next().unwrap().to_string();
            out.push((name, std::fs::read(dir.join(orig)).unwrap()));
        }
        // UE5 TSCF_PNG sources stored in Oodle buffers: the PNG is the payload's raw bytes.
        if c[8] == "TSCF_PNG" && c[9] == "cbuf-oodle" {
            let src = FileSource::open(&dir.join(c[2])).unwrap();
            let t = trailer::read_trailer(&src, None, &l).unwrap().unwrap();
            let e = &t.entries()[0];
            let raw =
                cbuf::decode(&src, e.offset.unwrap(), e.compressed_size.unwrap(), &l).unwrap();
            let name = format!("{}:{}", c[2].rsplit('/').next().unwrap(), c[7]);
            out.push((name, raw));
        }
    }
    out.sort_by(|a, b| a.0.cmp(&b.0));
    out.dedup_by(|a, b| a.1 == b.1);
    out
}

fn zune_png(b: &[u8]) -> Vec<u8> {
    // CRCs checked, as Texscope's decode checks them.
    let o = zune_core::options::DecoderOptions::default().png_set_confirm_crc(true);
    let mut d = zune_png::PngDecoder::new_with_options(zune_core::bytestream::ZCursor::new(b), o);
    d.decode_raw().unwrap()
}

fn jpeg_decoder(b: &[u8]) -> Vec<u8> {
    jpeg_decoder::Decoder::new(b).decode().unwrap()
}

fn main() {
    let mut args = std::env::args().skip(1);
    let runs: usize = args.next().map_or(9, |s| s.parse().expect("RUNS"));
    let out_dir = args.next().map(PathBuf::from);
    let l = Limits::default();
    if let Some(d) = &out_dir {
        std::fs::create_dir_all(d).unwrap();
    }
    for (name, b) in inputs(&samples()) {
        let kind = FileKind::sniff(&b).expect("a PNG or JPEG");
        if let Some(d) = &out_dir {
            let file = format!("{}.{}", name.replace([':', ' '], "_"), kind.extension());
            std::fs::write(d.join(file), &b).unwrap();
        }
        let ours = image_file::decode(&b, &l).unwrap();
        let theirs = match kind {
            FileKind::Png => zune_png(&b),
            FileKind::Jpeg => jpeg_decoder(&b),
        };
        let agree = match kind {
            FileKind::Png if ours.bit_depth == 16 => {
                // zune-png gives 16-bit samples big-endian, as the file stores them.
                let swapped: Vec<u8> = theirs.chunks_exact(2).flat_map(|s| [s[1], s[0]]).collect();
                swapped == ours.pixels
            }
            FileKind::Png => theirs == ours.pixels,
            FileKind::Jpeg => {
                theirs.len() == ours.pixels.len()
                    && theirs
                        .iter()
                        .zip(&ours.pixels)
                        .all(|(a, b)| a.abs_diff(*b) <= 4)
            }
        };
        let max_diff = if ours.bit_depth == 8 && theirs.len() == ours.pixels.len() {
            theirs
                .iter()
                .zip(&ours.pixels)
                .map(|(a, b)| a.abs_diff(*b))
                .max()
                .unwrap_or(0)
        } else {
            0
        };
        let ours_ms = median_ms(runs, || {
            std::hint::black_box(image_file::decode(&b, &l).unwrap());
        });
        let theirs_ms = median_ms(runs, || {
            std::hint::black_box(match kind {
                FileKind::Png => zune_png(&b),
                FileKind::Jpeg => jpeg_decoder(&b),
            });
        });
        println!(
            "{{\"file\":\"{name}\",\"kind\":\"{:?}\",\"bytes\":{},\"size\":\"{}x{}x{}@{}\",\"kept\":\"{}\",\"kept_ms\":{ours_ms:.3},\"other\":\"{}\",\"other_ms\":{theirs_ms:.3},\"kept_over_other\":{:.3},\"same_pixels\":{agree},\"max_diff_8bit\":{max_diff}}}",
            kind,
            b.len(),
            ours.width,
            ours.height,
            ours.channels,
            ours.bit_depth,
            if kind == FileKind::Png { "png" } else { "zune-jpeg" },
            if kind == FileKind::Png { "zune-png" } else { "jpeg-decoder" },
            ours_ms / theirs_ms
        );
    }
}
