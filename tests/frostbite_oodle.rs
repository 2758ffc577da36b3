//! Oodle CAS blocks (feature `oodle`, part of `full` and the default build; see Cargo.toml).
//! The streams are ooz's test files in shared/samples/frostbite/oodle-testdata: a little-endian
//! size (4 bytes; 8 for leviathan), then one raw Oodle stream decoding to 5,345,280 bytes (notes).
#![cfg(feature = "oodle")]

mod common;
use common::samples;
use texscope::frostbite::cas::{
    write_header, CasSource, BLOCK_OODLE_KRAKEN, BLOCK_OODLE_LEVIATHAN, BLOCK_OODLE_SELKIE,
};
use texscope::io::{read_range, BytesSource};
use texscope::{Limits, Source};

#[test]
fn oodle_streams_decode_as_cas_blocks_and_agree() {
    let dir = samples().join("frostbite/oodle-testdata");
    let mut outputs = Vec::new();
    for (file, kind, skip) in [
        ("xml.kraken", BLOCK_OODLE_KRAKEN, 4usize),
        ("xml.selkie", BLOCK_OODLE_SELKIE, 4),
        ("xml.leviathan", BLOCK_OODLE_LEVIATHAN, 8),
    ] {
        let raw = std::fs::read(dir.join(file)).unwrap();
        let size = u32::from_le_bytes(raw[..4].try_into().unwrap());
        // Notes: each decodes to 5,345,280 bytes.
        assert_eq!(size, 5_345_280, "{file}");
        let payload = &raw[skip..];
        // One CAS block holds it: the size fits the 24-bit field, the payload the 20-bit one.
        let mut stream = write_header(size, kind, payload.len() as u32).to_vec();
        stream.extend(payload);
        let cas = CasSource::new(BytesSource::shared(file, stream), &Limits::default()).unwrap();
        assert_eq!(cas.len(), 5_345_280);
        let out = read_range(&cas, 0, cas.len(), &Limits::default()).unwrap();
        outputs.push(out);
    }
    // Three independent encodings of one file must decode to the same bytes.
    assert!(outputs.windows(2).all(|w| w[0] == w[1]));
    // The file is a tar archive (Silesia's xml): its first header has the ustar magic at 257 and
    // the mode field at 100, so the decode is aligned from byte 0.
    assert_eq!(&outputs[0][257..262], b"ustar");
    assert_eq!(&outputs[0][100..106], b"100775");
}
