//! wasm-bindgen glue for the page's decode worker: a [`Source`] over a browser `File` or a file
//! on a web server (read by the worker's JS with HTTP range requests), and a [`Session`] handle
//! over a [`Catalog`]. Conversions only; every decision lives in the core.

#[cfg(feature = "full")]
mod bench;
// The compare view's glue adds 18.9 KB gzipped to the core module (measured: 290,158 -> 309,049
// bytes, over the 300 KB budget), so it lives in the full module, which the worker loads the first
// time the page compares.
#[cfg(feature = "compare")]
mod compare;

use crate::io::{Error, Result, Source, SourceRef};
use crate::model::{Layout, Storage};
use crate::{open, Catalog, DecodeOptions, OpenOptions, Pixels, Texture};
use serde::Serialize;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use wasm_bindgen::prelude::*;
use web_sys::{File, FileReaderSync};

/// A file read by byte range: dropped (`FileReaderSync` over `File.slice()`, synchronous only in
/// a dedicated worker) or on a web server (the worker's `RemoteFile` answers each read with a
/// synchronous HTTP range request). Either keeps the core's `Source` synchronous, and only the
/// asked range is read.
struct WebFile {
    name: String,
    bytes: Bytes,
    len: u64,
    /// Tells this file's blocks apart in [`AHEAD`].
    uid: u64,
}

/// Where a [`WebFile`]'s bytes come from.
enum Bytes {
    Dropped { file: File, reader: FileReaderSync },
    Remote(RemoteHandle),
}

#[wasm_bindgen]
extern "C" {
    /// A file on a web server as the worker hands it over (www/worker.js `RemoteFile`): its name,
    /// its size in bytes as the server gave it, and `read(offset, length)`, a Uint8Array of
    /// exactly that range fetched synchronously, which throws an Error naming the URL and what
    /// the server did wrong (a changed file, a short body, a refused range).
    pub type RemoteHandle;
    #[wasm_bindgen(method, getter)]
    fn name(this: &RemoteHandle) -> String;
    #[wasm_bindgen(method, getter)]
    fn size(this: &RemoteHandle) -> f64;
    #[wasm_bindgen(method, catch)]
    fn read(
        this: &RemoteHandle,
        offset: f64,
        length: f64,
    ) -> std::result::Result<js_sys::Uint8Array, JsValue>;
}

/// Read-ahead blocks of small reads, shared by every file so that opening thousands of files
/// keeps at most [`AHEAD_KEEP`] blocks: (file uid, offset, bytes), most recent last.
static AHEAD: Mutex<Vec<(u64, u64, Vec<u8>)>> = Mutex::new(Vec::new());
static NEXT_UID: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);

/// Reads of at most this many bytes are served from an aligned [`AHEAD_BLOCK`] read. Package
/// parsers walk their tables a few bytes at a time, and each `FileReaderSync` call costs a fixed
/// overhead: opening a 2048x2048 DXT1 UE package (tests/browser/stream.test.mjs) took 0.9-1.4 s to
/// the first paint without this, against ~0.1 s for a DDS of one header read.
const AHEAD_SMALL: usize = 4096;
const AHEAD_BLOCK: u64 = 64 * 1024;
/// Blocks kept in all (a walk may alternate between files, or a header and a table elsewhere):
/// 1 MiB at most.
const AHEAD_KEEP: usize = 16;

impl WebFile {
    fn new(file: File, path: Option<&str>) -> Result<WebFile> {
        let name = match path {
            Some(p) if !p.is_empty() => p.to_string(),
            _ => file.name(),
        };
        let reader = FileReaderSync::new()
            .map_err(|e| Error::io(format!("cannot read files here ({})", js_text(&e))))?;
        // File.size is a double; sizes above 2^53 cannot be represented by the browser anyway.
        let len = file.size() as u64;
        Ok(Self::with(name, Bytes::Dropped { file, reader }, len))
    }

    /// A page argument: a `File`, else a remote file handle (see [`RemoteHandle`]).
    fn from_js(v: JsValue, path: Option<&str>) -> Result<WebFile> {
        let remote = match v.dyn_into::<File>() {
            Ok(file) => return Self::new(file, path),
            Err(v) => v.unchecked_into::<RemoteHandle>(),
        };
        let name = match path {
            Some(p) if !p.is_empty() => p.to_string(),
            _ => remote.name(),
        };
        // The page checked the size against 2^53 (the largest a double holds exactly).
        let len = remote.size() as u64;
        Ok(Self::with(name, Bytes::Remote(remote), len))
    }

    fn with(name: String, bytes: Bytes, len: u64) -> WebFile {
        WebFile {
            name,
            bytes,
            len,
            uid: NEXT_UID.fetch_add(1, std::sync::atomic::Ordering::Relaxed),
        }
    }

    /// Reads `buf.len()` bytes at `offset` (already checked against the length) from the browser.
    fn read_direct(&self, offset: u64, buf: &mut [u8]) -> Result<()> {
        let end = offset + buf.len() as u64;
        let failed =
            |e: JsValue| Error::io(format!("the browser could not read it ({})", js_text(&e)));
        let view = match &self.bytes {
            Bytes::Dropped { file, reader } => {
                let blob = file
                    .slice_with_f64_and_f64(offset as f64, end as f64)
                    .map_err(failed)?;
                let bytes = reader.read_as_array_buffer(&blob).map_err(failed)?;
                js_sys::Uint8Array::new(&bytes)
            }
            // The handle's error already names the URL and what the server answered.
            Bytes::Remote(r) => r
                .read(offset as f64, buf.len() as f64)
                .map_err(|e| Error::io(js_text(&e)))?,
        };
        if view.length() as usize != buf.len() {
            return Err(Error::io(format!(
                "the browser returned {} bytes at offset {offset} where {} were asked for (was the file changed?)",
                view.length(),
                buf.len()
            )));
        }
        view.copy_to(buf);
        READ_BYTES.fetch_add(buf.len() as u64, Ordering::Relaxed);
        READS.fetch_add(1, Ordering::Relaxed);
        Ok(())
    }
}

impl Source for WebFile {
    fn name(&self) -> &str {
        &self.name
    }
    fn len(&self) -> u64 {
        self.len
    }
    fn read_exact_at(&self, offset: u64, buf: &mut [u8]) -> Result<()> {
        let end = crate::io::range_end(offset, buf.len() as u64, self.len)?;
        if buf.len() > AHEAD_SMALL {
            return self.read_direct(offset, buf);
        }
        let mut ahead = AHEAD
            .lock()
            .map_err(|_| Error::io("the read-ahead cache was poisoned"))?;
        let hit = ahead.iter().position(|(uid, at, b)| {
            *uid == self.uid && *at <= offset && end <= at + b.len() as u64
        });
        match hit {
            // Most recently used last.
            Some(i) => {
                let e = ahead.remove(i);
                ahead.push(e);
            }
            None => {
                let start = offset - offset % AHEAD_BLOCK;
                // The aligned block holding the read (stretched when the read crosses its end).
                let stop = (start + AHEAD_BLOCK).min(self.len).max(end);
                let mut block = vec![0u8; (stop - start) as usize];
                self.read_direct(start, &mut block)?;
                if ahead.len() == AHEAD_KEEP {
                    ahead.remove(0);
                }
                ahead.push((self.uid, start, block));
            }
        }
        let Some((_, at, block)) = ahead.last() else {
            return self.read_direct(offset, buf);
        };
        let from = (offset - at) as usize;
        buf.copy_from_slice(&block[from..from + buf.len()]);
        Ok(())
    }
}

/// Bytes and reads of dropped and remote files so far (issue 8: tests check that opening a texture in a
/// 4 GiB file reads only header ranges and the mip shown).
static READ_BYTES: AtomicU64 = AtomicU64::new(0);
static READS: AtomicU64 = AtomicU64::new(0);

/// `[bytes, reads]` read from dropped and remote files since the module started (remote bytes as
/// the core asked for them; the worker's `RemoteFile` counts what went over the network).
#[wasm_bindgen(js_name = readStats)]
pub fn read_stats() -> Vec<f64> {
    [&READ_BYTES, &READS]
        .map(|c| c.load(Ordering::Relaxed) as f64)
        .to_vec()
}

#[wasm_bindgen]
extern "C" {
    /// `performance.now()` of this worker, for the stage timings `decode` reports (a direct
    /// import: reaching it through `js_sys::Reflect` cost ~1 KB of the gzipped core module).
    #[wasm_bindgen(js_namespace = performance)]
    fn now() -> f64;
}

fn js_text(v: &JsValue) -> String {
    v.as_string()
        .or_else(|| {
            v.dyn_ref::<js_sys::Error>()
                .map(|e| String::from(e.message()))
        })
        .unwrap_or_else(|| format!("{v:?}"))
}

/// The last panic message: a panic traps the wasm instance, so the worker asks for the message
/// afterwards (`takePanic`) to show the user something readable instead of "unreachable".
static LAST_PANIC: Mutex<Option<String>> = Mutex::new(None);

fn install_panic_hook() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        std::panic::set_hook(Box::new(|info| {
            console_error_panic_hook::hook(info);
            if let Ok(mut last) = LAST_PANIC.lock() {
                *last = Some(info.to_string());
            }
        }));
    });
}

/// The message of the panic that stopped the module, if one did.
#[wasm_bindgen(js_name = takePanic)]
pub fn take_panic() -> Option<String> {
    LAST_PANIC.lock().ok().and_then(|mut p| p.take())
}

#[derive(Serialize)]
struct MipInfo<'a> {
    width: u32,
    height: u32,
    depth: u32,
    /// Images the viewer can pick at this mip (slices, or depth slices of a volume).
    surfaces: u32,
    present: bool,
    location_note: &'a str,
    /// Opened files holding this mip's bytes (for the mip strip), in slice order, deduplicated.
    files: Vec<String>,
    /// Files that hold bytes of this mip but were not opened ("drop T_Foo.ubulk").
    missing: Vec<String>,
}

#[derive(Serialize)]
struct TextureInfo<'a> {
    index: usize,
    census: serde_json::Value,
    color_space: crate::model::ColorSpace,
    normal_map: Option<crate::model::NormalEncoding>,
    precision: crate::Precision,
    /// Block footprint and bytes of the stored format, `[w, h, bytes]` ([1, 1, n] for plain).
    block: [u32; 3],
    gpu_bytes: u64,
    /// Rows are stored bottom first (Unity): `decode` flips them, `surfaceBytes` does not, so
    /// the page's GPU path flips when it draws the stored bytes.
    bottom_first: bool,
    metadata: &'a [(String, String)],
    notes: &'a [String],
    mips: Vec<MipInfo<'a>>,
    /// The asset's editor thumbnail (`Catalog::thumbnails` index, for `Session::thumbnail`).
    thumbnail: Option<usize>,
    /// An editor package's asset that is not a texture (a material, a mesh): listed by its
    /// thumbnail, which is all `decode` shows of it.
    asset: bool,
}

/// Which editor thumbnail belongs to which list entry: each texture's own (same package file and
/// the texture's object name, the thumbnail table naming assets by object path; a package's only
/// asset goes by its only thumbnail whatever the spelling), and the thumbnails of assets that are
/// no texture, in order (the page lists each after the textures, as entry `textures.len() + k`).
/// One pass over the thumbnails by file, so a drop of thousands of packages stays linear.
/// Only the editor package reader lists thumbnails, so the core module (no `editor`) leaves this
/// glue out: it measured 5,078 B of that module before wasm-opt.
#[cfg(feature = "editor")]
struct Thumbnails {
    of_texture: Vec<Option<usize>>,
    assets: Vec<usize>,
}

#[cfg(feature = "editor")]
impl Thumbnails {
    fn new(catalog: &Catalog) -> Thumbnails {
        let th = &catalog.thumbnails;
        let mut by_file: std::collections::BTreeMap<&str, Vec<usize>> =
            std::collections::BTreeMap::new();
        for (i, t) in th.iter().enumerate() {
            by_file.entry(t.file.as_str()).or_default().push(i);
        }
        let mut taken = vec![false; th.len()];
        let of_texture = catalog
            .textures
            .iter()
            .map(|t| {
                let in_file = by_file.get(t.file.as_str())?;
                let named = |i: &&usize| {
                    let o = th[**i].object.as_str();
                    o == t.name || o.rsplit(['.', ':', '/']).next() == Some(t.name.as_str())
                };
                let i = *in_file
                    .iter()
                    .find(named)
                    .or_else(|| (in_file.len() == 1).then(|| &in_file[0]))?;
                taken[i] = true;
                Some(i)
            })
            .collect();
        let assets = (0..th.len()).filter(|&i| !taken[i]).collect();
        Thumbnails { of_texture, assets }
    }
}

/// The list record of thumbnail `i` of an asset that is not a texture: the census fields the page
/// reads, one present mip of the thumbnail's size.
#[cfg(feature = "editor")]
fn asset_info(catalog: &Catalog, index: usize, i: usize) -> serde_json::Value {
    let th = &catalog.thumbnails[i];
    let kind = if th.jpeg { "JPEG" } else { "PNG" };
    serde_json::json!({
        "index": index,
        "census": {
            "file": th.file, "path": null, "engine": "unreal", "name": th.object,
            "class": th.class, "kind": "2d", "width": th.width, "height": th.height,
            "depth": 1, "slices": 1, "mips": 1, "format": format!("{kind} thumbnail"),
            "native_format": null, "virtual": false, "error": null,
        },
        "color_space": "srgb",
        "normal_map": null,
        "precision": "unorm8",
        "block": [1, 1, 4],
        "gpu_bytes": 0,
        "bottom_first": false,
        "metadata": [
            ["Package", "editor package"],
            ["Thumbnail", format!("{kind} {}x{}, as the editor saved it", th.width, th.height)],
        ],
        "notes": [format!("{} is not a texture: this is its editor thumbnail", th.class)],
        "mips": [{
            "width": th.width, "height": th.height, "depth": 1, "surfaces": 1, "present": true,
            "location_note": "editor thumbnail", "files": [th.file.clone()], "missing": [],
        }],
        "thumbnail": i,
        "asset": true,
    })
}

/// Where mip `i` lives: the opened files holding it and the files still missing. A virtual
/// texture's mip lives in its VT chunk's file.
fn mip_files(catalog: &Catalog, t: &Texture, i: usize) -> (Vec<String>, Vec<String>) {
    let vt_chunk;
    let storages: Vec<&Storage> = match &t.layout {
        Layout::Virtual(vt) => {
            vt_chunk = vt.mips.get(i).and_then(|m| vt.chunks.get(m.chunk as usize));
            vt_chunk.iter().map(|c| &c.storage).collect()
        }
        Layout::Source(s) => vec![&s.data],
        _ => t.mips[i].surfaces.iter().collect(),
    };
    let (mut files, mut missing) = (Vec::new(), Vec::new());
    for s in storages {
        let (list, name) = match s {
            Storage::Range { source, .. } => match catalog.source(*source) {
                Some(src) => (&mut files, src.name().to_string()),
                None => continue,
            },
            Storage::Missing { file, .. } => (&mut missing, file.clone()),
            Storage::Empty => continue,
        };
        if !list.contains(&name) {
            list.push(name);
        }
    }
    (files, missing)
}

fn texture_info<'a>(
    catalog: &Catalog,
    index: usize,
    t: &'a Texture,
    thumbnail: Option<usize>,
) -> TextureInfo<'a> {
    TextureInfo {
        index,
        census: t.census(),
        color_space: t.color_space,
        normal_map: t.normal_map,
        precision: t.format.precision(),
        block: {
            let b = t.format.block();
            [b.width, b.height, b.bytes]
        },
        gpu_bytes: t.gpu_bytes(),
        bottom_first: t.rows == crate::model::RowOrder::BottomFirst,
        metadata: &t.metadata,
        notes: &t.notes,
        mips: t
            .mips
            .iter()
            .enumerate()
            .map(|(i, m)| {
                let (files, missing) = mip_files(catalog, t, i);
                MipInfo {
                    width: m.width,
                    height: m.height,
                    depth: m.depth,
                    surfaces: t.surface_count(i),
                    present: m.is_present() && missing.is_empty(),
                    location_note: &m.location_note,
                    files,
                    missing,
                }
            })
            .collect(),
        thumbnail,
        asset: false,
    }
}

/// A core error as a JS `Error`; one whose decoder this module leaves out is named `NotInBuild`, so
/// the worker loads the full module and retries (a flag, not message matching).
fn decode_error(e: Error) -> JsValue {
    let js = js_sys::Error::new(&e.to_string());
    if e.kind == crate::io::ErrorKind::NotInBuild {
        js.set_name("NotInBuild");
    }
    js.into()
}

fn to_js<T: Serialize>(value: &T) -> std::result::Result<JsValue, JsError> {
    // json_compatible: maps become plain objects and u64 sizes plain numbers, as the page expects.
    value
        .serialize(&serde_wasm_bindgen::Serializer::json_compatible())
        .map_err(|e| JsError::new(&e.to_string()))
}

/// What the worker holds: every file opened so far and the catalog built from them.
#[wasm_bindgen]
pub struct Session {
    catalog: Catalog,
}

impl Default for Session {
    fn default() -> Self {
        Self::new()
    }
}

/// Calls the page's `progress(stage, done, total)` (`OpenStage`'s number), when it gave one.
fn tell(progress: &Option<js_sys::Function>, stage: crate::OpenStage, done: usize, total: usize) {
    if let Some(f) = progress {
        // A throwing callback only loses a progress step; the open goes on.
        let _ = f.call3(
            &JsValue::NULL,
            &(stage as u8).into(),
            &done.into(),
            &total.into(),
        );
    }
}

impl Session {
    /// Reopens every file with `options` (a reading option or a key changed), telling
    /// `progress` each step as a drop's open does, so the page shows the same bar.
    fn reopen(&mut self, options: &OpenOptions, progress: Option<js_sys::Function>) {
        self.catalog = self
            .catalog
            .reopen_with_progress(options, &mut |stage, done, total| {
                tell(&progress, stage, done, total)
            });
    }

    /// The thumbnail shown as list entry `tex` when that entry is an asset, not a texture
    /// ([`asset_thumbnails`]).
    #[cfg(feature = "editor")]
    fn asset(&self, tex: usize) -> Option<usize> {
        let k = tex.checked_sub(self.catalog.textures.len())?;
        Thumbnails::new(&self.catalog).assets.get(k).copied()
    }

    /// Without the editor reader no thumbnail is listed, so no entry is an asset.
    #[cfg(not(feature = "editor"))]
    fn asset(&self, _tex: usize) -> Option<usize> {
        None
    }

    /// Texture `tex` and its VT layout; `None` when it is not virtual.
    fn virtual_texture(
        &self,
        tex: usize,
    ) -> std::result::Result<Option<(&Texture, &crate::model::tiled::TiledLayout)>, JsError> {
        if self.asset(tex).is_some() {
            return Ok(None);
        }
        let t = self
            .catalog
            .textures
            .get(tex)
            .ok_or_else(|| JsError::new(&format!("there is no texture {tex}")))?;
        Ok(match &t.layout {
            Layout::Virtual(vt) => Some((t, vt)),
            _ => None,
        })
    }
}

#[wasm_bindgen]
impl Session {
    #[wasm_bindgen(constructor)]
    pub fn new() -> Session {
        install_panic_hook();
        Session {
            catalog: open(Vec::new(), &OpenOptions::default()),
        }
    }

    /// Opens `files` together with those already open, so a sibling dropped later completes the
    /// textures that waited for it. `paths`, when given, names each file by its path inside the
    /// dropped folder (`sub/x.dds`; what census `file` then says and exports mirror), the paths
    /// joined by NUL (which no file name holds: one string crosses into wasm with less glue than
    /// an array, and the core module is at its size budget); else each file goes by its name.
    /// `progress`, when given, is called with (stage, done, total) as the open goes
    /// (`OpenProgress`; stage 0: files whose first bytes were read, 1: engine passes, 2-5: a
    /// container's indexes and packages, then the loose files, inside the Unreal pass,
    /// `OpenStage`'s numbers): the worker posts it to the page's progress bar while this call
    /// still runs (the page stays free; its Cancel ends the worker).
    ///
    /// Each of `files` is a `File` or a remote file handle (`{name, size, read(offset, length)}`,
    /// see [`RemoteHandle`]): a file on a web server is read range by range as a dropped one is.
    pub fn add(
        &mut self,
        files: Vec<JsValue>,
        paths: Option<String>,
        progress: Option<js_sys::Function>,
    ) -> std::result::Result<(), JsError> {
        let mut more: Vec<SourceRef> = Vec::with_capacity(files.len());
        let mut paths = paths.as_deref().map(|p| p.split('\0'));
        for f in files {
            let path = paths.as_mut().and_then(|p| p.next());
            let src = WebFile::from_js(f, path).map_err(|e| JsError::new(&e.to_string()))?;
            // Each worker owns its Session and the Files in it; nothing crosses threads.
            #[allow(clippy::arc_with_non_send_sync)]
            more.push(Arc::new(src));
        }
        self.catalog = self
            .catalog
            .add_with_progress(more, &mut |stage, done, total| {
                tell(&progress, stage, done, total)
            });
        Ok(())
    }

    /// Every texture found, with its census record, mips (size, presence, where they live) and
    /// metadata for the info panel.
    pub fn textures(&self) -> std::result::Result<JsValue, JsError> {
        #[cfg(feature = "editor")]
        let thumbs = Thumbnails::new(&self.catalog);
        let list: Vec<TextureInfo> = self
            .catalog
            .textures
            .iter()
            .enumerate()
            .map(|(i, t)| {
                #[cfg(feature = "editor")]
                let thumbnail = thumbs.of_texture[i];
                #[cfg(not(feature = "editor"))]
                let thumbnail = None;
                texture_info(&self.catalog, i, t, thumbnail)
            })
            .collect();
        // Assets that are no texture join the list after the textures; without them the list
        // goes to JavaScript directly, not through serde_json values (a 100,000-entry list).
        #[cfg(feature = "editor")]
        if !thumbs.assets.is_empty() {
            let n = list.len();
            let mut all: Vec<serde_json::Value> = Vec::with_capacity(n + thumbs.assets.len());
            for t in list {
                all.push(serde_json::to_value(t).map_err(|e| JsError::new(&e.to_string()))?);
            }
            for (k, &i) in thumbs.assets.iter().enumerate() {
                all.push(asset_info(&self.catalog, n + k, i));
            }
            return to_js(&all);
        }
        to_js(&list)
    }

    /// Editor thumbnail `index` (`Catalog::thumbnails`, a record's `thumbnail`) decoded to RGBA8
    /// through `Catalog::decode_thumbnail`: the image object of [`Session::decode`]. A module
    /// without the PNG/JPEG decoders says NotInBuild, and the worker retries in the full one.
    pub fn thumbnail(&self, index: usize) -> std::result::Result<JsValue, JsValue> {
        let img = self.catalog.decode_thumbnail(index).map_err(decode_error)?;
        Ok(image_object(&img, &[])?.into())
    }

    /// Re-opens every file with the Frostbite format table `name` (`None` or "" = the default),
    /// so the same ordinal is read with another game's enum. An unknown name is an error listing
    /// the valid ones, and nothing changes. `progress` hears the reopening as [`Session::add`]'s.
    #[wasm_bindgen(js_name = setFrostbiteProfile)]
    pub fn set_frostbite_profile(
        &mut self,
        name: Option<String>,
        progress: Option<js_sys::Function>,
    ) -> std::result::Result<(), JsError> {
        let chosen = match name.as_deref().filter(|n| !n.is_empty()) {
            None => None,
            Some(n) => Some(
                crate::frostbite::render_format::profile(n)
                    .ok_or_else(|| {
                        JsError::new(&format!(
                            "there is no Frostbite profile \"{n}\"; the profiles are: {}",
                            crate::frostbite::render_format::profile_names()
                        ))
                    })?
                    .name
                    .to_string(),
            ),
        };
        let options = OpenOptions {
            frostbite_profile: chosen,
            ..self.catalog.options().clone()
        };
        self.reopen(&options, progress);
        Ok(())
    }

    /// Re-opens every file reading Unity files that do not record their version (or record
    /// "0.0.0") as `version` (`None` or "" = as the files say), like the CLI's `--unity-version`.
    /// A string that is not a Unity version is an error, and nothing changes. `progress` hears
    /// the reopening as [`Session::add`]'s.
    #[wasm_bindgen(js_name = setUnityVersion)]
    pub fn set_unity_version(
        &mut self,
        version: Option<String>,
        progress: Option<js_sys::Function>,
    ) -> std::result::Result<(), JsError> {
        let chosen = match version.as_deref().map(str::trim).filter(|v| !v.is_empty()) {
            None => None,
            Some(v) if crate::unity::layout::parse_version(v).is_some() => Some(v.to_string()),
            Some(v) => {
                return Err(JsError::new(&format!(
                    "\"{v}\" is not a Unity version; write one like 2021.3.15f1"
                )))
            }
        };
        let options = OpenOptions {
            unity_version: chosen,
            ..self.catalog.options().clone()
        };
        self.reopen(&options, progress);
        Ok(())
    }

    /// Re-opens every file with the console platform the user chose (`switch`, `ps4`, `ps5`,
    /// `pc`; `None` or "" = as the files say), like the CLI's `--platform`: it decides how the
    /// surfaces of files that do not say their platform are untiled. An unknown word is an error,
    /// and nothing changes.
    /// The first module has no untilers: choosing a console there is `NotInBuild`, and the
    /// worker makes the choice again in the full module. `progress` hears the reopening as
    /// [`Session::add`]'s.
    #[wasm_bindgen(js_name = setPlatform)]
    pub fn set_platform(
        &mut self,
        platform: Option<String>,
        progress: Option<js_sys::Function>,
    ) -> std::result::Result<(), JsValue> {
        let chosen = match platform.as_deref().map(str::trim).filter(|v| !v.is_empty()) {
            None => None,
            Some(v) => Some(crate::Platform::from_name(v).ok_or_else(|| {
                JsValue::from(JsError::new(&format!(
                    "\"{v}\" is not a platform: switch, ps4, ps5 or pc"
                )))
            })?),
        };
        if cfg!(not(feature = "tiling-switch")) && chosen.is_some_and(|p| p != crate::Platform::Pc)
        {
            return Err(decode_error(Error::not_in_build(
                "untiling console surfaces",
                "tiling-switch",
            )));
        }
        let options = OpenOptions {
            platform: chosen,
            ..self.catalog.options().clone()
        };
        self.reopen(&options, progress);
        Ok(())
    }

    /// Panics on purpose, so the browser tests can check that a crashed decoder is reported and
    /// replaced with the files kept (issue 9). The page reaches it only via
    /// `window.texscope.debugPanic()`; no control calls it.
    #[wasm_bindgen(js_name = debugPanic)]
    pub fn debug_panic(&self) {
        panic!("debugPanic() was called (a test of the crash path)");
    }

    /// Whether a file failed only because this module lacks its decoder (`NotInBuild`, e.g. a
    /// ZStandard .usmap in the core module): the worker then reopens the files with the full one.
    #[wasm_bindgen(js_name = needsFull)]
    pub fn needs_full(&self) -> bool {
        self.catalog
            .problems
            .iter()
            .any(|p| p.kind == crate::io::ErrorKind::NotInBuild)
    }

    /// Adds an AES key for encrypted Unreal containers and reopens every file with the keys given
    /// so far. `key` is a key (0x-hex or base64) or the text of a JSON key file (by container GUID,
    /// as FModel users keep them). Keys stay in this worker's memory: never returned, logged or
    /// echoed in a message. Text that holds no key is an error, and nothing changes. A key that
    /// fits no container changes nothing either: those containers still report `needsKey`.
    /// `progress` hears the reopening as [`Session::add`]'s.
    #[cfg(feature = "containers")]
    #[wasm_bindgen(js_name = addAesKey)]
    pub fn add_aes_key(
        &mut self,
        key: String,
        progress: Option<js_sys::Function>,
    ) -> std::result::Result<(), JsError> {
        let more = parse_keys(&key)?;
        let mut options = self.catalog.options().clone();
        options.aes_keys.0.extend(more.0);
        self.reopen(&options, progress);
        Ok(())
    }

    /// Opens only the container packages `only` names (`OpenOptions::only`: a share link's
    /// package path or texture name; `None` or "" = every package), reopening the files open so
    /// far. The worker calls it before a link's files are added, and with `None` when the page
    /// asks for the rest of the containers. `progress` hears the reopening as [`Session::add`]'s.
    /// The core module reads no container, so it has no such method.
    #[cfg(feature = "containers")]
    #[wasm_bindgen(js_name = setOnly)]
    pub fn set_only(&mut self, only: Option<String>, progress: Option<js_sys::Function>) {
        let mut options = self.catalog.options().clone();
        options.only = only.filter(|o| !o.trim().is_empty());
        self.reopen(&options, progress);
    }

    /// Whether [`Session::set_only`]'s name matched packages and the others were left unopened
    /// (`Catalog::narrowed`; false: no name, or it matched none and every package was opened).
    #[cfg(feature = "containers")]
    pub fn narrowed(&self) -> bool {
        self.catalog.narrowed
    }

    /// The dropped containers that no given key opens (`NeedsKey` problems): the page asks for a
    /// key for these, by name. The core module has no containers, so it has no such method.
    #[cfg(feature = "containers")]
    #[wasm_bindgen(js_name = needsKey)]
    pub fn needs_key(&self) -> Vec<String> {
        files_needing_key(&self.catalog)
    }

    /// Files that yielded no texture, with the reason.
    pub fn problems(&self) -> std::result::Result<JsValue, JsError> {
        to_js(&self.catalog.problems)
    }

    /// The tile grid of virtual texture `tex` at `mip` for VT layer `layer`, for the page's overlay:
    /// `{tile_size, tile_border, width_tiles, height_tiles, chunk, chunk_file, chunk_missing,
    /// fallback, tiles: [{x, y, morton, tile_index, offset, length, present}], width_in_blocks,
    /// height_in_blocks}`, rows top first (more than one block: a UDIM texture, whose blocks the
    /// page's views/udim.js lays out as model::tiled::TiledLayout::blocks does). `null` for a
    /// texture that is not virtual. Only the asked mip, to keep the message small.
    #[wasm_bindgen(js_name = vtGrid)]
    pub fn vt_grid(
        &self,
        tex: usize,
        mip: usize,
        layer: usize,
    ) -> std::result::Result<JsValue, JsError> {
        let Some((t, vt)) = self.virtual_texture(tex)? else {
            return Ok(JsValue::NULL);
        };
        let (m, l) = match (vt.mips.get(mip), vt.layers.get(layer)) {
            (Some(m), Some(l)) => (m, l),
            _ => {
                return Err(JsError::new(&format!(
                    "{}: the virtual texture has {} mips and {} layers; there is no mip {mip} layer {layer}",
                    t.name,
                    vt.mips.len(),
                    vt.layers.len()
                )))
            }
        };
        let (files, missing) = mip_files(&self.catalog, t, mip);
        #[derive(Serialize)]
        struct Grid {
            tile_size: u32,
            tile_border: u32,
            width_tiles: u32,
            height_tiles: u32,
            chunk: u32,
            chunk_files: Vec<String>,
            chunk_missing: Vec<String>,
            fallback: [f32; 4],
            tiles: Vec<crate::model::tiled::TileCell>,
            width_in_blocks: u32,
            height_in_blocks: u32,
        }
        to_js(&Grid {
            tile_size: vt.tile_size,
            tile_border: vt.tile_border,
            width_tiles: m.width_tiles,
            height_tiles: m.height_tiles,
            chunk: m.chunk,
            chunk_files: files,
            chunk_missing: missing,
            fallback: l.fallback,
            tiles: vt.tiles(mip, layer),
            width_in_blocks: vt.width_in_blocks,
            height_in_blocks: vt.height_in_blocks,
        })
    }

    /// Decodes one surface: `{width, height, precision: "unorm8"|"unorm16"|"float", data,
    /// stages}` with `data` a Uint8Array, Uint16Array or Float32Array of RGBA texels, rows top
    /// first, and `stages` = `[read, decode, copy out]` in ms (the page's open-path timings). With
    /// `stored`, also `stored`: the surface's stored bytes (as `surfaceBytes` gives them) from the
    /// same read, so the inspector's block mode and the GPU path do not read the mip again (not for
    /// virtual textures, which are assembled from tiles).
    pub fn decode(
        &self,
        tex: usize,
        mip: usize,
        slice: u32,
        stored: Option<bool>,
    ) -> std::result::Result<JsValue, JsValue> {
        if let Some(i) = self.asset(tex) {
            // An asset that is not a texture shows its thumbnail, whatever mip and slice.
            let _ = (mip, slice, stored);
            return self.thumbnail(i);
        }
        let opts = DecodeOptions::default();
        let virt = self.virtual_texture(tex)?.is_some();
        let t0 = now();
        let (img, read, bytes) = if virt {
            // As Catalog::decode does for a virtual texture: every tile of the mip.
            let v = self.catalog.decode_tiles(tex, mip, slice, None);
            (v.map_err(decode_error)?.image, t0, None)
        } else {
            // A tiled surface whose stored bytes are not asked for is read as stored and untiled
            // and decoded in one pass, band by band (Catalog::decode_tiled). The first module has
            // no untiler: `cfg!` leaves the branch out of it.
            let tiled = cfg!(feature = "gnf")
                && stored != Some(true)
                && self
                    .catalog
                    .texture(tex)
                    .is_ok_and(|t| !t.tiling.is_linear());
            if tiled {
                let (bytes, ..) = self
                    .catalog
                    .read_tiled_surface(tex, mip, slice)
                    .map_err(decode_error)?;
                let read = now();
                let img = self.catalog.decode_tiled(tex, mip, slice, &bytes, opts);
                (img.map_err(decode_error)?, read, None)
            } else {
                let (bytes, w, h) = self
                    .catalog
                    .read_surface(tex, mip, slice)
                    .map_err(decode_error)?;
                let read = now();
                let img = self.catalog.decode_read(tex, &bytes, w, h, opts);
                (img.map_err(decode_error)?, read, Some(bytes))
            }
        };
        let t1 = now();
        let out = image_object(&img, &[])?;
        drop(img);
        let stored = match bytes {
            Some(b) if stored == Some(true) => js_sys::Uint8Array::from(&b[..]).into(),
            _ => JsValue::NULL,
        };
        let stages = [read - t0, t1 - read, now() - t1];
        let set = |k: &str, v: JsValue| js_sys::Reflect::set(&out, &JsValue::from_str(k), &v);
        set("stored", stored)
            .and_then(|_| set("stages", js_sys::Float64Array::from(&stages[..]).into()))
            .map_err(|e| JsError::new(&js_text(&e)))?;
        Ok(out.into())
    }

    /// The tiling of virtual texture `tex` for the page's tile streamer: `{tile_size,
    /// tile_border, layers, mips: [{width, height, width_tiles, height_tiles}]}`; `null` for a
    /// texture that is not virtual. Small whatever the texture's size (no per-tile list).
    #[wasm_bindgen(js_name = vtLayout)]
    pub fn vt_layout(&self, tex: usize) -> std::result::Result<JsValue, JsError> {
        let Some((_, vt)) = self.virtual_texture(tex)? else {
            return Ok(JsValue::NULL);
        };
        #[derive(Serialize)]
        struct MipTiles {
            width: u32,
            height: u32,
            width_tiles: u32,
            height_tiles: u32,
        }
        #[derive(Serialize)]
        struct VtInfo {
            tile_size: u32,
            tile_border: u32,
            layers: usize,
            mips: Vec<MipTiles>,
        }
        to_js(&VtInfo {
            tile_size: vt.tile_size,
            tile_border: vt.tile_border,
            layers: vt.layers.len(),
            mips: vt
                .mips
                .iter()
                .map(|m| MipTiles {
                    width: m.width,
                    height: m.height,
                    width_tiles: m.width_tiles,
                    height_tiles: m.height_tiles,
                })
                .collect(),
        })
    }

    /// Decodes the `w` x `h` tiles at tile (x, y) of one mip and layer of a virtual texture
    /// (`Catalog::decode_tiles`: only those tiles' bytes are read): the image object of
    /// [`Session::decode`] plus `x`, `y` (pixel origin in the mip) and `missing` ([[tx, ty]] of
    /// cells painted with the layer's fallback colour).
    #[wasm_bindgen(js_name = decodeTiles)]
    #[allow(clippy::too_many_arguments)]
    pub fn decode_tiles(
        &self,
        tex: usize,
        mip: usize,
        layer: u32,
        x: u32,
        y: u32,
        w: u32,
        h: u32,
    ) -> std::result::Result<JsValue, JsValue> {
        let rect = crate::model::tiled::TileRect { x, y, w, h };
        let v = self
            .catalog
            .decode_tiles(tex, mip, layer, Some(rect))
            .map_err(decode_error)?;
        let out = image_object(&v.image, &v.missing)?;
        let set = |k: &str, val: JsValue| js_sys::Reflect::set(&out, &JsValue::from_str(k), &val);
        set("x", v.origin.0.into())
            .and_then(|_| set("y", v.origin.1.into()))
            .map_err(|e| JsError::new(&js_text(&e)))?;
        Ok(out.into())
    }

    /// Texture `tex` as a .dds holding its original blocks, every mip and every slice
    /// (`crate::formats::dds::export`, lossless). In the core module too (2,679 B gzipped): a DDS
    /// export used to restart the worker with the full module, which re-opens every dropped file
    /// (14 s for 10,001 files, docs/benchmarks.md).
    #[wasm_bindgen(js_name = exportDds)]
    pub fn export_dds(&self, tex: usize) -> std::result::Result<js_sys::Uint8Array, JsValue> {
        let bytes = crate::formats::dds::export(&self.catalog, tex).map_err(decode_error)?;
        Ok(js_sys::Uint8Array::from(&bytes[..]))
    }

    /// The stored (still encoded) bytes of one surface, for the inspector's block mode.
    #[wasm_bindgen(js_name = surfaceBytes)]
    pub fn surface_bytes(
        &self,
        tex: usize,
        mip: usize,
        slice: u32,
    ) -> std::result::Result<js_sys::Uint8Array, JsValue> {
        let (bytes, _, _) = self
            .catalog
            .read_surface(tex, mip, slice)
            .map_err(decode_error)?;
        Ok(js_sys::Uint8Array::from(&bytes[..]))
    }
}

/// One texture as the page's ZIP export names it (`ExportNamer`): census `file`, the asset's
/// path inside its container (`crate::export::package_path`), `name` and `class`.
#[cfg(feature = "full")]
#[derive(serde::Deserialize)]
struct ExportItem {
    file: String,
    package: Option<String>,
    name: String,
    class: String,
}

/// The CLI's export names (`crate::export`) for the page's ZIP export. Only in the full module:
/// the naming code would not fit the core module's size budget, and an export is rare enough to
/// wait for the full module once.
#[cfg(feature = "full")]
#[wasm_bindgen]
pub struct ExportNamer {
    items: Vec<ExportItem>,
    only: Vec<bool>,
    namer: crate::export::Namer,
}

#[cfg(feature = "full")]
#[wasm_bindgen]
impl ExportNamer {
    /// `items`: every texture of the catalog, `[{file, package, name, class}]`, in catalog order
    /// (a file holding one texture named after it gives its image beside it).
    #[wasm_bindgen(constructor)]
    pub fn new(items: JsValue) -> std::result::Result<ExportNamer, JsError> {
        let items: Vec<ExportItem> =
            serde_wasm_bindgen::from_value(items).map_err(|e| JsError::new(&e.to_string()))?;
        let mut count = std::collections::BTreeMap::new();
        for it in &items {
            *count.entry((&it.file, &it.package)).or_insert(0usize) += 1;
        }
        let only = items
            .iter()
            .map(|it| count.get(&(&it.file, &it.package)) == Some(&1))
            .collect();
        Ok(ExportNamer {
            items,
            only,
            namer: crate::export::Namer::new(crate::export::unicode_fold),
        })
    }

    /// The path of item `i`'s image whose name ends in `ending` (`.png`, `__s0.png`, `.dds`):
    /// `{path, warning}`, `warning` set when the name was taken. Call in census order, once the
    /// image is made, as `texscope export` does.
    pub fn place(&mut self, i: usize, ending: &str) -> std::result::Result<JsValue, JsError> {
        let it = self
            .items
            .get(i)
            .ok_or_else(|| JsError::new(&format!("there is no texture {i}")))?;
        let source: Vec<String> = it
            .file
            .split('/')
            .filter(|c| !c.is_empty())
            .map(String::from)
            .collect();
        let target = crate::export::target(
            &source,
            it.package.as_deref(),
            (&it.name, &it.class),
            self.only[i],
            crate::export::unicode_fold,
        );
        let placed = self.namer.place(
            &target,
            &[ending.to_string()],
            &format!("{}: {}", it.file, it.name),
        );
        #[derive(serde::Serialize)]
        struct Named {
            path: String,
            warning: Option<String>,
        }
        to_js(&Named {
            path: placed.paths.into_iter().next().unwrap_or_default(),
            warning: placed.warning,
        })
    }
}

/// `{width, height, precision: "unorm8"|"unorm16"|"float", data, missing}` for the page, `data` a
/// Uint8Array, Uint16Array or Float32Array of RGBA texels, rows top first.
fn image_object(
    img: &crate::Image,
    missing: &[(u32, u32)],
) -> std::result::Result<js_sys::Object, JsError> {
    let (precision, data): (&str, JsValue) = match &img.pixels {
        Pixels::Rgba8(p) => ("unorm8", js_sys::Uint8Array::from(&p[..]).into()),
        Pixels::Rgba16(p) => ("unorm16", js_sys::Uint16Array::from(&p[..]).into()),
        Pixels::Rgba32F(p) => ("float", js_sys::Float32Array::from(&p[..]).into()),
    };
    let out = js_sys::Object::new();
    let set = |k: &str, v: JsValue| js_sys::Reflect::set(&out, &JsValue::from_str(k), &v);
    set("width", img.width.into())
        .and_then(|_| set("height", img.height.into()))
        .and_then(|_| set("precision", precision.into()))
        .and_then(|_| set("data", data))
        .and_then(|_| set("missing", to_js(&missing).unwrap_or(JsValue::NULL)))
        .map_err(|e| JsError::new(&js_text(&e)))?;
    Ok(out)
}

#[derive(Serialize)]
struct ProfileInfo {
    name: &'static str,
    games: &'static str,
    default: bool,
}

/// The Frostbite format profiles for the page's chooser: `[{name, games, default}]`.
#[wasm_bindgen(js_name = frostbiteProfiles)]
pub fn frostbite_profiles() -> std::result::Result<JsValue, JsError> {
    let list: Vec<ProfileInfo> = crate::frostbite::render_format::PROFILES
        .iter()
        .map(|p| ProfileInfo {
            name: p.name,
            games: p.games,
            default: p.name == crate::frostbite::render_format::DEFAULT_PROFILE,
        })
        .collect();
    to_js(&list)
}

/// The files of demo `id` (see `crate::fixtures::demo`); only the full module has them: the page fetches
/// the files `scripts/demos.mjs` wrote with it at build time.
#[cfg(feature = "demos")]
/// The files of demo `id` (see `crate::fixtures::demo`): an array of `{name, data: Uint8Array}` that the page
/// opens as if they had been dropped.
#[wasm_bindgen(js_name = demoFiles)]
pub fn demo_files(id: &str) -> std::result::Result<js_sys::Array, JsError> {
    install_panic_hook();
    let files = crate::fixtures::demo::files(id).map_err(|e| JsError::new(&e.to_string()))?;
    let out = js_sys::Array::new();
    for (name, bytes) in files {
        let f = js_sys::Object::new();
        js_sys::Reflect::set(&f, &"name".into(), &name.into())
            .and_then(|_| {
                js_sys::Reflect::set(&f, &"data".into(), &js_sys::Uint8Array::from(&bytes[..]))
            })
            .map_err(|e| JsError::new(&js_text(&e)))?;
        out.push(&f);
    }
    Ok(out)
}

/// The ids of the demos, in gallery order (`crate::fixtures::demo::IDS`), for `scripts/demos.mjs`.
#[cfg(feature = "demos")]
#[wasm_bindgen(js_name = demoIds)]
pub fn demo_ids() -> Vec<String> {
    crate::fixtures::demo::IDS
        .iter()
        .map(|s| s.to_string())
        .collect()
}

/// The keys in `text`: one key (0x-hex or base64) or the text of a JSON key file (by container
/// GUID, as FModel users keep them). The error says what is wrong with the text, never the text.
#[cfg(feature = "containers")]
fn parse_keys(text: &str) -> std::result::Result<crate::io::aes::Keys, JsError> {
    use crate::io::aes::{AesKey, Keys};
    let text = text.trim();
    let keys = if text.starts_with('{') {
        Keys::parse_json(text).map_err(|e| JsError::new(&e.message))?
    } else {
        let mut k = Keys::default();
        k.push(
            None,
            AesKey::parse(text).map_err(|e| JsError::new(&e.message))?,
        );
        k
    };
    if keys.is_empty() {
        return Err(JsError::new("the AES key file holds no key"));
    }
    Ok(keys)
}

/// The files of `cat` that no given key opens (`NeedsKey` problems), each once.
#[cfg(feature = "containers")]
fn files_needing_key(cat: &crate::Catalog) -> Vec<String> {
    let mut files: Vec<String> = Vec::new();
    for p in &cat.problems {
        if p.kind == crate::io::ErrorKind::NeedsKey && !files.contains(&p.file) {
            files.push(p.file.clone());
        }
    }
    files
}
