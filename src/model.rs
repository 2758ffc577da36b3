//! The engine-neutral texture model: what a texture is and where every byte of it lives.
//! Engines fill it in at open time from metadata alone; decoding reads only the ranges it names.

use crate::codec::tiling::Tiling;
use crate::codec::PixelFormat;
use serde::Serialize;

pub mod tiled;

/// Which engine (or loose container) a texture came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Engine {
    Unreal,
    Unity,
    Frostbite,
    Dds,
    Ktx,
    /// A loose crunch (.crn) file.
    Crn,
    /// A loose Basis Universal (.basis) file.
    Basis,
    /// A loose PlayStation texture (.gnf).
    Gnf,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum TextureKind {
    #[serde(rename = "2d")]
    Tex2D,
    #[serde(rename = "cube")]
    Cube,
    #[serde(rename = "array")]
    Array,
    #[serde(rename = "volume")]
    Volume,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum ColorSpace {
    Srgb,
    Linear,
    /// The file does not say.
    Unknown,
}

/// How a normal map packs its vector, when the file says it is one.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum NormalEncoding {
    /// x in red, y in green (z rebuilt from unit length for two-channel formats).
    Rg,
    /// DXT5nm: x in alpha, y in green (Unity usage mode 3, seed 004).
    Dxt5nm,
    /// x, y, z stored in red, green, blue.
    Rgb,
    /// x in red (repeated in green and blue), y in alpha: how Unreal cooks TC_Normalmap to ASTC,
    /// astcenc's "rrrg" normal-map swizzle (ARM astc-encoder Docs/Encoding.md). Measured on the
    /// UE 5.8 Android fixture T_ASTC_Normal against its source normal.png: R, G and B equal the
    /// source's red (x) and A its green (y), every texel of the 64² mip (docs/unreal.md). Not
    /// [`NormalEncoding::Dxt5nm`], which is the other way round: x in alpha, y in green.
    Ra,
}

impl NormalEncoding {
    /// The channels (0 red, 1 green, 2 blue, 3 alpha) holding x and y.
    pub fn xy_channels(self) -> (usize, usize) {
        match self {
            NormalEncoding::Rg | NormalEncoding::Rgb => (0, 1),
            NormalEncoding::Dxt5nm => (3, 1),
            NormalEncoding::Ra => (0, 3),
        }
    }

    /// The vector a texel stores: x and y from their channels, mapped from 0..1 to -1..1 unless
    /// `signed` (a signed format decodes to -1..1 already); z from blue for [`NormalEncoding::Rgb`],
    /// else rebuilt from unit length as sqrt(max(0, 1 - x² - y²)) (what a shader does with a
    /// two-channel normal map, and what the page's normal view shows).
    pub fn vector(self, texel: [f32; 4], signed: bool) -> [f32; 3] {
        let unpack = |v: f32| if signed { v } else { v * 2.0 - 1.0 };
        let (cx, cy) = self.xy_channels();
        let (x, y) = (unpack(texel[cx]), unpack(texel[cy]));
        let z = match self {
            NormalEncoding::Rgb => unpack(texel[2]),
            _ => (1.0 - x * x - y * y).max(0.0).sqrt(),
        };
        [x, y, z]
    }
}

/// The engine's own id or name for the format (census `native_format`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(untagged)]
pub enum NativeFormat {
    Id(i64),
    Name(String),
}

/// Index of a source in the catalog (opened files and derived views such as a bundle's entries).
pub type SourceId = usize;

/// Where one stored image (one mip of one slice) lives.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "state", rename_all = "snake_case")]
pub enum Storage {
    /// `length` bytes at `offset` of source `source`.
    Range {
        source: SourceId,
        offset: u64,
        length: u64,
    },
    /// Lives in a file that was not opened; `file` is the name to drop.
    Missing { file: String, length: u64 },
    /// The engine stores nothing for it (an empty 0x0 texture).
    Empty,
}

impl Storage {
    pub fn is_present(&self) -> bool {
        !matches!(self, Storage::Missing { .. })
    }
}

/// One level of the chain.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Mip {
    pub width: u32,
    pub height: u32,
    /// Depth in texels for volume textures, 1 otherwise.
    pub depth: u32,
    /// One entry per slice (face or layer), in slice order; a volume has one entry holding every
    /// depth slice. Empty for virtual textures (their tiles are described by the VT layout).
    pub surfaces: Vec<Storage>,
    /// A word for the mip strip: "inline", "T_Foo.ubulk", "level0.resS" ...
    pub location_note: String,
}

impl Mip {
    pub fn is_present(&self) -> bool {
        self.surfaces.iter().all(Storage::is_present)
    }
}

/// How the texture's data is organised beyond plain surfaces.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Layout {
    /// `mips[m].surfaces[s]` each hold one image of `format`.
    Surfaces,
    /// A tiled texture (virtual texture, UDIM): tiles in chunks, [`tiled::TiledLayout`]; `slices`
    /// are its layers.
    Virtual(Box<tiled::TiledLayout>),
    /// One crunch stream (Unity's crunch fork) holds every level of `format`'s blocks; `mips`
    /// list the level sizes. Decoding needs the crunch codec.
    Crunched { data: Storage },
    /// Source art kept by an editor (an uncooked Unreal package's `FTextureSource`): one stored
    /// payload holds every mip and slice, possibly wrapped (compressed) and encoded (PNG, JPEG
    /// ...). [`crate::Catalog::read_surface`] unwraps and decodes only what the mip asked for
    /// needs and returns it in `format`; `mips[m].surfaces` are empty.
    Source(Box<SourceLayout>),
}

/// How an editor's stored source payload is wrapped around its bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum SourceWrap {
    /// Stored as is.
    Plain,
    /// UE4's zlib bulk data (BULKDATA_SerializeCompressedZLIB): an FCompressedChunk archive of
    /// zlib blocks after a summary that starts with the package tag.
    UeZlib,
    /// UE5's FCompressedBuffer (magic 0xb7756362): none, Oodle, LZ4 or zlib blocks.
    CompressedBuffer,
}

/// What the unwrapped bytes of an editor's source payload are.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum SourceCoding {
    /// Texels, mip after mip (each mip all its slices), in [`SourceLayout::texels`]' layout.
    Raw,
    /// One PNG file (a single-mip, single-slice source).
    Png,
    /// One JPEG file (UE5 TSCF_JPEG: the imported .jpg byte for byte).
    Jpeg,
    /// UE 5.5+ TSCF_UEDELTA: the raw texels filtered by UE's delta transform.
    UeDelta,
}

/// How a raw source texel becomes a texel of the texture's `format`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum SourceTexels {
    /// Already in `format`.
    Same,
    /// TSF_BGRE8 / TSF_RGBE8: B, G, R and a shared exponent byte E, widened to RGBA32F as UE 5
    /// reads them (FColor::FromRGBE: (m + 0.5) × 2^(E − 136), 0 when E is 0).
    Bgre8,
    /// The same bytes as UE4 read them (its FColor::FromRGBE: m / 255 × 2^(E − 128)).
    Bgre8Ue4,
    /// TSF_G16: one 16-bit grey value, widened to RGBA16 (grey in R, G, B; A opaque).
    Gray16,
    /// A PNG whose first three channels are blue, green, red: the Unreal editor writes TSF_BGRA8
    /// bytes as they are into an RGBA PNG (UE4 samples against their committed originals; UE 5.1
    /// against the same asset saved raw by UE 5.6).
    BgrFile,
}

/// Where an editor's source art lives and how to get texels out of it ([`Layout::Source`]).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SourceLayout {
    /// The stored payload, whole.
    pub data: Storage,
    pub wrap: SourceWrap,
    pub coding: SourceCoding,
    pub texels: SourceTexels,
    /// Bytes of the payload once unwrapped, as the file states them.
    pub raw_size: u64,
    /// For [`SourceCoding::Raw`] and [`SourceCoding::UeDelta`] (once undone):
    /// `images[mip][slice]` = (offset, length) in the unwrapped payload, in the source's own
    /// texels (before [`SourceLayout::texels`]' widening).
    pub images: Vec<Vec<(u64, u64)>>,
    /// One line: the source's format, compression and where its bytes are, for Info.
    pub summary: String,
    /// What kind of file holds it and who saved it ("editor package", "UE 4.22.3 ...").
    pub package: String,
    /// The source's own format name (Unreal's ETextureSourceFormat, "TSF_BGRA8").
    pub source_format: String,
    /// Mip 0's width and height (each later mip halves them).
    pub size: (u32, u32),
    pub saved_by: String,
    /// Every image set the whole unwrapped payload holds, in stored order: each mip (all its
    /// slices) of each layer of each block, whichever texture entry this layout is. A source of
    /// several UDIM blocks or layers lists one texture per block and layer over one payload;
    /// undoing [`SourceCoding::UeDelta`] needs them all. Empty for PNG and JPEG.
    pub planes: Vec<SourcePlane>,
}

/// One mip of one block and layer of an editor's source payload, all its slices
/// ([`SourceLayout::planes`]).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SourcePlane {
    /// The layer's own format name (Unreal's ETextureSourceFormat).
    pub format: String,
    pub width: u32,
    pub height: u32,
    pub slices: u32,
}

/// The platform a build was cooked for, where it decides how surfaces are laid out (console GPUs
/// tile them: [`crate::codec::tiling`]). Found from what the files say (Unity's target platform,
/// Unreal's `Saved/Cooked/<Platform>/` path or `-Switch.pak` name, a GNF header) or chosen by the
/// user ([`crate::OpenOptions::platform`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Platform {
    /// A platform whose textures are linear (Windows, macOS, Linux, Android, iOS, web).
    Pc,
    Switch,
    Ps4,
    Ps5,
}

impl Platform {
    /// The CLI's `--platform` words and the census value.
    pub fn from_name(s: &str) -> Option<Platform> {
        match s.to_ascii_lowercase().as_str() {
            "pc" | "windows" | "linear" => Some(Platform::Pc),
            "switch" | "nx" => Some(Platform::Switch),
            "ps4" | "orbis" => Some(Platform::Ps4),
            "ps5" | "prospero" => Some(Platform::Ps5),
            _ => None,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Platform::Pc => "PC",
            Platform::Switch => "Switch",
            Platform::Ps4 => "PS4",
            Platform::Ps5 => "PS5",
        }
    }
}

/// Row order of the stored surfaces.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum RowOrder {
    TopFirst,
    /// Unity stores rows bottom first (seed 004); decode presents top first unless asked not to.
    BottomFirst,
}

/// A texture found in the opened files.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Texture {
    /// The file the texture was found in, as the user named it (for a texture inside a bundle,
    /// the bundle).
    pub file: String,
    /// The package's path inside its container (mount point + directory path, e.g.
    /// `Game/Content/Textures/T_Rock.uasset`, the engine's leading `../../../` dropped), `None`
    /// for a loose file (issue 17).
    pub path: Option<String>,
    pub engine: Engine,
    /// The texture's own name (m_Name, the export's object name, else the file stem).
    pub name: String,
    /// Engine class, e.g. "Texture2D", "TextureCube", "Cubemap", "Texture" (Frostbite), "DDS".
    pub class: String,
    pub kind: TextureKind,
    pub format: PixelFormat,
    pub native_format: NativeFormat,
    /// Size of the largest mip the chain describes (after any LOD-bias shift).
    pub width: u32,
    pub height: u32,
    pub depth: u32,
    /// The authored size, when it differs from the largest mip described.
    pub authored: Option<(u32, u32)>,
    /// Images per mip: 1, 6 for a cube, layers for an array, faces x layers for a cube array.
    pub slices: u32,
    pub mips: Vec<Mip>,
    pub color_space: ColorSpace,
    pub normal_map: Option<NormalEncoding>,
    pub rows: RowOrder,
    pub layout: Layout,
    /// The platform the texture was cooked for, when the files say or the user chose it.
    pub platform: Option<Platform>,
    /// How each stored surface is laid out; [`crate::Catalog::read_surface`] untiles.
    pub tiling: Tiling,
    /// Facts for the info panel, in display order: ("Unity version", "2019.4.0f1"), ...
    pub metadata: Vec<(String, String)>,
    /// Things the user should know that do not stop decoding ("mips 0-4 live in T.ubulk").
    pub notes: Vec<String>,
    /// Why the texture cannot be decoded at all, when it cannot.
    pub error: Option<String>,
}

impl Texture {
    pub fn is_virtual(&self) -> bool {
        matches!(self.layout, Layout::Virtual(_))
    }

    pub fn mips_present(&self) -> Vec<bool> {
        match &self.layout {
            Layout::Source(s) => vec![s.data.is_present(); self.mips.len()],
            _ => self.mips.iter().map(Mip::is_present).collect(),
        }
    }

    /// Number of 2D images the viewer can pick at `mip`: slices, or depth slices for a volume.
    pub fn surface_count(&self, mip: usize) -> u32 {
        match (self.kind, self.mips.get(mip)) {
            (TextureKind::Volume, Some(m)) => m.depth,
            _ => self.slices,
        }
    }

    pub fn srgb(&self) -> Option<bool> {
        match self.color_space {
            ColorSpace::Srgb => Some(true),
            ColorSpace::Linear => Some(false),
            ColorSpace::Unknown => None,
        }
    }

    /// Estimated GPU memory of the whole chain as stored (for sorting in the list).
    pub fn gpu_bytes(&self) -> u64 {
        self.mips
            .iter()
            .map(|m| {
                self.format.surface_size(m.width, m.height) * m.depth as u64 * self.slices as u64
            })
            .sum()
    }

    pub fn add_meta(&mut self, key: &str, value: impl ToString) {
        self.metadata.push((key.to_string(), value.to_string()));
    }

    /// The census record of the CLI contract (issue 2); an editor's source art adds `source`
    /// (the package kind, the engine that saved it, and how and where its bytes are stored).
    pub fn census(&self) -> serde_json::Value {
        let mut v = self.census_common();
        if let (Layout::Source(s), Some(o)) = (&self.layout, v.as_object_mut()) {
            o.insert(
                "source".into(),
                serde_json::json!({
                    "package": s.package,
                    "saved_by": s.saved_by,
                    "coding": s.coding,
                    "wrap": s.wrap,
                    "raw_size": s.raw_size,
                    "stored": s.summary,
                }),
            );
        }
        v
    }

    fn census_common(&self) -> serde_json::Value {
        serde_json::json!({
            "file": self.file,
            "path": self.path,
            "engine": self.engine,
            "name": self.name,
            "class": self.class,
            "kind": self.kind,
            "width": self.width,
            "height": self.height,
            "authored": self.authored.map(|(w, h)| [w, h]),
            "depth": self.depth,
            "slices": self.slices,
            "mips": self.mips.len(),
            "format": self.format.name(),
            "native_format": self.native_format,
            "srgb": self.srgb(),
            "virtual": self.is_virtual(),
            "platform": self.platform,
            "tiling": self.tiling.census_name(),
            "mips_present": self.mips_present(),
            "error": self.error,
        })
    }
}

/// An editor's thumbnail of one asset (an Unreal package's thumbnail table): any asset class,
/// not only textures.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Thumbnail {
    /// The package file, as the user named it.
    pub file: String,
    /// The asset's class ("Material", "StaticMesh", "Texture2D").
    pub class: String,
    /// The asset's object path inside its package ("T_Rock").
    pub object: String,
    pub width: u32,
    pub height: u32,
    /// JPEG (UE 5.1+ writes most thumbnails so) rather than PNG.
    pub jpeg: bool,
    /// The image's first three channels are blue, green, red (the Unreal editor compresses its
    /// BGRA thumbnails so, as PNG and as JPEG).
    pub bgr: bool,
    /// The compressed image's bytes.
    pub data: Storage,
}

/// Standard chain of `count` mips halving from `w` x `h` x `d`, each at least 1.
pub fn mip_dims(w: u32, h: u32, d: u32, level: u32) -> (u32, u32, u32) {
    let s = |v: u32| if level >= 32 { 1 } else { (v >> level).max(1) };
    (s(w), s(h), s(d))
}
