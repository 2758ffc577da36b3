//! `texscope bench` and `texscope fingerprints`: the native half of the decode benchmark and of the
//! wasm == native check (the page's bench.html and the `codecFingerprints` export are the other).

use std::process::ExitCode;
use std::time::Instant;
use texscope::codec::sample::{self, Surface};
use texscope::codec::PixelFormat;

pub const USAGE: &str = "  texscope bench [--side N] [--runs N] [--format NAME]...
                               decode a NxN surface (default 2048) of seeded random blocks of each
                               format N times (default 5); one JSON line per format with MB/s of
                               RGBA output (min, median, max over the runs) and vs_bc1, its median
                               over BC1's in the same run (BC1 is always measured, first)
  texscope bench --untile [--side N] [--runs N] [--format NAME]...
                               per console platform (Switch, PS4, PS5) and format (default BC1,
                               BC7, ASTC_4x4, RGBA8): median ms of decoding the NxN surface stored
                               linear, and of untiling + decoding it stored as that platform's
                               Unreal cook lays it out, in turns; ratio = untile+decode / decode
  texscope bench --aes [--mib N] [--runs N]
                               AES-256 decryption of N MiB (default 64) of seeded bytes as a
                               container read does (64 KiB pieces): one JSON line each for ECB and
                               CTR with MB/s (min, median, max over the runs) and the SHA-1 of the
                               first decryption (the page's bench.html?aes=1 times the same code)
  texscope fingerprints [VECTOR_FILE...]
                               one JSON object: the digest of every format decoded from seeded
                               random blocks, and of each tests/vectors file given";

/// Runs `bench` or `fingerprints` if that is the command; None for any other command.
pub fn dispatch(args: &[String]) -> Option<ExitCode> {
    let r = match args.first().map(String::as_str) {
        Some("bench") => bench(&args[1..]),
        Some("fingerprints") => fingerprints(&args[1..]),
        _ => return None,
    };
    Some(match r {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("texscope: {e}");
            ExitCode::from(2)
        }
    })
}

fn bench(args: &[String]) -> Result<(), String> {
    let (mut side, mut runs, mut picked) = (2048u32, 5usize, Vec::new());
    let (mut untile, mut aes, mut mib) = (false, false, 64u32);
    let mut it = args.iter();
    while let Some(a) = it.next() {
        let mut value = |flag: &str| it.next().ok_or(format!("{flag} needs a value"));
        match a.as_str() {
            "--side" => {
                side = value("--side")?
                    .parse()
                    .map_err(|_| "--side needs a number")?
            }
            "--runs" => {
                runs = value("--runs")?
                    .parse()
                    .map_err(|_| "--runs needs a number")?
            }
            "--format" => {
                let n = value("--format")?;
                picked.push(PixelFormat::from_name(n).ok_or(format!("unknown format {n}"))?);
            }
            "--untile" => untile = true,
            "--aes" => aes = true,
            "--mib" => {
                mib = value("--mib")?
                    .parse()
                    .map_err(|_| "--mib needs a number")?
            }
            other => return Err(format!("bench: unknown argument {other}")),
        }
    }
    if side == 0 || side > 8192 || runs == 0 {
        return Err("bench: --side is 1..8192 and --runs at least 1".into());
    }
    if aes {
        return bench_aes(mib, runs);
    }
    if untile {
        bench_untile(side, runs, &picked);
        return Ok(());
    }
    // BC1 first, always: every other line gives its median over BC1's measured in this run.
    let all = sample::formats();
    let mut order: Vec<(usize, PixelFormat)> = all.iter().copied().enumerate().collect();
    order.sort_by_key(|&(_, f)| f != PixelFormat::BC1);
    let mut bc1 = None;
    for (i, f) in order {
        if f != PixelFormat::BC1 && !picked.is_empty() && !picked.contains(&f) {
            continue;
        }
        // Seed = 1 + position in the full list, as bench.html does: the same bytes on both sides.
        let s = Surface::new(f, side, 1 + i as u64);
        // One untimed decode: page faults of the first output allocation, and unsupported formats.
        if let Err(e) = s.decode() {
            println!(
                "{{\"format\":\"{}\",\"error\":{}}}",
                f.name(),
                serde_json::to_string(&e.to_string()).unwrap_or_default()
            );
            continue;
        }
        let mut mbps: Vec<f64> = (0..runs)
            .map(|_| {
                let t = Instant::now();
                let img = s.decode();
                let secs = t.elapsed().as_secs_f64();
                std::hint::black_box(img).ok();
                s.output_mb() / secs
            })
            .collect();
        mbps.sort_by(f64::total_cmp);
        let median = mbps[runs / 2];
        let ratio = match bc1 {
            Some(b) => format!(",\"vs_bc1\":{:.3}", median / b),
            None => String::new(),
        };
        bc1 = bc1.or(Some(median));
        println!(
            "{{\"format\":\"{}\",\"side\":{side},\"runs\":{runs},\"min\":{:.1},\"median\":{:.1},\"max\":{:.1}{ratio}}}",
            f.name(),
            mbps[0],
            median,
            mbps[runs - 1]
        );
    }
    Ok(())
}

/// `bench --untile`: one JSON line per platform and format. The linear and the tiled surface hold
/// the same seeded blocks and are decoded in turns, so a host whose speed drifts slows both.
/// A platform whose untiler is not in this build prints its error instead of numbers.
fn bench_untile(side: u32, runs: usize, picked: &[PixelFormat]) {
    use texscope::Platform;
    let defaults = [
        PixelFormat::BC1,
        PixelFormat::BC7,
        PixelFormat::ASTC {
            w: 4,
            h: 4,
            hdr: false,
        },
        PixelFormat::RGBA8,
    ];
    let formats = if picked.is_empty() {
        &defaults[..]
    } else {
        picked
    };
    let all = sample::formats();
    let ms = |s: &Surface| {
        let t = Instant::now();
        std::hint::black_box(s.decode()).ok();
        t.elapsed().as_secs_f64() * 1000.0
    };
    for platform in [Platform::Switch, Platform::Ps4, Platform::Ps5] {
        for &f in formats {
            let seed = 1 + all.iter().position(|&g| g == f).unwrap_or(0) as u64;
            let tiling = texscope::unreal::console_tiling(platform, f, side, side, 1);
            let plain = Surface::new(f, side, seed);
            let head = format!(
                "\"untile\":\"{}\",\"tiling\":{},\"format\":\"{}\",\"side\":{side}",
                platform.name(),
                serde_json::to_string(&tiling.describe()).unwrap_or_default(),
                f.name()
            );
            let tiled = Surface::tiled(f, side, seed, tiling);
            // Untimed: first allocations, and errors (an untiler not in this build).
            if let Err(e) = tiled.as_ref().map_err(|e| e.to_string()).and_then(|t| {
                plain.decode().map_err(|e| e.to_string())?;
                t.decode().map_err(|e| e.to_string())
            }) {
                let e = serde_json::to_string(&e).unwrap_or_default();
                println!("{{{head},\"error\":{e}}}");
                continue;
            }
            let tiled = tiled.expect("checked above");
            let (mut a, mut b, mut u) = (Vec::new(), Vec::new(), Vec::new());
            for _ in 0..runs {
                a.push(ms(&plain));
                b.push(ms(&tiled));
                let t = Instant::now();
                std::hint::black_box(tiled.untile()).ok();
                u.push(t.elapsed().as_secs_f64() * 1000.0);
            }
            for v in [&mut a, &mut b, &mut u] {
                v.sort_by(f64::total_cmp);
            }
            let (da, db, du) = (a[runs / 2], b[runs / 2], u[runs / 2]);
            println!(
                "{{{head},\"runs\":{runs},\"decode_ms\":{da:.2},\"untile_decode_ms\":{db:.2},\"untile_ms\":{du:.2},\"ratio\":{:.3}}}",
                db / da
            );
        }
    }
}

/// `bench --aes`: one JSON line per mode. The timed work is `AesBench::decrypt`, the function the
/// page's `BenchAes` runs in wasm.
#[cfg(feature = "containers")]
fn bench_aes(mib: u32, runs: usize) -> Result<(), String> {
    use texscope::io::aes::{AesBench, Mode};
    for mode in Mode::ALL {
        // Untimed: the first decryption (page faults of the buffer) gives the digest.
        let sha1 = AesBench::first_digest(mib, mode).map_err(|e| e.to_string())?;
        let mut b = AesBench::new(mib).map_err(|e| e.to_string())?;
        let mut mbps = Vec::with_capacity(runs);
        for _ in 0..runs {
            let t = Instant::now();
            b.decrypt(mode).map_err(|e| e.to_string())?;
            mbps.push(b.megabytes() / t.elapsed().as_secs_f64());
        }
        std::hint::black_box(b.bytes());
        mbps.sort_by(f64::total_cmp);
        println!(
            "{{\"aes\":\"{}\",\"mib\":{mib},\"runs\":{runs},\"min\":{:.1},\"median\":{:.1},\"max\":{:.1},\"sha1\":\"{sha1}\"}}",
            mode.name(),
            mbps[0],
            mbps[runs / 2],
            mbps[runs - 1]
        );
    }
    Ok(())
}

#[cfg(not(feature = "containers"))]
fn bench_aes(_mib: u32, _runs: usize) -> Result<(), String> {
    Err("bench --aes needs the `containers` feature".into())
}

fn fingerprints(files: &[String]) -> Result<(), String> {
    let mut map = serde_json::Map::new();
    for (k, v) in sample::fingerprints() {
        map.insert(k, v.into());
    }
    for path in files {
        let name = std::path::Path::new(path)
            .file_name()
            .and_then(|n| n.to_str())
            .unwrap_or_default();
        let bytes = std::fs::read(path).map_err(|e| format!("cannot read {path}: {e}"))?;
        if let Some(v) = sample::vector_fingerprint(name, &bytes) {
            map.insert(format!("vector {name}"), v.into());
        }
    }
    println!("{}", serde_json::Value::Object(map));
    Ok(())
}
