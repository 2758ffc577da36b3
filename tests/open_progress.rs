//! `Catalog::add_with_progress` (issue 34: the page's drop shows the open as done of total): each
//! file's first bytes are counted once as they are read, then each engine pass, in order, and
//! the catalog is the one `open` gives. The files are the standard DDS fixtures
//! (tests/dds_fixtures), every one a texture by construction. Inside the Unreal pass a real
//! container drop tells its indexes read and its packages looked at and read (a UE 5.8 IoStore
//! container of the CUE4Parse fixtures, ../shared/samples/unreal/cue4parse-fixtures).

mod common;
mod dds_fixtures;

use std::sync::Arc;

use texscope::io::{BytesSource, FileSource};
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

/// The steps of `stage` seen, as (done, total).
fn of(steps: &[(OpenStage, usize, usize)], stage: OpenStage) -> Vec<(usize, usize)> {
    steps
        .iter()
        .filter(|s| s.0 == stage)
        .map(|s| (s.1, s.2))
        .collect()
}

#[test]
fn a_container_tells_its_index_and_packages_inside_the_unreal_pass() {
    let dir = common::samples().join("unreal/cue4parse-fixtures/UE5_8/IoStore/Tagged/Oodle");
    let stem = dir.join("CUE4ParseFixtures-Minimal-Oodle-Windows");
    let sources: Vec<SourceRef> = ["utoc", "ucas"]
        .iter()
        .map(|ext| Arc::new(FileSource::open(&stem.with_extension(ext)).unwrap()) as SourceRef)
        .collect();
    let mut steps = Vec::new();
    let empty = open(Vec::new(), &OpenOptions::default());
    let cat = empty.add_with_progress(sources.clone(), &mut |stage, done, total| {
        steps.push((stage, done, total))
    });
    // One container, its index read once.
    assert_eq!(of(&steps, OpenStage::Containers), vec![(1, 1)]);
    // Every package of the container looked at, one step each, 1..=97 of 97: the fixtures'
    // manifest.json lists 97 packages in each test container (`testContainerPackages`; the
    // MANIFEST says "the same 97 cooked packages in every variant").
    assert_eq!(
        of(&steps, OpenStage::Packages),
        (1..=97).map(|k| (k, 97)).collect::<Vec<_>>()
    );
    // Then the texture packages read, 1..=n of n: the 21 of manifest.json under
    // /Game/Fixtures/Textures/ (the MANIFEST's table, T_BC1 .. T_CurveAtlas), one texture each,
    // and /Game/Fixtures/Maps/Landscape, whose landscape's heightmap and weightmap are texture
    // exports of the map (tests/unreal_ue58.rs `without_landscape` sets them apart).
    assert_eq!(
        of(&steps, OpenStage::TexturePackages),
        (1..=22).map(|k| (k, 22)).collect::<Vec<_>>()
    );
    assert_eq!(cat.textures.len(), 21 + 2);
    // All inside the Unreal pass: after the 6th engine pass (Unity, src/lib.rs OPENERS) and
    // before the 7th step (Unreal's) is told.
    let at = |stage: OpenStage, done: usize| steps.iter().position(|s| s.0 == stage && s.1 == done);
    let inner = |s: &(OpenStage, usize, usize)| {
        matches!(
            s.0,
            OpenStage::Containers | OpenStage::Packages | OpenStage::TexturePackages
        )
    };
    let first = steps.iter().position(inner).unwrap();
    let last = steps.iter().rposition(inner).unwrap();
    assert!(at(OpenStage::Engines, 6).unwrap() < first);
    assert!(last < at(OpenStage::Engines, 7).unwrap());
    // A second open of the same files reuses the index read (`Memo`) and tells the same steps.
    let mut again = Vec::new();
    let _ = cat.add_with_progress(Vec::new(), &mut |stage, done, total| {
        again.push((stage, done, total))
    });
    assert_eq!(
        again.iter().filter(|s| inner(s)).collect::<Vec<_>>(),
        steps.iter().filter(|s| inner(s)).collect::<Vec<_>>()
    );
    // Reopening with other options (what the page does when a key or profile changes) tells
    // them too, and lists the same textures.
    let mut reopened = Vec::new();
    let cat2 = cat.reopen_with_progress(&OpenOptions::default(), &mut |stage, done, total| {
        reopened.push((stage, done, total))
    });
    assert_eq!(reopened, steps);
    let census = |c: &texscope::Catalog| -> Vec<String> {
        c.textures.iter().map(|t| t.census().to_string()).collect()
    };
    assert_eq!(census(&cat2), census(&cat));
    assert_eq!(
        census(&cat),
        census(&open(sources, &OpenOptions::default()))
    );
}

#[test]
fn loose_files_are_told_one_by_one_inside_the_unreal_pass() {
    // The set's loose copy of its IoStore texture packages (`_extracted/IoStore/Tagged`, written
    // out of the Uncompressed container: its MANIFEST.md): 21 zen .uasset files and 3 .ubulk.
    let dir = common::samples().join("unreal/cue4parse-fixtures/UE5_8/_extracted/IoStore/Tagged");
    let mut paths: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    paths.sort();
    let packages = paths
        .iter()
        .filter(|p| p.extension().is_some_and(|e| e == "uasset"))
        .count();
    assert_eq!(packages, 21, "{dir:?}");
    let sources: Vec<SourceRef> = paths
        .iter()
        .map(|p| Arc::new(FileSource::open(p).unwrap()) as SourceRef)
        .collect();
    let mut steps = Vec::new();
    let cat = texscope::open_with_progress(sources, &OpenOptions::default(), &mut |s, d, t| {
        steps.push((s, d, t))
    });
    // Every file the loose opener goes through, one step each, 1..=n of n: all of them, as no
    // engine before Unreal takes any (the .ubulk files too: a package's siblings are claimed as
    // the loop reaches the package, after they were counted).
    let n = paths.len();
    assert_eq!(
        of(&steps, OpenStage::LooseFiles),
        (1..=n).map(|k| (k, n)).collect::<Vec<_>>()
    );
    // One texture a package (the MANIFEST's table), and no container steps.
    assert_eq!(cat.textures.len(), packages);
    for stage in [
        OpenStage::Containers,
        OpenStage::Packages,
        OpenStage::TexturePackages,
    ] {
        assert!(of(&steps, stage).is_empty());
    }
}
