//! Unreal legacy packages (.uasset + .uexp + .ubulk): summary, name/import/export tables, cooked platform data, classic mip chains.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    texscope_fuzz::run(&["T_Fuzz.uasset", "T_Fuzz.uexp", "T_Fuzz.ubulk"], data);
});
