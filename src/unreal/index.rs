//! What the .pak and IoStore index readers share: compression method tables, index strings, mount
//! paths and the choice of an AES key (checked before anything is decoded). A file of its own so
//! that `pak.rs` and `iostore.rs` do not import `container.rs`, which imports them to open the
//! containers they read.

use crate::io::aes::{AesKey, Guid, Keys};
use crate::io::compress::Method;
use crate::io::{Error, Reader, Result};

/// A container's compression methods by index (0 = stored); `Err(name)` for a name Texscope
/// does not know (an entry using it fails when read, the rest stay readable).
pub type Methods = Vec<std::result::Result<Method, String>>;

/// Reads `count` fixed-width method names (NUL-padded ASCII) after the implicit stored method 0;
/// empty slots are skipped.
pub fn method_names(r: &mut Reader, count: usize, width: usize) -> Result<Methods> {
    if width == 0 || count > 255 {
        return Err(Error::malformed(format!(
            "{count} compression method names of {width} bytes"
        )));
    }
    let mut out = vec![Ok(Method::Stored)];
    for _ in 0..count {
        let raw = r.bytes(width)?;
        let end = raw.iter().position(|&b| b == 0).unwrap_or(raw.len());
        let name = String::from_utf8_lossy(&raw[..end]).into_owned();
        if !name.is_empty() {
            out.push(Method::from_unreal_name(&name).ok_or(name));
        }
    }
    Ok(out)
}

/// Method `i` of `table` (the container's `whose` table, for the message).
pub fn method_at(table: &Methods, i: u32, whose: &str) -> Result<Method> {
    match table.get(i as usize) {
        Some(Ok(m)) => Ok(*m),
        Some(Err(n)) => Err(Error::unsupported(format!(
            "compression method {n:?} is not one Texscope knows (zlib, gzip, LZ4, Oodle, Zstandard)"
        ))),
        None => Err(Error::malformed(format!(
            "compression method {i} is not in {whose} table of {}",
            table.len()
        ))),
    }
}

/// An FString inside a container index: i32 length including the NUL (negative = UTF-16 code
/// units). Bounded by the bytes left, so a hostile length cannot allocate.
pub fn fstring(r: &mut Reader) -> Result<String> {
    let at = r.abs_pos();
    let n = r.i32()?;
    if n == 0 {
        return Ok(String::new());
    }
    let wide = n < 0;
    let units = n.unsigned_abs() as u64;
    let bytes = if wide { units * 2 } else { units };
    if bytes > r.remaining() as u64 {
        return Err(Error::malformed(format!(
            "a string of {units} characters at offset {at} runs past the {} bytes left",
            r.remaining()
        )));
    }
    let b = r.bytes_u64(bytes)?;
    Ok(super::cursor::decode_fstring(b, wide))
}

/// A container path as the user knows it: the mount point (its leading `../../../` dropped, which
/// stands for the engine's root) joined with the path under it.
pub fn mount_path(mount: &str, rel: &str) -> String {
    let mut m = mount.replace('\\', "/");
    while let Some(rest) = m.strip_prefix("../") {
        m = rest.to_string();
    }
    let m = m.trim_start_matches('/');
    let rel = rel.trim_start_matches('/');
    if m.is_empty() {
        rel.to_string()
    } else if m.ends_with('/') {
        format!("{m}{rel}")
    } else {
        format!("{m}/{rel}")
    }
}

/// Tries the keys worth trying on a container (see [`Keys::candidates`]) with `check`, which must
/// tell a fitting key from a wrong one without decoding anything else (a hash, a parse). The
/// first key that passes is returned with what `check` made.
pub fn choose_key<T>(
    container: &str,
    guid: Guid,
    keys: &Keys,
    what: &str,
    mut check: impl FnMut(&AesKey) -> Result<T>,
) -> Result<(AesKey, T)> {
    let cands = keys.candidates(guid);
    if cands.is_empty() {
        let g = if guid.is_zero() {
            String::new()
        } else {
            format!(" (key GUID {guid})")
        };
        return Err(Error::needs_key(format!(
            "{what} is encrypted{g}: it needs an AES key (CLI --aes-key 0x…)"
        ))
        .in_file(container));
    }
    for k in &cands {
        if let Ok(v) = check(k) {
            return Ok(((*k).clone(), v));
        }
    }
    Err(Error::needs_key(format!(
        "the AES key{} given do{} not fit {container}: {what} does not decrypt to a valid index",
        if cands.len() > 1 { "s" } else { "" },
        if cands.len() > 1 { "" } else { "es" },
    ))
    .in_file(container))
}
