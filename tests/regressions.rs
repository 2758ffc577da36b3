//! Replays every input in tests/regressions/<target>/ (crashes, hangs and over-limit allocations
//! the fuzz targets found, each fixed since; tests/regressions/README.md says which bug each
//! one was). Every input is opened and every mip and slice decoded exactly as the fuzz target
//! did; each must end Ok or in a clean `Error`, never a panic, and stay under a time bound.
//!
//! The expected outcome comes from the project's rule (bad input gives an `Error`), not from a
//! reference decoder. The input format is the fuzz targets' (fuzz/src/lib.rs): files separated
//! by `SEP`, each `name NUL bytes`; the `codec` folder holds `format index, w - 1, h - 1, bytes`.

mod common;
use common::samples;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use texscope::codec::{ALL_FIXED, ASTC_FOOTPRINTS};
use texscope::io::BytesSource;
use texscope::{Limits, OpenOptions, PixelFormat, SourceRef};

/// Copies of fuzz/src/lib.rs's `SEP` and `limits()` (the root crate cannot depend on the fuzz
/// crate, which needs libFuzzer).
const SEP: &[u8] = b"\n=texscope-fuzz-file=\n";

fn limits() -> Limits {
    Limits {
        max_dim: 4096,
        max_slices: 64,
        max_mips: 16,
        max_alloc: 16 << 20,
        max_entries: 1 << 16,
    }
}

/// The default file names of each target (fuzz/fuzz_targets/<target>.rs).
fn default_names(target: &str) -> &'static [&'static str] {
    match target {
        "unity_serialized" => &["sharedassets0.assets", "sharedassets0.assets.resS"],
        "unity_bundle" => &["data.unity3d"],
        "ue_legacy" | "ue_vt" => &["T_Fuzz.uasset", "T_Fuzz.uexp", "T_Fuzz.ubulk"],
        "ue_zen" => &["T_Fuzz.uzenasset", "T_Fuzz.ubulk"],
        "ue_editor" => &["T_Editor.uasset"],
        "ue_pak" => &["fuzz.pak"],
        "ue_toc" => &["fuzz.utoc", "fuzz.ucas", "fuzz_s1.ucas"],
        "frostbite_header" | "frostbite_cas" => {
            &["fuzz.res", "00000000000000000000000000000000.chunk"]
        }
        "dds" => &["fuzz.dds"],
        "ktx" => &["fuzz.ktx2"],
        other => panic!("tests/regressions/{other}: not a fuzz target"),
    }
}

fn split(data: &[u8], names: &[&str]) -> Vec<(String, Vec<u8>)> {
    let mut out = Vec::new();
    let mut rest = data;
    loop {
        let cut = rest.windows(SEP.len()).position(|w| w == SEP);
        let (piece, next) = match cut {
            Some(i) => (&rest[..i], Some(&rest[i + SEP.len()..])),
            None => (rest, None),
        };
        let k = out.len();
        let named = piece.iter().take(128).position(|&b| b == 0).and_then(|z| {
            let name = std::str::from_utf8(&piece[..z]).ok()?;
            (!name.is_empty()).then(|| (name.to_string(), piece[z + 1..].to_vec()))
        });
        out.push(named.unwrap_or_else(|| {
            let name = names
                .get(k)
                .map_or_else(|| format!("file{k}.bin"), |s| s.to_string());
            (name, piece.to_vec())
        }));
        match next {
            Some(n) if out.len() < 8 => rest = n,
            _ => break,
        }
    }
    out
}

/// Opens and decodes as fuzz/src/lib.rs `run` does; returns (decodes Ok, decodes Err).
fn replay(target: &str, data: &[u8]) -> (usize, usize) {
    if target == "codec" {
        let mut formats: Vec<PixelFormat> = ALL_FIXED.to_vec();
        for (w, h) in ASTC_FOOTPRINTS {
            for hdr in [false, true] {
                formats.push(PixelFormat::ASTC { w, h, hdr });
            }
        }
        if data.len() < 3 {
            return (0, 0);
        }
        let format = formats[data[0] as usize % formats.len()];
        let (w, h) = (1 + (data[1] % 64) as u32, 1 + (data[2] % 64) as u32);
        let r = texscope::decode_surface(format, w, h, &data[3..], &limits());
        return if r.is_ok() { (1, 0) } else { (0, 1) };
    }
    let sources: Vec<SourceRef> = split(data, default_names(target))
        .into_iter()
        .map(|(n, b)| Arc::new(BytesSource::new(n, b)) as SourceRef)
        .collect();
    #[allow(unused_mut)]
    let mut options = OpenOptions {
        limits: limits(),
        ..OpenOptions::default()
    };
    // The container targets run with the seeds' key (fuzz/src/lib.rs `run_keyed`).
    #[cfg(feature = "containers")]
    if target == "ue_pak" || target == "ue_toc" {
        let key = texscope::io::aes::AesKey::from_bytes(*b"CUE4ParseFixtureAESKey0123456789");
        options.aes_keys.push(None, key);
    }
    let cat = texscope::open(sources, &options);
    let (mut ok, mut err, mut n) = (0, 0, 0);
    for (i, t) in cat.textures.iter().enumerate() {
        for mip in 0..t.mips.len() {
            for slice in 0..t.surface_count(mip) {
                if n == 64 {
                    return (ok, err);
                }
                n += 1;
                match cat.decode(i, mip, slice, Default::default()) {
                    Ok(_) => ok += 1,
                    Err(e) => {
                        // A clean error names what went wrong.
                        assert!(!e.to_string().is_empty());
                        err += 1;
                    }
                }
            }
        }
    }
    (ok, err)
}

fn inputs() -> Vec<(String, PathBuf)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/regressions");
    let mut out = Vec::new();
    for dir in std::fs::read_dir(&root)
        .expect("tests/regressions exists")
        .flatten()
    {
        if !dir.path().is_dir() {
            continue;
        }
        let target = dir.file_name().to_string_lossy().into_owned();
        for f in std::fs::read_dir(dir.path()).unwrap().flatten() {
            out.push((target.clone(), f.path()));
        }
    }
    out.sort();
    out
}

#[test]
fn every_regression_input_fails_cleanly() {
    let all = inputs();
    // Issue 9: every crash found becomes a file here; README.md lists them.
    assert!(!all.is_empty(), "tests/regressions holds no inputs");
    let bound = Duration::from_secs(if cfg!(debug_assertions) { 20 } else { 2 });
    let mut panics = Vec::new();
    for (target, path) in &all {
        let data = std::fs::read(path).unwrap();
        let start = Instant::now();
        let r = std::panic::catch_unwind(|| replay(target, &data));
        let took = start.elapsed();
        match r {
            Ok((ok, err)) => println!(
                "{}: {ok} decodes Ok, {err} Err, {:.0} ms",
                path.display(),
                took.as_secs_f64() * 1000.0
            ),
            Err(_) => panics.push(path.display().to_string()),
        }
        assert!(took < bound, "{} took {took:?}", path.display());
    }
    assert!(panics.is_empty(), "panicked: {panics:?}");
}

/// Opens `bytes` as one file and decodes every texture's mip 0; returns the time taken and
/// every problem and decode error as text.
fn open_and_decode(name: &str, bytes: Vec<u8>) -> (Duration, Vec<String>, usize) {
    let start = Instant::now();
    let cat = texscope::open(
        vec![Arc::new(BytesSource::new(name, bytes)) as SourceRef],
        &OpenOptions::default(),
    );
    let mut errors: Vec<String> = cat.problems.iter().map(|p| p.error.clone()).collect();
    for i in 0..cat.textures.len() {
        if let Err(e) = cat.decode(i, 0, 0, Default::default()) {
            errors.push(e.to_string());
        }
    }
    (start.elapsed(), errors, cat.textures.len())
}

/// Issue 9: two mutated cases of UnityDataTools' 2020.3.0f1 assetbundle took ~1 s each (release).
/// The bundle's data is one LZMA block of 2.9 MB; when a changed byte made the stream fail, the
/// failure was not kept, so every read of the bundle (header, metadata, each object) decoded the
/// whole block again. A failed block now keeps its error. Expected: the corrupt bundle costs
/// about one block decode, like the intact one (bound: 2x the intact open plus 0.3 s), and is
/// reported with the LZMA error.
#[test]
fn corrupt_lzma_bundle_is_decoded_once() {
    let path = samples().join(
        "unity/Unity-Technologies_UnityDataTools/TestCommon/Data/AssetBundles/2020.3.0f1/assetbundle",
    );
    let Ok(bytes) = std::fs::read(&path) else {
        panic!("sample missing: {}", path.display());
    };
    let (intact, errors, listed) = open_and_decode("assetbundle", bytes.clone());
    assert!(listed > 0 && errors.is_empty(), "{errors:?}");
    // Changed bytes late in the stream, until one makes the decoder fail (most changes only
    // give other bytes: LZMA has no checksum).
    for k in 1..40 {
        let mut bad = bytes.clone();
        let at = bad.len() - 997 * k;
        bad[at] ^= 0xFF;
        bad[at + 1] ^= 0xFF;
        let (corrupt, errors, _) = open_and_decode("assetbundle", bad);
        if !errors.iter().any(|e| e.contains("LZMA")) {
            continue;
        }
        println!("change at {at}: intact {intact:?}, corrupt {corrupt:?}: {errors:?}");
        assert!(
            corrupt < intact * 2 + Duration::from_millis(300),
            "corrupt bundle took {corrupt:?}, intact {intact:?}"
        );
        return;
    }
    panic!("no change made the LZMA stream fail");
}
