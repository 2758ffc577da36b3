//! Read and memory figures for tests and benchmarks (issue 8: "reads only the header ranges and
//! the mip shown", "peak RSS"). With `TEXSCOPE_STATS=1` in the environment the CLI ends by
//! printing one line to stderr:
//! `texscope stats: read_bytes=N reads=N decodes=N peak_rss_kib=N encode_ms=N`
//! Bytes are counted where every file read goes through (`PathSource::read_exact_at`);
//! `decodes` counts the surfaces `texscope diff` decoded (issue 21: only changed pairs); the peak
//! RSS is the kernel's VmHWM of this process (Linux /proc/self/status; absent elsewhere);
//! `encode_ms` is the CPU time export threads spent inside the PNG/EXR encoders, summed over
//! threads (issue 19: "PNG encoding under a third of the export's time"): each thread's on-CPU
//! nanoseconds from Linux's /proc/thread-self/schedstat around each call (wall time elsewhere,
//! which counts time the thread waited for a core on a busy machine).

use std::sync::atomic::{AtomicU64, Ordering};

static READ_BYTES: AtomicU64 = AtomicU64::new(0);
static READS: AtomicU64 = AtomicU64::new(0);
static DECODES: AtomicU64 = AtomicU64::new(0);
static ENCODE_NS: AtomicU64 = AtomicU64::new(0);

/// This thread's on-CPU time in nanoseconds (the first field of /proc/thread-self/schedstat).
fn thread_cpu_ns() -> Option<u64> {
    let s = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    s.split_whitespace().next()?.parse().ok()
}

/// Runs `f`, adding the CPU time it took on this thread to `encode_ms` when stats are on.
pub fn encoding<T>(f: impl FnOnce() -> T) -> T {
    if !enabled() {
        return f();
    }
    let (cpu, wall) = (thread_cpu_ns(), std::time::Instant::now());
    let out = f();
    let ns = match (cpu, thread_cpu_ns()) {
        (Some(a), Some(b)) => b.saturating_sub(a),
        _ => wall.elapsed().as_nanos() as u64,
    };
    ENCODE_NS.fetch_add(ns, Ordering::Relaxed);
    out
}

fn enabled() -> bool {
    static ON: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *ON.get_or_init(|| std::env::var_os("TEXSCOPE_STATS").is_some_and(|v| v != "0"))
}

pub fn count_read(len: usize) {
    READ_BYTES.fetch_add(len as u64, Ordering::Relaxed);
    READS.fetch_add(1, Ordering::Relaxed);
}

/// Bytes read from files so far (the progress bar shows them).
pub fn read_bytes() -> u64 {
    READ_BYTES.load(Ordering::Relaxed)
}

pub fn count_decodes(n: u64) {
    DECODES.fetch_add(n, Ordering::Relaxed);
}

/// The process's peak resident set in KiB, as the kernel reports it (Linux only).
pub fn peak_rss_kib() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

/// Prints the stats line when `TEXSCOPE_STATS` is set (to anything but `0`).
pub fn report() {
    if !enabled() {
        return;
    }
    let rss = peak_rss_kib().map_or("unknown".to_string(), |k| k.to_string());
    eprintln!(
        "texscope stats: read_bytes={} reads={} decodes={} peak_rss_kib={rss} encode_ms={}",
        READ_BYTES.load(Ordering::Relaxed),
        READS.load(Ordering::Relaxed),
        DECODES.load(Ordering::Relaxed),
        ENCODE_NS.load(Ordering::Relaxed) / 1_000_000
    );
}
