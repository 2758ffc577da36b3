//! Scale benchmark of Unreal containers (issue 17), native half:
//!
//!     cargo run --release --example bench_containers -- DIR
//!
//! Writes into DIR (once; kept for later runs) with the project's fixture writers
//! (src/fixtures/containers.rs):
//! - `Big.pak`: 100,000 legacy packages (.uasset + .uexp, zlib blocks): 5 real Texture2D packages
//!   (BC1 512², top mip in a .ubulk) among 99,995 small packages of another class;
//! - `Big.utoc` + `Big.ucas`: the same as 100,000 zen packages;
//! - `Sparse.utoc` + `Sparse.ucas`: a 50 GiB sparse .ucas whose one texture package and its bulk
//!   data sit past 40 GiB, after a few small packages.
//!
//! Then opens each in a fresh process (so the peak resident memory is the open's own) through
//! `texscope::open` with counted reads, and prints a Markdown table: time to the full texture list,
//! peak resident memory, bytes and reads of the container files, the index size, and the same
//! after decoding mip 0 of the first texture. Targets (issue 17): list in under 2 s, memory under
//! 256 MiB, the sparse container read less than its index + 1 MiB.

// The core's SourceRef is Arc<dyn Source> without Send/Sync (one thread per catalog).
#![allow(clippy::arc_with_non_send_sync)]

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Instant;

use texscope::fixtures::containers::{self as cx, PakOptions, TocOptions};
use texscope::fixtures::unreal::{self as ue, Rng};
use texscope::io::aes::AesKey;
use texscope::io::{Counted, FileSource};
use texscope::{PixelFormat, SourceRef};

const PACKAGES: usize = 100_000;
const TEXTURES: usize = 5;
const SPARSE_LEN: u64 = 50 << 30;
const SPARSE_AT: u64 = 40 << 30;

/// Peak and current resident set of this process, from /proc (Linux).
fn rss() -> (u64, u64) {
    let s = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    let kb = |key: &str| {
        s.lines()
            .find(|l| l.starts_with(key))
            .and_then(|l| l.split_whitespace().nth(1))
            .and_then(|v| v.parse::<u64>().ok())
            .unwrap_or(0)
            * 1024
    };
    (kb("VmHWM:"), kb("VmRSS:"))
}

/// CPU seconds (user + system) this process has used, from /proc (Linux; 100 ticks a second).
fn cpu() -> f64 {
    let s = std::fs::read_to_string("/proc/self/stat").unwrap_or_default();
    // Fields after the parenthesised command: state is field 3, utime 14, stime 15.
    let rest = s.rsplit_once(')').map_or("", |(_, r)| r);
    let f: Vec<&str> = rest.split_whitespace().collect();
    let tick = |i: usize| f.get(i).and_then(|v| v.parse::<f64>().ok()).unwrap_or(0.0);
    (tick(11) + tick(12)) / 100.0
}

/// A package of another class: the texture package with its class renamed (legacy: the import's
/// class name "Texture2D" made "SoundWave", same length; zen: the class index made SoundWave's).
fn other_packages(rng: &mut Rng) -> (Vec<u8>, Vec<u8>, Vec<u8>) {
    let (t, _) = ue::classic_texture("P_Prop", PixelFormat::BC1, 8, 8, 1, 0, rng);
    let mut uasset = t.uasset.clone();
    let at = uasset
        .windows(9)
        .position(|w| w == b"Texture2D")
        .expect("class name");
    uasset[at..at + 9].copy_from_slice(b"SoundWave");
    let mut zen = t.uzenasset.clone();
    let tex = cx::script_class("Texture2D").to_le_bytes();
    let at = zen.windows(8).position(|w| w == tex).expect("class index");
    zen[at..at + 8].copy_from_slice(&cx::script_class("SoundWave").to_le_bytes());
    (uasset, t.uexp, zen)
}

/// The 100,000 packages as (legacy files, zen files), and the small other-class zen package and
/// the first texture's zen package and bulk data (for the sparse container). Deterministic: every
/// call gives the same bytes.
type Files = Vec<(String, Vec<u8>)>;
fn packages() -> (Files, Files, Vec<u8>, Vec<u8>, Vec<u8>) {
    let mut rng = Rng(0xB16);
    let (o_uasset, o_uexp, o_zen) = other_packages(&mut rng);
    let textures: Vec<_> = (0..TEXTURES)
        .map(|_| ue::classic_texture("T_Real", PixelFormat::BC1, 512, 512, 10, 1, &mut rng).0)
        .collect();
    let path = |i: usize, name: &str| format!("Props/D{:03}/{name}", i % 1000);
    let mut legacy = Vec::new();
    let mut zen = Vec::new();
    for i in 0..PACKAGES {
        if i % (PACKAGES / TEXTURES) == 7 {
            let t = &textures[legacy.len() % TEXTURES];
            let n = format!("T_Real{i:06}");
            for (ext, b) in [
                (".uasset", &t.uasset),
                (".uexp", &t.uexp),
                (".ubulk", &t.ubulk),
            ] {
                legacy.push((path(i, &format!("{n}{ext}")), b.clone()));
            }
            zen.push((path(i, &format!("{n}.uasset")), t.uzenasset.clone()));
            zen.push((path(i, &format!("{n}.ubulk")), t.ubulk.clone()));
        } else {
            let n = format!("P_Prop{i:06}");
            legacy.push((path(i, &format!("{n}.uasset")), o_uasset.clone()));
            legacy.push((path(i, &format!("{n}.uexp")), o_uexp.clone()));
            zen.push((path(i, &format!("{n}.uasset")), o_zen.clone()));
        }
    }
    let t = &textures[0];
    (legacy, zen, o_zen, t.uzenasset.clone(), t.ubulk.clone())
}

/// The key the encrypted containers are written with and opened with.
fn bench_key() -> AesKey {
    AesKey::from_bytes(*b"CUE4ParseFixtureAESKey0123456789")
}

/// The same 100,000 packages encrypted: UE 5.8's layout with ECB (pak v12, TOC v8) and UE 6.0's
/// with AES-CTR (pak v15, TOC v10), all zlib.
fn write_encrypted(dir: &Path) -> std::io::Result<()> {
    let (legacy, zen, ..) = packages();
    for (stem, pak_version, toc_version, ctr) in [("Ecb58", 12, 8, false), ("Ctr60", 15, 10, true)]
    {
        let pak = cx::pak(
            &legacy,
            &PakOptions {
                version: pak_version,
                ctr,
                zlib: true,
                key: Some(bench_key()),
                ..Default::default()
            },
        );
        std::fs::write(dir.join(format!("{stem}.pak")), pak)?;
        let toc = cx::iostore(
            &zen,
            &TocOptions {
                version: toc_version,
                ctr,
                zlib: true,
                key: Some(bench_key()),
                ..Default::default()
            },
        );
        std::fs::write(dir.join(format!("{stem}.utoc")), &toc.utoc)?;
        std::fs::write(dir.join(format!("{stem}.ucas")), toc.ucas(0))?;
    }
    Ok(())
}

fn write(dir: &Path) -> std::io::Result<()> {
    std::fs::create_dir_all(dir)?;
    let (legacy, zen, o_zen, t_zen, t_bulk) = packages();
    let path = |i: usize, name: &str| format!("Props/D{:03}/{name}", i % 1000);
    let pak = cx::pak(
        &legacy,
        &PakOptions {
            zlib: true,
            ..Default::default()
        },
    );
    std::fs::write(dir.join("Big.pak"), pak)?;
    let toc = cx::iostore(
        &zen,
        &TocOptions {
            zlib: true,
            ..Default::default()
        },
    );
    std::fs::write(dir.join("Big.utoc"), &toc.utoc)?;
    std::fs::write(dir.join("Big.ucas"), toc.ucas(0))?;
    // Sparse: 1,000 small packages, then (past 40 GiB) one texture package and its bulk data.
    let mut few: Vec<(String, Vec<u8>)> = (0..1000)
        .map(|i| (path(i, &format!("P_Prop{i:06}.uasset")), o_zen.clone()))
        .collect();
    let k = few.len();
    few.push(("Far/T_Far.uasset".into(), t_zen));
    few.push(("Far/T_Far.ubulk".into(), t_bulk));
    let toc = cx::iostore(
        &few,
        &TocOptions {
            zlib: true,
            gap: Some((k, SPARSE_AT)),
            ..Default::default()
        },
    );
    std::fs::write(dir.join("Sparse.utoc"), &toc.utoc)?;
    use std::io::{Seek, SeekFrom, Write};
    let mut f = std::fs::File::create(dir.join("Sparse.ucas"))?;
    for (part, at, bytes) in &toc.pieces {
        assert_eq!(*part, 0);
        f.seek(SeekFrom::Start(*at))?;
        f.write_all(bytes)?;
    }
    f.set_len(SPARSE_LEN)?;
    Ok(())
}

/// The bytes of `files` an open needs at the least: a pak's index and directory (footer to
/// end), a TOC whole (its tables and directory; its chunk metas are not read).
fn index_size(files: &[PathBuf]) -> u64 {
    let mut n = 0;
    for f in files {
        let len = std::fs::metadata(f).map(|m| m.len()).unwrap_or(0);
        match f.extension().and_then(|e| e.to_str()) {
            Some("utoc") => n += len,
            Some("pak") => {
                let src = FileSource::open(f).expect("pak");
                let foot =
                    texscope::unreal::pak::footer(&src, &Default::default()).expect("footer");
                n += len - foot.index_offset;
            }
            _ => {}
        }
    }
    n
}

/// One measurement, in this process: prints one JSON line.
fn measure(files: Vec<PathBuf>) {
    let (_, rss0) = rss();
    let counted: Vec<Arc<Counted>> = files
        .iter()
        .map(|p| Arc::new(Counted::new(Arc::new(FileSource::open(p).expect("open")))))
        .collect();
    let sources: Vec<SourceRef> = counted.iter().map(|c| c.clone() as SourceRef).collect();
    // The bytes and reads that reached the files so far.
    let bytes = || counted.iter().map(|c| c.bytes()).sum::<u64>();
    let reads = || counted.iter().map(|c| c.reads()).sum::<u64>();
    let (t0, c0) = (Instant::now(), cpu());
    let mut options = texscope::OpenOptions::default();
    options.aes_keys.push(None, bench_key());
    let cat = texscope::open(sources, &options);
    let secs = t0.elapsed().as_secs_f64();
    let cpu_secs = cpu() - c0;
    let (listed_bytes, listed_reads) = (bytes(), reads());
    let (hwm_list, _) = rss();
    assert!(cat.problems.is_empty(), "{:?}", cat.problems.first());
    let d0 = Instant::now();
    let img = cat
        .decode(0, 0, 0, Default::default())
        .expect("mip 0 decodes");
    let decode_secs = d0.elapsed().as_secs_f64();
    let (hwm, _) = rss();
    println!(
        "{}",
        serde_json::json!({
            "textures": cat.textures.len(),
            "list_s": secs,
            "list_cpu_s": cpu_secs,
            "list_bytes": listed_bytes,
            "list_reads": listed_reads,
            "index_bytes": index_size(&files),
            "rss_before": rss0,
            "hwm_list": hwm_list,
            "hwm": hwm,
            "decode_s": decode_secs,
            "decode_bytes": bytes() - listed_bytes,
            "mip0": format!("{}x{}", img.width, img.height),
            "path": cat.textures[0].path,
        })
    );
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.first().map(String::as_str) == Some("--measure") {
        measure(args[1..].iter().map(PathBuf::from).collect());
        return;
    }
    let Some(dir) = args.first().map(PathBuf::from) else {
        eprintln!("usage: bench_containers DIR");
        std::process::exit(2);
    };
    if !dir.join("Sparse.ucas").exists() {
        eprintln!("writing the containers into {} ...", dir.display());
        write(&dir).expect("write the containers");
    }
    if !dir.join("Ctr60.ucas").exists() {
        eprintln!(
            "writing the encrypted containers into {} ...",
            dir.display()
        );
        write_encrypted(&dir).expect("write the encrypted containers");
    }
    let me = std::env::current_exe().expect("own path");
    println!("| container | packages | textures listed | list time: wall (CPU) | peak RSS (list / + decode) | bytes read to list | reads | index size | read / index | mip 0 decode: bytes read |");
    println!("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
    for (label, files, packages) in [
        ("Big.pak (zlib)", vec!["Big.pak"], PACKAGES),
        (
            "Big.utoc + .ucas (zlib)",
            vec!["Big.utoc", "Big.ucas"],
            PACKAGES,
        ),
        (
            "Ecb58.pak (UE 5.8: v12, zlib, AES-ECB)",
            vec!["Ecb58.pak"],
            PACKAGES,
        ),
        (
            "Ctr60.pak (UE 6.0: v15, zlib, AES-CTR)",
            vec!["Ctr60.pak"],
            PACKAGES,
        ),
        (
            "Ecb58.utoc + .ucas (UE 5.8: TOC v8, zlib, AES-ECB)",
            vec!["Ecb58.utoc", "Ecb58.ucas"],
            PACKAGES,
        ),
        (
            "Ctr60.utoc + .ucas (UE 6.0: TOC v10, zlib, AES-CTR)",
            vec!["Ctr60.utoc", "Ctr60.ucas"],
            PACKAGES,
        ),
        (
            "Sparse.utoc + 50 GiB .ucas",
            vec!["Sparse.utoc", "Sparse.ucas"],
            1001,
        ),
    ] {
        let out = std::process::Command::new(&me)
            .arg("--measure")
            .args(files.iter().map(|f| dir.join(f)))
            .output()
            .expect("measure");
        let line = String::from_utf8_lossy(&out.stdout);
        let v: serde_json::Value = match serde_json::from_str(line.trim()) {
            Ok(v) => v,
            Err(_) => {
                eprintln!("{label}: {}", String::from_utf8_lossy(&out.stderr));
                continue;
            }
        };
        let mib = |k: &str| v[k].as_u64().unwrap_or(0) as f64 / (1 << 20) as f64;
        let kib = |k: &str| v[k].as_u64().unwrap_or(0) as f64 / 1024.0;
        println!(
            "| {label} | {packages} | {} | {:.2} s ({:.2} s) | {:.1} / {:.1} MiB | {:.1} KiB | {} | {:.1} KiB | {:.2} | {:.1} KiB ({}, {:.3} s) |",
            v["textures"],
            v["list_s"].as_f64().unwrap_or(0.0),
            v["list_cpu_s"].as_f64().unwrap_or(0.0),
            mib("hwm_list"),
            mib("hwm"),
            kib("list_bytes"),
            v["list_reads"],
            kib("index_bytes"),
            v["list_bytes"].as_f64().unwrap_or(0.0) / v["index_bytes"].as_f64().unwrap_or(1.0),
            kib("decode_bytes"),
            v["mip0"].as_str().unwrap_or("?"),
            v["decode_s"].as_f64().unwrap_or(0.0),
        );
    }
}
