//! IoStore containers: a .utoc (header, chunk tables, block table, directory index, encrypted
//! with the seeds' key) and its .ucas partitions through `texscope::open`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    texscope_fuzz::run_keyed(&["fuzz.utoc", "fuzz.ucas", "fuzz_s1.ucas"], data);
});
