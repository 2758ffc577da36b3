//! Unreal .pak files, versions 3 to 15 (footer, legacy and path-hash indexes, full directory and
//! UE 6.0's QDFP one, entries stored or zlib in blocks, encrypted with the seeds' key in ECB or
//! AES-CTR) through `texscope::open`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    texscope_fuzz::run_keyed(&["fuzz.pak"], data);
});
