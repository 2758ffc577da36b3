//! Real cooked Unreal packages (shared/samples/unreal, MANIFEST.md there) against independent
//! expectations: the research probe's JSON (_probe), its reference decodes made with
//! texture2ddecoder (_reference_decodes), and the uncooked source PNGs of Matya's samples (raw/).

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use texscope::io::FileSource;
use texscope::{Catalog, ErrorKind, Storage, TextureKind};

fn root() -> PathBuf {
    let rel = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/samples/unreal");
    if rel.exists() {
        rel
    } else {
        PathBuf::from("/work/shared/samples/unreal")
    }
}

fn packages() -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![root()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            let name = p.file_name().unwrap().to_string_lossy().to_string();
            if p.is_dir() {
                if !name.starts_with('_') {
                    stack.push(p);
                }
            } else if name.ends_with(".uasset") || name.ends_with(".uzenasset") {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

/// Opens a package with the siblings that exist next to it (a zen package has no .uexp).
fn open_pkg(p: &Path) -> Catalog {
    let mut srcs: Vec<texscope::SourceRef> = vec![Arc::new(FileSource::open(p).unwrap())];
    let zen = p.extension().unwrap() == "uzenasset";
    for ext in ["uexp", "ubulk", "uptnl"] {
        let q = p.with_extension(ext);
        if q.exists() && !(zen && ext == "uexp") {
            srcs.push(Arc::new(FileSource::open(&q).unwrap()));
        }
    }
    texscope::open(srcs, &Default::default())
}

fn probe(p: &Path) -> Value {
    let rel = p.strip_prefix(root()).unwrap();
    let j = root()
        .join("_probe")
        .join(format!("{}.json", rel.to_string_lossy()));
    serde_json::from_str(&std::fs::read_to_string(j).unwrap()).unwrap()
}

/// (first offset, total length, present) of a mip's surfaces (cube faces are back to back).
fn span(surfaces: &[Storage]) -> (Option<u64>, u64, bool) {
    let mut first = None;
    let mut total = 0;
    let mut present = true;
    for s in surfaces {
        match s {
            Storage::Range { offset, length, .. } => {
                first.get_or_insert(*offset);
                total += length;
            }
            Storage::Missing { length, .. } => {
                total += length;
                present = false;
            }
            Storage::Empty => {}
        }
    }
    (first, total, present)
}

#[test]
fn every_package_agrees_with_the_probe() {
    let mut checked = 0;
    let mut mips_checked = 0;
    for p in packages() {
        let cat = open_pkg(&p);
        assert!(cat.problems.is_empty(), "{p:?}: {:?}", cat.problems);
        assert_eq!(cat.textures.len(), 1, "{p:?}");
        let t = &cat.textures[0];
        assert_eq!(t.error, None, "{p:?}");
        let j = probe(&p);
        let tj = &j["texture"];
        let mj = tj["Mips"].as_array().unwrap();
        // Expected: probe's PixelFormat FName, mip count, Mips[i].SizeX/SizeY and payload place.
        assert_eq!(
            t.native_format,
            texscope::model::NativeFormat::Name(tj["PixelFormat"].as_str().unwrap().into()),
            "{p:?}"
        );
        assert_eq!(t.mips.len(), mj.len(), "{p:?}");
        assert_eq!(t.width as u64, mj[0]["SizeX"].as_u64().unwrap(), "{p:?}");
        assert_eq!(t.height as u64, mj[0]["SizeY"].as_u64().unwrap(), "{p:?}");
        if tj["PackedData"].as_str() == Some("0x80000006") {
            assert_eq!((t.kind, t.slices), (TextureKind::Cube, 6));
        }
        let uasset_len = std::fs::metadata(&p).unwrap().len();
        for (i, (m, e)) in t.mips.iter().zip(mj).enumerate() {
            assert_eq!(
                m.width as u64,
                e["SizeX"].as_u64().unwrap(),
                "{p:?} mip {i}"
            );
            assert_eq!(
                m.height as u64,
                e["SizeY"].as_u64().unwrap(),
                "{p:?} mip {i}"
            );
            let (first, total, present) = span(&m.surfaces);
            if let Some(pl) = e.get("payload") {
                // Legacy: inline offsets are combined .uasset+.uexp coordinates (notes §1.3).
                let off = pl["offset"].as_u64().unwrap();
                assert_eq!(total, pl["size"].as_u64().unwrap(), "{p:?} mip {i}");
                match pl["in"].as_str().unwrap() {
                    "inline" => assert_eq!(first, Some(off - uasset_len), "{p:?} mip {i}"),
                    "ubulk" if p.with_extension("ubulk").exists() => {
                        assert_eq!(first, Some(off), "{p:?} mip {i}")
                    }
                    "ubulk" => {
                        assert!(!present, "{p:?} mip {i}");
                        assert!(m.location_note.ends_with(".ubulk"));
                    }
                    other => panic!("unexpected payload place {other}"),
                }
            } else {
                // Zen: inline_at is the position in the zen file; otherwise the .ubulk offset.
                let b = &e["bulk"];
                let size = b["SerialSize"].as_u64().unwrap();
                assert_eq!(total, size, "{p:?} mip {i}");
                match e.get("inline_at") {
                    Some(at) => assert_eq!(first, at.as_u64(), "{p:?} mip {i}"),
                    None => assert_eq!(first, b["SerialOffset"].as_u64(), "{p:?} mip {i}"),
                }
            }
            mips_checked += 1;
        }
        checked += 1;
    }
    // _probe holds one JSON per package: 100 (9 Matya, 7 retoc, 84 Clay).
    assert_eq!(checked, 100);
    assert!(mips_checked > 500, "{mips_checked}");
}

fn read_png(p: &Path) -> (u32, u32, usize, Vec<u8>) {
    let mut d = png::Decoder::new(std::io::BufReader::new(std::fs::File::open(p).unwrap()));
    d.set_transformations(png::Transformations::normalize_to_color8());
    let mut r = d.read_info().unwrap();
    let mut buf = vec![0; r.output_buffer_size().unwrap()];
    let info = r.next_frame(&mut buf).unwrap();
    let ch = info.color_type.samples();
    buf.truncate(info.buffer_size());
    (info.width, info.height, ch, buf)
}

/// The reference pixel as RGBA (grey replicated, opaque when there is no alpha).
fn ref_px(buf: &[u8], ch: usize, i: usize) -> [u8; 4] {
    let s = &buf[i * ch..i * ch + ch];
    match ch {
        1 => [s[0], s[0], s[0], 255],
        2 => [s[0], s[0], s[0], s[1]],
        3 => [s[0], s[1], s[2], 255],
        _ => [s[0], s[1], s[2], s[3]],
    }
}

#[test]
fn mip0_matches_reference_decodes() {
    let dir = root().join("_reference_decodes");
    let mut n = 0;
    for e in std::fs::read_dir(&dir).unwrap() {
        let png_path = e.unwrap().path();
        let stem = png_path.file_name().unwrap().to_string_lossy().to_string();
        let rel = stem.trim_end_matches(".mip0.png").replace('~', "/");
        let cat = open_pkg(&root().join(format!("{rel}.uasset")));
        let t = &cat.textures[0];
        let (w, h, ch, buf) = read_png(&png_path);
        // MANIFEST: cube maps are the 6 faces stacked vertically; BC5 has B = 0 (no Z); BC4 and
        // PF_G8 are grey, so only R is comparable; otherwise RGBA.
        let faces = t.slices;
        assert_eq!((w, h), (t.width, t.height * faces), "{rel}");
        let channels: &[usize] = match t.format {
            texscope::PixelFormat::BC5 => &[0, 1],
            texscope::PixelFormat::BC4 | texscope::PixelFormat::R8 => &[0],
            _ => &[0, 1, 2, 3],
        };
        let mut worst = 0i32;
        for f in 0..faces {
            let img = cat.decode(0, 0, f, Default::default()).unwrap().to_rgba8();
            let face_px = (t.width * t.height) as usize;
            for i in 0..face_px {
                let r = ref_px(&buf, ch, f as usize * face_px + i);
                for &c in channels {
                    worst = worst.max((img[i * 4 + c] as i32 - r[c] as i32).abs());
                }
            }
        }
        assert!(worst <= 1, "{rel}: max channel difference {worst}");
        n += 1;
    }
    assert_eq!(n, 20);
}

fn psnr(a: &[u8], b: &[u8], ach: usize, bch: usize, chans: &[usize], inv_g: bool) -> f64 {
    let px = a.len() / ach;
    let mut se = 0f64;
    let mut k = 0f64;
    for i in 0..px {
        for &c in chans {
            let mut rv = b[i * bch + c.min(bch - 1)] as f64;
            if inv_g && c == 1 {
                rv = 255.0 - rv;
            }
            let d = a[i * ach + c] as f64 - rv;
            se += d * d;
            k += 1.0;
        }
    }
    10.0 * (255.0f64 * 255.0 / (se / k)).log10()
}

#[test]
fn matya_worms_reach_the_notes_psnr() {
    // Measured here (mip 0 vs matya raw/*.png) — notes/MANIFEST record ~40 dB (D), ~62 dB (A, BC4),
    // ~34 dB (N, BC5 on R,G; the 4.18 N has green inverted relative to raw).
    // Measured by this test (4.18 / 4.27 / 5.0): D 40.29 / 40.21 / 40.26 dB, A 61.56 / 62.52 /
    // 62.52 dB, N 34.05 / 34.15 / 34.15 dB.
    let m = root().join("matya-uasset-samples");
    for v in ["4.18", "4.27", "5.0"] {
        for (tex, chans, min) in [
            ("T_Worm_D", &[0usize, 1, 2][..], 40.0),
            ("T_Worm_A", &[0][..], 61.5),
            ("T_Worm_N", &[0, 1][..], 34.0),
        ] {
            let cat = open_pkg(&m.join(v).join(format!("{tex}.uasset")));
            let img = cat.decode(0, 0, 0, Default::default()).unwrap().to_rgba8();
            let (w, h, ch, raw) = read_png(&m.join("raw").join(format!("{tex}.png")));
            assert_eq!((w, h), (256, 256));
            let db = psnr(&img, &raw, 4, ch, chans, v == "4.18" && tex == "T_Worm_N");
            eprintln!("{v} {tex}: {db:.2} dB");
            assert!(db >= min, "{v} {tex}: {db:.2} dB < {min}");
        }
    }
}

#[test]
fn zen_packages_decode_like_their_legacy_twins() {
    // MANIFEST: each .uzenasset is the IoStore form of the legacy package next to it.
    for rel in [
        "retoc-tests/UE5.4/Randy",
        "retoc-tests/UE5.5/T_Test",
        "retoc-tests/UE5.6/T_Quinn_01_D",
    ] {
        let legacy = open_pkg(&root().join(format!("{rel}.uasset")));
        let zen = open_pkg(&root().join(format!("{rel}.uzenasset")));
        let (a, b) = (&legacy.textures[0], &zen.textures[0]);
        assert_eq!((a.width, a.height, a.format), (b.width, b.height, b.format));
        assert_eq!(a.mips.len(), b.mips.len());
        for mip in 0..a.mips.len() {
            let x = legacy.decode(0, mip, 0, Default::default()).unwrap();
            let y = zen.decode(0, mip, 0, Default::default()).unwrap();
            assert!(x == y, "{rel} mip {mip} differs");
        }
    }
}

#[test]
fn missing_ubulk_keeps_inline_mips_and_names_the_file() {
    // MANIFEST: Clay's *_Normal packages ship without their .ubulk; mips 5-11 are inline.
    let p = root().join(
        "uassetapi-testassets/Clay/Clay/Content/FirstPerson/Blueprints/Characters/Flumbo/Flumbo_Hat/Flumbo_Red_Normal.uasset",
    );
    let cat = open_pkg(&p);
    let t = &cat.textures[0];
    let present = t.mips_present();
    assert_eq!(present, (0..12).map(|i| i >= 5).collect::<Vec<_>>());
    assert!(t
        .notes
        .iter()
        .any(|n| n.contains("mips 0-4") && n.contains("Flumbo_Red_Normal.ubulk")));
    let e = cat.decode(0, 0, 0, Default::default()).unwrap_err();
    assert_eq!(e.kind, ErrorKind::MissingSibling);
    assert!(e.to_string().contains("Flumbo_Red_Normal.ubulk"));
    let img = cat.decode(0, 5, 0, Default::default()).unwrap();
    assert_eq!((img.width, img.height), (64, 64));
}

#[test]
fn truncated_packages_fail_cleanly() {
    // Cut-off packages: never a panic; while the platform data is incomplete the texture carries
    // an error. Its end comes from the probe (SkipOffset target, combined coordinates).
    let p = root().join("retoc-tests/UE5.5/T_Test");
    let end = probe(&p.with_extension("uasset"))["texture"]["SkipOffset_points_to_abs"]
        .as_u64()
        .unwrap() as usize
        - 1194;
    let uasset = std::fs::read(p.with_extension("uasset")).unwrap();
    let uexp = std::fs::read(p.with_extension("uexp")).unwrap();
    for cut in (0..uexp.len()).step_by(97) {
        let srcs: Vec<texscope::SourceRef> = vec![
            texscope::io::BytesSource::shared("T_Test.uasset", uasset.clone()),
            texscope::io::BytesSource::shared("T_Test.uexp", uexp[..cut].to_vec()),
        ];
        let cat = texscope::open(srcs, &Default::default());
        if cut < end {
            assert!(
                cat.textures.iter().all(|t| t.error.is_some()),
                "cut at {cut}"
            );
        }
    }
    for cut in (0..uasset.len()).step_by(31) {
        let srcs: Vec<texscope::SourceRef> = vec![
            texscope::io::BytesSource::shared("T_Test.uasset", uasset[..cut].to_vec()),
            texscope::io::BytesSource::shared("T_Test.uexp", uexp.clone()),
        ];
        let cat = texscope::open(srcs, &Default::default());
        assert!(!cat.problems.is_empty());
    }
}
