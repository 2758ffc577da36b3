//! Unreal `.pak` files, versions 3 (UE4.0+, compression blocks and encryption) to 15 (UE 6.0;
//! 12, UE5.3+, is what the UE 5.8 fixtures carry): the footer (FPakInfo), the legacy index (a list of full
//! entries, up to version 9) and the path-hash + full-directory index with bit-packed entries
//! (version 10+, UE4.25+), AES-256-encrypted indexes and entries, and entries stored or compressed
//! (zlib, gzip, LZ4, Oodle, Zstandard) in blocks that are decoded one at a time.
//!
//! Layouts are stated here as read from the engine-written fixtures (cue4parse-fixtures UE5_8:
//! footers, both index forms' fields, the v12 full directory's file names written without their
//! NUL) and UE's published field orders (FPakInfo, FPakEntry, FPakEntry encoding). Nothing here
//! reads more than the footer, the index and the directory when a pak is opened.
//!
//! Versions 13 to 15 (UE 6.0), read from the UE6_0 fixtures (every pak there is version 15) against
//! their UE 5.8 twins, as no public reader describes them yet: the footer grows from 221 to 262
//! bytes, the v12 footer followed by an i32 (-1 in every fixture; not used here), an encryption
//! method byte (2 = AES-CTR in the encrypted paks, 1 in the others, read as ECB) and three 12-byte
//! AES-CTR nonces: the primary index's, the path-hash index's and the full directory index's. With
//! CTR, each encrypted bit-packed entry carries its own 12-byte nonce after its uncompressed size,
//! and the entry's data (after its record, blocks padded to 16 bytes as with ECB) is one CTR
//! stream from counter 0: its second and third blocks match the unencrypted twin's only so. The
//! entry record before the data is unchanged. Versions 13 and 14 have no fixture: they are read
//! with version 15's footer, and a footer of another size is not found (the error says so).

// The core's `SourceRef` is `Arc<dyn Source>` without Send/Sync (sources are used on one thread,
// and in the browser's worker), so a source wrapping one cannot be Send either.
#![allow(clippy::arc_with_non_send_sync)]

use super::index::{choose_key, fstring, method_at, method_names, mount_path, Methods};
use crate::io::aes::{align, ctr_iv, AesKey, Guid, Keys};
use crate::io::blocks::{Block, BlockSource, BlockStore};
use crate::io::compress::Method;
use crate::io::{read_range, Error, Limits, Reader, Result, Source, SourceRef};
use std::sync::Arc;

/// FPakInfo::PakFile_Magic.
pub const PAK_MAGIC: u32 = 0x5A6F_12E1;
/// Versions this reader knows (EPakFileVersion): 1 Initial (a timestamp in each entry record),
/// 2 NoTimestamps, 3 CompressionEncryption (blocks, flags and block size in the record) ..
/// 12 Utf8PakDirectory, and UE 6.0's 13 to 15 (see the module's notes). Versions 1 and 2 are
/// what the first UE4 releases packaged; their records end at the hash, so their files are
/// stored, unencrypted.
pub const MIN_VERSION: i32 = 1;
pub const MAX_VERSION: i32 = 15;
/// The first version with the 262-byte footer (its encryption method and nonces).
const V_ENCRYPTION_METHOD: i32 = 13;
/// The footer's encryption method of AES-CTR.
const METHOD_CTR: u8 = 2;
const V_INDEX_ENCRYPTION: i32 = 4;
const V_RELATIVE_CHUNK_OFFSETS: i32 = 5;
const V_DELETE_RECORDS: i32 = 6;
const V_ENCRYPTION_KEY_GUID: i32 = 7;
const V_FNAME_COMPRESSION: i32 = 8;
const V_FROZEN_INDEX: i32 = 9;
const V_PATH_HASH_INDEX: i32 = 10;
const V_UTF8_DIRECTORY: i32 = 12;
/// Bytes of one compression-method name in the footer (FPakInfo::CompressionMethodNameLen).
const METHOD_NAME_LEN: usize = 32;
/// The largest footer: v13+ with five method names, an i32, the method byte and three nonces.
const MAX_FOOTER: u64 = 16 + 1 + 44 + 5 * METHOD_NAME_LEN as u64 + 4 + 1 + 3 * 12;

/// What a pak's footer says.
#[derive(Debug, Clone)]
pub struct Footer {
    pub version: i32,
    pub guid: Guid,
    pub index_encrypted: bool,
    pub index_offset: u64,
    pub index_size: u64,
    pub index_hash: [u8; 20],
    /// Compression methods by index (0 = stored); see [`legacy_methods`] before version 8.
    pub methods: Methods,
    /// Bytes of the footer at the end of the file.
    pub size: u64,
    /// Version 13+: the index, path-hash index and full directory index are AES-CTR with these
    /// nonces (and encrypted entries carry their own); `None`: ECB.
    pub ctr: Option<[[u8; 12]; 3]>,
}

impl Footer {
    /// The index's bytes decrypted with `key` in the footer's mode; `which` is 0 for the primary
    /// index, 2 for the full directory index.
    fn decrypt(&self, key: &AesKey, which: usize, buf: &mut [u8]) -> Result<()> {
        match &self.ctr {
            Some(n) => key.apply_ctr(&ctr_iv(&n[which], 0), buf),
            None => key.decrypt(buf),
        }
    }
}

/// Reads the footer: each known footer size is tried from the end of the file, as the engine
/// does, and the one whose magic and version agree with its size is kept.
pub fn footer(src: &dyn Source, limits: &Limits) -> Result<Footer> {
    let len = src.len();
    let n = len.min(MAX_FOOTER);
    let tail = read_range(src, len - n, n, limits)?;
    let mut seen_version = None;
    // (footer size, has guid, has encrypted flag, method names, frozen byte)
    const FORMS: &[(u64, bool, bool, usize, bool)] = &[
        (262, true, true, 5, false),
        (222, true, true, 5, true),
        (221, true, true, 5, false),
        (189, true, true, 4, false),
        (61, true, true, 0, false),
        (45, false, true, 0, false),
        (44, false, false, 0, false),
    ];
    for &(size, has_guid, has_enc, names, frozen) in FORMS {
        if size > n {
            continue;
        }
        let mut r = Reader::at(&tail[(n - size) as usize..], len - size);
        let guid = if has_guid {
            Guid::from_le_bytes(r.array()?)
        } else {
            Guid::default()
        };
        let index_encrypted = has_enc && r.u8()? != 0;
        if r.u32()? != PAK_MAGIC {
            continue;
        }
        let version = r.i32()?;
        let fits = match size {
            262 => version >= V_ENCRYPTION_METHOD,
            222 => version == V_FROZEN_INDEX,
            221 => {
                version >= V_FNAME_COMPRESSION
                    && version != V_FROZEN_INDEX
                    && version < V_ENCRYPTION_METHOD
            }
            189 => version == V_FNAME_COMPRESSION,
            61 => version == V_ENCRYPTION_KEY_GUID,
            45 => (V_INDEX_ENCRYPTION..V_ENCRYPTION_KEY_GUID).contains(&version),
            _ => (1..V_INDEX_ENCRYPTION).contains(&version),
        };
        if !fits {
            seen_version.get_or_insert(version);
            continue;
        }
        if !(MIN_VERSION..=MAX_VERSION).contains(&version) {
            return Err(unknown_version(version).in_file(src.name()));
        }
        let index_offset = r.i64()?;
        let index_size = r.i64()?;
        let index_hash: [u8; 20] = r.array()?;
        if frozen && r.u8()? != 0 {
            return Err(Error::unsupported(
                "this pak's index is frozen (a UE4.25 memory image); Texscope cannot read it",
            )
            .in_file(src.name()));
        }
        let methods = if version < V_FNAME_COMPRESSION {
            legacy_methods()
        } else {
            method_names(&mut r, names, METHOD_NAME_LEN)?
        };
        let ctr = if size == 262 {
            r.skip(4)?;
            match r.u8()? {
                0 | 1 => {
                    r.skip(36)?;
                    None
                }
                METHOD_CTR => Some([r.array()?, r.array()?, r.array()?]),
                m => {
                    return Err(Error::unsupported(format!(
                        "pak encryption method {m}; Texscope reads 1 (AES-ECB) and 2 (AES-CTR)"
                    ))
                    .in_file(src.name()))
                }
            }
        } else {
            None
        };
        let end = len - size;
        if index_offset < 0
            || index_size < 0
            || (index_offset as u64).saturating_add(index_size as u64) > end
        {
            return Err(Error::malformed(format!(
                "the pak index ({index_size} bytes at {index_offset}) is not inside the file before its footer"
            ))
            .in_file(src.name()));
        }
        return Ok(Footer {
            version,
            guid,
            index_encrypted,
            index_offset: index_offset as u64,
            index_size: index_size as u64,
            index_hash,
            methods,
            size,
            ctr,
        });
    }
    // A magic with a version no footer form of that size has: the version is the news (a new
    // engine's pak, or a damaged version field), not a missing footer.
    if let Some(v) = seen_version {
        return Err(unknown_version(v).in_file(src.name()));
    }
    Err(
        Error::not_recognised("no pak footer (magic 0x5A6F12E1) at the end of the file")
            .in_file(src.name()),
    )
}

fn unknown_version(version: i32) -> Error {
    Error::unsupported(format!(
        "pak version {version}; Texscope reads versions {MIN_VERSION} to {MAX_VERSION} (UE4.0 to UE6.0)"
    ))
}

/// Whether the file ends with a pak footer's magic at one of the known footer sizes, whatever
/// its version says (so a pak of a version Texscope does not read is named as one).
fn has_magic(src: &dyn Source, limits: &Limits) -> bool {
    let len = src.len();
    let n = len.min(MAX_FOOTER);
    let Ok(tail) = read_range(src, len - n, n, limits) else {
        return false;
    };
    [262u64, 222, 221, 189, 61, 45, 44].iter().any(|&size| {
        size <= n && {
            // The magic follows the GUID and the encrypted flag (17 bytes), the flag alone
            // (45-byte footers) or nothing (44).
            let at = (n - size) as usize
                + match size {
                    44 => 0,
                    45 => 1,
                    _ => 17,
                };
            tail.get(at..at + 4) == Some(&PAK_MAGIC.to_le_bytes()[..])
        }
    })
}

/// Whether `src` ends with a pak footer.
pub fn sniff(src: &dyn Source, limits: &Limits) -> bool {
    src.len() >= 44 && (footer(src, limits).is_ok() || has_magic(src, limits))
}

/// One file of a pak.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PakEntry {
    /// Mount point + path (see `index::mount_path`).
    pub path: String,
    /// Where its record (a copy of the entry header) starts; the data follows the record.
    pub offset: u64,
    /// Bytes stored (compressed size).
    pub size: u64,
    pub uncompressed: u64,
    /// Index into the pak's method table (0 = stored).
    pub method: u32,
    pub encrypted: bool,
    /// A deletion record (pak version 6+): a patch removes the file from the paks under it.
    pub deleted: bool,
    pub block_size: u32,
    /// Compression blocks as (start, end) byte offsets (relative to `offset` from version 5).
    pub blocks: Vec<(u64, u64)>,
    /// Its AES-CTR nonce (pak version 13+ with CTR; see the module's notes).
    pub nonce: Option<[u8; 12]>,
}

impl PakEntry {
    /// Bytes of the entry record before its data (FPakEntry::GetSerializedSize).
    fn record_size(&self, version: i32) -> u64 {
        let mut n = 8 * 3 + 4 + 20;
        if version >= 3 {
            n += 1 + 4;
            if self.method != 0 {
                n += 4 + 16 * self.blocks.len() as u64;
            }
        }
        if version < 2 {
            n += 8;
        }
        n
    }
}

/// An opened pak: its footer facts, its entries, and the key that opens it.
pub struct Pak {
    pub name: String,
    pub footer: Footer,
    pub mount: String,
    pub entries: Vec<PakEntry>,
    /// Entries whose data is encrypted.
    pub encrypted_entries: usize,
    /// Whether an AES key was needed (and fitted).
    pub keyed: bool,
    store: Arc<BlockStore>,
}

/// Checks the index decrypted with `key`: the SHA-1 the footer gives, when it gives one; else the
/// index must start with a plausible mount point.
fn decrypt_index(raw: &[u8], key: &AesKey, f: &Footer) -> Result<Vec<u8>> {
    let mut d = raw.to_vec();
    f.decrypt(key, 0, &mut d)?;
    if f.index_hash != [0; 20] {
        use sha1::Digest;
        let h: [u8; 20] = sha1::Sha1::digest(&d).into();
        if h != f.index_hash {
            return Err(Error::needs_key("the index's SHA-1 does not match"));
        }
    } else {
        let mut r = Reader::new(&d);
        let m = fstring(&mut r)?;
        if m.is_empty() || !m.chars().all(|c| !c.is_control()) {
            return Err(Error::needs_key("no mount point"));
        }
    }
    Ok(d)
}

/// Opens a pak: footer, index (decrypted with the first key that fits), directory.
pub fn open(src: &SourceRef, keys: &Keys, limits: &Limits) -> Result<Pak> {
    let name = src.name().to_string();
    let f = footer(src.as_ref(), limits)?;
    let raw = read_range(src.as_ref(), f.index_offset, f.index_size, limits)?;
    let mut key = None;
    let index = if f.index_encrypted {
        if f.ctr.is_none() && raw.len() % 16 != 0 {
            return Err(Error::malformed(format!(
                "the encrypted pak index is {} bytes, not whole AES blocks",
                raw.len()
            ))
            .in_file(&name));
        }
        let (k, d) = choose_key(&name, f.guid, keys, "the pak index", |k| {
            decrypt_index(&raw, k, &f)
        })?;
        key = Some(k);
        d
    } else {
        raw
    };
    let parsed = if f.version >= V_PATH_HASH_INDEX {
        parse_path_hash_index(src.as_ref(), &index, &f, key.as_ref(), limits)
    } else {
        parse_legacy_index(&index, &f, limits)
    };
    let (mount, entries) = parsed.map_err(|e| e.at_field("pak index").in_file(&name))?;
    let encrypted_entries = entries.iter().filter(|e| e.encrypted).count();
    if key.is_none() && encrypted_entries > 0 {
        // Index in the clear, data encrypted: the key is checked on one entry's first block.
        let probe = entries.iter().find(|e| e.encrypted && !e.deleted).cloned();
        if let Some(e) = probe {
            let (k, ()) = choose_key(&name, f.guid, keys, "the pak's entries", |k| {
                check_entry_key(src, &f, &e, k, limits)
            })?;
            key = Some(k);
        }
    }
    let keyed = key.is_some();
    let store = BlockStore::single(name.clone(), src.clone(), limits).with_key(key);
    Ok(Pak {
        name,
        footer: f,
        mount,
        entries,
        encrypted_entries,
        keyed,
        store: Arc::new(store),
    })
}

/// A key fits an encrypted entry when its first block decompresses to the size the index gives,
/// or (stored) a package starts with its tag. Other stored entries cannot tell; the key is taken.
fn check_entry_key(
    src: &SourceRef,
    f: &Footer,
    e: &PakEntry,
    k: &AesKey,
    limits: &Limits,
) -> Result<()> {
    let store =
        Arc::new(BlockStore::single("probe", src.clone(), limits).with_key(Some(k.clone())));
    let blocks = entry_blocks(f, e)?;
    let Some(b) = blocks.first() else {
        return Ok(());
    };
    let data = store.block(b)?;
    if e.method == 0 && (e.path.ends_with(".uasset") || e.path.ends_with(".umap")) {
        let tag = data
            .get(..4)
            .map(|t| u32::from_le_bytes([t[0], t[1], t[2], t[3]]));
        if tag != Some(super::package::PACKAGE_TAG) {
            return Err(Error::needs_key("no package tag"));
        }
    }
    Ok(())
}

/// ECompressionFlags of pak versions before 8 as a method-table index into [`legacy_methods`].
fn legacy_method(flags: i32) -> u32 {
    match flags & 0x0F {
        0 => 0,
        f if f & 1 != 0 => 1,
        f if f & 2 != 0 => 2,
        _ => 3,
    }
}

/// The method table of pak versions before 8, whose entries carry ECompressionFlags instead of
/// an index: 1 zlib, 2 gzip, 4 the game's custom codec (Oodle in every game known to use one);
/// see [`legacy_method`].
fn legacy_methods() -> Methods {
    vec![
        Ok(Method::Stored),
        Ok(Method::Zlib),
        Ok(Method::Gzip),
        Ok(Method::Oodle),
    ]
}

/// A full FPakEntry as the legacy index and entry records write it.
fn read_entry(r: &mut Reader, version: i32, limits: &Limits) -> Result<PakEntry> {
    let offset = r.i64()?;
    let size = r.i64()?;
    let uncompressed = r.i64()?;
    if offset < 0 || size < 0 || uncompressed < 0 {
        return Err(Error::malformed(format!(
            "entry with offset {offset}, size {size}, uncompressed size {uncompressed}"
        )));
    }
    let method = if version >= V_FNAME_COMPRESSION {
        r.u32()?
    } else {
        legacy_method(r.i32()?)
    };
    if version < 2 {
        r.skip(8)?; // Timestamp
    }
    r.skip(20)?; // SHA-1 of the data
    let mut blocks = Vec::new();
    let mut flags = 0u8;
    let mut block_size = 0u32;
    if version >= 3 {
        if method != 0 {
            let n = r.count_i32(16, limits, "compression blocks")?;
            blocks.reserve(n);
            for _ in 0..n {
                let a = r.i64()?;
                let b = r.i64()?;
                if a < 0 || b < a {
                    return Err(Error::malformed(format!(
                        "compression block from {a} to {b}"
                    )));
                }
                blocks.push((a as u64, b as u64));
            }
        }
        flags = r.u8()?;
        block_size = r.u32()?;
    }
    Ok(PakEntry {
        path: String::new(),
        offset: offset as u64,
        size: size as u64,
        uncompressed: uncompressed as u64,
        method,
        encrypted: flags & 1 != 0,
        deleted: version >= V_DELETE_RECORDS && flags & 2 != 0,
        block_size,
        blocks,
        nonce: None,
    })
}

/// Versions 3-9: mount point, entry count, then (file name, full entry) pairs.
fn parse_legacy_index(
    index: &[u8],
    f: &Footer,
    limits: &Limits,
) -> Result<(String, Vec<PakEntry>)> {
    let mut r = Reader::at(index, f.index_offset);
    let mount = fstring(&mut r)?;
    // Each entry: a name of at least 5 bytes and a 53-byte record.
    let n = r.count_i32(58, limits, "pak entries")?;
    let mut entries = Vec::with_capacity(n);
    for _ in 0..n {
        let file = fstring(&mut r)?;
        let mut e = read_entry(&mut r, f.version, limits)?;
        e.path = mount_path(&mount, &file);
        entries.push(e);
    }
    Ok((mount, entries))
}

/// Version 10+: mount point, entry count, path-hash seed, the two secondary indexes' places, the
/// bit-packed entries, then the entries too irregular to pack. Names come from the full directory
/// index (a pak without one lists no names: Texscope says so rather than guess).
fn parse_path_hash_index(
    src: &dyn Source,
    index: &[u8],
    f: &Footer,
    key: Option<&AesKey>,
    limits: &Limits,
) -> Result<(String, Vec<PakEntry>)> {
    let mut r = Reader::at(index, f.index_offset);
    let mount = fstring(&mut r)?;
    let count = r.i32()?;
    if count < 0 {
        return Err(Error::malformed(format!("{count} entries")));
    }
    limits.check_count(count as u64, 0, u64::MAX, "pak entries")?;
    r.skip(8)?; // PathHashSeed
    if r.u32()? != 0 {
        r.skip(8 + 8 + 20)?; // path-hash index: offset, size, SHA-1
    }
    let has_dir = r.u32()? != 0;
    let (dir_offset, dir_size, dir_hash) = if has_dir {
        (r.i64()?, r.i64()?, r.array::<20>()?)
    } else {
        (0, 0, [0; 20])
    };
    let encoded_len = r.count_i32(1, limits, "encoded pak entries")?;
    let encoded = r.bytes(encoded_len)?;
    let n_full = r.count_i32(53, limits, "unencoded pak entries")?;
    let mut full = Vec::with_capacity(n_full);
    for _ in 0..n_full {
        full.push(read_entry(&mut r, f.version, limits)?);
    }
    if !has_dir {
        return Err(Error::unsupported(
            "this pak has no full directory index (only hashes of its paths), so its file names \
             cannot be listed",
        ));
    }
    if dir_offset < 0
        || dir_size < 0
        || (dir_offset as u64).saturating_add(dir_size as u64) > src.len()
    {
        return Err(Error::malformed(format!(
            "the full directory index ({dir_size} bytes at {dir_offset}) is not inside the file"
        )));
    }
    let mut dir = read_range(src, dir_offset as u64, dir_size as u64, limits)?;
    if f.index_encrypted {
        let k = key.ok_or_else(|| Error::needs_key("the directory index is encrypted"))?;
        f.decrypt(k, 2, &mut dir)
            .map_err(|e| e.at_field("full directory index"))?;
    }
    if dir_hash != [0; 20] {
        use sha1::Digest;
        let h: [u8; 20] = sha1::Sha1::digest(&dir).into();
        if h != dir_hash {
            return Err(Error::malformed(
                "the full directory index does not match its SHA-1 (the file is damaged)",
            ));
        }
    }
    let names = if dir.starts_with(QDFP_MAGIC) {
        qdfp_directory(&dir, dir_offset as u64, limits)?
    } else {
        legacy_directory(&dir, dir_offset as u64, f, limits)?
    };
    // The count is the file's word: each entry takes at least 12 encoded bytes or one full record.
    let mut entries = Vec::with_capacity((count as usize).min(encoded.len() / 12 + full.len()));
    for (path, loc) in names {
        // i32::MIN marks an invalid location, i32::MAX an unused one (FPakEntryLocation).
        if loc == i32::MIN || loc == i32::MAX {
            continue;
        }
        let mut e = if loc >= 0 {
            decode_entry(encoded, loc as usize, f)
                .map_err(|e| e.at_field(&format!("encoded entry of {path}")))?
        } else {
            let i = (-(loc as i64) - 1) as usize;
            full.get(i).cloned().ok_or_else(|| {
                Error::malformed(format!(
                    "{path} names unencoded entry {i} of {}",
                    full.len()
                ))
            })?
        };
        e.path = mount_path(&mount, &path);
        entries.push(e);
    }
    Ok((mount, entries))
}

/// The full directory index of versions 10 to 12: directories, each with (file name, entry
/// location) pairs. Gives (path under the mount point, location) in the file's order.
fn legacy_directory(
    dir: &[u8],
    at: u64,
    f: &Footer,
    limits: &Limits,
) -> Result<Vec<(String, i32)>> {
    let mut d = Reader::at(dir, at);
    let ndirs = d.count_i32(8, limits, "pak directories")?;
    let mut out = Vec::new();
    for _ in 0..ndirs {
        let dname = fstring(&mut d)?;
        let nfiles = d.count_i32(8, limits, "files in a pak directory")?;
        for _ in 0..nfiles {
            let file = if f.version >= V_UTF8_DIRECTORY {
                // Version 12 writes file names as UTF-8 with their length and no NUL (seen in
                // every UE 5.8 fixture); a NUL, if present, ends the name.
                let n = d.count_i32(1, limits, "a file name")?;
                let b = d.bytes(n)?;
                let end = b.iter().position(|&c| c == 0).unwrap_or(b.len());
                String::from_utf8_lossy(&b[..end]).into_owned()
            } else {
                fstring(&mut d)?
            };
            out.push((format!("{dname}{file}"), d.i32()?));
        }
    }
    Ok(out)
}

/// The first bytes of UE 6.0's full directory index.
const QDFP_MAGIC: &[u8; 4] = b"QDFP";

/// UE 6.0's full directory index (every v15 pak of the UE6_0 fixtures), laid out as read from
/// them: "QDFP"; u32 directories, files, 16 (not used), directory-table bytes, file-name bytes,
/// path hashes, 0 (not used); the path hashes (u64 each) and their entry locations (u32); two u32
/// (0 and the directory-table bytes); per directory + 1 the index of its first file; per file + 1
/// where its name starts in the name bytes; per file its entry location; the directory table
/// (per directory: u32 bytes shared with the previous directory's name, u32 length, the rest of
/// the name); the file names, unseparated. Every count is checked against the bytes before use.
fn qdfp_directory(dir: &[u8], at: u64, limits: &Limits) -> Result<Vec<(String, i32)>> {
    let mut d = Reader::at(dir, at);
    d.skip(4)?;
    let ndirs = d.count_u32(8 + 4, limits, "pak directories")?;
    let nfiles = d.count_u32(8, limits, "pak files")?;
    d.skip(4)?;
    let dir_bytes = d.u32()? as usize;
    let name_bytes = d.u32()? as usize;
    let nhashes = d.count_u32(12, limits, "pak path hashes")?;
    d.skip(4)?;
    d.skip(nhashes * 12)?;
    d.skip(8)?;
    let table = |d: &mut Reader, n: usize, what: &str| -> Result<Vec<u32>> {
        if (n as u64).saturating_mul(4) > d.remaining() as u64 {
            return Err(Error::malformed(format!(
                "{n} {what} past the directory's end"
            )));
        }
        (0..n).map(|_| d.u32()).collect()
    };
    let first_file = table(&mut d, ndirs + 1, "directory starts")?;
    let name_start = table(&mut d, nfiles + 1, "file name starts")?;
    let locs = table(&mut d, nfiles, "entry locations")?;
    let dirs_raw = d.bytes(dir_bytes)?;
    let names = d.bytes(name_bytes)?;
    let mut t = Reader::new(dirs_raw);
    let mut dir_names: Vec<String> = Vec::with_capacity(ndirs);
    let mut prev: Vec<u8> = Vec::new();
    for _ in 0..ndirs {
        let shared = t.u32()? as usize;
        let len = t.u32()? as usize;
        let rest = t.bytes(len)?;
        let head = prev.get(..shared).ok_or_else(|| {
            Error::malformed(format!(
                "a directory shares {shared} bytes of a previous name of {}",
                prev.len()
            ))
        })?;
        let mut name = head.to_vec();
        name.extend_from_slice(rest);
        dir_names.push(String::from_utf8_lossy(&name).into_owned());
        prev = name;
    }
    let mut out = Vec::with_capacity(nfiles);
    for (k, dname) in dir_names.iter().enumerate() {
        let (a, b) = (first_file[k] as usize, first_file[k + 1] as usize);
        if a > b || b > nfiles {
            return Err(Error::malformed(format!(
                "directory {dname} holds files {a} to {b} of {nfiles}"
            )));
        }
        for i in a..b {
            let (s, e) = (name_start[i] as usize, name_start[i + 1] as usize);
            let file = names.get(s..e).filter(|_| s <= e).ok_or_else(|| {
                Error::malformed(format!("file name {i} at bytes {s} to {e} of {name_bytes}"))
            })?;
            let file = String::from_utf8_lossy(file);
            out.push((format!("{dname}{file}"), locs[i] as i32));
        }
    }
    Ok(out)
}

/// One bit-packed entry (FPakFile::DecodePakEntry): a u32 of flags and counts, then 32- or
/// 64-bit offset and sizes, then the block sizes.
fn decode_entry(enc: &[u8], at: usize, f: &Footer) -> Result<PakEntry> {
    let version = f.version;
    let mut r = Reader::new(enc);
    r.seek(at)?;
    let bits = r.u32()?;
    let mut block_size = (bits & 0x3F) << 11;
    if bits & 0x3F == 0x3F {
        block_size = r.u32()?;
    }
    let nblocks = (bits >> 6) & 0xFFFF;
    let encrypted = bits & (1 << 22) != 0;
    let method = (bits >> 23) & 0x3F;
    let var = |r: &mut Reader, safe32: bool| -> Result<u64> {
        Ok(if safe32 {
            r.u32()? as u64
        } else {
            let v = r.i64()?;
            u64::try_from(v).map_err(|_| Error::malformed(format!("negative size {v}")))?
        })
    };
    let offset = var(&mut r, bits & (1 << 31) != 0)?;
    let uncompressed = var(&mut r, bits & (1 << 30) != 0)?;
    let nonce = if encrypted && f.ctr.is_some() {
        Some(r.array::<12>()?)
    } else {
        None
    };
    let size = if method != 0 {
        var(&mut r, bits & (1 << 29) != 0)?
    } else {
        uncompressed
    };
    let mut e = PakEntry {
        path: String::new(),
        offset,
        size,
        uncompressed,
        method,
        encrypted,
        deleted: false,
        block_size,
        blocks: Vec::new(),
        nonce,
    };
    if nblocks > 0 {
        // Blocks follow the entry's record; offsets are relative to the entry from version 5.
        e.blocks = vec![(0, 0); nblocks as usize];
        let base = if version >= V_RELATIVE_CHUNK_OFFSETS {
            0
        } else {
            offset
        };
        let mut at = base + e.record_size(version);
        if nblocks == 1 && !encrypted {
            e.blocks[0] = (at, at + size);
        } else {
            for b in e.blocks.iter_mut() {
                let n = r.u32()? as u64;
                *b = (at, at + n);
                at += if encrypted { align(n) } else { n };
            }
        }
    }
    Ok(e)
}

/// The blocks of an entry's data, in the order they decode.
fn entry_blocks(f: &Footer, e: &PakEntry) -> Result<Vec<Block>> {
    let method = method_at(&f.methods, e.method, "the footer's")?;
    let data = e
        .offset
        .checked_add(e.record_size(f.version))
        .ok_or_else(|| Error::malformed("entry offset overflows"))?;
    // Entry data lies before the index: checked before any block is listed (the ue_pak fuzz
    // target found a hostile size cut into billions of 64 KiB pieces).
    let stored_end = data.checked_add(if e.encrypted { align(e.size) } else { e.size });
    if method == Method::Stored && stored_end.is_none_or(|end| end > f.index_offset) {
        return Err(Error::truncated(data, e.size, f.index_offset).at_field("pak entry data"));
    }
    // AES-CTR: the entry's data is one stream from counter 0 at `data`; a block at `at` starts
    // at counter (at - data) / 16, blocks being padded to whole AES blocks.
    let ctr_at = |at: u64| -> Result<Option<[u8; 16]>> {
        if !e.encrypted || f.ctr.is_none() {
            return Ok(None);
        }
        let nonce = e.nonce.as_ref().ok_or_else(|| {
            Error::unsupported(
                "an AES-CTR pak entry stored whole in the index (not bit-packed): where its nonce \
                 lies is not known",
            )
        })?;
        let rel = at
            .checked_sub(data)
            .filter(|r| r % 16 == 0)
            .ok_or_else(|| Error::malformed(format!("an AES-CTR block at offset {at}, not a whole number of AES blocks after the entry's data at {data}")))?;
        let counter = u32::try_from(rel / 16)
            .map_err(|_| Error::malformed("an AES-CTR block past the 32-bit counter"))?;
        Ok(Some(ctr_iv(nonce, counter)))
    };
    if method == Method::Stored {
        if !e.encrypted {
            return Ok(vec![Block {
                part: 0,
                offset: data,
                stored: e.size,
                payload: e.size,
                size: e.size,
                method,
                encrypted: false,
                ctr: None,
            }]);
        }
        // Encrypted stored data: cut into 64 KiB pieces (whole AES blocks) so a range read
        // decrypts only its pieces.
        const PIECE: u64 = 1 << 16;
        let mut out = Vec::new();
        let mut at = 0;
        while at < e.size {
            let n = (e.size - at).min(PIECE);
            out.push(Block {
                part: 0,
                offset: data + at,
                stored: align(n),
                payload: n,
                size: n,
                method,
                encrypted: true,
                ctr: ctr_at(data + at)?,
            });
            at += n;
        }
        return Ok(out);
    }
    if e.blocks.is_empty() {
        return Err(Error::malformed(
            "a compressed entry lists no compression blocks",
        ));
    }
    let base = if f.version >= V_RELATIVE_CHUNK_OFFSETS {
        e.offset
    } else {
        0
    };
    let nblocks = e.blocks.len() as u64;
    let block_size = if nblocks == 1 {
        e.uncompressed
    } else {
        e.block_size as u64
    };
    if block_size == 0 || block_size.saturating_mul(nblocks) < e.uncompressed {
        return Err(Error::malformed(format!(
            "{nblocks} blocks of {block_size} bytes cannot hold the entry's {} bytes",
            e.uncompressed
        )));
    }
    let mut out = Vec::with_capacity(e.blocks.len());
    let mut left = e.uncompressed;
    for &(s, t) in &e.blocks {
        let n = t - s;
        let size = left.min(block_size);
        left -= size;
        let offset = base
            .checked_add(s)
            .ok_or_else(|| Error::malformed("block offset overflows"))?;
        out.push(Block {
            part: 0,
            offset,
            stored: if e.encrypted { align(n) } else { n },
            payload: n,
            size,
            method,
            encrypted: e.encrypted,
            ctr: ctr_at(offset)?,
        });
    }
    Ok(out)
}

impl Pak {
    /// The entry's bytes as a source named `pak name/path`. Nothing is read until it is.
    pub fn source(&self, i: usize) -> Result<SourceRef> {
        let e = self
            .entries
            .get(i)
            .ok_or_else(|| Error::malformed(format!("no pak entry {i}")))?;
        let name = format!("{}/{}", self.name, e.path);
        let blocks = entry_blocks(&self.footer, e).map_err(|err| err.in_file(&name))?;
        for b in &blocks {
            if b.offset.saturating_add(b.stored) > self.store_len() {
                return Err(Error::truncated(b.offset, b.stored, self.store_len())
                    .at_field("pak entry data")
                    .in_file(&name));
            }
        }
        let src = BlockSource::new(name, self.store.clone(), blocks, 0, e.uncompressed)?;
        Ok(Arc::new(src))
    }

    fn store_len(&self) -> u64 {
        // Entry data lies before the index.
        self.footer.index_offset
    }

    /// The method an entry uses, by name.
    pub fn method_name(&self, e: &PakEntry) -> String {
        match self.footer.methods.get(e.method as usize) {
            Some(Ok(m)) => m.name().to_string(),
            Some(Err(n)) => n.clone(),
            None => format!("method {}", e.method),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::io::BytesSource;

    #[test]
    fn garbage_and_tiny_files_are_not_paks() {
        let l = Limits::default();
        assert!(!sniff(&BytesSource::new("a.pak", vec![0u8; 10]), &l));
        assert!(!sniff(&BytesSource::new("a.pak", vec![0u8; 300]), &l));
    }

    #[test]
    fn a_footer_pointing_past_the_file_is_refused() {
        // A v11 footer (221 bytes) whose index claims 1 MiB at offset 0 of a 221-byte file.
        let mut f = vec![0u8; 17];
        f.extend(PAK_MAGIC.to_le_bytes());
        f.extend(11i32.to_le_bytes());
        f.extend(0i64.to_le_bytes());
        f.extend((1i64 << 20).to_le_bytes());
        f.extend([0u8; 20]);
        f.extend([0u8; 160]);
        assert_eq!(f.len(), 221);
        let e = footer(&BytesSource::new("x.pak", f), &Limits::default()).unwrap_err();
        assert_eq!(e.kind, crate::ErrorKind::Malformed, "{e}");
        assert!(e.to_string().starts_with("x.pak: "), "{e}");
    }
}
