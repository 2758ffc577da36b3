//! Says what an unrecognised file looks like, so the user knows what to do with it.

/// A sentence for a file no engine took.
pub fn describe(name: &str, head: &[u8]) -> String {
    let lower = name.to_ascii_lowercase();
    let what = if head.starts_with(b"\x89PNG") {
        "a PNG image, not a game texture container"
    } else if head.starts_with(&[0xff, 0xd8, 0xff]) {
        "a JPEG image, not a game texture container"
    } else if head.starts_with(b"PK\x03\x04") {
        "a ZIP archive: extract it and drop the files inside"
    } else if lower.ends_with(".pak") {
        "a .pak archive: extract it first (e.g. with FModel or retoc), then drop the .uasset/.uexp/.ubulk files"
    } else if lower.ends_with(".utoc") || lower.ends_with(".ucas") {
        "an IoStore container: extract it first, then drop the packages"
    } else if head.is_empty() {
        "an empty file"
    } else {
        "of no kind Texscope reads"
    };
    format!("{} is {what}", crate::base_name(name))
}

#[cfg(test)]
mod tests {
    #[test]
    fn names_common_kinds() {
        assert!(super::describe("a/b.png", b"\x89PNG\r\n").contains("PNG image"));
        assert!(super::describe("pakchunk0.pak", b"xx").contains("extract it first"));
        assert!(super::describe("x.bin", b"").contains("empty"));
    }
}
