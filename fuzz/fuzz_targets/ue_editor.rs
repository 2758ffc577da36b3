//! Unreal editor (uncooked) packages, one .uasset: the summary of every LegacyFileVersion from -2
//! on, version-aware tables and property tags, FTextureSource, its bulk data (UE4 inline / end of
//! file / zlib archive, UE5 FEditorBulkData) and the thumbnail table. Seeds: the shared editor
//! samples (`cargo fuzz run ue_editor ../../shared/samples/unreal-editor`; never copied here).
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    texscope_fuzz::run(&["T_Editor.uasset"], data);
});
