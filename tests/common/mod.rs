//! Helpers shared by the integration tests (each test crate uses only some of them).
#![allow(dead_code)]

use std::path::PathBuf;

/// The shared sample files, read in place (never copied into the repository): `../shared/samples`
/// beside the checkout, else the machine's `/work/shared/samples`. A test that needs them fails
/// on a missing file rather than skipping silently.
pub fn samples() -> PathBuf {
    let rel = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared/samples");
    if rel.exists() {
        rel
    } else {
        PathBuf::from("/work/shared/samples")
    }
}

/// PSNR in dB of two RGBA8 images over the given channel indices (0..4).
pub fn psnr(a: &[u8], b: &[u8], channels: &[usize]) -> f64 {
    let (mut se, mut n) = (0f64, 0f64);
    for (pa, pb) in a.chunks_exact(4).zip(b.chunks_exact(4)) {
        for &c in channels {
            let d = pa[c] as f64 - pb[c] as f64;
            se += d * d;
            n += 1.0;
        }
    }
    10.0 * (255.0 * 255.0 / (se / n)).log10()
}

/// An sRGB-encoded 8-bit value to linear 8-bit, rounded (the IEC 61966-2-1 transfer function).
pub fn srgb_to_linear8(v: u8) -> u8 {
    let c = v as f64 / 255.0;
    let l = if c <= 0.04045 {
        c / 12.92
    } else {
        ((c + 0.055) / 1.055).powf(2.4)
    };
    (l * 255.0).round() as u8
}

/// Decodes the PNG at `path` as stored (no transformations): its frame info and pixel bytes.
pub fn read_png(path: &std::path::Path) -> (png::OutputInfo, Vec<u8>) {
    decode_png(path, None)
}

/// The first frame of the PNG at `path` with `transformations` (None: the decoder's default).
fn decode_png(
    path: &std::path::Path,
    transformations: Option<png::Transformations>,
) -> (png::OutputInfo, Vec<u8>) {
    let file = std::fs::File::open(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut decoder = png::Decoder::new(std::io::BufReader::new(file));
    if let Some(t) = transformations {
        decoder.set_transformations(t);
    }
    let mut reader = decoder
        .read_info()
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut buf = vec![0; reader.output_buffer_size().unwrap()];
    let info = reader
        .next_frame(&mut buf)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    buf.truncate(info.buffer_size());
    (info, buf)
}

/// A PNG read back as RGBA (8-bit: one byte a channel; 16-bit: two big-endian bytes), an RGB
/// file given full alpha: what `texscope export` wrote, in the form the decoders give.
pub fn read_png_rgba(path: &std::path::Path) -> (png::OutputInfo, Vec<u8>) {
    let (info, buf) = read_png(path);
    let bytes = match info.bit_depth {
        png::BitDepth::Sixteen => 2,
        png::BitDepth::Eight => 1,
        d => panic!("{}: bit depth {d:?}", path.display()),
    };
    let rgba = match info.color_type {
        png::ColorType::Rgba => buf,
        png::ColorType::Rgb => buf
            .chunks_exact(3 * bytes)
            .flat_map(|t| t.iter().copied().chain(std::iter::repeat_n(255, bytes)))
            .collect(),
        c => panic!("{}: colour type {c:?}", path.display()),
    };
    (info, rgba)
}

/// `ferris_512.png` in `dir`: the source image of texture2ddecoder's test files, 512x512 RGBA8.
pub fn ferris_512(dir: &std::path::Path) -> Vec<u8> {
    let (info, buf) = read_png(&dir.join("ferris_512.png"));
    assert_eq!(
        (info.width, info.height, info.color_type),
        (512, 512, png::ColorType::Rgba),
        "ferris_512.png is 512x512 8-bit RGBA"
    );
    buf
}

/// Any PNG as 8-bit RGBA (palette and grey expanded, opaque when it has no alpha): width, height and
/// texels. For source images, whose colour types vary (the UE 5.8 set's grayscale.png is a palette).
pub fn read_png_rgba8(path: &std::path::Path) -> (u32, u32, Vec<u8>) {
    let (info, buf) = decode_png(path, Some(png::Transformations::normalize_to_color8()));
    let ch = info.color_type.samples();
    let px = buf
        .chunks_exact(ch)
        .flat_map(|s| match ch {
            1 => [s[0], s[0], s[0], 255],
            2 => [s[0], s[0], s[0], s[1]],
            3 => [s[0], s[1], s[2], 255],
            _ => [s[0], s[1], s[2], s[3]],
        })
        .collect();
    (info.width, info.height, px)
}

/// The RGBA8 pixels UnityPy gave for the file whose path ends with `name`, from what
/// [`unitypy_pixels`] returned; panics naming the file when UnityPy did not list or decode it.
pub fn unitypy_file_rgba(
    out: &std::path::Path,
    index: &[serde_json::Value],
    name: &str,
) -> Vec<u8> {
    let rec = index
        .iter()
        .find(|r| r["file"].as_str().is_some_and(|f| f.ends_with(name)))
        .unwrap_or_else(|| panic!("{name}: not listed by UnityPy"));
    let raw = rec["rgba"]
        .as_str()
        .unwrap_or_else(|| panic!("{name}: UnityPy failed: {}", rec["error"]));
    std::fs::read(out.join(raw)).unwrap()
}

/// Runs tests/unity/unitypy_decode.py (UnityPy 1.25.4) into a temporary folder and returns its
/// index, or `None` (after saying so loudly) when python3 or UnityPy is missing outside CI. In CI
/// (`CI=true`) a missing UnityPy fails the test: scripts/setup.sh --test installs it.
pub fn unitypy_pixels(root: &std::path::Path) -> Option<(PathBuf, Vec<serde_json::Value>)> {
    use std::process::Command;
    let have = Command::new("python3")
        .args(["-c", "import UnityPy"])
        .output()
        .is_ok_and(|o| o.status.success());
    if !have {
        let msg = "python3 with UnityPy 1.25.4 is not available (pip install unitypy==1.25.4, or scripts/setup.sh --test)";
        assert!(std::env::var("CI").as_deref() != Ok("true"), "{msg}");
        eprintln!("\n*** SKIPPED unity per-pixel comparison: {msg} ***\n");
        return None;
    }
    let tag = root.file_name().and_then(|n| n.to_str()).unwrap_or("root");
    let out = std::env::temp_dir().join(format!("texscope-unitypy-{}-{tag}", std::process::id()));
    let _ = std::fs::remove_dir_all(&out);
    let script =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/unity/unitypy_decode.py");
    let run = Command::new("python3")
        .arg(&script)
        .arg(root)
        .arg(&out)
        .output()
        .expect("run python3");
    assert!(
        run.status.success(),
        "unitypy_decode.py failed: {}",
        String::from_utf8_lossy(&run.stderr)
    );
    let index = std::fs::read_to_string(out.join("index.json")).unwrap();
    let index: serde_json::Value = serde_json::from_str(&index).unwrap();
    Some((out, index.as_array().unwrap().clone()))
}

/// A source over `bytes` named `name` that counts the bytes read from it and logs each read as
/// (offset, length): what an open or a decode reads (a remote file's range requests, say).
pub fn counted(name: &str, bytes: Vec<u8>) -> std::sync::Arc<texscope::io::Counted> {
    counted_over(texscope::io::BytesSource::shared(name, bytes))
}

/// As [`counted`], over the reads of `inner`.
pub fn counted_over(inner: texscope::SourceRef) -> std::sync::Arc<texscope::io::Counted> {
    // Sources are used on one thread (the core's SourceRef is not Send either).
    #[allow(clippy::arc_with_non_send_sync)]
    std::sync::Arc::new(texscope::io::Counted::logging(inner))
}
