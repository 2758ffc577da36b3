//! The shared Unreal editor samples' manifest (`unreal-editor/MANIFEST.tsv`, its columns named in
//! MANIFEST.md), read in place. Standard library only: the library's unit tests
//! (src/unreal/editor_samples.rs), tests/unreal_editor.rs and examples/fuzz_seeds.rs each include
//! this one file by path. A missing sample folder fails the test that needs it.
#![allow(dead_code)]

use std::path::PathBuf;

/// `../shared/samples/unreal-editor` beside the checkout, else the machine's shared folder.
pub fn root() -> PathBuf {
    let rel = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared/samples/unreal-editor");
    if rel.exists() {
        rel
    } else {
        PathBuf::from("/work/shared/samples/unreal-editor")
    }
}

/// One manifest row (MANIFEST.md names the columns).
#[derive(Debug, Clone)]
pub struct Row {
    /// The package's path under the sample folder.
    pub file: PathBuf,
    pub engine: String,
    pub class: String,
    pub source_format: String,
    pub compression: String,
    pub storage: String,
    /// ("jpeg" | "png", width, height).
    pub thumbnail: (String, u32, u32),
    /// The original image committed beside the package, if any.
    pub original: Option<PathBuf>,
}

pub fn rows() -> Vec<Row> {
    let root = root();
    let text = std::fs::read_to_string(root.join("MANIFEST.tsv")).expect("MANIFEST.tsv");
    text.lines()
        .skip(1)
        .filter(|l| !l.trim().is_empty())
        .map(|l| {
            let c: Vec<&str> = l.split('\t').collect();
            let dir = root.join(c[0].replace('/', "+"));
            let (kind, size) = c[10].split_once(' ').expect("thumbnail column");
            let (w, h) = size.split_once('x').expect("thumbnail size");
            Row {
                file: dir.join(c[2]),
                engine: c[5].to_string(),
                class: c[6].to_string(),
                source_format: c[7].to_string(),
                compression: c[8].to_string(),
                storage: c[9].to_string(),
                thumbnail: (kind.to_string(), w.parse().unwrap(), h.parse().unwrap()),
                original: c.get(11).filter(|s| !s.is_empty()).map(|p| dir.join(p)),
            }
        })
        .collect()
}

/// The rows of UE5 packages (engine 5.x).
pub fn ue5_rows() -> Vec<Row> {
    rows()
        .into_iter()
        .filter(|r| r.engine.starts_with("5."))
        .collect()
}
