//! IoStore containers, TOC versions 1 to 10: a .utoc (header, chunk tables, block table, AES-CTR
//! nonces, directory index, encrypted with the seeds' key in ECB or CTR) and its .ucas partitions
//! through `texscope::open`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    texscope_fuzz::run_keyed(&["fuzz.utoc", "fuzz.ucas", "fuzz_s1.ucas"], data);
});
