//! Every codec family through `decode_surface`: byte 0 picks the format from every
//! `PixelFormat` (`ALL_FIXED` and each ASTC footprint, so formats added there join without an
//! edit here), bytes 1-2 the size (1-64 texels a side), the rest is the surface. One value of byte
//! 0 past the formats is the BasisLZ (ETC1S) decoder, which no surface reaches: bytes 3-6 the
//! endpoint and selector counts, 7-9 the lengths of the endpoint and selector codebooks (the rest
//! split as: endpoints, selectors, slice tables and slice data halves), then one slice of the size
//! decoded.
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
    let (w, h) = (1 + (data[1] % 64) as u32, 1 + (data[2] % 64) as u32);
    let pick = data[0] as usize % (formats.len() + 1);
    if pick == formats.len() {
        basislz(w as usize, h as usize, &data[3..]);
        return;
    }
    let _ = texscope::decode_surface(formats[pick], w, h, &data[3..], &texscope_fuzz::limits());
});

fn basislz(bw: usize, bh: usize, d: &[u8]) {
    if d.len() < 7 {
        return;
    }
    let endpoints = u16::from_le_bytes([d[0], d[1]]) as u32;
    let selectors = u16::from_le_bytes([d[2], d[3]]) as u32;
    let rest = &d[7..];
    let e = (d[4] as usize * 4).min(rest.len());
    let s = (d[5] as usize * 4).min(rest.len() - e);
    let (ep, rest) = rest.split_at(e);
    let (sel, rest) = rest.split_at(s);
    let (tables, slice) = rest.split_at((d[6] as usize * 4).min(rest.len()));
    if let Ok(books) =
        texscope::codec::basislz::Codebooks::new(endpoints, selectors, ep, sel, tables)
    {
        let mut out = vec![0u8; bw * bh * 16];
        let _ = books.decode_slice(slice, bw, bh, &mut out, 16, 8, None, false);
        let mut video = Vec::new();
        let _ = books.decode_slice(slice, bw, bh, &mut out, 16, 0, Some(&mut video), false);
        let _ = books.decode_slice(slice, bw, bh, &mut out, 16, 0, Some(&mut video), true);
    }
}
