//! Frostbite Texture resource headers (every known layout and format profile) with a raw chunk.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    texscope_fuzz::run(
        &["fuzz.res", "00000000000000000000000000000000.chunk"],
        data,
    );
});
