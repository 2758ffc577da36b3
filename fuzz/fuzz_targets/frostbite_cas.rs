//! Frostbite CAS chunk streams (none, zlib, LZ4, ZStd blocks) behind a Texture header.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    texscope_fuzz::run(
        &["fuzz.res", "00000000000000000000000000000000.chunk"],
        data,
    );
});
