//! Unity Switch (target platform 38) Texture2Ds and Cubemaps with an `m_PlatformBlob` and a whole
//! mip chain.
//!
//! No public real Switch blob texture with more than one mip, nor a Switch cubemap, exists (the
//! shared Foxiary files, tests/unity_switch.rs, hold only single-mip ASTC atlases), so the layout
//! is checked against an independent implementation of the Tegra X1 block-linear layout instead:
//! the `tegra_swizzle` crate's `surface::swizzle_surface`, which lays out a whole surface the way
//! the Switch GPU and its driver do (each mip's own block height, halved from mip 0's; mips back
//! to back; each cube face or array layer starting on a whole block of GOBs, as Ryujinx's
//! `SizeCalculator` does). Each case builds random linear mips, tiles them with that function,
//! writes a Unity 6 (6000.0.56f1, format 22) serialized file for Switch holding the tiled bytes
//! and a blob stating the block height and the padded size (the tiled bytes' length), opens it
//! with the library and checks:
//! - every mip's (and face's) untiled bytes (`Catalog::read_surface`) equal the linear source bit
//!   for bit (expected value: the source itself, tiled by tegra_swizzle);
//! - every mip decodes (`Catalog::decode`, which untiles in bands on its own path) to the same
//!   image as the same linear bytes written as a Windows build without a blob;
//! - the texture says block-linear with the blob's block height.
//!
//! The blob is Unity 6's 92 bytes (tests/unity_fixtures `switch_blob`, copied from the shared
//! Foxiary blobs); the TextureFormat ids are Unity's (4 RGBA32, 10 DXT1, 25 BC7, 48 ASTC_RGB_4x4,
//! as src/unity/texture.rs and UnityPy's TextureFormat enum number them).

mod common;
mod unity_fixtures;

use common::{unitypy_file_rgba, unitypy_pixels};
use std::sync::Arc;
use tegra_swizzle::surface::{swizzle_surface, BlockDim};
use tegra_swizzle::BlockHeight;
use texscope::codec::tiling::Tiling;
use texscope::fixtures::unreal::Rng;
use texscope::io::{BytesSource, SourceRef};
use texscope::{Catalog, DecodeOptions, OpenOptions, Platform};
use unity_fixtures::{meta, switch_blob, tile_one_gob, unity_serialized_for, Build, UnityTex};

/// The version of the shared Switch samples: its Texture2D layout has `m_PlatformBlob` (2020.2+).
const VERSION: &str = "6000.0.56f1";
const SWITCH: i32 = 38;

/// A Unity TextureFormat and its block: texels across and down, bytes.
#[derive(Clone, Copy)]
struct Format {
    name: &'static str,
    id: i32,
    block: u32,
    bytes: u32,
}

const fn format(name: &'static str, id: i32, block: u32, bytes: u32) -> Format {
    Format {
        name,
        id,
        block,
        bytes,
    }
}

const RGBA32: Format = format("RGBA32", 4, 1, 4);
const DXT1: Format = format("DXT1", 10, 4, 8);
const BC7: Format = format("BC7", 25, 4, 16);
const ASTC_4X4: Format = format("ASTC_RGB_4x4", 48, 4, 16);

/// A full chain's mip count: down to 1x1 (Unity's rule for a texture with mips).
fn full_chain(w: u32, h: u32) -> u32 {
    32 - w.max(h).leading_zeros()
}

/// The mips' sizes in texels and their linear sizes in bytes (blocks rounded up; a mip is
/// never narrower than one block).
fn mips(f: Format, w: u32, h: u32) -> Vec<(u32, u32, usize)> {
    (0..full_chain(w, h))
        .map(|m| {
            let (mw, mh) = ((w >> m).max(1), (h >> m).max(1));
            let bx = mw.div_ceil(f.block) as usize;
            let by = mh.div_ceil(f.block) as usize;
            (mw, mh, bx * by * f.bytes as usize)
        })
        .collect()
}

fn open(name: &str, bytes: Vec<u8>) -> Catalog {
    open_with(name, bytes, &OpenOptions::default())
}

fn open_with(name: &str, bytes: Vec<u8>, options: &OpenOptions) -> Catalog {
    let src: SourceRef = Arc::new(BytesSource::new(name, bytes));
    texscope::open(vec![src], options)
}

/// How tegra_swizzle is given a surface: in texels with the format's block (its usual use), or,
/// for a power-of-two size, as a surface of blocks, each one "texel" of the block's bytes.
/// The two lay out the same bytes except for one thing: the crate halves the block height it
/// aligns array layers to against the surface's height, which is then texel rows or rows of
/// blocks (see [`switch_cubemaps_with_a_tall_block_follow_ryujinx`]).
#[derive(Clone, Copy, PartialEq)]
enum View {
    Texels,
    Blocks,
}

/// What a case writes: a format, a size, the images (1 Texture2D, 6 a Cubemap's faces), and
/// whether it holds mip 0 alone rather than the full chain.
#[derive(Clone, Copy)]
struct Shape {
    f: Format,
    w: u32,
    h: u32,
    images: u32,
    single: bool,
}

impl Shape {
    fn mip_count(&self) -> u32 {
        if self.single {
            1
        } else {
            full_chain(self.w, self.h)
        }
    }

    /// [`mips`] of the levels this shape holds.
    fn levels(&self) -> Vec<(u32, u32, usize)> {
        let mut v = mips(self.f, self.w, self.h);
        v.truncate(self.mip_count() as usize);
        v
    }

    fn name(&self) -> String {
        let class = if self.images == 6 {
            "Cubemap"
        } else {
            "Texture2D"
        };
        format!("{}x{} {} {class}", self.w, self.h, self.f.name)
    }

    /// The file of this texture for `platform` with `blob`: `data` (every image's whole chain)
    /// inline in the object; m_CompleteImageSize `complete`, else one image's share of `data`.
    fn file(&self, data: &[u8], platform: i32, blob: &[u8], complete: Option<i64>) -> Vec<u8> {
        let tex = UnityTex {
            width: self.w as i32,
            height: self.h as i32,
            format: self.f.id,
            mips: self.mip_count() as i32,
            image: data,
            stream: None,
        };
        let build = Build {
            class_id: if self.images == 6 { 89 } else { 28 },
            images: self.images as i32,
            platform,
            blob,
            complete,
        };
        unity_serialized_for(VERSION, 22, &tex, &build)
    }

    /// Opens a Switch build's file of `tiled` with a blob stating `block_height` and `padded`.
    fn open_switch(
        &self,
        tiled: &[u8],
        block_height: u32,
        padded: u32,
        complete: Option<i64>,
    ) -> Catalog {
        let blob = switch_blob(block_height, padded);
        open("switch.assets", self.file(tiled, SWITCH, &blob, complete))
    }

    /// Tiles `linear` (image after image, each mip after mip) with tegra_swizzle: the surface
    /// as the Switch lays it out with mip 0's `block_height`, array layers aligned as its driver
    /// aligns them.
    fn tile(&self, view: View, block_height: u32, linear: &[u8]) -> Vec<u8> {
        let (w, h, dim) = match view {
            View::Texels if self.f.block == 1 => (self.w, self.h, BlockDim::uncompressed()),
            View::Texels => (self.w, self.h, BlockDim::block_4x4()),
            View::Blocks => {
                // Each mip's blocks are then (w >> m) / 4 rounded up only for powers of two.
                assert!(self.w.is_power_of_two() && self.h.is_power_of_two());
                let b = self.f.block;
                (self.w / b, self.h / b, BlockDim::uncompressed())
            }
        };
        swizzle_surface(
            w,
            h,
            1,
            linear,
            dim,
            Some(BlockHeight::new(block_height).unwrap()),
            self.f.bytes,
            self.mip_count(),
            self.images,
        )
        .unwrap()
    }
}

/// One case: every image's chain tiled (seen by tegra_swizzle as `view`) with mip 0's
/// `block_height`, read back mip by mip. Returns whether tegra_swizzle put padding between the
/// images (their tiled bytes are more than the images' chains tiled one by one).
fn check(s: Shape, view: View, block_height: u32, seed: u64) -> bool {
    let what = format!("{} block height {block_height}", s.name());
    let levels = s.levels();
    let chain: usize = levels.iter().map(|l| l.2).sum();
    let mut rng = Rng(seed);
    let mut linear = vec![0u8; chain * s.images as usize];
    rng.fill(&mut linear);
    let tiled = s.tile(view, block_height, &linear);
    assert!(tiled.len() > linear.len(), "{what}: tiling pads");
    let one = Shape { images: 1, ..s }.tile(view, block_height, &linear[..chain]);
    let layers_padded = tiled.len() > one.len() * s.images as usize;
    let pc = open("pc.assets", s.file(&linear, 5, &[], None));
    assert_eq!(pc.textures[0].tiling, Tiling::Linear, "{what}: the PC twin");
    // m_CompleteImageSize of a face: with the padding between faces (one image's share of the
    // data), and, for a cubemap, without it (one face's chain tiled alone): which one Unity
    // writes is not known, and the reader takes either.
    let mut completes = vec![None];
    if layers_padded {
        completes.push(Some(one.len() as i64));
    }
    for complete in completes {
        let what = format!("{what}, m_CompleteImageSize {complete:?}");
        let switch = s.open_switch(&tiled, block_height, tiled.len() as u32, complete);
        compare(s, &switch, &pc, &linear, block_height, &what);
    }
    layers_padded
}

/// Every image's every mip of `switch` against the linear source `linear` and against `pc`'s
/// decode.
fn compare(s: Shape, switch: &Catalog, pc: &Catalog, linear: &[u8], block_height: u32, what: &str) {
    let levels = s.levels();
    let chain: usize = levels.iter().map(|l| l.2).sum();
    assert!(switch.problems.is_empty(), "{what}: {:?}", switch.problems);
    let [t] = &switch.textures[..] else {
        panic!("{what}: {} textures", switch.textures.len())
    };
    assert!(t.error.is_none(), "{what}: {:?}", t.error);
    assert_eq!(t.tiling, Tiling::BlockLinear { block_height }, "{what}");
    assert_eq!(t.census()["tiling"], "block_linear", "{what}");
    assert_eq!(t.mips.len(), levels.len(), "{what}: mips");
    assert_eq!(t.slices, s.images, "{what}: images");
    for image in 0..s.images {
        let mut at = image as usize * chain;
        for (m, &(mw, mh, len)) in levels.iter().enumerate() {
            let (bytes, rw, rh) = switch
                .read_surface(0, m, image)
                .unwrap_or_else(|e| panic!("{what}: image {image} mip {m}: {e}"));
            assert_eq!((rw, rh), (mw, mh), "{what}: mip {m} size");
            assert!(
                bytes == linear[at..at + len],
                "{what}: image {image} mip {m} ({mw}x{mh}) differs from the source tiled by tegra_swizzle"
            );
            at += len;
            let ours = switch
                .decode(0, m, image, DecodeOptions::default())
                .unwrap_or_else(|e| panic!("{what}: decode image {image} mip {m}: {e}"));
            let want = pc.decode(0, m, image, DecodeOptions::default()).unwrap();
            assert!(
                ours == want,
                "{what}: image {image} mip {m} decodes differently from the linear file"
            );
        }
    }
}

/// Block heights for mip 0: the driver's default for the rows of blocks (tegra_swizzle's
/// `block_height_mip0`, the rule NVN uses when nothing states one), a smaller one (a quarter of
/// it, at least 2; one GOB per block has its own tests, `switch_one_gob_*`) and 32, the largest
/// the hardware has (a block taller than mip 0).
fn block_heights(f: Format, h: u32) -> Vec<u32> {
    let default = tegra_swizzle::block_height_mip0(h.div_ceil(f.block)) as u32;
    let mut v = vec![default, (default / 4).max(2), 32];
    v.sort_unstable();
    v.dedup();
    v
}

const FORMATS: [Format; 4] = [RGBA32, DXT1, BC7, ASTC_4X4];

/// Every format, each at a power-of-two square, a non-power-of-two and a tall narrow size, each
/// with every block height of [`block_heights`], the full chain.
#[test]
fn switch_mip_chains_match_tegra_swizzle() {
    let mut cases = 0;
    for f in FORMATS {
        for (w, h) in [(256, 256), (300, 200), (64, 1024)] {
            for bh in block_heights(f, h) {
                let s = Shape {
                    f,
                    w,
                    h,
                    images: 1,
                    single: false,
                };
                let padded = check(s, View::Texels, bh, 0x5717_C400 + cases);
                assert!(!padded, "one image has no layer padding");
                cases += 1;
            }
        }
    }
    println!("{cases} Switch mip chains equal to tegra_swizzle's layout");
}

/// Cubemaps: six faces, each a whole chain, each face's start aligned as tegra_swizzle aligns
/// array layers (its `arrays::align_layer_size`, ported from Ryujinx's `SizeCalculator`, itself
/// written from the driver's behaviour). Block heights: the default and the smaller one; a block
/// taller than mip 0's rows is [`switch_cubemaps_with_a_tall_block_follow_ryujinx`].
#[test]
fn switch_cubemap_mip_chains_match_tegra_swizzle() {
    let (mut cases, mut aligned) = (0, 0);
    for f in FORMATS {
        for side in [256, 200] {
            for bh in block_heights(f, side).into_iter().filter(|&b| b < 32) {
                let s = Shape {
                    f,
                    w: side,
                    h: side,
                    images: 6,
                    single: false,
                };
                aligned += check(s, View::Texels, bh, 0xC0BE_0000 + cases) as u32;
                cases += 1;
            }
        }
    }
    println!(
        "{cases} Switch cubemap chains equal to tegra_swizzle's layout, {aligned} with faces padded to whole blocks of GOBs"
    );
    // The point of the cases: faces that do not end on a block of GOBs.
    assert!(aligned > 0, "no case pads its faces");
}

/// Cubemaps of BCn / ASTC with a block height taller than mip 0's rows of blocks call for it:
/// the layer alignment's block height is halved against the rows of blocks by Ryujinx
/// (`SizeCalculator.AlignLayerSize` divides the height by the format's block height first) and
/// against the texel rows by tegra_swizzle's texel view (its surface API passes the height in
/// texels), so the two references part here. Ryujinx runs real games' cube and array textures
/// from its rule, and the reader follows it; tegra_swizzle reproduces it when given the surface as
/// blocks (power-of-two sides, where that view lays the mips out identically), which is the
/// expected value here. The texel view is checked to differ, so these cases do test the rule.
#[test]
fn switch_cubemaps_with_a_tall_block_follow_ryujinx() {
    let (mut cases, mut differ) = (0, 0);
    for f in [DXT1, BC7, ASTC_4X4] {
        for side in [256, 64] {
            let default = tegra_swizzle::block_height_mip0(side / 4) as u32;
            for bh in [16, 32].into_iter().filter(|&b| b > default) {
                let s = Shape {
                    f,
                    w: side,
                    h: side,
                    images: 6,
                    single: false,
                };
                check(s, View::Blocks, bh, 0x7A11_0000 + cases);
                let n = mips(f, side, side).iter().map(|l| l.2).sum::<usize>() * 6;
                let zeros = vec![0u8; n];
                let texels = s.tile(View::Texels, bh, &zeros).len();
                differ += (texels != s.tile(View::Blocks, bh, &zeros).len()) as u32;
                cases += 1;
            }
        }
    }
    println!("{cases} Switch cubemaps with a tall block laid out as Ryujinx does, {differ} where tegra_swizzle's texel view differs");
    assert!(differ > 0, "no case where the two rules part");
}

/// A Switch texture without a blob whose data is exactly the block-linear size with the driver's
/// default block height (tegra_swizzle's `block_height_mip0`, NVN's rule) is listed with an error
/// asking for the platform Switch, and with that choice untiled as tegra_swizzle tiled it: a
/// Texture2D chain and a cubemap whose faces are padded to whole blocks of GOBs.
#[test]
fn switch_without_a_blob_is_untiled_when_the_platform_is_chosen() {
    let shapes = [
        Shape {
            f: RGBA32,
            w: 300,
            h: 200,
            images: 1,
            single: false,
        },
        Shape {
            f: DXT1,
            w: 256,
            h: 256,
            images: 6,
            single: false,
        },
    ];
    for (k, s) in shapes.into_iter().enumerate() {
        let what = format!("{} without a blob", s.name());
        let bh = tegra_swizzle::block_height_mip0(s.h.div_ceil(s.f.block)) as u32;
        let n = s.levels().iter().map(|l| l.2).sum::<usize>() * s.images as usize;
        let mut linear = vec![0u8; n];
        Rng(0xB10B_0000 + k as u64).fill(&mut linear);
        let tiled = s.tile(View::Texels, bh, &linear);
        let file = s.file(&tiled, SWITCH, &[], None);
        let asked = open("switch.assets", file.clone());
        let t = &asked.textures[0];
        assert_eq!(t.tiling, Tiling::Linear, "{what}");
        let e = t
            .error
            .as_deref()
            .unwrap_or_else(|| panic!("{what}: no error"));
        assert!(e.contains("choose the platform Switch"), "{what}: {e}");
        let chosen = OpenOptions {
            platform: Some(Platform::Switch),
            ..Default::default()
        };
        let switch = open_with("switch.assets", file, &chosen);
        let pc = open("pc.assets", s.file(&linear, 5, &[], None));
        compare(s, &switch, &pc, &linear, bh, &what);
    }
}

/// A blob whose padded size is not the chain's tiled length is an error naming
/// `m_PlatformBlob`: one GOB short, one GOB over, and mip 0's size alone.
#[test]
fn switch_mip_chain_padded_size_must_match() {
    let (bh, s) = (
        8,
        Shape {
            f: BC7,
            w: 300,
            h: 200,
            images: 1,
            single: false,
        },
    );
    let levels = s.levels();
    let linear = vec![0x5Au8; levels.iter().map(|l| l.2).sum()];
    let tiled = s.tile(View::Texels, bh, &linear);
    let mip0 = tegra_swizzle::swizzle::swizzled_mip_size(
        s.w.div_ceil(4),
        s.h.div_ceil(4),
        1,
        BlockHeight::new(bh).unwrap(),
        s.f.bytes,
    );
    let n = tiled.len();
    for padded in [n - 512, n + 512, mip0] {
        let cat = s.open_switch(&tiled, bh, padded as u32, None);
        let t = &cat.textures[0];
        let e = t
            .error
            .as_deref()
            .unwrap_or_else(|| panic!("padded {padded} of {n}: accepted"));
        assert!(e.contains("m_PlatformBlob"), "padded {padded}: {e}");
        assert!(e.contains(&padded.to_string()), "padded {padded}: {e}");
        assert!(
            cat.decode(0, 0, 0, DecodeOptions::default()).is_err(),
            "padded {padded}: decoded"
        );
    }
}

/// PS4 (31) and PS5 (44) builds: a texture with a non-empty `m_PlatformBlob` is read as linear
/// (no sample or public reader says how Unity lays out a tiled one, and nothing here guesses),
/// and its notes say why it may look scrambled; without a blob there is no such note. The pixels
/// are the file's bytes as they are, compared with the same bytes written for Windows.
#[test]
fn ps4_and_ps5_blobs_are_read_linear_and_said() {
    let s = Shape {
        f: RGBA32,
        w: 64,
        h: 32,
        images: 1,
        single: false,
    };
    let chain: usize = s.levels().iter().map(|l| l.2).sum();
    let mut data = vec![0u8; chain];
    Rng(7).fill(&mut data);
    let pc = open("pc.assets", s.file(&data, 5, &[], None));
    for (target, platform, name) in [(31, Platform::Ps4, "PS4"), (44, Platform::Ps5, "PS5")] {
        for blob in [&[][..], &[1u8; 32][..]] {
            let c = open("console.assets", s.file(&data, target, blob, None));
            let [t] = &c.textures[..] else {
                panic!("{name}: {} textures", c.textures.len())
            };
            assert!(t.error.is_none(), "{name}: {:?}", t.error);
            assert_eq!(t.platform, Some(platform));
            assert_eq!(t.tiling, Tiling::Linear, "{name}");
            let said = t
                .notes
                .iter()
                .any(|n| n.starts_with("m_PlatformBlob: ") && n.contains("tiled PS4/PS5 layout"));
            assert_eq!(
                said,
                !blob.is_empty(),
                "{name}, blob of {}: {:?}",
                blob.len(),
                t.notes
            );
            for m in 0..t.mips.len() {
                let ours = c.decode(0, m, 0, DecodeOptions::default()).unwrap();
                let want = pc.decode(0, m, 0, DecodeOptions::default()).unwrap();
                assert!(ours == want, "{name}: mip {m}");
            }
        }
    }
}

/// Single-mip sizes for block height 1, per format, with their linear and tiled sizes worked by
/// hand (a GOB is 64 bytes x 8 rows of blocks; RGBA32 4 bytes a texel, DXT1 8 bytes a 4x4 block,
/// BC7 and ASTC 4x4 16): 28x32, the real counter digits' size, whose rows (7 blocks = 112 bytes
/// of ASTC / BC7, 56 of DXT1, 112 of RGBA32) do not fill whole GOBs, so the tiled size is larger
/// (ASTC: 2 GOBs across x 1 down = 1024 bytes against 7 x 8 x 16 = 896); and a size whose rows
/// are whole GOBs wide and high, where the two sizes are equal and only the blob says the bytes
/// are tiled.
const ONE_GOB_SIZES: [(Format, u32, u32, usize, usize); 8] = [
    (ASTC_4X4, 28, 32, 896, 1024),
    (ASTC_4X4, 64, 32, 2048, 2048),
    (BC7, 28, 32, 896, 1024),
    (BC7, 64, 64, 4096, 4096),
    (DXT1, 28, 32, 448, 512),
    (DXT1, 128, 32, 2048, 2048),
    (RGBA32, 28, 32, 3584, 4096),
    (RGBA32, 64, 64, 16384, 16384),
];

fn single(f: Format, w: u32, h: u32) -> Shape {
    Shape {
        f,
        w,
        h,
        images: 1,
        single: true,
    }
}

/// Whether any of a texture's notes or its error says `text`.
fn says(t: &texscope::Texture, text: &str) -> bool {
    t.notes
        .iter()
        .chain(t.error.iter())
        .any(|n| n.contains(text))
}

/// A blob stating one GOB per block (bytes 8..12 = 0) is block-linear with block height 1, with
/// or without the platform chosen: single mips at [`ONE_GOB_SIZES`] (where the sizes differ and
/// where they are equal: the blob decides), full chains, and cubemaps. Expected value: the random
/// source, tiled by tegra_swizzle at block height 1, which for single mips is checked to equal
/// the textbook address ([`tile_one_gob`]) first, so the two references agree.
#[test]
fn switch_one_gob_blobs_are_block_linear() {
    let chosen = OpenOptions {
        platform: Some(Platform::Switch),
        ..Default::default()
    };
    let mut cases = 0;
    for (k, &(f, w, h, lin, til)) in ONE_GOB_SIZES.iter().enumerate() {
        let s = single(f, w, h);
        let what = format!("{} block height 1", s.name());
        let mut linear = vec![0u8; lin];
        Rng(0x1_60B0 + k as u64).fill(&mut linear);
        assert_eq!(s.levels()[0].2, lin, "{what}: linear size");
        let tiled = s.tile(View::Texels, 1, &linear);
        assert_eq!(tiled.len(), til, "{what}: tiled size");
        let row = w.div_ceil(f.block) * f.bytes;
        let rows = h.div_ceil(f.block);
        assert!(
            tiled == tile_one_gob(&linear, row as usize, rows as usize),
            "{what}: tegra_swizzle and the textbook address differ"
        );
        // Where the sizes are equal the tiled bytes are still a different order, so reading
        // them linear would not give the source back.
        assert!(tiled[..lin] != linear[..], "{what}: tiling moved nothing");
        let pc = open("pc.assets", s.file(&linear, 5, &[], None));
        let file = s.file(&tiled, SWITCH, &switch_blob(1, til as u32), None);
        for options in [&OpenOptions::default(), &chosen] {
            let switch = open_with("switch.assets", file.clone(), options);
            compare(s, &switch, &pc, &linear, 1, &what);
            let t = &switch.textures[0];
            assert_eq!(
                meta(t, "layout"),
                Some("Switch block-linear, block height 1"),
                "{what}"
            );
            assert!(!says(t, "no m_PlatformBlob"), "{what}: {:?}", t.notes);
            assert!(!says(t, "read as linear"), "{what}: {:?}", t.notes);
        }
        cases += 1;
    }
    // Whole chains (their small mips pad, so tiled and linear sizes differ) and cubemaps (each
    // face on a whole GOB), every format.
    for f in FORMATS {
        for (w, h, images) in [(28, 32, 1), (64, 64, 1), (32, 32, 6)] {
            let s = Shape {
                f,
                w,
                h,
                images,
                single: false,
            };
            check(s, View::Texels, 1, 0x1_60C0 + cases);
            cases += 1;
        }
    }
    println!(
        "{cases} Switch textures with a blob of block height 1 equal to tegra_swizzle's layout"
    );
}

/// UnityPy 1.25.4 against the same block-height-1 files as [`switch_one_gob_blobs_are_block_linear`]
/// (ASTC 4x4, BC7, DXT1 and RGBA32, sizes whose layouts differ and sizes where they are equal).
/// Its `is_switch_swizzled` takes a blob as tiled only when gobs_per_block > 1, so it reads the
/// tiled bytes as linear blocks. Expected values: the source itself (which Texscope decodes, and
/// UnityPy must not, else it untiles block height 1 after all), and the tiled bytes' first
/// linear-size bytes decoded as a Windows texture by this crate (what a linear reading paints;
/// UnityPy must match it within 1 on every texel whose block is not GOB padding, for the formats
/// whose every bit pattern is a valid block: DXT1, RGBA32, and BC7 save its reserved mode 0 byte).
/// Random ASTC bytes are mostly reserved or error blocks, which decoders paint differently, so
/// for ASTC only the first check is made. The test names each texture UnityPy gets wrong and why.
#[test]
fn unitypy_reads_one_gob_blobs_as_linear() {
    let root = std::env::temp_dir().join(format!("texscope-one-gob-sizes-{}", std::process::id()));
    let dir = root.join("one_gob");
    std::fs::create_dir_all(&dir).unwrap();
    // (file name, shape, Texscope's decode, the linear reading of the tiled bytes)
    let mut cases = Vec::new();
    for (k, &(f, w, h, lin, _)) in ONE_GOB_SIZES.iter().enumerate() {
        let s = single(f, w, h);
        let mut linear = vec![0u8; lin];
        Rng(0x1_60E0 + k as u64).fill(&mut linear);
        if f.id == BC7.id {
            // A BC7 block whose first byte is 0 is reserved (no mode bit set); decoders paint it
            // differently, so every block gets a mode bit.
            for b in linear.chunks_mut(16) {
                b[0] |= 1 << (b[0] as u32 % 8);
            }
        }
        let tiled = s.tile(View::Texels, 1, &linear);
        let name = format!("{k}_{}x{}_{}.assets", w, h, f.name);
        let file = s.file(&tiled, SWITCH, &switch_blob(1, tiled.len() as u32), None);
        std::fs::write(dir.join(&name), &file).unwrap();
        let ours = open("switch.assets", file)
            .decode(0, 0, 0, DecodeOptions::default())
            .unwrap()
            .to_rgba8();
        let source = open("pc.assets", s.file(&linear, 5, &[], None))
            .decode(0, 0, 0, DecodeOptions::default())
            .unwrap()
            .to_rgba8();
        assert!(ours == source, "{name}: Texscope is not the source");
        let misread = open("pc.assets", s.file(&tiled[..lin], 5, &[], None))
            .decode(0, 0, 0, DecodeOptions::default())
            .unwrap()
            .to_rgba8();
        cases.push((name, s, tiled, source, misread));
    }
    let Some((out, index)) = unitypy_pixels(&root) else {
        let _ = std::fs::remove_dir_all(&root);
        return;
    };
    let mut wrong = Vec::new();
    for (name, s, tiled, source, misread) in &cases {
        let theirs = unitypy_file_rgba(&out, &index, name);
        assert_eq!(theirs.len(), source.len(), "{name}: UnityPy's size");
        assert!(
            &theirs != source,
            "{name}: UnityPy paints the source (block height 1 read as tiled?)"
        );
        if s.f.id != ASTC_4X4.id {
            // The block each texel of the linear reading came from: padding where the tiled
            // bytes at that block's place are none of the source's (tile_one_gob pads with 0).
            let (bw, bb) = (s.w.div_ceil(s.f.block) as usize, s.f.bytes as usize);
            let blk = |i: usize| {
                let (x, y) = (i % s.w as usize, i / s.w as usize);
                // rows are stored bottom first: the decode's top row is the file's last
                let j = (s.h as usize - 1 - y) / s.f.block as usize;
                (j * bw + x / s.f.block as usize) * bb
            };
            let mut max = 0;
            for (i, (a, b)) in theirs.chunks(4).zip(misread.chunks(4)).enumerate() {
                let at = blk(i);
                if tiled[at..at + bb].iter().all(|&v| v == 0) {
                    continue;
                }
                let d = a.iter().zip(b).map(|(p, q)| p.abs_diff(*q)).max();
                max = max.max(d.unwrap_or(0));
            }
            assert!(
                max <= 1,
                "{name}: UnityPy is neither the source nor the tiled bytes read linear (max {max})"
            );
        }
        wrong.push(name.as_str());
    }
    println!(
        "UnityPy 1.25.4 is wrong on {} of {} ({wrong:?}): m_PlatformBlob states block height 1 and its is_switch_swizzled needs gobs_per_block > 1, so it reads the tiled bytes as linear",
        wrong.len(),
        cases.len()
    );
    assert_eq!(wrong.len(), cases.len());
    let _ = std::fs::remove_dir_all(&root);
    let _ = std::fs::remove_dir_all(&out);
}

/// A blob of one GOB per block over data of the linear size only (28x32: the tiled size is
/// larger) is read linear, as UnityPy reads every such blob, and says so; its pixels are the
/// same bytes written for Windows.
#[test]
fn switch_one_gob_blob_over_linear_data_is_read_linear() {
    for (k, &(f, w, h, lin, til)) in ONE_GOB_SIZES.iter().enumerate().step_by(2) {
        let s = single(f, w, h);
        let what = format!("{} linear under a block-height-1 blob", s.name());
        let mut linear = vec![0u8; lin];
        Rng(0x1_60D0 + k as u64).fill(&mut linear);
        let blob = switch_blob(1, lin as u32);
        let c = open("switch.assets", s.file(&linear, SWITCH, &blob, None));
        let t = &c.textures[0];
        assert!(t.error.is_none(), "{what}: {:?}", t.error);
        assert_eq!(t.tiling, Tiling::Linear, "{what}");
        let note = format!("{lin} bytes are the linear size, not the {til} of the block-linear");
        assert!(says(t, &note), "{what}: {:?}", t.notes);
        assert!(!says(t, "no m_PlatformBlob"), "{what}: {:?}", t.notes);
        let pc = open("pc.assets", s.file(&linear, 5, &[], None));
        let ours = c.decode(0, 0, 0, DecodeOptions::default()).unwrap();
        let want = pc.decode(0, 0, 0, DecodeOptions::default()).unwrap();
        assert!(
            ours == want,
            "{what}: decodes differently from the linear file"
        );
    }
}

/// Data that fits neither layout under a blob of one GOB per block is an error naming the blob's
/// block height, the data's size and both layouts' sizes (hand-worked, [`ONE_GOB_SIZES`]), and
/// never says the blob is absent; the same tiled data with no blob at all says it has none.
#[test]
fn switch_one_gob_blob_that_fits_neither_names_both_sizes() {
    for &(f, w, h, lin, til) in ONE_GOB_SIZES.iter().step_by(2) {
        let s = single(f, w, h);
        let what = format!("{} under a block-height-1 blob", s.name());
        let data = vec![0x33u8; lin + 16];
        let c = open(
            "switch.assets",
            s.file(&data, SWITCH, &switch_blob(1, til as u32), None),
        );
        let t = &c.textures[0];
        let e = t
            .error
            .as_deref()
            .unwrap_or_else(|| panic!("{what}: no error"));
        assert!(e.contains("block height of 1"), "{what}: {e}");
        for n in [lin + 16, til, lin] {
            assert!(e.contains(&format!("{n} ")), "{what}: {n} not in {e}");
        }
        assert!(!says(t, "no m_PlatformBlob"), "{what}: {e}");
        assert!(
            c.decode(0, 0, 0, DecodeOptions::default()).is_err(),
            "{what}: decoded"
        );
        // Without a blob, the tiled bytes (the driver's default block height for 8 rows of
        // blocks is 1, tegra_swizzle's block_height_mip0) ask for the platform, naming the
        // absent blob.
        let bare = open("switch.assets", s.file(&vec![0u8; til], SWITCH, &[], None));
        let e = bare.textures[0].error.as_deref().unwrap_or("");
        assert!(
            e.contains("no m_PlatformBlob"),
            "{what} without a blob: {e}"
        );
    }
}
