//! Helpers shared by the integration tests (each test crate uses only some of them).
#![allow(dead_code)]

use std::path::PathBuf;

/// The shared sample files, read in place (never copied into the repository): `../shared/samples`
/// beside the checkout, else the machine's `/work/shared/samples`. A test that needs them fails
/// on a missing file rather than skipping silently.
pub fn samples() -> PathBuf {
    let rel = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared/samples");
    if rel.exists() {
        rel
    } else {
        PathBuf::from("/work/shared/samples")
    }
}

/// PSNR in dB of two RGBA8 images over the given channel indices (0..4).
pub fn psnr(a: &[u8], b: &[u8], channels: &[usize]) -> f64 {
    let (mut se, mut n) = (0f64, 0f64);
    for (pa, pb) in a.chunks_exact(4).zip(b.chunks_exact(4)) {
        for &c in channels {
            let d = pa[c] as f64 - pb[c] as f64;
            se += d * d;
            n += 1.0;
        }
    }
    10.0 * (255.0 * 255.0 / (se / n)).log10()
}
