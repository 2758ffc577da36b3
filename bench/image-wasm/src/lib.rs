//! Exports for bench/image-wasm/run.mjs: the page writes one file into `input(len)`, then times
//! `ours(kind)` (image-rs) and `theirs(kind)` (zune) (kind 0 PNG, 1 JPEG), each returning the decoded byte count
//! (0 on an error), as examples/bench_image_files.rs decodes them natively.

use std::cell::RefCell;

thread_local! {
    static INPUT: RefCell<Vec<u8>> = const { RefCell::new(Vec::new()) };
}

/// A buffer of `len` bytes for the next file; its address, for the page to fill.
#[no_mangle]
pub extern "C" fn input(len: usize) -> *mut u8 {
    INPUT.with(|i| {
        let mut i = i.borrow_mut();
        *i = vec![0; len];
        i.as_mut_ptr()
    })
}

fn with_input<R>(f: impl FnOnce(&[u8]) -> R) -> R {
    INPUT.with(|i| f(&i.borrow()))
}

/// image-rs's decoders: png (EXPAND, as codec::image_file) or jpeg-decoder.
#[no_mangle]
pub extern "C" fn ours(kind: u32) -> usize {
    with_input(|b| {
        if kind == 0 {
            let mut d = png::Decoder::new(std::io::Cursor::new(b));
            d.set_transformations(png::Transformations::EXPAND);
            let Ok(mut r) = d.read_info() else { return 0 };
            let mut out = vec![0; r.output_buffer_size().unwrap_or(0)];
            r.next_frame(&mut out).map(|f| f.buffer_size()).unwrap_or(0)
        } else {
            jpeg_decoder::Decoder::new(b).decode().map(|p| p.len()).unwrap_or(0)
        }
    })
}

/// zune's: zune-png (CRCs checked) or zune-jpeg.
#[no_mangle]
pub extern "C" fn theirs(kind: u32) -> usize {
    with_input(|b| {
        let cur = zune_core::bytestream::ZCursor::new(b);
        if kind == 0 {
            let o = zune_core::options::DecoderOptions::default().png_set_confirm_crc(true);
            zune_png::PngDecoder::new_with_options(cur, o)
                .decode_raw()
                .map(|p| p.len())
                .unwrap_or(0)
        } else {
            zune_jpeg::JpegDecoder::new(cur).decode().map(|p| p.len()).unwrap_or(0)
        }
    })
}
