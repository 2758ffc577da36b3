//! `texscope diff OLD NEW [--jobs N]` (issue 21): which textures of two builds changed, and how.
//!
//! One JSON object per texture that is not unchanged, in key order (path, then name), then a
//! summary object. docs/compare.md defines the pairing, the statuses and every field.
//!
//! Work goes by folder: the folder `R` relative to OLD and the one relative to NEW are opened
//! together on one worker, their textures paired and classified there (stored bytes compared
//! range by range; only changed pairs are decoded). Textures left without a partner in their
//! folder (a container that moved, or a texture really added or removed) are paired across the
//! whole build afterwards; pairs found that way open their two folders once more.

use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};

use serde_json::{json, Value};
use texscope::compare::build::{self, classify, compare_pair, Key, Verdict};
use texscope::{Catalog, OpenOptions};

use crate::progress::{Listing, Progress};
use crate::{collect, jobs, open_group, stats};

/// One side of the diff: the root the user named and its files by folder relative to it.
struct Side {
    /// The root as the user gave it: keys are file names relative to it.
    root: String,
    /// The root is a file, not a folder.
    is_file: bool,
    folders: BTreeMap<String, Vec<PathBuf>>,
}

impl Side {
    fn new(root: &Path, listing: &Listing) -> Side {
        let (groups, errors, _) = collect(&[root.to_path_buf()], listing);
        for (_, e) in errors {
            listing.eprintln(&format!("texscope: {e}"));
        }
        let name = root.display().to_string();
        let folders = groups
            .into_iter()
            .map(|(folder, files)| {
                let rel = if root.is_file() {
                    String::new()
                } else {
                    build::relative(&folder.display().to_string(), &name)
                };
                (rel, files)
            })
            .collect();
        Side {
            root: name,
            is_file: root.is_file(),
            folders,
        }
    }

    /// Opens `folder`; its files count on `bar` once opened.
    fn open(&self, folder: &str, options: &OpenOptions, bar: &Progress) -> Option<Catalog> {
        let files = self.folders.get(folder)?;
        let (cat, errors) = open_group(files, options, bar);
        for (_, e) in errors {
            bar.eprint(format!("texscope: {e}\n").as_bytes());
        }
        bar.add(files.len() as u64, cat.textures.len() as u64);
        Some(cat)
    }

    /// How many files `folder` holds (0 when this side has no such folder).
    fn files(&self, folder: &str) -> u64 {
        self.folders.get(folder).map_or(0, |f| f.len() as u64)
    }
}

/// A texture without a partner in its folder: its key, census and where to find it again.
struct Single {
    key: Key,
    census: Value,
    folder: String,
    texture: usize,
}

/// What one folder gives.
#[derive(Default)]
struct FolderOut {
    records: Vec<(Key, String)>,
    unchanged: u64,
    changed: u64,
    decodes: u64,
    old: Vec<Single>,
    new: Vec<Single>,
}

impl FolderOut {
    /// Classifies the pair (and computes its figures when it changed) and keeps its record.
    fn add_pair(&mut self, key: &Key, a: (&Catalog, usize), b: (&Catalog, usize)) {
        match evaluate(key, a, b, &mut self.decodes) {
            Some(rec) => {
                self.changed += 1;
                self.records.push((key.clone(), rec.to_string()));
            }
            None => self.unchanged += 1,
        }
    }

    /// Takes in what another worker gave.
    fn merge(&mut self, f: FolderOut) {
        self.records.extend(f.records);
        self.unchanged += f.unchanged;
        self.changed += f.changed;
        self.decodes += f.decodes;
        self.old.extend(f.old);
        self.new.extend(f.new);
    }
}

/// The record of a pair that is not unchanged (`None` when it is): see docs/compare.md.
fn evaluate(
    key: &Key,
    (a, ta): (&Catalog, usize),
    (b, tb): (&Catalog, usize),
    decodes: &mut u64,
) -> Option<Value> {
    let mut rec = record(
        "changed",
        key,
        Some(a.textures[ta].census()),
        Some(b.textures[tb].census()),
    );
    match classify(a, ta, b, tb) {
        Ok(Verdict::Unchanged) => return None,
        Ok(Verdict::Changed(changes)) => rec["changes"] = json!(changes),
        Err(e) => {
            rec["error"] = json!(e.to_string());
            return Some(rec);
        }
    }
    match compare_pair(a, ta, b, tb, decodes) {
        Ok(c) => {
            let f = &c.figures;
            let psnr = |i: usize| json!(f.channels[i].psnr);
            rec["psnr"] = json!({ "r": psnr(0), "g": psnr(1), "b": psnr(2), "a": psnr(3) });
            rec["max_abs"] = json!(f.max_abs);
            rec["mean_abs"] = json!(f.mean_abs);
            rec["differing_texels"] = json!(f.differing_texels);
            rec["differing_share"] = json!(f.differing_share);
            rec["bbox"] = json!(f.bbox.map(|r| [r.x, r.y, r.width, r.height]));
            rec["compared"] = json!({
                "old_mip": c.plan.a_mip,
                "new_mip": c.plan.b_mip,
                "width": f.width,
                "height": f.height,
                "scaled": c.plan.scaled,
            });
            rec["notice"] = json!(c.plan.notice);
        }
        Err(e) => rec["error"] = json!(e.to_string()),
    }
    Some(rec)
}

/// A record with every field present: figures `null` until computed.
fn record(status: &str, key: &Key, old: Option<Value>, new: Option<Value>) -> Value {
    json!({
        "status": status,
        "path": key.path,
        "name": key.name,
        "changes": [],
        "old": old,
        "new": new,
        "psnr": null,
        "max_abs": null,
        "mean_abs": null,
        "differing_texels": null,
        "differing_share": null,
        "bbox": null,
        "compared": null,
        "notice": null,
        "error": null,
    })
}

/// Opens folder `rel` on both sides, pairs and classifies what it holds.
fn folder(old: &Side, new: &Side, rel: &str, options: &OpenOptions, bar: &Progress) -> FolderOut {
    let a = old.open(rel, options, bar);
    let b = new.open(rel, options, bar);
    let mut ka = a
        .as_ref()
        .map_or(Vec::new(), |c| build::keys(&c.textures, &old.root));
    let kb = b
        .as_ref()
        .map_or(Vec::new(), |c| build::keys(&c.textures, &new.root));
    // Two files named on the command line (`diff a.dds b.dds`): one texture each pairs whatever
    // the names.
    if old.is_file && new.is_file && ka.len() == 1 && kb.len() == 1 {
        ka[0] = kb[0].clone();
    }
    let index = |keys: Vec<Key>| keys.into_iter().enumerate().map(|(i, k)| (k, i)).collect();
    let mut out = FolderOut::default();
    for (key, i, j) in build::pair(index(ka), index(kb)) {
        let single = |cat: &Option<Catalog>, t: usize| Single {
            key: key.clone(),
            census: cat.as_ref().map_or(Value::Null, |c| c.textures[t].census()),
            folder: rel.to_string(),
            texture: t,
        };
        match (i, j) {
            (Some(i), Some(j)) => {
                let (Some(a), Some(b)) = (&a, &b) else {
                    unreachable!("a pair has both catalogs")
                };
                out.add_pair(&key, (a, i), (b, j));
            }
            (Some(i), None) => out.old.push(single(&a, i)),
            (None, Some(j)) => out.new.push(single(&b, j)),
            (None, None) => {}
        }
    }
    out
}

/// Keys of textures left over by the folders, numbered anew across the build (two folders may
/// each hold the first texture of one container path), in folder order.
fn renumber(mut v: Vec<Single>) -> Vec<(Key, Single)> {
    v.sort_by(|x, y| {
        (&x.key.path, &x.key.name, &x.folder, x.key.nth).cmp(&(
            &y.key.path,
            &y.key.name,
            &y.folder,
            y.key.nth,
        ))
    });
    let mut out: Vec<(Key, Single)> = Vec::with_capacity(v.len());
    for s in v {
        let nth = match out.last() {
            Some((k, _)) if k.path == s.key.path && k.name == s.key.name => k.nth + 1,
            _ => 0,
        };
        let key = Key {
            nth,
            ..s.key.clone()
        };
        out.push((key, s));
    }
    out
}

/// Pairs found across folders (key, OLD texture, NEW texture) by (OLD folder, NEW folder).
type Moved = BTreeMap<(String, String), Vec<(Key, usize, usize)>>;

/// Runs the diff and writes its lines to `out`.
pub fn run(
    old: &Path,
    new: &Path,
    options: &OpenOptions,
    jobs: usize,
    show_progress: bool,
    out: &mut impl Write,
) -> std::io::Result<()> {
    // Both builds are listed before the bar, which counts the files of both.
    let listing = Listing::new(show_progress);
    let (old, new) = (Side::new(old, &listing), Side::new(new, &listing));
    listing.finish();
    let mut rels: Vec<&String> = old.folders.keys().chain(new.folders.keys()).collect();
    rels.sort();
    rels.dedup();
    let files = rels.iter().map(|r| old.files(r) + new.files(r)).sum();
    let bar = Progress::new(show_progress, files, "textures");
    let mut all = FolderOut::default();
    jobs::ordered(
        rels.len(),
        jobs,
        |i| folder(&old, &new, rels[i], options, &bar),
        |f| {
            all.merge(f);
            true
        },
    );
    // Across folders: a texture whose container moved pairs by its path; the rest were added or
    // removed.
    let (mut added, mut removed) = (0u64, 0u64);
    let mut moved = Moved::new();
    let (lone_old, lone_new) = (std::mem::take(&mut all.old), std::mem::take(&mut all.new));
    for (key, o, n) in build::pair(renumber(lone_old), renumber(lone_new)) {
        match (o, n) {
            (Some(o), Some(n)) => moved
                .entry((o.folder, n.folder))
                .or_default()
                .push((key, o.texture, n.texture)),
            (Some(o), None) => {
                removed += 1;
                let rec = record("removed", &key, Some(o.census), None);
                all.records.push((key, rec.to_string()));
            }
            (None, Some(n)) => {
                added += 1;
                let rec = record("added", &key, None, Some(n.census));
                all.records.push((key, rec.to_string()));
            }
            (None, None) => {}
        }
    }
    let moved: Vec<_> = moved.into_iter().collect();
    // The second pass opens these folders again: the bar's total grows by their files.
    bar.grow(
        moved
            .iter()
            .map(|((fo, fn_), _)| old.files(fo) + new.files(fn_))
            .sum(),
    );
    jobs::ordered(
        moved.len(),
        jobs,
        |i| {
            let ((fo, fn_), pairs) = &moved[i];
            let mut f = FolderOut::default();
            let (Some(a), Some(b)) = (old.open(fo, options, &bar), new.open(fn_, options, &bar))
            else {
                return f;
            };
            for (key, i, j) in pairs {
                f.add_pair(key, (&a, *i), (&b, *j));
            }
            f
        },
        |f| {
            all.merge(f);
            true
        },
    );
    bar.finish();
    stats::count_decodes(all.decodes);
    all.records.sort_by(|x, y| x.0.cmp(&y.0));
    for (_, line) in all.records {
        writeln!(out, "{line}")?;
    }
    writeln!(
        out,
        "{}",
        json!({ "summary": {
            "unchanged": all.unchanged,
            "changed": all.changed,
            "added": added,
            "removed": removed,
        }})
    )
}
