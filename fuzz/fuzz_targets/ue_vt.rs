//! Unreal UE5 virtual textures (platform data with bIsVirtual, tile tables, chunk headers), decoded whole.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    texscope_fuzz::run(&["T_Fuzz.uasset", "T_Fuzz.uexp", "T_Fuzz.ubulk"], data);
});
