//! Every codec family through `decode_surface`: byte 0 picks the format from every
//! `PixelFormat` (`ALL_FIXED` and each ASTC footprint, so formats added there join without an
//! edit here), bytes 1-2 the size (1-64 texels a side), the rest is the surface.
#![no_main]

use texscope::codec::{ALL_FIXED, ASTC_FOOTPRINTS};
use texscope::PixelFormat;

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    if data.len() < 3 {
        return;
    }
    let mut formats: Vec<PixelFormat> = ALL_FIXED.to_vec();
    for (w, h) in ASTC_FOOTPRINTS {
        for hdr in [false, true] {
            formats.push(PixelFormat::ASTC { w, h, hdr });
        }
    }
    let format = formats[data[0] as usize % formats.len()];
    let (w, h) = (1 + (data[1] % 64) as u32, 1 + (data[2] % 64) as u32);
    let _ = texscope::decode_surface(format, w, h, &data[3..], &texscope_fuzz::limits());
});
