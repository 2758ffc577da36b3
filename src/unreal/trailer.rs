//! UE5's package trailer (`FPackageTrailer`): the editor's table of payloads appended to an
//! uncooked package (UE 5.1+, FileVersionUE5 `PAYLOAD_TOC`), and where each payload's bytes are.
//!
//! Layout (docs/unreal.md, "Editor payloads", with the source of each fact), all little-endian:
//! a header (`u64` tag 0xD1C43B2E80A5F697, `i32` version, `u32` header length, `u64` length of
//! the payload data, `u8` legacy access mode before version 1, `i32` payload count, then one
//! lookup entry per payload), the payloads (each an `FCompressedBuffer`), and a 20-byte footer at
//! the very end of the file (`u64` tag 0x29BFCA045138DE76, `u64` trailer length, `u32`
//! PACKAGE_FILE_TAG). A lookup entry is the payload's 20-byte FIoHash, `i64` offset, `u64`
//! compressed size, `u64` raw size, since version 2 `u16` flags and `u16` filter flags, since
//! version 1 a `u8` access mode (local, referenced, virtualized).

use crate::io::{read_range, Context, Error, Limits, Reader, Result, Source};

/// `FPackageTrailer::FHeader::HeaderTag`.
pub const HEADER_TAG: u64 = 0xD1C4_3B2E_80A5_F697;
/// `FPackageTrailer::FFooter::FooterTag`.
pub const FOOTER_TAG: u64 = 0x29BF_CA04_5138_DE76;
/// The tag every package file starts and ends with (`PACKAGE_FILE_TAG`).
pub const PACKAGE_FILE_TAG: u32 = 0x9E2A_83C1;
/// The footer: tag, trailer length, package tag.
pub const FOOTER_SIZE: u64 = 20;
/// The header before its lookup table: tag, version, header length, payload data length, count.
const STATIC_HEADER_SIZE: u64 = 28;
/// The newest trailer version known (`EPackageTrailerVersion::PAYLOAD_FLAGS`, UE 5.1 to 5.7).
pub const NEWEST_VERSION: i32 = 2;

/// Where a payload's bytes are.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub enum Access {
    /// In this file's trailer; [`TrailerEntry::offset`] is absolute in this file.
    Local,
    /// In another package's trailer (the editor's workspace-domain copy of this package);
    /// [`TrailerEntry::offset`] is absolute in that file, which is not this one.
    Referenced,
    /// Moved to a remote store by the editor's virtualization; no bytes in any local file.
    Virtualized,
}

impl Access {
    pub fn name(self) -> &'static str {
        match self {
            Access::Local => "in the package trailer",
            Access::Referenced => "in another package's trailer (referenced)",
            Access::Virtualized => "virtualized to a remote store",
        }
    }
}

/// One payload of the lookup table.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct TrailerEntry {
    /// The payload's FIoHash: the first 20 bytes of the BLAKE3 hash of its raw (decompressed)
    /// bytes, as `FEditorBulkData` names it.
    pub hash: [u8; 20],
    /// Absolute offset of the payload's `FCompressedBuffer`: in this file when local, in the
    /// referenced file when referenced; `None` when virtualized.
    pub offset: Option<u64>,
    /// Bytes the payload takes on disk (its whole `FCompressedBuffer`); `None` when virtualized.
    pub compressed_size: Option<u64>,
    /// Bytes of the payload once decompressed.
    pub raw_size: u64,
    pub access: Access,
    /// `EPayloadFlags` (none defined yet) and `EPayloadFilterReason` bits (version 2 and later).
    pub flags: u16,
    pub filter_flags: u16,
}

/// A package's trailer: where it is and its lookup table.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Trailer {
    /// Absolute offset of the trailer's header.
    pub offset: u64,
    pub version: i32,
    pub header_len: u32,
    pub payloads_len: u64,
    entries: Vec<TrailerEntry>,
}

impl Trailer {
    /// The entry of the payload with this FIoHash.
    pub fn find(&self, hash: &[u8; 20]) -> Option<&TrailerEntry> {
        self.entries.iter().find(|e| &e.hash == hash)
    }

    pub fn entries(&self) -> &[TrailerEntry] {
        &self.entries
    }

    /// Where the payload data ends (the footer starts there).
    pub fn payloads_end(&self) -> u64 {
        self.offset + self.header_len as u64 + self.payloads_len
    }
}

/// The trailer start a package's footer names, or `None` when the file does not end with a
/// trailer footer (UE4 and UE 5.0 packages end with the package tag alone).
pub fn find_footer(src: &dyn Source, limits: &Limits) -> Result<Option<u64>> {
    let len = src.len();
    if len < FOOTER_SIZE {
        return Ok(None);
    }
    let at = len - FOOTER_SIZE;
    let buf = read_range(src, at, FOOTER_SIZE, limits)?;
    let mut r = Reader::at(&buf, at);
    let tag = r.u64()?;
    let trailer_len = r.u64()?;
    let package_tag = r.u32()?;
    if tag != FOOTER_TAG {
        return Ok(None);
    }
    let field = "FPackageTrailer/Footer";
    if package_tag != PACKAGE_FILE_TAG {
        return Err(Error::malformed(format!(
            "the trailer footer ends with {package_tag:#010x}, not the package tag {PACKAGE_FILE_TAG:#010x}"
        ))
        .at_field(field)
        .in_file(src.name()));
    }
    if trailer_len < STATIC_HEADER_SIZE + FOOTER_SIZE || trailer_len > len {
        return Err(Error::malformed(format!(
            "the trailer is said to be {trailer_len} bytes long, in a file of {len} bytes"
        ))
        .at_field("FPackageTrailer/Footer/TrailerLength")
        .in_file(src.name()));
    }
    Ok(Some(len - trailer_len))
}

/// Reads a package's trailer: at `at` when the package summary gives its offset
/// (`PayloadTocOffset`), else where the footer at the end of the file says. `Ok(None)` when the
/// package has none (no offset given and no footer). Every offset and length is checked against
/// the file before anything is read or allocated for it; an error names the file and the field.
pub fn read_trailer(src: &dyn Source, at: Option<u64>, limits: &Limits) -> Result<Option<Trailer>> {
    let footer = find_footer(src, limits)?;
    let offset = match (at, footer) {
        (None, None) => return Ok(None),
        (Some(a), Some(f)) if a != f => {
            return Err(Error::malformed(format!(
                "the summary puts the trailer at {a}, its footer at {f}"
            ))
            .at_field("PayloadTocOffset")
            .in_file(src.name()))
        }
        (Some(a), _) => a,
        (None, Some(f)) => f,
    };
    read_at(src, offset, footer.is_some(), limits)
        .in_file(src.name())
        .map(Some)
}

fn read_at(src: &dyn Source, offset: u64, has_footer: bool, limits: &Limits) -> Result<Trailer> {
    let len = src.len();
    let fixed = read_range(
        src,
        offset,
        STATIC_HEADER_SIZE.min(len.saturating_sub(offset)),
        limits,
    )
    .at_field("FPackageTrailer/Header")?;
    if (fixed.len() as u64) < STATIC_HEADER_SIZE {
        return Err(
            Error::truncated(offset, STATIC_HEADER_SIZE, len).at_field("FPackageTrailer/Header")
        );
    }
    let mut r = Reader::at(&fixed, offset);
    let tag = r.u64()?;
    if tag != HEADER_TAG {
        return Err(Error::malformed(format!(
            "no trailer header at {offset} (tag {tag:#018x}, expected {HEADER_TAG:#018x})"
        ))
        .at_field("FPackageTrailer/Header/Tag"));
    }
    let version = r.i32()?;
    if !(0..=NEWEST_VERSION).contains(&version) {
        return Err(Error::unsupported(format!(
            "trailer version {version}; versions 0 to {NEWEST_VERSION} (UE 5.1 to 5.7) are read"
        ))
        .at_field("FPackageTrailer/Header/Version"));
    }
    let header_len = r.u32()?;
    let payloads_len = r.u64()?;
    let end = offset
        .checked_add(header_len as u64)
        .and_then(|e| e.checked_add(payloads_len))
        .filter(|&e| e <= len)
        .ok_or_else(|| {
            Error::malformed(format!(
                "a header of {header_len} bytes and payloads of {payloads_len} bytes at {offset} pass the end of the file ({len} bytes)"
            ))
            .at_field("FPackageTrailer/Header/PayloadsDataLength")
        })?;
    if has_footer && end + FOOTER_SIZE != len {
        return Err(Error::malformed(format!(
            "the trailer's header and payloads end at {end}, but its footer starts at {}",
            len - FOOTER_SIZE
        ))
        .at_field("FPackageTrailer/Header/HeaderLength"));
    }
    if (header_len as u64) < STATIC_HEADER_SIZE {
        return Err(Error::malformed(format!(
            "a trailer header of {header_len} bytes is shorter than its fixed part"
        ))
        .at_field("FPackageTrailer/Header/HeaderLength"));
    }
    let header = read_range(src, offset, header_len as u64, limits)?;
    let mut r = Reader::at(&header, offset);
    r.skip(24)?;
    // Version 0 kept one access mode for every payload, before the count.
    let legacy_access = if version < 1 { Some(r.u8()?) } else { None };
    let count = r.i32()?;
    let entry_size: u64 = match version {
        0 => 44,
        1 => 45,
        _ => 49,
    };
    if count < 0 {
        return Err(Error::malformed(format!("{count} payloads"))
            .at_field("FPackageTrailer/Header/NumPayloads"));
    }
    limits
        .check_count(
            count as u64,
            entry_size,
            r.remaining() as u64,
            "trailer payloads",
        )
        .at_field("FPackageTrailer/Header/NumPayloads")?;
    let data_start = offset + header_len as u64;
    let mut entries = Vec::with_capacity(count as usize);
    for i in 0..count {
        let field = |f: &str| format!("FPackageTrailer/PayloadLookupTable[{i}]/{f}");
        let hash: [u8; 20] = r.array()?;
        let off = r.i64()?;
        let compressed = r.u64()?;
        let raw_size = r.u64()?;
        let (flags, filter_flags) = if version >= 2 {
            (r.u16()?, r.u16()?)
        } else {
            (0, 0)
        };
        let mode = match legacy_access {
            // Version 0: a payload with no offset is virtualized, the rest take the shared mode.
            Some(m) => {
                if off == -1 {
                    2
                } else {
                    m
                }
            }
            None => r.u8()?,
        };
        let access = match mode {
            0 => Access::Local,
            1 => Access::Referenced,
            2 => Access::Virtualized,
            m => {
                return Err(
                    Error::malformed(format!("access mode {m} (0 to 2 are known)"))
                        .at_field(&field("AccessMode")),
                )
            }
        };
        let (offset_abs, compressed_size) = match access {
            Access::Virtualized => (None, None),
            Access::Local => {
                let o = u64::try_from(off).map_err(|_| {
                    Error::malformed(format!("a local payload at offset {off}"))
                        .at_field(&field("OffsetInFile"))
                })?;
                if o.checked_add(compressed).is_none_or(|e| e > payloads_len) {
                    return Err(Error::malformed(format!(
                        "a payload of {compressed} bytes at {o} passes the end of the trailer's {payloads_len} bytes of payloads"
                    ))
                    .at_field(&field("CompressedSize")));
                }
                (Some(data_start + o), Some(compressed))
            }
            Access::Referenced => {
                let o = u64::try_from(off).map_err(|_| {
                    Error::malformed(format!("a referenced payload at offset {off}"))
                        .at_field(&field("OffsetInFile"))
                })?;
                (Some(o), Some(compressed))
            }
        };
        entries.push(TrailerEntry {
            hash,
            offset: offset_abs,
            compressed_size,
            raw_size,
            access,
            flags,
            filter_flags,
        });
    }
    Ok(Trailer {
        offset,
        version,
        header_len,
        payloads_len,
        entries,
    })
}

/// The stored range (absolute offset, length) of the payload with this FIoHash in a `.upayload`
/// sidecar. In the UE 5.4 and 5.8 sources (izzy2lost/UnrealEngineUWP, unicorn2022/UE5.8.0) the
/// editor writes a sidecar as a file that holds one `FPackageTrailer` and nothing else:
/// `CreatePayloadSidecarFile` (SavePackageUtilities.cpp) gives every payload to an
/// `FPackageTrailerBuilder`, whose `BuildAndAppendTrailer` writes header, payloads and footer
/// into an empty archive; `FEditorBulkData::LoadFromSidecarFileInternal` (EditorBulkData.cpp)
/// finds the trailer from its footer (`FPackageTrailer::TryLoadFromArchive`) and the payload by
/// its FIoHash (`LoadLocalPayload`). UE 5.0-era sources (pjnull/Test_Lyra) wrote another layout
/// (`u32` version 1, a table of contents, then the payloads; `FTocEntry`): it is named, not
/// read. docs/unreal.md, "Editor payloads".
pub fn sidecar_lookup(src: &dyn Source, hash: &[u8; 20], limits: &Limits) -> Result<(u64, u64)> {
    lookup_in_sidecar(src, hash, limits).in_file(src.name())
}

fn lookup_in_sidecar(src: &dyn Source, hash: &[u8; 20], limits: &Limits) -> Result<(u64, u64)> {
    let len = src.len();
    let Some(trailer) = read_trailer(src, None, limits)? else {
        let head = read_range(src, 0, len.min(4), limits)?;
        if head == [1, 0, 0, 0] {
            return Err(Error::unsupported(
                "a payload sidecar in the first layout (UE 5.0-era: version 1, a table of contents \
                 before the payloads), which Texscope does not read yet",
            )
            .at_field("upayload/Version"));
        }
        return Err(Error::malformed(format!(
            "the sidecar ({len} bytes) does not end with a package trailer's footer (tag \
             {FOOTER_TAG:#018x}): it is cut short, or not a payload sidecar"
        ))
        .at_field("FPackageTrailer/Footer/Tag"));
    };
    let hex: String = hash.iter().map(|b| format!("{b:02x}")).collect();
    let e = trailer.find(hash).ok_or_else(|| {
        Error::malformed(format!(
            "the sidecar lists no payload {hex} ({} other payload(s))",
            trailer.entries().len()
        ))
        .at_field("FPackageTrailer/PayloadLookupTable")
    })?;
    match (e.access, e.offset, e.compressed_size) {
        (Access::Local, Some(o), Some(n)) => Ok((o, n)),
        (a, ..) => Err(Error::malformed(format!(
            "the sidecar's entry for payload {hex} is not a stored payload ({})",
            a.name()
        ))
        .at_field("FPackageTrailer/PayloadLookupTable")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::io::{BytesSource, ErrorKind, FileSource};
    use crate::unreal::editor_samples;

    fn bytes(src: &FileSource) -> Vec<u8> {
        let mut b = vec![0u8; src.len() as usize];
        src.read_exact_at(0, &mut b).unwrap();
        b
    }

    /// Every UE5 sample: the trailer is found from the footer, and each local payload is an
    /// FCompressedBuffer whose own header repeats the entry's sizes; the FIoHash is checked against
    /// BLAKE3 of the decoded bytes in cbuf.rs's tests. Expected presence: UE 5.0 packages have no
    /// trailer (the manifest says 5.0 stores UE4-style bulk data), 5.1+ ones do, one payload per
    /// texture and none for a render target (manifest: render targets have no source).
    #[test]
    fn every_ue5_sample_has_its_trailer() {
        let l = Limits::default();
        let rows = editor_samples::ue5_rows();
        assert!(rows.len() >= 20, "{} UE5 rows", rows.len());
        for row in rows {
            let src = FileSource::open(&row.file).unwrap();
            let t = read_trailer(&src, None, &l).unwrap();
            if row.engine == "5.0" {
                assert!(t.is_none(), "{}", row.file.display());
                continue;
            }
            let t = t.unwrap_or_else(|| panic!("no trailer in {}", row.file.display()));
            assert_eq!(t.version, 2);
            assert_eq!(t.payloads_end() + FOOTER_SIZE, src.len());
            let want = if row.class.starts_with("TextureRenderTarget") {
                0
            } else {
                1
            };
            assert_eq!(t.entries().len(), want, "{}", row.file.display());
            for e in t.entries() {
                assert_eq!(e.access, Access::Local);
                let at = e.offset.unwrap();
                let h =
                    crate::unreal::cbuf::header(&src, at, e.compressed_size.unwrap(), &l).unwrap();
                assert_eq!(h.compressed_size, e.compressed_size.unwrap());
                assert_eq!(h.raw_size, e.raw_size);
                // UE names a payload by the first 20 bytes of its raw BLAKE3 hash; the buffer's
                // header carries the whole hash, written separately by the same save.
                assert_eq!(&h.raw_hash[..20], &e.hash);
                assert!(std::ptr::eq(t.find(&e.hash).unwrap(), e));
            }
            // The summary's PayloadTocOffset names the same place.
            let again = read_trailer(&src, Some(t.offset), &l).unwrap().unwrap();
            assert_eq!(again, t);
        }
    }

    fn screenshot() -> Vec<u8> {
        let row = editor_samples::rows()
            .into_iter()
            .find(|r| {
                r.file
                    .ends_with("Content/Movies/Screenshot_2024-12-04_021134.uasset")
            })
            .unwrap();
        bytes(&FileSource::open(&row.file).unwrap())
    }

    #[test]
    fn a_wrong_summary_offset_is_an_error() {
        let b = screenshot();
        let src = BytesSource::new("s.uasset", b);
        let l = Limits::default();
        let t = read_trailer(&src, None, &l).unwrap().unwrap();
        let e = read_trailer(&src, Some(t.offset + 1), &l).unwrap_err();
        assert_eq!(e.field.as_deref(), Some("PayloadTocOffset"));
        assert_eq!(e.file.as_deref(), Some("s.uasset"));
    }

    #[test]
    fn hostile_trailers_are_errors_naming_the_field() {
        let b = screenshot();
        let l = Limits::default();
        let n = b.len();
        let start = read_trailer(&BytesSource::new("s", b.clone()), None, &l)
            .unwrap()
            .unwrap()
            .offset as usize;
        let check = |b: Vec<u8>, field: &str| {
            let e = read_trailer(&BytesSource::new("bad.uasset", b), None, &l).unwrap_err();
            assert_eq!(e.file.as_deref(), Some("bad.uasset"), "{e}");
            assert!(
                e.field.as_deref().unwrap_or("").contains(field),
                "{field}: {e}"
            );
        };
        // A trailer length longer than the file.
        let mut m = b.clone();
        m[n - 12..n - 4].copy_from_slice(&(n as u64 + 1).to_le_bytes());
        check(m, "TrailerLength");
        // A footer that does not end with the package tag.
        let mut m = b.clone();
        m[n - 1] ^= 0xFF;
        check(m, "Footer");
        // The header tag broken.
        let mut m = b.clone();
        m[start] ^= 1;
        check(m, "Header/Tag");
        // Payload data said to pass the end of the file.
        let mut m = b.clone();
        m[start + 16..start + 24].copy_from_slice(&u64::MAX.to_le_bytes());
        check(m, "PayloadsDataLength");
        // A count whose entries cannot fit in the header.
        let mut m = b.clone();
        m[start + 24..start + 28].copy_from_slice(&1_000_000i32.to_le_bytes());
        check(m, "NumPayloads");
        // The one payload's compressed size past the payload data (entry at +28, size at +28+28).
        let mut m = b.clone();
        m[start + 56..start + 64].copy_from_slice(&(u64::MAX / 2).to_le_bytes());
        check(m, "PayloadLookupTable[0]/CompressedSize");
        // An unknown access mode.
        let mut m = b.clone();
        m[start + 28 + 48] = 7;
        check(m, "AccessMode");
        // A future trailer version.
        let mut m = b.clone();
        m[start + 8..start + 12].copy_from_slice(&3i32.to_le_bytes());
        let e = read_trailer(&BytesSource::new("bad.uasset", m), None, &l).unwrap_err();
        assert_eq!(e.kind, ErrorKind::Unsupported);
    }

    /// Cut short anywhere: no trailer (the footer went with the cut) or an error, never a panic.
    #[test]
    fn truncated_packages_never_panic() {
        let b = screenshot();
        let l = Limits::default();
        for cut in [
            1usize,
            2,
            19,
            20,
            21,
            100,
            500_000,
            b.len() - 20_000,
            b.len() - 1,
        ] {
            let src = BytesSource::new("cut.uasset", b[..b.len() - cut.min(b.len())].to_vec());
            assert!(
                matches!(read_trailer(&src, None, &l), Ok(None)),
                "cut {cut}"
            );
        }
        // With the footer kept (a file cut in the middle, then its last 20 bytes appended).
        for keep in [0usize, 10, 20_000, 21_000, 400_000] {
            let mut m = b[..keep].to_vec();
            m.extend_from_slice(&b[b.len() - 20..]);
            assert!(read_trailer(&BytesSource::new("cut.uasset", m), None, &l).is_err());
        }
    }

    /// A version-0 trailer (one access mode for all, before the count; 44-byte entries), written by
    /// hand from the layout: its virtualized payload (offset -1) is read as such.
    #[test]
    fn version_0_layout() {
        let mut t = Vec::new();
        t.extend_from_slice(&HEADER_TAG.to_le_bytes());
        t.extend_from_slice(&0i32.to_le_bytes());
        let header_len = 28 + 1 + 2 * 44;
        t.extend_from_slice(&(header_len as u32).to_le_bytes());
        t.extend_from_slice(&4u64.to_le_bytes());
        t.push(0); // legacy access: local
        t.extend_from_slice(&2i32.to_le_bytes());
        for (id, off, size) in [(1u8, 0i64, 4u64), (2, -1, u64::MAX)] {
            t.extend_from_slice(&[id; 20]);
            t.extend_from_slice(&off.to_le_bytes());
            t.extend_from_slice(&size.to_le_bytes());
            t.extend_from_slice(&9u64.to_le_bytes());
        }
        t.extend_from_slice(b"DATA");
        let len = t.len() as u64 + FOOTER_SIZE;
        t.extend_from_slice(&FOOTER_TAG.to_le_bytes());
        t.extend_from_slice(&len.to_le_bytes());
        t.extend_from_slice(&PACKAGE_FILE_TAG.to_le_bytes());
        let mut file = vec![0xAAu8; 100];
        file.extend_from_slice(&t);
        let tr = read_trailer(&BytesSource::new("v0", file), None, &Limits::default())
            .unwrap()
            .unwrap();
        assert_eq!(tr.offset, 100);
        let a = tr.find(&[1; 20]).unwrap();
        assert_eq!(
            (a.access, a.offset, a.raw_size),
            (Access::Local, Some(100 + header_len), 9)
        );
        let b = tr.find(&[2; 20]).unwrap();
        assert_eq!(
            (b.access, b.offset, b.compressed_size),
            (Access::Virtualized, None, None)
        );
    }
}
