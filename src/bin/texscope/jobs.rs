//! Folder groups on several threads with the output in the order one thread would give (issue 8:
//! "the CLI census runs over a folder on all cores with flat memory").
//!
//! Each worker opens, reports and drops one group at a time (a `Catalog`'s sources are not
//! `Send`, so it never leaves its thread; only the rendered text does). A worker does
//! not start group `i` until group `i - window` has been written, so at most `window` finished
//! results wait for a slow earlier group: memory stays flat however many groups a folder has.
//! std::thread::scope and a condvar suffice here; a thread-pool crate would add a dependency for
//! twenty lines.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Condvar, Mutex};

/// The worker count when `--jobs` is not given: one per core.
pub fn default_jobs() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

struct State<T> {
    done: BTreeMap<usize, T>,
    /// Results handed to the sink so far (the next index it expects).
    emitted: usize,
    stop: bool,
}

/// Runs `work(i)` for every `i` in `0..n` on `jobs` threads and passes the results to `sink` in
/// index order; `sink` returns false to stop early (a closed pipe).
pub fn ordered<T: Send>(
    n: usize,
    jobs: usize,
    work: impl Fn(usize) -> T + Sync,
    mut sink: impl FnMut(T) -> bool,
) {
    let jobs = jobs.clamp(1, n.max(1));
    if jobs == 1 {
        for i in 0..n {
            if !sink(work(i)) {
                return;
            }
        }
        return;
    }
    let window = 2 * jobs;
    let next = AtomicUsize::new(0);
    let state = Mutex::new(State {
        done: BTreeMap::new(),
        emitted: 0,
        stop: false,
    });
    let changed = Condvar::new();
    // A poisoned lock means a worker panicked; its panic is re-raised when the scope ends.
    let lock = || state.lock().unwrap_or_else(|e| e.into_inner());
    std::thread::scope(|scope| {
        for _ in 0..jobs {
            scope.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                if i >= n {
                    return;
                }
                {
                    let mut s = lock();
                    while !s.stop && i >= s.emitted + window {
                        s = changed.wait(s).unwrap_or_else(|e| e.into_inner());
                    }
                    if s.stop {
                        return;
                    }
                }
                let result = work(i);
                lock().done.insert(i, result);
                changed.notify_all();
            });
        }
        for i in 0..n {
            let result = {
                let mut s = lock();
                loop {
                    if let Some(r) = s.done.remove(&i) {
                        s.emitted = i + 1;
                        break r;
                    }
                    s = changed.wait(s).unwrap_or_else(|e| e.into_inner());
                }
            };
            changed.notify_all();
            if !sink(result) {
                lock().stop = true;
                changed.notify_all();
                return;
            }
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn results_come_in_index_order_whatever_finishes_first() {
        // Later indices finish first (shorter sleeps); the sink must still see 0, 1, 2, ...
        let mut seen = Vec::new();
        ordered(
            24,
            4,
            |i| {
                std::thread::sleep(std::time::Duration::from_millis((24 - i as u64) % 5));
                i
            },
            |i| {
                seen.push(i);
                true
            },
        );
        assert_eq!(seen, (0..24).collect::<Vec<_>>());
    }

    #[test]
    fn a_sink_that_stops_ends_the_run() {
        let mut seen = 0;
        ordered(
            1000,
            3,
            |i| i,
            |_| {
                seen += 1;
                seen < 5
            },
        );
        assert_eq!(seen, 5);
    }
}
