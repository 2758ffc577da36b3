//! Texscope core: open cooked game-texture files (Unreal, Unity, Frostbite, loose DDS/KTX) through
//! ranged reads, list their textures, and decode any mip/slice to RGBA8, RGBA16 or RGBA f32.
//!
//! Platform-free: everything outside `web` and the CLI builds for wasm32 and native with no file
//! system, threads or clocks.
#![forbid(unsafe_code)]

pub mod codec;
pub mod compare;
pub mod export;
#[cfg(feature = "demos")]
pub mod fixtures;
pub mod formats;
pub mod frostbite;
pub mod io;
pub mod model;
pub mod unity;
pub mod unreal;
#[cfg(target_arch = "wasm32")]
pub mod web;

pub use codec::{decode_surface, Image, PixelFormat, Pixels, Precision};
pub use io::{Error, ErrorKind, Limits, Result, Source, SourceRef};
pub use model::{Engine, Layout, Mip, Platform, RowOrder, Storage, Texture, TextureKind};

use codec::tiling::Tiling;
use io::read_range;

/// Settings for [`open`].
#[derive(Debug, Clone, Default)]
pub struct OpenOptions {
    pub limits: Limits,
    /// Frostbite format-ordinal table by profile name (`frostbite::render_format::PROFILES`);
    /// `None` = the 2014.4+ enum of Skate and later games.
    pub frostbite_profile: Option<String>,
    /// Unreal engine version ("4.27", "5.1", ...) that forces the package layout where detection
    /// is ambiguous (cooked files carry no version); `None` = detect.
    pub unreal_version: Option<String>,
    /// The Unity version to assume for serialized files that do not say theirs, when neither
    /// their bundle nor another opened file does (issue 4: "let the user pick when none says").
    pub unity_version: Option<String>,
    /// The platform the user says the files were cooked for (CLI `--platform`, the page's menu),
    /// where the files do not say: it picks how console surfaces are untiled
    /// ([`codec::tiling`]). `None` = what the files say, else linear.
    pub platform: Option<model::Platform>,
    /// AES keys for encrypted Unreal containers (.pak, .utoc): kept in memory only, never printed.
    #[cfg(feature = "containers")]
    pub aes_keys: io::aes::Keys,
    /// Opens only the packages of .pak / IoStore containers that this names (a share link to one
    /// texture inside a large remote container, the CLI's `--only`): a package path inside the
    /// container as `Texture::path` gives it, that path without its extension, or a package's
    /// file name without extension, which is its texture's name in cooked games
    /// (`unreal::container::names_package`). The containers' indexes are read as always; the
    /// other packages' headers are not. When no package of any container matches, every package
    /// is opened as without it ([`Catalog::narrowed`] says which happened). Loose files and other
    /// engines' files are opened as always.
    #[cfg(feature = "containers")]
    pub only: Option<String>,
}

/// A file that yielded no texture, or failed to open, with the reason.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct FileProblem {
    pub file: String,
    /// The path inside the container `file`, for a package found in one (issue 17).
    pub path: Option<String>,
    pub engine: Option<Engine>,
    pub error: String,
    /// The error's kind (not in the census record): `NotInBuild` tells the page to retry with its
    /// full wasm module.
    #[serde(skip)]
    pub kind: ErrorKind,
}

impl FileProblem {
    pub fn new(file: &str, engine: Option<Engine>, error: &Error) -> Self {
        FileProblem {
            file: file.to_string(),
            path: None,
            engine,
            error: error.to_string(),
            kind: error.kind,
        }
    }

    /// The problem of a package at `path` inside the container `file`.
    pub fn at_path(mut self, path: &str) -> Self {
        self.path = Some(path.to_string());
        self
    }

    /// The census record of a file that holds no texture.
    pub fn census(&self) -> serde_json::Value {
        serde_json::json!({
            "file": self.file,
            "path": self.path,
            "engine": self.engine,
            "error": self.error
        })
    }
}

/// Everything found in a set of opened files: metadata only, plus where every byte lives.
pub struct Catalog {
    sources: Vec<SourceRef>,
    /// How many of `sources` are user files (the rest are derived views, e.g. bundle entries).
    user_sources: usize,
    pub textures: Vec<Texture>,
    pub problems: Vec<FileProblem>,
    /// Editor thumbnails of every asset the packages hold (textures or not), in file order.
    pub thumbnails: Vec<model::Thumbnail>,
    options: OpenOptions,
    memo: Memo,
    /// Whether [`OpenOptions::only`] matched packages of a container and its other packages were
    /// left unopened (false: no `only`, or it matched none and every package was opened).
    pub narrowed: bool,
}

/// Containers read and streams decompressed while a catalog was built, by the source they came
/// from, so that [`Catalog::add`] (a later drop) reuses them instead of decompressing the earlier
/// files again (issue 4: a .resS dropped later completes textures "without reloading the rest").
#[derive(Clone, Default)]
pub struct Memo(Vec<(SourceRef, &'static str, std::rc::Rc<dyn std::any::Any>)>);

/// What engine openers share while a catalog is built.
pub struct OpenContext<'p> {
    pub sources: Vec<SourceRef>,
    /// Which user files an engine has taken (a file is read by at most one engine).
    pub claimed: Vec<bool>,
    pub textures: Vec<Texture>,
    pub problems: Vec<FileProblem>,
    /// Editor thumbnails found so far ([`Catalog::thumbnails`]).
    pub thumbnails: Vec<model::Thumbnail>,
    pub limits: Limits,
    pub frostbite_profile: Option<String>,
    pub unreal_version: Option<String>,
    /// [`OpenOptions::unity_version`].
    pub unity_version: Option<String>,
    /// [`OpenOptions::platform`]: the user's choice where the files do not say.
    pub platform: Option<model::Platform>,
    /// [`OpenOptions::aes_keys`].
    #[cfg(feature = "containers")]
    pub aes_keys: io::aes::Keys,
    /// [`OpenOptions::only`].
    #[cfg(feature = "containers")]
    pub only: Option<String>,
    /// Whether `only` left packages of a container unopened ([`Catalog::narrowed`]).
    pub narrowed: bool,
    /// The first bytes of each user file, read once and shared by every engine's probe.
    heads: Vec<Option<Vec<u8>>>,
    /// How many of `heads` have been read: the first stage of [`OpenProgress`].
    probed: usize,
    progress: OpenProgress<'p>,
    memo: Memo,
}

/// How much of a file's start one probe read fetches: every engine's magic and the largest fixed
/// header probed (DDS with DX10, 148 bytes) fit, so opening costs one small read per file.
pub const HEAD_LEN: u64 = 256;

impl OpenContext<'_> {
    /// What `make` gives for (`key`, `tag`), made once per session: an earlier catalog's value
    /// when [`Catalog::add`] built this one, else made now and kept. Errors are not kept.
    pub fn memo<T: Clone + 'static>(
        &mut self,
        key: &SourceRef,
        tag: &'static str,
        make: impl FnOnce(&mut Self) -> Result<T>,
    ) -> Result<T> {
        let hit = self.memo.0.iter().find_map(|(k, t, v)| {
            (std::sync::Arc::ptr_eq(k, key) && *t == tag)
                .then(|| v.downcast_ref::<T>().cloned())
                .flatten()
        });
        if let Some(v) = hit {
            return Ok(v);
        }
        let v = make(self)?;
        self.memo
            .0
            .push((key.clone(), tag, std::rc::Rc::new(v.clone())));
        Ok(v)
    }

    /// Registers a derived source (a decompressed view, a file inside a bundle).
    pub fn add_source(&mut self, src: SourceRef) -> model::SourceId {
        self.sources.push(src);
        self.sources.len() - 1
    }

    /// User files not yet claimed by an engine, by index.
    pub fn unclaimed(&self) -> Vec<usize> {
        (0..self.claimed.len())
            .filter(|&i| !self.claimed[i])
            .collect()
    }

    /// The first `n` bytes (or fewer, when the file is shorter) of source `i`. For a user file the
    /// first call reads at least [`HEAD_LEN`] bytes and keeps them, so probes by several engines
    /// share one read; a derived source (a bundle entry) is read directly.
    pub fn head(&mut self, i: usize, n: u64) -> Result<Vec<u8>> {
        if i >= self.heads.len() {
            return io::read_up_to(self.sources[i].as_ref(), 0, n, &self.limits);
        }
        let len = self.sources[i].len();
        let cached = self.heads[i].as_ref().map_or(0, |h| h.len() as u64);
        if cached < n.min(len) {
            let h = io::read_up_to(self.sources[i].as_ref(), 0, n.max(HEAD_LEN), &self.limits)?;
            if self.heads[i].replace(h).is_none() {
                self.probed += 1;
                (self.progress)(OpenStage::Probed, self.probed, self.heads.len());
            }
        }
        let h = self.heads[i].as_deref().unwrap_or_default();
        Ok(h[..h.len().min(usize::try_from(n).unwrap_or(usize::MAX))].to_vec())
    }

    /// Tells [`OpenProgress`] a step inside an engine's pass (a container's packages, say).
    pub fn step(&mut self, stage: OpenStage, done: usize, total: usize) {
        (self.progress)(stage, done, total);
    }

    /// Finds a user file by base name, case-insensitively (siblings are paired by name).
    pub fn find_by_name(&self, name: &str) -> Option<usize> {
        (0..self.claimed.len())
            .find(|&i| base_name(self.sources[i].name()).eq_ignore_ascii_case(name))
    }
}

/// The last path component of a file name (`a/b/c.dds` -> `c.dds`; both separators).
pub fn base_name(path: &str) -> &str {
    path.rsplit(['/', '\\']).next().unwrap_or(path)
}

/// The file name without its folder and last extension.
pub fn file_stem(path: &str) -> &str {
    let b = base_name(path);
    match b.rfind('.') {
        Some(i) if i > 0 => &b[..i],
        _ => b,
    }
}

type EngineOpener = fn(&mut OpenContext);

/// Engines in the order they are offered files; each claims what it recognises.
// Frostbite goes last: it may pair a chunk by size among the files no other engine took.
const OPENERS: &[EngineOpener] = &[
    formats::dds::open,
    formats::ktx::open,
    formats::crn::open,
    formats::basis::open,
    formats::gnf::open,
    unity::open,
    unreal::open,
    frostbite::open,
];

/// Opens a set of files (one drop, or several drops together) and lists their textures.
/// Never fails as a whole: a bad file becomes a [`FileProblem`], the others stay usable.
pub fn open(sources: Vec<SourceRef>, options: &OpenOptions) -> Catalog {
    open_with(sources, options, Memo::default(), &mut |_, _, _| {})
}

/// [`open`], telling `progress` how far it is ([`OpenProgress`]).
pub fn open_with_progress(
    sources: Vec<SourceRef>,
    options: &OpenOptions,
    progress: OpenProgress,
) -> Catalog {
    open_with(sources, options, Memo::default(), progress)
}

/// Told as a catalog is built: (stage, done, total). The first engines' probes read each file's
/// first bytes once ([`OpenStage::Probed`], one call a file: thousands of small files spend most
/// of their open there), then each engine's pass reads and parses what it claims
/// ([`OpenStage::Engines`], one call a pass). Inside the Unreal pass, containers tell finer steps
/// (their indexes, then their packages: [`OpenStage::Containers`] and after), then the loose
/// files ([`OpenStage::LooseFiles`]), so a drop of a game's .pak / IoStore files or of a cooked
/// folder does not sit on one pass for its whole open. The page's drop and the CLI's bar show
/// them as done of total.
pub type OpenProgress<'a> = &'a mut dyn FnMut(OpenStage, usize, usize);

/// The stages of [`OpenProgress`], in the order an open goes through them. The numbers are what
/// the page's worker posts (`stage as u8`: a cast, not a match, costs the core module nothing).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub enum OpenStage {
    /// Files whose first bytes were read, of the files opened.
    Probed = 0,
    /// Engine passes done, of the engines.
    Engines = 1,
    /// Inside the Unreal pass: containers (.pak, .utoc) whose index was read, of the drop's
    /// containers. Told once the pass has found the containers, so it comes before the pass's own
    /// [`OpenStage::Engines`] step.
    Containers = 2,
    /// Inside the Unreal pass: packages of the containers looked at (each one's first block read
    /// to tell a texture package from the others), of all their packages.
    Packages = 3,
    /// Inside the Unreal pass: texture packages of the containers read, of those found.
    TexturePackages = 4,
    /// Inside the Unreal pass: the files left after the containers (loose packages and their
    /// siblings, and whatever no engine took so far) gone through, each package read as it comes.
    LooseFiles = 5,
}

/// The Info line of a console texture's surface layout ("layout: Switch block-linear, block
/// height 16"), after the engine's `platform` line where it has one.
fn describe_layout(t: &mut Texture) {
    // A reader that knows the layout's own words (a GNF descriptor's "PS4 GCN 1D thin, pitch
    // 344") has written its line already.
    if t.platform.is_none() && t.tiling.is_linear() || t.metadata.iter().any(|(k, _)| k == "layout")
    {
        return;
    }
    let line = match (t.tiling, t.platform) {
        (Tiling::Linear, Some(p)) => format!("linear ({} build)", p.name()),
        (tiling, _) => tiling.describe(),
    };
    let at = t
        .metadata
        .iter()
        .position(|(k, _)| k == "platform")
        .map_or(t.metadata.len(), |i| i + 1);
    t.metadata.insert(at, ("layout".into(), line));
}

fn open_with(
    sources: Vec<SourceRef>,
    options: &OpenOptions,
    memo: Memo,
    progress: OpenProgress,
) -> Catalog {
    let n = sources.len();
    let mut ctx = OpenContext {
        sources,
        claimed: vec![false; n],
        textures: Vec::new(),
        problems: Vec::new(),
        thumbnails: Vec::new(),
        limits: options.limits.clone(),
        frostbite_profile: options.frostbite_profile.clone(),
        unreal_version: options.unreal_version.clone(),
        unity_version: options.unity_version.clone(),
        platform: options.platform,
        #[cfg(feature = "containers")]
        aes_keys: options.aes_keys.clone(),
        #[cfg(feature = "containers")]
        only: options.only.clone(),
        narrowed: false,
        heads: vec![None; n],
        probed: 0,
        progress,
        memo,
    };
    for (k, opener) in OPENERS.iter().enumerate() {
        opener(&mut ctx);
        (ctx.progress)(OpenStage::Engines, k + 1, OPENERS.len());
    }
    // The first wasm module leaves console layouts to the full one (feature `tiling-switch`).
    if cfg!(feature = "tiling-switch") {
        for t in &mut ctx.textures {
            describe_layout(t);
        }
    }
    for i in ctx.unclaimed() {
        let name = ctx.sources[i].name().to_string();
        let head = ctx.head(i, 64).unwrap_or_default();
        let what = formats::sniff::describe(&name, &head);
        ctx.problems
            .push(FileProblem::new(&name, None, &Error::not_recognised(what)));
    }
    Catalog {
        sources: ctx.sources,
        user_sources: n,
        textures: ctx.textures,
        problems: ctx.problems,
        thumbnails: ctx.thumbnails,
        options: options.clone(),
        memo: ctx.memo,
        narrowed: ctx.narrowed,
    }
}

/// How to present a decoded surface.
#[derive(Debug, Clone, Copy, Default)]
pub struct DecodeOptions {
    /// Keep the stored row order (Unity: bottom first) instead of presenting top first.
    pub as_stored: bool,
}

impl Catalog {
    /// Opens these files together with the ones already open (a sibling dropped later completes
    /// textures that waited for it). Containers already read and decompressed are reused.
    pub fn add(&self, more: Vec<SourceRef>) -> Catalog {
        self.add_with_progress(more, &mut |_, _, _| {})
    }

    /// [`Catalog::add`], telling `progress` how far it is ([`OpenProgress`]).
    pub fn add_with_progress(&self, more: Vec<SourceRef>, progress: OpenProgress) -> Catalog {
        let mut all: Vec<SourceRef> = self.sources[..self.user_sources].to_vec();
        all.extend(more);
        open_with(all, &self.options, self.memo.clone(), progress)
    }

    /// Opens the same files again with other `options` (another profile, version, platform or
    /// more AES keys), telling `progress` how far it is. Nothing read before is reused: what
    /// the options change may be anything the earlier open read.
    pub fn reopen_with_progress(&self, options: &OpenOptions, progress: OpenProgress) -> Catalog {
        open_with(
            self.user_files().to_vec(),
            options,
            Memo::default(),
            progress,
        )
    }

    pub fn user_files(&self) -> &[SourceRef] {
        &self.sources[..self.user_sources]
    }

    pub fn source(&self, id: model::SourceId) -> Option<&SourceRef> {
        self.sources.get(id)
    }

    pub fn limits(&self) -> &Limits {
        &self.options.limits
    }

    /// The options the catalog was opened with.
    pub fn options(&self) -> &OpenOptions {
        &self.options
    }

    fn texture(&self, tex: usize) -> Result<&Texture> {
        self.textures
            .get(tex)
            .ok_or_else(|| Error::malformed(format!("no texture number {tex}")))
    }

    /// The bytes of one stored surface exactly as stored (after container decompression), and
    /// its size. For a volume, `slice` picks the depth slice. A console texture's surface comes
    /// untiled (row-major blocks, [`codec::tiling::untile`]).
    pub fn read_surface(&self, tex: usize, mip: usize, slice: u32) -> Result<(Vec<u8>, u32, u32)> {
        self.read_stored::<true>(tex, mip, slice)
    }

    /// [`Catalog::read_surface`] without the untiling: a console texture's surface as its
    /// layout stores it (`codec::tiling::stored_size` bytes), for [`Catalog::decode_tiled`].
    /// A linear texture's is the same as [`Catalog::read_surface`]'s.
    pub fn read_tiled_surface(
        &self,
        tex: usize,
        mip: usize,
        slice: u32,
    ) -> Result<(Vec<u8>, u32, u32)> {
        self.read_stored::<false>(tex, mip, slice)
    }

    /// [`Catalog::read_surface`], whose tiled surfaces come untiled where `UNTILE` (a constant,
    /// so that the page's first module, which never asks for them tiled, builds one version).
    fn read_stored<const UNTILE: bool>(
        &self,
        tex: usize,
        mip: usize,
        slice: u32,
    ) -> Result<(Vec<u8>, u32, u32)> {
        let t = self.texture(tex)?;
        if let Some(e) = &t.error {
            return Err(Error::unsupported(e.clone()).in_file(&t.file));
        }
        let m = t.mips.get(mip).ok_or_else(|| {
            Error::malformed(format!(
                "{} has {} mips; there is no mip {mip}",
                t.name,
                t.mips.len()
            ))
        })?;
        let count = t.surface_count(mip);
        if slice >= count {
            return Err(Error::malformed(format!(
                "{} has {count} slices at mip {mip}; there is no slice {slice}",
                t.name
            )));
        }
        if let Layout::Crunched { data } = &t.layout {
            #[cfg(feature = "codec-crunch")]
            return self.read_crunched(t, m, data, mip, slice);
            #[cfg(not(feature = "codec-crunch"))]
            return Err({
                let _ = data;
                Error::not_in_build(
                    format_args!("the crunch stream of {}", t.name),
                    "codec-crunch",
                )
                .in_file(&t.file)
            });
        }
        if let Layout::Source(s) = &t.layout {
            return self.read_source(t, s, mip, slice);
        }
        let (index, skip) = surface_index(t, slice);
        let image_size = t.format.surface_size(m.width, m.height);
        let storage = m.surfaces.get(index).ok_or_else(|| {
            Error::malformed(format!(
                "{} mip {mip} has no stored surface {index}",
                t.name
            ))
        })?;
        match storage {
            Storage::Range {
                source,
                offset,
                length,
            } => {
                let src = self
                    .sources
                    .get(*source)
                    .ok_or_else(|| Error::malformed("surface names an unknown source"))?;
                if !t.tiling.is_linear() {
                    let bytes = self.read_tiled(t, mip, src.as_ref(), *offset, *length, skip)?;
                    if !UNTILE {
                        return Ok((bytes, m.width, m.height));
                    }
                    let linear = codec::tiling::untile(
                        t.tiling,
                        t.format,
                        mip as u32,
                        m.width,
                        m.height,
                        &bytes,
                        &self.options.limits,
                    )
                    .map_err(|e| e.in_file(src.name()))?;
                    return Ok((linear, m.width, m.height));
                }
                let start = skip * image_size;
                if start + image_size > *length {
                    return Err(Error::malformed(format!(
                        "mip {mip} of {} holds {length} bytes, but a {}x{} {} image needs {image_size}",
                        t.name,
                        m.width,
                        m.height,
                        t.format.name()
                    ))
                    .in_file(src.name()));
                }
                let bytes = read_range(
                    src.as_ref(),
                    offset + start,
                    image_size,
                    &self.options.limits,
                )?;
                Ok((bytes, m.width, m.height))
            }
            // An opener marks a surface cut off by the end of its own file as missing from it.
            Storage::Missing { file, .. } if *file == t.file => Err(Error::new(
                ErrorKind::Truncated,
                format!(
                    "{file} ends before mip {mip} ({}x{}) of {}: the file is cut short",
                    m.width, m.height, t.name
                ),
            )
            .in_file(file)),
            Storage::Missing { file, .. } => Err(Error::missing_sibling(
                file,
                format_args!("mip {mip} ({}x{}) of {}", m.width, m.height, t.name),
            )),
            Storage::Empty => Err(Error::malformed(format!(
                "{} is empty (0x0): it has no pixels",
                t.name
            ))),
        }
    }

    /// One mip and slice of an editor's source art ([`Layout::Source`]), unwrapped and decoded
    /// to `t.format` (only the payload's bytes that image needs where the payload allows it).
    fn read_source(
        &self,
        t: &Texture,
        s: &model::SourceLayout,
        mip: usize,
        slice: u32,
    ) -> Result<(Vec<u8>, u32, u32)> {
        let m = &t.mips[mip];
        let src = match &s.data {
            Storage::Range { source, .. } => self
                .sources
                .get(*source)
                .ok_or_else(|| Error::malformed("the source art names an unknown file"))?,
            Storage::Missing { file, .. } => {
                return Err(Error::missing_sibling(
                    file,
                    format_args!("the source art of {}", t.name),
                ))
            }
            Storage::Empty => {
                return Err(Error::malformed(format!("{} has no source art", t.name)))
            }
        };
        #[cfg(feature = "editor")]
        let bytes = unreal::editor::read_image(
            s,
            src.as_ref(),
            t.format,
            mip,
            slice,
            m.width,
            m.height,
            &self.options.limits,
        );
        // Unreachable in practice: without the editor reader no source art is ever listed.
        #[cfg(not(feature = "editor"))]
        let bytes = {
            let _ = (s, src, slice);
            Err(Error::not_in_build("an editor's source art", "editor"))
        };
        Ok((bytes.map_err(|e| e.in_file(&t.file))?, m.width, m.height))
    }

    /// Decodes editor thumbnail `index` ([`Catalog::thumbnails`]) to an RGBA8 image.
    #[cfg(feature = "editor")]
    pub fn decode_thumbnail(&self, index: usize) -> Result<Image> {
        let th = self
            .thumbnails
            .get(index)
            .ok_or_else(|| Error::malformed(format!("no thumbnail number {index}")))?;
        let Storage::Range {
            source,
            offset,
            length,
        } = &th.data
        else {
            return Err(Error::malformed("the thumbnail has no stored bytes"));
        };
        let src = self
            .sources
            .get(*source)
            .ok_or_else(|| Error::malformed("the thumbnail names an unknown file"))?;
        let bytes = read_range(src.as_ref(), *offset, *length, &self.options.limits)?;
        unreal::editor::decode_image_file(&bytes, th.jpeg, th.bgr, &self.options.limits)
            .map_err(|e| e.in_file(&th.file))
    }

    /// Without the editor reader no thumbnail is ever listed (the page's core module).
    #[cfg(not(feature = "editor"))]
    pub fn decode_thumbnail(&self, _index: usize) -> Result<Image> {
        Err(Error::not_in_build("an editor thumbnail", "editor"))
    }

    /// Reads one tiled surface (console layouts: [`codec::tiling`]) of `t`'s mip `mip` from its
    /// stored range, as stored. A volume's depth slice `skip` is the `skip`-th tiled surface of
    /// the range.
    fn read_tiled(
        &self,
        t: &Texture,
        mip: usize,
        src: &dyn Source,
        offset: u64,
        length: u64,
        skip: u64,
    ) -> Result<Vec<u8>> {
        let m = &t.mips[mip];
        let tiled_size =
            codec::tiling::stored_size(t.tiling, t.format, mip as u32, m.width, m.height)
                .map_err(|e| e.in_file(src.name()))?;
        let start = skip
            .checked_mul(tiled_size)
            .filter(|s| s.saturating_add(tiled_size) <= length)
            .ok_or_else(|| {
                Error::malformed(format!(
                    "mip {mip} of {} holds {length} bytes, but its {}x{} {} surface is stored {} in {tiled_size}",
                    t.name,
                    m.width,
                    m.height,
                    t.format.name(),
                    t.tiling.census_name(),
                ))
                .in_file(src.name())
            })?;
        read_range(src, offset + start, tiled_size, &self.options.limits)
    }

    /// Unpacks one level and face of a crunch stream to the blocks of `t.format`.
    #[cfg(feature = "codec-crunch")]
    fn read_crunched(
        &self,
        t: &Texture,
        m: &Mip,
        data: &Storage,
        mip: usize,
        slice: u32,
    ) -> Result<(Vec<u8>, u32, u32)> {
        let (source, offset, length) = match data {
            Storage::Range {
                source,
                offset,
                length,
            } => (*source, *offset, *length),
            Storage::Missing { file, .. } => {
                return Err(Error::missing_sibling(
                    file,
                    format_args!("the crunch stream of {}", t.name),
                ))
            }
            Storage::Empty => {
                return Err(Error::malformed(format!(
                    "{} is empty (0x0): it has no pixels",
                    t.name
                )))
            }
        };
        let src = self
            .sources
            .get(source)
            .ok_or_else(|| Error::malformed("crunch stream names an unknown source"))?;
        let bytes = read_range(src.as_ref(), offset, length, &self.options.limits)?;
        let crn = codec::crunch::Crunch::new(&bytes).map_err(|e| e.in_file(&t.file))?;
        let want = crn.header.format.block_format();
        if want != t.format {
            return Err(Error::malformed(format!(
                "{} says {} but its crunch stream holds {} blocks",
                t.name,
                t.format.name(),
                crn.header.format.name()
            ))
            .in_file(&t.file));
        }
        let (w, h) = crn.header.level_dims(mip as u32);
        if (w, h) != (m.width, m.height) {
            return Err(Error::malformed(format!(
                "mip {mip} of {} is {}x{}, but its crunch level is {w}x{h}",
                t.name, m.width, m.height
            ))
            .in_file(&t.file));
        }
        let blocks = crn
            .unpack(mip as u32, slice, &self.options.limits)
            .map_err(|e| e.in_file(&t.file))?;
        Ok((blocks, w, h))
    }

    /// Decodes one mip of one slice (or depth slice) to an image, rows top first unless
    /// `as_stored` is asked for.
    pub fn decode(&self, tex: usize, mip: usize, slice: u32, opts: DecodeOptions) -> Result<Image> {
        let t = self.texture(tex)?;
        if let Layout::Virtual(_) = &t.layout {
            return self.decode_tiles(tex, mip, slice, None).map(|v| v.image);
        }
        // The first wasm module has no untiler, hence no tiled surface (`cfg!` leaves this out).
        if cfg!(feature = "gnf") && !t.tiling.is_linear() {
            let (tiled, ..) = self.read_tiled_surface(tex, mip, slice)?;
            return self.decode_tiled(tex, mip, slice, &tiled, opts);
        }
        let (bytes, w, h) = self.read_surface(tex, mip, slice)?;
        self.decode_read(tex, &bytes, w, h, opts)
    }

    /// Decodes mip `mip`, slice `slice` of a tiled texture from its surface as
    /// [`Catalog::read_tiled_surface`] returned it: untiled and decoded in one pass
    /// ([`codec::decode_untiler`], band by band for BCn), the image [`Catalog::decode_read`]
    /// makes of [`Catalog::read_surface`]'s untiled blocks, with the same errors (an untiling
    /// error names the file the surface is in, a decoding error the texture's file). A build
    /// without untilers ([`codec::tiling`]) untiles as [`Catalog::read_surface`] does (an error
    /// naming the feature).
    pub fn decode_tiled(
        &self,
        tex: usize,
        mip: usize,
        slice: u32,
        tiled: &[u8],
        opts: DecodeOptions,
    ) -> Result<Image> {
        let t = self.texture(tex)?;
        let m = t
            .mips
            .get(mip)
            .ok_or_else(|| Error::malformed(format!("{} has no mip {mip}", t.name)))?;
        let (w, h, limits) = (m.width, m.height, &self.options.limits);
        // The file holding the surface, as read_surface names it in an untiling error.
        let file = match m.surfaces.get(surface_index(t, slice).0) {
            Some(Storage::Range { source, .. }) => self.sources.get(*source).map(|s| s.name()),
            _ => None,
        }
        .unwrap_or(&t.file);
        #[cfg(not(feature = "gnf"))]
        {
            let linear = codec::tiling::untile(t.tiling, t.format, mip as u32, w, h, tiled, limits)
                .map_err(|e| e.in_file(file))?;
            self.decode_read(tex, &linear, w, h, opts)
        }
        #[cfg(feature = "gnf")]
        {
            let untiler =
                codec::tiling::Untiler::new(t.tiling, t.format, mip as u32, w, h, tiled, limits)
                    .map_err(|e| e.in_file(file))?;
            let img = codec::decode_untiler(&untiler, t.format, w, h, limits)
                .map_err(|e| e.in_file(&t.file))?;
            Ok(rows_as_asked(t, img, opts))
        }
    }

    /// Decodes a `w` x `h` surface of texture `tex` from `bytes` as [`Catalog::read_surface`]
    /// returned them, so a caller that also needs the stored bytes (the page's inspector and GPU
    /// path) reads them once.
    pub fn decode_read(
        &self,
        tex: usize,
        bytes: &[u8],
        w: u32,
        h: u32,
        opts: DecodeOptions,
    ) -> Result<Image> {
        let t = self.texture(tex)?;
        let img = decode_surface(t.format, w, h, bytes, &self.options.limits)
            .map_err(|e| e.in_file(&t.file))?;
        Ok(rows_as_asked(t, img, opts))
    }

    /// The tile grid of one mip and layer of a virtual texture, row by row, for an overlay: per
    /// cell its Morton address, tile index, chunk, byte range and whether it is present.
    pub fn vt_tiles(
        &self,
        tex: usize,
        mip: usize,
        layer: u32,
    ) -> Result<Vec<model::tiled::TileCell>> {
        let t = self.texture(tex)?;
        let Layout::Virtual(vt) = &t.layout else {
            return Err(Error::malformed(format!(
                "{} is not a virtual texture",
                t.name
            )));
        };
        if mip >= vt.mips.len() || layer as usize >= vt.layers.len() {
            return Err(Error::malformed(format!(
                "{} has {} mips and {} layers; mip {mip} layer {layer} does not exist",
                t.name,
                vt.mips.len(),
                vt.layers.len()
            )));
        }
        Ok(vt.tiles(mip, layer as usize))
    }

    /// Decodes a rectangle of tiles (all of them when `rect` is None) of one layer of a virtual
    /// texture; absent tiles get the layer's fallback colour and are listed in the result.
    pub fn decode_tiles(
        &self,
        tex: usize,
        mip: usize,
        layer: u32,
        rect: Option<model::tiled::TileRect>,
    ) -> Result<model::tiled::TiledImage> {
        let t = self.texture(tex)?;
        let Layout::Virtual(vt) = &t.layout else {
            return Err(Error::malformed(format!(
                "{} is not a virtual texture",
                t.name
            )));
        };
        model::tiled::decode_tiles(
            vt,
            mip,
            layer as usize,
            rect,
            |i| self.sources.get(i).map(|s| s.as_ref()),
            &self.options.limits,
        )
        .map_err(|e| e.in_file(&t.file))
    }
}

/// Which stored surface of a mip holds `slice`, and which tiled or linear image inside it: a
/// volume's depth slices are images one after another in its one surface; every other kind
/// stores each slice (face, array layer) as a surface of its own.
fn surface_index(t: &Texture, slice: u32) -> (usize, u64) {
    match t.kind {
        TextureKind::Volume => (0, slice as u64),
        _ => (slice as usize, 0),
    }
}

/// A decoded image with its rows top first, unless the caller asked for them as stored.
fn rows_as_asked(t: &Texture, mut img: Image, opts: DecodeOptions) -> Image {
    if t.rows == RowOrder::BottomFirst && !opts.as_stored {
        img.flip_rows();
    }
    img
}
