//! Unreal zen packages (.uzenasset + .ubulk): zen summary, name map, export map, the texture parse.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    texscope_fuzz::run(&["T_Fuzz.uzenasset", "T_Fuzz.ubulk"], data);
});
