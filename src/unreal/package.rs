//! Package headers: the legacy FPackageFileSummary (.uasset, continued by .uexp) and the zen
//! (IoStore) package header, reduced to what the texture walk needs: names, exports with their
//! serial range, and the bulk-data table (UE5.2+ data resources / zen BulkDataMap).
//! Layouts: shared notes unreal-layout.md §1 (legacy) and §2 (zen).

use super::cursor::Cursor;
use crate::io::{Error, Limits, Result, Source};

/// The legacy package tag `0x9E2A83C1` (notes §1.1).
pub const PACKAGE_TAG: u32 = 0x9E2A_83C1;

/// One row of the UE5.2+ data-resource table (legacy) or zen BulkDataMap (notes §1.4, §2).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BulkEntry {
    /// Offset in .ubulk/.uptnl for streamed payloads.
    pub offset: u64,
    pub size: u64,
    /// Uncompressed size (data-resource RawSize); 0 when the table does not say (zen).
    pub raw_size: u64,
    /// EBulkDataFlags (LegacyBulkDataFlags for a data resource).
    pub flags: u32,
    pub cooked_index: u8,
}

#[derive(Debug, Clone)]
pub struct Export {
    pub name: String,
    /// The class name when the package says it (legacy import map); zen class refs are hashes.
    pub class: Option<String>,
    /// True when the export data lies in the .uexp (legacy) rather than the header file.
    pub in_uexp: bool,
    /// Start and size of the export's serial data in the file that holds it.
    pub start: u64,
    pub size: u64,
    /// Legacy combined-file offset = position in the holding file + `coord_delta` (UE4 absolute
    /// SkipOffset and bulk offsets are in that space, notes §1.3).
    pub coord_delta: i64,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Flavor {
    Legacy,
    /// UE4.26/4.27 zen header.
    Zen4,
    /// UE5 zen header; `since_5_3` says export data is addressed by HeaderSize + CookedSerialOffset.
    Zen5 {
        since_5_3: bool,
    },
}

#[derive(Debug, Clone)]
pub struct Package {
    pub flavor: Flavor,
    pub names: Vec<String>,
    pub exports: Vec<Export>,
    /// Present from UE5.2 (bulk data serialised as an i32 index into it).
    pub resources: Option<Vec<BulkEntry>>,
    pub bulk_data_start: i64,
    /// UE5 object version the summary layout matched (0 = UE4), legacy only.
    pub ue5_version: i32,
    pub engine_guess: String,
    pub package_flags: u32,
    /// UE4 only, when the version was forced: true = the UE4.18/4.19 texture layout.
    pub forced_old_tail: Option<bool>,
    /// Version facts the summary states (cooked packages: all zero) and the forced version.
    pub versions: Versions,
}

/// What a package says about its engine version, when it says anything (notes §1.1: cooked
/// packages are unversioned, so these are normally zero), plus a user-forced version.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Versions {
    /// FileVersionUE4 (0 = unversioned).
    pub file_ue4: i32,
    /// SavedByEngineVersion major.minor ((0, 0) in cooked files).
    pub saved_by: (u16, u16),
    /// `--ue-version` major.minor.
    pub forced: Option<(u32, u32)>,
}

impl Versions {
    /// The UE4 minor version these facts pin down, if any: the forced version first, then
    /// SavedByEngineVersion 4.x. FileVersionUE4 cannot tell 4.26 from 4.27 (both 522,
    /// VER_UE4_CORRECT_LICENSEE_FLAG), but below 522 it rules 4.27 out ([`Versions::below_427`]).
    pub fn ue4_minor(&self) -> Option<u32> {
        match (self.forced, self.saved_by) {
            (Some((4, m)), _) => Some(m),
            (Some(_), _) => None,
            (None, (4, m)) if m > 0 => Some(m as u32),
            _ => None,
        }
    }

    /// FileVersionUE4 names an object version older than 4.26/4.27's 522.
    pub fn below_427(&self) -> bool {
        (1..522).contains(&self.file_ue4)
    }
}

impl Package {
    pub fn name(&self, index: i32) -> Option<&str> {
        usize::try_from(index)
            .ok()
            .and_then(|i| self.names.get(i))
            .map(String::as_str)
    }
}

/// A user-forced engine version (`OpenOptions::unreal_version`, CLI `--ue-version`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ForcedVersion {
    pub label: String,
    pub major: u32,
    pub minor: u32,
    /// The UE5 object version whose summary layout it has (0 = UE4), see `CANDIDATES`.
    pub ue5: i32,
}

/// Parses "4.27", "UE5.1", "5.4.2" ... into the layout facts it implies.
pub fn parse_version(s: &str) -> Result<ForcedVersion> {
    let t = s.trim();
    let t = t
        .strip_prefix("UE")
        .or_else(|| t.strip_prefix("ue"))
        .unwrap_or(t);
    let mut it = t.split('.');
    let num = |p: Option<&str>| p.and_then(|v| v.trim().parse::<u32>().ok());
    let (major, minor) = match (num(it.next()), num(it.next())) {
        (Some(a), Some(b)) => (a, b),
        _ => {
            return Err(Error::unsupported(format!(
                "Unreal version {s:?}: write it as 4.27 or 5.1"
            )))
        }
    };
    let ue5 = match (major, minor) {
        (4, 18..=27) => 0,
        (5, 0) => 1004,
        (5, 1) => 1008,
        (5, 2..=5) => 1009,
        (5, 6) => 1017,
        _ => {
            return Err(Error::unsupported(format!(
                "Unreal version {s}: Texscope knows 4.18-4.27 and 5.0-5.6"
            )))
        }
    };
    Ok(ForcedVersion {
        label: format!("UE{major}.{minor}"),
        major,
        minor,
        ue5,
    })
}

/// UE5 object versions whose summary layouts differ (notes §1.1: 5.0→1004, 5.1→1008,
/// 5.2–5.5→1009..1013 indistinguishable here, 5.6→1017); 0 is UE4.
const CANDIDATES: &[(i32, &str)] = &[
    (0, "UE4.x"),
    (1004, "UE5.0"),
    (1008, "UE5.1"),
    (1009, "UE5.2-5.5"),
    (1017, "UE5.6"),
];

struct Summary {
    total_header_size: i64,
    package_flags: u32,
    name_count: i32,
    name_offset: i32,
    export_count: i32,
    export_offset: i32,
    import_count: i32,
    import_offset: i32,
    depends_offset: i32,
    bulk_data_start: i64,
    data_resource_offset: i32,
    versions: Versions,
    end: u64,
}

fn read_summary(c: &mut Cursor, legacy: i32, ue5: i32) -> Result<Summary> {
    c.pos = 8;
    if legacy != -4 {
        c.i32()?; // LegacyUE3Version
    }
    let file_ue4 = c.i32()?; // FileVersionUE4
    if legacy <= -8 {
        c.i32()?; // FileVersionUE5
    }
    c.i32()?; // FileVersionLicenseeUE
    let mut total_header_size = 0i64;
    if ue5 >= 1016 {
        c.skip(20)?; // SavedHash
        total_header_size = c.i32()? as i64;
    }
    let n = c.i32()?;
    if !(0..=4096).contains(&n) {
        return Err(Error::malformed(format!("{n} custom versions")));
    }
    c.skip(n as u64 * 20)?;
    if ue5 < 1016 {
        total_header_size = c.i32()? as i64;
    }
    c.fstring()?; // PackageName
    let package_flags = c.u32()?;
    let editor_only_filtered = package_flags & 0x8000_0000 != 0;
    let name_count = c.i32()?;
    let name_offset = c.i32()?;
    if ue5 >= 1008 {
        c.skip(8)?; // SoftObjectPathsCount, Offset
    }
    if !editor_only_filtered {
        c.fstring()?; // LocalizationId
    }
    c.skip(8)?; // GatherableTextData count, offset
    let export_count = c.i32()?;
    let export_offset = c.i32()?;
    let import_count = c.i32()?;
    let import_offset = c.i32()?;
    if ue5 >= 1015 {
        c.skip(16)?; // Verse cells
    }
    if ue5 >= 1014 {
        c.skip(4)?; // MetaDataOffset
    }
    let depends_offset = c.i32()?;
    c.skip(16)?; // SoftPackageReferences count/offset, SearchableNamesOffset, ThumbnailTableOffset
    if ue5 >= 1018 {
        c.skip(8)?;
    }
    if ue5 < 1016 {
        c.skip(16)?; // Guid
        if !editor_only_filtered {
            c.skip(16)?; // PersistentGuid
        }
    }
    let gens = c.i32()?;
    if !(0..=65536).contains(&gens) {
        return Err(Error::malformed(format!("{gens} generations")));
    }
    c.skip(gens as u64 * 8)?;
    let major = c.u16()?; // SavedByEngineVersion
    let minor = c.u16()?;
    c.skip(6)?; // Patch, Changelist
    c.fstring()?; // Branch
    c.skip(10)?; // CompatibleWithEngineVersion: Major, Minor, Patch, Changelist
    c.fstring()?; // Branch
    c.skip(4)?; // CompressionFlags
    if c.i32()? != 0 {
        return Err(Error::unsupported(
            "package-level compressed chunks (pre-UE4 packages) are not supported",
        ));
    }
    c.skip(4)?; // PackageSource
    let extra = c.i32()?;
    if !(0..=4096).contains(&extra) {
        return Err(Error::malformed("AdditionalPackagesToCook count"));
    }
    for _ in 0..extra {
        c.fstring()?;
    }
    if legacy > -7 {
        c.skip(4)?; // NumTextureAllocations
    }
    c.skip(4)?; // AssetRegistryDataOffset
    let bulk_data_start = c.i64()?;
    c.skip(4)?; // WorldTileInfoDataOffset
    let chunks = c.i32()?;
    if !(0..=65536).contains(&chunks) {
        return Err(Error::malformed("ChunkIds count"));
    }
    c.skip(chunks as u64 * 4)?;
    c.skip(8)?; // PreloadDependency count, offset
    if ue5 >= 1001 {
        c.skip(4)?;
    }
    if ue5 >= 1002 {
        c.skip(8)?; // PayloadTocOffset
    }
    let mut data_resource_offset = -1;
    if ue5 >= 1009 {
        data_resource_offset = c.i32()?;
    }
    Ok(Summary {
        total_header_size,
        package_flags,
        name_count,
        name_offset,
        export_count,
        export_offset,
        import_count,
        import_offset,
        depends_offset,
        bulk_data_start,
        data_resource_offset,
        versions: Versions {
            file_ue4,
            saved_by: (major, minor),
            forced: None,
        },
        end: c.pos,
    })
}

struct RawExport {
    class_index: i32,
    name: i32,
    serial_size: i64,
    serial_offset: i64,
}

fn read_exports(c: &mut Cursor, s: &Summary, ue5: i32) -> Result<Vec<RawExport>> {
    c.pos = s.export_offset as u64;
    let mut out = Vec::new();
    for _ in 0..s.export_count {
        let class_index = c.i32()?;
        c.skip(12)?; // Super, Template, Outer
        let name = c.i32()?;
        c.skip(8)?; // name number, ObjectFlags
        let serial_size = c.i64()?;
        let serial_offset = c.i64()?;
        c.skip(12)?; // ForcedExport, NotForClient, NotForServer
        if ue5 < 1005 {
            c.skip(16)?; // PackageGuid
        }
        if ue5 >= 1006 {
            c.skip(4)?; // IsInheritedInstance
        }
        c.skip(12)?; // PackageFlags, NotAlwaysLoadedForEditorGame, IsAsset
        if ue5 >= 1003 {
            c.skip(4)?; // GeneratePublicHash
        }
        c.skip(20)?; // preload dependencies
        if ue5 >= 1010 && s.package_flags & 0x2000 == 0 {
            c.skip(16)?; // ScriptSerializationStart/End (versioned properties only)
        }
        out.push(RawExport {
            class_index,
            name,
            serial_size,
            serial_offset,
        });
    }
    Ok(out)
}

/// Parses a legacy package header. The cooked summary carries no engine version, so each summary
/// layout is tried and the one whose sections line up is kept (notes §1.1 heuristic: summary end ==
/// NameOffset, export-map end == DependsOffset, Export[0].SerialOffset == TotalHeaderSize ==
/// .uasset length).
pub fn parse_legacy(
    uasset: &dyn Source,
    limits: &Limits,
    forced: Option<&ForcedVersion>,
) -> Result<Package> {
    let len = uasset.len();
    let mut c = Cursor::new(uasset, 0, len, limits);
    let tag = c.u32()?;
    if tag != PACKAGE_TAG {
        return Err(Error::not_recognised(
            "not a legacy Unreal package (no 0x9E2A83C1 tag)",
        ));
    }
    let legacy = c.i32()?;
    if !(-9..=-4).contains(&legacy) {
        return Err(Error::unsupported(format!(
            "LegacyFileVersion {legacy}: only UE4 and UE5 packages (-4 to -9) are supported"
        )));
    }
    let mut last_err = None;
    for &(ue5, guess) in CANDIDATES {
        if (legacy <= -8) != (ue5 > 0) || forced.is_some_and(|f| f.ue5 != ue5) {
            continue;
        }
        let s = match read_summary(&mut c, legacy, ue5) {
            Ok(s) => s,
            Err(e) => {
                last_err = Some(e);
                continue;
            }
        };
        if s.end != s.name_offset as u64 || s.export_count < 0 || s.import_count < 0 {
            continue;
        }
        let exports = match read_exports(&mut c, &s, ue5) {
            Ok(e) => e,
            Err(e) => {
                last_err = Some(e);
                continue;
            }
        };
        if c.pos != s.depends_offset as u64 && s.depends_offset > 0 {
            continue;
        }
        if let Some(e0) = exports.first() {
            if e0.serial_offset != s.total_header_size {
                continue;
            }
        }
        let mut pkg = finish_legacy(&mut c, s, exports, ue5, guess, limits)?;
        if let Some(f) = forced {
            pkg.engine_guess = format!("{} (forced; the layout detected alone: {guess})", f.label);
            pkg.forced_old_tail = (f.major == 4).then_some(f.minor < 20);
            pkg.versions.forced = Some((f.major, f.minor));
        }
        return Ok(pkg);
    }
    if let Some(f) = forced {
        return Err(Error::unsupported(format!(
            "the package summary does not line up as {} (forced Unreal version); open it \
             without forcing a version to detect its layout",
            f.label
        ))
        .in_file(uasset.name()));
    }
    Err(last_err
        .unwrap_or_else(|| {
            Error::unsupported(
                "the package summary matches no known UE4/UE5 layout (sections do not line up)",
            )
        })
        .in_file(uasset.name()))
}

fn finish_legacy(
    c: &mut Cursor,
    s: Summary,
    raw: Vec<RawExport>,
    ue5: i32,
    guess: &str,
    limits: &Limits,
) -> Result<Package> {
    limits.check_count(s.name_count as u64, 6, c.end, "name map")?;
    c.pos = s.name_offset as u64;
    let mut names = Vec::with_capacity(s.name_count as usize);
    for _ in 0..s.name_count {
        names.push(c.fstring()?);
        c.skip(4)?; // two u16 hashes (UE4.12+)
    }
    // Imports: ClassPackage, ClassName, OuterIndex, ObjectName (+ bImportOptional, UE5 >= 1003).
    let import_size = if ue5 >= 1003 { 32 } else { 28 };
    limits.check_count(s.import_count as u64, import_size, c.end, "import map")?;
    let mut import_names = Vec::with_capacity(s.import_count as usize);
    for i in 0..s.import_count as u64 {
        c.pos = s.import_offset as u64 + i * import_size + 20;
        let idx = c.i32()?;
        import_names.push(names.get(idx.max(0) as usize).cloned().unwrap_or_default());
    }
    let header = s.total_header_size.max(0) as u64;
    let mut exports = Vec::new();
    for e in raw {
        let class = if e.class_index < 0 {
            import_names
                .get((-(e.class_index as i64) - 1) as usize)
                .cloned()
        } else {
            None
        };
        let name = names
            .get(e.name.max(0) as usize)
            .cloned()
            .unwrap_or_default();
        if e.serial_offset < 0 || e.serial_size < 0 {
            return Err(Error::malformed(format!(
                "export {name} has a negative serial range"
            )));
        }
        let off = e.serial_offset as u64;
        let in_uexp = off >= header;
        exports.push(Export {
            name,
            class,
            in_uexp,
            start: if in_uexp { off - header } else { off },
            size: e.serial_size as u64,
            coord_delta: if in_uexp { header as i64 } else { 0 },
        });
    }
    let resources = if s.data_resource_offset > 0 {
        Some(read_data_resources(
            c,
            s.data_resource_offset as u64,
            limits,
        )?)
    } else {
        None
    };
    Ok(Package {
        flavor: Flavor::Legacy,
        names,
        exports,
        resources,
        bulk_data_start: s.bulk_data_start,
        ue5_version: ue5,
        engine_guess: guess.to_string(),
        package_flags: s.package_flags,
        forced_old_tail: None,
        versions: s.versions,
    })
}

/// FObjectDataResource table (notes §1.4): version 1 (41-byte rows) or 2 (+ u8 CookedIndex).
fn read_data_resources(c: &mut Cursor, at: u64, limits: &Limits) -> Result<Vec<BulkEntry>> {
    c.pos = at;
    let version = c.u32()?;
    if !(1..=2).contains(&version) {
        return Err(Error::unsupported(format!(
            "data-resource table version {version} (known: 1, 2)"
        )));
    }
    let n = c.i32()?;
    let row = if version >= 2 { 45 } else { 44 };
    if n < 0 {
        return Err(Error::malformed("negative data-resource count"));
    }
    limits.check_count(n as u64, row, c.end.saturating_sub(c.pos), "data resources")?;
    let mut out = Vec::with_capacity(n as usize);
    for _ in 0..n {
        c.skip(4)?; // EObjectDataResourceFlags
        let cooked_index = if version >= 2 { c.u8()? } else { 0 };
        let offset = c.i64()?;
        c.skip(8)?; // DuplicateSerialOffset
        let size = c.i64()?;
        let raw_size = c.i64()?;
        c.skip(4)?; // OuterIndex
        let flags = c.u32()?;
        out.push(BulkEntry {
            offset: offset.max(0) as u64,
            size: size.max(0) as u64,
            raw_size: raw_size.max(0) as u64,
            flags,
            cooked_index,
        });
    }
    Ok(out)
}

/// The zen name batch of UE5 (notes §2): count, string bytes, hash algorithm id, hashes, BE u16
/// headers (bit 15 = UTF-16), then the strings back to back.
fn read_name_batch5(c: &mut Cursor, limits: &Limits) -> Result<Vec<String>> {
    let n = c.u32()? as u64;
    let _string_bytes = c.u32()?;
    if n == 0 {
        return Ok(Vec::new());
    }
    let algo = c.i64()? as u64;
    if algo != 0xC164_0000 {
        return Err(Error::malformed("zen name batch: unknown hash algorithm"));
    }
    limits.check_count(n, 10, c.end.saturating_sub(c.pos), "zen name batch")?;
    c.skip(n * 8)?;
    let headers = c.bytes(n * 2)?;
    let mut names = Vec::with_capacity(n as usize);
    for h in headers.chunks_exact(2) {
        let v = u16::from_be_bytes([h[0], h[1]]);
        let wide = v & 0x8000 != 0;
        let len = (v & 0x7FFF) as u64;
        let b = c.bytes(if wide { len * 2 } else { len })?;
        names.push(super::cursor::decode_fstring(&b, wide));
    }
    Ok(names)
}

/// Parses a zen package (IoStore-extracted .uasset without the legacy tag, or .uzenasset).
pub fn parse_zen(src: &dyn Source, limits: &Limits) -> Result<Package> {
    let len = src.len();
    let mut c = Cursor::new(src, 0, len, limits);
    // UE4.26/4.27: the header is 64 bytes and its NameMapNamesOffset (at 24) points right after it.
    c.pos = 24;
    if c.i32()? == 64 {
        return parse_zen4(&mut c, limits).map_err(|e| e.in_file(src.name()));
    }
    parse_zen5(&mut c, limits).map_err(|e| e.in_file(src.name()))
}

fn parse_zen4(c: &mut Cursor, limits: &Limits) -> Result<Package> {
    c.pos = 16;
    let package_flags = c.u32()?;
    let cooked_header_size = c.u32()? as i64;
    // Offsets and sizes are int32 in the file; a negative one is refused here rather than
    // becoming a huge u64 whose sums overflow (found by the ue_legacy fuzz target, see
    // tests/regressions/README.md).
    fn offset(c: &mut Cursor, what: &str) -> Result<u64> {
        let v = c.i32()?;
        u64::try_from(v).map_err(|_| Error::malformed(format!("zen header {what} is {v}")))
    }
    let names_offset = offset(c, "NameMapNamesOffset")?;
    let names_size = offset(c, "NameMapNamesSize")?;
    c.skip(8)?; // hashes
    c.skip(4)?; // ImportMapOffset
    let export_map = offset(c, "ExportMapOffset")?;
    let export_bundles = offset(c, "ExportBundlesOffset")?;
    let graph = offset(c, "GraphDataOffset")?;
    let graph_size = offset(c, "GraphDataSize")?;
    // Both are under 2^31, so the sums below cannot overflow.
    let data_start = graph + graph_size;
    // Names: BE u16 length (bit 15 = UTF-16) then the characters, no NUL (notes §2).
    c.pos = names_offset;
    let stop = names_offset + names_size;
    let mut names = Vec::new();
    while c.pos.saturating_add(2) <= stop {
        let b = c.bytes(2)?;
        let v = u16::from_be_bytes([b[0], b[1]]);
        let wide = v & 0x8000 != 0;
        let n = (v & 0x7FFF) as u64;
        let s = c.bytes(if wide { n * 2 } else { n })?;
        names.push(super::cursor::decode_fstring(&s, wide));
        limits.check_count(names.len() as u64, 0, u64::MAX, "zen names")?;
    }
    let exports = read_zen_exports(c, &names, export_map, export_bundles, |off| {
        (data_start as i64)
            .saturating_add(off)
            .saturating_sub(cooked_header_size)
    })?;
    Ok(Package {
        flavor: Flavor::Zen4,
        names,
        exports,
        resources: None,
        bulk_data_start: 0,
        ue5_version: 0,
        engine_guess: "UE4.26-4.27 (zen)".into(),
        package_flags,
        forced_old_tail: None,
        versions: Versions::default(),
    })
}

fn read_zen_exports(
    c: &mut Cursor,
    names: &[String],
    map: u64,
    map_end: u64,
    pos_of: impl Fn(i64) -> i64,
) -> Result<Vec<Export>> {
    let count = map_end.saturating_sub(map) / 72;
    let mut out = Vec::new();
    for i in 0..count {
        c.pos = map + i * 72;
        let off = c.i64()?;
        let size = c.i64()?;
        let name = c.u32()? & 0x3FFF_FFFF;
        let start = pos_of(off);
        if start < 0 || size < 0 {
            return Err(Error::malformed(format!(
                "zen export {i} has an impossible serial range"
            )));
        }
        out.push(Export {
            name: names.get(name as usize).cloned().unwrap_or_default(),
            class: None,
            in_uexp: false,
            start: start as u64,
            size: size as u64,
            coord_delta: off.saturating_sub(start),
        });
    }
    Ok(out)
}

fn parse_zen5(c: &mut Cursor, limits: &Limits) -> Result<Package> {
    c.pos = 0;
    let versioned = c.u32()?;
    let header_size = c.u32()? as u64;
    c.skip(8)?; // Name
    let package_flags = c.u32()?;
    let cooked_header_size = c.u32()? as i64;
    let hashes_offset = c.i32()? as u64;
    c.skip(4)?; // ImportMapOffset
    let export_map = c.i32()? as u64;
    let bundle_entries = c.i32()? as u64;
    if versioned > 1 || header_size > c.end {
        return Err(Error::not_recognised(
            "neither a legacy package (no 0x9E2A83C1 tag) nor a zen package header",
        ));
    }
    // 5.3+ has three dependency offsets, 5.0-5.2 one GraphDataOffset; 5.6 adds two cell offsets.
    // The name batch's hash-algorithm id tells which layout this is.
    let mut found = None;
    for (fields, since_5_3) in [(12u64, true), (20, true), (4, false)] {
        let mut p = 40 + fields;
        if versioned == 1 {
            c.pos = p + 16;
            let n = c.i32()?;
            if !(0..=4096).contains(&n) {
                continue;
            }
            p += 20 + n as u64 * 20;
        }
        c.pos = p;
        let batch = read_name_batch5(c, limits);
        if let Ok(names) = batch {
            found = Some((names, since_5_3));
            break;
        }
    }
    let (names, since_5_3) = found.ok_or_else(|| {
        Error::unsupported("zen package: no known UE5 header layout leads to its name batch")
    })?;
    // UE5.2+: [5.4+: u64 pad size + pad] i64 BulkDataMapSize + 32-byte rows, ending at the
    // imported-public-export-hashes section.
    let after_names = c.pos;
    let mut resources = None;
    if after_names < hashes_offset {
        for padded in [true, false] {
            c.pos = after_names;
            if padded {
                let pad = c.i64()?;
                if !(0..8).contains(&pad) {
                    continue;
                }
                c.skip(pad as u64)?;
            }
            let size = c.i64()?;
            if size < 0 || size % 32 != 0 || c.pos + size as u64 != hashes_offset {
                continue;
            }
            let mut rows = Vec::new();
            for _ in 0..size / 32 {
                let offset = c.i64()?;
                c.skip(8)?;
                let size = c.i64()?;
                let flags = c.u32()?;
                let cooked_index = c.u8()?;
                c.skip(3)?;
                rows.push(BulkEntry {
                    offset: offset.max(0) as u64,
                    size: size.max(0) as u64,
                    raw_size: 0,
                    flags,
                    cooked_index,
                });
            }
            resources = Some(rows);
            break;
        }
    }
    let exports = read_zen_exports(c, &names, export_map, bundle_entries, |off| {
        // Saturating: `off` comes from the file; an absurd one must fail the serial-range checks,
        // not overflow (found by the ue_zen fuzz target).
        if since_5_3 {
            (header_size as i64).saturating_add(off)
        } else {
            // Before 5.3 CookedSerialOffset is the legacy offset; exports follow the header in
            // legacy order (notes §2).
            (header_size as i64)
                .saturating_add(off)
                .saturating_sub(cooked_header_size)
        }
    })?;
    let guess = match (since_5_3, resources.is_some()) {
        (true, _) => "UE5.3+ (zen)",
        (false, true) => "UE5.2 (zen)",
        (false, false) => "UE5.0-5.1 (zen)",
    };
    Ok(Package {
        flavor: Flavor::Zen5 { since_5_3 },
        names,
        exports,
        resources,
        bulk_data_start: 0,
        ue5_version: 0,
        engine_guess: guess.into(),
        package_flags,
        forced_old_tail: None,
        versions: Versions::default(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::io::{BytesSource, ErrorKind};

    #[test]
    fn garbage_is_refused_with_a_reason() {
        let l = Limits::default();
        let e = parse_legacy(&BytesSource::new("a.uasset", vec![0u8; 64]), &l, None).unwrap_err();
        assert_eq!(e.kind, ErrorKind::NotRecognised);
        let mut tagged = PACKAGE_TAG.to_le_bytes().to_vec();
        tagged.extend_from_slice(&(-8i32).to_le_bytes());
        tagged.resize(300, 0xFF);
        assert!(parse_legacy(&BytesSource::new("b.uasset", tagged), &l, None).is_err());
        assert!(parse_zen(&BytesSource::new("c.uzenasset", vec![0u8; 10]), &l).is_err());
        let mut hostile = vec![0u8; 64];
        hostile[4..8].copy_from_slice(&u32::MAX.to_le_bytes()); // HeaderSize
        assert!(parse_zen(&BytesSource::new("d.uzenasset", hostile), &l).is_err());
    }
}
