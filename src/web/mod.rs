//! wasm-bindgen glue for the page's decode worker: a [`Source`] over a browser `File` and a
//! [`Session`] handle over a [`Catalog`]. Conversions only; every decision lives in the core.

mod bench;

use crate::io::{Error, Result, Source, SourceRef};
use crate::{open, Catalog, DecodeOptions, OpenOptions, Pixels, Texture};
use serde::Serialize;
use std::sync::{Arc, Mutex};
use wasm_bindgen::prelude::*;
use web_sys::{File, FileReaderSync};

/// A dropped file read by byte range. `FileReaderSync` over `File.slice()` is synchronous (only in
/// a dedicated worker), which keeps the core's `Source` synchronous; only the asked range is read.
struct WebFile {
    name: String,
    file: File,
    len: u64,
    reader: FileReaderSync,
}

impl WebFile {
    fn new(file: File) -> Result<WebFile> {
        let name = file.name();
        let reader = FileReaderSync::new()
            .map_err(|e| Error::io(format!("cannot read files here ({})", js_text(&e))))?;
        // File.size is a double; sizes above 2^53 cannot be represented by the browser anyway.
        let len = file.size() as u64;
        Ok(WebFile {
            name,
            file,
            len,
            reader,
        })
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
        let end = offset
            .checked_add(buf.len() as u64)
            .filter(|&e| e <= self.len)
            .ok_or_else(|| Error::truncated(offset, buf.len() as u64, self.len))?;
        let failed =
            |e: JsValue| Error::io(format!("the browser could not read it ({})", js_text(&e)));
        let blob = self
            .file
            .slice_with_f64_and_f64(offset as f64, end as f64)
            .map_err(failed)?;
        let bytes = self.reader.read_as_array_buffer(&blob).map_err(failed)?;
        let view = js_sys::Uint8Array::new(&bytes);
        if view.length() as usize != buf.len() {
            return Err(Error::io(format!(
                "the browser returned {} bytes at offset {offset} where {} were asked for (was the file changed on disk?)",
                view.length(),
                buf.len()
            )));
        }
        view.copy_to(buf);
        Ok(())
    }
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
}

#[derive(Serialize)]
struct TextureInfo<'a> {
    index: usize,
    census: serde_json::Value,
    color_space: crate::model::ColorSpace,
    normal_map: Option<crate::model::NormalEncoding>,
    precision: crate::Precision,
    gpu_bytes: u64,
    metadata: &'a [(String, String)],
    notes: &'a [String],
    mips: Vec<MipInfo<'a>>,
}

fn texture_info(index: usize, t: &Texture) -> TextureInfo<'_> {
    TextureInfo {
        index,
        census: t.census(),
        color_space: t.color_space,
        normal_map: t.normal_map,
        precision: t.format.precision(),
        gpu_bytes: t.gpu_bytes(),
        metadata: &t.metadata,
        notes: &t.notes,
        mips: t
            .mips
            .iter()
            .enumerate()
            .map(|(i, m)| MipInfo {
                width: m.width,
                height: m.height,
                depth: m.depth,
                surfaces: t.surface_count(i),
                present: m.is_present(),
                location_note: &m.location_note,
            })
            .collect(),
    }
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
    /// textures that waited for it.
    pub fn add(&mut self, files: Vec<File>) -> std::result::Result<(), JsError> {
        let mut more: Vec<SourceRef> = Vec::with_capacity(files.len());
        for f in files {
            let src = WebFile::new(f).map_err(|e| JsError::new(&e.to_string()))?;
            // Each worker owns its Session and the Files in it; nothing crosses threads.
            #[allow(clippy::arc_with_non_send_sync)]
            more.push(Arc::new(src));
        }
        self.catalog = self.catalog.add(more);
        Ok(())
    }

    /// Every texture found, with its census record, mips (size, presence, where they live) and
    /// metadata for the info panel.
    pub fn textures(&self) -> std::result::Result<JsValue, JsError> {
        let list: Vec<TextureInfo> = self
            .catalog
            .textures
            .iter()
            .enumerate()
            .map(|(i, t)| texture_info(i, t))
            .collect();
        to_js(&list)
    }

    /// Files that yielded no texture, with the reason.
    pub fn problems(&self) -> std::result::Result<JsValue, JsError> {
        to_js(&self.catalog.problems)
    }

    /// Decodes one surface: `{width, height, precision: "unorm8"|"unorm16"|"float", data}` with
    /// `data` a Uint8Array, Uint16Array or Float32Array of RGBA texels, rows top first.
    pub fn decode(
        &self,
        tex: usize,
        mip: usize,
        slice: u32,
    ) -> std::result::Result<JsValue, JsError> {
        let img = self
            .catalog
            .decode(tex, mip, slice, DecodeOptions::default())
            .map_err(|e| JsError::new(&e.to_string()))?;
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
            .map_err(|e| JsError::new(&js_text(&e)))?;
        Ok(out.into())
    }
}

/// The files of demo `id` (see `crate::demo`): an array of `{name, data: Uint8Array}` that the page
/// opens as if they had been dropped.
#[wasm_bindgen(js_name = demoFiles)]
pub fn demo_files(id: &str) -> std::result::Result<js_sys::Array, JsError> {
    install_panic_hook();
    let files = crate::demo::files(id).map_err(|e| JsError::new(&e.to_string()))?;
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
