//! Writes the fuzz seed corpora: `cargo run --example fuzz_seeds -- fuzz/corpus` makes
//! `fuzz/corpus/<target>/<seed>` for every target in fuzz/fuzz_targets. Every seed is generated
//! here (the shared samples are not ours to redistribute): the fixture builders of the crate,
//! the KTX writers of tests/ktx_fixtures, the Unity writers of tests/unity_fixtures and a GNF
//! writer here. A seed holds several files in the format
//! fuzz/src/lib.rs reads: `name NUL bytes`, files separated by `SEP`.

#[path = "../tests/dds_fixtures/mod.rs"]
mod dds_fixtures;
#[path = "../src/unreal/editor_manifest.rs"]
mod editor_manifest;
#[path = "../tests/ktx_fixtures/mod.rs"]
mod ktx_fixtures;
#[path = "../tests/unity_fixtures/mod.rs"]
mod unity_fixtures;

use std::path::{Path, PathBuf};

use texscope::fixtures::frostbite::{self as fb, Packing, Spec};
use texscope::fixtures::unreal::{self as ue, Rng, VtSpec};
use texscope::formats::dds::{self, Desc};
use texscope::frostbite::cas::{BLOCK_LZ4, BLOCK_NONE, BLOCK_ZLIB, BLOCK_ZSTD};
use texscope::model::mip_dims;
use texscope::{PixelFormat, TextureKind};
use unity_fixtures::{unity_serialized, unityfs, UnityTex};

/// Must equal `texscope_fuzz::SEP` (fuzz/src/lib.rs).
const SEP: &[u8] = b"\n=texscope-fuzz-file=\n";

fn join(files: &[(&str, &[u8])]) -> Vec<u8> {
    let mut out = Vec::new();
    for (i, (name, bytes)) in files.iter().enumerate() {
        if i > 0 {
            out.extend_from_slice(SEP);
        }
        out.extend_from_slice(name.as_bytes());
        out.push(0);
        out.extend_from_slice(bytes);
    }
    out
}

struct Out {
    root: PathBuf,
    count: usize,
}

impl Out {
    /// Writes one seed, after checking it opens to at least one texture, each with a mip that decodes
    /// (a seed the parsers refuse would only teach the fuzzer their first error path).
    fn put(&mut self, target: &str, seed: &str, files: &[(&str, &[u8])]) {
        self.put_with(target, seed, files, &Default::default())
    }

    /// [`Out::put`] opened with `options` (the AES key of the encrypted container seeds, which
    /// fuzz/src/lib.rs `run_keyed` gives too).
    fn put_with(
        &mut self,
        target: &str,
        seed: &str,
        files: &[(&str, &[u8])],
        options: &texscope::OpenOptions,
    ) {
        let sources: Vec<texscope::SourceRef> = files
            .iter()
            .map(|(n, b)| texscope::io::BytesSource::shared(*n, b.to_vec()))
            .collect();
        let cat = texscope::open(sources, options);
        let ok = !cat.textures.is_empty()
            && cat.textures.iter().enumerate().all(|(i, t)| {
                (0..t.mips.len()).any(|m| cat.decode(i, m, 0, Default::default()).is_ok())
            });
        assert!(
            ok,
            "seed {target}/{seed} does not open and decode: {:?} {:?}",
            cat.problems,
            cat.textures.iter().map(|t| &t.error).collect::<Vec<_>>()
        );
        let dir = self.root.join(target);
        std::fs::create_dir_all(&dir).expect("create corpus folder");
        std::fs::write(dir.join(seed), join(files)).expect("write seed");
        self.count += 1;
    }
}

fn random(rng: &mut Rng, n: u64) -> Vec<u8> {
    let mut v = vec![0u8; n as usize];
    rng.fill(&mut v);
    v
}

fn dds_seeds(out: &mut Out, rng: &mut Rng) {
    let d2 = dds_fixtures::desc;
    let mut descs = vec![
        d2(PixelFormat::BC1, 16, 8, 3),
        d2(PixelFormat::BC3, 8, 8, 1),
        d2(PixelFormat::BC5, 8, 4, 2),
        d2(PixelFormat::BGRA8, 4, 4, 3),
        d2(PixelFormat::RGB565, 4, 2, 1),
        Desc {
            force_dx10: true,
            ..d2(PixelFormat::BC7, 8, 8, 2)
        },
        Desc {
            force_dx10: true,
            ..d2(PixelFormat::BC6HU, 4, 4, 1)
        },
        Desc {
            kind: TextureKind::Array,
            slices: 3,
            ..d2(PixelFormat::BC4, 8, 4, 2)
        },
        Desc {
            kind: TextureKind::Cube,
            slices: 6,
            ..d2(PixelFormat::RGBA16F, 4, 4, 2)
        },
        Desc {
            kind: TextureKind::Volume,
            depth: 4,
            ..d2(PixelFormat::RGBA8, 4, 4, 2)
        },
    ];
    descs.retain(|d| dds::can_write(d.format));
    for (i, d) in descs.iter().enumerate() {
        let bytes = dds::write(d, |m, _| {
            let (w, h, dd) = mip_dims(d.width, d.height, d.depth, m);
            let depth = if d.kind == TextureKind::Volume { dd } else { 1 };
            Ok(random(rng, d.format.surface_size(w, h) * depth as u64))
        })
        .expect("dds fixture");
        out.put(
            "dds",
            &format!("{i:02}_{}", d.format.name()),
            &[("fuzz.dds", &bytes)],
        );
    }
}

fn ktx_seeds(out: &mut Out, rng: &mut Rng) {
    // (vkFormat, format) pairs from the Vulkan spec's VkFormat table (as tests/ktx.rs).
    for (vk, format) in [
        (37, PixelFormat::RGBA8),
        (131, PixelFormat::BC1),
        (146, PixelFormat::BC7),
        (97, PixelFormat::RGBA16F),
    ] {
        for zstd in [false, true] {
            let levels: Vec<Vec<u8>> = (0..3)
                .map(|l| {
                    let (w, h, _) = mip_dims(8, 8, 1, l);
                    random(rng, format.surface_size(w, h))
                })
                .collect();
            let f = ktx_fixtures::ktx2(vk, 8, 8, 0, 0, 1, &levels, zstd);
            out.put("ktx", &format!("ktx2_{vk}_{zstd}"), &[("fuzz.ktx2", &f)]);
        }
    }
    // Cube with 6 faces of 4x4 BC1 (one level).
    let faces = random(rng, 6 * 8);
    let f = ktx_fixtures::ktx2(131, 4, 4, 0, 0, 6, &[faces], true);
    out.put("ktx", "ktx2_cube", &[("fuzz.ktx2", &f)]);
    // KTX 1: (glType, glFormat, glInternalFormat) of BC3 and RGBA8, from the GL registry.
    for (gl, format, big) in [
        ([0, 0, 0x83F3], PixelFormat::BC3, false),
        ([0, 0, 0x83F3], PixelFormat::BC3, true),
        ([0x1401, 0x1908, 0x8058], PixelFormat::RGBA8, false),
    ] {
        let levels: Vec<Vec<Vec<u8>>> = (0..2)
            .map(|l| {
                let (w, h, _) = mip_dims(8, 4, 1, l);
                vec![random(rng, format.surface_size(w, h))]
            })
            .collect();
        let f = ktx_fixtures::ktx1(gl, 8, 4, 0, 1, &levels, big);
        out.put(
            "ktx",
            &format!("ktx1_{}_{big}", format.name()),
            &[("fuzz.ktx", &f)],
        );
    }
    // Basis Universal files the `basisu` encoder wrote (tests/basis: ETC1S/BasisLZ and UASTC, KTX 2
    // and .basis; the .basis opener takes its signature under any name) and the PVRTC2 KTX 1 files.
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests");
    for (sub, name) in [
        ("basis", "etc1s_rgba_mips.ktx2"),
        ("basis", "etc1s_cube.basis"),
        ("basis", "etc1s_array.ktx2"),
        ("basis", "uastc_rgba_mips.ktx2"),
        ("basis", "uastc_cube.basis"),
        ("vectors", "pvrtc2_basisu_rgba.ktx"),
    ] {
        let f = std::fs::read(dir.join(sub).join(name)).expect("a committed test file");
        out.put("ktx", &format!("file_{name}"), &[("fuzz.ktx2", &f)]);
    }
}

fn unreal_seeds(out: &mut Out, rng: &mut Rng) {
    for (i, (format, w, h, mips, streamed)) in [
        (PixelFormat::BC1, 32, 16, 6, 2),
        (PixelFormat::BC3, 16, 16, 5, 0),
        (PixelFormat::BC7, 8, 8, 4, 1),
        (PixelFormat::BGRA8, 8, 4, 4, 1),
        (PixelFormat::RGBA16F, 4, 4, 3, 0),
        (PixelFormat::R8, 8, 8, 4, 2),
    ]
    .into_iter()
    .enumerate()
    {
        let (f, _) = ue::classic_texture("T_Fuzz", format, w, h, mips, streamed, rng);
        let seed = format!("{i:02}_{}", format.name());
        out.put(
            "ue_legacy",
            &seed,
            &[
                ("T_Fuzz.uasset", &f.uasset),
                ("T_Fuzz.uexp", &f.uexp),
                ("T_Fuzz.ubulk", &f.ubulk),
            ],
        );
        out.put(
            "ue_zen",
            &seed,
            &[
                ("T_Fuzz.uzenasset", &f.uzenasset),
                ("T_Fuzz.ubulk", &f.ubulk),
            ],
        );
    }
    // Cooked one-file packages of UE 4.0-4.15 (no .uexp; mips after the export data), one of each
    // older layout row an unversioned summary is tried as, and a versioned 4.8 (LegacyFileVersion
    // -4: no LegacyUE3Version).
    for (minor, stated) in [
        (0, false),
        (3, false),
        (5, false),
        (8, true),
        (9, false),
        (11, false),
    ]
    .into_iter()
    .chain([(12, false), (14, false), (15, false)])
    {
        let (f, _) = ue::ue4_texture(
            minor,
            stated,
            true,
            "T_Fuzz",
            PixelFormat::BC1,
            (16, 8),
            (3, 1),
            &[ue::Prop::Bool("SRGB".into(), false)],
            |_, w, h| ue::random_surface(PixelFormat::BC1, w, h, rng),
        );
        let f = f.joined();
        out.put(
            "ue_legacy",
            &format!("ue4_{minor}_one_file"),
            &[("T_Fuzz.uasset", &f.uasset)],
        );
    }
    for (i, layers) in [
        vec![PixelFormat::BC1],
        vec![PixelFormat::BC1, PixelFormat::BC5],
    ]
    .into_iter()
    .enumerate()
    {
        let spec = VtSpec {
            fallback: vec![[0.25, 0.5, 0.75, 1.0]; layers.len()],
            layers,
            tile_size: 8,
            border: 2,
            width_tiles: 3,
            height_tiles: 2,
            mips: 3,
            chunk_of_mip: vec![0, 1, 1],
            holes: vec![(0, 1, 1)],
        };
        let f = ue::virtual_texture("T_Fuzz", &spec, rng).files;
        out.put(
            "ue_vt",
            &format!("vt_{i}"),
            &[
                ("T_Fuzz.uasset", &f.uasset),
                ("T_Fuzz.uexp", &f.uexp),
                ("T_Fuzz.ubulk", &f.ubulk),
            ],
        );
        out.put(
            "ue_zen",
            &format!("vt_{i}"),
            &[
                ("T_Fuzz.uzenasset", &f.uzenasset),
                ("T_Fuzz.ubulk", &f.ubulk),
            ],
        );
        // UE4 records: 4.26 (u16 codec offsets, RawGPU) and 4.27 (u32, ZippedGPU tiles).
        for (minor, zlib_tiles) in [(26, false), (27, true)] {
            let form = ue::Ue4Form {
                minor,
                versioned: false,
                zlib_tiles,
            };
            let f = ue::virtual_texture_ue4("T_Fuzz", &spec, form, rng).files;
            out.put(
                "ue_vt",
                &format!("vt4{minor}_{i}"),
                &[
                    ("T_Fuzz.uasset", &f.uasset),
                    ("T_Fuzz.uexp", &f.uexp),
                    ("T_Fuzz.ubulk", &f.ubulk),
                ],
            );
        }
    }
}

fn frostbite_seeds(out: &mut Out) {
    let mut put = |target: &str, seed: &str, spec: &Spec| {
        let fx = fb::build(spec).expect("frostbite fixture");
        out.put(
            target,
            seed,
            &[(&fx.header_name, &fx.header), (&fx.chunk_name, &fx.chunk)],
        );
    };
    // (kind, 2014.4 ordinal, width, height): 2D BC1, cube RGBA16F, volume BGRA8, array BC7.
    for (kind, format, w, h) in [(0, 54, 16, 8), (1, 40, 4, 4), (2, 23, 4, 4), (3, 66, 8, 8)] {
        let spec = Spec::new(&format!("fb_{kind}_{format}"), kind, format, w, h);
        put("frostbite_header", &format!("raw_{kind}_{format}"), &spec);
    }
    let mut meta_less = Spec::new("fb_nometa", 0, 60, 8, 8);
    meta_less.res_meta = false;
    put("frostbite_header", "no_res_meta", &meta_less);
    for (i, blocks) in [
        &[BLOCK_NONE][..],
        &[BLOCK_ZLIB],
        &[BLOCK_LZ4],
        &[BLOCK_ZSTD],
        &[BLOCK_ZLIB, BLOCK_LZ4, BLOCK_ZSTD, BLOCK_NONE],
    ]
    .into_iter()
    .enumerate()
    {
        let mut spec = Spec::new(&format!("fb_cas_{i}"), 0, 54, 32, 16);
        spec.packing = Packing::Cas(blocks);
        spec.block_size = 0x100;
        put("frostbite_cas", &format!("cas_{i}"), &spec);
    }
    let mut tail = Spec::new("fb_cas_tail", 0, 18, 16, 16);
    tail.packing = Packing::Cas(&[BLOCK_ZSTD]);
    tail.block_size = 0x200;
    tail.first_mip = 2;
    tail.tail_only = true;
    put("frostbite_cas", "cas_tail", &tail);
}

fn unity_seeds(out: &mut Out, rng: &mut Rng) {
    // (Unity version, serialized format): a 2018 player build without type tree, 2020/2022 with.
    let versions = [("2018.4.11f1", 17), ("2020.3.0f1", 22), ("2022.3.10f1", 22)];
    // (Unity format id, our format): RGBA32, DXT1, DXT5 (seed 004).
    let formats = [
        (4, PixelFormat::RGBA8),
        (10, PixelFormat::BC1),
        (12, PixelFormat::BC3),
    ];
    for (v, sf) in versions {
        for (id, format) in formats {
            let (w, h, mips) = (8, 8, 2);
            let size: u64 = (0..mips)
                .map(|m| {
                    let (mw, mh, _) = mip_dims(w, h, 1, m);
                    format.surface_size(mw, mh)
                })
                .sum();
            let pixels = random(rng, size);
            let tex = UnityTex {
                width: w as i32,
                height: h as i32,
                format: id,
                mips: mips as i32,
                image: &pixels,
                stream: None,
            };
            let inline = unity_serialized(v, sf, &tex);
            let seed = format!("{v}_{}", format.name());
            out.put(
                "unity_serialized",
                &format!("{seed}_inline"),
                &[("sharedassets0.assets", &inline)],
            );
            let streamed = UnityTex {
                image: &[],
                stream: Some(("sharedassets0.assets.resS", 0, size as u32)),
                ..tex
            };
            let file = unity_serialized(v, sf, &streamed);
            out.put(
                "unity_serialized",
                &format!("{seed}_ress"),
                &[
                    ("sharedassets0.assets", &file),
                    ("sharedassets0.assets.resS", &pixels),
                ],
            );
            let cab = "CAB-0123456789abcdef0123456789abcdef";
            let ress_path = format!("archive:/{cab}/{cab}.resS");
            let in_bundle = unity_serialized(
                v,
                sf,
                &UnityTex {
                    stream: Some((&ress_path, 0, size as u32)),
                    ..streamed
                },
            );
            let ress_name = format!("{cab}.resS");
            for method in [0u16, 2] {
                let bundle = unityfs(v, &[(cab, &in_bundle), (&ress_name, &pixels)], method);
                out.put(
                    "unity_bundle",
                    &format!("{seed}_m{method}"),
                    &[("data.unity3d", &bundle)],
                );
            }
        }
    }
}

fn codec_seeds(out: &mut Out, rng: &mut Rng) {
    let mut formats: Vec<PixelFormat> = texscope::codec::ALL_FIXED.to_vec();
    for (w, h) in texscope::codec::ASTC_FOOTPRINTS {
        for hdr in [false, true] {
            formats.push(PixelFormat::ASTC { w, h, hdr });
        }
    }
    for (i, f) in formats.iter().enumerate() {
        // Byte 0 picks the format (index into the same list as fuzz_targets/codec.rs), then
        // an 8x8 surface (bytes 1-2 are size - 1).
        let mut seed = vec![i as u8, 7, 7];
        seed.extend(random(rng, f.surface_size(8, 8)));
        let dir = out.root.join("codec");
        std::fs::create_dir_all(&dir).expect("create corpus folder");
        std::fs::write(dir.join(f.name()), seed).expect("write seed");
        out.count += 1;
    }
}

/// The fuzz key (fuzz/src/lib.rs `run_keyed`): the UE 5.8 fixtures' key.
fn fuzz_key() -> texscope::io::aes::AesKey {
    texscope::io::aes::AesKey::from_bytes(*b"CUE4ParseFixtureAESKey0123456789")
}

/// Containers written by src/fixtures/containers.rs around small generated packages: paks of
/// the legacy and the path-hash index, stored/zlib, plain/encrypted; IoStore stored, zlib,
/// encrypted, partitioned. Block seeds: one block of each method (Oodle blocks are taken from
/// the UE 5.8 fixtures' Oodle container when the shared samples are beside the checkout; no
/// Oodle encoder exists in Rust).
fn container_seeds(out: &mut Out, rng: &mut Rng) {
    use texscope::fixtures::containers::{self as cx, PakOptions, TocOptions};
    let (t, _) = ue::classic_texture("T_Fuzz", PixelFormat::BC1, 16, 16, 3, 1, rng);
    let pak_files: Vec<(String, Vec<u8>)> = vec![
        ("T/T_Fuzz.uasset".into(), t.uasset.clone()),
        ("T/T_Fuzz.uexp".into(), t.uexp.clone()),
        ("T/T_Fuzz.ubulk".into(), t.ubulk.clone()),
        ("Other/readme.txt".into(), b"not a package".to_vec()),
    ];
    let mut keys = texscope::io::aes::Keys::default();
    keys.push(None, fuzz_key());
    let keyed = texscope::OpenOptions {
        aes_keys: keys,
        ..Default::default()
    };
    // (version, zlib, key, AES-CTR): 13-15 are UE 6.0's (262-byte footer, QDFP directory, CTR).
    for (version, zlib, key, ctr) in [
        (15, true, true, true),
        (15, false, true, true),
        (15, true, true, false),
        (14, false, false, false),
        (13, true, true, true),
        (12, false, false, false),
        (12, true, false, false),
        (12, true, true, false),
        (11, false, true, false),
        (8, true, false, false),
        (7, false, true, false),
        (3, true, false, false),
        (2, false, false, false),
        (1, false, false, false),
    ] {
        let o = PakOptions {
            version,
            ctr,
            zlib,
            block_size: 2048,
            key: key.then(fuzz_key),
            ..Default::default()
        };
        let bytes = cx::pak(&pak_files, &o);
        let seed = format!(
            "v{version}_{}{}",
            if zlib { "zlib" } else { "stored" },
            match (key, ctr) {
                (true, true) => "_aes_ctr",
                (true, false) => "_aes",
                _ => "",
            }
        );
        out.put_with("ue_pak", &seed, &[("fuzz.pak", &bytes)], &keyed);
    }
    let toc_files: Vec<(String, Vec<u8>)> = vec![
        ("T/T_Fuzz.uasset".into(), t.uzenasset.clone()),
        ("T/T_Fuzz.ubulk".into(), t.ubulk.clone()),
    ];
    // (seed, TOC version, AES-CTR, zlib, key, partition size): version 10 is UE 6.0's.
    for (name, version, ctr, zlib, key, partition) in [
        ("stored", 8, false, false, false, None),
        ("zlib", 8, false, true, false, None),
        ("zlib_aes", 8, false, true, true, None),
        ("parts", 8, false, false, false, Some(1024)),
        ("v10_zlib_aes_ctr", 10, true, true, true, None),
        ("v10_stored_aes_ctr", 10, true, false, true, None),
        ("v10_zlib_aes_ecb", 10, false, true, true, None),
        ("v9_stored", 9, false, false, false, None),
    ] {
        let o = TocOptions {
            version,
            ctr,
            zlib,
            block_size: 1024,
            key: key.then(fuzz_key),
            partition_size: partition,
            ..Default::default()
        };
        let c = cx::iostore(&toc_files, &o);
        let parts: Vec<Vec<u8>> = (0..c.partitions.min(2)).map(|k| c.ucas(k)).collect();
        if c.partitions > 2 {
            // The target names two partitions; keep the seed to what it can carry.
            continue;
        }
        let mut files: Vec<(&str, &[u8])> = vec![("fuzz.utoc", &c.utoc)];
        let names = ["fuzz.ucas", "fuzz_s1.ucas"];
        for (k, p) in parts.iter().enumerate() {
            files.push((names[k], p));
        }
        out.put_with("ue_toc", name, &files, &keyed);
    }
    let raw = random(rng, 3000);
    let n = raw.len() as u32;
    // (seed name, method byte of the blocks target, decoded size, block bytes)
    let mut blocks: Vec<(String, u8, u32, Vec<u8>)> = vec![
        ("stored".into(), 0, n, raw.clone()),
        (
            "zlib".into(),
            1,
            n,
            miniz_oxide::deflate::compress_to_vec_zlib(&raw, 6),
        ),
        ("lz4".into(), 3, n, lz4_flex::block::compress(&raw)),
    ];
    {
        use std::io::Write;
        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        gz.write_all(&raw).expect("gzip");
        blocks.push(("gzip".into(), 2, n, gz.finish().expect("gzip")));
    }
    let ue58 = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../shared/samples/unreal/cue4parse-fixtures/UE5_8/IoStore/Unversioned/Oodle");
    let ue58 = if ue58.exists() {
        ue58
    } else {
        PathBuf::from(
            "/work/shared/samples/unreal/cue4parse-fixtures/UE5_8/IoStore/Unversioned/Oodle",
        )
    };
    let utoc = ue58.join("CUE4ParseFixtures-Minimal-Oodle-Windows.utoc");
    if utoc.exists() {
        let ucas = utoc.with_extension("ucas");
        let toc = texscope::unreal::iostore::open(
            &texscope::io::BytesSource::shared("o.utoc", std::fs::read(&utoc).expect("utoc")),
            |_| {
                Some(texscope::io::BytesSource::shared(
                    "o.ucas",
                    std::fs::read(&ucas).expect("ucas"),
                ))
            },
            &Default::default(),
            &Default::default(),
        )
        .expect("the fixtures' Oodle container opens");
        for i in [0usize, 1, 2] {
            let b = toc.block(i).expect("block");
            let stored = toc.store().read_stored(&b).expect("stored bytes");
            blocks.push((format!("oodle_{i}"), 4, b.size as u32, stored));
        }
    }
    let dir = out.root.join("blocks");
    std::fs::create_dir_all(&dir).expect("create corpus folder");
    for (name, method, size, bytes) in blocks {
        let mut seed = vec![method];
        seed.extend(&size.to_le_bytes()[..3]);
        seed.extend(bytes);
        std::fs::write(dir.join(&name), seed).expect("write seed");
        out.count += 1;
    }
}

/// UE5 editor payloads for the `ue_payload` target: a package tail with a version-2 trailer
/// (docs/unreal.md, "Editor payloads") holding one FCompressedBuffer of 4 KiB blocks, LZ4 or
/// stored, over a delta-coded 64x64 BGRA8 gradient; and the bare buffers.
fn payload_seeds(out: &mut Out) {
    use texscope::unreal::{trailer, uedelta};
    let dir = out.root.join("ue_payload");
    std::fs::create_dir_all(&dir).expect("create corpus folder");
    let plane = uedelta::Plane::for_format("TSF_BGRA8", 64, 64, 1).expect("plane");
    let mut raw: Vec<u8> = (0..plane.size()).map(|i| (i / 256 + i % 7) as u8).collect();
    uedelta::delta_plane(&mut raw, &plane).expect("delta");
    for (name, method) in [("lz4", 4u8), ("stored", 0)] {
        let blocks: Vec<Vec<u8>> = if method == 0 {
            vec![raw.clone()]
        } else {
            raw.chunks(4096)
                .map(|c| {
                    let z = lz4_flex::block::compress(c);
                    if z.len() < c.len() {
                        z
                    } else {
                        c.to_vec()
                    }
                })
                .collect()
        };
        let table = if method == 0 { 0 } else { 4 * blocks.len() };
        let total = 64 + table + blocks.iter().map(Vec::len).sum::<usize>();
        let mut b = 0xB775_6362u32.to_be_bytes().to_vec();
        b.extend([0; 4]);
        b.extend([method, 0, 0, if method == 0 { 0 } else { 12 }]);
        b.extend((blocks.len() as u32).to_be_bytes());
        b.extend((raw.len() as u64).to_be_bytes());
        b.extend((total as u64).to_be_bytes());
        b.extend([0x5A; 32]);
        if method != 0 {
            for z in &blocks {
                b.extend((z.len() as u32).to_be_bytes());
            }
        }
        let crc = crc32fast::hash(&b[8..64 + table]);
        b[4..8].copy_from_slice(&crc.to_be_bytes());
        blocks.iter().for_each(|z| b.extend(z));
        std::fs::write(dir.join(format!("cbuf_{name}")), &b).expect("write seed");
        // The package tail: some bytes, the trailer header, its one entry, the buffer, the footer.
        let mut t = vec![0xC1u8; 32];
        t.extend(trailer::HEADER_TAG.to_le_bytes());
        t.extend(2i32.to_le_bytes());
        t.extend((28u32 + 49).to_le_bytes());
        t.extend((b.len() as u64).to_le_bytes());
        t.extend(1i32.to_le_bytes());
        t.extend([0x11; 20]);
        t.extend(0i64.to_le_bytes());
        t.extend((b.len() as u64).to_le_bytes());
        t.extend((raw.len() as u64).to_le_bytes());
        t.extend([0; 5]);
        t.extend(&b);
        let len = t.len() as u64 - 32 + trailer::FOOTER_SIZE;
        t.extend(trailer::FOOTER_TAG.to_le_bytes());
        t.extend(len.to_le_bytes());
        t.extend(trailer::PACKAGE_FILE_TAG.to_le_bytes());
        std::fs::write(dir.join(format!("trailer_{name}")), &t).expect("write seed");
        out.count += 2;
    }
}

/// Editor packages for the `ue_editor` target: the smallest texture package of each engine version
/// in the shared editor set (UE 4.0 beta to 5.7; MANIFEST.tsv), read in place when the samples are
/// beside the checkout and written only into the (untracked) corpus. Without them the target
/// starts from nothing, and libFuzzer's first inputs are tiny files of every format (it found a
/// large-window brotli stream that way) rather than editor summaries.
fn editor_seeds(out: &mut Out) {
    // A package of the crate's own editor writer, whatever the samples: 2 UDIM blocks x 2 layers
    // (BGRA8, G8) stored raw, so mutations reach the block/layer offsets and their checks.
    {
        let block = |x, size_x, size_y, mips| ue::EditorBlock {
            x,
            y: 0,
            size_x,
            size_y,
            slices: 1,
            mips,
        };
        let mut src = ue::EditorSource {
            blocks: vec![block(0, 8, 8, 2), block(1, 4, 4, 1)],
            layer_formats: vec!["TSF_BGRA8".into(), "TSF_G8".into()],
            compression: None,
            payload: Vec::new(),
        };
        // Block 0: 8x8 + 4x4 texels per layer; block 1: 4x4; 4 bytes (BGRA8) then 1 (G8) each.
        let texels = (64 + 16) * 5 + 16 * 5;
        src.payload = (0..texels).map(|i| (i * 29 % 251) as u8).collect();
        let pkg = ue::editor_texture("T_Editor", &src);
        out.put("ue_editor", "udim_layers", &[("T_Editor.uasset", &pkg)]);
    }
    if !editor_manifest::root().join("MANIFEST.tsv").exists() {
        return;
    }
    let mut best: std::collections::BTreeMap<String, (u64, PathBuf)> = Default::default();
    for row in editor_manifest::rows() {
        let Ok(bytes) = std::fs::metadata(&row.file).map(|m| m.len()) else {
            continue;
        };
        // Render targets hold no source to decode; bigger files only slow every execution.
        let texture = row.class.starts_with("Texture") && !row.class.contains("RenderTarget");
        if !texture || row.storage == "raw-or-unknown" || bytes > 40_000 {
            continue;
        }
        if best.get(&row.engine).is_none_or(|(b, _)| bytes < *b) {
            best.insert(row.engine.clone(), (bytes, row.file));
        }
    }
    for (engine, (_, file)) in best {
        let Ok(bytes) = std::fs::read(&file) else {
            continue;
        };
        out.put(
            "ue_editor",
            &format!("ue{engine}"),
            &[("T_Editor.uasset", &bytes)],
        );
    }
}

/// A GNF file laid out as src/formats/gnf.rs reads it: the header (0x100 bytes for version 2,
/// 64 KiB for version 5), one descriptor (`words`, its last dword set to the surface size), the
/// surface.
fn gnf(version: u8, words: [u32; 8], surface: &[u8]) -> Vec<u8> {
    let (header, desc_at) = if version == 2 {
        (0x100, 0x10)
    } else {
        (0x1_0000, 0x28)
    };
    let mut f = vec![0u8; header];
    f[..4].copy_from_slice(b"GNF ");
    f[4..8].copy_from_slice(&(header as u32 - 8).to_le_bytes());
    f[8] = version;
    f[9] = 1;
    f[10] = 8;
    let mut w = words;
    w[7] = surface.len() as u32;
    for (k, word) in w.iter().enumerate() {
        f[desc_at + 4 * k..][..4].copy_from_slice(&word.to_le_bytes());
    }
    f.extend_from_slice(surface);
    f
}

/// PS4 (GCN T#) and PS5 (GFX10 descriptor) GNF files of each layout the reader untiles, the
/// descriptor bits as src/formats/gnf.rs documents them.
fn gnf_seeds(out: &mut Out, rng: &mut Rng) {
    use texscope::codec::tiling::rdna;
    // PS4: (data_format, num_format, width, height, tile mode, pitch, element bytes, block).
    for (fmt, num, w, h, tile, pitch, bytes, block) in [
        (10u32, 9u32, 20u32, 12u32, 13u32, 24u32, 4u64, 1u32),
        (35, 0, 16, 16, 13, 32, 8, 4),
        (10, 0, 6, 5, 8, 8, 4, 1),
    ] {
        let words = [
            0,
            (fmt << 20) | (num << 26),
            (w - 1) | ((h - 1) << 14),
            // dst_sel Z, Y, X, W (BGRA), type 2D.
            6 | (5 << 3) | (4 << 6) | (7 << 9) | (tile << 20) | (9 << 28),
            (pitch - 1) << 13,
            0,
            0,
            0,
        ];
        let rows = if tile == 13 {
            h.div_ceil(block).div_ceil(8) * 8
        } else {
            h.div_ceil(block)
        };
        let size = (pitch / block) as u64 * rows as u64 * bytes;
        let f = gnf(2, words, &random(rng, size));
        out.put("gnf", &format!("ps4_{fmt}_{tile}"), &[("fuzz.gnf", &f)]);
    }
    // PS5: (format, width, height, mips, swizzle mode).
    for (fmt, w, h, mips, sw) in [
        (169u32, 64u32, 64u32, 7u32, rdna::SW_64KB_S),
        (169, 300, 200, 9, rdna::SW_4KB_S),
        (56, 20, 20, 1, rdna::SW_LINEAR),
        (56, 40, 24, 3, rdna::SW_64KB_S),
    ] {
        let format = if fmt == 169 {
            PixelFormat::BC1
        } else {
            PixelFormat::RGBA8
        };
        let (_, _, size) = rdna::chain(sw, format, w, h, mips).unwrap();
        let words = [
            0,
            (fmt << 20) | (((w - 1) & 3) << 30),
            ((w - 1) >> 2) | ((h - 1) << 14),
            4 | (5 << 3) | (6 << 6) | (7 << 9) | ((mips - 1) << 16) | (sw << 20) | (9 << 28),
            0,
            (mips - 1) << 4,
            0,
            0,
        ];
        let f = gnf(5, words, &random(rng, size));
        out.put(
            "gnf",
            &format!("ps5_{fmt}_{sw}_{w}x{h}"),
            &[("fuzz.gnf", &f)],
        );
    }
}

fn main() {
    let root = std::env::args()
        .nth(1)
        .map_or_else(|| Path::new("fuzz/corpus").to_path_buf(), PathBuf::from);
    let mut out = Out { root, count: 0 };
    let mut rng = Rng(0xF022);
    dds_seeds(&mut out, &mut rng);
    ktx_seeds(&mut out, &mut rng);
    unreal_seeds(&mut out, &mut rng);
    frostbite_seeds(&mut out);
    unity_seeds(&mut out, &mut rng);
    codec_seeds(&mut out, &mut rng);
    container_seeds(&mut out, &mut rng);
    gnf_seeds(&mut out, &mut rng);
    payload_seeds(&mut out);
    editor_seeds(&mut out);
    println!("{} seeds written under {}", out.count, out.root.display());
}
