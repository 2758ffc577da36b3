//! Unreal editor (uncooked) packages, one .uasset: the summary of every LegacyFileVersion from -2
//! on, version-aware tables and property tags, FTextureSource, its bulk data (UE4 inline / end of
//! file / zlib archive, UE5 FEditorBulkData) and the thumbnail table. Seeds (examples/fuzz_seeds.rs):
//! a 2-block, 2-layer package of the crate's own writer, and the smallest texture package of each
//! engine version in the shared editor samples when they are beside the checkout (read in place,
//! written only into the untracked corpus).
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    texscope_fuzz::run(&["T_Editor.uasset"], data);
});
