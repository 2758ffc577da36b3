//! `texscope export` (issue 19): every chosen image of every texture, laid out as the core's
//! `texscope::export` names them, on all cores, the same files for any `--jobs`.
//!
//! Three kinds of thread share the work:
//! - `jobs` group threads take the folders in order; each opens one (a `Catalog` never leaves
//!   its thread), plans its textures' images and reads each image's stored bytes, handing one job
//!   per image to the encoders (a bounded queue: memory stays at a few images per thread);
//! - `jobs` encoder threads decode, encode and write each image to a scratch name in
//!   `DIR/.texscope-export-<pid>/` (unique by construction, so no two threads touch one file);
//! - the main thread takes the folders' results in folder order and gives each texture its final
//!   names with one `texscope::export::Namer` (collisions settled in census order, whatever
//!   finished first), moving the scratch files into place and printing the messages in order.
//!
//! A group thread does not start folder `i` before folder `i - 2 * jobs` is done, so a slow folder
//! holds back only a bounded number of finished ones (their files wait on disk, not in memory).

use std::collections::{BTreeMap, HashMap};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc;
use std::sync::{Condvar, Mutex};

use crate::progress::Progress;

use texscope::export::{cube_cross, per_file, suffix, texture_target, Namer, Target};
use texscope::{
    decode_surface, Catalog, DecodeOptions, Image, Layout, Limits, PixelFormat, Pixels, RowOrder,
    TextureKind,
};

#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Pick {
    One(u32),
    All,
}

#[derive(Debug, Clone, Copy, PartialEq)]
pub enum OutFormat {
    Png,
    Exr,
    /// The original blocks, every mip and slice, in one .dds (`formats::dds::export`).
    Dds,
    /// The original blocks, every mip and slice, in one .ktx2 (`formats::ktx::export`).
    Ktx2,
    /// One surface's stored bytes.
    Raw,
    /// Decoded 8-bit RGBA, rows top first, no header (what benchmarks and scripts compare).
    Rgba,
}

impl OutFormat {
    pub fn ext(self) -> &'static str {
        match self {
            OutFormat::Png => "png",
            OutFormat::Exr => "exr",
            OutFormat::Dds => "dds",
            OutFormat::Ktx2 => "ktx2",
            OutFormat::Raw => "raw",
            OutFormat::Rgba => "rgba",
        }
    }

    /// Formats that hold the whole texture in one file.
    pub fn whole(self) -> bool {
        matches!(self, OutFormat::Dds | OutFormat::Ktx2)
    }
}

/// What `export` was asked for.
#[derive(Debug, Clone)]
pub struct Settings {
    pub out: PathBuf,
    pub mip: Pick,
    pub slice: Pick,
    pub format: OutFormat,
    /// A cube's six faces as one horizontal cross image (per mip, per cube of a cube array).
    pub cross: bool,
    /// Also each asset's editor thumbnail (`Catalog::thumbnails`), as `<asset>.thumbnail.<png|jpg>`.
    pub thumbnails: bool,
    /// The limits decoding checks (the catalog's).
    pub limits: Limits,
}

/// One folder's files, each with its path relative to the PATH it was found under.
pub struct Group {
    pub files: Vec<PathBuf>,
    pub rel: HashMap<String, Vec<String>>,
}

/// What an encoder does with one image.
enum Work {
    /// Stored bytes of a `w` x `h` surface: decode (flipping rows when stored bottom first).
    Surface {
        bytes: Vec<u8>,
        w: u32,
        h: u32,
        flip: bool,
    },
    /// Stored bytes of a cube's six faces: decode each and lay them out as a cross.
    Cross {
        faces: Vec<(Vec<u8>, u32, u32)>,
        flip: bool,
    },
    /// Already decoded (virtual textures are assembled from tiles by the catalog).
    Decoded(Image),
    /// The finished file (raw surfaces, DDS, KTX2, a thumbnail's own PNG or JPEG).
    Bytes(Vec<u8>),
    /// Decoded, written as a PNG whatever `--format` says (a thumbnail stored blue-first).
    Png(Image),
}

struct Job {
    group: usize,
    tex: usize,
    image: usize,
    scratch: PathBuf,
    format: PixelFormat,
    work: Work,
}

/// One image a texture wants: its name ending and scratch file.
struct ImagePlan {
    ending: String,
    /// "mip 0 slice 3", for messages.
    what: String,
    scratch: PathBuf,
    /// Why it was not handed to an encoder (its stored bytes could not be read).
    failed: Option<String>,
}

struct TexturePlan {
    target: Target,
    /// "file: texture", the prefix of its messages.
    owner: String,
    /// Messages before its images (e.g. why it is not exported).
    notes: Vec<String>,
    images: Vec<ImagePlan>,
}

enum Msg {
    /// A folder's plan, sent once all its jobs are queued; `errors`: files it could not open.
    Group {
        index: usize,
        textures: Vec<TexturePlan>,
        errors: Vec<String>,
    },
    /// An encoder finished one image: notes to print, or why it failed.
    Done {
        group: usize,
        tex: usize,
        image: usize,
        result: Result<Vec<String>, String>,
    },
}

/// Totals of a run.
#[derive(Debug, Default)]
pub struct Outcome {
    pub written: usize,
    /// Files that were in DIR before this export and were replaced by one of its files.
    pub replaced: usize,
}

/// Exports every group; messages go to stderr in folder order. `open_group` opens one folder.
pub fn run(
    groups: &[Group],
    settings: &Settings,
    jobs: usize,
    progress: &Progress,
    open_group: impl Fn(&[PathBuf]) -> (Catalog, Vec<(String, String)>) + Sync,
) -> std::io::Result<Outcome> {
    let scratch = settings
        .out
        .join(format!(".texscope-export-{}", std::process::id()));
    std::fs::create_dir_all(&scratch)?;
    let jobs = jobs.max(1);
    let window = 2 * jobs;
    let next = AtomicUsize::new(0);
    let finished = Mutex::new(0usize);
    let changed = Condvar::new();
    let (job_tx, job_rx) = mpsc::sync_channel::<Job>(2 * jobs);
    let job_rx = Mutex::new(job_rx);
    let (msg_tx, msg_rx) = mpsc::channel::<Msg>();
    let mut outcome = Outcome::default();
    std::thread::scope(|scope| {
        for _ in 0..jobs {
            let (job_tx, msg_tx) = (job_tx.clone(), msg_tx.clone());
            let (next, finished, changed, open_group, scratch) =
                (&next, &finished, &changed, &open_group, &scratch);
            scope.spawn(move || loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                if i >= groups.len() {
                    return;
                }
                {
                    let mut f = finished.lock().unwrap_or_else(|e| e.into_inner());
                    while i >= *f + window {
                        f = changed.wait(f).unwrap_or_else(|e| e.into_inner());
                    }
                }
                // The core does not panic on bad input; should it still, this folder reports it
                // and the others go on (the main thread waits for every folder's message).
                let planned = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                    let (cat, errors) = open_group(&groups[i].files);
                    let textures = plan_group(i, &cat, &groups[i], settings, scratch, &job_tx);
                    (textures, errors.into_iter().map(|(_, e)| e).collect())
                }));
                let (textures, errors) = planned.unwrap_or_else(|_| {
                    let folder = groups[i].files.first().and_then(|f| f.parent());
                    let folder = folder.map_or(String::new(), |f| f.display().to_string());
                    (Vec::new(), vec![format!("{folder}: texscope failed on this folder (a bug: please report it); it was not exported")])
                });
                if msg_tx
                    .send(Msg::Group {
                        index: i,
                        textures,
                        errors,
                    })
                    .is_err()
                {
                    return;
                }
            });
        }
        for _ in 0..jobs {
            let (job_rx, msg_tx) = (&job_rx, msg_tx.clone());
            scope.spawn(move || loop {
                let job = {
                    let rx = job_rx.lock().unwrap_or_else(|e| e.into_inner());
                    rx.recv()
                };
                let Ok(job) = job else { return };
                let result = encode(&job, settings);
                if result.is_err() {
                    let _ = std::fs::remove_file(&job.scratch);
                }
                let done = Msg::Done {
                    group: job.group,
                    tex: job.tex,
                    image: job.image,
                    result,
                };
                if msg_tx.send(done).is_err() {
                    return;
                }
            });
        }
        drop(job_tx);
        drop(msg_tx);
        outcome = finish(groups, &msg_rx, settings, progress, &finished, &changed);
    });
    let _ = std::fs::remove_dir_all(&scratch);
    Ok(outcome)
}

/// The main thread's part: folders in order, final names, messages.
fn finish(
    groups: &[Group],
    rx: &mpsc::Receiver<Msg>,
    settings: &Settings,
    progress: &Progress,
    finished: &Mutex<usize>,
    changed: &Condvar,
) -> Outcome {
    let mut outcome = Outcome::default();
    let mut namer = Namer::new(texscope::export::unicode_fold);
    // Each folder's plan, its messages and how many images its encoders will report.
    let mut plans: BTreeMap<usize, (Vec<TexturePlan>, Vec<String>, usize)> = BTreeMap::new();
    type Results = HashMap<(usize, usize), Result<Vec<String>, String>>;
    let mut results: BTreeMap<usize, Results> = BTreeMap::new();
    for (g, group) in groups.iter().enumerate() {
        // Wait until folder g's plan and every one of its images are in.
        loop {
            let ready = plans
                .get(&g)
                .is_some_and(|p| results.get(&g).map_or(0, |r| r.len()) == p.2);
            if ready {
                break;
            }
            match rx.recv() {
                Ok(Msg::Group {
                    index,
                    textures,
                    errors,
                }) => {
                    let want = textures
                        .iter()
                        .flat_map(|t| &t.images)
                        .filter(|i| i.failed.is_none())
                        .count();
                    plans.insert(index, (textures, errors, want));
                }
                Ok(Msg::Done {
                    group,
                    tex,
                    image,
                    result,
                }) => {
                    progress.add(0, 1);
                    results
                        .entry(group)
                        .or_default()
                        .insert((tex, image), result);
                }
                // Every thread is gone: a worker panicked (the scope re-raises it).
                Err(_) => return outcome,
            }
        }
        let (textures, errors, _) = plans.remove(&g).unwrap_or_default();
        let mut done = results.remove(&g).unwrap_or_default();
        let mut text = Vec::new();
        for (k, t) in textures.into_iter().enumerate() {
            for note in &t.notes {
                let _ = writeln!(text, "{}: {note}", t.owner);
            }
            let mut kept = Vec::new();
            let mut later = Vec::new();
            for (j, mut img) in t.images.into_iter().enumerate() {
                let result = match img.failed.take() {
                    Some(e) => Err(e),
                    None => done
                        .remove(&(k, j))
                        .unwrap_or_else(|| Err("was not written".into())),
                };
                match result {
                    Ok(notes) => {
                        later.extend(notes);
                        kept.push(img);
                    }
                    Err(e) => {
                        let _ = writeln!(text, "{}: {}: {e}", t.owner, img.what);
                    }
                }
            }
            if !kept.is_empty() {
                let endings: Vec<String> = kept.iter().map(|i| i.ending.clone()).collect();
                let placed = namer.place(&t.target, &endings, &t.owner);
                if let Some(w) = &placed.warning {
                    let _ = writeln!(text, "{}: warning: name taken: {w}", t.owner);
                }
                for (img, rel) in kept.iter().zip(&placed.paths) {
                    let dest = settings.out.join(rel);
                    let moved = dest
                        .parent()
                        .map_or(Ok(()), std::fs::create_dir_all)
                        .and_then(|_| {
                            if std::fs::symlink_metadata(&dest).is_ok() {
                                outcome.replaced += 1;
                            }
                            std::fs::rename(&img.scratch, &dest)
                        });
                    match moved {
                        Ok(()) => outcome.written += 1,
                        Err(e) => {
                            let _ = std::fs::remove_file(&img.scratch);
                            let _ =
                                writeln!(text, "{}: cannot write {}: {e}", t.owner, dest.display());
                        }
                    }
                }
            }
            for note in later {
                let _ = writeln!(text, "{}: {note}", t.owner);
            }
        }
        for e in errors {
            let _ = writeln!(text, "{e}");
        }
        progress.eprint(&text);
        progress.add(group.files.len() as u64, 0);
        *finished.lock().unwrap_or_else(|e| e.into_inner()) = g + 1;
        changed.notify_all();
    }
    outcome
}

/// Plans one opened folder's textures and queues their images. Runs on a group thread.
fn plan_group(
    group: usize,
    cat: &Catalog,
    g: &Group,
    s: &Settings,
    scratch: &Path,
    jobs: &mpsc::SyncSender<Job>,
) -> Vec<TexturePlan> {
    let mut order: Vec<usize> = (0..cat.textures.len()).collect();
    order.sort_by(|&a, &b| cat.textures[a].file.cmp(&cat.textures[b].file));
    let counts = per_file(&cat.textures);
    let ext = s.format.ext();
    let mut plans = Vec::new();
    for (k, &i) in order.iter().enumerate() {
        let t = &cat.textures[i];
        let rel = g
            .rel
            .get(&t.file)
            .cloned()
            .unwrap_or_else(|| vec![texscope::base_name(&t.file).to_string()]);
        let mut plan = TexturePlan {
            target: texture_target(t, &rel, &counts),
            owner: format!(
                "{}: {}",
                t.file,
                if t.name.is_empty() {
                    format!("(unnamed {})", t.class)
                } else {
                    t.name.clone()
                }
            ),
            notes: Vec::new(),
            images: Vec::new(),
        };
        // Core errors name the file already; the owner prefix says it once.
        let strip = |e: texscope::Error| {
            let e = e.to_string();
            e.strip_prefix(&format!("{}: ", t.file))
                .unwrap_or(&e)
                .to_string()
        };
        let queue =
            |plan: &mut TexturePlan, ending: String, what: String, work: texscope::Result<Work>| {
                let j = plan.images.len();
                let scratch = scratch.join(format!("{group}-{k}-{j}.{ext}"));
                let failed = match work {
                    Ok(work) => {
                        let job = Job {
                            group,
                            tex: k,
                            image: j,
                            scratch: scratch.clone(),
                            format: t.format,
                            work,
                        };
                        // The encoders outlive every group thread; a send fails only if one panicked.
                        jobs.send(job)
                            .err()
                            .map(|_| "the encoder stopped".to_string())
                    }
                    Err(e) => Some(strip(e)),
                };
                plan.images.push(ImagePlan {
                    ending,
                    what,
                    scratch,
                    failed,
                });
            };
        if let Some(e) = &t.error {
            // The line already starts with the file's name, as decode errors do (`strip`).
            let e = e.strip_prefix(&format!("{}: ", t.file)).unwrap_or(e);
            plan.notes.push(format!("not exported: {e}"));
            plans.push(plan);
            continue;
        }
        if s.format.whole() {
            let bytes = match s.format {
                OutFormat::Ktx2 => texscope::formats::ktx::export(cat, i),
                _ => texscope::formats::dds::export(cat, i),
            };
            queue(
                &mut plan,
                format!(".{ext}"),
                "every mip and slice".into(),
                bytes.map(Work::Bytes),
            );
            plans.push(plan);
            continue;
        }
        let mips: Vec<usize> = match s.mip {
            Pick::All => (0..t.mips.len()).collect(),
            Pick::One(m) if (m as usize) < t.mips.len() => vec![m as usize],
            Pick::One(m) => {
                plan.notes
                    .push(format!("has {} mip(s); there is no mip {m}", t.mips.len()));
                plans.push(plan);
                continue;
            }
        };
        let all_mips = s.mip == Pick::All;
        let flip = t.rows == RowOrder::BottomFirst;
        let cubes = t.slices / 6;
        let cross = s.cross
            && t.kind == TextureKind::Cube
            && cubes > 0
            && t.slices % 6 == 0
            && matches!(
                t.layout,
                Layout::Surfaces | Layout::Crunched { .. } | Layout::Source(_)
            );
        for m in mips {
            if cross {
                for c in 0..cubes {
                    let mut ending = suffix(m as u32, all_mips, 0, 1);
                    if cubes > 1 {
                        ending.push_str(&format!("__cube{c}"));
                    }
                    let faces: texscope::Result<Vec<_>> =
                        (0..6).map(|f| cat.read_surface(i, m, c * 6 + f)).collect();
                    let work = faces.map(|faces| Work::Cross { faces, flip });
                    let what = format!("mip {m} cube {c}");
                    queue(&mut plan, format!("{ending}.{ext}"), what, work);
                }
                continue;
            }
            let count = t.surface_count(m);
            let slices: Vec<u32> = match s.slice {
                Pick::All => (0..count).collect(),
                Pick::One(n) if n < count => vec![n],
                Pick::One(n) => {
                    plan.notes.push(format!(
                        "mip {m} has {count} slice(s); there is no slice {n}"
                    ));
                    continue;
                }
            };
            for sl in slices {
                let ending = format!("{}.{ext}", suffix(m as u32, all_mips, sl, count));
                let work = match s.format {
                    OutFormat::Raw => cat.read_surface(i, m, sl).map(|(b, ..)| Work::Bytes(b)),
                    _ if t.is_virtual() => cat
                        .decode(i, m, sl, DecodeOptions::default())
                        .map(Work::Decoded),
                    _ => cat
                        .read_surface(i, m, sl)
                        .map(|(bytes, w, h)| Work::Surface { bytes, w, h, flip }),
                };
                queue(&mut plan, ending, format!("mip {m} slice {sl}"), work);
            }
        }
        plans.push(plan);
    }
    if s.thumbnails {
        plan_thumbnails(group, cat, g, scratch, jobs, &mut plans);
    }
    plans
}

/// The stored bytes of thumbnail `th` (a whole PNG or JPEG file), read by its range.
fn thumbnail_bytes(cat: &Catalog, th: &texscope::model::Thumbnail) -> texscope::Result<Vec<u8>> {
    match &th.data {
        texscope::model::Storage::Range {
            source,
            offset,
            length,
        } => {
            let src = cat
                .source(*source)
                .ok_or_else(|| texscope::Error::malformed("the thumbnail names an unknown file"))?;
            texscope::io::read_range(src.as_ref(), *offset, *length, cat.limits())
        }
        _ => Err(texscope::Error::malformed(
            "the thumbnail has no stored bytes",
        )),
    }
}

/// Plans the editor thumbnails of one opened folder (after its textures, files in census order):
/// each goes where its asset's texture would (`texture_target`'s rule with the asset's object
/// name and class) as `<asset>.thumbnail.<png|jpg>`. One stored blue first (`Thumbnail::bgr`:
/// the Unreal editor's, PNG and JPEG) is decoded (`Catalog::decode_thumbnail` puts the channels
/// in order) and written again as a PNG; one stored in RGB order would be copied byte for byte.
fn plan_thumbnails(
    group: usize,
    cat: &Catalog,
    g: &Group,
    scratch: &Path,
    jobs: &mpsc::SyncSender<Job>,
    plans: &mut Vec<TexturePlan>,
) {
    let mut order: Vec<usize> = (0..cat.thumbnails.len()).collect();
    order.sort_by(|&a, &b| cat.thumbnails[a].file.cmp(&cat.thumbnails[b].file));
    let mut per_file: BTreeMap<&str, usize> = BTreeMap::new();
    for th in &cat.thumbnails {
        *per_file.entry(th.file.as_str()).or_default() += 1;
    }
    for &i in &order {
        let th = &cat.thumbnails[i];
        let rel = g
            .rel
            .get(&th.file)
            .cloned()
            .unwrap_or_else(|| vec![texscope::base_name(&th.file).to_string()]);
        let only = per_file.get(th.file.as_str()) == Some(&1);
        let target = texscope::export::target(
            &rel,
            None,
            (&th.object, &th.class),
            only,
            texscope::export::unicode_fold,
        );
        let k = plans.len();
        let work = if th.bgr {
            cat.decode_thumbnail(i).map(|img| (Work::Png(img), "png"))
        } else {
            thumbnail_bytes(cat, th).map(|b| (Work::Bytes(b), if th.jpeg { "jpg" } else { "png" }))
        };
        let scratch = scratch.join(format!("{group}-{k}-0.thumbnail"));
        let (ending, failed) = match work {
            Ok((work, ext)) => {
                let job = Job {
                    group,
                    tex: k,
                    image: 0,
                    scratch: scratch.clone(),
                    format: PixelFormat::RGBA8,
                    work,
                };
                let failed = jobs
                    .send(job)
                    .err()
                    .map(|_| "the encoder stopped".to_string());
                (format!(".thumbnail.{ext}"), failed)
            }
            Err(e) => (".thumbnail".to_string(), Some(e.to_string())),
        };
        plans.push(TexturePlan {
            target,
            owner: format!("{}: {} (thumbnail)", th.file, th.object),
            notes: Vec::new(),
            images: vec![ImagePlan {
                ending,
                what: format!("the {} thumbnail", th.class),
                scratch,
                failed,
            }],
        });
    }
}

fn decode(
    job: &Job,
    bytes: &[u8],
    (w, h): (u32, u32),
    flip: bool,
    limits: &Limits,
) -> Result<Image, String> {
    let mut img = decode_surface(job.format, w, h, bytes, limits).map_err(|e| e.to_string())?;
    if flip {
        img.flip_rows();
    }
    Ok(img)
}

/// Decodes, encodes and writes one image to its scratch file; returns notes for the user.
fn encode(job: &Job, s: &Settings) -> Result<Vec<String>, String> {
    let image = match &job.work {
        Work::Bytes(b) => {
            return std::fs::write(&job.scratch, b)
                .map(|_| Vec::new())
                .map_err(|e| e.to_string())
        }
        Work::Decoded(img) => std::borrow::Cow::Borrowed(img),
        Work::Png(img) => {
            return crate::stats::encoding(|| crate::write::png(&job.scratch, img))
                .map(|_| Vec::new())
        }
        Work::Surface { bytes, w, h, flip } => {
            std::borrow::Cow::Owned(decode(job, bytes, (*w, *h), *flip, &s.limits)?)
        }
        Work::Cross { faces, flip } => {
            let faces: Result<Vec<Image>, String> = faces
                .iter()
                .map(|(b, w, h)| decode(job, b, (*w, *h), *flip, &s.limits))
                .collect();
            std::borrow::Cow::Owned(cube_cross(&faces?).map_err(|e| e.to_string())?)
        }
    };
    let mut notes = Vec::new();
    match s.format {
        OutFormat::Png => {
            if matches!(image.pixels, Pixels::Rgba32F(_)) {
                notes.push(format!(
                    "{} holds floats; the PNG clamps them to 0..1 (use --format exr to keep them)",
                    job.format.name()
                ));
            }
            crate::stats::encoding(|| crate::write::png(&job.scratch, &image))?;
        }
        OutFormat::Exr => crate::stats::encoding(|| crate::write::exr(&job.scratch, &image))?,
        _ => {
            let bytes = match &image.pixels {
                Pixels::Rgba8(p) => std::borrow::Cow::Borrowed(&p[..]),
                _ => std::borrow::Cow::Owned(image.to_rgba8()),
            };
            std::fs::write(&job.scratch, &bytes[..]).map_err(|e| e.to_string())?;
        }
    }
    Ok(notes)
}
