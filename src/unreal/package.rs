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
    /// UE4 only, when the version was forced: true = the UE4.0-4.19 texture layout.
    pub forced_old_tail: Option<bool>,
    /// Version facts the summary states (cooked packages: all zero) and the forced version.
    pub versions: Versions,
    /// LegacyFileVersion (-2 to -9; 0 for a zen package).
    pub legacy_version: i32,
    /// The summary's ThumbnailTableOffset (0 when the package has no thumbnails; zen: 0).
    pub thumbnail_offset: i32,
    /// The summary's PayloadTocOffset (UE5 >= PAYLOAD_TOC; -1 otherwise): where the package
    /// trailer starts.
    pub payload_toc_offset: i64,
}

/// What a package says about its engine version, when it says anything (notes §1.1: cooked
/// packages are unversioned, so these are normally zero), plus a user-forced version.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Versions {
    /// FileVersionUE4 (0 = unversioned).
    pub file_ue4: i32,
    /// FileVersionUE5 (0 = unversioned or before UE5).
    pub file_ue5: i32,
    /// FileVersionLicenseeUE.
    pub licensee: i32,
    /// Number of custom versions the summary lists (0 in unversioned cooked files).
    pub custom_versions: u32,
    /// The summary's SavedHash (UE5 >= PACKAGE_SAVED_HASH), hex.
    pub saved_hash: Option<String>,
    /// SavedByEngineVersion major.minor ((0, 0) in cooked files).
    pub saved_by: (u16, u16),
    pub saved_by_patch: u16,
    /// The whole SavedByEngineVersion as the editor wrote it ("4.22.3-7053642+++UE4+Release-4.22"),
    /// or "cl1572446" where a UE 4.0 editor wrote only its changelist; "0.0.0-0+" in cooked files.
    pub saved_by_text: String,
    /// `--ue-version` major.minor.
    pub forced: Option<(u32, u32)>,
    /// An unversioned UE4 package read in an older cooked layout: the UE4 object version it was
    /// read as (0: the newest, 522).
    pub layout_ue4: i32,
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

/// PKG_FilterEditorOnly: set by the cooker; an editor (uncooked) package lacks it and holds its
/// export data and editor-only data (source art, thumbnails) in the .uasset itself.
pub const PKG_FILTER_EDITOR_ONLY: u32 = 0x8000_0000;

impl Package {
    /// An editor package: a legacy package saved by the editor, not by the cooker.
    pub fn is_editor(&self) -> bool {
        self.flavor == Flavor::Legacy && self.package_flags & PKG_FILTER_EDITOR_ONLY == 0
    }

    /// The UE4 object version the package's data follows (an unversioned one: 522, the newest).
    pub fn ue4_version(&self) -> i32 {
        if self.versions.file_ue4 > 0 {
            self.versions.file_ue4
        } else if self.versions.layout_ue4 > 0 {
            self.versions.layout_ue4
        } else {
            ue4v::NEWEST
        }
    }

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
    /// The UE4 object version whose cooked layout it has, see `CANDIDATES`.
    pub ue4: i32,
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
        (4, 0..=27) => 0,
        (5, 0) => 1004,
        (5, 1) => 1008,
        (5, 2..=5) => 1009,
        (5, 6) => 1017,
        // 5.7 and 5.8 both write object version 1018 (IMPORT_TYPE_HIERARCHIES); 5.8 cooks a
        // PackageName into each import row, which the layout shows (`import_row`). 6.0 is taken
        // as 5.8's layout: CUE4Parse reads its UE6_0 fixtures with the same code paths.
        (5, 7 | 8) | (6, 0) => 1018,
        _ => {
            return Err(Error::unsupported(format!(
                "Unreal version {s}: Texscope knows 4.0-4.27, 5.0-5.8 and 6.0"
            )))
        }
    };
    Ok(ForcedVersion {
        label: format!("UE{major}.{minor}"),
        major,
        minor,
        ue5,
        ue4: if major == 4 {
            ue4_layout_of(minor)
        } else {
            ue4v::NEWEST
        },
    })
}

/// The layouts an unversioned package is tried as, in order. The UE5 rows are the object
/// versions whose summary layouts differ (notes §1.1: 5.0→1004, 5.1→1008, 5.2–5.5→1009..1013
/// indistinguishable here, 5.6→1017; 1018 = IMPORT_TYPE_HIERARCHIES, written by the UE 5.8
/// fixtures' versioned packages, docs/unreal.md). A versioned package names its own.
///
/// UE4 before 4.16 cooked other layouts: each UE4 row stands for the object versions up to the
/// next gate a cooked package shows (the `ue4v` constants: export-map fields at 365, 485, 507,
/// 508, 511; summary fields at 384, 444, 459, 507, 510; name hashes at 504), with the releases
/// whose FileVersionUE4 falls there (CUE4Parse's EGame.GetVersion: 4.0 342, 4.1 352, 4.2 363,
/// 4.3 382, 4.4 385, 4.5 401, 4.6 413, 4.7 434, 4.8 451, 4.9 and 4.10 482, 4.11 498, 4.12 504,
/// 4.13 505, 4.14 508, 4.15 510, 4.16 and 4.17 513). Cooked packages of 511-522 share one layout
/// (the later gates are editor-only fields), so "UE4.x" stays first and newer games never try
/// the old rows.
const CANDIDATES: &[Layout] = &[
    Layout::ue4(ue4v::NEWEST, "UE4.x", 16..=27),
    Layout::ue5(1004, "UE5.0"),
    Layout::ue5(1008, "UE5.1"),
    Layout::ue5(1009, "UE5.2-5.5"),
    Layout::ue5(1017, "UE5.6"),
    Layout::ue5(1018, "UE5.7+"),
    Layout::ue4(510, "UE4.15", 15..=15),
    Layout::ue4(508, "UE4.14", 14..=14),
    Layout::ue4(504, "UE4.12-4.13", 12..=13),
    Layout::ue4(485, "UE4.11", 11..=11),
    Layout::ue4(459, "UE4.9-4.10", 9..=10),
    Layout::ue4(444, "UE4.8", 8..=8),
    Layout::ue4(384, "UE4.4-4.7", 4..=7),
    Layout::ue4(365, "UE4.3", 3..=3),
    Layout::ue4(342, "UE4.0-4.2", 0..=2),
];

/// A row of [`CANDIDATES`]: one summary layout, and the releases that write it.
struct Layout {
    /// The UE5 object version (0 = UE4).
    ue5: i32,
    /// The UE4 object version whose cooked layout it is.
    ue4: i32,
    /// The engine guess shown for a package found in this layout.
    label: &'static str,
    /// The UE 4.x minor releases writing it (empty for UE5 rows): `--ue-version 4.x` picks it.
    ue4_minors: std::ops::RangeInclusive<u32>,
}

impl Layout {
    const fn ue4(ue4: i32, label: &'static str, ue4_minors: std::ops::RangeInclusive<u32>) -> Self {
        Layout {
            ue5: 0,
            ue4,
            label,
            ue4_minors,
        }
    }
    const fn ue5(ue5: i32, label: &'static str) -> Self {
        #[allow(clippy::reversed_empty_ranges)] // empty on purpose: no UE4 release writes it
        let none = 1..=0;
        Layout {
            ue5,
            ue4: ue4v::NEWEST,
            label,
            ue4_minors: none,
        }
    }
}

/// The UE4 object version whose cooked layout UE 4.`minor` writes (its row of [`CANDIDATES`]).
fn ue4_layout_of(minor: u32) -> i32 {
    CANDIDATES
        .iter()
        .find(|l| l.ue4_minors.contains(&minor))
        .map_or(ue4v::NEWEST, |l| l.ue4)
}

/// The newest FileVersionUE5 Texscope knows: IMPORT_TYPE_HIERARCHIES, what the UE 5.8 and the
/// UE 6.0 fixtures' versioned packages both write (their zen versioning info, docs/unreal.md).
const NEWEST_UE5: i32 = ue5::IMPORT_TYPE_HIERARCHIES;

/// A versioned package newer than every layout Texscope knows is refused with one sentence: its
/// summary may have gained fields, and reading it with the newest known layout would be a guess.
/// FileVersionUE4 stopped at 522 (VER_UE4_CORRECT_LICENSEE_FLAG, 4.26/4.27): UE5 packages still
/// write 522 there.
fn check_known_versions(ue4: i32, ue5: i32) -> Result<()> {
    if ue5 > NEWEST_UE5 {
        return Err(Error::unsupported(format!(
            "package version UE5 {ue5}; Texscope reads UE5 package versions 1000 to {NEWEST_UE5} \
             (UE 5.0 to UE 6.0)"
        )));
    }
    if ue4 > ue4v::NEWEST {
        return Err(Error::unsupported(format!(
            "package version UE4 {ue4}; Texscope reads UE4 package versions up to {} (UE 4.27, \
             which UE5 packages also state)",
            ue4v::NEWEST
        )));
    }
    Ok(())
}

/// EUnrealEngineObjectUE5Version values the summary, export map and property tags branch on
/// (CUE4Parse ObjectVersion.cs / UE ObjectVersion.h, see docs/unreal.md).
pub mod ue5 {
    pub const NAMES_REFERENCED_FROM_EXPORT_DATA: i32 = 1001;
    pub const PAYLOAD_TOC: i32 = 1002;
    pub const OPTIONAL_RESOURCES: i32 = 1003;
    pub const LARGE_WORLD_COORDINATES: i32 = 1004;
    pub const REMOVE_OBJECT_EXPORT_PACKAGE_GUID: i32 = 1005;
    pub const TRACK_OBJECT_EXPORT_IS_INHERITED: i32 = 1006;
    pub const FSOFTOBJECTPATH_REMOVE_ASSET_PATH_FNAMES: i32 = 1007;
    pub const ADD_SOFTOBJECTPATH_LIST: i32 = 1008;
    pub const DATA_RESOURCES: i32 = 1009;
    pub const SCRIPT_SERIALIZATION_OFFSET: i32 = 1010;
    pub const PROPERTY_TAG_EXTENSION_AND_OVERRIDABLE_SERIALIZATION: i32 = 1011;
    pub const PROPERTY_TAG_COMPLETE_TYPE_NAME: i32 = 1012;
    pub const METADATA_SERIALIZATION_OFFSET: i32 = 1014;
    pub const VERSE_CELLS: i32 = 1015;
    pub const PACKAGE_SAVED_HASH: i32 = 1016;
    pub const IMPORT_TYPE_HIERARCHIES: i32 = 1018;
}

/// EUnrealEngineObjectUE4Version values the summary and maps branch on (same sources); an
/// unversioned package is read as the newest, 522 (4.26/4.27).
pub mod ue4v {
    /// The oldest object version UE4 loads (4.0's editor still read 214-215 packages).
    pub const OLDEST_LOADABLE_PACKAGE: i32 = 214;
    pub const WORLD_LEVEL_INFO: i32 = 224;
    pub const ADDED_CHUNKID_TO_ASSETDATA_AND_UPACKAGE: i32 = 278;
    pub const ARRAY_PROPERTY_INNER_TAGS: i32 = 282;
    pub const CHANGED_CHUNKID_TO_BE_AN_ARRAY_OF_CHUNKIDS: i32 = 326;
    pub const ENGINE_VERSION_OBJECT: i32 = 336;
    pub const LOAD_FOR_EDITOR_GAME: i32 = 365;
    pub const ADD_STRING_ASSET_REFERENCES_MAP: i32 = 384;
    pub const STRUCT_GUID_IN_PROPERTY_TAG: i32 = 441;
    pub const PACKAGE_SUMMARY_HAS_COMPATIBLE_ENGINE_VERSION: i32 = 444;
    pub const SERIALIZE_TEXT_IN_PACKAGES: i32 = 459;
    pub const COOKED_ASSETS_IN_EDITOR_SUPPORT: i32 = 485;
    pub const PROPERTY_TAG_SET_MAP_SUPPORT: i32 = 500;
    pub const PROPERTY_GUID_IN_PROPERTY_TAG: i32 = 503;
    pub const NAME_HASHES_SERIALIZED: i32 = 504;
    pub const PRELOAD_DEPENDENCIES_IN_COOKED_EXPORTS: i32 = 507;
    pub const TEMPLATE_INDEX_IN_COOKED_EXPORTS: i32 = 508;
    pub const ADDED_SEARCHABLE_NAMES: i32 = 510;
    pub const E64BIT_EXPORTMAP_SERIALSIZES: i32 = 511;
    pub const ADDED_PACKAGE_SUMMARY_LOCALIZATION_ID: i32 = 516;
    pub const ADDED_PACKAGE_OWNER: i32 = 518;
    pub const NON_OUTER_PACKAGE_IMPORT: i32 = 520;
    pub const NEWEST: i32 = 522;
}

/// The version fields at the start of every legacy summary (notes §1.1 items 1-3).
#[derive(Debug, Clone, Copy)]
struct Head {
    legacy: i32,
    file_ue4: i32,
    file_ue5: i32,
    licensee: i32,
    /// The UE4 object version an unversioned package is read as (the candidate being tried).
    layout_ue4: i32,
}

impl Head {
    /// UE4, UE5 and licensee versions all zero: a cooked, unversioned package (notes §1.1).
    fn unversioned(&self) -> bool {
        self.file_ue4 == 0 && self.file_ue5 == 0 && self.licensee == 0
    }
    /// The UE4 object version the layout follows (an unversioned package: the candidate's).
    fn ue4(&self) -> i32 {
        if self.file_ue4 > 0 {
            self.file_ue4
        } else {
            self.layout_ue4
        }
    }
}

struct Summary {
    total_header_size: i64,
    package_flags: u32,
    name_count: i32,
    name_offset: i32,
    export_count: i32,
    export_offset: i32,
    import_count: i32,
    import_offset: i32,
    /// Offsets of the sections that may follow the export map (cell maps, metadata, depends).
    after_exports: Vec<i32>,
    bulk_data_start: i64,
    data_resource_offset: i32,
    thumbnail_offset: i32,
    payload_toc_offset: i64,
    versions: Versions,
    end: u64,
}

/// The custom-version container in the form LegacyFileVersion says (UE's
/// ECustomVersionSerializationFormat): -2 enum-keyed (u32 tag + i32 version), -3 to -5
/// GUID-keyed with a friendly name (FGuid + i32 + FString), -6 and later optimized (FGuid + i32).
/// Returns how many there are.
fn read_custom_versions(c: &mut Cursor, legacy: i32) -> Result<i32> {
    let n = c.i32()?;
    if !(0..=4096).contains(&n) {
        return Err(Error::malformed(format!("{n} custom versions"))
            .at_field("unreal/FPackageFileSummary/CustomVersions"));
    }
    match legacy {
        -2 => c.skip(n as u64 * 8)?,
        -5..=-3 => {
            for _ in 0..n {
                c.skip(20)?;
                c.fstring()?; // FriendlyName
            }
        }
        _ => c.skip(n as u64 * 20)?,
    }
    Ok(n)
}

fn read_summary(c: &mut Cursor, head: &Head, ue5: i32) -> Result<Summary> {
    c.pos = 8;
    if head.legacy != -4 {
        c.i32()?; // LegacyUE3Version
    }
    c.i32()?; // FileVersionUE4
    if head.legacy <= -8 {
        c.i32()?; // FileVersionUE5
    }
    c.i32()?; // FileVersionLicenseeUE
    let ue4 = head.ue4();
    let mut total_header_size = 0i64;
    let mut saved_hash = None;
    if ue5 >= ue5::PACKAGE_SAVED_HASH {
        saved_hash = Some(c.bytes(20)?); // SavedHash (FIoHash)
        total_header_size = c.i32()? as i64;
    }
    let n = read_custom_versions(c, head.legacy)?;
    if ue5 < ue5::PACKAGE_SAVED_HASH {
        total_header_size = c.i32()? as i64;
    }
    c.fstring()?; // PackageName
    let package_flags = c.u32()?;
    let editor_only_filtered = package_flags & 0x8000_0000 != 0;
    let name_count = c.i32()?;
    let name_offset = c.i32()?;
    if ue5 >= ue5::ADD_SOFTOBJECTPATH_LIST {
        c.skip(8)?; // SoftObjectPathsCount, Offset
    }
    if !editor_only_filtered && ue4 >= ue4v::ADDED_PACKAGE_SUMMARY_LOCALIZATION_ID {
        c.fstring()?; // LocalizationId
    }
    if ue4 >= ue4v::SERIALIZE_TEXT_IN_PACKAGES {
        c.skip(8)?; // GatherableTextData count, offset
    }
    let export_count = c.i32()?;
    let export_offset = c.i32()?;
    let import_count = c.i32()?;
    let import_offset = c.i32()?;
    let mut after_exports = Vec::new();
    if ue5 >= ue5::VERSE_CELLS {
        for _ in 0..2 {
            c.skip(4)?; // Cell export / import count
            after_exports.push(c.i32()?);
        }
    }
    if ue5 >= ue5::METADATA_SERIALIZATION_OFFSET {
        after_exports.push(c.i32()?); // MetaDataOffset
    }
    after_exports.push(c.i32()?); // DependsOffset
    if ue4 >= ue4v::ADD_STRING_ASSET_REFERENCES_MAP {
        c.skip(8)?; // SoftPackageReferences count, offset
    }
    if ue4 >= ue4v::ADDED_SEARCHABLE_NAMES {
        c.skip(4)?; // SearchableNamesOffset
    }
    let thumbnail_offset = c.i32()?; // ThumbnailTableOffset
    if ue5 >= ue5::IMPORT_TYPE_HIERARCHIES {
        c.skip(8)?; // ImportTypeHierarchies count, offset
    }
    if ue5 < ue5::PACKAGE_SAVED_HASH {
        c.skip(16)?; // Guid
    }
    if !editor_only_filtered && ue4 >= ue4v::ADDED_PACKAGE_OWNER {
        c.skip(16)?; // PersistentGuid
        if ue4 < ue4v::NON_OUTER_PACKAGE_IMPORT {
            c.skip(16)?; // OwnerPersistentGuid (4.19 only)
        }
    }
    let gens = c.i32()?;
    if !(0..=65536).contains(&gens) {
        return Err(Error::malformed(format!("{gens} generations")));
    }
    c.skip(gens as u64 * 8)?;
    // SavedByEngineVersion (FEngineVersion) from ENGINE_VERSION_OBJECT; before it, UE 4.0's
    // editors wrote only their changelist (CUE4Parse FPackageFileSummary).
    let (major, minor, patch, saved_by_text) = if ue4 >= ue4v::ENGINE_VERSION_OBJECT {
        let (major, minor, patch) = (c.u16()?, c.u16()?, c.u16()?);
        let changelist = c.u32()?;
        let branch = c.fstring()?;
        let text = format!("{major}.{minor}.{patch}-{changelist}+{branch}");
        (major, minor, patch, text)
    } else {
        (0, 0, 0, format!("cl{}", c.u32()?)) // EngineChangelist
    };
    if ue4 >= ue4v::PACKAGE_SUMMARY_HAS_COMPATIBLE_ENGINE_VERSION {
        c.skip(10)?; // CompatibleWithEngineVersion: Major, Minor, Patch, Changelist
        c.fstring()?; // Branch
    }
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
    if head.legacy > -7 {
        // TextureAllocations: FTextureType rows (SizeX, SizeY, NumMips, Format,
        // TexCreateFlags, then an i32 array of export indices); editors wrote none.
        let n = c.i32()?;
        if !(0..=4096).contains(&n) {
            return Err(Error::malformed(format!("{n} texture allocations"))
                .at_field("unreal/FPackageFileSummary/TextureAllocations"));
        }
        for _ in 0..n {
            c.skip(20)?;
            let k = c.i32()?;
            if !(0..=65536).contains(&k) {
                return Err(Error::malformed("texture allocation export count"));
            }
            c.skip(k as u64 * 4)?;
        }
    }
    c.skip(4)?; // AssetRegistryDataOffset
    let bulk_data_start = c.i64()?;
    if ue4 >= ue4v::WORLD_LEVEL_INFO {
        c.skip(4)?; // WorldTileInfoDataOffset
    }
    if ue4 >= ue4v::CHANGED_CHUNKID_TO_BE_AN_ARRAY_OF_CHUNKIDS {
        let chunks = c.i32()?;
        if !(0..=65536).contains(&chunks) {
            return Err(Error::malformed("ChunkIds count"));
        }
        c.skip(chunks as u64 * 4)?;
    } else if ue4 >= ue4v::ADDED_CHUNKID_TO_ASSETDATA_AND_UPACKAGE {
        c.skip(4)?; // ChunkID
    }
    if ue4 >= ue4v::PRELOAD_DEPENDENCIES_IN_COOKED_EXPORTS {
        c.skip(8)?; // PreloadDependency count, offset
    }
    if ue5 >= ue5::NAMES_REFERENCED_FROM_EXPORT_DATA {
        c.skip(4)?;
    }
    let mut payload_toc_offset = -1;
    if ue5 >= ue5::PAYLOAD_TOC {
        payload_toc_offset = c.i64()?;
    }
    let mut data_resource_offset = -1;
    if ue5 >= ue5::DATA_RESOURCES {
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
        after_exports,
        bulk_data_start,
        data_resource_offset,
        thumbnail_offset,
        payload_toc_offset,
        versions: Versions {
            file_ue4: head.file_ue4,
            file_ue5: head.file_ue5,
            licensee: head.licensee,
            custom_versions: n as u32,
            saved_hash: saved_hash.map(|h| h.iter().map(|b| format!("{b:02x}")).collect()),
            saved_by: (major, minor),
            saved_by_patch: patch,
            saved_by_text,
            forced: None,
            layout_ue4: 0,
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

fn read_exports(c: &mut Cursor, s: &Summary, head: &Head, ue5: i32) -> Result<Vec<RawExport>> {
    c.pos = s.export_offset as u64;
    let ue4 = head.ue4();
    let wide = ue4 >= ue4v::E64BIT_EXPORTMAP_SERIALSIZES;
    let mut out = Vec::new();
    for _ in 0..s.export_count {
        let class_index = c.i32()?;
        // Super, [Template from TEMPLATE_INDEX_IN_COOKED_EXPORTS], Outer (CUE4Parse FObjectExport).
        c.skip(if ue4 >= ue4v::TEMPLATE_INDEX_IN_COOKED_EXPORTS {
            12
        } else {
            8
        })?;
        let name = c.i32()?;
        c.skip(8)?; // name number, ObjectFlags
        let (serial_size, serial_offset) = if wide {
            (c.i64()?, c.i64()?)
        } else {
            (c.i32()? as i64, c.i32()? as i64)
        };
        c.skip(12)?; // ForcedExport, NotForClient, NotForServer
        if ue5 < ue5::REMOVE_OBJECT_EXPORT_PACKAGE_GUID {
            c.skip(16)?; // PackageGuid
        }
        if ue5 >= ue5::TRACK_OBJECT_EXPORT_IS_INHERITED {
            c.skip(4)?; // IsInheritedInstance
        }
        c.skip(4)?; // PackageFlags
        if ue4 >= ue4v::LOAD_FOR_EDITOR_GAME {
            c.skip(4)?; // bNotAlwaysLoadedForEditorGame
        }
        if ue4 >= ue4v::COOKED_ASSETS_IN_EDITOR_SUPPORT {
            c.skip(4)?; // bIsAsset
        }
        if ue5 >= ue5::OPTIONAL_RESOURCES {
            c.skip(4)?; // GeneratePublicHash
        }
        if ue4 >= ue4v::PRELOAD_DEPENDENCIES_IN_COOKED_EXPORTS {
            c.skip(20)?; // preload dependencies
        }
        if ue5 >= ue5::SCRIPT_SERIALIZATION_OFFSET && s.package_flags & 0x2000 == 0 {
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

/// Bytes of one import-map row: ClassPackage, ClassName, OuterIndex, ObjectName [, PackageName]
/// [, bImportOptional] (notes §1.2). The PackageName FName is written by editor packages from
/// NON_OUTER_PACKAGE_IMPORT and, in the UE 5.8 fixtures, by cooked ones too (40-byte rows between
/// ImportOffset and ExportOffset, docs/unreal.md) while their object version is 1018 like 5.7's:
/// so the row size is read from the layout (the import map ends where the export map starts)
/// when that is consistent, else from the versions.
fn import_row(s: &Summary, head: &Head, ue5: i32) -> u64 {
    let optional = if ue5 >= ue5::OPTIONAL_RESOURCES { 4 } else { 0 };
    let editor = s.package_flags & 0x8000_0000 == 0;
    let by_version = 28
        + optional
        + if editor && head.ue4() >= ue4v::NON_OUTER_PACKAGE_IMPORT {
            8
        } else {
            0
        };
    if s.import_count > 0 && s.export_offset > s.import_offset {
        // In i64: hostile offsets (a negative import offset) overflow an i32 difference.
        let span = (s.export_offset as i64 - s.import_offset as i64) as u64;
        let n = s.import_count as u64;
        let row = span / n;
        if span % n == 0 && (row == 28 + optional || row == 36 + optional) {
            return row;
        }
    }
    by_version
}

/// Parses a legacy package header. A versioned package states its object versions, which decide
/// the layout; a cooked, unversioned summary carries none, so each summary layout is tried and
/// the one whose sections line up is kept (notes §1.1 heuristic: summary end == NameOffset,
/// export-map end == the next section, Export[0].SerialOffset == TotalHeaderSize == .uasset
/// length).
pub fn parse_legacy(
    uasset: &dyn Source,
    limits: &Limits,
    forced: Option<&ForcedVersion>,
) -> Result<Package> {
    // A cut or malformed package whose reader named no more precise field was in the summary.
    parse_legacy_inner(uasset, limits, forced).map_err(|e| match e.kind {
        crate::io::ErrorKind::Truncated | crate::io::ErrorKind::Malformed => {
            e.at_field("unreal/FPackageFileSummary")
        }
        _ => e,
    })
}

fn parse_legacy_inner(
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
    if !(-9..=-2).contains(&legacy) {
        return Err(Error::unsupported(format!(
            "package LegacyFileVersion {legacy}; Texscope reads -2 to -9 (UE 4.0 to UE5){}",
            if legacy >= 0 {
                ": this is an Unreal Engine 3 package"
            } else {
                ""
            }
        ))
        .at_field("unreal/FPackageFileSummary/LegacyFileVersion")
        .in_file(uasset.name()));
    }
    if legacy != -4 {
        c.i32()?; // LegacyUE3Version
    }
    let file_ue4 = c.i32()?;
    let file_ue5 = if legacy <= -8 { c.i32()? } else { 0 };
    let licensee = c.i32()?;
    let mut head = Head {
        legacy,
        file_ue4,
        file_ue5,
        licensee,
        layout_ue4: ue4v::NEWEST,
    };
    let stated;
    let candidates: &[Layout] = if head.unversioned() {
        CANDIDATES
    } else {
        // A versioned package: its FileVersionUE5 (0 before UE5) is the layout.
        check_known_versions(file_ue4, file_ue5).map_err(|e| e.in_file(uasset.name()))?;
        if file_ue4 != 0 && file_ue4 < ue4v::OLDEST_LOADABLE_PACKAGE {
            return Err(Error::unsupported(format!(
                "FileVersionUE4 {file_ue4} is older than the oldest UE4 package version ({}, \
                 UE 4.0); Texscope reads UE4 object versions {} to {} and UE5 1000 to {NEWEST_UE5}",
                ue4v::OLDEST_LOADABLE_PACKAGE,
                ue4v::OLDEST_LOADABLE_PACKAGE,
                ue4v::NEWEST
            ))
            .at_field("unreal/FPackageFileSummary/FileVersionUE4")
            .in_file(uasset.name()));
        }
        // (A versioned package stating no UE4 version is read as the newest, as before.)
        let ue4 = if file_ue4 > 0 { file_ue4 } else { ue4v::NEWEST };
        stated = [Layout {
            ue4,
            ..Layout::ue5(file_ue5.max(0), "")
        }];
        &stated
    };
    let mut last_err = None;
    for &Layout {
        ue5,
        ue4: layout_ue4,
        label: guess,
        ..
    } in candidates
    {
        if head.unversioned()
            && ((legacy <= -8) != (ue5 > 0)
                || forced.is_some_and(|f| f.ue5 != ue5 || f.ue4 != layout_ue4))
        {
            continue;
        }
        head.layout_ue4 = layout_ue4;
        let s = match read_summary(&mut c, &head, ue5) {
            Ok(s) => s,
            Err(e) => {
                last_err = Some(e.at_field("unreal/FPackageFileSummary"));
                continue;
            }
        };
        if s.end != s.name_offset as u64 || s.export_count < 0 || s.import_count < 0 {
            continue;
        }
        let exports = match read_exports(&mut c, &s, &head, ue5) {
            Ok(e) => e,
            Err(e) => {
                last_err = Some(e.at_field("unreal/FObjectExport"));
                continue;
            }
        };
        if !s.after_exports.iter().any(|&o| o > 0 && c.pos == o as u64)
            && s.after_exports.iter().any(|&o| o > 0)
        {
            continue;
        }
        if let Some(e0) = exports.first() {
            if e0.serial_offset != s.total_header_size {
                continue;
            }
        }
        // The older UE4 rows differ from their neighbours only in the name map (hashes from
        // NAME_HASHES_SERIALIZED) in places: a cooked name map ends where the import map starts.
        if head.unversioned()
            && layout_ue4 < ue4v::NEWEST
            && !names_end_at_imports(&mut c, &s, &head)
        {
            continue;
        }
        let row = import_row(&s, &head, ue5);
        // Cooked imports carry a PackageName from UE 5.8 on (import_row): the one layout fact
        // that tells 5.8 from 5.7, whose object version is the same 1018.
        let cooked_package_names = row >= 36 && s.package_flags & 0x8000_0000 != 0;
        let label = match (head.unversioned(), cooked_package_names) {
            (true, true) => "UE5.8+".to_string(),
            (true, false) => guess.to_string(),
            (false, true) => format!("UE5.8+, {}", version_label(&head)),
            (false, false) => version_label(&head),
        };
        let mut pkg = finish_legacy(&mut c, s, exports, (head, ue5), row, &label, limits)?;
        if head.unversioned() && layout_ue4 < ue4v::NEWEST {
            pkg.versions.layout_ue4 = layout_ue4;
        }
        if let Some(f) = forced.filter(|_| head.unversioned()) {
            pkg.engine_guess = format!("{} (forced; the layout detected alone: {label})", f.label);
            pkg.forced_old_tail = (f.major == 4).then_some(f.minor < 20);
            pkg.versions.forced = Some((f.major, f.minor));
        }
        return Ok(pkg);
    }
    if let Some(f) = forced.filter(|_| head.unversioned()) {
        return Err(Error::unsupported(format!(
            "the package summary does not line up as {} (forced Unreal version); open it \
             without forcing a version to detect its layout",
            f.label
        ))
        .in_file(uasset.name()));
    }
    if !head.unversioned() {
        return Err(last_err
            .unwrap_or_else(|| {
                Error::unsupported(format!(
                    "the versioned package summary (UE4 object version {file_ue4}, UE5 {file_ue5}) \
                     does not line up: its sections do not follow each other as that version \
                     writes them"
                ))
            })
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

/// Whether the name map, read as `head`'s version writes it, ends exactly where the import map
/// starts (cooked packages have no gatherable-text section between them).
fn names_end_at_imports(c: &mut Cursor, s: &Summary, head: &Head) -> bool {
    if s.name_count < 0 || s.import_offset < s.name_offset {
        return false;
    }
    c.pos = s.name_offset as u64;
    for _ in 0..s.name_count {
        if c.fstring().is_err() {
            return false;
        }
        if head.ue4() >= ue4v::NAME_HASHES_SERIALIZED && c.skip(4).is_err() {
            return false;
        }
        if c.pos > s.import_offset as u64 {
            return false;
        }
    }
    c.pos == s.import_offset as u64
}

/// "UE5 object version 1018 (stated)" and the like, for a versioned package.
fn version_label(head: &Head) -> String {
    if head.file_ue5 > 0 {
        format!(
            "UE5 (object versions UE4 {} / UE5 {}, stated)",
            head.file_ue4, head.file_ue5
        )
    } else {
        format!("UE4 (object version {}, stated)", head.file_ue4)
    }
}

fn finish_legacy(
    c: &mut Cursor,
    s: Summary,
    raw: Vec<RawExport>,
    (head, ue5): (Head, i32),
    import_size: u64,
    guess: &str,
    limits: &Limits,
) -> Result<Package> {
    limits.check_count(s.name_count as u64, 6, c.end, "name map")?;
    c.pos = s.name_offset as u64;
    let mut names = Vec::with_capacity(s.name_count as usize);
    for _ in 0..s.name_count {
        names.push(c.fstring().map_err(|e| e.at_field("unreal/FNameEntry"))?);
        if head.ue4() >= ue4v::NAME_HASHES_SERIALIZED {
            c.skip(4)?; // two u16 hashes
        }
    }
    // Imports: ClassPackage, ClassName, OuterIndex, ObjectName (at 20) [+ PackageName]
    // [+ bImportOptional], `import_size` bytes each (import_row).
    limits.check_count(s.import_count as u64, import_size, c.end, "import map")?;
    let mut import_names = Vec::with_capacity(s.import_count as usize);
    for i in 0..s.import_count as u64 {
        c.pos = s.import_offset as u64 + i * import_size + 20;
        let idx = c.i32().map_err(|e| e.at_field("unreal/FObjectImport"))?;
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
        // Where the export data is: a split package's .uasset stops at TotalHeaderSize and the
        // exports continue in the .uexp (cooked with the event-driven loader, UE 4.16 on); an
        // editor package, and a cooked one from before the split (UE 4.0-4.15, or cooked
        // without it), holds them in the same file after the header. A cooked .uasset that goes
        // on past the header but stops before this export's end is a split one (a .uasset
        // padded or cut short): the .uexp is asked for.
        let cooked = s.package_flags & PKG_FILTER_EDITOR_ONLY != 0;
        let end = off.saturating_add(e.serial_size as u64);
        let in_uexp = off >= header && (c.src.len() <= header || (cooked && c.src.len() < end));
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
        legacy_version: head.legacy,
        thumbnail_offset: s.thumbnail_offset,
        payload_toc_offset: s.payload_toc_offset,
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
        legacy_version: 0,
        thumbnail_offset: 0,
        payload_toc_offset: -1,
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
        c.skip(12)?; // name number, OuterIndex
        let class = super::script::known_class(c.u64()?);
        let start = pos_of(off);
        if start < 0 || size < 0 {
            return Err(Error::malformed(format!(
                "zen export {i} has an impossible serial range"
            )));
        }
        out.push(Export {
            name: names.get(name as usize).cloned().unwrap_or_default(),
            class: class.map(str::to_string),
            in_uexp: false,
            start: start as u64,
            size: size as u64,
            coord_delta: off.saturating_sub(start),
        });
    }
    Ok(out)
}

/// FZenPackageVersioningInfo (CUE4Parse FZenPackageSummary.cs; UE AsyncLoading2): u32
/// ZenVersion, i32 FileVersionUE4, i32 FileVersionUE5, i32 Licensee, custom versions (count +
/// 20-byte rows). Returns (ZenVersion, UE4, UE5, licensee, custom version count).
fn read_zen_versioning(c: &mut Cursor) -> Result<(u32, i32, i32, i32, u32)> {
    let zen = c.u32()?;
    let ue4 = c.i32()?;
    let ue5 = c.i32()?;
    let licensee = c.i32()?;
    let n = c.i32()?;
    if !(0..=4096).contains(&n) {
        return Err(Error::malformed(format!(
            "zen versioning info lists {n} custom versions"
        )));
    }
    c.skip(n as u64 * 20)?;
    Ok((zen, ue4, ue5, licensee, n as u32))
}

/// One way a UE5 zen header can continue after its 40 fixed bytes (notes §2; docs/unreal.md).
#[derive(Debug, Clone, Copy)]
struct ZenLayout {
    /// DependencyBundleHeaders/Entries + ImportedPackageNames offsets (5.3+) instead of one
    /// GraphDataOffset (5.0-5.2).
    since_5_3: bool,
    /// CellImportMapOffset + CellExportMapOffset (UE5 >= VERSE_CELLS, 5.6+), after the
    /// versioning info when there is one.
    cells: bool,
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
    // The fixed fields end at byte 44 (before 5.3; 52 since), and HeaderSize counts the whole
    // header (name batch, export map...): a smaller one, as in a file of zeros, is no zen header.
    if versioned > 1 || header_size < 44 || header_size > c.end {
        return Err(Error::not_recognised(
            "neither a legacy package (no 0x9E2A83C1 tag) nor a zen package header",
        ));
    }
    // Which layout follows is not stated by an unversioned header; the name batch's
    // hash-algorithm id tells which one lines up. A versioned header says its UE5 version, which
    // decides the cell offsets (UE5 >= VERSE_CELLS): in the UE 5.8 Tagged fixtures they follow
    // the versioning info.
    let mut found = None;
    let mut last_err = None;
    for layout in [
        ZenLayout {
            since_5_3: true,
            cells: false,
        },
        ZenLayout {
            since_5_3: true,
            cells: true,
        },
        ZenLayout {
            since_5_3: false,
            cells: false,
        },
    ] {
        c.pos = 40 + if layout.since_5_3 { 12 } else { 4 };
        let mut info = None;
        if versioned == 1 {
            match read_zen_versioning(c) {
                Ok(v) => {
                    if layout.cells != (v.2 >= ue5::VERSE_CELLS) {
                        continue;
                    }
                    info = Some(v);
                }
                Err(e) => {
                    last_err = Some(e);
                    continue;
                }
            }
        }
        if layout.cells {
            c.skip(8)?; // CellImportMapOffset, CellExportMapOffset
        }
        match read_name_batch5(c, limits) {
            Ok(names) => {
                found = Some((names, layout, info));
                break;
            }
            Err(e) => last_err = Some(e),
        }
    }
    let (names, layout, info) = found.ok_or_else(|| {
        Error::unsupported(format!(
            "zen package: no known UE5 header layout leads to its name batch{}",
            last_err.map(|e| format!(" ({e})")).unwrap_or_default()
        ))
    })?;
    // Only the layout that lines up says the versions truly: another one reads other bytes there.
    if let Some((_, ue4, ue5, _, _)) = info {
        check_known_versions(ue4, ue5)?;
    }
    let since_5_3 = layout.since_5_3;
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
    let mut versions = Versions::default();
    let mut ue5_version = 0;
    let guess = match info {
        Some((zen, ue4, ue5, licensee, n)) => {
            versions.file_ue4 = ue4;
            versions.file_ue5 = ue5;
            versions.licensee = licensee;
            versions.custom_versions = n;
            ue5_version = ue5;
            format!("UE5 (zen version {zen}, object versions UE4 {ue4} / UE5 {ue5}, stated)")
        }
        None => match (since_5_3, layout.cells, resources.is_some()) {
            (true, true, _) => "UE5.6+ (zen)".into(),
            (true, false, _) => "UE5.3-5.5 (zen)".into(),
            (false, _, true) => "UE5.2 (zen)".into(),
            (false, _, false) => "UE5.0-5.1 (zen)".into(),
        },
    };
    Ok(Package {
        flavor: Flavor::Zen5 { since_5_3 },
        names,
        exports,
        resources,
        bulk_data_start: 0,
        ue5_version,
        engine_guess: guess,
        package_flags,
        forced_old_tail: None,
        versions,
        legacy_version: 0,
        thumbnail_offset: 0,
        payload_toc_offset: -1,
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
        // 64 zero bytes once parsed as a zen package of no names and no exports, reported as
        // "no texture export" as though it were a package.
        let e = parse_zen(&BytesSource::new("e.uasset", vec![0u8; 64]), &l).unwrap_err();
        assert_eq!(e.kind, ErrorKind::NotRecognised, "{e}");
        assert!(e.to_string().contains("e.uasset"), "{e}");
    }
}
