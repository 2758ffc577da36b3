//! Unity bundles (UnityFS with none/LZ4/LZMA blocks, UnityWeb, UnityRaw, UnityWebData) and the serialized files inside.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    texscope_fuzz::run(&["data.unity3d"], data);
});
