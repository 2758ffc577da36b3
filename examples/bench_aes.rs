//! AES-256 decryption speed of the two modes Unreal containers use (issue 31), natively:
//!
//!     cargo run --release --example bench_aes [-- MiB]
//!
//! Decrypts the same buffer (default 64 MiB) in place with ECB (`AesKey::decrypt`, every
//! container up to UE 5.8) and CTR (`AesKey::apply_ctr`, UE 6.0's per-container choice), both
//! through RustCrypto and both by `AesBench::decrypt` (64 KiB pieces, a nonce each for CTR: the
//! work `texscope bench --aes` and the page's bench.html?aes=1 time), five times each, and prints
//! a Markdown table: the best MB/s of each mode and CTR's speed as a ratio of ECB's measured in
//! the same run.

use std::time::Instant;
use texscope::io::aes::{AesBench, Mode};

fn best(mib: u32, mode: Mode) -> f64 {
    let mut b = AesBench::new(mib).expect("MiB is 1..256");
    let mut best = f64::MAX;
    for _ in 0..5 {
        let t = Instant::now();
        b.decrypt(mode).expect("whole 64 KiB pieces");
        best = best.min(t.elapsed().as_secs_f64());
    }
    std::hint::black_box(b.bytes());
    b.megabytes() / best
}

fn main() {
    let mib: u32 = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(64);
    let ecb = best(mib, Mode::Ecb);
    let ctr = best(mib, Mode::Ctr);
    println!("| mode | MB/s ({mib} MiB, best of 5) | vs ECB |");
    println!("|---|---:|---:|");
    println!("| ECB (`AesKey::decrypt`) | {ecb:.0} | 1.00 |");
    println!(
        "| CTR (`AesKey::apply_ctr`) | {ctr:.0} | {:.2} |",
        ctr / ecb
    );
}
