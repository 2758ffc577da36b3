//! Texture2DArray (187), Texture3D (117) and CubemapArray (188). No shared sample holds one, so
//! each test writes a small Unity SerializedFile (format 22, with a type tree, so the reader takes
//! every field's place from the file) holding objects whose pixels are a known function of
//! (image, level, x, y, z), and checks that every slice and mip decodes to exactly those pixels.
//!
//! Where the expected values come from:
//! - the header / metadata / type tree node layout of format 22 (19+ node records of 32 bytes,
//!   8-byte object offsets, a type-dependency list from 21) is the one UnityPy's
//!   SerializedFile.py and AssetStudio's SerializedFile.cs read;
//! - the field names and order of the three classes are those UnityPy's generated classes list
//!   (m_Format is a GraphicsFormat: 4 = R8G8B8A8_SRGB, 8 = R8G8B8A8_UNorm, 97 = RGBA_DXT1_UNorm
//!   in Unity's GraphicsFormat enum);
//! - image order: Texture2DArray / CubemapArray store image after image, each with its whole
//!   chain; Texture3D stores level after level, each the whole w x h x d volume (UnityPy,
//!   AssetRipper); rows are stored bottom first (seed 004) and the viewer presents them top first;
//! - the pixel values themselves are the fixture's own function `texel` below.

use std::sync::Arc;
use texscope::io::BytesSource;
use texscope::model::TextureKind;
use texscope::{Catalog, DecodeOptions, Pixels};

/// Source pixel of image `img` (slice or face), level `mip`, at (x, y, z), rows top first.
fn texel(obj: u8, img: u32, mip: u32, x: u32, y: u32, z: u32) -> [u8; 4] {
    [
        (x * 17 + img * 5) as u8,
        (y * 13 + mip * 40) as u8,
        (z * 29 + obj as u32 * 70) as u8,
        (255 - img * 7 - mip) as u8,
    ]
}

/// Builds one object's bytes and its type tree together, field by field.
struct Obj {
    nodes: Vec<(u8, &'static str, &'static str, bool, bool)>,
    data: Vec<u8>,
}

impl Obj {
    fn new(class: &'static str) -> Obj {
        Obj {
            nodes: vec![(0, class, "Base", false, false)],
            data: Vec::new(),
        }
    }
    fn align(&mut self) {
        while self.data.len() % 4 != 0 {
            self.data.push(0);
        }
    }
    fn node(&mut self, level: u8, t: &'static str, name: &'static str, arr: bool, align: bool) {
        self.nodes.push((level, t, name, arr, align));
    }
    fn string_nodes(&mut self, level: u8, name: &'static str) {
        self.node(level, "string", name, false, false);
        self.node(level + 1, "Array", "Array", true, true);
        self.node(level + 2, "int", "size", false, false);
        self.node(level + 2, "char", "data", false, false);
    }
    fn put_str(&mut self, s: &str) {
        self.data.extend((s.len() as i32).to_le_bytes());
        self.data.extend(s.as_bytes());
        self.align();
    }
    fn string(&mut self, name: &'static str, s: &str) -> &mut Self {
        self.string_nodes(1, name);
        self.put_str(s);
        self
    }
    fn int(&mut self, name: &'static str, v: i32) -> &mut Self {
        self.node(1, "int", name, false, false);
        self.data.extend(v.to_le_bytes());
        self
    }
    fn uint(&mut self, name: &'static str, v: u32) -> &mut Self {
        self.node(1, "unsigned int", name, false, false);
        self.data.extend(v.to_le_bytes());
        self
    }
    fn settings(&mut self) -> &mut Self {
        self.node(1, "GLTextureSettings", "m_TextureSettings", false, false);
        for n in ["m_FilterMode", "m_Aniso"] {
            self.node(2, "int", n, false, false);
            self.data.extend(1i32.to_le_bytes());
        }
        self.node(2, "float", "m_MipBias", false, false);
        self.data.extend(0f32.to_le_bytes());
        for n in ["m_WrapU", "m_WrapV", "m_WrapW"] {
            self.node(2, "int", n, false, false);
            self.data.extend(0i32.to_le_bytes());
        }
        self
    }
    fn readable(&mut self) -> &mut Self {
        self.node(1, "bool", "m_IsReadable", false, true);
        self.data.push(1);
        self.align();
        self
    }
    fn image(&mut self, bytes: &[u8]) -> &mut Self {
        self.node(1, "TypelessData", "image data", true, true);
        self.node(2, "int", "size", false, false);
        self.node(2, "UInt8", "data", false, false);
        self.data.extend((bytes.len() as i32).to_le_bytes());
        self.data.extend(bytes);
        self.align();
        self
    }
    /// `vector m_PlatformBlob { Array { int size, UInt8 data } }`, as Texture2D lays it out
    /// (src/unity/layout.rs); a type tree may put it on the other classes too.
    fn blob(&mut self, bytes: &[u8]) -> &mut Self {
        self.node(1, "vector", "m_PlatformBlob", false, false);
        self.node(2, "Array", "Array", true, true);
        self.node(3, "int", "size", false, false);
        self.node(3, "UInt8", "data", false, false);
        self.data.extend((bytes.len() as i32).to_le_bytes());
        self.data.extend(bytes);
        self.align();
        self
    }
    fn stream(&mut self, offset: u64, size: u32, path: &str) -> &mut Self {
        self.node(1, "StreamingInfo", "m_StreamData", false, false);
        self.node(2, "UInt64", "offset", false, false);
        self.node(2, "unsigned int", "size", false, false);
        self.string_nodes(2, "path");
        self.data.extend(offset.to_le_bytes());
        self.data.extend(size.to_le_bytes());
        self.put_str(path);
        self
    }
}

fn be32(v: u32) -> [u8; 4] {
    v.to_be_bytes()
}

/// A format-22 SerializedFile holding `objects` (class id, object), path ids 1, 2, ...
fn serialized_file(objects: &[(i32, &Obj)]) -> Vec<u8> {
    serialized_file_for(5, objects) // StandaloneWindows
}

/// [`serialized_file`] built for `platform` (Unity's BuildTarget: 38 Switch).
fn serialized_file_for(platform: i32, objects: &[(i32, &Obj)]) -> Vec<u8> {
    let mut meta = Vec::new();
    meta.extend(b"2021.3.0f1\0");
    meta.extend(platform.to_le_bytes());
    meta.push(1); // type tree present
    meta.extend((objects.len() as i32).to_le_bytes());
    for (class, o) in objects {
        meta.extend(class.to_le_bytes());
        meta.push(0); // isStrippedType
        meta.extend((-1i16).to_le_bytes()); // scriptTypeIndex
        meta.extend([0u8; 16]); // type hash
        let mut strings = Vec::new();
        let mut recs = Vec::new();
        for (i, &(level, t, name, arr, align)) in o.nodes.iter().enumerate() {
            let mut off = |s: &str| {
                let at = strings.len() as u32;
                strings.extend(s.as_bytes());
                strings.push(0);
                at
            };
            let (t_off, n_off) = (off(t), off(name));
            recs.extend(1u16.to_le_bytes());
            recs.push(level);
            recs.push(arr as u8);
            recs.extend(t_off.to_le_bytes());
            recs.extend(n_off.to_le_bytes());
            recs.extend((-1i32).to_le_bytes());
            recs.extend((i as i32).to_le_bytes());
            recs.extend((if align { 0x4000u32 } else { 0 }).to_le_bytes());
            recs.extend(0u64.to_le_bytes()); // ref type hash
        }
        meta.extend((o.nodes.len() as i32).to_le_bytes());
        meta.extend((strings.len() as i32).to_le_bytes());
        meta.extend(recs);
        meta.extend(strings);
        meta.extend(0i32.to_le_bytes()); // type dependencies
    }
    meta.extend((objects.len() as i32).to_le_bytes());
    let mut at = 0u64;
    for (i, (_, o)) in objects.iter().enumerate() {
        while meta.len() % 4 != 0 {
            meta.push(0);
        }
        meta.extend((i as i64 + 1).to_le_bytes());
        meta.extend(at.to_le_bytes());
        meta.extend((o.data.len() as u32).to_le_bytes());
        meta.extend((i as i32).to_le_bytes());
        at += (o.data.len() as u64).next_multiple_of(8);
    }
    meta.extend(0i32.to_le_bytes()); // script types
    meta.extend(0i32.to_le_bytes()); // externals
    meta.extend(0i32.to_le_bytes()); // ref types
    meta.extend(b"\0"); // user information
    let data_offset = (48 + meta.len() as u64).next_multiple_of(16);
    let size = data_offset + at;
    let mut out = Vec::new();
    out.extend(be32(0));
    out.extend(be32(0));
    out.extend(be32(22));
    out.extend(be32(0));
    out.extend([0u8, 0, 0, 0]); // little endian
    out.extend(be32(meta.len() as u32));
    out.extend(size.to_be_bytes());
    out.extend(data_offset.to_be_bytes());
    out.extend([0u8; 8]);
    out.extend(meta);
    out.resize(data_offset as usize, 0);
    for (_, o) in objects {
        out.extend(&o.data);
        out.resize(out.len().next_multiple_of(8), 0);
    }
    out
}

fn dims(w: u32, h: u32, d: u32, m: u32) -> (u32, u32, u32) {
    ((w >> m).max(1), (h >> m).max(1), (d >> m).max(1))
}

/// One stored RGBA8 image, rows bottom first.
fn stored(obj: u8, img: u32, mip: u32, w: u32, h: u32, z: u32) -> Vec<u8> {
    let mut out = Vec::new();
    for r in 0..h {
        for x in 0..w {
            out.extend(texel(obj, img, mip, x, h - 1 - r, z));
        }
    }
    out
}

/// Expected decode, rows top first.
fn expected(obj: u8, img: u32, mip: u32, w: u32, h: u32, z: u32) -> Vec<u8> {
    let mut out = Vec::new();
    for y in 0..h {
        for x in 0..w {
            out.extend(texel(obj, img, mip, x, y, z));
        }
    }
    out
}

/// Texture2DArray: 8x4, 3 slices, 3 levels, R8G8B8A8_UNorm; slice after slice, each whole chain.
fn array_obj(data_size_delta: i64) -> Obj {
    let (w, h, slices, mips) = (8, 4, 3, 3);
    let mut px = Vec::new();
    for s in 0..slices {
        for m in 0..mips {
            let (mw, mh, _) = dims(w, h, 1, m);
            px.extend(stored(1, s, m, mw, mh, 0));
        }
    }
    let said = (px.len() as i64 + data_size_delta) as usize;
    let mut o = layered_head("Texture2DArray", "arr", (0, 8), [w, h, slices, mips], said);
    o.image(&px).stream(0, 0, "");
    o
}

/// The fields a Texture2DArray and a Texture3D share before their pixels: m_ColorSpace and
/// m_Format (`gf`), m_Width, m_Height, m_Depth (slices or depth) and m_MipCount (`size`).
fn layered_head(
    class: &'static str,
    name: &str,
    gf: (i32, i32),
    size: [u32; 4],
    data: usize,
) -> Obj {
    let [w, h, d, mips] = size;
    let mut o = Obj::new(class);
    o.string("m_Name", name)
        .int("m_ColorSpace", gf.0)
        .int("m_Format", gf.1)
        .int("m_Width", w as i32)
        .int("m_Height", h as i32)
        .int("m_Depth", d as i32)
        .int("m_MipCount", mips as i32)
        .uint("m_DataSize", data as u32)
        .settings()
        .int("m_UsageMode", 0)
        .readable();
    o
}

/// Texture3D: 4x4x4, 3 levels (4x4x4, 2x2x2, 1x1x1), R8G8B8A8_SRGB; level after level.
fn volume_obj() -> Obj {
    let (w, h, d, mips) = (4, 4, 4, 3);
    let mut px = Vec::new();
    for m in 0..mips {
        let (mw, mh, md) = dims(w, h, d, m);
        for z in 0..md {
            px.extend(stored(2, 0, m, mw, mh, z));
        }
    }
    let mut o = layered_head("Texture3D", "vol", (1, 4), [w, h, d, mips], px.len());
    o.image(&px).stream(0, 0, "");
    o
}

/// CubemapArray: 2 cubes of 4x4 faces, 3 levels, R8G8B8A8_UNorm; 12 faces, each whole chain.
fn cube_array_obj() -> Obj {
    let (w, cubes, mips) = (4, 2, 3);
    let mut px = Vec::new();
    for f in 0..cubes * 6 {
        for m in 0..mips {
            let (mw, mh, _) = dims(w, w, 1, m);
            px.extend(stored(3, f, m, mw, mh, 0));
        }
    }
    let mut o = Obj::new("CubemapArray");
    o.string("m_Name", "cubes")
        .int("m_ColorSpace", 0)
        .int("m_Format", 8)
        .int("m_Width", w as i32)
        .int("m_MipCount", mips as i32)
        .uint("m_DataSize", px.len() as u32)
        .settings()
        .int("m_CubemapCount", cubes as i32)
        .readable()
        .image(&px)
        .stream(0, 0, "");
    o
}

fn open(bytes: Vec<u8>) -> Catalog {
    texscope::open(
        vec![BytesSource::shared(
            "fixture.assets",
            Arc::<[u8]>::from(bytes),
        )],
        &Default::default(),
    )
}

fn find(cat: &Catalog, name: &str) -> usize {
    cat.textures
        .iter()
        .position(|t| t.name == name)
        .unwrap_or_else(|| panic!("no {name}: {:?}", cat.problems))
}

fn rgba8(cat: &Catalog, tex: usize, mip: usize, slice: u32) -> Vec<u8> {
    let img = cat
        .decode(tex, mip, slice, DecodeOptions::default())
        .unwrap_or_else(|e| panic!("mip {mip} slice {slice}: {e}"));
    match img.pixels {
        Pixels::Rgba8(p) => p,
        _ => panic!("RGBA8 decodes to 8-bit pixels"),
    }
}

fn fixture() -> Catalog {
    let (a, v, c) = (array_obj(0), volume_obj(), cube_array_obj());
    open(serialized_file(&[(187, &a), (117, &v), (188, &c)]))
}

#[test]
fn texture2d_array_every_slice_and_mip() {
    let cat = fixture();
    let i = find(&cat, "arr");
    let t = &cat.textures[i];
    assert_eq!(t.error, None);
    assert_eq!(t.class, "Texture2DArray");
    assert_eq!(t.kind, TextureKind::Array);
    assert_eq!((t.width, t.height, t.depth, t.slices), (8, 4, 1, 3));
    assert_eq!(t.mips.len(), 3);
    for m in 0..3u32 {
        let (mw, mh, _) = dims(8, 4, 1, m);
        assert_eq!(
            (t.mips[m as usize].width, t.mips[m as usize].height),
            (mw, mh)
        );
        for s in 0..3 {
            assert_eq!(
                rgba8(&cat, i, m as usize, s),
                expected(1, s, m, mw, mh, 0),
                "slice {s} mip {m}"
            );
        }
    }
    assert!(cat.decode(i, 0, 3, DecodeOptions::default()).is_err());
}

#[test]
fn texture3d_every_depth_slice_of_every_mip() {
    let cat = fixture();
    let i = find(&cat, "vol");
    let t = &cat.textures[i];
    assert_eq!(t.error, None);
    assert_eq!(t.class, "Texture3D");
    assert_eq!(t.kind, TextureKind::Volume);
    assert_eq!((t.width, t.height, t.depth, t.slices), (4, 4, 4, 1));
    assert_eq!(t.srgb(), Some(true), "GraphicsFormat 4 is R8G8B8A8_SRGB");
    assert_eq!(t.mips.len(), 3);
    for m in 0..3u32 {
        let (mw, mh, md) = dims(4, 4, 4, m);
        assert_eq!(t.surface_count(m as usize), md);
        for z in 0..md {
            assert_eq!(
                rgba8(&cat, i, m as usize, z),
                expected(2, 0, m, mw, mh, z),
                "depth {z} mip {m}"
            );
        }
    }
}

#[test]
fn cubemap_array_every_face_and_mip() {
    let cat = fixture();
    let i = find(&cat, "cubes");
    let t = &cat.textures[i];
    assert_eq!(t.error, None);
    assert_eq!(t.class, "CubemapArray");
    assert_eq!((t.width, t.height, t.slices), (4, 4, 12));
    for m in 0..3u32 {
        let (mw, mh, _) = dims(4, 4, 1, m);
        for f in 0..12 {
            assert_eq!(
                rgba8(&cat, i, m as usize, f),
                expected(3, f, m, mw, mh, 0),
                "face {f} mip {m}"
            );
        }
    }
}

#[test]
fn data_size_that_disagrees_is_refused_with_the_numbers() {
    // m_DataSize 16 bytes more than the chain x slices (3 x (128 + 32 + 8) = 504 bytes of RGBA8): the texture is listed with an error.
    let a = array_obj(16);
    let cat = open(serialized_file(&[(187, &a)]));
    let t = &cat.textures[find(&cat, "arr")];
    let e = t.error.as_deref().expect("a mismatch is an error");
    assert!(
        e.contains("m_DataSize says 520") && e.contains("= 504"),
        "{e}"
    );
    assert!(cat.decode(0, 0, 0, DecodeOptions::default()).is_err());
}

#[test]
fn unknown_graphics_format_is_a_problem_naming_the_field() {
    let mut o = Obj::new("Texture2DArray");
    o.string("m_Name", "odd")
        .int("m_Format", 9999)
        .int("m_Width", 4)
        .int("m_Height", 4)
        .int("m_Depth", 1)
        .int("m_MipCount", 1)
        .image(&[0; 64]);
    let cat = open(serialized_file(&[(187, &o)]));
    assert!(cat.textures.is_empty());
    let p = format!("{:?}", cat.problems);
    assert!(p.contains("m_Format") && p.contains("9999"), "{p}");
}

/// The BC1 block that decodes to one solid colour: both endpoints `c` (RGB565), every index 0
/// (BC1 spec: index 0 selects color_0 in either mode).
fn bc1_solid(c: u16) -> [u8; 8] {
    let [a, b] = c.to_le_bytes();
    [a, b, a, b, 0, 0, 0, 0]
}

/// RGB565 widened to 8 bits as UNORM values, round(v / max * 255): the exact UNORM conversion of
/// the D3D11 functional spec (bit replication would be 1 lower for some values, e.g. r5 = 7).
fn rgb565(c: u16) -> [u8; 4] {
    let unorm = |v: u16, max: u32| ((v as u32 * 255 * 2 + max) / (2 * max)) as u8;
    [
        unorm(c >> 11, 31),
        unorm((c >> 5) & 63, 63),
        unorm(c & 31, 31),
        255,
    ]
}

#[test]
fn streamed_bc1_array_reads_each_slice_from_the_ress() {
    // 8x8 RGBA_DXT1_UNorm (GraphicsFormat 97), 2 slices, 4 levels (8, 4, 2, 1): 4 + 1 + 1 + 1
    // blocks of 8 bytes = 56 bytes a slice; every block of slice s, level m one solid colour.
    let colour = |s: u16, m: u16| (s * 9 + m * 3 + 1) << 11 | (m * 7) << 5 | (s * 11 + 2);
    let blocks = [4, 1, 1, 1];
    let mut ress = vec![0xEEu8; 32]; // something else first: the offset must be honoured
    for s in 0..2u16 {
        for (m, &n) in blocks.iter().enumerate() {
            for _ in 0..n {
                ress.extend(bc1_solid(colour(s, m as u16)));
            }
        }
    }
    let size = ress.len() as u32 - 32;
    let mut o = Obj::new("Texture2DArray");
    o.string("m_Name", "streamed")
        .int("m_ColorSpace", 0)
        .int("m_Format", 97)
        .int("m_Width", 8)
        .int("m_Height", 8)
        .int("m_Depth", 2)
        .int("m_MipCount", 4)
        .uint("m_DataSize", size)
        .settings()
        .int("m_UsageMode", 0)
        .readable()
        .image(&[])
        .stream(32, size, "fixture.assets.resS");
    let file = serialized_file(&[(187, &o)]);
    let cat = texscope::open(
        vec![
            BytesSource::shared("fixture.assets", Arc::<[u8]>::from(file)),
            BytesSource::shared("fixture.assets.resS", Arc::<[u8]>::from(ress)),
        ],
        &Default::default(),
    );
    let i = find(&cat, "streamed");
    let t = &cat.textures[i];
    assert_eq!(t.error, None);
    assert_eq!(t.format, texscope::PixelFormat::BC1);
    assert_eq!((t.slices, t.mips.len()), (2, 4));
    for s in 0..2u16 {
        for m in 0..4u16 {
            let side = (8u32 >> m).max(1);
            let want = rgb565(colour(s, m)).repeat((side * side) as usize);
            assert_eq!(
                rgba8(&cat, i, m as usize, s as u32),
                want,
                "slice {s} mip {m}"
            );
        }
    }
    // Without the .resS the levels are listed as missing, not refused.
    let alone = open(serialized_file(&[(187, &o)]));
    let t = &alone.textures[find(&alone, "streamed")];
    assert_eq!(t.mips_present(), vec![false; 4]);
}

mod unity_fixtures;

/// Switch builds whose type tree gives a Texture2DArray, CubemapArray or Texture3D an
/// `m_PlatformBlob` stating one GOB per block (UnityPy's class database has none on these
/// classes, so the blob only comes from a type tree): an array whose data is the block-linear
/// size is untiled slice by slice and mip by mip; one whose data is the linear size is read
/// linear and says so; a volume of the linear size is read linear, and one of the tiled size is
/// refused (tiled volumes interleave depth, not read). Expected values: the source pixels
/// ([`stored`] / [`expected`]), tiled by tegra_swizzle at block height 1 with its array layers
/// (each layer starting on a whole GOB, as the Switch driver lays them out).
#[test]
fn switch_one_gob_blob_on_arrays_and_volumes() {
    use tegra_swizzle::surface::{swizzle_surface, BlockDim};
    use texscope::codec::tiling::Tiling;
    let blob = unity_fixtures::switch_blob(1, 0);
    // 28x32 RGBA8: 112 bytes a row, 2 GOBs across, 4 down; mip 1 (14x16) 1 x 2 GOBs.
    let (w, h, slices, mips) = (28u32, 32u32, 3u32, 2u32);
    let mut linear = Vec::new();
    for s in 0..slices {
        for m in 0..mips {
            let (mw, mh, _) = dims(w, h, 1, m);
            linear.extend(stored(4, s, m, mw, mh, 0));
        }
    }
    let tiled = swizzle_surface(
        w,
        h,
        1,
        &linear,
        BlockDim::uncompressed(),
        Some(tegra_swizzle::BlockHeight::new(1).unwrap()),
        4,
        mips,
        slices,
    )
    .unwrap();
    // Hand-worked: mip 0 is 8 GOBs (4096 bytes), mip 1 2 GOBs (1024); a layer of 5120 bytes is
    // a whole number of GOBs already, so three layers are 15360 bytes.
    assert_eq!(tiled.len(), 15360);
    let array = |px: &[u8]| {
        let mut o = layered_head(
            "Texture2DArray",
            "arr",
            (0, 8),
            [w, h, slices, mips],
            px.len(),
        );
        o.blob(&blob).image(px).stream(0, 0, "");
        o
    };
    for (px, tiling) in [
        (&tiled, Tiling::BlockLinear { block_height: 1 }),
        (&linear, Tiling::Linear),
    ] {
        let cat = open(serialized_file_for(38, &[(187, &array(px))]));
        let i = find(&cat, "arr");
        let t = &cat.textures[i];
        let what = format!("{} bytes", px.len());
        assert!(t.error.is_none(), "{what}: {:?}", t.error);
        assert_eq!(t.tiling, tiling, "{what}");
        let said = t.notes.iter().any(|n| n.contains("read as linear"));
        assert_eq!(said, tiling == Tiling::Linear, "{what}: {:?}", t.notes);
        for s in 0..slices {
            for m in 0..mips {
                let (mw, mh, _) = dims(w, h, 1, m);
                assert!(
                    rgba8(&cat, i, m as usize, s) == expected(4, s, m, mw, mh, 0),
                    "{what}: slice {s} mip {m}"
                );
            }
        }
    }
    // Texture3D 28x32x2, one level: 7168 bytes linear, 8192 block-linear (a GOB high per slice).
    let volume = |px: &[u8]| {
        let mut o = layered_head("Texture3D", "vol", (0, 8), [w, h, 2, 1], px.len());
        o.blob(&blob).image(px).stream(0, 0, "");
        o
    };
    let px: Vec<u8> = (0..2).flat_map(|z| stored(5, 0, 0, w, h, z)).collect();
    let cat = open(serialized_file_for(38, &[(117, &volume(&px))]));
    let i = find(&cat, "vol");
    assert_eq!(cat.textures[i].tiling, Tiling::Linear);
    assert!(cat.textures[i]
        .notes
        .iter()
        .any(|n| n.contains("read as linear")));
    for z in 0..2 {
        assert!(
            rgba8(&cat, i, 0, z) == expected(5, 0, 0, w, h, z),
            "depth {z}"
        );
    }
    let cat = open(serialized_file_for(38, &[(117, &volume(&vec![0u8; 8192]))]));
    assert!(cat.textures.is_empty(), "a tiled volume is listed");
    let p = format!("{:?}", cat.problems);
    assert!(p.contains("tiled volumes are not read yet"), "{p}");
}
