//! What every fuzz target shares: the multi-file input format, the small limits, and one run
//! through the public API (`texscope::open`, then `Catalog::decode` of every mip and slice).
//!
//! Input format (also written by `examples/fuzz_seeds.rs` and read by `tests/regressions.rs`,
//! which carry their own copy of these few lines so the root crate does not depend on this one):
//! files separated by [`SEP`]; each file is `name NUL bytes`. A piece without a NUL in its first
//! 128 bytes is all content and takes the target's default name for its position, so a mutation
//! that breaks a name still exercises the parsers.

use std::sync::Arc;

use texscope::io::BytesSource;
use texscope::{Limits, OpenOptions, SourceRef};

/// Separates the files of one input (long and unlikely inside real headers).
pub const SEP: &[u8] = b"\n=texscope-fuzz-file=\n";

/// Small limits, so each input costs little and any decode that passes them is cheap; a parser
/// that allocates past them without asking is caught by libFuzzer's `-malloc_limit_mb`.
pub fn limits() -> Limits {
    Limits {
        max_dim: 4096,
        max_slices: 64,
        max_mips: 16,
        max_alloc: 16 << 20,
        max_entries: 1 << 16,
    }
}

/// Splits an input into (name, bytes) files; see the module comment.
pub fn split<'a>(data: &'a [u8], default_names: &[&str]) -> Vec<(String, &'a [u8])> {
    let mut out = Vec::new();
    let mut rest = data;
    loop {
        let (piece, next) = match find(rest, SEP) {
            Some(i) => (&rest[..i], Some(&rest[i + SEP.len()..])),
            None => (rest, None),
        };
        let k = out.len();
        let fallback = || {
            default_names
                .get(k)
                .map_or_else(|| format!("file{k}.bin"), |s| s.to_string())
        };
        let named = piece.iter().take(128).position(|&b| b == 0).and_then(|z| {
            let name = std::str::from_utf8(&piece[..z]).ok()?;
            (!name.is_empty()).then(|| (name.to_string(), &piece[z + 1..]))
        });
        out.push(named.unwrap_or_else(|| (fallback(), piece)));
        match next {
            Some(n) if out.len() < 8 => rest = n,
            _ => break,
        }
    }
    out
}

fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    hay.windows(needle.len()).position(|w| w == needle)
}

/// Opens the input's files together and decodes every mip of every slice of every texture
/// (at most `MAX_DECODES` in all, to keep an input fast). Errors are fine; a panic, a hang or an
/// allocation over libFuzzer's limit is the bug.
pub fn run(default_names: &[&str], data: &[u8]) {
    run_with(default_names, data, OpenOptions::default())
}

/// [`run`] with the AES key of the encrypted container seeds (examples/fuzz_seeds.rs writes them
/// with it), so mutations reach past the key check into the decrypted index.
pub fn run_keyed(default_names: &[&str], data: &[u8]) {
    let mut keys = texscope::io::aes::Keys::default();
    keys.push(
        None,
        texscope::io::aes::AesKey::from_bytes(*b"CUE4ParseFixtureAESKey0123456789"),
    );
    run_with(
        default_names,
        data,
        OpenOptions {
            aes_keys: keys,
            ..OpenOptions::default()
        },
    )
}

fn run_with(default_names: &[&str], data: &[u8], options: OpenOptions) {
    const MAX_DECODES: usize = 64;
    let sources: Vec<SourceRef> = split(data, default_names)
        .into_iter()
        .map(|(name, bytes)| Arc::new(BytesSource::new(name, bytes.to_vec())) as SourceRef)
        .collect();
    let options = OpenOptions {
        limits: limits(),
        ..options
    };
    let cat = texscope::open(sources, &options);
    let mut decodes = 0;
    for (i, t) in cat.textures.iter().enumerate() {
        for mip in 0..t.mips.len() {
            for slice in 0..t.surface_count(mip) {
                if decodes == MAX_DECODES {
                    return;
                }
                decodes += 1;
                let _ = cat.decode(i, mip, slice, Default::default());
            }
        }
    }
    // Editor packages' thumbnails (any asset class).
    for i in 0..cat.thumbnails.len().min(MAX_DECODES) {
        let _ = cat.decode_thumbnail(i);
    }
}
