//! `texscope` — the native command line over the same core the web page uses.
//!
//! The contract (census JSON fields, export file names, exit codes) is fixed by issue 2; later
//! issues and outside checks rely on it. Arguments are parsed by hand: three commands and six
//! options do not justify a parser crate in the binary.
#![forbid(unsafe_code)]

// In a folder of its own so cargo does not take it for a second binary.
#[path = "texscope/bench.rs"]
mod bench;
#[path = "texscope/diff.rs"]
mod diff;
#[path = "texscope/jobs.rs"]
mod jobs;
#[path = "texscope/stats.rs"]
mod stats;

use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;

use texscope::frostbite::render_format;
use texscope::{
    base_name, io::Error, open, Catalog, DecodeOptions, Image, OpenOptions, Pixels, Result, Source,
    SourceRef,
};

const USAGE: &str = "usage:
  texscope census PATH...      one JSON object per line per texture (or per file with no texture)
  texscope info PATH...        the same facts for a person
  texscope export PATH... --out DIR [--mip N | --all-mips] [--slice N | --all-slices]
                               [--format png|exr|raw|rgba]
  texscope diff OLD NEW        what changed between two builds (folders or files): one JSON
                               object per texture added, removed or changed, then a summary;
                               unchanged textures are told by their stored bytes, undecoded
  texscope --list-profiles     the Frostbite format profiles, one per line: name, then games
Each command also takes --frostbite-profile NAME: the table Frostbite format ordinals are read
with (default 2014.4; see --list-profiles).
Any command takes --ue-version V (4.18-4.27, 5.0-5.8, 6.0) to force the Unreal package layout.
Any command takes --jobs N: folders opened at once (default: one per core; 1 for export, whose
files of equal names from two folders would otherwise race); output order is the same for any N.
  any command: --unity-version V   the Unity version (e.g. 2021.3.15f1) to read files with that do
                                   not say theirs, when no bundle or other file of the folder does
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

#[derive(Debug, Clone, Copy, PartialEq)]
enum Pick {
    One(u32),
    All,
}

#[derive(Debug, Clone, Copy, PartialEq)]
enum OutFormat {
    Png,
    Exr,
    Raw,
    /// Decoded 8-bit RGBA, rows top first, no header (what benchmarks and scripts compare).
    Rgba,
}

enum Command {
    Census,
    Info,
    Export {
        out: PathBuf,
        mip: Pick,
        slice: Pick,
        format: OutFormat,
    },
    Diff,
}

/// What the command line asks for: the command, its paths and how to open them.
struct Request {
    command: Command,
    paths: Vec<PathBuf>,
    options: OpenOptions,
    /// Folder groups opened at once (`--jobs N`; one per core by default).
    jobs: usize,
}

fn parse_args(args: &[String]) -> std::result::Result<Request, String> {
    let (cmd, rest) = args.split_first().ok_or("no command given")?;
    let mut paths = Vec::new();
    let mut profile: Option<String> = None;
    let mut unity_version: Option<String> = None;
    let mut out = None;
    let mut mip = None;
    let mut slice = None;
    let mut format = None;
    let mut jobs = None;
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
                    Some("raw") => OutFormat::Raw,
                    Some("rgba") => OutFormat::Rgba,
                    other => {
                        return Err(format!("--format is png, exr, raw or rgba, not {other:?}"))
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
            "--" => paths.extend(it.by_ref().map(PathBuf::from)),
            s if s.starts_with("--") => return Err(format!("unknown option {s}")),
            s => paths.push(PathBuf::from(s)),
        }
    }
    if paths.is_empty() {
        return Err("no PATH given".into());
    }
    let command = match cmd.as_str() {
        "census" | "info" => {
            if out.is_some() || mip.is_some() || slice.is_some() || format.is_some() {
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
            if out.is_some() || mip.is_some() || slice.is_some() || format.is_some() {
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
        "export" => Command::Export {
            out: out.ok_or("export needs --out DIR")?,
            mip: mip.unwrap_or(Pick::One(0)),
            slice: slice.unwrap_or(Pick::One(0)),
            format: format.unwrap_or(OutFormat::Png),
        },
        other => return Err(format!("unknown command '{other}'")),
    };
    // Export defaults to one folder at a time: two folders can give the same output name (same
    // file and texture names), and which one is written last must not depend on timing.
    let jobs = jobs.unwrap_or_else(|| match command {
        Command::Export { .. } => 1,
        _ => jobs::default_jobs(),
    });
    let options = OpenOptions {
        frostbite_profile: profile,
        unreal_version: UE_VERSION.get().cloned().flatten(),
        unity_version,
        ..OpenOptions::default()
    };
    Ok(Request {
        command,
        paths,
        options,
        jobs,
    })
}

/// Files by folder, and (path, message) for paths that could not be read.
type Groups = BTreeMap<PathBuf, Vec<PathBuf>>;
type PathErrors = Vec<(String, String)>;

/// Files to open, grouped by folder (sorted), each group sorted by path. A path that cannot be
/// read becomes an error line of its own.
fn collect(paths: &[PathBuf]) -> (Groups, PathErrors) {
    let mut groups = Groups::new();
    let mut errors = PathErrors::new();
    fn walk(dir: &Path, groups: &mut Groups, errors: &mut PathErrors) {
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
                Ok(t) if t.is_dir() => walk(&p, groups, errors),
                _ if p.is_file() => groups.entry(dir.to_path_buf()).or_default().push(p),
                _ => {}
            }
        }
    }
    for p in paths {
        if p.is_dir() {
            walk(p, &mut groups, &mut errors);
        } else if p.is_file() {
            let parent = p.parent().map(Path::to_path_buf).unwrap_or_default();
            groups.entry(parent).or_default().push(p.clone());
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
                e.eq_ignore_ascii_case("uasset") || e.eq_ignore_ascii_case("uzenasset")
            })
        }) {
            files.extend(usmaps.iter().cloned());
        }
        files.sort();
        files.dedup();
    }
    (groups, errors)
}

fn open_group(files: &[PathBuf], options: &OpenOptions) -> (Catalog, PathErrors) {
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
    (open(sources, options), errors)
}

/// Census lines of one catalog, sorted by file (stable: catalog order within a file).
fn census_lines(cat: &Catalog, errors: &[(String, String)]) -> Vec<(String, serde_json::Value)> {
    let mut lines: Vec<(String, serde_json::Value)> = cat
        .textures
        .iter()
        .map(|t| (t.file.clone(), t.census()))
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

fn info(cat: &Catalog, out: &mut impl Write) -> std::io::Result<()> {
    let mut order: Vec<usize> = (0..cat.textures.len()).collect();
    order.sort_by(|&a, &b| cat.textures[a].file.cmp(&cat.textures[b].file));
    for i in order {
        let t = &cat.textures[i];
        let c = t.census();
        writeln!(out, "{}", t.file)?;
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
        for n in &t.notes {
            writeln!(out, "  note: {n}")?;
        }
    }
    let mut problems: Vec<_> = cat.problems.iter().collect();
    problems.sort_by(|a, b| a.file.cmp(&b.file));
    for p in problems {
        writeln!(out, "{}\n  no texture: {}", p.file, p.error)?;
    }
    Ok(())
}

/// Replaces what Windows, macOS or Linux file systems refuse in a file name.
fn safe_name(s: &str) -> String {
    let mut out: String = s
        .chars()
        .map(|c| {
            if c.is_control() || matches!(c, '<' | '>' | ':' | '"' | '/' | '\\' | '|' | '?' | '*') {
                '_'
            } else {
                c
            }
        })
        .collect();
    if out.is_empty() || out.chars().all(|c| c == '.') {
        out = out.replace('.', "_") + "_";
    }
    out
}

fn write_png(path: &Path, img: &Image) -> std::result::Result<(), String> {
    let file = std::fs::File::create(path).map_err(|e| e.to_string())?;
    let mut enc = png::Encoder::new(std::io::BufWriter::new(file), img.width, img.height);
    enc.set_color(png::ColorType::Rgba);
    let data = match &img.pixels {
        Pixels::Rgba16(p) => {
            enc.set_depth(png::BitDepth::Sixteen);
            p.iter().flat_map(|v| v.to_be_bytes()).collect()
        }
        _ => {
            enc.set_depth(png::BitDepth::Eight);
            img.to_rgba8()
        }
    };
    let mut w = enc.write_header().map_err(|e| e.to_string())?;
    w.write_image_data(&data).map_err(|e| e.to_string())?;
    w.finish().map_err(|e| e.to_string())
}

fn write_exr(path: &Path, img: &Image) -> std::result::Result<(), String> {
    let w = img.width as usize;
    let texel = |x: usize, y: usize| -> (f32, f32, f32, f32) {
        let i = (y * w + x) * 4;
        let v: [f32; 4] = match &img.pixels {
            Pixels::Rgba8(p) => std::array::from_fn(|c| p[i + c] as f32 / 255.0),
            Pixels::Rgba16(p) => std::array::from_fn(|c| p[i + c] as f32 / 65535.0),
            Pixels::Rgba32F(p) => std::array::from_fn(|c| p[i + c]),
        };
        (v[0], v[1], v[2], v[3])
    };
    exr::prelude::write_rgba_file(path, w, img.height as usize, texel).map_err(|e| e.to_string())
}

/// Exports the chosen surfaces of every texture of `cat`; returns the number of files written.
fn export(
    cat: &Catalog,
    (out, mip, slice, format): (&Path, Pick, Pick, OutFormat),
    err: &mut Vec<u8>,
) -> usize {
    // Messages go to `err` (written to stderr in group order by the caller); a Vec never fails.
    macro_rules! say {
        ($($a:tt)*) => {{
            let _ = writeln!(err, $($a)*);
        }};
    }
    let mut written = 0;
    let mut order: Vec<usize> = (0..cat.textures.len()).collect();
    order.sort_by(|&a, &b| cat.textures[a].file.cmp(&cat.textures[b].file));
    for i in order {
        let t = &cat.textures[i];
        if let Some(e) = &t.error {
            say!("{}: {}: not exported: {e}", t.file, t.name);
            continue;
        }
        let mips: Vec<usize> = match mip {
            Pick::All => (0..t.mips.len()).collect(),
            Pick::One(m) if (m as usize) < t.mips.len() => vec![m as usize],
            Pick::One(m) => {
                say!(
                    "{}: {}: has {} mip(s); there is no mip {m}",
                    t.file,
                    t.name,
                    t.mips.len()
                );
                continue;
            }
        };
        let mut clamped = false;
        for m in mips {
            let count = t.surface_count(m);
            let slices: Vec<u32> = match slice {
                Pick::All => (0..count).collect(),
                Pick::One(s) if s < count => vec![s],
                Pick::One(s) => {
                    say!(
                        "{}: {}: mip {m} has {count} slice(s); there is no slice {s}",
                        t.file,
                        t.name
                    );
                    continue;
                }
            };
            for s in slices {
                let ext = match format {
                    OutFormat::Png => "png",
                    OutFormat::Exr => "exr",
                    OutFormat::Raw => "raw",
                    OutFormat::Rgba => "rgba",
                };
                let file_name = safe_name(&format!(
                    "{}__{}__mip{m}__s{s}.{ext}",
                    base_name(&t.file),
                    t.name
                ));
                let path = out.join(file_name);
                let result = match format {
                    OutFormat::Raw => cat
                        .read_surface(i, m, s)
                        .map_err(|e| e.to_string())
                        .and_then(|(b, ..)| std::fs::write(&path, b).map_err(|e| e.to_string())),
                    OutFormat::Rgba => cat
                        .decode(i, m, s, DecodeOptions::default())
                        .map_err(|e| e.to_string())
                        .and_then(|img| {
                            let bytes = match &img.pixels {
                                Pixels::Rgba8(p) => std::fs::write(&path, p),
                                _ => std::fs::write(&path, img.to_rgba8()),
                            };
                            bytes.map_err(|e| e.to_string())
                        }),
                    OutFormat::Png | OutFormat::Exr => cat
                        .decode(i, m, s, DecodeOptions::default())
                        .map_err(|e| e.to_string())
                        .and_then(|img| {
                            if format == OutFormat::Exr {
                                write_exr(&path, &img)
                            } else {
                                clamped |= matches!(img.pixels, Pixels::Rgba32F(_));
                                write_png(&path, &img)
                            }
                        }),
                };
                match result {
                    Ok(()) => written += 1,
                    Err(e) => {
                        // Core errors already name the file; say it once.
                        let e = e.strip_prefix(&format!("{}: ", t.file)).unwrap_or(&e);
                        say!("{}: {}: mip {m} slice {s}: {e}", t.file, t.name)
                    }
                }
            }
        }
        if clamped {
            say!(
                "{}: {}: {} holds floats; the PNG clamps them to 0..1 (use --format exr to keep them)",
                t.file,
                t.name,
                t.format.name()
            );
        }
    }
    written
}

/// What one group gives: its stdout text, its stderr text and the files it exported.
struct GroupOutput {
    stdout: Vec<u8>,
    stderr: Vec<u8>,
    written: usize,
}

/// Renders the command's output for one opened group (run on a worker thread).
fn report(command: &Command, cat: &Catalog, errors: &[(String, String)]) -> GroupOutput {
    let mut g = GroupOutput {
        stdout: Vec::new(),
        stderr: Vec::new(),
        written: 0,
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
        Command::Export {
            out,
            mip,
            slice,
            format,
        } => {
            g.written = export(cat, (out, *mip, *slice, *format), &mut g.stderr);
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
fn run_diff(paths: &[PathBuf], options: &OpenOptions, jobs: usize) -> ExitCode {
    for p in paths {
        if !p.exists() {
            eprintln!("texscope: {}: no such file or folder", p.display());
            return ExitCode::from(2);
        }
    }
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    let result = diff::run(&paths[0], &paths[1], options, jobs, &mut out).and_then(|_| out.flush());
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
    } = match parse_args(&args) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("texscope: {e}\n{}\n{}", usage(), bench::USAGE);
            return ExitCode::from(2);
        }
    };
    if let Command::Export { out, .. } = &command {
        if let Err(e) = std::fs::create_dir_all(out) {
            eprintln!("texscope: cannot create {}: {e}", out.display());
            return ExitCode::from(1);
        }
    }
    if let Command::Diff = command {
        return run_diff(&paths, &options, jobs);
    }
    let (groups, path_errors) = collect(&paths);
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    let mut written = 0;
    let empty = open(Vec::new(), &OpenOptions::default());
    let first = report(&command, &empty, &path_errors);
    let groups: Vec<&Vec<PathBuf>> = groups.values().collect();
    let mut result = Ok(());
    let mut sink = |g: GroupOutput| {
        written += g.written;
        let _ = std::io::stderr().write_all(&g.stderr);
        result = out.write_all(&g.stdout);
        result.is_ok()
    };
    if sink(first) {
        jobs::ordered(
            groups.len(),
            jobs,
            |i| {
                let (cat, errors) = open_group(groups[i], &options);
                report(&command, &cat, &errors)
            },
            sink,
        );
    }
    let result = result.and_then(|_| out.flush());
    if let Command::Export { out, .. } = &command {
        eprintln!("texscope: wrote {written} file(s) to {}", out.display());
    }
    stats::report();
    exit_code(result)
}
