//! `texscope` — the native command line over the same core the web page uses.
//!
//! The contract (census JSON fields, export file names, exit codes) is fixed by issue 2; later
//! issues and outside checks rely on it. Arguments are parsed by hand: three commands and six
//! options do not justify a parser crate in the binary.
// The one unsafe call is the allocator setting in texscope/alloc.rs (a glibc mallopt).
#![deny(unsafe_code)]

// In a folder of its own so cargo does not take it for a second binary.
#[path = "texscope/alloc.rs"]
mod alloc;
#[path = "texscope/bench.rs"]
mod bench;
#[path = "texscope/diff.rs"]
mod diff;
#[path = "texscope/export.rs"]
mod export;
#[path = "texscope/jobs.rs"]
mod jobs;
#[path = "texscope/progress.rs"]
mod progress;
#[path = "texscope/stats.rs"]
mod stats;
#[path = "texscope/write.rs"]
mod write;

use std::collections::{BTreeMap, HashMap};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;

use export::{OutFormat, Pick, Settings};
use texscope::frostbite::render_format;
use texscope::{io::Error, open, Catalog, OpenOptions, Result, Source, SourceRef};

const USAGE: &str = "usage:
  texscope census PATH...      one JSON object per line per texture (or per file with no texture)
  texscope info PATH...        the same facts for a person
  texscope export PATH... --out DIR [--format png|exr|dds|ktx2|raw|rgba]
                               [--mip N | --all-mips] [--slice N | --all-slices] [--cube-cross]
                               [--thumbnails]
  texscope diff OLD NEW        what changed between two builds (folders or files): one JSON
                               object per texture added, removed or changed, then a summary;
                               unchanged textures are told by their stored bytes, undecoded
  texscope --list-profiles     the Frostbite format profiles, one per line: name, then games
Export writes DIR/<where>/<texture>[__mip<N>][__s<S>].<ext>. <where> is the path of the texture's
file relative to the PATH it was found under (a file given as PATH: its name), the file's name
becoming a folder, then the asset's path inside its container (a Unity bundle's m_Container path;
an Unreal package's path in its .pak); a file holding one texture named after it
(T_Rock.uasset, x.dds) gives its image beside it (T_Rock.png). Several PATHs merge. __mip<N>
unless the image is mip 0 exported alone (default: mip 0); __s<S> when the texture has several
images a mip (cube faces, array layers, volume depth slices; default: slice 0). Names are made
valid on every file system and compared ignoring case; a name taken already in the export becomes
<texture>~2 (~3, ...) with a warning, in census order, so the files are the same for any --jobs.
  png    8-bit (16-bit for 16-bit formats), RGB when every alpha is full; floats are clamped
  exr    32-bit float RGBA          dds, ktx2   the stored blocks, every mip and slice, one file
  raw    one surface's stored bytes rgba        decoded 8-bit RGBA, no header
  --cube-cross   a cube's six faces as one image 4 faces wide, 3 high: +Y above, -X +Z +X -Z
                 across, -Y below (per mip; __cube<K> per cube of a cube array)
  --thumbnails   also each asset's editor thumbnail (an uncooked Unreal package's, textures or
                 not) as <asset>.thumbnail.png where that asset's texture would go (the editor
                 stores them blue-first, so each is decoded and written again in RGB order)
Each command also takes --frostbite-profile NAME: the table Frostbite format ordinals are read
with (default 2014.4; see --list-profiles).
Any command takes --ue-version V (4.0-4.27, 5.0-5.8, 6.0) to force the Unreal package layout.
Any command takes --jobs N: threads (default: one per core); the output is the same for any N.
census, info, export and diff draw a progress bar on stderr when it is a terminal (files done of
total, textures, bytes read and their rate, time left, the Unreal containers' indexes and
packages and the loose files as they are read), after a count of the files found while the
folders are listed; --quiet (-q) leaves both out. Piped or redirected stderr never gets either.
  any command: --unity-version V   the Unity version (e.g. 2021.3.15f1) to read files with that do
                                   not say theirs, when no bundle or other file of the folder does
  any command: --platform P        switch, ps4, ps5 or pc: the console the files were cooked for,
                                   where they do not say (an Unreal cook outside Saved/Cooked/<P>/
                                   and not in a -<P>.pak); picks how surfaces are untiled
  any command: --aes-key KEY       an AES-256 key for encrypted Unreal containers (.pak, .utoc):
                                   0x + 64 hex digits, or base64, or a JSON file of keys by
                                   container GUID ({\"GUID\": \"0x…\"} or FModel's mainKey /
                                   dynamicKeys); repeatable. Keys are never printed.
  any command: --only NAME         open only the packages of .pak / IoStore containers that NAME
                                   names (a path inside the container as census `path` gives it,
                                   with or without its extension, or a package's name, e.g.
                                   T_Rock): the indexes are read, the other packages are not.
                                   When it names none, every package is opened (and it says so)
PATH is a file or a folder (walked recursively); the files of one folder are opened together so
siblings (.uasset/.uexp/.ubulk, .assets/.resS, ...) pair up.";

/// The usage text with the profile names, which live in the core's table.
fn usage() -> String {
    format!(
        "{USAGE}\nFrostbite profiles: {}",
        render_format::profile_names()
    )
}

/// A file opened for each read, so a folder of thousands of files never holds thousands of
/// handles (the CLI reads a few header ranges per file, so the extra opens cost little).
struct PathSource {
    path: PathBuf,
    name: String,
    len: u64,
}

impl Source for PathSource {
    fn name(&self) -> &str {
        &self.name
    }
    fn len(&self) -> u64 {
        self.len
    }
    fn read_exact_at(&self, offset: u64, buf: &mut [u8]) -> Result<()> {
        use std::io::{Read, Seek, SeekFrom};
        let mut f =
            std::fs::File::open(&self.path).map_err(|e| Error::io(format!("cannot open: {e}")))?;
        f.seek(SeekFrom::Start(offset))
            .and_then(|_| f.read_exact(buf))
            .map_err(|e| {
                Error::io(format!(
                    "read of {} bytes at {offset} failed: {e}",
                    buf.len()
                ))
            })?;
        stats::count_read(buf.len());
        Ok(())
    }
}

enum Command {
    Census,
    Info,
    Export(Settings),
    Diff,
}

/// What the command line asks for: the command, its paths and how to open them.
struct Request {
    command: Command,
    paths: Vec<PathBuf>,
    options: OpenOptions,
    /// Folder groups opened at once (`--jobs N`; one per core by default).
    jobs: usize,
    /// `--quiet`: no progress bar even on a terminal.
    quiet: bool,
}

fn parse_args(args: &[String]) -> std::result::Result<Request, String> {
    let (cmd, rest) = args.split_first().ok_or("no command given")?;
    let mut paths = Vec::new();
    let mut profile: Option<String> = None;
    let mut unity_version: Option<String> = None;
    let mut platform = None;
    let mut keys = texscope::io::aes::Keys::default();
    let mut only: Option<String> = None;
    let mut out = None;
    let mut mip = None;
    let mut slice = None;
    let mut format = None;
    let mut cross = false;
    let mut thumbnails = false;
    let mut jobs = None;
    let mut quiet = false;
    let mut it = rest.iter();
    let number = |flag: &str, v: Option<&String>| -> std::result::Result<u32, String> {
        let v = v.ok_or(format!("{flag} needs a number"))?;
        v.parse()
            .map_err(|_| format!("{flag} needs a number, not '{v}'"))
    };
    let set = |slot: &mut Option<Pick>, v: Pick, what: &str| {
        if slot.replace(v).is_some() {
            Err(format!("{what} given twice"))
        } else {
            Ok(())
        }
    };
    while let Some(a) = it.next() {
        match a.as_str() {
            "--out" => out = Some(PathBuf::from(it.next().ok_or("--out needs a folder")?)),
            "--mip" => set(&mut mip, Pick::One(number("--mip", it.next())?), "the mip")?,
            "--all-mips" => set(&mut mip, Pick::All, "the mip")?,
            "--slice" => set(
                &mut slice,
                Pick::One(number("--slice", it.next())?),
                "the slice",
            )?,
            "--all-slices" => set(&mut slice, Pick::All, "the slice")?,
            "--cube-cross" => cross = true,
            "--thumbnails" => thumbnails = true,
            "--quiet" | "-q" => quiet = true,
            "--jobs" => match number("--jobs", it.next())? {
                0 => return Err("--jobs needs at least 1".into()),
                n => jobs = Some(n as usize),
            },
            "--frostbite-profile" => {
                let name = it.next().ok_or_else(|| {
                    format!(
                        "--frostbite-profile needs a name: {}",
                        render_format::profile_names()
                    )
                })?;
                let p = render_format::profile(name).ok_or_else(|| {
                    format!(
                        "there is no Frostbite profile '{name}'; the profiles are: {} (texscope --list-profiles says which games use each)",
                        render_format::profile_names()
                    )
                })?;
                if profile.replace(p.name.to_string()).is_some() {
                    return Err("--frostbite-profile given twice".into());
                }
            }
            "--format" => {
                format = Some(match it.next().map(String::as_str) {
                    Some("png") => OutFormat::Png,
                    Some("exr") => OutFormat::Exr,
                    Some("dds") => OutFormat::Dds,
                    Some("ktx2") => OutFormat::Ktx2,
                    Some("raw") => OutFormat::Raw,
                    Some("rgba") => OutFormat::Rgba,
                    other => {
                        return Err(format!(
                            "--format is png, exr, dds, ktx2, raw or rgba, not {other:?}"
                        ))
                    }
                })
            }
            "--unity-version" => {
                let v = it
                    .next()
                    .ok_or("--unity-version needs a version, e.g. 2021.3.15f1")?;
                if texscope::unity::layout::parse_version(v).is_none() {
                    return Err(format!(
                        "--unity-version needs a version like 2021.3.15f1, not '{v}'"
                    ));
                }
                unity_version = Some(v.clone());
            }
            "--platform" => {
                let v = it.next().ok_or("--platform needs switch, ps4, ps5 or pc")?;
                platform =
                    Some(texscope::Platform::from_name(v).ok_or_else(|| {
                        format!("--platform is switch, ps4, ps5 or pc, not '{v}'")
                    })?);
            }
            "--only" => {
                let v = it
                    .next()
                    .filter(|v| !v.trim().is_empty())
                    .ok_or("--only needs a package path or texture name, e.g. Game/T_Rock.uasset or T_Rock")?;
                if only.replace(v.clone()).is_some() {
                    return Err("--only given twice".into());
                }
            }
            "--aes-key" => {
                let k = it
                    .next()
                    .ok_or("--aes-key needs a key (0x + 64 hex digits, base64) or a JSON file")?;
                add_keys(&mut keys, k)?;
            }
            "--" => paths.extend(it.by_ref().map(PathBuf::from)),
            s if s.starts_with("--") => return Err(format!("unknown option {s}")),
            s => paths.push(PathBuf::from(s)),
        }
    }
    if paths.is_empty() {
        return Err("no PATH given".into());
    }
    let command = match cmd.as_str() {
        _ if thumbnails && cmd != "export" => {
            return Err("--thumbnails is an option of export".into())
        }
        "census" | "info" => {
            if out.is_some() || mip.is_some() || slice.is_some() || format.is_some() || cross {
                return Err(format!(
                    "{cmd} takes only paths, --jobs and the version/profile options"
                ));
            }
            if cmd == "census" {
                Command::Census
            } else {
                Command::Info
            }
        }
        "diff" => {
            if out.is_some() || mip.is_some() || slice.is_some() || format.is_some() || cross {
                return Err("diff takes OLD, NEW, --jobs and the version/profile options".into());
            }
            if paths.len() != 2 {
                return Err(format!(
                    "diff takes two paths, OLD and NEW, not {}",
                    paths.len()
                ));
            }
            Command::Diff
        }
        "export" => {
            let format = format.unwrap_or(OutFormat::Png);
            if format.whole() && (mip.is_some() || slice.is_some() || cross) {
                return Err(format!(
                    "--format {} writes every mip and slice in one file; --mip, --slice and --cube-cross do not apply",
                    format.ext()
                ));
            }
            Command::Export(Settings {
                out: out.ok_or("export needs --out DIR")?,
                mip: mip.unwrap_or(Pick::One(0)),
                slice: slice.unwrap_or(Pick::One(0)),
                format,
                cross,
                thumbnails,
                limits: Default::default(),
            })
        }
        other => return Err(format!("unknown command '{other}'")),
    };
    let jobs = jobs.unwrap_or_else(jobs::default_jobs);
    let options = OpenOptions {
        frostbite_profile: profile,
        unreal_version: UE_VERSION.get().cloned().flatten(),
        unity_version,
        platform,
        aes_keys: keys,
        only,
        ..OpenOptions::default()
    };
    Ok(Request {
        command,
        paths,
        options,
        jobs,
        quiet,
    })
}

/// `--aes-key K`: a key, or the path of a JSON file of keys. Messages never repeat a key.
fn add_keys(keys: &mut texscope::io::aes::Keys, k: &str) -> std::result::Result<(), String> {
    use texscope::io::aes::{AesKey, Keys};
    let p = Path::new(k);
    if p.is_file() {
        let text = std::fs::read_to_string(p)
            .map_err(|e| format!("--aes-key {}: cannot read: {e}", p.display()))?;
        let more =
            Keys::parse_json(&text).map_err(|e| format!("--aes-key {}: {e}", p.display()))?;
        keys.0.extend(more.0);
        return Ok(());
    }
    let key = AesKey::parse(k).map_err(|e| format!("--aes-key: {}", e.message))?;
    keys.push(None, key);
    Ok(())
}

/// Files by folder, and (path, message) for paths that could not be read.
type Groups = BTreeMap<PathBuf, Vec<PathBuf>>;
type PathErrors = Vec<(String, String)>;
/// Each file's path relative to the PATH it was found under (the first PATH that reached it),
/// as components; a file given as PATH has just its name.
type RelPaths = HashMap<PathBuf, Vec<String>>;

fn components(p: &Path) -> Vec<String> {
    p.components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect()
}

/// Files to open, grouped by folder (sorted), each group sorted by path. A path that cannot be
/// read becomes an error line of its own. `listing` counts the files as they are found.
fn collect(paths: &[PathBuf], listing: &progress::Listing) -> (Groups, PathErrors, RelPaths) {
    let mut groups = Groups::new();
    let mut errors = PathErrors::new();
    let mut rel = RelPaths::new();
    fn walk(dir: &Path, groups: &mut Groups, errors: &mut PathErrors, listing: &progress::Listing) {
        let entries = match std::fs::read_dir(dir) {
            Ok(e) => e,
            Err(e) => {
                let name = dir.display().to_string();
                errors.push((name.clone(), format!("{name}: cannot list the folder: {e}")));
                return;
            }
        };
        for entry in entries.flatten() {
            let p = entry.path();
            // Follows symlinks to files; links to folders are not followed (no cycles).
            match entry.file_type() {
                Ok(t) if t.is_dir() => walk(&p, groups, errors, listing),
                _ if p.is_file() => {
                    listing.found(1);
                    groups.entry(dir.to_path_buf()).or_default().push(p)
                }
                _ => {}
            }
        }
    }
    for p in paths {
        if p.is_dir() {
            let mut found = Groups::new();
            walk(p, &mut found, &mut errors, listing);
            for (dir, files) in found {
                for f in &files {
                    rel.entry(f.clone())
                        .or_insert_with(|| components(f.strip_prefix(p).unwrap_or(f)));
                }
                groups.entry(dir).or_default().extend(files);
            }
        } else if p.is_file() {
            listing.found(1);
            let parent = p.parent().map(Path::to_path_buf).unwrap_or_default();
            groups.entry(parent).or_default().push(p.clone());
            rel.entry(p.clone())
                .or_insert_with(|| components(Path::new(p.file_name().unwrap_or_default())));
        } else {
            let name = p.display().to_string();
            errors.push((name.clone(), format!("{name}: no such file or folder")));
        }
    }
    // A .usmap serves the Unreal packages of every folder (a game's mappings sit at its root
    // while the packages lie deep below).
    let usmaps: Vec<PathBuf> = groups
        .values()
        .flatten()
        .filter(|p| {
            p.extension()
                .is_some_and(|e| e.eq_ignore_ascii_case("usmap"))
        })
        .cloned()
        .collect();
    for files in groups.values_mut() {
        if files.iter().any(|p| {
            p.extension().is_some_and(|e| {
                ["uasset", "uzenasset", "pak", "utoc"]
                    .iter()
                    .any(|x| e.eq_ignore_ascii_case(x))
            })
        }) {
            files.extend(usmaps.iter().cloned());
        }
        files.sort();
        files.dedup();
    }
    (groups, errors, rel)
}

/// Opens one group; the open's finer steps (a container's packages) show on `bar`.
fn open_group(
    files: &[PathBuf],
    options: &OpenOptions,
    bar: &progress::Progress,
) -> (Catalog, PathErrors) {
    let mut sources: Vec<SourceRef> = Vec::new();
    let mut errors = Vec::new();
    for p in files {
        let name = p.display().to_string();
        match std::fs::metadata(p) {
            Ok(m) => sources.push(Arc::new(PathSource {
                path: p.clone(),
                name,
                len: m.len(),
            })),
            Err(e) => errors.push((name.clone(), format!("{name}: cannot open: {e}"))),
        }
    }
    let cat = texscope::open_with_progress(sources, options, &mut |stage, done, total| {
        bar.step(stage, done, total)
    });
    (cat, errors)
}

/// Census lines of one catalog, sorted by file (stable: catalog order within a file).
/// The editor thumbnail of texture `t` (same package file and object name), if it has one.
fn thumbnail_of<'a>(
    cat: &'a Catalog,
    t: &texscope::Texture,
) -> Option<&'a texscope::model::Thumbnail> {
    cat.thumbnails
        .iter()
        .find(|th| th.file == t.file && th.object == t.name)
}

/// `{"kind": "png"|"jpeg", "width", "height"}` of a thumbnail, for census.
fn thumbnail_json(th: &texscope::model::Thumbnail) -> serde_json::Value {
    serde_json::json!({
        "kind": if th.jpeg { "jpeg" } else { "png" },
        "width": th.width,
        "height": th.height,
    })
}

/// Thumbnails of editor packages' assets that are no texture (a material, a mesh): census and
/// info give each a line of its own, since their files list no texture and no problem.
fn asset_thumbnails(cat: &Catalog) -> Vec<&texscope::model::Thumbnail> {
    cat.thumbnails
        .iter()
        .filter(|th| {
            !cat.textures
                .iter()
                .any(|t| t.file == th.file && t.name == th.object)
        })
        .collect()
}

fn census_lines(cat: &Catalog, errors: &[(String, String)]) -> Vec<(String, serde_json::Value)> {
    let mut lines: Vec<(String, serde_json::Value)> = cat
        .textures
        .iter()
        .map(|t| {
            let mut c = t.census();
            if let (Some(th), Some(o)) = (thumbnail_of(cat, t), c.as_object_mut()) {
                o.insert("thumbnail".into(), thumbnail_json(th));
            }
            (t.file.clone(), c)
        })
        .chain(asset_thumbnails(cat).into_iter().map(|th| {
            (
                th.file.clone(),
                serde_json::json!({
                    "file": th.file,
                    "engine": "unreal",
                    "name": th.object,
                    "class": th.class,
                    "thumbnail": thumbnail_json(th),
                    "error": null,
                }),
            )
        }))
        .chain(cat.problems.iter().map(|p| (p.file.clone(), p.census())))
        .chain(errors.iter().map(|(f, e)| {
            (
                f.clone(),
                serde_json::json!({ "file": f, "engine": null, "error": e }),
            )
        }))
        .collect();
    lines.sort_by(|a, b| a.0.cmp(&b.0));
    lines
}

/// "PNG 256x256" of a thumbnail.
fn thumbnail_text(th: &texscope::model::Thumbnail) -> String {
    let kind = if th.jpeg { "JPEG" } else { "PNG" };
    format!("{kind} {}x{}", th.width, th.height)
}

fn info(cat: &Catalog, out: &mut impl Write) -> std::io::Result<()> {
    let mut order: Vec<usize> = (0..cat.textures.len()).collect();
    order.sort_by(|&a, &b| cat.textures[a].file.cmp(&cat.textures[b].file));
    for i in order {
        let t = &cat.textures[i];
        let c = t.census();
        writeln!(out, "{}", t.file)?;
        if let Some(p) = &t.path {
            writeln!(out, "  in the container at {p}")?;
        }
        writeln!(
            out,
            "  {} — {} {} ({}), {} {}x{}{}, {} mip(s), {} slice(s), native format {}, {}",
            t.name,
            c["engine"].as_str().unwrap_or("?"),
            t.class,
            c["kind"].as_str().unwrap_or("?"),
            t.format.name(),
            t.width,
            t.height,
            if t.depth > 1 {
                format!("x{}", t.depth)
            } else {
                String::new()
            },
            t.mips.len(),
            t.slices,
            c["native_format"],
            match t.srgb() {
                Some(true) => "sRGB",
                Some(false) => "linear",
                None => "colour space not stated",
            }
        )?;
        if let Some((w, h)) = t.authored {
            writeln!(out, "  authored size {w}x{h}")?;
        }
        if let Some(e) = &t.error {
            writeln!(out, "  ERROR: {e}")?;
        }
        for (m, mip) in t.mips.iter().enumerate() {
            writeln!(
                out,
                "  mip {m}: {}x{}{} {} ({})",
                mip.width,
                mip.height,
                if mip.depth > 1 {
                    format!("x{}", mip.depth)
                } else {
                    String::new()
                },
                if mip.is_present() {
                    "present"
                } else {
                    "MISSING"
                },
                mip.location_note
            )?;
        }
        for (k, v) in &t.metadata {
            writeln!(out, "  {k}: {v}")?;
        }
        if let texscope::Layout::Virtual(vt) = &t.layout {
            // A UDIM texture: which block is which UV tile, where (mip-0 pixels), the empty ones.
            let blocks = vt.blocks();
            if blocks.len() > 1 {
                writeln!(
                    out,
                    "  UDIM blocks: {} x {}",
                    vt.width_in_blocks, vt.height_in_blocks
                )?;
                for b in blocks {
                    let (x, y, w, h) = b.pixels;
                    let what = if b.tiles_present == 0 {
                        "empty".to_string()
                    } else {
                        format!("{}/{} tiles", b.tiles_present, b.tiles)
                    };
                    writeln!(out, "    {} at ({x}, {y}) {w}x{h}: {what}", b.udim)?;
                }
            }
        }
        if let Some(th) = thumbnail_of(cat, t) {
            writeln!(out, "  Editor thumbnail: {}", thumbnail_text(th))?;
        }
        for n in &t.notes {
            writeln!(out, "  note: {n}")?;
        }
    }
    for th in asset_thumbnails(cat) {
        writeln!(
            out,
            "{}\n  {} — unreal {}: an editor package holding no texture; editor thumbnail: {}",
            th.file,
            th.object,
            th.class,
            thumbnail_text(th)
        )?;
    }
    let mut problems: Vec<_> = cat.problems.iter().collect();
    problems.sort_by(|a, b| a.file.cmp(&b.file));
    for p in problems {
        match &p.path {
            Some(path) => writeln!(out, "{}\n  {path}: no texture: {}", p.file, p.error)?,
            None => writeln!(out, "{}\n  no texture: {}", p.file, p.error)?,
        }
    }
    Ok(())
}

/// What one group gives: its stdout text and its stderr text.
struct GroupOutput {
    stdout: Vec<u8>,
    stderr: Vec<u8>,
}

/// Renders the command's output for one opened group (run on a worker thread).
fn report(command: &Command, cat: &Catalog, errors: &[(String, String)]) -> GroupOutput {
    let mut g = GroupOutput {
        stdout: Vec::new(),
        stderr: Vec::new(),
    };
    // Writes to a Vec cannot fail.
    match command {
        Command::Census => {
            for (_, line) in census_lines(cat, errors) {
                let _ = writeln!(g.stdout, "{line}");
            }
        }
        Command::Info => {
            let _ = info(cat, &mut g.stdout);
            for (_, e) in errors {
                let _ = writeln!(g.stdout, "{e}");
            }
        }
        Command::Export(_) => {
            for (_, e) in errors {
                let _ = writeln!(g.stderr, "{e}");
            }
        }
        // Pairs two builds' folders itself (diff.rs); never run group by group.
        Command::Diff => {}
    }
    g
}

/// `texscope diff OLD NEW`: exit 0 whatever differs; 2 when OLD or NEW does not exist.
fn run_diff(paths: &[PathBuf], options: &OpenOptions, jobs: usize, quiet: bool) -> ExitCode {
    for p in paths {
        if !p.exists() {
            eprintln!("texscope: {}: no such file or folder", p.display());
            return ExitCode::from(2);
        }
    }
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    let show = progress::wanted(quiet);
    let result =
        diff::run(&paths[0], &paths[1], options, jobs, show, &mut out).and_then(|_| out.flush());
    stats::report();
    exit_code(result)
}

/// The exit status of a command whose output was written with `result`.
fn exit_code(result: std::io::Result<()>) -> ExitCode {
    match result {
        Ok(()) => ExitCode::SUCCESS,
        // A closed pipe (`texscope census . | head`) is not a failure of ours.
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("texscope: cannot write the output: {e}");
            ExitCode::from(1)
        }
    }
}

/// `--ue-version`, taken out of the arguments before the command is parsed (it applies to all).
static UE_VERSION: std::sync::OnceLock<Option<String>> = std::sync::OnceLock::new();

/// Removes `--ue-version V` from `args`; checks V.
fn take_ue_version(args: &mut Vec<String>) -> std::result::Result<Option<String>, String> {
    let Some(i) = args.iter().position(|a| a == "--ue-version") else {
        return Ok(None);
    };
    args.remove(i);
    if i >= args.len() {
        return Err("--ue-version needs a version such as 4.27 or 5.1".into());
    }
    let v = args.remove(i);
    texscope::unreal::package::parse_version(&v).map_err(|e| e.to_string())?;
    Ok(Some(v))
}

fn main() -> ExitCode {
    alloc::keep_freed_images();
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    match take_ue_version(&mut args) {
        Ok(v) => {
            let _ = UE_VERSION.set(v);
        }
        Err(e) => {
            eprintln!("texscope: {e}\n{USAGE}");
            return ExitCode::from(2);
        }
    }
    if matches!(
        args.first().map(String::as_str),
        Some("-h" | "--help" | "help")
    ) {
        println!("{}\n{}", usage(), bench::USAGE);
        return ExitCode::SUCCESS;
    }
    if args.first().map(String::as_str) == Some("--list-profiles") {
        for p in render_format::PROFILES {
            let default = if p.name == render_format::DEFAULT_PROFILE {
                " (default)"
            } else {
                ""
            };
            println!("{}{default}\t{}", p.name, p.games);
        }
        return ExitCode::SUCCESS;
    }
    if let Some(code) = bench::dispatch(&args) {
        return code;
    }
    let Request {
        command,
        paths,
        options,
        jobs,
        quiet,
    } = match parse_args(&args) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("texscope: {e}\n{}\n{}", usage(), bench::USAGE);
            return ExitCode::from(2);
        }
    };
    if let Command::Diff = command {
        // Lists both builds itself (diff.rs).
        return run_diff(&paths, &options, jobs, quiet);
    }
    let listing = progress::Listing::new(progress::wanted(quiet));
    let (groups, path_errors, rel) = collect(&paths, &listing);
    listing.finish();
    let files: u64 = groups.values().map(|g| g.len() as u64).sum();
    if let Command::Export(settings) = &command {
        let settings = Settings {
            limits: options.limits.clone(),
            ..settings.clone()
        };
        for (_, e) in &path_errors {
            eprintln!("{e}");
        }
        let groups: Vec<export::Group> = groups
            .into_values()
            .map(|files| export::Group {
                rel: files
                    .iter()
                    .filter_map(|f| Some((f.display().to_string(), rel.get(f)?.clone())))
                    .collect(),
                files,
            })
            .collect();
        let bar = progress::Progress::new(progress::wanted(quiet), files, "images");
        let done = std::fs::create_dir_all(&settings.out).and_then(|_| {
            export::run(&groups, &settings, jobs, &bar, |files| {
                open_group(files, &options, &bar)
            })
        });
        bar.finish();
        stats::report();
        return match done {
            Ok(o) => {
                let replaced = if o.replaced > 0 {
                    format!(" ({} of them replaced files already there)", o.replaced)
                } else {
                    String::new()
                };
                eprintln!(
                    "texscope: wrote {} file(s) to {}{replaced}",
                    o.written,
                    settings.out.display()
                );
                ExitCode::SUCCESS
            }
            Err(e) => {
                eprintln!("texscope: cannot write to {}: {e}", settings.out.display());
                ExitCode::from(1)
            }
        };
    }
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    let empty = open(Vec::new(), &OpenOptions::default());
    let first = report(&command, &empty, &path_errors);
    let groups: Vec<(&PathBuf, &Vec<PathBuf>)> = groups.iter().collect();
    let show = progress::wanted(quiet);
    let bar = progress::Progress::new(show, files, "textures");
    let mut result = Ok(());
    let narrowed = std::sync::atomic::AtomicBool::new(false);
    let mut sink = |g: GroupOutput| {
        bar.eprint(&g.stderr);
        // With a bar, stdout may be the same terminal: the lines go out while it is off screen.
        result = bar.suspend(|| {
            out.write_all(&g.stdout)
                .and_then(|_| if show { out.flush() } else { Ok(()) })
        });
        result.is_ok()
    };
    if sink(first) {
        jobs::ordered(
            groups.len(),
            jobs,
            |i| {
                let (dir, files) = groups[i];
                let (mut cat, errors) = open_group(files, &options, &bar);
                if cat.narrowed {
                    narrowed.store(true, std::sync::atomic::Ordering::Relaxed);
                }
                bar.add(files.len() as u64, cat.textures.len() as u64);
                // Each folder of packages is opened with every .usmap of the run (`collect`), so
                // what is said of a .usmap (ignored, unreadable) is said once, by its own folder's
                // group, not once per folder (102 lines for the UE 5.8 set's 34 containers).
                cat.problems.retain(|p| {
                    let path = Path::new(&p.file);
                    !path
                        .extension()
                        .is_some_and(|e| e.eq_ignore_ascii_case("usmap"))
                        || path.parent() == Some(dir.as_path())
                });
                report(&command, &cat, &errors)
            },
            sink,
        );
    }
    bar.finish();
    if let Some(only) = &options.only {
        if !narrowed.load(std::sync::atomic::Ordering::Relaxed) {
            eprintln!("texscope: --only {only} names no package of a .pak or IoStore container here; every package was opened");
        }
    }
    let result = result.and_then(|_| out.flush());
    stats::report();
    exit_code(result)
}
