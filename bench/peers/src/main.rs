//! The peer benchmark: Texscope's BCn decoders against the Rust decoders a user could pick instead
//! (bcdec_rs, the image-rs `dds` crate, texture2ddecoder) and against C bcdec (bcndecode-sys, which
//! compiles bcdec.h with `cc`), on the same real blocks: the BCn KTX2 files of texture2ddecoder's
//! test set (PVRTexTool output, 512x512), their blocks tiled to a SIDE x SIDE surface.
//!
//! Usage: texscope-bench-peers [--side N] [--runs N] [--samples DIR] [--wall]
//! Times are CPU time of this thread (clock_gettime's CLOCK_THREAD_CPUTIME_ID; /proc's schedstat is
//! updated only at scheduler ticks, too coarse for a 4 ms decode): on the shared 2-core host
//! wall-clock rates swing several-fold with other processes' load, CPU time much less; `--wall`
//! times the wall clock instead. The allocator is set as the `texscope` CLI sets it
//! (src/bin/texscope/alloc.rs: freed images reused, not fresh pages per decode) for every decoder,
//! so that page faults of each output allocation do not hide the decoders' own speed.
//! Each run times every decoder of a format once, in an order rotated by one each run, so that a
//! host whose speed drifts slows all decoders alike; printed per decoder: the median Mtexel/s over
//! the runs and the median over runs of (texscope's time / the peer's time) as "texscope x": above
//! 1, Texscope is the faster. Every decoder allocates its output in the timed call (Texscope's
//! `decode_surface` returns a new image) and writes its own layout, named in the table: Texscope
//! always RGBA (8-bit, or f32 for BC6H); bcdec R8 for BC4, RG8 for BC5, RGB f32 for BC6H; `dds` its
//! format's own channels; texture2ddecoder BGRA8 for everything (BC6H clamped to 8 bits, so not the
//! same work).

use std::ffi::c_int;
use std::path::PathBuf;
use std::time::Instant;

use texscope::codec::{decode_surface, PixelFormat};
use texscope::io::Limits;

/// One decoder of a format: its name, the layout it writes, and a whole-surface decode of `data`
/// (`side` x `side` texels) that returns something derived from its output (kept from the optimiser).
struct Decoder {
    name: &'static str,
    layout: String,
    run: Run,
}

type Run = Box<dyn Fn(&[u8], usize) -> u64>;

/// A per-block decoder writing a 4x4 block at a pointer with a pitch in bytes (C bcdec's shape).
type CBlock = unsafe extern "C" fn(*const u8, *mut u8, c_int);

/// Decodes every `bytes`-byte block of a square surface with `f`, `texel` bytes an output texel, as
/// the C library is meant to be called: block by block into the image at its pitch.
fn c_blocks(
    data: &[u8],
    side: usize,
    bytes: usize,
    texel: usize,
    f: impl Fn(*const u8, *mut u8, c_int),
) -> u64 {
    let bw = side / 4;
    let pitch = side * texel;
    let mut out = vec![0u8; side * pitch];
    for (k, b) in data.chunks_exact(bytes).enumerate() {
        let o = (k / bw * 4) * pitch + (k % bw) * 4 * texel;
        // In bounds: block k of a side/4-wide grid writes 4 rows of 4 texels from offset o.
        f(b.as_ptr(), out[o..].as_mut_ptr(), pitch as c_int);
    }
    out[out.len() / 2] as u64
}

/// The same for bcdec_rs's block functions (slices and a pitch in elements).
fn rs_blocks<T: Copy + Default + Into<f64>>(
    data: &[u8],
    side: usize,
    bytes: usize,
    texel: usize,
    f: impl Fn(&[u8], &mut [T], usize),
) -> u64 {
    let bw = side / 4;
    let pitch = side * texel;
    let mut out = vec![T::default(); side * pitch];
    for (k, b) in data.chunks_exact(bytes).enumerate() {
        let o = (k / bw * 4) * pitch + (k % bw) * 4 * texel;
        f(b, &mut out[o..], pitch);
    }
    out[out.len() / 2].into() as u64
}

fn texscope(format: PixelFormat) -> Decoder {
    Decoder {
        name: "texscope",
        layout: if format.name().starts_with("BC6") {
            "RGBA f32"
        } else {
            "RGBA8"
        }
        .into(),
        run: Box::new(move |data, side| {
            let img = decode_surface(format, side as u32, side as u32, data, &Limits::default())
                .expect("texscope decode");
            img.width as u64
        }),
    }
}

fn c_bcdec(bytes: usize, texel: usize, layout: &str, f: CBlock) -> Decoder {
    Decoder {
        name: "C bcdec",
        layout: layout.into(),
        run: Box::new(move |data, side| {
            // SAFETY: c_blocks passes a 16-byte (or 8-byte) block and an output pointer with 4 rows
            // of 4 texels of room at `pitch` bytes a row, which is what bcdec's functions write.
            c_blocks(data, side, bytes, texel, |b, o, p| unsafe { f(b, o, p) })
        }),
    }
}

fn c_bc6h(signed: bool) -> Decoder {
    Decoder {
        name: "C bcdec",
        layout: "RGB f32".into(),
        run: Box::new(move |data, side| {
            // SAFETY: as c_bcdec; bcdec_bc6h_float's pitch is in floats, 3 a texel.
            c_blocks(data, side, 16, 12, |b, o, p| unsafe {
                bcndecode_sys::bcdec_bc6h_float(b, o, p / 4, signed as c_int)
            })
        }),
    }
}

/// `dds` decoding to its format's own channels (`dds::Format::color`) at `precision`.
fn dds_crate(format: dds::Format, precision: dds::Precision) -> Decoder {
    Decoder {
        name: "dds",
        layout: format!("{:?} {:?}", format.color().channels, precision),
        run: Box::new(move |data, side| {
            let color = dds::ColorFormat::new(format.color().channels, precision);
            let mut out = vec![0u8; side * side * color.bytes_per_pixel() as usize];
            let size = dds::Size::new(side as u32, side as u32);
            let view = dds::ImageViewMut::new(&mut out, size, color).expect("view");
            dds::decode(&mut &data[..], view, format, &Default::default()).expect("dds decode");
            out[out.len() / 2] as u64
        }),
    }
}

/// BC6H's decoders, unsigned or `signed`.
fn bc6h(signed: bool) -> Vec<Decoder> {
    let (f, d, t): (_, _, T2d) = if signed {
        (
            PixelFormat::BC6HS,
            dds::Format::BC6H_SF16,
            texture2ddecoder::decode_bc6_signed,
        )
    } else {
        (
            PixelFormat::BC6HU,
            dds::Format::BC6H_UF16,
            texture2ddecoder::decode_bc6_unsigned,
        )
    };
    vec![
        texscope(f),
        c_bc6h(signed),
        Decoder {
            name: "bcdec_rs",
            layout: "RGB f32".into(),
            run: Box::new(move |data, side| {
                rs_blocks::<f32>(data, side, 16, 3, |b, o, p| {
                    bcdec_rs::bc6h_float(b, o, p, signed)
                })
            }),
        },
        dds_crate(d, dds::Precision::F32),
        t2d(t),
    ]
}

type T2d = fn(&[u8], usize, usize, &mut [u32]) -> Result<(), &'static str>;

fn t2d(f: T2d) -> Decoder {
    Decoder {
        name: "texture2ddecoder",
        layout: "BGRA8".into(),
        run: Box::new(move |data, side| {
            let mut out = vec![0u32; side * side];
            f(data, side, side, &mut out).expect("texture2ddecoder decode");
            out[out.len() / 2] as u64
        }),
    }
}

fn bcdec_rs_8(bytes: usize, texel: usize, layout: &str, f: fn(&[u8], &mut [u8], usize)) -> Decoder {
    Decoder {
        name: "bcdec_rs",
        layout: layout.into(),
        run: Box::new(move |data, side| rs_blocks::<u8>(data, side, bytes, texel, f)),
    }
}

/// The 8-bit formats' decoders: Texscope, C bcdec and bcdec_rs block by block (`bytes` a block,
/// `texel` bytes an output texel, named `layout`), `dds`, texture2ddecoder.
fn eight(
    f: PixelFormat,
    (bytes, texel, layout): (usize, usize, &str),
    c: CBlock,
    rs: fn(&[u8], &mut [u8], usize),
    d: dds::Format,
    t: T2d,
) -> Vec<Decoder> {
    vec![
        texscope(f),
        c_bcdec(bytes, texel, layout, c),
        bcdec_rs_8(bytes, texel, layout, rs),
        dds_crate(d, dds::Precision::U8),
        t2d(t),
    ]
}

/// The formats: (name, sample file, Texscope format, its decoders).
fn formats() -> Vec<(&'static str, &'static str, PixelFormat, Vec<Decoder>)> {
    use bcndecode_sys as c;
    use dds::Format as D;
    use texture2ddecoder as t;
    use PixelFormat as F;
    let (rgba4, rgba8) = ((8, 4, "RGBA8"), (16, 4, "RGBA8"));
    let bc4 = |b: &[u8], o: &mut [u8], p| bcdec_rs::bc4(b, o, p, false);
    let bc5 = |b: &[u8], o: &mut [u8], p| bcdec_rs::bc5(b, o, p, false);
    vec![
        (
            "BC1",
            "BC1.ktx2",
            F::BC1,
            eight(
                F::BC1,
                rgba4,
                c::bcdec_bc1,
                bcdec_rs::bc1,
                D::BC1_UNORM,
                t::decode_bc1,
            ),
        ),
        (
            "BC3",
            "BC3.ktx2",
            F::BC3,
            eight(
                F::BC3,
                rgba8,
                c::bcdec_bc3,
                bcdec_rs::bc3,
                D::BC3_UNORM,
                t::decode_bc3,
            ),
        ),
        (
            "BC4",
            "BC4.ktx2",
            F::BC4,
            eight(
                F::BC4,
                (8, 1, "R8"),
                c::bcdec_bc4,
                bc4,
                D::BC4_UNORM,
                t::decode_bc4,
            ),
        ),
        (
            "BC5",
            "BC5.ktx2",
            F::BC5,
            eight(
                F::BC5,
                (16, 2, "RG8"),
                c::bcdec_bc5,
                bc5,
                D::BC5_UNORM,
                t::decode_bc5,
            ),
        ),
        ("BC6HU", "BC6H.ktx2", F::BC6HU, bc6h(false)),
        // The same real blocks read as signed: no signed BC6H file exists among the samples.
        ("BC6HS", "BC6H.ktx2", F::BC6HS, bc6h(true)),
        (
            "BC7",
            "BC7.ktx2",
            F::BC7,
            eight(
                F::BC7,
                rgba8,
                c::bcdec_bc7,
                bcdec_rs::bc7,
                D::BC7_UNORM,
                t::decode_bc7,
            ),
        ),
    ]
}

/// Level 0 of a KTX 2 file, tiled to a `side` x `side` surface: its width and height (KTX 2
/// specification, header: pixelWidth at byte 20, pixelHeight at 24; level index from byte 80,
/// byteOffset and byteLength as u64) and its blocks repeated across and down.
fn tiled(path: &PathBuf, bytes: usize, side: usize) -> Vec<u8> {
    let f = std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let u32_at = |o: usize| u32::from_le_bytes(f[o..o + 4].try_into().unwrap()) as usize;
    let u64_at = |o: usize| u64::from_le_bytes(f[o..o + 8].try_into().unwrap()) as usize;
    let (w, h) = (u32_at(20), u32_at(24));
    let (offset, len) = (u64_at(80), u64_at(88));
    let (sbw, sbh) = (w.div_ceil(4), h.div_ceil(4));
    assert_eq!(len, sbw * sbh * bytes, "{}: level 0 size", path.display());
    let src = &f[offset..offset + len];
    let bw = side / 4;
    let mut out = Vec::with_capacity(bw * bw * bytes);
    for by in 0..bw {
        for bx in 0..bw {
            let k = (by % sbh) * sbw + bx % sbw;
            out.extend_from_slice(&src[k * bytes..(k + 1) * bytes]);
        }
    }
    out
}

/// This thread's CPU time in seconds, if the OS gives it.
fn cpu_secs() -> Option<f64> {
    let mut t = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: clock_gettime writes one timespec into `t`, which lives for the call.
    let r = unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut t) };
    (r == 0).then(|| t.tv_sec as f64 + t.tv_nsec as f64 / 1e9)
}

/// glibc's mmap and trim thresholds raised to 512 MiB, as the CLI's alloc.rs does.
fn keep_freed_images() {
    // SAFETY: mallopt changes two tuning parameters of glibc's allocator, once, before any other
    // thread exists.
    unsafe {
        libc::mallopt(libc::M_MMAP_THRESHOLD, 512 << 20);
        libc::mallopt(libc::M_TRIM_THRESHOLD, 1024 << 20);
    }
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn main() {
    keep_freed_images();
    let args: Vec<String> = std::env::args().skip(1).collect();
    let opt = |name: &str| {
        args.iter()
            .position(|a| a == name)
            .map(|i| args[i + 1].clone())
    };
    let side: usize = opt("--side").map_or(2048, |s| s.parse().expect("--side N"));
    let runs: usize = opt("--runs").map_or(9, |s| s.parse().expect("--runs N"));
    assert!(
        side.is_multiple_of(4) && side > 0 && runs > 0,
        "--side is a multiple of 4, --runs at least 1"
    );
    let cpu = !args.iter().any(|a| a == "--wall") && cpu_secs().is_some();
    let samples = opt("--samples").map(PathBuf::from).unwrap_or_else(|| {
        let rel = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/samples");
        if rel.exists() {
            rel
        } else {
            PathBuf::from("/work/shared/samples")
        }
    });
    let dir =
        samples.join("unity/UniversalGameExtraction_texture2ddecoder/resources/tests/textures");
    let clock = if cpu { "CPU time" } else { "wall clock" };
    println!("| format | decoder | writes | Mtexel/s (median of {runs}, {clock}) | texscope x (median of paired runs) |");
    println!("|---|---|---|---|---|");
    for (name, file, format, decoders) in formats() {
        let data = tiled(&dir.join(file), format.block().bytes as usize, side);
        // One untimed decode each: page faults of the first output allocation.
        for d in &decoders {
            std::hint::black_box((d.run)(&data, side));
        }
        let mut secs = vec![Vec::new(); decoders.len()];
        for r in 0..runs {
            for i in 0..decoders.len() {
                let k = (i + r) % decoders.len();
                let (t, c) = (Instant::now(), cpu_secs().filter(|_| cpu));
                std::hint::black_box((decoders[k].run)(std::hint::black_box(&data), side));
                secs[k].push(match c {
                    Some(c) => cpu_secs().expect("thread CPU clock") - c,
                    None => t.elapsed().as_secs_f64(),
                });
            }
        }
        let texels = (side * side) as f64 / 1e6;
        for (d, s) in decoders.iter().zip(&secs) {
            let speed = median(s.iter().map(|t| texels / t).collect());
            let ratio = median(s.iter().zip(&secs[0]).map(|(p, t)| p / t).collect());
            let ratio = if d.name == "texscope" {
                "1".to_string()
            } else {
                format!("{ratio:.2}")
            };
            println!(
                "| {name} | {} | {} | {speed:.0} | {ratio} |",
                d.name, d.layout
            );
        }
    }
}
