//! PS4 and PS5 `.gnf` files (shared/samples/console, read in place), untiled through
//! `codec::tiling::{gcn, rdna}` and decoded, against the source images the SDK tool was given
//! (beside each file; MANIFEST.md of the folder), and hostile variants of them.
#![cfg(feature = "gnf")]

mod common;
use common::{psnr, read_png_rgba8, samples, srgb_to_linear8};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use texscope::codec::tiling::Tiling;
use texscope::codec::Pixels;
use texscope::io::{BytesSource, FileSource, SourceRef};
use texscope::model::Platform;
use texscope::{Catalog, DecodeOptions};

fn ps4() -> PathBuf {
    samples().join("console/ps4/AubreyLau+Team-4-PS4/PS4Starter")
}

fn ps5() -> PathBuf {
    samples().join("console/ps5/ishant4iZard+CSC8508/Assets/Textures")
}

fn open_file(path: &Path) -> Catalog {
    let src: SourceRef =
        Arc::new(FileSource::open(path).unwrap_or_else(|e| panic!("{}: {e}", path.display())));
    texscope::open(vec![src], &Default::default())
}

fn open_bytes(name: &str, bytes: Vec<u8>) -> Catalog {
    texscope::open(
        vec![Arc::new(BytesSource::new(name.to_string(), bytes)) as SourceRef],
        &Default::default(),
    )
}

fn rgba8(cat: &Catalog, mip: usize) -> (u32, u32, Vec<u8>) {
    let img = cat
        .decode(0, mip, 0, DecodeOptions::default())
        .unwrap_or_else(|e| panic!("mip {mip}: {e}"));
    match img.pixels {
        Pixels::Rgba8(p) => (img.width, img.height, p),
        other => panic!("expected RGBA8, got {other:?}"),
    }
}

fn read_jpeg(path: &Path) -> (u32, u32, Vec<u8>) {
    let file = std::fs::File::open(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut d = jpeg_decoder::Decoder::new(std::io::BufReader::new(file));
    let px = d.decode().unwrap();
    let info = d.info().unwrap();
    assert_eq!(info.pixel_format, jpeg_decoder::PixelFormat::RGB24);
    let rgba = px
        .chunks_exact(3)
        .flat_map(|p| [p[0], p[1], p[2], 255])
        .collect();
    (info.width as u32, info.height as u32, rgba)
}

fn read_source(path: &Path) -> (u32, u32, Vec<u8>) {
    // By content: white.png and blue.png are JPEG files despite their names.
    if std::fs::read(path)
        .unwrap()
        .starts_with(&[0xff, 0xd8, 0xff])
    {
        read_jpeg(path)
    } else {
        read_png_rgba8(path)
    }
}

/// Largest difference of any channel.
fn max_diff(a: &[u8], b: &[u8]) -> u8 {
    a.iter().zip(b).map(|(x, y)| x.abs_diff(*y)).max().unwrap()
}

/// PS4 files: format 8_8_8_8 sRGB stored BGRA, GCN tile mode 13 (1D thin) with a padded pitch
/// (MANIFEST.md). brick.gnf equals brick.png exactly; white and blue within the tool's colour
/// conversion (3 and 1, MANIFEST.md).
#[test]
fn ps4_files_equal_their_sources() {
    for (file, source, tolerance, pitch) in [
        ("brick.gnf", "brick.png", 0u8, 512u32),
        ("white.gnf", "white.png", 3, 344),
        ("blue.gnf", "blue.png", 1, 752),
    ] {
        let cat = open_file(&ps4().join(file));
        assert!(cat.problems.is_empty(), "{file}: {:?}", cat.problems);
        let t = &cat.textures[0];
        assert_eq!(t.platform, Some(Platform::Ps4), "{file}");
        assert_eq!(
            t.tiling,
            Tiling::Gcn {
                tile_mode: 13,
                pitch
            },
            "{file}"
        );
        // The layout assumed for an Unreal PS4 cook states the pitch as these descriptors do.
        assert_eq!(
            texscope::unreal::console_tiling(Platform::Ps4, t.format, t.width, t.height, 1),
            t.tiling,
            "{file}"
        );
        let layout = &t.metadata.iter().find(|(k, _)| k == "layout").unwrap().1;
        assert_eq!(layout, &format!("PS4 GCN 1D thin, pitch {pitch}"), "{file}");
        let (w, h, got) = rgba8(&cat, 0);
        let (sw, sh, want) = read_source(&ps4().join(source));
        assert_eq!((w, h), (sw, sh), "{file}");
        let d = max_diff(&got, &want);
        println!("{file}: largest difference {d}");
        assert!(
            d <= tolerance,
            "{file}: largest difference {d}, allowed {tolerance}"
        );
    }
}

/// The layout assumed for an Unreal PS4 cook of a block-compressed format (pitch in texels, as
/// the descriptor states it) untiles a surface written by the textbook 1D-thin formula (element
/// (x, y) at micro-tile `(y/8) * pitch/8 + x/8`, index `morton(x%8, y%8)`, pitch in blocks;
/// addrlib's `ADDR_TM_1D_TILED_THIN1`). Before, the layout stated the pitch in blocks, which the
/// untiler read as texels: every BC texture of a PS4 cook failed ("pitch less than the width").
#[test]
fn unreal_ps4_layout_of_block_formats() {
    use texscope::codec::{tiling, PixelFormat};
    for (format, w, h) in [
        (PixelFormat::BC1, 338, 200),
        (PixelFormat::BC7, 2048, 64),
        (PixelFormat::BC1, 4, 4),
    ] {
        let t = texscope::unreal::console_tiling(Platform::Ps4, format, w, h, 1);
        let b = format.block();
        let (ew, eh, bpe) = (
            w.div_ceil(b.width) as usize,
            h.div_ceil(b.height) as usize,
            b.bytes as usize,
        );
        let pitch = ew.next_multiple_of(8);
        let size = tiling::stored_size(t, format, 0, w, h).unwrap() as usize;
        assert_eq!(
            size,
            pitch * eh.next_multiple_of(8) * bpe,
            "{format:?} {w}x{h}"
        );
        let mut tiled = vec![0u8; size];
        let mut want = Vec::new();
        for y in 0..eh {
            for x in 0..ew {
                let v: Vec<u8> = (0..bpe).map(|i| (x * 7 + y * 13 + i) as u8).collect();
                want.extend_from_slice(&v);
                let mut m = 0;
                for k in 0..3 {
                    m |= (((x % 8) >> k) & 1) << (2 * k);
                    m |= (((y % 8) >> k) & 1) << (2 * k + 1);
                }
                let at = ((y / 8) * (pitch / 8) + x / 8) * 64 * bpe + m * bpe;
                tiled[at..at + bpe].copy_from_slice(&v);
            }
        }
        let got = tiling::untile(t, format, 0, w, h, &tiled, &Default::default()).unwrap();
        assert!(got == want, "{format:?} {w}x{h}");
    }
}

/// doge.gnf is 256x256 but doge.jpg beside it is 537x529: the tool was given a resized copy, so
/// it cannot equal the source exactly (MANIFEST.md says it does). Against the source resampled
/// (nearest) to 256x256 it comes within 30 dB; the same bytes read row by row without untiling
/// do not (control: the comparison tells a wrong layout from a right one).
#[test]
fn ps4_doge_is_its_resized_source() {
    let path = ps4().join("doge.gnf");
    let cat = open_file(&path);
    let (w, h, got) = rgba8(&cat, 0);
    assert_eq!((w, h), (256, 256));
    let (sw, sh, src) = read_jpeg(&ps4().join("doge.jpg"));
    assert_eq!((sw, sh), (537, 529));
    let mut resized = Vec::with_capacity(256 * 256 * 4);
    for y in 0..256u32 {
        for x in 0..256u32 {
            let (sx, sy) = ((x * 2 + 1) * sw / 512, (y * 2 + 1) * sh / 512);
            let i = ((sy * sw + sx) * 4) as usize;
            resized.extend_from_slice(&src[i..i + 4]);
        }
    }
    let untiled = psnr(&got, &resized, &[0, 1, 2]);
    assert!(untiled > 30.0, "untiled doge: {untiled:.1} dB");
    let bytes = std::fs::read(&path).unwrap();
    let linear: Vec<u8> = bytes[0x100..0x100 + 256 * 256 * 4]
        .chunks_exact(4)
        .flat_map(|p| [p[2], p[1], p[0], 255])
        .collect();
    let as_linear = psnr(&linear, &resized, &[0, 1, 2]);
    assert!(
        as_linear < 20.0,
        "doge read without untiling: {as_linear:.1} dB"
    );
}

/// PSNR of RGB over the texels the source holds opaque (alpha >= 128): the files are BC1 without
/// alpha, so what a transparent source texel held is not kept.
fn opaque_psnr(got: &[u8], src: &[u8]) -> f64 {
    let (mut a, mut b) = (Vec::new(), Vec::new());
    for (g, s) in got.chunks_exact(4).zip(src.chunks_exact(4)) {
        if s[3] >= 128 {
            a.extend_from_slice(g);
            // The PS5 tool stored the colours linearised (MANIFEST.md).
            let lin = srgb_to_linear8;
            b.extend_from_slice(&[lin(s[0]), lin(s[1]), lin(s[2]), s[3]]);
        }
    }
    psnr(&a, &b, &[0, 1, 2])
}

/// Every PS5 file with a source: BC1 (format 169), RDNA 64KB_S, full mip chains, sizes that are
/// not powers of two. Mip 0 against the linearised source; the floors are the measured PSNR
/// (rounded down by about 1 dB): BC1 loss. blackhole.png is a field of single-texel stars, BC1's
/// worst case. Each smaller mip against mip 0 box-filtered to its size (the tool's filter is not
/// known): at least 18 dB; the lowest measured is 19.0 dB (PortalPS5 mip 6, 8x8, whose
/// transparent texels the tool filtered differently). A level read from the wrong place or the
/// wrong tail slot is another image (control in `ps5_wrong_tail_slot_is_caught`).
#[test]
fn ps5_files_within_bc1_loss_of_their_sources() {
    let mut failures = Vec::new();
    for (file, source, floor) in [
        ("2.jpg.gnf", "2.jpg", 43.0),
        ("BlackHolePS5.png.gnf", "BlackHolePS5.png", 41.0),
        ("BlackHolePS51.png.gnf", "BlackHolePS51.png", 48.0),
        ("Blank.png.gnf", "Blank.png", 46.0),
        ("Checkerboard.gnf", "checkerboard.png", 54.0),
        ("Default.png.gnf", "Default.png", 40.0),
        ("GoatBeige.png.gnf", "GoatBeige.png", 48.0),
        ("GoatBlack.png.gnf", "GoatBlack.png", 60.0),
        ("GoatBlack2.png.gnf", "GoatBlack2.png", 60.0),
        ("GoatBody.png.gnf", "GoatBody.png", 45.0),
        ("GoatBrown.png.gnf", "GoatBrown.png", 48.0),
        ("PortalPS5.png.gnf", "PortalPS5.png", 39.0),
        ("PortalPS5.png1.gnf", "PortalPS5.png", 39.0),
        ("PortalPS51.png.gnf", "PortalPS51.png", 43.0),
        ("PortalTex.jpg.gnf", "PortalTex.jpg", 34.0),
        ("PressStart2P.png.gnf", "PressStart2P.png", 60.0),
        ("blackhole.png.gnf", "blackhole.png", 25.0),
        ("checkerboard.png.gnf", "checkerboard.png", 54.0),
        ("doge.png.gnf", "doge.png", 43.0),
    ] {
        let cat = open_file(&ps5().join(file));
        assert!(cat.problems.is_empty(), "{file}: {:?}", cat.problems);
        let t = &cat.textures[0];
        assert_eq!(t.platform, Some(Platform::Ps5), "{file}");
        assert!(
            matches!(
                t.tiling,
                Tiling::Rdna {
                    swizzle_mode: 9,
                    ..
                }
            ),
            "{file}: {:?}",
            t.tiling
        );
        let layout = &t.metadata.iter().find(|(k, _)| k == "layout").unwrap().1;
        assert_eq!(layout, "PS5 RDNA 64KB_S", "{file}");
        let (w, h, mip0) = rgba8(&cat, 0);
        let (sw, sh, src) = read_source(&ps5().join(source));
        assert_eq!((w, h), (sw, sh), "{file}");
        let p = opaque_psnr(&mip0, &src);
        println!("{file}: mip 0 {p:.1} dB");
        if p < floor {
            failures.push(format!("{file}: mip 0 at {p:.1} dB, floor {floor}"));
        }
        let full = 32 - t.width.max(t.height).leading_zeros();
        assert_eq!(t.mips.len() as u32, full, "{file}: a full chain");
        for mip in 1..t.mips.len() {
            let (mw, mh, got) = rgba8(&cat, mip);
            let want = box_filter(&mip0, w, h, mip as u32);
            let p = psnr(&got, &want, &[0, 1, 2]);
            println!("{file}: mip {mip} {p:.1} dB");
            if p < 18.0 {
                failures.push(format!("{file}: mip {mip} ({mw}x{mh}) at {p:.1} dB"));
            }
        }
    }
    assert!(failures.is_empty(), "{failures:#?}");
}

/// `img` (w x h RGBA8) averaged over 2^k x 2^k squares, to mip k's size.
fn box_filter(img: &[u8], w: u32, h: u32, k: u32) -> Vec<u8> {
    let (mw, mh) = ((w >> k).max(1), (h >> k).max(1));
    let (fx, fy) = (w / mw, h / mh);
    let mut out = Vec::with_capacity((mw * mh * 4) as usize);
    for y in 0..mh {
        for x in 0..mw {
            let mut sum = [0u32; 4];
            for yy in y * fy..(y + 1) * fy {
                for xx in x * fx..(x + 1) * fx {
                    let i = ((yy * w + xx) * 4) as usize;
                    for c in 0..4 {
                        sum[c] += img[i + c] as u32;
                    }
                }
            }
            out.extend(sum.map(|s| (s / (fx * fy)) as u8));
        }
    }
    out
}

fn problem(cat: &Catalog) -> String {
    assert!(cat.textures.is_empty(), "expected no texture");
    assert_eq!(cat.problems.len(), 1);
    cat.problems[0].error.clone()
}

/// Replaces the bits of `mask` in the little-endian dword at `at` with `value` (already shifted).
fn patch(b: &mut [u8], at: usize, mask: u32, value: u32) {
    let v = (get_u32(b, at) & !mask) | value;
    b[at..at + 4].copy_from_slice(&v.to_le_bytes());
}

fn get_u32(b: &[u8], at: usize) -> u32 {
    u32::from_le_bytes(b[at..at + 4].try_into().unwrap())
}

/// Hostile variants of real files: each is a clear error naming the file and the field, never
/// a panic or a large allocation.
#[test]
fn bad_gnf_files_name_the_field() {
    let ps4_file = std::fs::read(ps4().join("white.gnf")).unwrap();
    let ps5_file = std::fs::read(ps5().join("doge.png.gnf")).unwrap();

    // Cut inside the header.
    let e = problem(&open_bytes("cut.gnf", ps4_file[..0x20].to_vec()));
    assert!(
        e.contains("cut.gnf") && e.contains("inside the texture descriptor"),
        "{e}"
    );

    // Cut inside the surface: the descriptor's size field says more than the file holds.
    let e = problem(&open_bytes("short.gnf", ps4_file[..0x4000].to_vec()));
    assert!(
        e.contains("short.gnf") && e.contains("runs past the end"),
        "{e}"
    );

    // A tile mode this build does not untile (14: 2D thin) names the mode.
    let mut b = ps4_file.clone();
    patch(&mut b, 0x1c, 0x1f << 20, 14 << 20);
    let e = problem(&open_bytes("mode.gnf", b));
    assert!(e.contains("tile mode 14") && e.contains("2D thin"), "{e}");

    // A width larger than the data: 16384x16384 RGBA8 needs 1 GiB, the file has 473 KB.
    let mut b = ps4_file.clone();
    patch(&mut b, 0x18, 0x0fff_ffff, 0x3fff | (0x3fff << 14));
    patch(&mut b, 0x20, 0x3fff << 13, 0x3fff << 13);
    let e = problem(&open_bytes("huge.gnf", b));
    assert!(e.contains("needs") && e.contains("size field says"), "{e}");

    // A pitch smaller than the width.
    let mut b = ps4_file.clone();
    patch(&mut b, 0x20, 0x3fff << 13, 7 << 13);
    let e = problem(&open_bytes("pitch.gnf", b));
    assert!(e.contains("pitch"), "{e}");

    // A PS5 swizzle mode this build does not untile (8: 64KB_Z).
    let mut b = ps5_file.clone();
    patch(&mut b, 0x34, 0x1f << 20, 8 << 20);
    let e = problem(&open_bytes("z.gnf", b));
    assert!(e.contains("swizzle mode 8") && e.contains("64KB_Z"), "{e}");

    // A PS5 descriptor whose size disagrees with its data: height doubled.
    let mut b = ps5_file.clone();
    let h = ((get_u32(&b, 0x30) >> 14) & 0xffff) + 1;
    patch(&mut b, 0x30, 0xffff << 14, (2 * h - 1) << 14);
    let e = problem(&open_bytes("tall.gnf", b));
    assert!(
        e.contains("needs") && e.contains("size field says 720896"),
        "{e}"
    );

    // An unknown format and an unknown version.
    let mut b = ps5_file.clone();
    patch(&mut b, 0x2c, 0x1ff << 20, 300 << 20);
    let e = problem(&open_bytes("fmt.gnf", b));
    assert!(e.contains("format 300"), "{e}");
    let mut b = ps5_file.clone();
    b[8] = 7;
    let e = problem(&open_bytes("v7.gnf", b));
    assert!(e.contains("GNF version 7"), "{e}");

    // A file named .gnf without the signature is described, not opened.
    let e = problem(&open_bytes("fake.gnf", vec![0; 64]));
    assert!(e.contains("without the 'GNF ' signature"), "{e}");
}

/// Control for the mip checks above: Default.png.gnf (512x512 BC1, first tail level 1) has mip 3
/// in the tail block; untiled from its own slot it passes the 18 dB check, untiled as if the tail
/// started one level later (the slot of mip 2's size class) it does not.
#[test]
fn ps5_wrong_tail_slot_is_caught() {
    use texscope::codec::{decode_surface, tiling, PixelFormat};
    let path = ps5().join("Default.png.gnf");
    let cat = open_file(&path);
    let t = &cat.textures[0];
    assert_eq!(
        t.tiling,
        Tiling::Rdna {
            swizzle_mode: 9,
            first_mip_in_tail: 1
        }
    );
    let (w, h, mip0) = rgba8(&cat, 0);
    let want = box_filter(&mip0, w, h, 3);
    let bytes = std::fs::read(&path).unwrap();
    // The tail block is the first 64 KiB of the surface (smallest level first).
    let tail = &bytes[0x10000..0x20000];
    let limits = texscope::io::Limits::default();
    let decode = |first_mip_in_tail| {
        let tiling = Tiling::Rdna {
            swizzle_mode: 9,
            first_mip_in_tail,
        };
        let blocks = tiling::untile(tiling, PixelFormat::BC1, 3, 64, 64, tail, &limits).unwrap();
        match decode_surface(PixelFormat::BC1, 64, 64, &blocks, &limits)
            .unwrap()
            .pixels
        {
            Pixels::Rgba8(p) => p,
            other => panic!("{other:?}"),
        }
    };
    let right = psnr(&decode(1), &want, &[0, 1, 2]);
    let wrong = psnr(&decode(2), &want, &[0, 1, 2]);
    println!("right slot {right:.1} dB, wrong slot {wrong:.1} dB");
    assert!(
        right >= 25.0 && wrong < 18.0,
        "right slot {right:.1} dB, wrong slot {wrong:.1} dB"
    );
}
