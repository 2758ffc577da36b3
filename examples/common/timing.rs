//! What the benchmark examples share (each includes it with `#[path]`; examples/common/ holds no
//! example of its own).

use std::time::Instant;

/// The median wall time in ms of `runs` calls of `f`, after one untimed call (first-touch page
/// faults and lazily built tables are not part of a decode's cost).
pub fn median_ms(runs: usize, mut f: impl FnMut()) -> f64 {
    f();
    let mut t: Vec<f64> = (0..runs)
        .map(|_| {
            let start = Instant::now();
            f();
            start.elapsed().as_secs_f64() * 1e3
        })
        .collect();
    t.sort_by(f64::total_cmp);
    t[runs / 2]
}
