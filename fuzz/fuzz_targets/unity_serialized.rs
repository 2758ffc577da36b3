//! Unity serialized files (with and without type trees) and their .resS streams.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    texscope_fuzz::run(&["sharedassets0.assets", "sharedassets0.assets.resS"], data);
});
