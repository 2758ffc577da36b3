//! Exports for scripts/bench-untile-wasm.mjs: `setup` prepares one 2048² tiled surface (seeded
//! bytes), checks that both untilers give the same linear bytes, and keeps it; `ours` and
//! `theirs` untile it once each (Texscope's `codec::tiling::untile`, which the page calls, and
//! `tegra_swizzle::swizzle::deswizzle_block_linear` with the same geometry). Plain C ABI
//! exports, no bindings: the script instantiates the module itself.

use std::cell::RefCell;
use texscope::codec::tiling::{self, block_linear, Tiling};
use texscope::codec::PixelFormat;
use texscope::io::Limits;

struct Case {
    format: PixelFormat,
    side: u32,
    block_height: u32,
    tiled: Vec<u8>,
}

thread_local! {
    static CASE: RefCell<Option<Case>> = const { RefCell::new(None) };
}

fn format(id: u32) -> PixelFormat {
    match id {
        0 => PixelFormat::BC1,
        1 => PixelFormat::BC7,
        2 => PixelFormat::ASTC {
            w: 4,
            h: 4,
            hdr: false,
        },
        _ => PixelFormat::RGBA8,
    }
}

fn ours_of(c: &Case) -> Vec<u8> {
    let tiling = Tiling::BlockLinear {
        block_height: c.block_height,
    };
    tiling::untile(
        tiling,
        c.format,
        0,
        c.side,
        c.side,
        &c.tiled,
        &Limits::default(),
    )
    .unwrap()
}

fn theirs_of(c: &Case) -> Vec<u8> {
    let g = block_linear::geometry(c.format, 0, c.side, c.side, c.block_height).unwrap();
    tegra_swizzle::swizzle::deswizzle_block_linear(
        g.blocks_x as u32,
        g.blocks_y as u32,
        1,
        &c.tiled,
        tegra_swizzle::BlockHeight::new(g.block_height).unwrap(),
        g.bytes_per_block as u32,
    )
    .unwrap()
}

/// Format 0 BC1, 1 BC7, 2 ASTC 4x4, 3 RGBA8; the block height NVN picks (as the Unreal Switch
/// layout does). Returns 1 when both untilers agree.
#[no_mangle]
pub extern "C" fn setup(format_id: u32, side: u32) -> u32 {
    let f = format(format_id);
    let rows = side.div_ceil(f.block().height) as u64;
    let block_height = block_linear::default_block_height(rows);
    let stored = block_linear::geometry(f, 0, side, side, block_height)
        .unwrap()
        .stored;
    let c = Case {
        format: f,
        side,
        block_height,
        tiled: texscope::codec::sample::random_bytes(stored as usize, 1 + format_id as u64),
    };
    let same = ours_of(&c) == theirs_of(&c);
    CASE.with(|k| *k.borrow_mut() = Some(c));
    same as u32
}

#[no_mangle]
pub extern "C" fn ours() -> u32 {
    CASE.with(|k| std::hint::black_box(ours_of(k.borrow().as_ref().unwrap())).len() as u32)
}

#[no_mangle]
pub extern "C" fn theirs() -> u32 {
    CASE.with(|k| std::hint::black_box(theirs_of(k.borrow().as_ref().unwrap())).len() as u32)
}
