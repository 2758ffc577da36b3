//! What undoing TSCF_UEDELTA costs next to the Oodle decode it follows: `cargo run --release
//! --example bench_uedelta [-- RUNS]` (default 9 runs). The source is the largest real UEDELTA
//! sample in the shared set, BlasterGameUE5.6's T_vfx_lightray_card_01_O (TSF_RGBA16, one
//! 2048x4096 mip: its payload's 67,108,864 raw bytes are 2048 x 4096 x 8, the 1:2 shape of its
//! 128x256 thumbnail); no 4096x4096 UEDELTA sample is public, and a synthetic one would need an
//! Oodle encoder, which no Rust crate has. One JSON line: the median ms of the payload's raw decode
//! (`cbuf::decode`: read + Oodle, 256 blocks), of the UEDELTA inverse alone, and of the two
//! together, and together / raw (issue 40 asks for at most 2). Not a timed test: it asserts
//! nothing.

#[path = "common/timing.rs"]
mod timing;
use std::path::PathBuf;
use texscope::io::{FileSource, Limits};
use texscope::unreal::{cbuf, trailer, uedelta};
use timing::median_ms;

fn main() {
    let runs: usize = std::env::args()
        .nth(1)
        .map_or(9, |s| s.parse().expect("RUNS"));
    let rel = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared/samples/unreal-editor");
    let root = if rel.exists() {
        rel
    } else {
        PathBuf::from("/work/shared/samples/unreal-editor")
    };
    let path = root.join("lukesorvik+BlasterGameUE5.6/Content/Assets/LearningKit2ndMigrate/LearningKit_Games/Assets/VFX/LightRay/T_vfx_lightray_card_01_O.uasset");
    let l = Limits::default();
    let src = FileSource::open(&path).unwrap();
    let t = trailer::read_trailer(&src, None, &l).unwrap().unwrap();
    let e = &t.entries()[0];
    let (at, len) = (e.offset.unwrap(), e.compressed_size.unwrap());
    let plane = uedelta::Plane::for_format("TSF_RGBA16", 2048, 4096, 1).unwrap();
    let raw = cbuf::decode(&src, at, len, &l).unwrap();
    assert_eq!(raw.len() as u64, plane.size());
    let raw_ms = median_ms(runs, || {
        std::hint::black_box(cbuf::decode(&src, at, len, &l).unwrap());
    });
    let mut work = raw.clone();
    let undelta_ms = median_ms(runs, || {
        work.copy_from_slice(&raw);
        uedelta::undelta(&mut work, &[plane]).unwrap();
    });
    let copy_ms = median_ms(runs, || work.copy_from_slice(&raw));
    let both_ms = median_ms(runs, || {
        let mut p = cbuf::decode(&src, at, len, &l).unwrap();
        uedelta::undelta(&mut p, &[plane]).unwrap();
        std::hint::black_box(p);
    });
    println!(
        "{{\"source\":\"T_vfx_lightray_card_01_O TSF_RGBA16 2048x4096\",\"raw_bytes\":{},\"compressed_bytes\":{len},\"runs\":{runs},\"raw_decode_ms\":{raw_ms:.2},\"undelta_ms\":{:.2},\"decode_and_undelta_ms\":{both_ms:.2},\"ratio\":{:.3}}}",
        raw.len(),
        undelta_ms - copy_ms,
        both_ms / raw_ms
    );
}
