//! Unity: serialized files (loose, or inside UnityFS / UnityWeb / UnityWebData bundles), their
//! Texture2D / Cubemap objects, and the .resS / .resource streams that hold their pixels
//! (seed 004).

pub mod bundle;
pub mod layout;
pub mod serialized;
pub mod texture;
pub mod typetree;
pub mod wrapped;

use crate::io::{Error, Result, SourceRef};
use crate::model::{Engine, SourceId};
use crate::{base_name, FileProblem, OpenContext};

/// A serialized file found among the opened files or inside a bundle, with what its textures
/// need to resolve their streams.
pub struct Found {
    /// The user file it came from (a bundle, or itself).
    pub file: String,
    /// Its own name (the bundle entry path, or the file name).
    pub name: String,
    pub source: SourceId,
    /// Unity version from the enclosing bundle (or, for loose files, another file of the drop),
    /// used when the file's own header has none.
    pub bundle_version: Option<String>,
    /// Where `bundle_version` came from, for the info panel.
    pub version_source: &'static str,
    /// Other entries of the same bundle, by base name (for `archive:/CAB-…/CAB-….resS`).
    pub siblings: Vec<(String, SourceId)>,
    pub container: Option<String>,
}

/// How deep bundles may nest (a WebGL .data holds a data.unity3d bundle).
const MAX_NESTING: u32 = 2;

pub fn open(ctx: &mut OpenContext) {
    let mut found = Vec::new();
    let mut streams = Vec::new();
    for i in ctx.unclaimed() {
        let src = ctx.sources[i].clone();
        let name = src.name().to_string();
        let head = match ctx.head(i, 64) {
            Ok(h) => h,
            Err(_) => continue,
        };
        if bundle::sniff(&head).is_some() {
            ctx.claimed[i] = true;
            let before = found.len();
            let opened = open_bundle(ctx, &name, &src, 0, "", &mut found).and_then(|()| {
                if found.len() > before {
                    return Ok(());
                }
                Err(Error::not_recognised(
                    "a Unity bundle with no serialized file in it",
                ))
            });
            if let Err(e) = opened {
                ctx.problems.push(FileProblem::new(
                    &name,
                    Some(Engine::Unity),
                    &e.in_file(&name),
                ));
            }
        } else if serialized::sniff(&head, src.len()) {
            ctx.claimed[i] = true;
            found.push(Found {
                file: name.clone(),
                name: base_name(&name).to_string(),
                source: i,
                bundle_version: None,
                version_source: "",
                siblings: Vec::new(),
                container: None,
            });
        } else if let Some(w) = wrapped::sniff(&name, &head) {
            // Only a compressed Unity container is ours; other gzip files stay for others.
            let inner = ctx.memo(&src, "unity: probe", |ctx| {
                Ok(wrapped::probe(src.as_ref(), w, 64, &ctx.limits))
            });
            if inner
                .ok()
                .flatten()
                .as_deref()
                .and_then(bundle::sniff)
                .is_none()
            {
                continue;
            }
            ctx.claimed[i] = true;
            let label = format!("{}-compressed ", w.name());
            let res = ctx
                .memo(&src, "unity: unwrapped", |ctx| {
                    wrapped::unwrap(&src, w, &ctx.limits)
                })
                .and_then(|inner| {
                    ctx.add_source(inner.clone());
                    open_bundle(ctx, &name, &inner, 0, &label, &mut found)
                });
            if let Err(e) = res {
                ctx.problems.push(FileProblem::new(
                    &name,
                    Some(Engine::Unity),
                    &e.in_file(&name),
                ));
            }
        } else if is_stream_name(&name) {
            ctx.claimed[i] = true;
            streams.push(i);
        }
    }
    // A loose file whose header carries no Unity version (written "0.0.0" by some builds) takes
    // the version of another file of the same drop (issue 4), as files inside a bundle take the
    // bundle's.
    if let Some(v) = found
        .iter()
        .filter(|f| f.bundle_version.is_none())
        .find_map(|f| {
            let sf = serialized::parse(ctx.sources[f.source].as_ref(), &ctx.limits).ok()?;
            let v = sf.unity_version.trim().to_string();
            (!v.is_empty() && !v.starts_with("0.0")).then_some(v)
        })
    {
        for f in found.iter_mut().filter(|f| f.bundle_version.is_none()) {
            f.bundle_version = Some(v.clone());
            f.version_source = "another file of the drop";
        }
    }
    // When no file says, the version the user chose (OpenOptions::unity_version).
    if let Some(v) = ctx.unity_version.as_deref().map(str::trim) {
        for f in found.iter_mut().filter(|f| f.bundle_version.is_none()) {
            f.bundle_version = Some(v.to_string());
            f.version_source = "your choice (unity version option)";
        }
    }
    let mut used = vec![false; ctx.sources.len()];
    let mut i = 0;
    while i < found.len() {
        // The serialized files of one user file are next to each other in `found`.
        let file = found[i].file.clone();
        let (t0, p0) = (ctx.textures.len(), ctx.problems.len());
        let mut files = 0;
        while i < found.len() && found[i].file == file {
            texture::list(ctx, &found[i], &mut used);
            i += 1;
            files += 1;
        }
        if ctx.textures.len() == t0 && ctx.problems.len() == p0 {
            let e = Error::not_recognised(format!(
                "a Unity file with {files} serialized file(s) and no Texture2D or Cubemap in them"
            ));
            ctx.problems.push(FileProblem::new(
                &file,
                Some(Engine::Unity),
                &e.in_file(&file),
            ));
        }
    }
    for i in streams {
        if !used.get(i).copied().unwrap_or(false) {
            let name = ctx.sources[i].name().to_string();
            let owner = owner_of_stream(base_name(&name));
            let e = Error::missing_sibling(
                &owner,
                format_args!(
                    "the serialized file whose textures {} holds",
                    base_name(&name)
                ),
            )
            .in_file(&name);
            ctx.problems
                .push(FileProblem::new(&name, Some(Engine::Unity), &e));
        }
    }
}

/// The opened user file named `base` (case-insensitively), preferring one in the same folder as
/// `owner` when several folders were dropped together (two builds' `level0.resS`).
pub fn find_sibling(ctx: &OpenContext, owner: &str, base: &str) -> Option<usize> {
    let dir = |p: &str| p[..p.len() - base_name(p).len()].to_string();
    let want = dir(owner);
    let hits: Vec<usize> = (0..ctx.claimed.len())
        .filter(|&i| base_name(ctx.sources[i].name()).eq_ignore_ascii_case(base))
        .collect();
    hits.iter()
        .copied()
        .find(|&i| dir(ctx.sources[i].name()) == want)
        .or_else(|| hits.first().copied())
}

/// `.resS` and `.resource` files hold pixels for a serialized file; they are read through it.
fn is_stream_name(name: &str) -> bool {
    let lower = base_name(name).to_ascii_lowercase();
    lower.ends_with(".ress") || lower.ends_with(".resource")
}

/// `sharedassets0.assets.resS` belongs to `sharedassets0.assets`, `level0.resS` to `level0`.
fn owner_of_stream(stream: &str) -> String {
    match stream.rfind('.') {
        Some(i) => stream[..i].to_string(),
        None => stream.to_string(),
    }
}

fn open_bundle(
    ctx: &mut OpenContext,
    file: &str,
    src: &SourceRef,
    depth: u32,
    wrapping: &str,
    found: &mut Vec<Found>,
) -> Result<()> {
    let c = ctx.memo(src, "unity: bundle", |ctx| bundle::open(src, &ctx.limits))?;
    let container = format!("{wrapping}{} format {}", c.signature, c.format_version);
    let mut ids = Vec::with_capacity(c.entries.len());
    for e in &c.entries {
        ids.push((
            base_name(&e.path).to_string(),
            ctx.add_source(e.source.clone()),
        ));
    }
    // An entry that cannot be read (a block that does not decompress) is skipped, but its error
    // is the bundle's when no other entry yields a serialized file.
    let mut unreadable = None;
    let before = found.len();
    for (e, (_, id)) in c.entries.iter().zip(&ids) {
        let head = match ctx.head(*id, 64) {
            Ok(h) => h,
            Err(err) => {
                unreadable.get_or_insert(err.at_field(&format!("bundle entry {}", e.path)));
                continue;
            }
        };
        if bundle::sniff(&head).is_some() {
            if depth >= MAX_NESTING {
                return Err(Error::malformed(format!(
                    "{} nests bundles deeper than {MAX_NESTING} levels",
                    e.path
                )));
            }
            open_bundle(ctx, file, &e.source, depth + 1, wrapping, found)?;
        } else if serialized::sniff(&head, e.source.len()) {
            found.push(Found {
                file: file.to_string(),
                name: e.path.clone(),
                source: *id,
                bundle_version: (!c.unity_version.is_empty()).then(|| c.unity_version.clone()),
                version_source: "the bundle",
                siblings: ids.clone(),
                container: Some(container.clone()),
            });
        }
    }
    match unreadable {
        Some(e) if found.len() == before => Err(e),
        _ => Ok(()),
    }
}
