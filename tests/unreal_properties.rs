//! Texture properties (issue 5): unversioned ones read with the Clay sample's .usmap, tagged ones
//! of the UE4 Matya samples, and what is said when the .usmap is missing.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use texscope::io::FileSource;
use texscope::{Catalog, SourceRef};

fn root() -> PathBuf {
    let rel = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/samples/unreal");
    if rel.exists() {
        rel
    } else {
        PathBuf::from("/work/shared/samples/unreal")
    }
}

fn walk(d: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(d).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            walk(&p, out);
        } else if p.extension().is_some_and(|x| x == "uasset") {
            out.push(p);
        }
    }
}

fn open_with(p: &Path, usmap: Option<&Path>) -> Catalog {
    let mut srcs: Vec<SourceRef> = vec![Arc::new(FileSource::open(p).unwrap())];
    for ext in ["uexp", "ubulk"] {
        let q = p.with_extension(ext);
        if q.exists() {
            srcs.push(Arc::new(FileSource::open(&q).unwrap()));
        }
    }
    if let Some(u) = usmap {
        srcs.push(Arc::new(FileSource::open(u).unwrap()));
    }
    texscope::open(srcs, &Default::default())
}

fn meta<'a>(t: &'a texscope::Texture, k: &str) -> Option<&'a str> {
    t.metadata
        .iter()
        .find(|(n, _)| n == k)
        .map(|(_, v)| v.as_str())
}

/// UE's documented Compression Settings -> cooked pixel format for PC (Unreal Engine docs,
/// "Texture Compression Settings"): Default -> DXT1/DXT5, Masks -> DXT1/DXT5 (linear), Normalmap ->
/// BC5, Grayscale -> G8 (or BGRA8), DistanceFieldFont -> G8, HDR -> FloatRGBA, BC7 -> BC7, Alpha ->
/// BC4, EditorIcon / VectorDisplacementmap -> B8G8R8A8 (uncompressed). B8G8R8A8 is also what any
/// setting gives a texture cooked uncompressed, so it accepts any setting.
fn format_agrees(pf: &str, setting: &str) -> bool {
    match pf {
        "PF_DXT1" | "PF_DXT5" => matches!(setting, "TC_Default" | "TC_Masks"),
        "PF_BC5" => setting == "TC_Normalmap",
        "PF_G8" => matches!(setting, "TC_Grayscale" | "TC_DistanceFieldFont"),
        "PF_FloatRGBA" => setting == "TC_HDR",
        "PF_BC7" => setting == "TC_BC7",
        "PF_BC4" => setting == "TC_Alpha",
        "PF_B8G8R8A8" => true,
        _ => false,
    }
}

fn setting(t: &texscope::Texture) -> &str {
    let v = meta(t, "CompressionSettings").unwrap_or_default();
    v.split(' ').next().unwrap_or_default()
}

fn pf(t: &texscope::Texture) -> &str {
    meta(t, "Pixel format").unwrap_or_default()
}

#[test]
fn clay_unversioned_properties_agree_with_the_cooked_formats() {
    let clay = root().join("uassetapi-testassets/Clay");
    let mut pkgs = Vec::new();
    walk(&clay, &mut pkgs);
    let usmap = clay.join("Clay.usmap");
    let (mut n, mut stored, mut normals) = (0, 0, 0);
    for p in &pkgs {
        let c = open_with(p, Some(&usmap));
        assert!(c.problems.is_empty(), "{:?}", c.problems);
        for t in &c.textures {
            n += 1;
            assert!(
                meta(t, "Properties stopped").is_none(),
                "{}: {:?}",
                t.name,
                meta(t, "Properties stopped")
            );
            assert!(meta(t, "Properties").unwrap().contains("Clay.usmap"));
            let s = setting(t);
            assert!(
                format_agrees(pf(t), s),
                "{} is {} but says {s}",
                t.name,
                pf(t)
            );
            if !meta(t, "CompressionSettings")
                .unwrap()
                .contains("class default")
            {
                stored += 1;
            }
            if pf(t) == "PF_BC5" {
                // UE cooks normal maps linear (TC_Normalmap forces sRGB off).
                assert_eq!(t.srgb(), Some(false), "{}", t.name);
                normals += 1;
            }
            assert!(t.srgb().is_some(), "{}", t.name);
        }
    }
    // Counts: MANIFEST.md lists 102 Clay packages of which 84 are in this snapshot's folders.
    assert_eq!(n, pkgs.len());
    assert!(
        stored >= 30 && normals >= 6,
        "{stored} stored settings, {normals} normal maps"
    );
}

#[test]
fn clay_walk_lands_on_the_platform_data() {
    // Independent check of the walk's length: after the properties of a cooked UE5.1 Texture2D
    // come a fixed 12 bytes (UObject's bHasGuid i32, two FStripDataFlags, bCooked i32) and then
    // the platform-data FName, which the anchor search found on its own.
    let dir =
        root().join("uassetapi-testassets/Clay/Clay/Content/FirstPerson/Blueprints/Characters");
    let mut pkgs = Vec::new();
    walk(&dir, &mut pkgs);
    assert!(pkgs.len() >= 10);
    let usmap = root().join("uassetapi-testassets/Clay/Clay.usmap");
    for p in &pkgs {
        let c = open_with(p, Some(&usmap));
        let t = &c.textures[0];
        let props = meta(t, "Properties").unwrap();
        let used: u64 = props
            .rsplit("; ")
            .next()
            .unwrap()
            .split(' ')
            .next()
            .unwrap()
            .parse()
            .unwrap();
        let pd = meta(t, "Platform data").unwrap();
        let start: u64 = pd
            .strip_prefix("bytes ")
            .unwrap()
            .split("..")
            .next()
            .unwrap()
            .parse()
            .unwrap();
        assert_eq!(start, used + 12, "{}", t.name);
    }
}

#[test]
fn clay_normal_map_reads_like_the_stream_says() {
    // Jumbo_Josh_Skin_Normal.uexp starts with fragments 0x0404 0x0202 0x0202 0x0302: Texture2D's
    // ImportedSize and Texture's LightingGuid, CompressionSettings, LODGroup and SRGB, then the
    // bytes 00 08 00 00 00 08 00 00 (2048x2048), a GUID, 01, 01, 00 (read with xxd). The enum names
    // for 1 are TextureCompressionSettings / TextureGroup entries 1 in UE's headers.
    let p = root().join("uassetapi-testassets/Clay/Clay/Content/FirstPerson/Blueprints/Characters/Jumbo_Josh/Jumbo_Josh_Skin_Normal.uasset");
    let c = open_with(
        &p,
        Some(&root().join("uassetapi-testassets/Clay/Clay.usmap")),
    );
    let t = &c.textures[0];
    assert_eq!(meta(t, "CompressionSettings"), Some("TC_Normalmap"));
    assert_eq!(meta(t, "LODGroup"), Some("TEXTUREGROUP_WorldNormalMap"));
    assert_eq!(meta(t, "SRGB"), Some("false"));
    assert_eq!(meta(t, "ImportedSize"), Some("2048x2048"));
    assert_eq!(t.srgb(), Some(false));
}

#[test]
fn matya_ue4_tagged_properties() {
    // Expected values: the enum names in each package's own name map (strings of T_Worm_N.uasset
    // list TC_Normalmap and TEXTUREGROUP_WorldNormalMap; T_Worm_A lists TC_Alpha; T_Worm_D none),
    // and raw/T_Worm_*.png are 256x256 (ImportedSize).
    for v in ["4.18", "4.27"] {
        let d = root().join("matya-uasset-samples").join(v);
        let get = |n: &str| {
            open_with(&d.join(format!("{n}.uasset")), None)
                .textures
                .remove(0)
        };
        let nrm = get("T_Worm_N");
        assert_eq!(
            meta(&nrm, "CompressionSettings"),
            Some("TC_Normalmap"),
            "{v}"
        );
        assert_eq!(meta(&nrm, "LODGroup"), Some("TEXTUREGROUP_WorldNormalMap"));
        assert_eq!(nrm.srgb(), Some(false));
        assert_eq!(meta(&nrm, "ImportedSize"), Some("256x256"));
        let a = get("T_Worm_A");
        assert_eq!(meta(&a, "CompressionSettings"), Some("TC_Alpha"));
        assert_eq!(a.srgb(), Some(false));
        let dif = get("T_Worm_D");
        assert!(meta(&dif, "CompressionSettings")
            .unwrap()
            .starts_with("TC_Default"));
        assert_eq!(dif.srgb(), Some(true));
        assert!(meta(&dif, "Properties").unwrap().starts_with("tagged"));
    }
}

#[test]
fn without_a_usmap_the_unknown_facts_are_named() {
    let p = root().join("matya-uasset-samples/5.0/T_Worm_N.uasset");
    let t = open_with(&p, None).textures.remove(0);
    let m = meta(&t, "Properties").unwrap();
    assert!(
        m.contains(".usmap") && m.contains("SRGB") && m.contains("CompressionSettings"),
        "{m}"
    );
    assert_eq!(t.srgb(), None);
    assert!(t.notes.iter().any(|n| n.contains("drop the game's .usmap")));
}

#[test]
fn a_broken_usmap_is_a_named_problem_and_packages_still_open() {
    let p = root().join("matya-uasset-samples/5.0/T_Worm_N.uasset");
    let mut srcs: Vec<SourceRef> = vec![Arc::new(FileSource::open(&p).unwrap())];
    srcs.push(Arc::new(
        FileSource::open(&p.with_extension("uexp")).unwrap(),
    ));
    let mut bad = vec![0xC4, 0x30, 4, 0, 0, 0, 0, 0];
    bad.extend_from_slice(&1000u32.to_le_bytes()); // 1000 compressed bytes that are not there
    bad.extend_from_slice(&1000u32.to_le_bytes());
    srcs.push(texscope::io::BytesSource::shared("Game.usmap", bad));
    let c = texscope::open(srcs, &Default::default());
    assert_eq!(c.textures.len(), 1);
    assert_eq!(c.problems.len(), 1);
    assert!(c.problems[0].file == "Game.usmap" && c.problems[0].error.contains("CompressedSize"));
}

fn open_forced(p: &Path, v: &str) -> Catalog {
    let mut srcs: Vec<SourceRef> = vec![Arc::new(FileSource::open(p).unwrap())];
    for ext in ["uexp", "ubulk"] {
        let q = p.with_extension(ext);
        if q.exists() && p.extension().unwrap() != "uzenasset" {
            srcs.push(Arc::new(FileSource::open(&q).unwrap()));
        }
    }
    let opts = texscope::OpenOptions {
        unreal_version: Some(v.into()),
        ..Default::default()
    };
    texscope::open(srcs, &opts)
}

#[test]
fn forced_engine_version_overrides_or_is_refused() {
    // Versions: MANIFEST.md (Matya folder names from database.json; retoc's folder UE5.4).
    let randy = root().join("retoc-tests/UE5.4/Randy.uasset");
    let detected = open_with(&randy, None).textures.remove(0);
    let guess = meta(&detected, "Engine (guessed from layout)").unwrap();
    assert!(guess.starts_with("UE5.2-5.5"), "{guess}");
    // The summary cannot tell 5.2 from 5.5; the override makes it exact and decodes the same.
    let c = open_forced(&randy, "5.4");
    let t = &c.textures[0];
    let forced = meta(t, "Engine (guessed from layout)").unwrap();
    assert!(forced.starts_with("UE5.4 (forced"), "{forced}");
    assert_eq!(
        (t.width, t.height, t.mips.len()),
        (detected.width, detected.height, detected.mips.len())
    );
    assert!(t.error.is_none());
    // A UE4.27 package forced as 4.18 (i32 SkipOffset) has no platform data in that layout,
    // and forced as 5.1 its summary does not line up: both say so instead of guessing.
    let worm = root().join("matya-uasset-samples/4.27/T_Worm_D.uasset");
    let ok = open_forced(&worm, "4.27");
    assert!(ok.textures[0].error.is_none());
    let old = open_forced(&worm, "4.18");
    assert!(old.textures.iter().all(|t| t.error.is_some()) || !old.problems.is_empty());
    let five = open_forced(&worm, "5.1");
    assert!(five.textures.is_empty());
    assert!(
        five.problems[0].error.contains("UE5.1"),
        "{:?}",
        five.problems
    );
    // The 4.18 package is right under its own version.
    let w18 = open_forced(
        &root().join("matya-uasset-samples/4.18/T_Worm_D.uasset"),
        "4.18",
    );
    assert!(w18.textures[0].error.is_none());
    // Zen: a 5.6 header forced as 5.1 contradicts the header's own layout.
    let zen = root().join("retoc-tests/UE5.6/T_Quinn_01_D.uzenasset");
    assert!(!open_forced(&zen, "5.1").problems.is_empty());
    assert!(open_forced(&zen, "5.6").problems.is_empty());
    // A malformed version is reported once and detection carries on.
    let bad = open_forced(&worm, "banana");
    assert!(bad.problems.iter().any(|p| p.file == "--ue-version"));
    assert!(bad.textures[0].error.is_none());
}
