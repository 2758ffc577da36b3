//! Unreal cooks for consoles: the platform comes from the files (the cook folder
//! `Saved/Cooked/<Platform>/`, a container named `-Switch.pak`) or the user's choice
//! (`OpenOptions::platform`), and Switch surfaces are untiled on read. No real UE console cook is
//! public, so the packages are generated (src/fixtures/unreal.rs) with every mip tiled by an
//! independent implementation, the `tegra_swizzle` crate (its own block-height rules for mip 0 and
//! each mip); the expected pixels are the decode of the linear blocks before tiling.

use texscope::codec::tiling::Tiling;
use texscope::fixtures::unreal::{self as fixture, random_surface, Rng};
use texscope::io::BytesSource;
use texscope::{
    decode_surface, Catalog, DecodeOptions, Limits, OpenOptions, PixelFormat, Platform,
};

use tegra_swizzle::{block_height_mip0, mip_block_height, swizzle::swizzle_block_linear};

/// Tiles one mip's linear blocks as the Switch stores them, by the crate alone: mip 0's block
/// height by `block_height_mip0` (the driver's rule), a smaller mip's by `mip_block_height`.
fn tegra_tile(format: PixelFormat, h0: u32, w: u32, h: u32, linear: &[u8]) -> Vec<u8> {
    let b = format.block();
    let rows0 = h0.div_ceil(b.height);
    let (bx, by) = (w.div_ceil(b.width), h.div_ceil(b.height));
    let bh = mip_block_height(by, block_height_mip0(rows0));
    swizzle_block_linear(bx, by, 1, linear, bh, b.bytes).unwrap()
}

struct Case {
    catalog: Catalog,
    /// Each mip's linear blocks (what the tiled bytes hold).
    linear: Vec<Vec<u8>>,
}

/// A package `name` of `format`, `w` x `h` with a full mip chain (mips 0-1 in the .ubulk), each
/// mip tiled by `tegra_swizzle`, opened under the file names `dir/name.*` with `options`.
fn tiled_package(format: PixelFormat, w: u32, h: u32, dir: &str, options: &OpenOptions) -> Case {
    let mips = 32 - w.max(h).leading_zeros();
    let mut rng = Rng(u64::from(w) * 31 + u64::from(h));
    let mut linear = Vec::new();
    let (files, _) =
        fixture::classic_texture_with("T_Tiled", format, w, h, mips, 2, |_, mw, mh| {
            let blocks = random_surface(format, mw, mh, &mut rng);
            let tiled = tegra_tile(format, h, mw, mh, &blocks);
            linear.push(blocks);
            tiled
        });
    let catalog = texscope::open(
        vec![
            BytesSource::shared(format!("{dir}/T_Tiled.uasset"), files.uasset.clone()),
            BytesSource::shared(format!("{dir}/T_Tiled.uexp"), files.uexp.clone()),
            BytesSource::shared(format!("{dir}/T_Tiled.ubulk"), files.ubulk.clone()),
        ],
        options,
    );
    Case { catalog, linear }
}

/// Every mip decodes to what its linear blocks decode to.
fn assert_untiled(case: &Case, what: &str) {
    let t = &case.catalog.textures[0];
    assert!(t.error.is_none(), "{what}: {:?}", t.error);
    for (m, blocks) in case.linear.iter().enumerate() {
        let (bytes, w, h) = case.catalog.read_surface(0, m, 0).unwrap();
        assert_eq!(&bytes, blocks, "{what}: mip {m} ({w}x{h}) stored blocks");
        let want = decode_surface(t.format, w, h, blocks, &Limits::default()).unwrap();
        let got = case
            .catalog
            .decode(0, m, 0, DecodeOptions::default())
            .unwrap();
        assert_eq!(got.to_rgba8(), want.to_rgba8(), "{what}: mip {m} pixels");
    }
}

/// The cook folder says Switch: BC1, BC7, RGBA8 and ASTC 4x4 at sizes that fill whole GOBs and
/// blocks (256x256) and that do not (300x84: padding on both axes; 1000x8: one GOB row), every mip
/// untiled.
#[test]
fn switch_cook_folder_untiles_every_mip() {
    let formats = [
        PixelFormat::BC1,
        PixelFormat::BC7,
        PixelFormat::RGBA8,
        PixelFormat::ASTC {
            w: 4,
            h: 4,
            hdr: false,
        },
    ];
    for format in formats {
        for (w, h) in [(256, 256), (300, 84), (1000, 8)] {
            let what = format!("{} {w}x{h}", format.name());
            let case = tiled_package(
                format,
                w,
                h,
                "MyGame/Saved/Cooked/Switch/MyGame/Content/Textures",
                &OpenOptions::default(),
            );
            let t = &case.catalog.textures[0];
            assert_eq!(t.platform, Some(Platform::Switch), "{what}");
            assert!(
                matches!(t.tiling, Tiling::BlockLinear { .. }),
                "{what}: {:?}",
                t.tiling
            );
            assert_eq!(t.census()["tiling"], "block_linear");
            assert_eq!(t.census()["platform"], "switch");
            assert_untiled(&case, &what);
        }
    }
}

/// Loose files that say nothing are linear unless the user chooses Switch; then they untile.
#[test]
fn chosen_platform_untiles_loose_files() {
    let (w, h) = (512, 128);
    let plain = tiled_package(PixelFormat::BC3, w, h, "Textures", &OpenOptions::default());
    assert_eq!(plain.catalog.textures[0].tiling, Tiling::Linear);
    assert_eq!(plain.catalog.textures[0].platform, None);
    let chosen = OpenOptions {
        platform: Some(Platform::Switch),
        ..Default::default()
    };
    let case = tiled_package(PixelFormat::BC3, w, h, "Textures", &chosen);
    let t = &case.catalog.textures[0];
    assert_eq!(t.tiling, Tiling::BlockLinear { block_height: 4 });
    let layout = t.metadata.iter().find(|(k, _)| k == "layout").unwrap();
    assert_eq!(layout.1, "Switch block-linear, block height 4");
    assert_untiled(&case, "BC3 512x128, chosen");
    // A PC cook folder wins over the choice: the files say they are linear.
    let pc = tiled_package(
        PixelFormat::BC3,
        w,
        h,
        "G/Saved/Cooked/Windows/G/Content",
        &chosen,
    );
    assert_eq!(pc.catalog.textures[0].tiling, Tiling::Linear);
}

/// A DDS export of a tiled texture holds the linear blocks (it reads through read_surface): the
/// exported file, opened again, gives each mip's linear blocks back.
#[test]
fn dds_export_of_a_switch_texture_is_linear() {
    let case = tiled_package(
        PixelFormat::BC1,
        200,
        100,
        "Saved/Cooked/Switch/G/Content",
        &OpenOptions::default(),
    );
    let dds = texscope::formats::dds::export(&case.catalog, 0).unwrap();
    let back = texscope::open(
        vec![BytesSource::shared("T_Tiled.dds", dds)],
        &OpenOptions::default(),
    );
    assert_eq!(back.textures[0].tiling, Tiling::Linear);
    for (m, blocks) in case.linear.iter().enumerate() {
        assert_eq!(&back.read_surface(0, m, 0).unwrap().0, blocks, "mip {m}");
    }
}

/// Platform words of cook folders and container names (UE's `Saved/Cooked/<Platform>/` and
/// `pakchunk<N>-<Platform>.pak` / `_P` patch naming).
#[test]
fn platform_from_cook_paths_and_container_names() {
    use texscope::unreal::platform_from_path as p;
    assert_eq!(
        p("D:\\Game\\Saved\\Cooked\\Switch\\Game\\Content\\T.uasset"),
        Some(Platform::Switch)
    );
    assert_eq!(p("x/Saved/Cooked/PS5/x/T.uasset"), Some(Platform::Ps5));
    assert_eq!(
        p("x/Saved/Cooked/WindowsNoEditor/x/T.uasset"),
        Some(Platform::Pc)
    );
    assert_eq!(p("Paks/pakchunk0-Switch.pak"), Some(Platform::Switch));
    assert_eq!(p("pakchunk1-PS4_P.utoc"), Some(Platform::Ps4));
    assert_eq!(p("pakchunk0-Windows.pak"), None);
    assert_eq!(p("Content/T_Switch.uasset"), None);
}
