//! The progress bar of the long commands (`census`, `export`, `diff`), drawn on stderr by
//! `indicatif` only when stderr is a terminal and `--quiet` was not given: piped or redirected
//! output (scripts, CI logs, tests) gets no bar and no extra line, byte for byte what it got
//! before. The bar counts files done of the files found, textures, the bytes read
//! (`stats::read_bytes`, every file read goes through it) and their rate, and the time left from
//! the files' rate; it is cleared when the command ends, so the last line is the command's own
//! (export's "wrote N file(s)").
//!
//! Messages a command prints on stderr while the bar shows go through [`Progress::eprint`], which
//! takes the bar off the screen for the write (else the line would be drawn over).

use std::io::{IsTerminal, Write};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

use indicatif::{HumanBytes, ProgressBar, ProgressDrawTarget, ProgressState, ProgressStyle};

use crate::stats;

/// What the bar says after the files' count: "{textures} textures · {bytes} read · {rate}/s".
/// Kept apart from indicatif so the wording is tested without a terminal.
pub fn detail(noun: &str, textures: u64, bytes: u64, secs: f64) -> String {
    let rate = if secs > 0.0 {
        (bytes as f64 / secs) as u64
    } else {
        0
    };
    format!(
        "{textures} {noun} · {} read · {}/s",
        HumanBytes(bytes),
        HumanBytes(rate)
    )
}

/// Whether a bar is drawn: stderr is a terminal and the user did not ask for quiet.
pub fn wanted(quiet: bool) -> bool {
    !quiet && std::io::stderr().is_terminal()
}

/// A command's progress; every method is a no-op when no bar is drawn. Shared by the worker
/// threads (`ProgressBar` is a handle; the textures' count is an atomic the bar reads).
pub struct Progress {
    bar: Option<ProgressBar>,
    textures: Arc<AtomicU64>,
}

impl Progress {
    /// A bar over `files` files when `show` (see [`wanted`]); `noun` names what the second count
    /// is ("textures"; export counts "images" written).
    pub fn new(show: bool, files: u64, noun: &'static str) -> Progress {
        let textures = Arc::new(AtomicU64::new(0));
        if !show {
            return Progress {
                bar: None,
                textures,
            };
        }
        let count = textures.clone();
        // The detail is computed at each draw, so the bytes move while one large folder is read.
        // The bar takes what the words leave of the terminal's width: one line on 80 columns
        // (a fixed bar made the line wrap there, and each redraw then moved two lines).
        let style =
            ProgressStyle::with_template("{wide_bar} {pos}/{len} files · {detail} · {eta} left")
                .unwrap_or_else(|_| ProgressStyle::default_bar())
                .progress_chars("=> ")
                .with_key(
                    "detail",
                    move |s: &ProgressState, w: &mut dyn std::fmt::Write| {
                        let text = detail(
                            noun,
                            count.load(Ordering::Relaxed),
                            stats::read_bytes(),
                            s.elapsed().as_secs_f64(),
                        );
                        let _ = w.write_str(&text);
                    },
                );
        let bar = ProgressBar::with_draw_target(Some(files), ProgressDrawTarget::stderr())
            .with_style(style);
        // Redrawn a few times a second even while a slow folder holds the count still.
        bar.enable_steady_tick(Duration::from_millis(250));
        Progress {
            bar: Some(bar),
            textures,
        }
    }

    /// `files` more files done, holding `textures` more textures (or images).
    pub fn add(&self, files: u64, textures: u64) {
        self.textures.fetch_add(textures, Ordering::Relaxed);
        if let Some(b) = &self.bar {
            b.inc(files);
        }
    }

    /// `files` more files to do (diff's second pass reopens folders whose textures moved).
    pub fn grow(&self, files: u64) {
        if let Some(b) = &self.bar {
            b.inc_length(files);
        }
    }

    /// Runs `f` (a write to the terminal) with the bar taken off the screen meanwhile.
    pub fn suspend<R>(&self, f: impl FnOnce() -> R) -> R {
        match &self.bar {
            Some(b) => b.suspend(f),
            None => f(),
        }
    }

    /// Writes `text` to stderr with the bar taken off the screen meanwhile.
    pub fn eprint(&self, text: &[u8]) {
        if !text.is_empty() {
            self.suspend(|| {
                let _ = std::io::stderr().lock().write_all(text);
            });
        }
    }

    /// Clears the bar: the command's own last line follows.
    pub fn finish(&self) {
        if let Some(b) = &self.bar {
            b.finish_and_clear();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_detail_counts_textures_bytes_and_their_rate() {
        // indicatif's HumanBytes: binary units with two decimals (its documented format).
        assert_eq!(
            detail("textures", 3, 3 << 20, 2.0),
            "3 textures · 3.00 MiB read · 1.50 MiB/s"
        );
        // No time yet: the rate is 0, not a division by zero.
        assert_eq!(detail("images", 0, 0, 0.0), "0 images · 0 B read · 0 B/s");
    }

    #[test]
    fn no_bar_is_drawn_when_not_wanted() {
        let p = Progress::new(false, 10, "textures");
        p.add(3, 5);
        p.grow(2);
        p.finish();
        assert!(p.bar.is_none());
    }
}
