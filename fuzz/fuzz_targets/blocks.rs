//! The shared block reader (src/io/blocks.rs, compress.rs): input = method byte, declared size
//! (u24 LE), then the block's bytes; decoded alone, then as the two halves of a BlockSource read
//! across their boundary. Every method, Oodle included.
#![no_main]

use std::sync::Arc;
use texscope::io::blocks::{Block, BlockSource, BlockStore};
use texscope::io::compress::{decompress, Method};
use texscope::io::{read_range, BytesSource};

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    if data.len() < 4 {
        return;
    }
    let methods = [
        Method::Stored,
        Method::Zlib,
        Method::Gzip,
        Method::Lz4,
        Method::Oodle,
        Method::Zstd,
        Method::Lzma,
    ];
    let method = methods[data[0] as usize % methods.len()];
    let size = u32::from_le_bytes([data[1], data[2], data[3], 0]) as u64;
    let payload = &data[4..];
    let limits = texscope_fuzz::limits();
    let _ = decompress(method, payload, size, &limits);
    // The same payload as both blocks of an entry, read across the boundary.
    let src = BytesSource::shared("fuzz.pak", payload.to_vec());
    let store = Arc::new(BlockStore::single("fuzz.pak", src, &limits).with_capacity(1));
    let b = Block {
        part: data[1] as u32 % 2,
        offset: 0,
        stored: payload.len() as u64,
        payload: payload.len() as u64,
        size,
        method,
        encrypted: false,
        ctr: None,
    };
    let half = size / 2;
    if let Ok(s) = BlockSource::new("fuzz.pak/e", store, vec![b, b], half, size) {
        let _ = read_range(&s, 0, size.min(1 << 20), &limits);
    }
});
