//! Unreal .pak files (footer, legacy and path-hash indexes, full directory, entries stored or
//! zlib in blocks, encrypted with the seeds' key) through `texscope::open`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    texscope_fuzz::run_keyed(&["fuzz.pak"], data);
});
