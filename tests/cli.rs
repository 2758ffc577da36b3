//! The `texscope` binary against the CLI contract of issue 2: census fields equal what the
//! generated fixtures were written with; exported PNG/EXR/raw files equal `decode_surface` (or
//! the stored bytes) of exactly those fixtures, read back with the png and exr crates.

mod common;
use common::{read_png, read_png_rgba, samples};
mod dds_fixtures;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use dds_fixtures::{desc, standard_set, Fixture};
use texscope::fixtures::frostbite::{self as fb_fixture, Spec};
use texscope::{decode_surface, Limits, Pixels, Precision, TextureKind};

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_texscope"))
}

fn run(args: &[&str]) -> Output {
    bin().args(args).output().unwrap()
}

/// A fresh folder under the system temp dir, unique per test.
fn temp_dir(tag: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("texscope-cli-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn write_fixtures(dir: &Path, set: &[Fixture]) {
    for fx in set {
        std::fs::write(dir.join(&fx.file), fx.bytes()).unwrap();
    }
}

fn census(args: &[&str]) -> Vec<serde_json::Value> {
    json_lines("census", args)
}

/// The JSON lines `command` prints for `args`; it must succeed.
fn json_lines(command: &str, args: &[&str]) -> Vec<serde_json::Value> {
    let out = run(&[&[command], args].concat());
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// The README's export name of one image of a DDS fixture (a file named after its only
/// texture, so the image lies beside it): `<texture>[__mip<N>][__s<S>].<ext>`, `__mip<N>` unless
/// mip 0 is exported alone, `__s<S>` when the mip has more than one image.
fn export_name(fx: &Fixture, mip: u32, slice: u32, ext: &str, all_mips: bool) -> String {
    let mut name = fx.file.trim_end_matches(".dds").to_string();
    if all_mips || mip > 0 {
        name += &format!("__mip{mip}");
    }
    if fx.surface_count(mip) > 1 {
        name += &format!("__s{slice}");
    }
    format!("{name}.{ext}")
}

#[test]
fn census_reports_what_was_written() {
    let dir = temp_dir("census");
    let set = standard_set();
    let sub = dir.join("nested/deeper");
    std::fs::create_dir_all(&sub).unwrap();
    write_fixtures(&sub, &set);
    std::fs::write(dir.join("readme.txt"), b"not a texture").unwrap();
    let lines = census(&[dir.to_str().unwrap()]);
    assert_eq!(lines.len(), set.len() + 1);
    // Output is sorted: the top folder's file first, then the nested folder's files by path.
    assert!(lines[0]["file"].as_str().unwrap().ends_with("readme.txt"));
    assert!(lines[0]["error"].as_str().unwrap().contains("readme.txt"));
    let files: Vec<&str> = lines[1..]
        .iter()
        .map(|l| l["file"].as_str().unwrap())
        .collect();
    let mut sorted = files.clone();
    sorted.sort();
    assert_eq!(files, sorted);
    for fx in &set {
        let path = sub.join(&fx.file).display().to_string();
        let l = lines
            .iter()
            .find(|l| l["file"] == path.as_str())
            .unwrap_or_else(|| panic!("{path} not in census"));
        let d = &fx.desc;
        // Expected values: the Desc each fixture was written from.
        assert_eq!(l["engine"], "dds");
        assert_eq!(l["name"], fx.file.trim_end_matches(".dds"));
        assert_eq!(l["class"], "DDS");
        let kind = match d.kind {
            TextureKind::Tex2D => "2d",
            TextureKind::Cube => "cube",
            TextureKind::Array => "array",
            TextureKind::Volume => "volume",
        };
        assert_eq!(l["kind"], kind, "{}", fx.file);
        assert_eq!(l["width"], d.width);
        assert_eq!(l["height"], d.height);
        assert_eq!(l["depth"], d.depth);
        assert_eq!(
            l["slices"],
            if d.kind == TextureKind::Volume {
                1
            } else {
                d.slices
            }
        );
        assert_eq!(l["mips"], d.mips);
        assert_eq!(l["format"], d.format.name());
        assert_eq!(l["virtual"], false);
        assert_eq!(
            l["mips_present"],
            serde_json::json!(vec![true; d.mips as usize])
        );
        assert_eq!(l["error"], serde_json::Value::Null);
        if d.srgb {
            assert_eq!(l["srgb"], true);
        }
        assert!(l["native_format"].is_string() || l["native_format"].is_number());
    }
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn png_export_equals_decode() {
    let dir = temp_dir("png");
    let set = standard_set();
    write_fixtures(&dir, &set);
    let out_dir = dir.join("out");
    let out = run(&[
        "export",
        dir.to_str().unwrap(),
        "--out",
        out_dir.to_str().unwrap(),
        "--all-mips",
        "--all-slices",
    ]);
    assert_eq!(out.status.code(), Some(0));
    let stderr = String::from_utf8_lossy(&out.stderr);
    // Float formats are clamped for PNG, and the CLI says so per texture.
    assert!(
        stderr.contains("RGBA32F holds floats; the PNG clamps"),
        "{stderr}"
    );
    let limits = Limits::default();
    let mut checked = 0;
    for fx in &set {
        for m in 0..fx.desc.mips {
            for s in 0..fx.surface_count(m) {
                let path = out_dir.join(export_name(fx, m, s, "png", true));
                assert!(path.exists(), "{} missing\n{stderr}", path.display());
                let (info, buf) = read_png_rgba(&path);
                let (bytes, w, h) = fx.surface(m, s);
                // Reference: the codec's decode of the bytes the fixture wrote.
                let img = decode_surface(fx.desc.format, w, h, bytes, &limits).unwrap();
                assert_eq!((info.width, info.height), (w, h));
                // RGB exactly when every decoded alpha is full (the README's rule).
                let opaque = match &img.pixels {
                    Pixels::Rgba16(p) => p.chunks(4).all(|t| t[3] == u16::MAX),
                    _ => img.to_rgba8().chunks(4).all(|t| t[3] == 255),
                };
                let want_color = if opaque {
                    png::ColorType::Rgb
                } else {
                    png::ColorType::Rgba
                };
                assert_eq!(info.color_type, want_color, "{}", fx.file);
                match &img.pixels {
                    Pixels::Rgba16(p) => {
                        assert_eq!(info.bit_depth, png::BitDepth::Sixteen, "{}", fx.file);
                        let got: Vec<u16> = buf
                            .chunks_exact(2)
                            .map(|c| u16::from_be_bytes([c[0], c[1]]))
                            .collect();
                        assert!(&got == p, "{} mip {m} slice {s}", fx.file);
                    }
                    _ => {
                        assert_eq!(info.bit_depth, png::BitDepth::Eight, "{}", fx.file);
                        assert!(buf == img.to_rgba8(), "{} mip {m} slice {s}", fx.file);
                    }
                }
                checked += 1;
            }
        }
    }
    // Every surface of every fixture was exported (nothing else was written).
    assert_eq!(std::fs::read_dir(&out_dir).unwrap().count(), checked);
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn exr_export_keeps_floats() {
    let dir = temp_dir("exr");
    let set: Vec<Fixture> = standard_set()
        .into_iter()
        .filter(|fx| fx.desc.format.precision() == Precision::Float)
        .collect();
    assert!(set.len() >= 10, "float formats: {}", set.len());
    write_fixtures(&dir, &set);
    let out_dir = dir.join("out");
    let out = run(&[
        "export",
        dir.to_str().unwrap(),
        "--out",
        out_dir.to_str().unwrap(),
        "--mip",
        "1",
        "--slice",
        "0",
        "--format",
        "exr",
    ]);
    assert_eq!(out.status.code(), Some(0));
    for fx in &set {
        let path = out_dir.join(export_name(fx, 1, 0, "exr", false));
        let img = exr::prelude::read_first_rgba_layer_from_file(
            &path,
            |size, _| (size.0, vec![[0f32; 4]; size.0 * size.1]),
            |(w, px), pos, (r, g, b, a): (f32, f32, f32, f32)| {
                px[pos.1 * *w + pos.0] = [r, g, b, a]
            },
        )
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let (bytes, w, h) = fx.surface(1, 0);
        // Reference: the codec's f32 decode of the bytes the fixture wrote.
        let want = decode_surface(fx.desc.format, w, h, bytes, &Limits::default()).unwrap();
        let Pixels::Rgba32F(want) = want.pixels else {
            panic!("{} is not float", fx.file)
        };
        let (iw, px) = &img.layer_data.channel_data.pixels;
        assert_eq!(*iw as u32, w);
        assert_eq!(px.len() as u32, w * h);
        for (i, (g, e)) in px.iter().flatten().zip(&want).enumerate() {
            assert!(
                g.to_bits() == e.to_bits() || (g.is_nan() && e.is_nan()),
                "{} value {i}: {g} != {e}",
                fx.file
            );
        }
    }
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn raw_export_is_the_stored_bytes() {
    let dir = temp_dir("raw");
    let set = standard_set();
    write_fixtures(&dir, &set);
    let out_dir = dir.join("out");
    let out = run(&[
        "export",
        dir.to_str().unwrap(),
        "--out",
        out_dir.to_str().unwrap(),
        "--all-mips",
        "--all-slices",
        "--format",
        "raw",
    ]);
    assert_eq!(out.status.code(), Some(0));
    for fx in &set {
        for m in 0..fx.desc.mips {
            for s in 0..fx.surface_count(m) {
                let got = std::fs::read(out_dir.join(export_name(fx, m, s, "raw", true))).unwrap();
                assert!(got == fx.surface(m, s).0, "{} mip {m} slice {s}", fx.file);
            }
        }
    }
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn bad_files_are_reported_not_fatal() {
    let dir = temp_dir("bad");
    let good = Fixture::simple("good.dds", dds_fixtures::decodable_formats()[0], 8, 8, 2);
    std::fs::write(dir.join("good.dds"), good.bytes()).unwrap();
    std::fs::write(dir.join("short_header.dds"), &good.bytes()[..60]).unwrap();
    let mut cut = Fixture::simple("cut.dds", texscope::PixelFormat::BC1, 16, 16, 3).bytes();
    cut.truncate(128 + 128 + 10); // mip 0 (4x4 blocks x 8 bytes) whole, mip 1 cut
    std::fs::write(dir.join("cut.dds"), cut).unwrap();
    let mut huge = good.bytes();
    huge[12..20].copy_from_slice(&[0, 0, 0, 0x80, 0, 0, 0, 0x80]); // 2^31 x 2^31
    std::fs::write(dir.join("huge.dds"), huge).unwrap();
    let mut unknown = Fixture::new(
        "unknown.dds",
        texscope::formats::dds::Desc {
            force_dx10: true,
            ..desc(texscope::PixelFormat::BC7, 8, 8, 1)
        },
    )
    .bytes();
    unknown[128..132].copy_from_slice(&250u32.to_le_bytes());
    std::fs::write(dir.join("unknown.dds"), unknown).unwrap();
    std::fs::write(dir.join("empty.dds"), b"").unwrap();

    let lines = census(&[dir.to_str().unwrap(), "/nonexistent/texscope/path"]);
    let by = |f: &str| {
        lines
            .iter()
            .find(|l| l["file"].as_str().unwrap().ends_with(f))
            .unwrap_or_else(|| panic!("{f} missing"))
    };
    assert!(by("short_header.dds")["error"]
        .as_str()
        .unwrap()
        .contains("ends"));
    assert_eq!(
        by("cut.dds")["mips_present"],
        serde_json::json!([true, false, false])
    );
    assert_eq!(by("cut.dds")["error"], serde_json::Value::Null);
    assert!(by("huge.dds")["error"].as_str().unwrap().contains("limit"));
    assert!(by("unknown.dds")["error"]
        .as_str()
        .unwrap()
        .contains("DXGI_FORMAT 250"));
    assert!(by("empty.dds")["error"].as_str().unwrap().contains("empty"));
    assert!(by("path")["error"]
        .as_str()
        .unwrap()
        .contains("no such file"));
    assert_eq!(by("good.dds")["error"], serde_json::Value::Null);

    // Exporting the same folder writes what it can and explains the rest on stderr.
    let out_dir = dir.join("out");
    let out = run(&[
        "export",
        dir.to_str().unwrap(),
        "--out",
        out_dir.to_str().unwrap(),
        "--all-mips",
    ]);
    assert_eq!(out.status.code(), Some(0));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("cut short"), "{stderr}");
    assert!(out_dir.join("cut__mip0.png").exists());
    assert!(!out_dir.join("cut__mip1.png").exists());
    assert!(out_dir.join("good__mip1.png").exists());

    let info = run(&["info", dir.to_str().unwrap()]);
    assert_eq!(info.status.code(), Some(0));
    let text = String::from_utf8_lossy(&info.stdout);
    assert!(text.contains("mip 1: 8x8 MISSING"), "{text}");
    assert!(text.contains("DXGI_FORMAT 250"), "{text}");
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn wrong_command_lines_exit_2() {
    for args in [
        &[][..],
        &["frobnicate", "x"],
        &["census"],
        &["export", "x"],
        &["export", "x", "--out"],
        &["export", "x", "--out", "o", "--mip", "one"],
        &["export", "x", "--out", "o", "--mip", "1", "--all-mips"],
        &["export", "x", "--out", "o", "--format", "jpg"],
        // dds and ktx2 hold every mip and slice: picking some is refused.
        &["export", "x", "--out", "o", "--format", "dds", "--all-mips"],
        &[
            "export",
            "x",
            "--out",
            "o",
            "--format",
            "ktx2",
            "--cube-cross",
        ],
        &["census", "x", "--cube-cross"],
        &["census", "x", "--out", "o"],
        &["info", "x", "--bogus"],
    ] {
        let out = run(args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(
            String::from_utf8_lossy(&out.stderr).contains("usage"),
            "{args:?}"
        );
    }
    assert_eq!(run(&["--help"]).status.code(), Some(0));
}

#[test]
fn export_names_replace_refused_characters() {
    let dir = temp_dir("names");
    // Linux allows ':' and '?' in names; Windows refuses them, so exports replace them by '_'.
    let fx = Fixture::simple("x.dds", texscope::PixelFormat::RGBA8, 2, 2, 1);
    let path = dir.join("x:y?.dds");
    std::fs::write(&path, fx.bytes()).unwrap();
    let out_dir = dir.join("out");
    let out = run(&[
        "export",
        path.to_str().unwrap(),
        "--out",
        out_dir.to_str().unwrap(),
        "--format",
        "raw",
    ]);
    assert_eq!(out.status.code(), Some(0));
    let names: Vec<String> = std::fs::read_dir(&out_dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    // The file holds one texture named after it (x:y?), so its image lies beside it.
    assert_eq!(names, vec!["x_y_.raw".to_string()]);
    std::fs::remove_dir_all(&dir).ok();
}

// ---- --frostbite-profile (issue 6) ---------------------------------------------------------
// The per-game format tables are chosen on the command line. Expected format names come from
// Frosty's per-game enum dumps in shared/samples/frostbite/renderformat/*.tsv (read here, not
// from our tables); expected pixels are the images the Frostbite fixture was built from
// (src/fixtures/frostbite.rs).

/// The enum name at `ordinal` in one of the renderformat .tsv files (`value<TAB>name` rows).
fn tsv_name(file: &str, ordinal: u32) -> String {
    let text =
        std::fs::read_to_string(samples().join("frostbite/renderformat").join(file)).unwrap();
    text.lines()
        .filter_map(|l| l.split_once('\t'))
        .find(|(v, _)| v.parse() == Ok(ordinal))
        .map(|(_, n)| n.to_string())
        .unwrap_or_else(|| panic!("{file} has no ordinal {ordinal}"))
}

const BF4_TSV: &str = "RenderFormat__BF4SDK_BFHSDK_NFS14SDK_PVZ1SDK.tsv";
const TSV_2014_4: &str = "RenderFormat__StarWarsSDK_MirrorsEdgeSDK_NFS16SDK_NFSEDGESDK_PVZ2SDK.tsv";

/// A BC1 fixture whose header says format ordinal 0: BC1_UNORM in the BF4 enum, Unknown in the
/// 2014.4 one (per the .tsv files). Returns the folder, the header path and the source image.
fn ordinal_zero_fixture(tag: &str) -> (PathBuf, PathBuf, texscope::Image) {
    let fx = fb_fixture::build(&Spec::new("old", 0, 54, 8, 8)).unwrap();
    let mut header = fx.header.clone();
    // Seed 001: the format word is at 0xC of the header, after the 16-byte resource metadata.
    header[16 + 0xC..16 + 0x10].copy_from_slice(&0u32.to_le_bytes());
    let dir = temp_dir(&format!("fb-{tag}"));
    let header_path = dir.join(&fx.header_name);
    std::fs::write(&header_path, header).unwrap();
    std::fs::write(dir.join(&fx.chunk_name), &fx.chunk).unwrap();
    (dir, header_path, fx.images[0][0].clone())
}

/// The one census line of `args`.
fn census_one(args: &[&str]) -> serde_json::Value {
    let lines = census(args);
    assert_eq!(lines.len(), 1, "{lines:?}");
    lines.into_iter().next().unwrap()
}

fn listed_profiles() -> Vec<String> {
    let out = run(&["--list-profiles"]);
    assert_eq!(out.status.code(), Some(0));
    String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| l.split(['\t', ' ']).next().unwrap().to_string())
        .collect()
}

#[test]
fn the_profile_changes_what_an_ordinal_means() {
    let (dir, header, _) = ordinal_zero_fixture("census");
    let dir_s = dir.to_str().unwrap();
    // Default (2014.4): ordinal 0 is RenderFormat_Unknown, so the texture is listed with an error.
    assert_eq!(tsv_name(TSV_2014_4, 0), "RenderFormat_Unknown");
    let c = census_one(&[dir_s]);
    assert!(c["error"].as_str().unwrap_or("").contains("Unknown"), "{c}");
    // BF4: ordinal 0 is RenderFormat_BC1_UNORM.
    let bf4 = tsv_name(BF4_TSV, 0);
    assert_eq!(bf4, "RenderFormat_BC1_UNORM");
    let c = census_one(&[dir_s, "--frostbite-profile", "bf4"]);
    assert_eq!(c["native_format"], bf4.as_str(), "{c}");
    assert_eq!(c["format"], "BC1", "{c}");
    assert!(c["error"].is_null(), "{c}");
    // The option may come before the paths too, and names are case-insensitive.
    let c = census_one(&["--frostbite-profile", "BF4", header.to_str().unwrap()]);
    assert_eq!(c["native_format"], bf4.as_str(), "{c}");

    // info says which profile read the ordinal.
    let out = run(&["info", dir_s, "--frostbite-profile", "bf4"]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0));
    assert!(text.contains("profile bf4"), "{text}");
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn export_with_a_profile_writes_the_source_image() {
    let (dir, _, image) = ordinal_zero_fixture("export");
    let out_dir = dir.join("out");
    let out = run(&[
        "export",
        dir.to_str().unwrap(),
        "--out",
        out_dir.to_str().unwrap(),
        "--frostbite-profile",
        "bf4",
    ]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    let png_path = out_dir.join("old.png");
    assert!(
        png_path.exists(),
        "{} missing\n{stderr}",
        png_path.display()
    );
    let (info, buf) = read_png_rgba(&png_path);
    assert_eq!((info.width, info.height), (8, 8));
    // The fixture's image is what its BC1 blocks were made from (flat blocks, exact in BC1).
    assert!(buf == image.to_rgba8());

    // Without the profile the texture is not exported, and stderr says why.
    let out = run(&[
        "export",
        dir.to_str().unwrap(),
        "--out",
        dir.join("out2").to_str().unwrap(),
    ]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("not exported"), "{stderr}");
    assert!(stderr.contains("wrote 0 file(s)"), "{stderr}");
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn unknown_profile_is_refused_with_the_valid_names() {
    let names = listed_profiles();
    // One profile per enum table dumped in renderformat/ (RenderFormat x3, TextureFormat x2).
    let tables = std::fs::read_dir(samples().join("frostbite/renderformat"))
        .unwrap()
        .filter_map(|e| e.ok())
        .filter(|e| {
            let n = e.file_name().to_string_lossy().into_owned();
            n.starts_with("RenderFormat__") || n.starts_with("TextureFormat__")
        })
        .count();
    assert_eq!(names.len(), tables, "{names:?}");
    for cmd in ["census", "info"] {
        let out = run(&[cmd, "x.res", "--frostbite-profile", "frostbite9"]);
        assert_eq!(out.status.code(), Some(2), "{cmd}");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(
            stderr.contains("no Frostbite profile 'frostbite9'"),
            "{stderr}"
        );
        for n in &names {
            assert!(stderr.contains(n.as_str()), "{n} missing from: {stderr}");
        }
    }
    let out = run(&["census", "x.res", "--frostbite-profile"]);
    assert_eq!(out.status.code(), Some(2));
    // --help names them too.
    let help = String::from_utf8(run(&["--help"]).stdout).unwrap();
    for n in &names {
        assert!(help.contains(n.as_str()), "{n} missing from --help");
    }
}

#[test]
fn every_listed_profile_is_accepted() {
    let (dir, _, _) = ordinal_zero_fixture("listed");
    for n in listed_profiles() {
        let c = census_one(&[dir.to_str().unwrap(), "--frostbite-profile", &n]);
        assert_eq!(c["engine"], "frostbite", "{n}: {c}");
    }
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn unreal_usmap_and_version_flag() {
    // The Clay sample (shared/samples/unreal, MANIFEST.md: UE5.1, unversioned, Clay.usmap at its
    // root, packages in subfolders): one .usmap serves every folder; each BC5 texture is
    // TC_Normalmap (the format UE cooks TC_Normalmap to), which only a read usmap can tell.
    let root = samples().join("unreal");
    let clay = root.join("uassetapi-testassets/Clay");
    let out = run(&["info", clay.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0));
    let text = String::from_utf8_lossy(&out.stdout);
    let bc5 = text.matches("Pixel format: PF_BC5").count();
    assert!(bc5 > 0);
    assert!(text.matches("CompressionSettings: TC_Normalmap").count() >= bc5);
    assert!(!text.contains("drop the game's .usmap"));
    // --ue-version is accepted anywhere and checked.
    let worm = root.join("matya-uasset-samples/4.27");
    let out = run(&["info", "--ue-version", "4.27", worm.to_str().unwrap()]);
    assert!(String::from_utf8_lossy(&out.stdout).contains("UE4.27 (forced"));
    assert_eq!(
        run(&["info", "--ue-version", "3.0", "x"]).status.code(),
        Some(2)
    );
    assert_eq!(run(&["info", "--ue-version"]).status.code(), Some(2));
}

#[test]
fn a_usmap_is_reported_once_not_per_folder() {
    // The UE 5.8 set (MANIFEST.md): Mappings/ holds the same usmap four ways; the first by name
    // serves the run and the other three are "ignored" notes. Given with a container folder, each
    // note once: they were repeated by every folder of packages the usmaps were opened with.
    let set = samples().join("unreal/cue4parse-fixtures/UE5_8");
    let mappings = set.join("Mappings");
    let a = set.join("IoStore/Tagged/Uncompressed");
    let b = set.join("Pak/Uncompressed");
    let lines = census(&[
        mappings.to_str().unwrap(),
        a.to_str().unwrap(),
        b.to_str().unwrap(),
    ]);
    let notes: Vec<&str> = lines
        .iter()
        .filter(|l| {
            l["error"]
                .as_str()
                .is_some_and(|e| e.contains("only one .usmap is used"))
        })
        .map(|l| l["file"].as_str().unwrap_or(""))
        .collect();
    assert_eq!(notes.len(), 3, "{notes:?}");
    assert!(
        lines.iter().any(|l| l["name"] == "T_BC1"),
        "the containers still list"
    );
}

/// `--unity-version` reaches the reader: a stripped player file whose header version is blanked
/// (same length, "0.0…") lists nothing without it and its two textures with it (sizes from the
/// UnityPy census of the unmodified shared sample); a malformed version is a usage error.
#[test]
fn unity_version_option_reads_files_that_say_none() {
    let src = samples().join("unity/liuruihhh_unityrenderer/Build/UnityRenderer_Data");
    let dir = temp_dir("unity-version");
    let mut data = std::fs::read(src.join("sharedassets0.assets")).unwrap();
    let at = data
        .windows(13)
        .position(|w| w == b"2021.1.28f1c1")
        .unwrap();
    data[at..at + 13].copy_from_slice(b"0.0.000000000");
    std::fs::write(dir.join("sharedassets0.assets"), &data).unwrap();
    std::fs::copy(
        src.join("sharedassets0.assets.resS"),
        dir.join("sharedassets0.assets.resS"),
    )
    .unwrap();
    let d = dir.to_str().unwrap();
    let without = census(&[d]);
    assert!(without.iter().all(|l| l["width"].is_null()), "{without:?}");
    let with = census(&["--unity-version", "2021.1.28f1c1", d]);
    let mut sizes: Vec<_> = with
        .iter()
        .map(|l| {
            (
                l["name"].as_str().unwrap(),
                l["width"].as_u64(),
                l["height"].as_u64(),
            )
        })
        .collect();
    sizes.sort();
    assert_eq!(
        sizes,
        [
            ("UISprite", Some(32), Some(32)),
            ("sphere-alpha-map", Some(1024), Some(512))
        ]
    );
    let bad = run(&["census", "--unity-version", "latest", d]);
    assert_eq!(bad.status.code(), Some(2));
    let _ = std::fs::remove_dir_all(&dir);
}

// ---- range reads past 4 GiB (issue 8) --------------------------------------------------------
// A sparse .resS of 4.5 GiB whose only data is one 1024x1024 RGBA32 texture at an offset past
// 4 GiB, next to a Unity 2020.3 serialized file pointing there (tests/unity_fixtures). The CLI
// reports what it read and its peak RSS (TEXSCOPE_STATS=1; VmHWM from the kernel). Expected
// pixels are the bytes written into the sparse file (RGBA32), rows reversed.

mod unity_fixtures;

use unity_fixtures::{sparse_unity, SPARSE_SIDE};

/// `out` of a run that must have succeeded (else its stderr is the failure's message).
fn succeeded(out: Output) -> Output {
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

/// The CLI run with TEXSCOPE_STATS=1; it must succeed.
fn with_stats(args: &[&str]) -> Output {
    succeeded(
        bin()
            .args(args)
            .env("TEXSCOPE_STATS", "1")
            .output()
            .unwrap(),
    )
}

/// (read_bytes, peak_rss_kib) from the `texscope stats:` line of stderr.
fn read_stats(stderr: &[u8]) -> (u64, Option<u64>) {
    let text = String::from_utf8_lossy(stderr);
    let line = text
        .lines()
        .find_map(|l| l.strip_prefix("texscope stats: "))
        .unwrap_or_else(|| panic!("no stats line in {text}"));
    let field = |k: &str| {
        line.split_whitespace()
            .find_map(|kv| kv.strip_prefix(k)?.strip_prefix('='))
            .and_then(|v| v.parse().ok())
    };
    (
        field("read_bytes").expect("read_bytes"),
        field("peak_rss_kib"),
    )
}

#[test]
fn sparse_4gib_file_reads_only_headers_and_the_mip() {
    let dir = temp_dir("sparse4g");
    let (pixels, header_len) = sparse_unity(&dir).unwrap();
    let mip_bytes = pixels.len() as u64;
    // Sniffing reads at most the first 4 KiB of every file (the .resS too) before it knows
    // what the file is; 64 KiB of slack covers that with room.
    const SLACK: u64 = 64 << 10;
    let d = dir.to_str().unwrap();
    // info: the header ranges only.
    let info = with_stats(&["info", d]);
    assert!(String::from_utf8_lossy(&info.stdout).contains("1024x1024"));
    let (read, _) = read_stats(&info.stderr);
    assert!(
        read <= header_len + SLACK,
        "info read {read} bytes; the headers are {header_len}"
    );
    // export: the headers and the one mip.
    let out_dir = dir.join("out");
    let export = with_stats(&["export", d, "--out", out_dir.to_str().unwrap()]);
    let (read, rss) = read_stats(&export.stderr);
    assert!(
        read <= header_len + mip_bytes + SLACK,
        "export read {read} bytes; headers {header_len} + mip {mip_bytes}"
    );
    // The pixels are the ones stored past 4 GiB.
    let (_, got) = read_png_rgba(&out_dir.join("big.assets/T_Fuzz.png"));
    // Unity stores rows bottom first (seed 004); the export is top first.
    let row = (SPARSE_SIDE * 4) as usize;
    let flipped: Vec<u8> = pixels.chunks(row).rev().flatten().copied().collect();
    assert!(
        got == flipped,
        "exported pixels differ from the stored ones"
    );
    // Peak RSS below 64 MiB + 2x the decoded mip (issue 8), where the kernel reports it.
    if cfg!(target_os = "linux") {
        let rss = rss.expect("VmHWM on Linux") << 10;
        let bound = (64 << 20) + 2 * mip_bytes;
        eprintln!("sparse export: read {read} bytes, peak RSS {rss} (bound {bound})");
        assert!(rss < bound, "peak RSS {rss} bytes >= {bound}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

// ---- --jobs (issue 8: census on all cores with flat memory) ----------------------------------

#[test]
fn parallel_census_equals_the_single_thread_one() {
    // 40 folders of the standard DDS set plus unreadable files; the expected output is the
    // one-thread run (the order the census contract fixes: folders sorted, files by path), and
    // each folder's lines are checked against the fixtures' own descriptions.
    let dir = temp_dir("jobs");
    let set = standard_set();
    for k in 0..40 {
        let sub = dir.join(format!("g{k:02}"));
        std::fs::create_dir_all(&sub).unwrap();
        write_fixtures(&sub, &set);
        std::fs::write(sub.join("junk.bin"), [k as u8; 7]).unwrap();
    }
    let d = dir.to_str().unwrap();
    let one = run(&["census", d, "--jobs", "1"]);
    assert_eq!(one.status.code(), Some(0));
    let lines = String::from_utf8(one.stdout.clone()).unwrap();
    assert_eq!(lines.lines().count(), 40 * (set.len() + 1));
    // Every texture line names its folder's fixture with the size it was written with.
    for l in lines.lines() {
        let v: serde_json::Value = serde_json::from_str(l).unwrap();
        let file = v["file"].as_str().unwrap();
        if file.ends_with("junk.bin") {
            assert!(v["error"].is_string());
            continue;
        }
        let fx = set.iter().find(|f| file.ends_with(&f.file)).unwrap();
        assert_eq!(v["width"], fx.desc.width, "{file}");
    }
    for jobs in ["2", "3", "7"] {
        let many = bin()
            .args(["census", d, "--jobs", jobs])
            .env("TEXSCOPE_STATS", "1")
            .output()
            .unwrap();
        assert_eq!(many.status.code(), Some(0));
        assert!(
            many.stdout == one.stdout,
            "--jobs {jobs} changed the output"
        );
        // Flat memory: 40 folders of small files stay far below the 64 MiB base of issue 8.
        if let (_, Some(kib)) = read_stats(&many.stderr) {
            assert!(kib < 64 << 10, "--jobs {jobs}: peak RSS {kib} KiB");
        }
    }
    // Refused: zero and non-numbers.
    for bad in ["0", "x"] {
        assert_eq!(run(&["census", d, "--jobs", bad]).status.code(), Some(2));
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn sparse_ubulk_mip_past_4gib_is_read_alone() {
    // A UE5 classic BC1 2048x2048 texture (src/fixtures/unreal.rs) whose three streamed mips sit
    // in a sparse 4.25 GiB .ubulk from 4,563,402,759 on. `--format raw` must give the stored
    // bytes of mip 0 exactly (written into the sparse file here), reading only the package
    // headers and that mip (TEXSCOPE_STATS; 64 KiB of slack for sniffing, as above).
    use std::io::{Seek, SeekFrom, Write};
    use texscope::fixtures::unreal::{classic_texture_bulk_form, BulkForm, Rng};
    const BASE: u64 = (4 << 30) + (256 << 20) + 7;
    let dir = temp_dir("sparseubulk");
    let (files, mips) = classic_texture_bulk_form(
        "T_Far",
        texscope::PixelFormat::BC1,
        (2048, 2048),
        (12, 3),
        BulkForm::Far(BASE),
        &mut Rng(0xB16_B0D7),
    );
    std::fs::write(dir.join("T_Far.uasset"), &files.uasset).unwrap();
    std::fs::write(dir.join("T_Far.uexp"), &files.uexp).unwrap();
    let mut f = std::fs::File::create(dir.join("T_Far.ubulk")).unwrap();
    f.set_len(BASE + files.ubulk.len() as u64).unwrap();
    f.seek(SeekFrom::Start(BASE)).unwrap();
    f.write_all(&files.ubulk).unwrap();
    drop(f);
    let headers = (files.uasset.len() + files.uexp.len()) as u64;
    let out_dir = dir.join("out");
    let out = with_stats(&[
        "export",
        dir.to_str().unwrap(),
        "--format",
        "raw",
        "--out",
        out_dir.to_str().unwrap(),
    ]);
    let got = std::fs::read(out_dir.join("T_Far.raw")).unwrap();
    assert!(
        got == mips[0],
        "mip 0 differs from the bytes stored past 4 GiB"
    );
    let (read, rss) = read_stats(&out.stderr);
    let mip = mips[0].len() as u64;
    eprintln!(
        "sparse ubulk: read {read} bytes (headers {headers}, mip {mip}), peak RSS {rss:?} KiB"
    );
    assert!(
        read <= headers + mip + (64 << 10),
        "read {read} bytes; headers {headers} + mip {mip}"
    );
    if cfg!(target_os = "linux") {
        let rss = rss.expect("VmHWM on Linux") << 10;
        assert!(rss < (64 << 20) + 2 * mip, "peak RSS {rss}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

// ---- diff (issue 21) ---------------------------------------------------------------------------
// Two builds made here from the shared samples: copied, one block changed, one texture
// re-encoded (another format's file under its name), one shortened by a mip, one file added and
// one removed. Expected records: the block change worked by hand from the BC1 block layout; the
// re-encode's figures from the `dds` crate's decodes (an independent decoder) and
// common::psnr; the mip-shortened texture's from its identical stored bytes.

const T2D: &str = "unity/UniversalGameExtraction_texture2ddecoder/resources/tests/textures";

/// Byte range of level 0 of a KTX 2 file: the level index starts at byte 80 with byteOffset
/// and byteLength as little-endian u64 (KTX 2.0 specification, "Level Index").
fn ktx2_level0(file: &[u8]) -> std::ops::Range<usize> {
    let u64_at = |i: usize| u64::from_le_bytes(file[i..i + 8].try_into().unwrap()) as usize;
    u64_at(80)..u64_at(80) + u64_at(88)
}

/// RGBA8 texels of 512x512 BC blocks decoded by the `dds` crate.
fn dds_rgba8(format: dds::Format, blocks: &[u8]) -> Vec<u8> {
    use dds::{Channels, ColorFormat, ImageViewMut, Precision as DP, Size};
    let color = ColorFormat::new(Channels::Rgba, DP::U8);
    let mut out = vec![0u8; 512 * 512 * 4];
    let view = ImageViewMut::new(&mut out, Size::new(512, 512), color).unwrap();
    dds::decode(&mut &blocks[..], view, format, &Default::default()).unwrap();
    out
}

/// The diff's lines as JSON.
fn diff(args: &[&str]) -> Vec<serde_json::Value> {
    json_lines("diff", args)
}

/// Both builds, in a temp folder named by `tag`; returns (root, the first all-index-0 block of BC1.ktx2 as (block number, its
/// colour0)), with that block's colour0 green raised by one 6-bit step in NEW.
fn two_builds(tag: &str) -> (PathBuf, usize, u16) {
    let src = samples().join(T2D);
    let root = temp_dir(tag);
    let (old, new) = (root.join("old"), root.join("new"));
    for d in ["ktx", "dds", "ue"] {
        std::fs::create_dir_all(old.join(d)).unwrap();
        std::fs::create_dir_all(new.join(d)).unwrap();
    }
    let read = |p: PathBuf| std::fs::read(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
    let put = |p: PathBuf, b: &[u8]| std::fs::write(p, b).unwrap();
    let bc1 = read(src.join("BC1.ktx2"));
    let bc7 = read(src.join("BC7.ktx2"));
    // Unchanged on both sides: an ATC .dds and two Unreal 4.27 packages (.uasset/.uexp/.ubulk).
    for side in [&old, &new] {
        put(side.join("dds/ATC_RGB.dds"), &read(src.join("ATC_RGB.dds")));
        let worm = samples().join("unreal/matya-uasset-samples/4.27");
        for f in ["T_Worm_D.uasset", "T_Worm_D.uexp", "T_Worm_D.ubulk"] {
            put(side.join("ue").join(f), &read(worm.join(f)));
        }
        for f in ["T_Worm_N.uasset", "T_Worm_N.uexp"] {
            put(side.join("ue").join(f), &read(worm.join(f)));
        }
    }
    // Removed and added.
    put(
        old.join("ktx/ETC1_RGB.ktx2"),
        &read(src.join("ETC1_RGB.ktx2")),
    );
    put(
        new.join("ktx/ETC2_RGB.ktx2"),
        &read(src.join("ETC2_RGB.ktx2")),
    );
    // Re-encoded: NEW's BC7.ktx2 holds the BC1 file.
    put(old.join("ktx/BC7.ktx2"), &bc7);
    put(new.join("ktx/BC7.ktx2"), &bc1);
    // One block changed. A BC1 block is colour0, colour1 (RGB565, little-endian) and 32 bits of
    // 2-bit indices; with every index 0 all 16 texels are colour0, in either block mode.
    put(old.join("ktx/BC1.ktx2"), &bc1);
    let level = ktx2_level0(&bc1);
    let k = bc1[level.clone()]
        .chunks_exact(8)
        .position(|b| b[4..8] == [0; 4])
        .expect("a block whose indices are all 0");
    let at = level.start + 8 * k;
    let c0 = u16::from_le_bytes([bc1[at], bc1[at + 1]]);
    let green = (c0 >> 5) & 63;
    let c0_new = if green < 63 {
        c0 + (1 << 5)
    } else {
        c0 - (1 << 5)
    };
    let mut changed = bc1.clone();
    changed[at..at + 2].copy_from_slice(&c0_new.to_le_bytes());
    put(new.join("ktx/BC1.ktx2"), &changed);
    // One mip shorter: T_Worm_D's stored mips written as .dds, NEW without mip 0.
    let path = samples().join("unreal/matya-uasset-samples/4.27/T_Worm_D.uasset");
    let files: Vec<texscope::SourceRef> = ["uasset", "uexp", "ubulk"]
        .iter()
        .map(|e| {
            let s = texscope::io::FileSource::open(&path.with_extension(e)).unwrap();
            std::sync::Arc::new(s) as texscope::SourceRef
        })
        .collect();
    let cat = texscope::open(files, &texscope::OpenOptions::default());
    let t = &cat.textures[0];
    let full = texscope::formats::dds::Desc::of(t);
    let short = texscope::formats::dds::Desc {
        width: full.width / 2,
        height: full.height / 2,
        mips: full.mips - 1,
        ..full.clone()
    };
    let write = |d: &texscope::formats::dds::Desc, skip: u32| {
        texscope::formats::dds::write(d, |m, _| Ok(cat.read_surface(0, (m + skip) as usize, 0)?.0))
            .unwrap()
    };
    put(old.join("dds/worm.dds"), &write(&full, 0));
    put(new.join("dds/worm.dds"), &write(&short, 1));
    (root, k, c0)
}

#[test]
fn diff_of_two_builds_lists_what_changed() {
    let (root, block, c0) = two_builds("diff-builds");
    let (old, new) = (root.join("old"), root.join("new"));
    let lines = diff(&[old.to_str().unwrap(), new.to_str().unwrap()]);
    let (summary, records) = lines.split_last().unwrap();
    // 3 unchanged (ATC_RGB, T_Worm_D, T_Worm_N), 3 changed, 1 added, 1 removed.
    assert_eq!(
        summary,
        &serde_json::json!({"summary": {"unchanged": 3, "changed": 3, "added": 1, "removed": 1}})
    );
    let list: Vec<(&str, &str, &str)> = records
        .iter()
        .map(|r| {
            (
                r["path"].as_str().unwrap(),
                r["name"].as_str().unwrap(),
                r["status"].as_str().unwrap(),
            )
        })
        .collect();
    // In key order: path, then name.
    assert_eq!(
        list,
        [
            ("dds/worm.dds", "worm", "changed"),
            ("ktx/BC1.ktx2", "BC1", "changed"),
            ("ktx/BC7.ktx2", "BC7", "changed"),
            ("ktx/ETC1_RGB.ktx2", "ETC1_RGB", "removed"),
            ("ktx/ETC2_RGB.ktx2", "ETC2_RGB", "added"),
        ]
    );
    let by = |name: &str| records.iter().find(|r| r["name"] == name).unwrap();
    let null = serde_json::Value::Null;

    // The changed block, by hand: green is 6 bits widened to 8 as (g << 2) | (g >> 4) (BC1's
    // bit replication); only green changes, in 16 texels of one 4x4 block of 512x512.
    let r = by("BC1");
    assert_eq!(r["changes"], serde_json::json!(["data"]));
    let g6 = ((c0 >> 5) & 63) as i32;
    let g6_new = if g6 < 63 { g6 + 1 } else { g6 - 1 };
    let g8 = |g: i32| (g << 2) | (g >> 4);
    let d = (g8(g6_new) - g8(g6)).abs() as f64;
    let (bx, by_) = ((block % 128) as u32 * 4, (block / 128) as u32 * 4);
    assert_eq!(r["differing_texels"], 16);
    assert_eq!(r["differing_share"], 16.0 / (512.0 * 512.0));
    assert_eq!(r["bbox"], serde_json::json!([bx, by_, 4, 4]));
    assert_eq!(r["max_abs"], d / 255.0);
    let mean = r["mean_abs"].as_f64().unwrap();
    assert!((mean - 16.0 * d / 255.0 / (512.0 * 512.0 * 4.0)).abs() < 1e-15);
    // PSNR of green: 10 log10(1 / mse), mse = 16 (d/255)² / 512².
    let want = 10.0 * (512.0 * 512.0 / (16.0 * (d / 255.0).powi(2))).log10();
    let got = r["psnr"]["g"].as_f64().unwrap();
    assert!((got - want).abs() < 1e-9, "{got} != {want}");
    for c in ["r", "b", "a"] {
        assert_eq!(r["psnr"][c], null, "{c} is unchanged: no (infinite) PSNR");
    }
    assert_eq!(
        r["compared"],
        serde_json::json!({"old_mip": 0, "new_mip": 0, "width": 512, "height": 512, "scaled": false})
    );
    assert_eq!((&r["notice"], &r["error"]), (&null, &null));
    assert_eq!(
        (r["old"]["format"].as_str(), r["new"]["format"].as_str()),
        (Some("BC1"), Some("BC1"))
    );

    // The re-encode: BC7 blocks against BC1 blocks of the same image, both decoded by `dds`.
    let r = by("BC7");
    assert_eq!(r["changes"], serde_json::json!(["format"]));
    assert_eq!(
        (r["old"]["format"].as_str(), r["new"]["format"].as_str()),
        (Some("BC7"), Some("BC1"))
    );
    let bc7 = std::fs::read(old.join("ktx/BC7.ktx2")).unwrap();
    let bc1 = std::fs::read(new.join("ktx/BC7.ktx2")).unwrap();
    let a = dds_rgba8(dds::Format::BC7_UNORM, &bc7[ktx2_level0(&bc7)]);
    let b = dds_rgba8(dds::Format::BC1_UNORM, &bc1[ktx2_level0(&bc1)]);
    let (mut count, mut max) = (0u64, 0u8);
    let (mut x0, mut y0, mut x1, mut y1) = (512, 512, 0, 0);
    for (i, (p, q)) in a.chunks_exact(4).zip(b.chunks_exact(4)).enumerate() {
        if p != q {
            let (x, y) = (i % 512, i / 512);
            count += 1;
            (x0, y0, x1, y1) = (x0.min(x), y0.min(y), x1.max(x), y1.max(y));
        }
        max = max.max((0..4).map(|c| p[c].abs_diff(q[c])).max().unwrap());
    }
    assert_eq!(r["differing_texels"], count);
    assert_eq!(r["max_abs"], max as f64 / 255.0);
    assert_eq!(
        r["bbox"],
        serde_json::json!([x0, y0, x1 - x0 + 1, y1 - y0 + 1])
    );
    for (i, c) in ["r", "g", "b", "a"].iter().enumerate() {
        let want = common::psnr(&a, &b, &[i]);
        match r["psnr"][c].as_f64() {
            Some(got) => assert!((got - want).abs() < 1e-9, "{c}: {got} != {want}"),
            None => assert!(want.is_infinite(), "{c}: null, but {want} dB"),
        }
    }

    // One mip shorter: NEW's mip 0 is OLD's mip 1, byte for byte: mip-matched, no difference.
    let r = by("worm");
    assert_eq!(r["changes"], serde_json::json!(["size", "mips"]));
    assert_eq!(
        r["compared"],
        serde_json::json!({"old_mip": 1, "new_mip": 0, "width": 128, "height": 128, "scaled": false})
    );
    assert_eq!(
        (&r["differing_texels"], &r["max_abs"]),
        (&serde_json::json!(0), &serde_json::json!(0.0))
    );
    assert!(r["notice"].as_str().unwrap().contains("mip-matched"), "{r}");

    // Added and removed: the side that has it, nothing else.
    let r = by("ETC1_RGB");
    assert_eq!(
        (&r["new"], &r["psnr"], &r["differing_texels"]),
        (&null, &null, &null)
    );
    assert_eq!(r["old"]["format"], "ETC2RGB");
    let r = by("ETC2_RGB");
    assert_eq!((&r["old"], &r["psnr"]), (&null, &null));
    assert_eq!(
        r["new"]["file"],
        new.join("ktx/ETC2_RGB.ktx2").to_str().unwrap()
    );

    // Any --jobs gives the same lines; unchanged pairs are never decoded: the 3 changed pairs
    // decode 2 surfaces each.
    let one = run(&[
        "diff",
        old.to_str().unwrap(),
        new.to_str().unwrap(),
        "--jobs",
        "1",
    ]);
    let three = bin()
        .args([
            "diff",
            old.to_str().unwrap(),
            new.to_str().unwrap(),
            "--jobs",
            "3",
        ])
        .env("TEXSCOPE_STATS", "1")
        .output()
        .unwrap();
    assert!(one.stdout == three.stdout);
    let stats = String::from_utf8_lossy(&three.stderr);
    assert!(stats.contains(" decodes=6 "), "{stats}");
    let _ = std::fs::remove_dir_all(&root);
}

#[test]
fn diff_of_two_files_and_bad_command_lines() {
    let (root, ..) = two_builds("diff-files");
    let (old, new) = (root.join("old"), root.join("new"));
    // Two files: their one texture each pairs whatever the names (the re-encode, from another
    // side: OLD's BC7 file against NEW's modified BC1 file).
    let a = old.join("ktx/BC7.ktx2");
    let b = new.join("ktx/BC1.ktx2");
    let lines = diff(&[a.to_str().unwrap(), b.to_str().unwrap()]);
    assert_eq!(lines.len(), 2, "{lines:?}");
    assert_eq!(
        (lines[0]["status"].as_str(), lines[0]["path"].as_str()),
        (Some("changed"), Some(""))
    );
    assert_eq!(lines[0]["changes"], serde_json::json!(["format"]));
    // A build against itself: everything unchanged, nothing listed.
    let same = diff(&[old.to_str().unwrap(), old.to_str().unwrap()]);
    assert_eq!(
        same,
        [serde_json::json!({"summary": {"unchanged": 7, "changed": 0, "added": 0, "removed": 0}})]
    );
    // A missing root is an error (exit 2); one path, three paths or export options are usage errors.
    let out = run(&["diff", old.to_str().unwrap(), "/nonexistent/texscope"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("no such file"));
    for args in [
        &["diff", "x"][..],
        &["diff", "x", "y", "z"],
        &["diff", "x", "y", "--mip", "1"],
    ] {
        let out = run(args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(
            String::from_utf8_lossy(&out.stderr).contains("usage"),
            "{args:?}"
        );
    }
    let _ = std::fs::remove_dir_all(&root);
}

// ---- export layout (issue 19) ------------------------------------------------------------------
// Expected names follow the README's rule (stated in src/export.rs and `texscope --help`):
// `<where>/<texture>[__mip<N>][__s<S>].<ext>`, the file a folder unless it holds one texture
// named after it, names compared ignoring case, a taken name getting `~2` with a warning.

/// Every file under `dir`: (path relative to `dir` with `/`, bytes), sorted by path.
fn tree(dir: &Path) -> Vec<(String, Vec<u8>)> {
    fn walk(root: &Path, d: &Path, out: &mut Vec<(String, Vec<u8>)>) {
        for e in std::fs::read_dir(d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                walk(root, &p, out);
            } else {
                let rel = p
                    .strip_prefix(root)
                    .unwrap()
                    .to_string_lossy()
                    .replace('\\', "/");
                out.push((rel, std::fs::read(&p).unwrap()));
            }
        }
    }
    let mut out = Vec::new();
    walk(dir, dir, &mut out);
    out.sort();
    out
}

fn export_ok(args: &[&str]) -> String {
    let out = run(&[&["export"], args].concat());
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    stderr
}

/// A UnityFS bundle holding two serialized files, each with one RGBA32 Texture2D named T_Fuzz
/// (tests/unity_fixtures), 2x2 of one colour each: two textures of one name in one file.
fn twin_bundle(colours: [[u8; 4]; 2]) -> Vec<u8> {
    use unity_fixtures::{unity_serialized, unityfs, UnityTex};
    let images: Vec<Vec<u8>> = colours.iter().map(|c| c.repeat(4)).collect();
    let files: Vec<Vec<u8>> = images
        .iter()
        .map(|image| {
            let tex = UnityTex {
                width: 2,
                height: 2,
                format: 4, // RGBA32 (seed 004)
                mips: 1,
                image,
                stream: None,
            };
            unity_serialized("2020.3.0f1", 22, &tex)
        })
        .collect();
    unityfs(
        "2020.3.0f1",
        &[("CAB-aaaa", &files[0]), ("CAB-bbbb", &files[1])],
        0,
    )
}

#[test]
fn export_mirrors_folders_and_numbers_collisions() {
    let dir = temp_dir("layout");
    let root = dir.join("in");
    let put = |rel: &str, fx: &Fixture| {
        let p = root.join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, fx.bytes()).unwrap();
    };
    // Same file name in two folders; names equal but for case; names equal once ':' is replaced;
    // a Windows device name; a bundle with two textures of one name.
    let fx = Fixture::simple("t.dds", texscope::PixelFormat::RGBA8, 2, 2, 1);
    for rel in [
        "a/x.dds",
        "b/x.dds",
        "a/X.dds",
        "a/c:d.dds",
        "a/c_d.dds",
        "b/deep/con.dds",
    ] {
        put(rel, &fx);
    }
    let red = [255, 0, 0, 255];
    let blue = [0, 0, 255, 128];
    std::fs::write(root.join("a/bundle"), twin_bundle([red, blue])).unwrap();
    let out_dir = dir.join("out");
    let (r, o) = (root.to_str().unwrap(), out_dir.to_str().unwrap());
    let stderr = export_ok(&[r, "--out", o, "--jobs", "1"]);
    let names: Vec<String> = tree(&out_dir).into_iter().map(|(p, _)| p).collect();
    // Sorted file order: a/X.dds before a/x.dds (byte order), a/c:d.dds before a/c_d.dds.
    assert_eq!(
        names,
        [
            "a/X.png",
            "a/bundle/T_Fuzz.png",
            "a/bundle/T_Fuzz~2.png",
            "a/c_d.png",
            "a/c_d~2.png",
            "a/x~2.png",
            "b/deep/_con.png",
            "b/x.png",
        ],
        "{stderr}"
    );
    // One warning per renamed texture, naming the one that kept the name.
    assert_eq!(stderr.matches("warning: name taken").count(), 3, "{stderr}");
    assert!(
        stderr.contains("a/x.dds: x: warning: name taken: a/x.png is taken by")
            && stderr.contains("a/X.dds: X; written as a/x~2.png"),
        "{stderr}"
    );
    assert!(stderr.contains("wrote 8 file(s)"), "{stderr}");
    // The bundle's textures in its own order: the first (red, opaque: RGB) keeps the name.
    let (info, first) = read_png_rgba(&out_dir.join("a/bundle/T_Fuzz.png"));
    assert_eq!(info.color_type, png::ColorType::Rgb);
    assert_eq!(first, red.repeat(4));
    let (info, second) = read_png_rgba(&out_dir.join("a/bundle/T_Fuzz~2.png"));
    assert_eq!(info.color_type, png::ColorType::Rgba);
    assert_eq!(second, blue.repeat(4));
    // Exporting again gives the same names and says it replaced the earlier files.
    let again = export_ok(&[r, "--out", o, "--jobs", "3"]);
    assert!(
        again.contains("wrote 8 file(s)") && again.contains("8 of them replaced"),
        "{again}"
    );
    assert_eq!(tree(&out_dir).len(), 8);
    // Several PATHs: each file relative to the PATH it was found under, trees merged; a file
    // given as PATH is placed by its own name.
    let out2 = dir.join("out2");
    let stderr = export_ok(&[
        root.join("a").to_str().unwrap(),
        root.join("b").to_str().unwrap(),
        root.join("b/x.dds").to_str().unwrap(),
        "--out",
        out2.to_str().unwrap(),
        "--format",
        "raw",
    ]);
    let names: Vec<String> = tree(&out2).into_iter().map(|(p, _)| p).collect();
    assert_eq!(
        names,
        [
            "X.raw",
            "bundle/T_Fuzz.raw",
            "bundle/T_Fuzz~2.raw",
            "c_d.raw",
            "c_d~2.raw",
            "deep/_con.raw",
            "x~2.raw",
            "x~3.raw",
        ],
        "{stderr}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn export_is_the_same_for_any_jobs() {
    // Forty folders of the standard DDS set (every shape) plus a twin bundle each, exported with
    // every mip and slice: the files (names and bytes) are the same for 1, 2 and 5 threads.
    let dir = temp_dir("export-jobs");
    let set = standard_set();
    for k in 0..12 {
        let sub = dir.join(format!("in/g{k:02}"));
        std::fs::create_dir_all(&sub).unwrap();
        write_fixtures(&sub, &set[k % 5..]);
        std::fs::write(sub.join("bundle"), twin_bundle([[k as u8; 4], [9; 4]])).unwrap();
    }
    let input = dir.join("in");
    let mut first: Option<Vec<(String, Vec<u8>)>> = None;
    for jobs in ["1", "2", "5"] {
        let out_dir = dir.join(format!("out{jobs}"));
        export_ok(&[
            input.to_str().unwrap(),
            "--out",
            out_dir.to_str().unwrap(),
            "--all-mips",
            "--all-slices",
            "--jobs",
            jobs,
        ]);
        let t = tree(&out_dir);
        match &first {
            None => {
                assert!(t.len() > 12 * set.len(), "{} files", t.len());
                first = Some(t);
            }
            Some(f) => assert!(f == &t, "--jobs {jobs} changed the export"),
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn cube_cross_and_slices() {
    // The standard set's BC3 cube (6 faces, 3 mips): --cube-cross gives one image a mip, 4 faces
    // wide and 3 high, each cell the decode of the face the README puts there; --all-slices
    // gives __s0..__s5; a volume's depth slices and an array's layers are __s<S> as well.
    let dir = temp_dir("cross");
    let set = standard_set();
    let pick = |f: &str| set.iter().find(|fx| fx.file == f).unwrap();
    let cube = pick("BC3_cube.dds");
    std::fs::write(dir.join(&cube.file), cube.bytes()).unwrap();
    let out_dir = dir.join("out");
    export_ok(&[
        dir.join("BC3_cube.dds").to_str().unwrap(),
        "--out",
        out_dir.to_str().unwrap(),
        "--cube-cross",
        "--all-mips",
    ]);
    let limits = Limits::default();
    // (column, row) of +X, -X, +Y, -Y, +Z, -Z in the horizontal cross.
    let cells = [(2, 1), (0, 1), (1, 0), (1, 2), (1, 1), (3, 1)];
    for m in 0..cube.desc.mips {
        let (info, cross) = read_png_rgba(&out_dir.join(format!("BC3_cube__mip{m}.png")));
        let (_, w, h) = cube.surface(m, 0);
        assert_eq!((info.width, info.height), (4 * w, 3 * h));
        for (face, (cx, cy)) in cells.iter().enumerate() {
            let (bytes, ..) = cube.surface(m, face as u32);
            let want = decode_surface(cube.desc.format, w, h, bytes, &limits)
                .unwrap()
                .to_rgba8();
            for y in 0..h as usize {
                let row = (cy * h as usize + y) * 4 * w as usize * 4 + cx * w as usize * 4;
                let want_row = &want[y * w as usize * 4..(y + 1) * w as usize * 4];
                assert_eq!(
                    &cross[row..row + w as usize * 4],
                    want_row,
                    "mip {m} face {face}"
                );
            }
        }
    }
    assert_eq!(tree(&out_dir).len(), cube.desc.mips as usize);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn dds_and_ktx2_keep_every_mip_and_slice() {
    // --format dds: one .dds a texture holding the stored blocks of every mip and slice; read
    // back with the library, each surface equals the fixture's bytes.
    let dir = temp_dir("dds-out");
    let set = standard_set();
    write_fixtures(&dir, &set);
    let out_dir = dir.join("out");
    export_ok(&[
        dir.to_str().unwrap(),
        "--out",
        out_dir.to_str().unwrap(),
        "--format",
        "dds",
    ]);
    let ktx_dir = dir.join("ktx");
    let stderr = export_ok(&[
        dir.to_str().unwrap(),
        "--out",
        ktx_dir.to_str().unwrap(),
        "--format",
        "ktx2",
    ]);
    let mut ktx_checked = 0;
    for fx in &set {
        let stem = fx.file.trim_end_matches(".dds");
        for (folder, ext) in [(&out_dir, "dds"), (&ktx_dir, "ktx2")] {
            let path = folder.join(format!("{stem}.{ext}"));
            if ext == "ktx2" && !texscope::formats::ktx::can_write(fx.desc.format, fx.desc.srgb) {
                assert!(!path.exists());
                assert!(
                    stderr.contains(&format!(
                        "{}: {stem}: every mip and slice: ",
                        dir.join(&fx.file).display()
                    )),
                    "{stderr}"
                );
                continue;
            }
            let bytes = std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            let cat = texscope::open(
                vec![texscope::io::BytesSource::shared(format!("t.{ext}"), bytes)],
                &texscope::OpenOptions::default(),
            );
            assert_eq!(
                cat.textures.len(),
                1,
                "{} {:?}",
                path.display(),
                cat.problems
            );
            let t = &cat.textures[0];
            assert_eq!(
                (t.width, t.height, t.kind, t.format),
                (fx.desc.width, fx.desc.height, fx.desc.kind, fx.desc.format),
                "{}",
                path.display()
            );
            for m in 0..fx.desc.mips {
                for s in 0..fx.surface_count(m) {
                    let (got, ..) = cat.read_surface(0, m as usize, s).unwrap();
                    assert!(
                        got == fx.surface(m, s).0,
                        "{} mip {m} slice {s}",
                        path.display()
                    );
                }
            }
            if ext == "ktx2" {
                ktx_checked += 1;
            }
        }
    }
    assert!(ktx_checked >= 8, "{ktx_checked} KTX 2 files checked");
    let _ = std::fs::remove_dir_all(&dir);
}

/// The (dfd, level data) of a KTX 2 file with one level and no supercompression.
fn ktx2_parts(b: &[u8]) -> (u32, Vec<u8>, Vec<u8>) {
    let u32_at = |o: usize| u32::from_le_bytes(b[o..o + 4].try_into().unwrap());
    let u64_at = |o: usize| u64::from_le_bytes(b[o..o + 8].try_into().unwrap()) as usize;
    let (dfd_at, dfd_len) = (u32_at(48) as usize, u32_at(52) as usize);
    let (lv_at, lv_len) = (u64_at(80), u64_at(88));
    (
        u32_at(12),
        b[dfd_at..dfd_at + dfd_len].to_vec(),
        b[lv_at..lv_at + lv_len].to_vec(),
    )
}

#[test]
fn ktx2_export_matches_pvrtextool_files() {
    // The shared KTX 2 files were written by PVRTexTool 5.5 and libktx 4.0 (MANIFEST.md): our
    // export of each one the writer supports has their vkFormat, their data format descriptor
    // byte for byte, and their level data.
    let src =
        samples().join("unity/UniversalGameExtraction_texture2ddecoder/resources/tests/textures");
    let dir = temp_dir("ktx2-ref");
    let out_dir = dir.join("out");
    export_ok(&[
        src.to_str().unwrap(),
        "--out",
        out_dir.to_str().unwrap(),
        "--format",
        "ktx2",
    ]);
    let mut checked = Vec::new();
    for e in std::fs::read_dir(&src).unwrap() {
        let p = e.unwrap().path();
        if p.extension().is_none_or(|x| x != "ktx2") {
            continue;
        }
        let name = p.file_stem().unwrap().to_string_lossy().into_owned();
        let ours = out_dir.join(format!("{name}.ktx2"));
        let Ok(ours) = std::fs::read(&ours) else {
            continue;
        };
        let (vk, dfd, data) = ktx2_parts(&std::fs::read(&p).unwrap());
        assert_eq!(ktx2_parts(&ours), (vk, dfd, data), "{name}");
        checked.push(name);
    }
    checked.sort();
    // BC1-5, BC6H, BC7, the ETC2/EAC set, ASTC and PVRTC 1 are all covered by reference files.
    for must in [
        "ASTC_6x6",
        "BC1",
        "BC3",
        "BC5",
        "BC6H",
        "BC7",
        "EAC_RG11",
        "ETC2_RGBA",
        "ETC2_RGB_A1",
        "PVRTCI_4bpp_RGBA",
    ] {
        assert!(
            checked.iter().any(|c| c == must),
            "{must} not checked: {checked:?}"
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn shared_unity_samples_export_one_file_per_texture() {
    // Every Unity container of the shared samples (the UnityPy bench's 39 files; the two decoder
    // test-vector folders are not Unity files): one file per texture of the census, none
    // overwritten (the 5 `assetbundle` and 2 `unity default resources` files used to clobber each
    // other). Raw, so the debug build stays cheap; `--format png` places files by the same rule.
    let root = samples().join("unity");
    let folders: Vec<String> = std::fs::read_dir(&root)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| {
            p.is_dir()
                && ![
                    "AssetRipper_TextureDecoder",
                    "UniversalGameExtraction_texture2ddecoder",
                ]
                .iter()
                .any(|s| p.ends_with(s))
        })
        .map(|p| p.display().to_string())
        .collect();
    let args: Vec<&str> = folders.iter().map(String::as_str).collect();
    let lines = census(&args);
    let textures: Vec<&serde_json::Value> =
        lines.iter().filter(|l| l["name"].is_string()).collect();
    // 0x0 textures (Unity's empty Font Texture) have no pixels to write; the export says so.
    let empty = textures.iter().filter(|l| l["width"] == 0).count();
    assert_eq!(textures.len(), 130, "census of the UnityPy corpus");
    let dir = temp_dir("unity-all");
    let out_dir = dir.join("out");
    let mut a = args.clone();
    a.extend(["--out", out_dir.to_str().unwrap(), "--format", "raw"]);
    let stderr = export_ok(&a);
    let files = tree(&out_dir);
    assert_eq!(files.len(), textures.len() - empty, "{stderr}");
    assert_eq!(stderr.matches("has no pixels").count(), empty, "{stderr}");
    assert!(
        stderr.contains(&format!("wrote {} file(s)", files.len())),
        "{stderr}"
    );
    // The same-named bundles of five Unity versions each keep their own folder (paths relative
    // to the PATH each was found under: the repository folders were given one by one), and
    // inside each the asset's m_Container path: assets/assetbundledata/wood.jpg (UnityPy 1.25.4's
    // `env.container` lists that path for Texture2D `wood`); wood.jpg holds only `wood`, so the
    // image takes its place.
    for v in [
        "2019.4.0f1",
        "2020.3.0f1",
        "2021.3.0f1",
        "2022.1.20f1",
        "2023.1.0a16",
    ] {
        let p =
            format!("TestCommon/Data/AssetBundles/{v}/assetbundle/assets/assetbundledata/wood.raw");
        assert!(files.iter().any(|(n, _)| n == &p), "{p} missing");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn ktx2_export_of_a_unity_texture_keeps_its_row_order() {
    // Unity stores rows bottom first (seed 004); the KTX 2 export keeps the stored bytes and says
    // so with KTXorientation "ru", so reading it back gives the same top-first image as reading the
    // Unity file (the shared liuruihhh sample's UISprite, RGBA32 32x32 with 6 mips).
    let src = samples().join("unity/liuruihhh_unityrenderer/Build/UnityRenderer_Data");
    let dir = temp_dir("ktx2-unity");
    let out_dir = dir.join("out");
    export_ok(&[
        src.join("sharedassets0.assets").to_str().unwrap(),
        src.join("sharedassets0.assets.resS").to_str().unwrap(),
        "--out",
        out_dir.to_str().unwrap(),
        "--format",
        "ktx2",
    ]);
    let open_files = |paths: &[PathBuf]| {
        let sources = paths
            .iter()
            .map(|p| {
                texscope::io::BytesSource::shared(
                    p.file_name().unwrap().to_string_lossy().into_owned(),
                    std::fs::read(p).unwrap(),
                )
            })
            .collect();
        texscope::open(sources, &texscope::OpenOptions::default())
    };
    let unity = open_files(&[
        src.join("sharedassets0.assets"),
        src.join("sharedassets0.assets.resS"),
    ]);
    let i = unity
        .textures
        .iter()
        .position(|t| t.name == "UISprite")
        .unwrap();
    let ktx = open_files(&[out_dir.join("sharedassets0.assets/UISprite.ktx2")]);
    let bytes = std::fs::read(out_dir.join("sharedassets0.assets/UISprite.ktx2")).unwrap();
    assert!(bytes.windows(18).any(|w| w == b"KTXorientation\0ru\0"));
    for m in 0..unity.textures[i].mips.len() {
        let want = unity.decode(i, m, 0, Default::default()).unwrap();
        let got = ktx.decode(0, m, 0, Default::default()).unwrap();
        assert!(got == want, "mip {m}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// Issue 17 at the command line, on the UE 5.8 fixtures (shared samples, cue4parse-fixtures;
/// their MANIFEST gives the key): an encrypted IoStore container without a key is one line
/// saying it needs one, and the rest of the command's paths stay usable; with `--aes-key` (hex,
/// or a JSON file by GUID as FModel users keep keys) it lists its textures with `"file"` = the
/// .utoc and `"path"` = the package path; the key is printed nowhere; export writes under the
/// container and package path.
#[test]
fn containers_take_aes_keys() {
    let hex = "0x435545345061727365466978747572654145534B657930313233343536373839";
    let ue = samples().join("unreal/cue4parse-fixtures/UE5_8");
    let enc = ue.join("IoStore/Unversioned/OodleEncrypted");
    let plain = ue.join("IoStore/Unversioned/Zlib");
    let enc_s = enc.to_str().unwrap();
    let plain_s = plain.to_str().unwrap();
    let out = census(&[enc_s, plain_s]);
    // Problem records have no texture name.
    let (listed, needs): (Vec<_>, Vec<_>) = out.iter().partition(|r| r["name"].is_string());
    assert_eq!(needs.len(), 1, "{needs:?}");
    assert!(needs[0]["error"]
        .as_str()
        .unwrap()
        .contains("needs an AES key"));
    // The Zlib twin lists the 21 textures of the MANIFEST's table and the landscape map's
    // heightmap and weightmap.
    assert_eq!(listed.len(), 23);
    let dir = temp_dir("aes");
    let keyfile = dir.join("keys.json");
    std::fs::write(
        &keyfile,
        format!(r#"{{"00000000000000000000000000000000": "{hex}"}}"#),
    )
    .unwrap();
    for key in [hex, keyfile.to_str().unwrap()] {
        let run_out = run(&["census", "--aes-key", key, enc_s]);
        let text = String::from_utf8(run_out.stdout).unwrap();
        assert!(!text
            .to_ascii_lowercase()
            .contains(&hex[2..].to_ascii_lowercase()));
        let rows: Vec<serde_json::Value> = text
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        assert_eq!(rows.len(), 23, "{text}");
        for r in &rows {
            assert!(r["file"]
                .as_str()
                .unwrap()
                .ends_with("OodleEncrypted-Windows.utoc"));
            assert!(r["path"]
                .as_str()
                .unwrap()
                .starts_with("CUE4ParseFixtures/Content/Fixtures/"));
        }
    }
    let bad = run(&["census", "--aes-key", "0x1234", enc_s]);
    assert_eq!(bad.status.code(), Some(2));
    assert!(!String::from_utf8_lossy(&bad.stderr).contains("1234"));
    let o = run(&[
        "export",
        "--aes-key",
        hex,
        enc_s,
        "--out",
        dir.to_str().unwrap(),
    ]);
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    // README's export rule: the container becomes a folder, then the package's path inside it;
    // a package holding one texture named after it gives its image beside it (T_BC1.png).
    let png = dir.join(
        "CUE4ParseFixtures-Minimal-OodleEncrypted-Windows.utoc/CUE4ParseFixtures/Content/\
         Fixtures/Textures/T_BC1.png",
    );
    let (info, _) = read_png(&png);
    assert_eq!(
        (info.width, info.height),
        (64, 64),
        "T_BC1 is 64x64 (MANIFEST)"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// Three folders of the standard DDS fixtures (several folder groups, so the bar moves more than
/// once), and a NEW build for `diff` with one folder's first fixture removed.
fn progress_fixtures(tag: &str) -> (PathBuf, PathBuf, usize) {
    let root = temp_dir(tag);
    let set = standard_set();
    let (old, new) = (root.join("old"), root.join("new"));
    for side in [&old, &new] {
        for sub in ["a", "b", "c"] {
            let d = side.join(sub);
            std::fs::create_dir_all(&d).unwrap();
            write_fixtures(&d, &set);
        }
    }
    std::fs::remove_file(new.join("a").join(&set[0].file)).unwrap();
    (old, new, 3 * set.len())
}

/// The files under `dir`, recursively.
fn count_files(dir: &Path) -> usize {
    std::fs::read_dir(dir)
        .unwrap()
        .flatten()
        .map(|e| {
            let p = e.path();
            if p.is_dir() {
                count_files(&p)
            } else {
                1
            }
        })
        .sum()
}

#[test]
fn piped_output_has_no_progress_and_quiet_changes_nothing_else() {
    // Issue 34: the bar is drawn only on a terminal. Here stdout and stderr are pipes, so each
    // command's output must be the same with and without --quiet, byte for byte, and stderr must
    // hold no bar (indicatif draws with \r and escape sequences; the bar says "files ·").
    let (old, new, n) = progress_fixtures("progress-piped");
    let (old_s, new_s) = (old.to_str().unwrap(), new.to_str().unwrap());
    let out_dir = old.parent().unwrap().join("out");
    let out_s = out_dir.to_str().unwrap();
    let commands: [Vec<&str>; 3] = [
        vec!["census", old_s],
        vec!["diff", old_s, new_s],
        vec!["export", old_s, "--out", out_s],
    ];
    for args in commands {
        // Each run exports into an empty folder, so its last line is the same.
        let go = |extra: &[&str]| {
            let _ = std::fs::remove_dir_all(&out_dir);
            run(&[&args[..], extra].concat())
        };
        let (plain, quiet, short) = (go(&[]), go(&["--quiet"]), go(&["-q"]));
        for o in [&plain, &quiet, &short] {
            assert_eq!(
                o.status.code(),
                Some(0),
                "{args:?}: {}",
                String::from_utf8_lossy(&o.stderr)
            );
            let err = String::from_utf8_lossy(&o.stderr);
            // Nor the count shown while the folders are listed (progress.rs `Listing`).
            assert!(
                !err.contains('\r')
                    && !err.contains('\x1b')
                    && !err.contains("files ·")
                    && !err.contains("Listing"),
                "{args:?}: {err}"
            );
        }
        assert_eq!(plain.stdout, quiet.stdout, "{args:?}");
        assert_eq!(plain.stdout, short.stdout, "{args:?}");
        assert_eq!(plain.stderr, quiet.stderr, "{args:?}");
        if args[0] == "census" {
            // One census line per texture: every fixture is one texture (dds_fixtures).
            assert_eq!(plain.stdout.iter().filter(|&&b| b == b'\n').count(), n);
        }
        if args[0] == "export" {
            // The last line still counts what was written: one PNG per fixture (mip 0, slice 0;
            // every standard fixture is a 2D texture with one surface a mip).
            assert_eq!(count_files(&out_dir), n);
            let err = String::from_utf8_lossy(&quiet.stderr);
            let last = err.lines().last().unwrap_or_default();
            assert_eq!(
                last,
                format!("texscope: wrote {n} file(s) to {out_s}"),
                "{err}"
            );
        }
    }
    let _ = std::fs::remove_dir_all(old.parent().unwrap());
}

/// `script` from util-linux, which runs a command on a pseudo-terminal; None where it is missing.
fn script_bin() -> Option<PathBuf> {
    ["/usr/bin/script", "/bin/script"]
        .into_iter()
        .map(PathBuf::from)
        .find(|p| p.exists())
}

/// What `texscope ARGS` writes to a terminal's stderr (stdout goes to /dev/null), run under
/// `script -qec` so stderr is a pseudo-terminal.
fn on_terminal(script: &Path, args: &[&str]) -> String {
    let quote = |s: &str| format!("'{}'", s.replace('\'', "'\\''"));
    let line = std::iter::once(env!("CARGO_BIN_EXE_texscope"))
        .chain(args.iter().copied())
        .map(quote)
        .collect::<Vec<_>>()
        .join(" ");
    let out = Command::new(script)
        .args(["-qec", &format!("{line} >/dev/null"), "/dev/null"])
        .env("TERM", "xterm")
        .output()
        .unwrap();
    String::from_utf8_lossy(&succeeded(out).stdout).into_owned()
}

#[test]
fn a_terminal_gets_the_bar_and_quiet_leaves_it_out() {
    let Some(script) = script_bin() else {
        eprintln!("skipped: no `script` (util-linux) to run texscope on a pseudo-terminal");
        return;
    };
    let (old, new, n) = progress_fixtures("progress-tty");
    let (old_s, new_s) = (old.to_str().unwrap(), new.to_str().unwrap());
    let out_dir = old.parent().unwrap().join("out");
    let out_s = out_dir.to_str().unwrap();
    // `--jobs 1`: the groups finish one after another, so the bar is drawn between them.
    let commands: [Vec<&str>; 3] = [
        vec!["census", "--jobs", "1", old_s],
        vec!["diff", "--jobs", "1", old_s, new_s],
        vec!["export", "--jobs", "1", old_s, "--out", out_s],
    ];
    for args in commands {
        let tty = on_terminal(&script, &args);
        // The bar's own words (src/bin/texscope/progress.rs): files done of all the files found.
        let files = if args[0] == "diff" { 2 * n - 1 } else { n };
        assert!(
            tty.contains(&format!("/{files} files · ")),
            "{args:?}: {tty:?}"
        );
        // Before it, while the folders are listed, the files found so far (progress.rs
        // `Listing`), drawn at least once with the walk's total (diff lists both builds: the
        // fixtures written, less the one removed from NEW) and cleared before the bar.
        let listed = format!("Listing: {files} files found");
        let (at_list, at_bar) = (tty.find(&listed), tty.find(" files · "));
        assert!(
            at_list.is_some_and(|l| at_bar.is_some_and(|b| l < b)),
            "{args:?}: {tty:?}"
        );
        assert!(
            tty.contains(" read · ") && tty.contains("/s · "),
            "{args:?}: {tty:?}"
        );
        if args[0] == "export" {
            // Cleared at the end: the last line is the command's own count.
            let last = tty.rsplit(['\r', '\n']).find(|l| !l.trim().is_empty());
            assert!(
                last.is_some_and(|l| l.contains(&format!("texscope: wrote {n} file(s)"))),
                "{tty:?}"
            );
        }
        let quiet = on_terminal(&script, &[&args[..], &["--quiet"]].concat());
        assert!(
            !quiet.contains("files ·") && !quiet.contains('\x1b') && !quiet.contains("Listing"),
            "{args:?}: {quiet:?}"
        );
    }
    let _ = std::fs::remove_dir_all(old.parent().unwrap());
}

/// `--platform` is checked and reaches the census: a word that is not a platform is refused, and
/// the Switch sample's fields are the file's own (its blob says block-linear; UnityPy 1.25.4
/// reads the same file as Switch, target 38, with a block height of 16: tests/unity_switch.rs).
#[test]
fn platform_option_is_checked_and_census_shows_platform_and_tiling() {
    let bad = run(&["census", "--platform", "xbox", "."]);
    assert_eq!(bad.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&bad.stderr).contains("--platform is switch, ps4, ps5 or pc"));
    let file = samples()
        .join("console/switch/Foxiary+unlogical-vi-patch/romfs/Data/sharedassets16.assets");
    let lines = census(&["--platform", "switch", file.to_str().unwrap()]);
    assert_eq!(lines.len(), 1);
    assert_eq!(lines[0]["platform"], "switch");
    assert_eq!(lines[0]["tiling"], "block_linear");
}

/// The shared editor set (read in place): `<project>/<path>` of a package MANIFEST.tsv lists.
fn editor_sample(project: &str, path: &str) -> PathBuf {
    samples().join("unreal-editor").join(project).join(path)
}

#[test]
fn export_thumbnails_beside_the_textures() {
    // Expected sizes from MANIFEST.tsv's `thumbnail` column (read from the packages by the set's
    // maintainers): grass.uasset "png 256x256", RobotRenderTarget2D.uasset "png 256x256" (a render
    // target: a thumbnail but no source art, so no texture image).
    let root = temp_dir("thumbs");
    let (src, out) = (root.join("in"), root.join("out"));
    std::fs::create_dir_all(src.join("House")).unwrap();
    std::fs::create_dir_all(src.join("UI")).unwrap();
    let p = "Mukudori+RoboWorld_UE4.22";
    for (from, to) in [
        ("Content/MyAssets/House/grass.uasset", "House/grass.uasset"),
        (
            "Content/Blueprint/UI/RobotRenderTarget2D.uasset",
            "UI/RobotRenderTarget2D.uasset",
        ),
    ] {
        std::fs::copy(editor_sample(p, from), src.join(to)).unwrap();
    }
    let o = run(&[
        "export",
        "-q",
        src.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "--thumbnails",
    ]);
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let ihdr = |f: &Path| {
        let b = std::fs::read(f).unwrap_or_else(|e| panic!("{}: {e}", f.display()));
        assert_eq!(&b[..8], b"\x89PNG\r\n\x1a\n", "{}", f.display());
        let be = |i: usize| u32::from_be_bytes(b[i..i + 4].try_into().unwrap());
        (be(16), be(20))
    };
    // Each thumbnail where its asset's texture goes (beside it: each package holds one asset).
    assert_eq!(ihdr(&out.join("House/grass.thumbnail.png")), (256, 256));
    assert_eq!(
        ihdr(&out.join("UI/RobotRenderTarget2D.thumbnail.png")),
        (256, 256)
    );
    // The texture itself, at its source size (MANIFEST.md: grass.jpg, the committed original, is 500x500).
    assert_eq!(ihdr(&out.join("House/grass.png")), (500, 500));
    assert!(!out.join("UI/RobotRenderTarget2D.png").exists());
    // Without the option, no thumbnail; the option belongs to export only.
    let out2 = root.join("out2");
    let o = run(&[
        "export",
        "-q",
        src.to_str().unwrap(),
        "--out",
        out2.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(0));
    assert!(!out2.join("House/grass.thumbnail.png").exists());
    assert_eq!(
        run(&["census", "--thumbnails", src.to_str().unwrap()])
            .status
            .code(),
        Some(2)
    );
    // Census names each asset's thumbnail (MANIFEST.tsv's kind and size).
    let lines = census(&[src.to_str().unwrap()]);
    for name in ["grass", "RobotRenderTarget2D"] {
        let r = lines.iter().find(|r| r["name"] == name).unwrap();
        assert_eq!(
            r["thumbnail"],
            serde_json::json!({"kind": "png", "width": 256, "height": 256}),
            "{r}"
        );
    }
    let _ = std::fs::remove_dir_all(&root);
}

#[test]
fn diff_pairs_an_editor_source_with_its_cooked_texture() {
    // OLD: an editor project's folder (Content/House: grass.uasset and sofa_tex.uasset, UE 4.22
    // sources); NEW: a cooked build laid out as a loose cook is (MyGame/Content/House), grass
    // cooked to BC1 (the fixture writer's cooked package of that name) and sofa_tex the editor
    // package with one byte of its PNG source changed. They pair by the package path from
    // Content/ on, whatever folder each build sits in.
    let root = temp_dir("diff-editor");
    let (old, new) = (
        root.join("old/Content/House"),
        root.join("new/MyGame/Content/House"),
    );
    std::fs::create_dir_all(&old).unwrap();
    std::fs::create_dir_all(&new).unwrap();
    let p = "Mukudori+RoboWorld_UE4.22";
    for n in ["grass", "sofa_tex"] {
        let from = editor_sample(p, &format!("Content/MyAssets/House/{n}.uasset"));
        std::fs::copy(from, old.join(format!("{n}.uasset"))).unwrap();
    }
    let mut rng = texscope::fixtures::unreal::Rng(40);
    let (cooked, _) = texscope::fixtures::unreal::classic_texture(
        "grass",
        texscope::PixelFormat::BC1,
        512,
        512,
        1,
        0,
        &mut rng,
    );
    std::fs::write(new.join("grass.uasset"), &cooked.uasset).unwrap();
    std::fs::write(new.join("grass.uexp"), &cooked.uexp).unwrap();
    // sofa_tex's PNG source is stored plain at the end of the file at 73599, 314985 bytes
    // (`texscope info` and MANIFEST.tsv "png"): a byte in its middle is a changed import.
    let mut sofa = std::fs::read(old.join("sofa_tex.uasset")).unwrap();
    sofa[73599 + 200_000] ^= 0x55;
    std::fs::write(new.join("sofa_tex.uasset"), &sofa).unwrap();
    let lines = diff(&[
        root.join("old").to_str().unwrap(),
        root.join("new").to_str().unwrap(),
    ]);
    let (summary, records) = lines.split_last().unwrap();
    assert_eq!(
        summary,
        &serde_json::json!({"summary": {"unchanged": 0, "changed": 2, "added": 0, "removed": 0}}),
        "{records:?}"
    );
    let by = |name: &str| records.iter().find(|r| r["name"] == name).unwrap();
    // Paired by package path, source against cooked data: the format and mips differ.
    let g = by("grass");
    assert_eq!(g["path"], "Content/House/grass.uasset");
    assert_eq!(g["status"], "changed");
    assert_eq!(
        (g["old"]["format"].as_str(), g["new"]["format"].as_str()),
        (Some("BGRA8"), Some("BC1"))
    );
    let s = by("sofa_tex");
    assert_eq!(s["changes"], serde_json::json!(["data"]));
    let _ = std::fs::remove_dir_all(&root);
}

/// An editor package whose source has two UDIM blocks (built by fixtures::unreal::editor_texture,
/// block 1 at grid (1, 0): UV tile 1001 + 1 + 10 * 0 = 1002), each one solid colour: the census
/// lists both, and the export writes each block to its own file, named as UDIM tiles are named,
/// holding its own colour (the colours the test wrote: B, G, R, A bytes in the source).
#[test]
fn export_writes_every_udim_block_of_an_editor_source() {
    use texscope::fixtures::unreal::{editor_texture, EditorBlock, EditorSource};
    let dir = temp_dir("udim");
    let blk = |x: i32| EditorBlock {
        x,
        y: 0,
        size_x: 4,
        size_y: 4,
        slices: 1,
        mips: 1,
    };
    // Block 0 red, block 1 blue, stored B, G, R, A.
    let payload = [[0u8, 0, 255, 255].repeat(16), [255u8, 0, 0, 255].repeat(16)].concat();
    let src = EditorSource {
        blocks: vec![blk(0), blk(1)],
        layer_formats: vec!["TSF_BGRA8".into()],
        compression: None,
        payload,
    };
    let path = dir.join("T_Udim.uasset");
    std::fs::write(&path, editor_texture("T_Udim", &src)).unwrap();
    let p = path.to_str().unwrap();
    let names: Vec<String> = census(&[p])
        .iter()
        .map(|r| r["name"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(names, ["T_Udim", "T_Udim [UDIM 1002]"]);
    let out_dir = dir.join("out");
    export_ok(&[p, "--out", out_dir.to_str().unwrap()]);
    let files: Vec<String> = tree(&out_dir).into_iter().map(|(name, _)| name).collect();
    assert_eq!(
        files,
        ["T_Udim.uasset/T_Udim.1002.png", "T_Udim.uasset/T_Udim.png"]
    );
    let (_, red) = read_png_rgba(&out_dir.join("T_Udim.uasset/T_Udim.png"));
    assert_eq!(red, [255u8, 0, 0, 255].repeat(16));
    let (_, blue) = read_png_rgba(&out_dir.join("T_Udim.uasset/T_Udim.1002.png"));
    assert_eq!(blue, [0u8, 0, 255, 255].repeat(16));
    std::fs::remove_dir_all(&dir).ok();
}

/// `--only NAME` opens only the container packages NAME names (OpenOptions::only; the reads it
/// saves are counted in tests/unreal_containers.rs): a container of T_First, 200 packages of
/// another class and T_Far (src/fixtures/containers.rs `far_container`) lists T_Far alone by
/// name or by its path inside the container (census `path`), and everything, with a sentence on
/// stderr, for a name no package has.
#[test]
fn only_opens_the_named_package() {
    use texscope::fixtures::containers::{far_container, Props};
    let fx = far_container(
        1 << 16,
        &Props::PACKED,
        &mut texscope::fixtures::unreal::Rng(3),
    );
    let d = temp_dir("only");
    std::fs::write(d.join("Remote.utoc"), &fx.toc.utoc).unwrap();
    let mut ucas = Vec::new();
    for (_, at, b) in &fx.toc.pieces {
        ucas.resize(*at as usize, 0);
        ucas.extend_from_slice(b);
    }
    std::fs::write(d.join("Remote.ucas"), &ucas).unwrap();
    let dir = d.to_str().unwrap();
    for only in ["T_Far", "Game/Content/Far/T_Far.uasset"] {
        let got = census(&[dir, "--only", only]);
        let names: Vec<&str> = got.iter().filter_map(|r| r["name"].as_str()).collect();
        assert_eq!(names, ["T_Far"], "{only}");
        assert_eq!(got[0]["path"], "Game/Content/Far/T_Far.uasset");
    }
    let out = run(&["census", dir, "--only", "T_Nowhere"]);
    assert_eq!(out.status.code(), Some(0));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("--only T_Nowhere names no package"),
        "{stderr}"
    );
    let mut names: Vec<String> = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .filter_map(|l| {
            serde_json::from_str::<serde_json::Value>(l).ok()?["name"]
                .as_str()
                .map(String::from)
        })
        .collect();
    names.sort();
    assert_eq!(names, ["T_Far", "T_First"]);
    let _ = std::fs::remove_dir_all(&d);
}

/// A texture that lists with an error (a real UE 5.6 editor package from the shared set, cut
/// short so its trailer passes the end of the file) is named once in the export's line: the
/// file, the texture, then the error without the file again.
#[test]
fn an_export_line_names_the_file_once() {
    let d = temp_dir("error-once");
    let src = samples().join(
        "unreal-editor/lukesorvik+BlasterGameUE5.6/Content/Movies/Screenshot_2024-12-04_021134.uasset",
    );
    let bytes = std::fs::read(src).unwrap();
    let file = d.join("T_Cut.uasset");
    std::fs::write(&file, &bytes[..300_000]).unwrap();
    let out = run(&[
        "export",
        file.to_str().unwrap(),
        "--out",
        d.join("out").to_str().unwrap(),
    ]);
    let err = String::from_utf8_lossy(&out.stderr);
    let line = err
        .lines()
        .find(|l| l.contains("not exported"))
        .unwrap_or_else(|| panic!("{err}"));
    assert_eq!(line.matches("T_Cut.uasset").count(), 1, "{line}");
    assert!(line.contains("FPackageTrailer"), "{line}");
    let _ = std::fs::remove_dir_all(&d);
}
