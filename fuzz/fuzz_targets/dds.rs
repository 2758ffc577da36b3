//! Loose .dds files (legacy and DX10 headers, arrays, cubes, volumes).
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    texscope_fuzz::run(&["fuzz.dds"], data);
});
