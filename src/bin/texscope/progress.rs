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
//!
//! Before the bar, while the command lists (walks) its folders and so cannot know the bar's
//! total, a [`Listing`] line counts the files found ("Listing: 12,345 files found"), under the
//! same conditions; it is cleared when the walk ends and the bar takes its place. While a folder
//! of Unreal containers is opened, the bar also says the open's finer step ([`step_text`]: their
//! indexes, their packages), which a folder of one large .pak spends most of its time in.

use std::io::{IsTerminal, Write};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use indicatif::{
    HumanBytes, HumanCount, ProgressBar, ProgressDrawTarget, ProgressState, ProgressStyle,
};
use texscope::OpenStage;

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

/// The bar's words for a step inside an engine's pass (`texscope::OpenProgress`), "Unreal:
/// 12,000/40,000 packages" (the packages looked at, each one's first block read); None for the
/// stages the bar's own counts cover (a folder's files read and its engine passes take a moment
/// each). Short: while a step shows, the line must still fit 80 columns (see `Progress::new`).
pub fn step_text(stage: OpenStage, done: usize, total: usize) -> Option<String> {
    let what = match stage {
        OpenStage::Probed | OpenStage::Engines => return None,
        OpenStage::Containers => "container indexes",
        OpenStage::Packages => "packages",
        OpenStage::TexturePackages => "texture packages",
        OpenStage::LooseFiles => "loose files",
    };
    Some(format!(
        "Unreal: {}/{} {what}",
        HumanCount(done as u64),
        HumanCount(total as u64)
    ))
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
    /// The last finer step an open told ([`Progress::step`]), drawn after the detail; cleared
    /// when a folder is done. Kept as numbers: the words are made only when the bar is drawn.
    step: Arc<Mutex<Option<(OpenStage, usize, usize)>>>,
}

impl Progress {
    /// A bar over `files` files when `show` (see [`wanted`]); `noun` names what the second count
    /// is ("textures"; export counts "images" written).
    pub fn new(show: bool, files: u64, noun: &'static str) -> Progress {
        let textures = Arc::new(AtomicU64::new(0));
        let step = Arc::new(Mutex::new(None));
        if !show {
            return Progress {
                bar: None,
                textures,
                step,
            };
        }
        let count = textures.clone();
        let told = step.clone();
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
                        let textures = count.load(Ordering::Relaxed);
                        let step = *told.lock().unwrap_or_else(|e| e.into_inner());
                        // A container's step takes the place of the bytes and their rate (both
                        // made the line wrap on 80 columns, measured under `script`).
                        let text = match step.and_then(|(s, d, t)| step_text(s, d, t)) {
                            Some(step) => format!("{textures} {noun} · {step}"),
                            None => detail(
                                noun,
                                textures,
                                stats::read_bytes(),
                                s.elapsed().as_secs_f64(),
                            ),
                        };
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
            step,
        }
    }

    /// `files` more files done, holding `textures` more textures (or images).
    pub fn add(&self, files: u64, textures: u64) {
        self.textures.fetch_add(textures, Ordering::Relaxed);
        if let Some(b) = &self.bar {
            *self.step.lock().unwrap_or_else(|e| e.into_inner()) = None;
            b.inc(files);
        }
    }

    /// A step of an open under way (`texscope::OpenProgress`), shown until the next one or until
    /// a folder is done. With several jobs the last told shows.
    pub fn step(&self, stage: OpenStage, done: usize, total: usize) {
        if self.bar.is_some() {
            *self.step.lock().unwrap_or_else(|e| e.into_inner()) = Some((stage, done, total));
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

/// The line shown while a command lists its folders ("Listing: 12,345 files found"), before its
/// bar; like the bar, drawn only when [`wanted`]. Every method is a no-op when it is not drawn.
pub struct Listing {
    bar: Option<ProgressBar>,
}

impl Listing {
    pub fn new(show: bool) -> Listing {
        let bar = show.then(|| {
            let style = ProgressStyle::with_template("{spinner} Listing: {human_pos} files found")
                .unwrap_or_else(|_| ProgressStyle::default_spinner());
            let bar =
                ProgressBar::with_draw_target(None, ProgressDrawTarget::stderr()).with_style(style);
            // The spinner turns while one large folder is read and the count stands still.
            bar.enable_steady_tick(Duration::from_millis(100));
            bar
        });
        Listing { bar }
    }

    /// `files` more files found.
    pub fn found(&self, files: u64) {
        if let Some(b) = &self.bar {
            b.inc(files);
        }
    }

    /// Writes `text` (a line) to stderr with the count taken off the screen meanwhile.
    pub fn eprintln(&self, text: &str) {
        let write = || eprintln!("{text}");
        match &self.bar {
            Some(b) => b.suspend(write),
            None => write(),
        }
    }

    /// The walk is over: draws the final count once (a walk quicker than the first tick would
    /// otherwise show nothing; `suspend` redraws at once), then clears the line for the bar.
    pub fn finish(&self) {
        if let Some(b) = &self.bar {
            b.suspend(|| {});
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
        p.step(OpenStage::Packages, 1, 2);
        p.finish();
        assert!(p.bar.is_none());
        let l = Listing::new(false);
        l.found(3);
        l.finish();
        assert!(l.bar.is_none());
    }

    #[test]
    fn the_steps_inside_a_pass_are_worded_with_grouped_digits() {
        // indicatif's HumanCount groups thousands with commas (its documented format).
        assert_eq!(
            step_text(OpenStage::Packages, 12_000, 40_000).as_deref(),
            Some("Unreal: 12,000/40,000 packages")
        );
        assert_eq!(
            step_text(OpenStage::Containers, 3, 34).as_deref(),
            Some("Unreal: 3/34 container indexes")
        );
        assert_eq!(
            step_text(OpenStage::TexturePackages, 1, 21).as_deref(),
            Some("Unreal: 1/21 texture packages")
        );
        assert_eq!(
            step_text(OpenStage::LooseFiles, 5, 24).as_deref(),
            Some("Unreal: 5/24 loose files")
        );
        // The bar's own counts cover a folder's files and engine passes.
        assert_eq!(step_text(OpenStage::Engines, 1, 8), None);
        assert_eq!(step_text(OpenStage::Probed, 1, 8), None);
    }
}
