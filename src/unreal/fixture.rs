//! Builds cooked UE5 texture packages byte for byte (UE5.2-5.5 legacy layout: .uasset + .uexp +
//! .ubulk, data-resource table, unversioned summary) and UE4.20-4.27 ones ([`Ue4Form`]: -7
//! summary, tagged properties, full FByteBulkData headers, absolute SkipOffset) from procedural
//! block images, for tests and demos. No public virtual texture exists (MANIFEST), so the VT reader is tested against these,
//! written from the layout in shared notes unreal-layout.md §1, §3, §5 — not from reading code.

use crate::codec::PixelFormat;
use crate::model::mip_dims;

/// The three files of a legacy package.
#[derive(Debug, Clone)]
pub struct PackageFiles {
    pub uasset: Vec<u8>,
    pub uexp: Vec<u8>,
    pub ubulk: Vec<u8>,
    /// The same package in UE5.3+ zen form (.uzenasset), sharing the .ubulk.
    pub uzenasset: Vec<u8>,
}

/// xorshift64*: deterministic fixture bytes without a dependency.
#[derive(Debug, Clone)]
pub struct Rng(pub u64);

impl Rng {
    pub fn next_u64(&mut self) -> u64 {
        let mut x = self.0.max(1);
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    pub fn fill(&mut self, out: &mut [u8]) {
        for c in out.chunks_mut(8) {
            let v = self.next_u64().to_le_bytes();
            c.copy_from_slice(&v[..c.len()]);
        }
    }
}

/// A `w` x `h` image of random blocks of `format` (any bytes are valid BC1-BC5 blocks; BC7 mode
/// bits pick any mode, which is all a layout test needs — expected pixels come from decoding the
/// same bytes).
pub fn random_surface(format: PixelFormat, w: u32, h: u32, rng: &mut Rng) -> Vec<u8> {
    let mut v = vec![0u8; format.surface_size(w, h) as usize];
    rng.fill(&mut v);
    v
}

/// The EPixelFormat name UE writes for a format.
pub fn pf_name(format: PixelFormat) -> &'static str {
    match format {
        PixelFormat::BC1 => "PF_DXT1",
        PixelFormat::BC2 => "PF_DXT3",
        PixelFormat::BC3 => "PF_DXT5",
        PixelFormat::BC4 => "PF_BC4",
        PixelFormat::BC5 => "PF_BC5",
        PixelFormat::BC6HU => "PF_BC6H",
        PixelFormat::BC7 => "PF_BC7",
        PixelFormat::RGBA16F => "PF_FloatRGBA",
        PixelFormat::R8 => "PF_G8",
        _ => "PF_B8G8R8A8",
    }
}

const STREAMED: u32 = 0x10501; // PayloadAtEndOfFile|PayloadInSeperateFile|Force_NOT_InlinePayload|NoOffsetFixUp
const INLINE: u32 = 0x48; // SingleUse|ForceInlinePayload

struct Row {
    offset: u64,
    size: u64,
    flags: u32,
    /// RawSize when it differs from `size` (compressed payloads).
    raw: Option<u64>,
    /// CookedIndex (UE5.2+ v2 data resources): the payload is in `Name.NNN.ubulk`.
    cooked: u8,
}

/// BULKDATA_SerializeCompressedZLIB.
const ZLIB: u32 = 0x2;

/// An FCompressedChunk stream (the layout `texture::inflate_chunks` documents): tag + chunk
/// size, totals, one size pair per chunk, then the zlib chunks.
pub fn compress_chunks(raw: &[u8], chunk: usize) -> Vec<u8> {
    let packed: Vec<Vec<u8>> = raw
        .chunks(chunk)
        .map(|c| miniz_oxide::deflate::compress_to_vec_zlib(c, 6))
        .collect();
    let mut out = Vec::new();
    let mut put = |v: u64| out.extend_from_slice(&v.to_le_bytes());
    put(0x9E2A_83C1);
    put(chunk as u64);
    put(packed.iter().map(|p| p.len() as u64).sum());
    put(raw.len() as u64);
    for (p, c) in packed.iter().zip(raw.chunks(chunk)) {
        put(p.len() as u64);
        put(c.len() as u64);
    }
    for p in &packed {
        out.extend_from_slice(p);
    }
    out
}

/// A UE4 cooked package (4.20-4.27) instead of the UE5.2 form. Where each field comes from:
/// summary, export and import layout — notes §1.1/§1.2 for LegacyFileVersion -7 (no UE5 fields,
/// PackageGuid in exports, 28-byte imports); texture tail and i64 absolute SkipOffset — notes
/// §3.1; per-mip bCooked + FByteBulkData header + SizeX/Y/Z and bIsVirtual — notes §3.2; bulk
/// flags 0x10501 with NoOffsetFixUp from 4.26, 0x501 with offsets relative to
/// BulkDataStartOffset before (notes §4, the 4.18 sample's fix-up).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Ue4Form {
    /// 20..=27.
    pub minor: u32,
    /// Write FileVersionUE4 (522 for 4.26+, 518 before: the last EUnrealEngineObjectUE4Version
    /// of each release) and SavedByEngineVersion 4.minor, as an uncooked-version-stamped package
    /// would; cooked packages leave both zero (notes §1.1).
    pub versioned: bool,
    /// VTs only: tiles as ZippedGPU (codec 5, one zlib stream per tile layer), as UE4's builder
    /// writes them with the project setting bVirtualTextureEnableCompressZlib.
    pub zlib_tiles: bool,
}

impl Ue4Form {
    fn file_version(self) -> i32 {
        if !self.versioned {
            0
        } else if self.minor >= 26 {
            522
        } else {
            518
        }
    }
}

/// Writes one export's data and collects names and bulk rows for the header.
struct Builder {
    names: Vec<String>,
    rows: Vec<Row>,
    uexp: Vec<u8>,
    ubulk: Vec<u8>,
    /// Extra EBulkDataFlags and CookedIndex of streamed rows (bulk-file naming variants).
    stream_flags: u32,
    stream_cooked: u8,
    /// Streamed rows go to the end of the .uexp (PayloadAtEndOfFile alone) instead of a .ubulk.
    stream_at_end: bool,
    tail: Vec<u8>,
    ue4: Option<Ue4Form>,
    /// UE4: .uexp positions of i64 fields holding a combined-file offset (TotalHeaderSize + the
    /// .uexp position given), patched once the header size is known.
    abs_patches: Vec<(usize, u64)>,
    /// UE4 before 4.26: .uexp positions of i64 .ubulk offsets stored minus BulkDataStartOffset.
    fixup_patches: Vec<(usize, u64)>,
    /// Where the .ubulk's first byte lies in the real file (0; past 4 GiB for a sparse test).
    ubulk_base: u64,
}

impl Builder {
    fn new() -> Self {
        Builder {
            names: Vec::new(),
            rows: Vec::new(),
            uexp: Vec::new(),
            ubulk: Vec::new(),
            stream_flags: 0,
            stream_cooked: 0,
            stream_at_end: false,
            tail: Vec::new(),
            ue4: None,
            abs_patches: Vec::new(),
            fixup_patches: Vec::new(),
            ubulk_base: 0,
        }
    }

    fn ue4(form: Ue4Form) -> Self {
        let mut b = Builder::new();
        b.ue4 = Some(form);
        b
    }

    /// A UE4 FByteBulkData header (notes §4: flags, i32 count, i32 size, i64 offset); the
    /// offset is patched later.
    fn ue4_header(&mut self, flags: u32, size: usize) -> usize {
        self.u32(flags);
        self.u32(size as u32);
        self.u32(size as u32);
        let at = self.uexp.len();
        self.i64(0);
        at
    }
    fn name(&mut self, s: &str) -> i32 {
        match self.names.iter().position(|n| n == s) {
            Some(i) => i as i32,
            None => {
                self.names.push(s.to_string());
                self.names.len() as i32 - 1
            }
        }
    }
    fn u32(&mut self, v: u32) {
        self.uexp.extend_from_slice(&v.to_le_bytes());
    }
    fn i64(&mut self, v: i64) {
        self.uexp.extend_from_slice(&v.to_le_bytes());
    }
    fn fname(&mut self, s: &str) {
        let i = self.name(s);
        self.u32(i as u32);
        self.u32(0);
    }
    fn fstring(&mut self, s: &str) {
        put_fstring(&mut self.uexp, s);
    }
    fn u32_array(&mut self, v: &[u32]) {
        self.u32(v.len() as u32);
        for &x in v {
            self.u32(x);
        }
    }
    /// An i32 data-resource index followed by the payload (UE5.2+ inline bulk data); in UE4 a
    /// full header whose OffsetInFile is the payload's own combined-file position.
    fn inline(&mut self, bytes: &[u8]) {
        if self.ue4.is_some() {
            let at = self.ue4_header(INLINE, bytes.len());
            self.abs_patches.push((at, self.uexp.len() as u64));
            self.uexp.extend_from_slice(bytes);
            return;
        }
        self.rows.push(Row {
            offset: self.uexp.len() as u64 + 4,
            size: bytes.len() as u64,
            flags: INLINE,
            raw: None,
            cooked: 0,
        });
        self.u32(self.rows.len() as u32 - 1);
        self.uexp.extend_from_slice(bytes);
    }
    /// An inline payload stored as a zlib FCompressedChunk stream in `chunk`-byte pieces.
    fn inline_zlib(&mut self, bytes: &[u8], chunk: usize) {
        let stream = compress_chunks(bytes, chunk);
        self.rows.push(Row {
            offset: self.uexp.len() as u64 + 4,
            size: stream.len() as u64,
            flags: INLINE | ZLIB,
            raw: Some(bytes.len() as u64),
            cooked: 0,
        });
        self.u32(self.rows.len() as u32 - 1);
        self.uexp.extend_from_slice(&stream);
    }

    /// An i32 data-resource index whose payload is appended to the .ubulk.
    fn streamed(&mut self, bytes: &[u8]) {
        if let Some(form) = self.ue4 {
            let offset = self.ubulk.len() as u64;
            if form.minor >= 26 {
                let at = self.ue4_header(STREAMED, bytes.len());
                self.uexp[at..at + 8].copy_from_slice(&(offset as i64).to_le_bytes());
            } else {
                let at = self.ue4_header(STREAMED & !0x10000, bytes.len());
                self.fixup_patches.push((at, offset));
            }
            self.ubulk.extend_from_slice(bytes);
            return;
        }
        if self.stream_at_end {
            // Offset relative to BulkDataStartOffset (no NoOffsetFixUp), which is the end of
            // the export data, where the tail starts.
            self.rows.push(Row {
                offset: self.tail.len() as u64,
                size: bytes.len() as u64,
                flags: 0x1,
                raw: None,
                cooked: 0,
            });
            self.u32(self.rows.len() as u32 - 1);
            self.tail.extend_from_slice(bytes);
            return;
        }
        self.rows.push(Row {
            offset: self.ubulk_base + self.ubulk.len() as u64,
            size: bytes.len() as u64,
            flags: STREAMED | self.stream_flags,
            raw: None,
            cooked: self.stream_cooked,
        });
        self.u32(self.rows.len() as u32 - 1);
        self.ubulk.extend_from_slice(bytes);
    }

    /// Property stub and the UE5.3+ tail before the platform data (notes §3.1: "00000000 0500
    /// 0500 01000000 01000000"), then FName + relative SkipOffset + 16 placeholder bytes.
    /// Returns the SkipOffset position to patch.
    fn begin_platform_data(&mut self, pf: &str, size_x: u32, size_y: u32, packed: u32) -> usize {
        if self.ue4.is_some() {
            // Tagged properties ending at FName "None", then notes §3.1's UE4.18-5.1 tail
            // "00000000 0100 0100 01000000", the FName and an i64 absolute SkipOffset.
            self.fname("None");
            self.uexp
                .extend_from_slice(&[0, 0, 0, 0, 1, 0, 1, 0, 1, 0, 0, 0]);
            self.fname(pf);
            let skip_at = self.uexp.len();
            self.i64(0);
            self.u32(size_x);
            self.u32(size_y);
            self.u32(packed);
            self.fstring(pf);
            return skip_at;
        }
        self.uexp.extend_from_slice(&[0, 0, 0, 0]); // unversioned header stub (no properties)
        self.uexp
            .extend_from_slice(&[0, 0, 0, 0, 5, 0, 5, 0, 1, 0, 0, 0, 1, 0, 0, 0]);
        self.fname(pf);
        let skip_at = self.uexp.len();
        self.i64(0);
        self.uexp.extend_from_slice(&[0; 16]);
        self.u32(size_x);
        self.u32(size_y);
        self.u32(packed);
        self.fstring(pf);
        skip_at
    }

    fn end_platform_data(&mut self, skip_at: usize) {
        if self.ue4.is_some() {
            self.abs_patches.push((skip_at, self.uexp.len() as u64));
        } else {
            let rel = (self.uexp.len() - skip_at) as i64;
            self.uexp[skip_at..skip_at + 8].copy_from_slice(&rel.to_le_bytes());
        }
        self.fname("None");
        self.uexp.extend_from_slice(&0x9E2A_83C1u32.to_le_bytes());
    }

    /// Writes the .uasset: UE5 object version 1009 summary (LegacyFileVersion -8, unversioned),
    /// name map, two imports, one export, depends, data-resource table v2 (notes §1); in UE4
    /// form the -7 summary without UE5 fields and without a data-resource table.
    fn finish(mut self, object: &str, class: &str) -> PackageFiles {
        let ue4 = self.ue4;
        for n in [
            "/Script/CoreUObject",
            "Package",
            "/Script/Engine",
            "Class",
            class,
            object,
            "None",
        ] {
            self.name(n);
        }
        let mut h = Vec::new();
        let mut patches: Vec<(usize, &str)> = Vec::new();
        let p32 = |h: &mut Vec<u8>, v: i32| h.extend_from_slice(&v.to_le_bytes());
        p32(&mut h, 0x9E2A_83C1u32 as i32);
        let versions: &[i32] = match ue4 {
            // Legacy, UE3 (864 as UE4 writes it), UE4, licensee, custom-version count
            Some(f) => &[-7, 864, f.file_version(), 0, 0],
            None => &[-8, 0, 0, 0, 0, 0], // Legacy, UE3, UE4, UE5, licensee, custom versions
        };
        for &v in versions {
            p32(&mut h, v);
        }
        patches.push((h.len(), "total"));
        p32(&mut h, 0);
        put_fstring(&mut h, "None");
        // FilterEditorOnly|Cooked, UE5: |UnversionedProperties (UE4 fixtures have tagged ones)
        p32(
            &mut h,
            if ue4.is_some() {
                0x8000_0200u32
            } else {
                0x8000_2200
            } as i32,
        );
        p32(&mut h, self.names.len() as i32);
        patches.push((h.len(), "names"));
        p32(&mut h, 0);
        if ue4.is_none() {
            p32(&mut h, 0); // SoftObjectPathsCount
            patches.push((h.len(), "names"));
            p32(&mut h, 0);
        }
        p32(&mut h, 0); // GatherableTextData
        p32(&mut h, 0);
        p32(&mut h, 1); // ExportCount
        patches.push((h.len(), "exports"));
        p32(&mut h, 0);
        p32(&mut h, 2); // ImportCount
        patches.push((h.len(), "imports"));
        p32(&mut h, 0);
        patches.push((h.len(), "depends"));
        p32(&mut h, 0);
        for _ in 0..4 {
            p32(&mut h, 0); // soft package refs, searchable names, thumbnails
        }
        h.extend_from_slice(&[0x5A; 16]); // Guid
        p32(&mut h, 1); // generations
        p32(&mut h, 1);
        p32(&mut h, self.names.len() as i32);
        for _ in 0..2 {
            // Saved-by / compatible engine version: Major, Minor, Patch, Changelist, Branch "".
            let minor = ue4.filter(|f| f.versioned).map_or(0, |f| f.minor as u16);
            let major = if minor > 0 { 4u16 } else { 0 };
            h.extend_from_slice(&major.to_le_bytes());
            h.extend_from_slice(&minor.to_le_bytes());
            h.extend_from_slice(&[0; 6]);
            p32(&mut h, 0);
        }
        for _ in 0..4 {
            p32(&mut h, 0); // CompressionFlags, chunks, PackageSource, AdditionalPackagesToCook
        }
        patches.push((h.len(), "registry"));
        p32(&mut h, 0);
        patches.push((h.len(), "bulkstart"));
        h.extend_from_slice(&[0; 8]);
        for _ in 0..4 {
            p32(&mut h, 0); // WorldTileInfo, ChunkIds, preload count/offset
        }
        if ue4.is_none() {
            p32(&mut h, 0); // NamesReferencedFromExportDataCount
            h.extend_from_slice(&(-1i64).to_le_bytes()); // PayloadTocOffset
            patches.push((h.len(), "resources"));
            p32(&mut h, 0);
        }
        let mut at = std::collections::HashMap::new();
        at.insert("names", h.len());
        for n in &self.names {
            put_fstring(&mut h, n);
            h.extend_from_slice(&[0; 4]);
        }
        at.insert("imports", h.len());
        let idx = |b: &mut Builder, s: &str| b.name(s);
        let imports = [
            ("/Script/CoreUObject", "Package", 0, "/Script/Engine"),
            ("/Script/CoreUObject", "Class", -1, class),
        ];
        for (pkg, cls, outer, obj) in imports {
            for v in [idx(&mut self, pkg), 0, idx(&mut self, cls), 0, outer] {
                p32(&mut h, v);
            }
            p32(&mut h, idx(&mut self, obj));
            p32(&mut h, 0);
            if ue4.is_none() {
                p32(&mut h, 0); // bImportOptional
            }
        }
        at.insert("exports", h.len());
        p32(&mut h, -2); // ClassIndex -> import 1
        for _ in 0..3 {
            p32(&mut h, 0);
        }
        p32(&mut h, self.name(object));
        p32(&mut h, 0);
        p32(&mut h, 0x8); // RF_Standalone-ish flags, not read
        let serial_size_at = h.len();
        h.extend_from_slice(&[0; 16]); // SerialSize, SerialOffset (patched)
        for _ in 0..3 {
            p32(&mut h, 0);
        }
        if ue4.is_some() {
            h.extend_from_slice(&[0; 16]); // PackageGuid (UE5 < 1005)
        } else {
            p32(&mut h, 0); // IsInheritedInstance
        }
        p32(&mut h, 0); // PackageFlags
        p32(&mut h, 0); // NotAlwaysLoadedForEditorGame
        p32(&mut h, 1); // IsAsset
        if ue4.is_none() {
            p32(&mut h, 0); // GeneratePublicHash
        }
        for _ in 0..5 {
            p32(&mut h, -1);
        }
        at.insert("depends", h.len());
        p32(&mut h, 0);
        at.insert("registry", h.len());
        p32(&mut h, 0);
        at.insert("resources", h.len());
        if ue4.is_none() {
            p32(&mut h, 2);
            p32(&mut h, self.rows.len() as i32);
        }
        for r in self.rows.iter().filter(|_| ue4.is_none()) {
            p32(&mut h, 0);
            h.push(r.cooked); // CookedIndex
            h.extend_from_slice(&(r.offset as i64).to_le_bytes());
            h.extend_from_slice(&(-1i64).to_le_bytes());
            h.extend_from_slice(&(r.size as i64).to_le_bytes());
            h.extend_from_slice(&(r.raw.unwrap_or(r.size) as i64).to_le_bytes());
            p32(&mut h, 1);
            p32(&mut h, r.flags as i32);
        }
        let total = h.len();
        at.insert("total", total);
        at.insert("bulkstart", total + self.uexp.len() - 4);
        for (pos, what) in patches {
            let v = at[what];
            if what == "bulkstart" {
                h[pos..pos + 8].copy_from_slice(&(v as i64).to_le_bytes());
            } else {
                h[pos..pos + 4].copy_from_slice(&(v as i32).to_le_bytes());
            }
        }
        let size = self.uexp.len() as i64 - 4;
        if !self.tail.is_empty() {
            let at = self.uexp.len() - 4;
            let tail = std::mem::take(&mut self.tail);
            self.uexp.splice(at..at, tail);
        }
        h[serial_size_at..serial_size_at + 8].copy_from_slice(&size.to_le_bytes());
        h[serial_size_at + 8..serial_size_at + 16].copy_from_slice(&(total as i64).to_le_bytes());
        let bulk_start = at["bulkstart"] as i64;
        for (pos, v) in std::mem::take(&mut self.abs_patches) {
            let v = total as i64 + v as i64;
            self.uexp[pos..pos + 8].copy_from_slice(&v.to_le_bytes());
        }
        for (pos, v) in std::mem::take(&mut self.fixup_patches) {
            let v = v as i64 - bulk_start;
            self.uexp[pos..pos + 8].copy_from_slice(&v.to_le_bytes());
        }
        let uzenasset = match ue4 {
            Some(f) if f.minor >= 26 => self.zen4(object, total as u32),
            // IoStore (zen) packages exist from UE4.26.
            Some(_) => Vec::new(),
            None => self.zen(object, total as u32),
        };
        PackageFiles {
            uasset: h,
            uexp: self.uexp,
            ubulk: self.ubulk,
            uzenasset: Vec::new(),
        }
        .with_zen(uzenasset)
    }

    /// UE4.26/4.27 zen package (notes §2, "UE4.27 zen header"): the 64-byte header, the name
    /// map as BE-u16-length-prefixed strings, empty hashes and imports, one 72-byte export whose
    /// CookedSerialOffset is the legacy absolute offset (= `cooked_header_size`), then the
    /// export data (the .uexp without its tag) right after the (empty) graph data. Bulk headers
    /// inside keep their legacy offsets, as notes §2 says UE4.26/4.27 zen data does.
    fn zen4(&mut self, object: &str, cooked_header_size: u32) -> Vec<u8> {
        let obj = self.name(object) as u32;
        let mut z = vec![0u8; 64];
        for n in &self.names {
            z.extend_from_slice(&(n.len() as u16).to_be_bytes());
            z.extend_from_slice(n.as_bytes());
        }
        let names_end = z.len() as u32;
        let export_map = names_end;
        self.zen_export(&mut z, cooked_header_size as u64, obj);
        let bundles = z.len() as u32;
        z.extend_from_slice(&[0, 0, 0, 0, 1, 0, 0, 0]); // one bundle: first entry 0, 1 entry
        z.extend_from_slice(&[0, 0, 0, 0, 1, 0, 0, 0]); // export 0, Serialize
        let graph = z.len() as u32;
        let header = [
            self.name("None") as u32,
            0,
            self.name("None") as u32,
            0,
            0x8000_0200,
            cooked_header_size,
            64,
            names_end - 64,
            names_end,
            0,
            names_end,
            export_map,
            bundles,
            graph,
            0,
            0,
        ];
        self.zen_tail(z, &header)
    }

    /// One 72-byte zen export-map entry (notes §2): CookedSerialOffset, CookedSerialSize (the
    /// .uexp without its tag), ObjectName, then Outer, Class, Super, Template and the public
    /// hash (UE5) / global import index (UE4) all unset, ObjectFlags, FilterFlags, pad.
    fn zen_export(&self, z: &mut Vec<u8>, cooked_offset: u64, obj: u32) {
        z.extend_from_slice(&cooked_offset.to_le_bytes());
        z.extend_from_slice(&(self.uexp.len() as u64 - 4).to_le_bytes());
        z.extend_from_slice(&obj.to_le_bytes());
        z.extend_from_slice(&0u32.to_le_bytes());
        for _ in 0..5 {
            z.extend_from_slice(&u64::MAX.to_le_bytes());
        }
        z.extend_from_slice(&[0; 8]);
    }

    /// Writes the zen header's u32 fields over the start of `z` and appends the export data
    /// (the .uexp without its tag).
    fn zen_tail(&self, mut z: Vec<u8>, header: &[u32]) -> Vec<u8> {
        for (i, v) in header.iter().enumerate() {
            z[i * 4..i * 4 + 4].copy_from_slice(&v.to_le_bytes());
        }
        z.extend_from_slice(&self.uexp[..self.uexp.len() - 4]);
        z
    }

    /// UE5.3+ zen package (notes §2): 52-byte header, name batch, padded BulkDataMap, one
    /// 72-byte export, one bundle entry, then the export data (the .uexp without its tag).
    fn zen(&mut self, object: &str, cooked_header_size: u32) -> Vec<u8> {
        let obj = self.name(object) as u32;
        let mut z = vec![0u8; 52];
        z.extend_from_slice(&(self.names.len() as u32).to_le_bytes());
        let bytes: usize = self.names.iter().map(|n| n.len()).sum();
        z.extend_from_slice(&(bytes as u32).to_le_bytes());
        z.extend_from_slice(&0xC164_0000u64.to_le_bytes());
        z.extend(std::iter::repeat_n(0u8, self.names.len() * 8)); // hashes: not checked
        for n in &self.names {
            z.extend_from_slice(&(n.len() as u16).to_be_bytes());
        }
        for n in &self.names {
            z.extend_from_slice(n.as_bytes());
        }
        z.extend_from_slice(&0u64.to_le_bytes()); // pad size 0
        z.extend_from_slice(&(self.rows.len() as i64 * 32).to_le_bytes());
        for r in &self.rows {
            z.extend_from_slice(&r.offset.to_le_bytes());
            z.extend_from_slice(&u64::MAX.to_le_bytes());
            z.extend_from_slice(&r.size.to_le_bytes());
            z.extend_from_slice(&r.flags.to_le_bytes());
            z.extend_from_slice(&[r.cooked, 0, 0, 0]); // CookedIndex + pad
        }
        let hashes = z.len() as u32;
        let export_map = hashes;
        self.zen_export(&mut z, 0, obj);
        let bundles = z.len() as u32;
        z.extend_from_slice(&[0, 0, 0, 0, 1, 0, 0, 0]); // export 0, Serialize
        let end = z.len() as u32;
        let header = [
            0,
            end,
            self.name("None") as u32,
            0,
            0x8000_2200,
            cooked_header_size,
            hashes,
            hashes,
            export_map,
            bundles,
            end,
            end,
            end,
        ];
        self.zen_tail(z, &header)
    }
}

impl PackageFiles {
    fn with_zen(mut self, z: Vec<u8>) -> Self {
        self.uzenasset = z;
        self
    }
}

fn put_fstring(out: &mut Vec<u8>, s: &str) {
    out.extend_from_slice(&(s.len() as i32 + 1).to_le_bytes());
    out.extend_from_slice(s.as_bytes());
    out.push(0);
}

/// A classic cooked Texture2D: `mips` levels of random `format` blocks, the first `streamed` in
/// the .ubulk (concatenated in chain order from 0) and the rest inline. Returns the files and
/// each mip's bytes.
pub fn classic_texture(
    name: &str,
    format: PixelFormat,
    width: u32,
    height: u32,
    mips: u32,
    streamed: u32,
    rng: &mut Rng,
) -> (PackageFiles, Vec<Vec<u8>>) {
    classic_texture_with(name, format, width, height, mips, streamed, |_, w, h| {
        random_surface(format, w, h, rng)
    })
}

/// [`classic_texture`] with each mip's blocks from `surface(mip, width, height)` (the page's
/// demos draw a picture instead of random blocks).
pub fn classic_texture_with(
    name: &str,
    format: PixelFormat,
    width: u32,
    height: u32,
    mips: u32,
    streamed: u32,
    surface: impl FnMut(u32, u32, u32) -> Vec<u8>,
) -> (PackageFiles, Vec<Vec<u8>>) {
    let size = (width, height);
    classic_build(Builder::new(), name, format, size, mips, streamed, surface)
}

fn classic_build(
    mut b: Builder,
    name: &str,
    format: PixelFormat,
    (width, height): (u32, u32),
    mips: u32,
    streamed: u32,
    mut surface: impl FnMut(u32, u32, u32) -> Vec<u8>,
) -> (PackageFiles, Vec<Vec<u8>>) {
    let pf = pf_name(format);
    let skip_at = b.begin_platform_data(pf, width, height, 1);
    b.u32(0); // FirstMipToSerialize
    b.u32(mips);
    let mut data = Vec::new();
    for m in 0..mips {
        let (w, h, _) = mip_dims(width, height, 1, m);
        let bytes = surface(m, w, h);
        if b.ue4.is_some() {
            b.u32(1); // bCooked (UE4 FTexture2DMipMap, notes §3.2.5)
        }
        if m < streamed {
            b.streamed(&bytes);
        } else {
            b.inline(&bytes);
        }
        b.u32(w);
        b.u32(h);
        b.u32(1);
        data.push(bytes);
    }
    b.u32(0); // bIsVirtual
    b.end_platform_data(skip_at);
    (b.finish(name, "Texture2D"), data)
}

/// [`classic_texture`] whose streamed mips carry `extra_flags` (e.g. MemoryMappedPayload 0x1000:
/// `Name.m.ubulk`) and CookedIndex `cooked_index` (non-zero: `Name.NNN.ubulk`); `files.ubulk`
/// holds that file's bytes.
/// Where [`classic_texture_bulk_form`] puts the streamed mips.
#[derive(Debug, Clone, Copy)]
pub enum BulkForm {
    /// A separate file, rows carrying `extra_flags` (e.g. MemoryMappedPayload 0x1000:
    /// `Name.m.ubulk`) and CookedIndex `cooked_index` (non-zero: `Name.NNN.ubulk`).
    Separate { extra_flags: u32, cooked_index: u8 },
    /// PayloadAtEndOfFile alone: after the export data in the .uexp (no .ubulk).
    AtEndOfFile,
    /// A UE4 cooked package of this form (see [`Ue4Form`]): streamed mips in the .ubulk behind
    /// full FByteBulkData headers.
    Ue4(Ue4Form),
    /// A plain separate file whose rows point this many bytes further: `files.ubulk` holds the
    /// bytes that belong at that offset of the real .ubulk (a sparse file past 4 GiB, issue 8).
    Far(u64),
}

/// [`classic_texture`] with the streamed mips in `form`; `files.ubulk` holds the separate
/// file's bytes.
pub fn classic_texture_bulk_form(
    name: &str,
    format: PixelFormat,
    (width, height): (u32, u32),
    (mips, streamed): (u32, u32),
    form: BulkForm,
    rng: &mut Rng,
) -> (PackageFiles, Vec<Vec<u8>>) {
    let mut b = match form {
        BulkForm::Ue4(f) => Builder::ue4(f),
        _ => Builder::new(),
    };
    match form {
        BulkForm::Ue4(_) => {}
        BulkForm::Separate {
            extra_flags,
            cooked_index,
        } => {
            b.stream_flags = extra_flags;
            b.stream_cooked = cooked_index;
        }
        BulkForm::AtEndOfFile => b.stream_at_end = true,
        BulkForm::Far(base) => b.ubulk_base = base,
    }
    classic_build(
        b,
        name,
        format,
        (width, height),
        mips,
        streamed,
        |_, w, h| random_surface(format, w, h, rng),
    )
}

/// A classic Texture2D whose mips are all inline and zlib-compressed (BULKDATA_
/// SerializeCompressedZLIB) in `chunk`-byte pieces. Returns the files and each mip's raw bytes.
pub fn classic_texture_zlib(
    name: &str,
    format: PixelFormat,
    width: u32,
    height: u32,
    mips: u32,
    chunk: usize,
    rng: &mut Rng,
) -> (PackageFiles, Vec<Vec<u8>>) {
    let mut b = Builder::new();
    let skip_at = b.begin_platform_data(pf_name(format), width, height, 1);
    b.u32(0);
    b.u32(mips);
    let mut data = Vec::new();
    for m in 0..mips {
        let (w, h, _) = mip_dims(width, height, 1, m);
        let bytes = random_surface(format, w, h, rng);
        b.inline_zlib(&bytes, chunk);
        b.u32(w);
        b.u32(h);
        b.u32(1);
        data.push(bytes);
    }
    b.u32(0);
    b.end_platform_data(skip_at);
    (b.finish(name, "Texture2D"), data)
}

/// What to build as a UE5 virtual texture.
#[derive(Debug, Clone)]
pub struct VtSpec {
    pub layers: Vec<PixelFormat>,
    pub fallback: Vec<[f32; 4]>,
    pub tile_size: u32,
    pub border: u32,
    /// Mip 0 size in tiles.
    pub width_tiles: u32,
    pub height_tiles: u32,
    pub mips: u32,
    /// Chunk of each mip (mips may share a chunk).
    pub chunk_of_mip: Vec<u32>,
    /// (mip, x, y) cells with no tile.
    pub holes: Vec<(u32, u32, u32)>,
}

/// A generated VT and the block images its tiles were cut from.
#[derive(Debug, Clone)]
pub struct VtFixture {
    pub files: PackageFiles,
    /// `full[layer][mip]`: block image of (tiles * TileSize + 2 * border) pixels per side.
    pub full: Vec<Vec<Vec<u8>>>,
    /// Pixel size of each `full` image, per mip.
    pub full_dims: Vec<(u32, u32)>,
    /// Pixel size of each mip.
    pub mip_dims: Vec<(u32, u32)>,
    /// Chunk sizes in bytes.
    pub chunk_sizes: Vec<u32>,
}

fn demorton(v: u32) -> (u32, u32) {
    let pack = |mut x: u32| {
        x &= 0x5555_5555;
        x = (x | (x >> 1)) & 0x3333_3333;
        x = (x | (x >> 2)) & 0x0F0F_0F0F;
        x = (x | (x >> 4)) & 0x00FF_00FF;
        x = (x | (x >> 8)) & 0x0000_FFFF;
        x
    };
    (pack(v), pack(v >> 1))
}

/// Builds a UE5 VT package (notes §5): tiles in Morton order per mip, run tables with empty runs
/// for holes, one .ubulk chunk per distinct chunk index (4-byte header + tiles, all layers per
/// tile record), chunks referenced by data-resource index.
pub fn virtual_texture(name: &str, spec: &VtSpec, rng: &mut Rng) -> VtFixture {
    virtual_texture_with(name, spec, |l, _, w, h| {
        random_surface(spec.layers[l], w, h, rng)
    })
}

/// [`virtual_texture`] with each layer's full block image from `surface(layer, mip, width,
/// height)`; the image's pixel (x, y) lands at texture pixel (x - border, y - border).
pub fn virtual_texture_with(
    name: &str,
    spec: &VtSpec,
    surface: impl FnMut(usize, u32, u32, u32) -> Vec<u8>,
) -> VtFixture {
    vt_build(name, spec, VtMode::Ue5, surface)
}

/// [`virtual_texture`] with the pre-UE5 ("legacy") addressing (notes §5): TileIndexPerMip and
/// TileIndexPerChunk (each with its end entry, as Epic's builder writes them) and one
/// TileOffsetInChunk entry per (Morton address, layer), 0xFFFFFFFF where there is no tile; the
/// UE5 tables (ChunkIndexPerMip, BaseOffsetPerMip, TileOffsetData) are empty. The package and
/// chunk records keep the UE5.2 form of this builder (SHA-1, u32 codec offsets, data-resource
/// index). `spec.chunk_of_mip` must not decrease (legacy chunks hold consecutive tile indices).
pub fn virtual_texture_legacy(name: &str, spec: &VtSpec, rng: &mut Rng) -> VtFixture {
    assert!(spec.chunk_of_mip.windows(2).all(|w| w[0] <= w[1]));
    vt_build(name, spec, VtMode::Ue5Legacy, |l, _, w, h| {
        random_surface(spec.layers[l], w, h, rng)
    })
}

/// A UE4 (4.23-4.27) virtual texture in a UE4 cooked package of `form`. The
/// FVirtualTextureBuiltData follows Epic's UE4 VirtualTextureBuiltData.cpp Serialize (bCooked,
/// NumLayers, Width/HeightInBlocks, TileSize, TileBorderSize, NumMips, Width, Height, the three
/// legacy arrays, NumLayers FString LayerTypes, then the chunks — no TileDataOffsetPerLayer, no
/// UE5 tables, no LayerFallbackColors) and its UE4 VirtualTextureDataBuilder: tile indices run
/// over Morton 0..=Morton(w-1, h-1) per mip, NumLayers entries each; chunk data starts with the
/// codec payloads (none here: CodecPayloadSize 0, every CodecPayloadOffset 0) — no 4-byte chunk
/// header, which only UE5's builder writes; absent tiles get the next tile's offset (zero
/// length; the builder's "patch holes" pass). Chunk records: no SHA-1 (CUE4Parse reads it from
/// UE5), SizeInBytes, CodecPayloadSize, per layer u8 codec (4 RawGPU) + CodecPayloadOffset as
/// u16 before 4.27 and u32 from 4.27 (CUE4Parse FVirtualTextureDataChunk; Epic's UE4 header
/// `uint16 CodecPayloadOffset[]`), then a full FByteBulkData header into the .ubulk.
/// `spec.fallback` is not written (UE4 has none). `spec.chunk_of_mip` must not decrease.
pub fn virtual_texture_ue4(name: &str, spec: &VtSpec, form: Ue4Form, rng: &mut Rng) -> VtFixture {
    assert!(spec.chunk_of_mip.windows(2).all(|w| w[0] <= w[1]));
    assert!((23..=27).contains(&form.minor), "VTs exist from UE4.23");
    vt_build(name, spec, VtMode::Ue4(form), |l, _, w, h| {
        random_surface(spec.layers[l], w, h, rng)
    })
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum VtMode {
    Ue5,
    /// UE5.2 package and records with the pre-UE5 addressing arrays.
    Ue5Legacy,
    Ue4(Ue4Form),
}

fn vt_build(
    name: &str,
    spec: &VtSpec,
    mode: VtMode,
    mut surface: impl FnMut(usize, u32, u32, u32) -> Vec<u8>,
) -> VtFixture {
    let legacy = mode != VtMode::Ue5;
    let ue4 = match mode {
        VtMode::Ue4(f) => Some(f),
        _ => None,
    };
    let zipped = ue4.is_some_and(|f| f.zlib_tiles);
    let t = spec.tile_size;
    let bdr = spec.border;
    let p = t + 2 * bdr;
    let width = spec.width_tiles * t;
    let height = spec.height_tiles * t;
    let layer_bytes: Vec<u32> = spec
        .layers
        .iter()
        .map(|f| f.surface_size(p, p) as u32)
        .collect();
    let mut offsets_per_layer = Vec::new();
    let mut acc = 0;
    for lb in &layer_bytes {
        acc += lb;
        offsets_per_layer.push(acc);
    }
    let nchunks = spec.chunk_of_mip.iter().copied().max().unwrap_or(0) as usize + 1;
    // UE5: a 4-byte FVirtualTextureChunkHeader opens each chunk; UE4's builder writes none.
    let header = if ue4.is_some() { 0 } else { 4 };
    let mut chunks: Vec<Vec<u8>> = vec![vec![0u8; header]; nchunks];
    let mut full = vec![Vec::new(); spec.layers.len()];
    let mut full_dims = Vec::new();
    let mut mip_px = Vec::new();
    let mut tables = Vec::new();
    let mut base_offsets = Vec::new();
    let nl = spec.layers.len() as u32;
    let mut per_mip = Vec::new();
    let mut per_chunk: Vec<u32> = Vec::new();
    let mut offset_in_chunk: Vec<u32> = Vec::new();
    for m in 0..spec.mips {
        let (w, h, _) = mip_dims(width, height, 1, m);
        let wt = w.div_ceil(t);
        let ht = h.div_ceil(t);
        let fw = wt * t + 2 * bdr;
        let fh = ht * t + 2 * bdr;
        mip_px.push((w, h));
        full_dims.push((fw, fh));
        for (l, images) in full.iter_mut().enumerate() {
            images.push(surface(l, m, fw, fh));
        }
        let ci = spec.chunk_of_mip[m as usize] as usize;
        while per_chunk.len() <= ci {
            per_chunk.push(offset_in_chunk.len() as u32);
        }
        per_mip.push(offset_in_chunk.len() as u32);
        let chunk = &mut chunks[ci];
        base_offsets.push(chunk.len() as u32);
        let max_address = {
            let s = wt.max(ht).next_power_of_two();
            s * s
        };
        // UE4's table covers Morton 0..=Morton(w-1, h-1) only (its MaxTileInMip).
        let table_len = if ue4.is_some() {
            crate::unreal::vt::morton(wt - 1, ht - 1) + 1
        } else {
            max_address
        };
        let mut addresses = Vec::new();
        let mut offs = Vec::new();
        let mut next_index = 0u32;
        let mut prev: Option<bool> = None;
        for v in 0..max_address {
            let (x, y) = demorton(v);
            if legacy && v >= table_len {
                break;
            }
            let present = x < wt && y < ht && !spec.holes.contains(&(m, x, y));
            if prev != Some(present) {
                addresses.push(v);
                offs.push(if present { next_index } else { u32::MAX });
                prev = Some(present);
            }
            if !present {
                offset_in_chunk.extend(std::iter::repeat_n(u32::MAX, nl as usize));
            }
            if present {
                next_index += 1;
                for (l, f) in spec.layers.iter().enumerate() {
                    offset_in_chunk.push(chunk.len() as u32);
                    let bi = f.block();
                    let (bw, bh, bb) = (bi.width, bi.height, bi.bytes as usize);
                    let row_blocks = (fw / bw) as usize;
                    let (bx0, by0) = ((x * t / bw) as usize, (y * t / bh) as usize);
                    let per_row = (p / bw) as usize * bb;
                    let mut tile = Vec::new();
                    for r in 0..(p / bh) as usize {
                        let start = ((by0 + r) * row_blocks + bx0) * bb;
                        tile.extend_from_slice(&full[l][m as usize][start..start + per_row]);
                    }
                    if zipped {
                        tile = miniz_oxide::deflate::compress_to_vec_zlib(&tile, 6);
                    }
                    chunk.extend_from_slice(&tile);
                }
            }
        }
        tables.push((wt, ht, max_address, addresses, offs));
    }
    per_mip.push(offset_in_chunk.len() as u32);
    per_chunk.push(offset_in_chunk.len() as u32);
    if ue4.is_some() {
        // UE4's "patch holes" pass: walking each chunk backwards, an absent entry takes the
        // offset that follows it (the chunk's size at its end).
        for (k, c) in chunks.iter().enumerate() {
            let mut next = c.len() as u32;
            for e in offset_in_chunk[per_chunk[k] as usize..per_chunk[k + 1] as usize]
                .iter_mut()
                .rev()
            {
                if *e == u32::MAX {
                    *e = next;
                } else {
                    next = *e;
                }
            }
        }
    }

    let mut b = match ue4 {
        Some(f) => Builder::ue4(f),
        None => Builder::new(),
    };
    let pf0 = pf_name(spec.layers[0]);
    let skip_at = b.begin_platform_data(pf0, width, height, 1);
    b.u32(0); // FirstMipToSerialize
    b.u32(0); // NumMips: a VT has no classic chain
    b.u32(1); // bIsVirtual
    b.u32(1); // bCooked
    b.u32(spec.layers.len() as u32);
    b.u32(1); // WidthInBlocks
    b.u32(1); // HeightInBlocks
    b.u32(t);
    b.u32(bdr);
    if ue4.is_none() {
        b.u32_array(&offsets_per_layer);
    }
    b.u32(spec.mips);
    b.u32(width);
    b.u32(height);
    if legacy {
        if ue4.is_none() {
            for _ in 0..3 {
                b.u32_array(&[]); // ChunkIndexPerMip, BaseOffsetPerMip, TileOffsetData: empty
            }
        }
        b.u32_array(&per_chunk);
        b.u32_array(&per_mip);
        b.u32_array(&offset_in_chunk);
    } else {
        b.u32_array(&spec.chunk_of_mip);
        b.u32_array(&base_offsets);
        b.u32(tables.len() as u32);
        for (wt, ht, max, addr, offs) in &tables {
            b.u32(*wt);
            b.u32(*ht);
            b.u32(*max);
            b.u32_array(addr);
            b.u32_array(offs);
        }
        for _ in 0..3 {
            b.u32_array(&[]); // TileIndexPerChunk, TileIndexPerMip, TileOffsetInChunk (legacy, empty)
        }
    }
    for f in &spec.layers {
        b.fstring(pf_name(*f));
    }
    for c in spec.fallback.iter().filter(|_| ue4.is_none()) {
        for v in c {
            b.uexp.extend_from_slice(&v.to_le_bytes());
        }
    }
    b.u32(chunks.len() as u32);
    let mut chunk_sizes = Vec::new();
    for c in &chunks {
        if ue4.is_none() {
            b.uexp.extend_from_slice(&[0; 20]); // SHA-1 of the chunk: not checked by the reader
        }
        b.u32(c.len() as u32);
        b.u32(header as u32); // CodecPayloadSize: the header only (UE4: nothing)
        for _ in &spec.layers {
            b.uexp.push(if zipped { 5 } else { 4 }); // ZippedGPU / RawGPU
            match ue4 {
                Some(f) if f.minor < 27 => b.uexp.extend_from_slice(&0u16.to_le_bytes()),
                _ => b.u32(header as u32),
            }
        }
        b.streamed(c);
        chunk_sizes.push(c.len() as u32);
    }
    b.end_platform_data(skip_at);
    VtFixture {
        files: b.finish(name, "Texture2D"),
        full,
        full_dims,
        mip_dims: mip_px,
        chunk_sizes,
    }
}
