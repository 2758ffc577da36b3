//! Writes the generated Unreal packages tests/browser/unreal.test.mjs drops into the page (issue
//! 18): `cargo run --example unreal_page_fixtures -- DIR [NORMAL_PNG]` makes in DIR
//! - `T_Udim_Gap.uasset/.uexp/.ubulk`: a UDIM virtual texture of 2x2 blocks, each 2x2 tiles of
//!   64 px (256² in all, border 4, 3 mips), whose UV tile 1012 was left out (no tiles at mips 0
//!   and 1; src/fixtures/unreal.rs `udim_virtual_texture`). Each block is one flat BC1 colour,
//!   [`BLOCK_COLOURS`], so a test knows every texel (BC1 specification: equal endpoints and index
//!   0 decode to the endpoint's RGB565 expansion) and a screenshot shows which block is where;
//! - with NORMAL_PNG (the UE 5.8 set's SourceTextures/normal.png, read in place):
//!   `T_ASTC_Normal.uasset/.uexp`, that image as UE cooks an ASTC normal map (x in red, green and
//!   blue, y in alpha: measured on the set's Android T_ASTC_Normal, docs/unreal.md), one 4x4
//!   void-extent block per 4x4 texels holding the block's top-left texel, in a versioned UE 5.6
//!   package with CompressionSettings = TC_Normalmap.
//!
//! Prints one JSON line: `{"udim_colours": [[r, g, b], ...]}` in UV-tile order 1001, 1002, 1011.

use std::path::Path;

use texscope::fixtures::demo::bc1_flat;
use texscope::fixtures::unreal::{self as ue, PackageFiles, Prop, VtSpec};
use texscope::PixelFormat;

const TILE: u32 = 64;
const BORDER: u32 = 4;
/// The colours of blocks 1001, 1002 and 1011 (multiples of 8 and 4, exact in RGB565).
const BLOCK_COLOURS: [[u8; 3]; 3] = [[200, 64, 40], [48, 160, 72], [40, 88, 200]];

fn write(dir: &Path, name: &str, f: &PackageFiles) {
    std::fs::write(dir.join(format!("{name}.uasset")), &f.uasset).unwrap();
    std::fs::write(dir.join(format!("{name}.uexp")), &f.uexp).unwrap();
    if !f.ubulk.is_empty() {
        std::fs::write(dir.join(format!("{name}.ubulk")), &f.ubulk).unwrap();
    }
}

fn udim(dir: &Path) {
    let spec = VtSpec {
        layers: vec![PixelFormat::BC1],
        fallback: vec![[1.0, 0.0, 1.0, 1.0]],
        tile_size: TILE,
        border: BORDER,
        width_tiles: 4,
        height_tiles: 4,
        mips: 3,
        chunk_of_mip: vec![0, 0, 0],
        // Block (1, 1) = UV tile 1012: its four mip-0 tiles and its one mip-1 tile.
        holes: vec![(0, 2, 2), (0, 3, 2), (0, 2, 3), (0, 3, 3), (1, 1, 1)],
    };
    let fx = ue::udim_virtual_texture("T_Udim_Gap", &spec, (2, 2), |_, mip, w, h| {
        // The block image of mip `mip` has the border around it: texel (x, y) of it is texture
        // texel (x - 4, y - 4); each UDIM block is half the texture across and down.
        let half = (2 * TILE) >> mip;
        bc1_flat(w, h, |bx, by| {
            let x = (bx * 4).saturating_sub(BORDER).min(2 * half - 1) / half;
            let y = (by * 4).saturating_sub(BORDER).min(2 * half - 1) / half;
            match (x, y) {
                (0, 0) => BLOCK_COLOURS[0],
                (1, 0) => BLOCK_COLOURS[1],
                (0, 1) => BLOCK_COLOURS[2],
                _ => [0, 0, 0],
            }
        })
    });
    write(dir, "T_Udim_Gap", &fx.files);
}

fn astc_normal(dir: &Path, png_path: &Path) {
    let file = std::fs::File::open(png_path).unwrap();
    let mut reader = png::Decoder::new(std::io::BufReader::new(file))
        .read_info()
        .unwrap();
    let mut src = vec![0; reader.output_buffer_size().unwrap()];
    let info = reader.next_frame(&mut src).unwrap();
    assert_eq!(info.color_type, png::ColorType::Rgb, "normal.png is RGB");
    let (w, h) = (info.width, info.height);
    let mut blocks = Vec::new();
    for by in 0..h / 4 {
        for bx in 0..w / 4 {
            let i = ((by * 4 * w + bx * 4) * 3) as usize;
            let (x, y) = (src[i], src[i + 1]);
            blocks.extend_from_slice(&ue::astc_void_extent([x, x, x, y]));
        }
    }
    let props = [
        Prop::Enum {
            name: "CompressionSettings".into(),
            enum_name: "TextureCompressionSettings".into(),
            value: "TC_Normalmap".into(),
        },
        Prop::Bool("SRGB".into(), false),
    ];
    let astc = PixelFormat::ASTC {
        w: 4,
        h: 4,
        hdr: false,
    };
    let (files, _) = ue::versioned_texture(
        ue::RELEASES[16],
        false,
        "T_ASTC_Normal",
        astc,
        (w, h),
        (1, 0),
        &props,
        |_, _, _| blocks.clone(),
    );
    write(dir, "T_ASTC_Normal", &files);
}

fn main() {
    let mut args = std::env::args().skip(1);
    let dir = args
        .next()
        .expect("usage: unreal_page_fixtures DIR [NORMAL_PNG]");
    let dir = Path::new(&dir);
    std::fs::create_dir_all(dir).unwrap();
    udim(dir);
    if let Some(png_path) = args.next() {
        astc_normal(dir, Path::new(&png_path));
    }
    let colours: Vec<String> = BLOCK_COLOURS
        .iter()
        .map(|[r, g, b]| format!("[{r},{g},{b}]"))
        .collect();
    println!("{{\"udim_colours\": [{}]}}", colours.join(","));
}
