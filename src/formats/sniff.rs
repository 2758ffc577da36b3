//! Says what an unrecognised file looks like, so the user knows what to do with it.

/// A sentence for a file no engine took.
pub fn describe(name: &str, head: &[u8]) -> String {
    let lower = name.to_ascii_lowercase();
    let what = if head.starts_with(b"\x89PNG") {
        "a PNG image, not a game texture container"
    } else if head.starts_with(&[0xff, 0xd8, 0xff]) {
        "a JPEG image, not a game texture container"
    } else if head.starts_with(b"PK\x03\x04") {
        "a ZIP archive: Texscope reads the game files inside it, not the archive; drop those files"
    } else if lower.ends_with(".pak") {
        "a .pak file without an Unreal pak footer (magic 0x5A6F12E1 in its last bytes): a truncated or damaged pak, or another engine's archive"
    } else if lower.ends_with(".utoc") || lower.ends_with(".ucas") {
        "part of an Unreal IoStore container: drop the .utoc together with its .ucas files"
    } else if is_unity_name(&lower) && looks_random(head) {
        "by the look of it an encrypted Unity bundle (no UnityFS/UnityWeb/UnityRaw signature, only \
         noise-like bytes): some games encrypt their bundles; decrypt them first with a tool made for that game"
    } else if lower.ends_with(".gnf") {
        "named .gnf but without the 'GNF ' signature PS4 and PS5 textures start with"
    } else if head.is_empty() {
        "an empty file"
    } else {
        "of no kind Texscope reads"
    };
    format!("{} is {what}", crate::base_name(name))
}

/// Extensions Unity bundles and serialized files are shipped under.
fn is_unity_name(lower: &str) -> bool {
    [".bundle", ".unity3d", ".ab", ".assets", ".assetbundle"]
        .iter()
        .any(|e| lower.ends_with(e))
}

/// Whether the head looks like ciphertext: at least 64 bytes with at least 48 distinct values.
/// 64 uniformly random bytes hold ~56.9 distinct values on average (256 * (1 - (255/256)^64));
/// Unity headers (signature, zero padding, big-endian sizes) and text hold far fewer.
fn looks_random(head: &[u8]) -> bool {
    let head = &head[..head.len().min(64)];
    if head.len() < 64 {
        return false;
    }
    let mut seen = [false; 256];
    head.iter().for_each(|&b| seen[b as usize] = true);
    seen.iter().filter(|&&s| s).count() >= 48
}

#[cfg(test)]
mod tests {
    #[test]
    fn names_common_kinds() {
        assert!(super::describe("a/b.png", b"\x89PNG\r\n").contains("PNG image"));
        assert!(super::describe("pakchunk0.pak", b"xx").contains("without an Unreal pak footer"));
        assert!(super::describe("x.bin", b"").contains("empty"));
        // Bytes from a xorshift generator stand in for ciphertext.
        let mut x = 0x2545_f491_4f6c_dd1du64;
        let noise: Vec<u8> = (0..64)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                x as u8
            })
            .collect();
        assert!(super::describe("data.bundle", &noise).contains("encrypted"));
        assert!(!super::describe("data.bin", &noise).contains("encrypted"));
        let text = b"UnityFS\0\0\0\0\x075.x.x\x002019.4.1f1\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0";
        assert!(!super::describe("data.bundle", text).contains("encrypted"));
    }
}
