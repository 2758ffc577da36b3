//! The shared Unreal editor samples (`unreal-editor/MANIFEST.tsv`), read in place for the unit
//! tests of the editor payload readers. A missing sample folder fails the test that needs it.

#[path = "editor_manifest.rs"]
mod manifest;
pub use manifest::{root, rows, ue5_rows};

/// Image files stored in a package with their length before them (an editor thumbnail is `i32`
/// width, `i32` height, then its bytes as a `TArray<uint8>`: `i32` count and bytes), found by their
/// PNG or JPEG signature.
pub fn prefixed_image_files(b: &[u8]) -> Vec<&[u8]> {
    use crate::codec::image_file::FileKind;
    let mut out = Vec::new();
    for p in 4..b.len().saturating_sub(8) {
        if FileKind::sniff(&b[p..p + 8]).is_some() {
            let n = i32::from_le_bytes(b[p - 4..p].try_into().unwrap());
            if n > 0 && p + n as usize <= b.len() {
                out.push(&b[p..p + n as usize]);
            }
        }
    }
    out
}
