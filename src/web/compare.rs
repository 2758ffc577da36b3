//! The compare view's glue (issue 21): two surfaces of the open files compared
//! ([`Session::compare`]), and two builds opened side by side, paired and classified
//! ([`Builds`]). Conversions only: figures, mip matching, pairing and classification are
//! `crate::compare`'s.

use super::{decode_error, js_text, to_js, Session, WebFile};
use crate::compare::build::{self, classify, Key, Verdict};
use crate::compare::{figures, plan, resample};
use crate::io::{Result, SourceRef};
use crate::{open, Catalog, DecodeOptions, OpenOptions};
use serde::Serialize;
use std::sync::Arc;
use wasm_bindgen::prelude::*;
use web_sys::File;

/// One side of a comparison: a texture of a catalog and the mip and slice asked for.
struct Pick<'a> {
    cat: &'a Catalog,
    tex: usize,
    mip: Option<usize>,
    slice: u32,
}

/// `{plan, figures, a, b}`: the plan (which mips; B scaled to A?), the figures of B against A, and
/// both decoded surfaces as the page's image objects (B already at A's size when scaled).
fn compare_object(a: Pick, b: Pick) -> std::result::Result<JsValue, JsValue> {
    let sizes = |p: &Pick| -> Result<Vec<(u32, u32)>> {
        let t =
            p.cat.textures.get(p.tex).ok_or_else(|| {
                crate::io::Error::malformed(format!("there is no texture {}", p.tex))
            })?;
        Ok(t.mips.iter().map(|m| (m.width, m.height)).collect())
    };
    let (sa, sb) = (
        sizes(&a).map_err(decode_error)?,
        sizes(&b).map_err(decode_error)?,
    );
    let p = plan(&sa, a.mip.unwrap_or(0), &sb, b.mip).ok_or_else(|| {
        JsError::new(&format!(
            "A has {} mips and B {}: there is no such mip to compare",
            sa.len(),
            sb.len()
        ))
    })?;
    let opts = DecodeOptions::default();
    let img_a = a
        .cat
        .decode(a.tex, p.a_mip, a.slice, opts)
        .map_err(decode_error)?;
    let mut img_b = b
        .cat
        .decode(b.tex, p.b_mip, b.slice, opts)
        .map_err(decode_error)?;
    if p.scaled {
        img_b =
            resample(&img_b, img_a.width, img_a.height, a.cat.limits()).map_err(decode_error)?;
    }
    let f = figures(&img_a, &img_b, 0.0).map_err(decode_error)?;
    let out = js_sys::Object::new();
    let set = |k: &str, v: JsValue| js_sys::Reflect::set(&out, &JsValue::from_str(k), &v);
    set("plan", to_js(&p)?)
        .and_then(|_| set("figures", to_js(&f).unwrap_or(JsValue::NULL)))
        .and_then(|_| {
            set(
                "a",
                super::image_object(&img_a, &[])
                    .map(Into::into)
                    .unwrap_or(JsValue::NULL),
            )
        })
        .and_then(|_| {
            set(
                "b",
                super::image_object(&img_b, &[])
                    .map(Into::into)
                    .unwrap_or(JsValue::NULL),
            )
        })
        .map_err(|e| JsError::new(&js_text(&e)))?;
    Ok(out.into())
}

#[wasm_bindgen]
impl Session {
    /// Compares texture `b` (mip `b_mip`, or the mip of A's size when `None`: see
    /// `compare::plan`) against texture `a` at `a_mip`, slices as given: `{plan, figures, a, b}`.
    pub fn compare(
        &self,
        a: usize,
        a_mip: usize,
        a_slice: u32,
        b: usize,
        b_mip: Option<usize>,
        b_slice: u32,
    ) -> std::result::Result<JsValue, JsValue> {
        let pick = |tex, mip, slice| Pick {
            cat: &self.catalog,
            tex,
            mip,
            slice,
        };
        compare_object(pick(a, Some(a_mip), a_slice), pick(b, b_mip, b_slice))
    }
}

/// The colour ramp of the difference view (`compare::ramp`) at 256 steps, as R, G, B bytes, so
/// the page paints differences with the core's ramp.
#[wasm_bindgen(js_name = diffRamp)]
pub fn diff_ramp() -> Vec<u8> {
    (0..256)
        .flat_map(|i| crate::compare::ramp(i as f32 / 255.0))
        .collect()
}

/// Two builds opened apart (their files may share names), their textures paired by key.
#[wasm_bindgen]
pub struct Builds {
    old: Catalog,
    new: Catalog,
    pairs: Vec<(Key, Option<usize>, Option<usize>)>,
}

#[derive(Serialize)]
struct PairInfo {
    path: String,
    name: String,
    /// "added", "removed", or "pending" (both sides present, not yet classified).
    status: &'static str,
    old: Option<usize>,
    new: Option<usize>,
    old_census: Option<serde_json::Value>,
    new_census: Option<serde_json::Value>,
}

#[derive(Serialize)]
struct Classified {
    /// "unchanged" or "changed".
    status: &'static str,
    changes: Vec<build::Change>,
    error: Option<String>,
}

/// The files of one build, each named by `names` (its path inside the build, as the page gives
/// it: a dropped folder's relative path without the folder itself) where given.
fn sources(files: Vec<File>, names: Vec<String>) -> std::result::Result<Vec<SourceRef>, JsError> {
    let mut out: Vec<SourceRef> = Vec::with_capacity(files.len());
    let mut names = names.into_iter();
    for f in files {
        let name = names.next();
        let src = WebFile::new(f, name.as_deref()).map_err(|e| JsError::new(&e.to_string()))?;
        // Each worker owns its Builds and the Files in it; nothing crosses threads.
        #[allow(clippy::arc_with_non_send_sync)]
        out.push(Arc::new(src));
    }
    Ok(out)
}

/// The keys in every text of `texts` (each a key or a key file's text, see `super::parse_keys`).
#[cfg(feature = "containers")]
fn all_keys(texts: &[String]) -> std::result::Result<crate::io::aes::Keys, JsError> {
    let mut all = crate::io::aes::Keys::default();
    for t in texts {
        all.0.extend(super::parse_keys(t)?.0);
    }
    Ok(all)
}

#[wasm_bindgen]
impl Builds {
    /// Opens the OLD and the NEW files (each set on its own, as the CLI opens two folders) and
    /// pairs their textures. `old_names` and `new_names` name the files by their paths inside
    /// their build (what textures are keyed by; "" keeps a file's own name). `keys`: AES keys (or
    /// key files' text) for encrypted containers of either build; text that holds no key is an
    /// error naming what is wrong, never the text. Keys stay in this worker's memory.
    #[wasm_bindgen(constructor)]
    pub fn new(
        old: Vec<File>,
        old_names: Vec<String>,
        new: Vec<File>,
        new_names: Vec<String>,
        keys: Vec<String>,
    ) -> std::result::Result<Builds, JsError> {
        super::install_panic_hook();
        #[cfg(feature = "containers")]
        let options = OpenOptions {
            aes_keys: all_keys(&keys)?,
            ..OpenOptions::default()
        };
        // Without containers there is nothing a key could open.
        #[cfg(not(feature = "containers"))]
        let options = {
            let _ = keys;
            OpenOptions::default()
        };
        let old = open(sources(old, old_names)?, &options);
        let new = open(sources(new, new_names)?, &options);
        let index = |cat: &Catalog, root: &str| -> Vec<(Key, usize)> {
            build::keys(&cat.textures, root)
                .into_iter()
                .enumerate()
                .map(|(i, k)| (k, i))
                .collect()
        };
        // The names are already relative to their build's root.
        let pairs = build::pair(index(&old, ""), index(&new, ""));
        Ok(Builds { old, new, pairs })
    }

    /// Every pair in key order: `[{path, name, status, old, new, old_census, new_census}]`,
    /// `status` "added", "removed" or "pending" (call `classify`).
    pub fn pairs(&self) -> std::result::Result<JsValue, JsError> {
        let list: Vec<PairInfo> = self
            .pairs
            .iter()
            .map(|(k, o, n)| PairInfo {
                path: k.path.clone(),
                name: k.name.clone(),
                status: match (o, n) {
                    (Some(_), None) => "removed",
                    (None, Some(_)) => "added",
                    _ => "pending",
                },
                old: *o,
                new: *n,
                old_census: o.map(|i| self.old.textures[i].census()),
                new_census: n.map(|i| self.new.textures[i].census()),
            })
            .collect();
        to_js(&list)
    }

    /// The containers of either side that no given key opens: `{old: [...], new: [...]}` (file
    /// names).
    #[wasm_bindgen(js_name = needsKey)]
    pub fn needs_key(&self) -> std::result::Result<JsValue, JsError> {
        #[derive(Serialize)]
        struct Both {
            old: Vec<String>,
            new: Vec<String>,
        }
        #[cfg(feature = "containers")]
        let both = Both {
            old: super::files_needing_key(&self.old),
            new: super::files_needing_key(&self.new),
        };
        #[cfg(not(feature = "containers"))]
        let both = Both {
            old: Vec::new(),
            new: Vec::new(),
        };
        to_js(&both)
    }

    /// Files of either side that yielded no texture: `{old: [...], new: [...]}`.
    pub fn problems(&self) -> std::result::Result<JsValue, JsError> {
        #[derive(Serialize)]
        struct Both<'a> {
            old: &'a [crate::FileProblem],
            new: &'a [crate::FileProblem],
        }
        to_js(&Both {
            old: &self.old.problems,
            new: &self.new.problems,
        })
    }

    /// How many pairs there are.
    #[wasm_bindgen(js_name = pairCount)]
    pub fn pair_count(&self) -> usize {
        self.pairs.len()
    }

    /// Classifies pair `i` from its stored bytes, without decoding: `{status: "unchanged" |
    /// "changed" | "added" | "removed", changes, error}`.
    pub fn classify(&self, i: usize) -> std::result::Result<JsValue, JsError> {
        let one_sided = |status| Classified {
            status,
            changes: Vec::new(),
            error: None,
        };
        match self.pairs.get(i) {
            Some((_, Some(_), None)) => return to_js(&one_sided("removed")),
            Some((_, None, Some(_))) => return to_js(&one_sided("added")),
            _ => {}
        }
        let (o, n) = self.both(i)?;
        let c = match classify(&self.old, o, &self.new, n) {
            Ok(Verdict::Unchanged) => Classified {
                status: "unchanged",
                changes: Vec::new(),
                error: None,
            },
            Ok(Verdict::Changed(changes)) => Classified {
                status: "changed",
                changes,
                error: None,
            },
            Err(e) => Classified {
                status: "changed",
                changes: Vec::new(),
                error: Some(e.to_string()),
            },
        };
        to_js(&c)
    }

    /// Compares pair `i` as `Session.compare` does, OLD as A: mip `mip` of OLD, the matching mip
    /// of NEW, slice `slice` of both.
    pub fn compare(
        &self,
        i: usize,
        mip: usize,
        slice: u32,
    ) -> std::result::Result<JsValue, JsValue> {
        let (o, n) = self.both(i)?;
        compare_object(
            Pick {
                cat: &self.old,
                tex: o,
                mip: Some(mip),
                slice,
            },
            Pick {
                cat: &self.new,
                tex: n,
                mip: None,
                slice,
            },
        )
    }

    fn both(&self, i: usize) -> std::result::Result<(usize, usize), JsError> {
        match self.pairs.get(i) {
            Some((_, Some(o), Some(n))) => Ok((*o, *n)),
            Some((k, ..)) => Err(JsError::new(&format!(
                "{} ({}) is only in one build: there is nothing to compare it with",
                k.name, k.path
            ))),
            None => Err(JsError::new(&format!("there is no pair {i}"))),
        }
    }
}
