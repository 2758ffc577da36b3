//! Loose KTX 1 and KTX 2 files (KTX 2 with Zstandard supercompression).
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    texscope_fuzz::run(&["fuzz.ktx2"], data);
});
