//! Loose PS4 and PS5 .gnf files (GCN and RDNA tiled surfaces).
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    texscope_fuzz::run(&["fuzz.gnf"], data);
});
