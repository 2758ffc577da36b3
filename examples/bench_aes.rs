//! AES-256 decryption speed of the two modes Unreal containers use (issue 31), natively:
//!
//!     cargo run --release --example bench_aes [-- MiB]
//!
//! Decrypts the same buffer (default 64 MiB) in place with ECB (`AesKey::decrypt`, every
//! container up to UE 5.8) and CTR (`AesKey::apply_ctr`, UE 6.0's per-container choice), both
//! through RustCrypto, five times each, and prints a Markdown table: the best MB/s of each mode
//! and CTR's speed as a ratio of ECB's measured in the same run.

use std::time::Instant;
use texscope::io::aes::{ctr_iv, AesKey};

fn best(mib: usize, mut f: impl FnMut(&mut [u8])) -> f64 {
    let mut buf: Vec<u8> = (0..mib << 20).map(|i| (i * 31 + 7) as u8).collect();
    let mut best = f64::MAX;
    for _ in 0..5 {
        let t = Instant::now();
        f(&mut buf);
        best = best.min(t.elapsed().as_secs_f64());
    }
    std::hint::black_box(&buf);
    (mib << 20) as f64 / 1e6 / best
}

fn main() {
    let mib: usize = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(64);
    let key = AesKey::from_bytes(*b"CUE4ParseFixtureAESKey0123456789");
    let ecb = best(mib, |b| key.decrypt(b).unwrap());
    let iv = ctr_iv(&[0x5a; 12], 0);
    let ctr = best(mib, |b| key.apply_ctr(&iv, b).unwrap());
    println!("| mode | MB/s ({mib} MiB, best of 5) | vs ECB |");
    println!("|---|---:|---:|");
    println!("| ECB (`AesKey::decrypt`) | {ecb:.0} | 1.00 |");
    println!(
        "| CTR (`AesKey::apply_ctr`) | {ctr:.0} | {:.2} |",
        ctr / ecb
    );
}
