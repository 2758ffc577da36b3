//! UE5 editor payloads: the package trailer (src/unreal/trailer.rs) found from the footer of the
//! input, each local payload's FCompressedBuffer (src/unreal/cbuf.rs) decoded, and the input's
//! first bytes read as a compressed buffer of its own (and a range of it, which must equal those
//! bytes of the whole); a decoded payload is then undone as UEDELTA (src/unreal/uedelta.rs) over
//! a size taken from the input. Oodle blocks are left out of fuzz builds (src/io/compress.rs),
//! LZ4 and stored ones are decoded.
#![no_main]

use texscope::io::BytesSource;
use texscope::unreal::{cbuf, trailer, uedelta};

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let limits = texscope_fuzz::limits();
    let src = BytesSource::new("fuzz.uasset", data.to_vec());
    let mut payloads = Vec::new();
    if let Ok(Some(t)) = trailer::read_trailer(&src, None, &limits) {
        for e in t.entries() {
            if let (Some(at), Some(len)) = (e.offset, e.compressed_size) {
                if let Ok(raw) = cbuf::decode(&src, at, len, &limits) {
                    payloads.push(raw);
                }
            }
        }
    }
    if let Ok(h) = cbuf::header(&src, 0, data.len() as u64, &limits) {
        // A range of the raw bytes, decoded from its own blocks, is those bytes of the whole.
        let n = h.raw_size;
        let from = (data.len() as u64).wrapping_mul(7919) % n.saturating_add(1);
        let to = from + (data.len() as u64).wrapping_mul(31) % (n - from).saturating_add(1);
        let part = cbuf::decode_range(&src, 0, &h, from..to, &limits);
        if let Ok(raw) = cbuf::decode_with(&src, 0, &h, &limits) {
            if let Ok(part) = part {
                assert!(part == raw[from as usize..to as usize]);
            }
            payloads.push(raw);
        }
    }
    for mut raw in payloads {
        let w = data.first().copied().unwrap_or(1).max(1) as u32;
        let bpp = [1u32, 2, 4, 8, 16][data.len() % 5];
        let h = (raw.len() as u32 / (w * bpp)).max(1);
        let fmt = [
            "TSF_G8",
            "TSF_G16",
            "TSF_BGRA8",
            "TSF_RGBA16",
            "TSF_RGBA32F",
        ][data.len() % 5];
        if let Some(p) = uedelta::Plane::for_format(fmt, w, h, 1) {
            let _ = uedelta::undelta(&mut raw, &[p]);
        }
    }
});
