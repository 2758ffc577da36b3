//! `Catalog::add_with_progress` (issue 34: the page's drop shows the open as done of total): each
//! file's first bytes are counted once as they are read, then each engine pass, in order, and
//! the catalog is the one `open` gives. The files are the standard DDS fixtures
//! (tests/dds_fixtures), every one a texture by construction.

mod dds_fixtures;

use std::sync::Arc;

use texscope::io::BytesSource;
use texscope::{open, OpenOptions, OpenStage, SourceRef};

#[test]
fn an_open_counts_each_file_once_then_every_engine_pass() {
    let set = dds_fixtures::standard_set();
    let sources: Vec<SourceRef> = set
        .iter()
        .map(|fx| Arc::new(BytesSource::new(fx.file.clone(), fx.bytes())) as SourceRef)
        .collect();
    let n = sources.len();
    let mut steps = Vec::new();
    let empty = open(Vec::new(), &OpenOptions::default());
    let cat = empty.add_with_progress(sources.clone(), &mut |stage, done, total| {
        steps.push((stage, done, total))
    });
    let probed: Vec<_> = steps.iter().filter(|s| s.0 == OpenStage::Probed).collect();
    let passes: Vec<_> = steps.iter().filter(|s| s.0 == OpenStage::Engines).collect();
    // One step a file, 1..=n of n, all before the first pass ends (the DDS probe reads every
    // file's head).
    assert_eq!(
        probed.iter().map(|s| (s.1, s.2)).collect::<Vec<_>>(),
        (1..=n).map(|k| (k, n)).collect::<Vec<_>>()
    );
    assert_eq!(steps[n].0, OpenStage::Engines);
    // Every engine pass once, in order, of the same total (src/lib.rs OPENERS: 8 readers, GNF the newest).
    let total = passes[0].2;
    assert_eq!(total, 8);
    assert_eq!(
        passes.iter().map(|s| (s.1, s.2)).collect::<Vec<_>>(),
        (1..=total).map(|k| (k, total)).collect::<Vec<_>>()
    );
    // Telling progress changes nothing of the catalog.
    let plain = open(sources, &OpenOptions::default());
    assert_eq!(cat.textures.len(), n);
    let census = |c: &texscope::Catalog| -> Vec<String> {
        c.textures.iter().map(|t| t.census().to_string()).collect()
    };
    assert_eq!(census(&cat), census(&plain));
}
