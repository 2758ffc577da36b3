//! Unreal Engine textures (seed 000, shared notes unreal-layout.md): cooked legacy packages
//! (.uasset + .uexp + .ubulk/.uptnl) and zen packages (IoStore-extracted .uasset, .uzenasset),
//! classic mip chains and UE5 virtual textures; editor (uncooked) packages and their source art
//! (editor.rs).

pub mod bulk;
#[cfg(feature = "editor")]
pub mod cbuf;
#[cfg(feature = "containers")]
pub mod container;
mod cursor;
#[cfg(feature = "editor")]
pub mod editor;
#[cfg(all(test, feature = "editor"))]
pub(crate) mod editor_samples;
#[cfg(feature = "containers")]
mod index;
#[cfg(feature = "containers")]
pub mod iostore;
#[cfg(feature = "landscape")]
pub mod landscape;
pub mod package;
#[cfg(feature = "containers")]
pub mod pak;
pub mod pixel_format;
pub mod props;
pub mod script;
pub mod texture;
#[cfg(feature = "editor")]
pub mod trailer;
#[cfg(feature = "editor")]
pub mod uedelta;
pub mod usmap;
pub mod vt;

#[cfg(feature = "tiling-switch")]
use crate::codec::tiling::Tiling;
use crate::io::{Error, Result};
#[cfg(feature = "tiling-switch")]
use crate::model::Platform;
use crate::model::{
    ColorSpace, Engine, Layout, Mip, NativeFormat, NormalEncoding, RowOrder, SourceId, Storage,
    Texture, TextureKind,
};
use crate::{base_name, file_stem, FileProblem, OpenContext};
use bulk::{BulkFile, Payload};
use package::{Export, Flavor, Package, PACKAGE_TAG};
use texture::PlatformData;

/// Classes whose exports carry cooked pixel data (seed 000, issue 5).
fn is_texture_class(class: &str) -> bool {
    matches!(
        class,
        "Texture2D"
            | "TextureCube"
            | "VolumeTexture"
            | "Texture2DArray"
            | "TextureCubeArray"
            | "LightMapTexture2D"
            | "ShadowMapTexture2D"
            | "LightMapVirtualTexture2D"
            | "VirtualTexture2D"
            | "Texture2DDynamic"
            | "TextureLightProfile"
            | "CurveLinearColorAtlas"
    )
}

fn ext_of(name: &str) -> String {
    let b = base_name(name);
    match b.find('.') {
        Some(i) => b[i..].to_ascii_lowercase(),
        None => String::new(),
    }
}

/// The path with its extension replaced, for sibling lookup (`a/T.uasset` -> `a/T.ubulk`).
fn with_ext(name: &str, ext: &str) -> String {
    let b = base_name(name);
    let dir = &name[..name.len() - b.len()];
    format!("{dir}{}{ext}", file_stem(b))
}

/// A sibling in the same folder first; a same-named file anywhere only when it is unique.
fn sibling(ctx: &OpenContext, i: usize, ext: &str) -> Option<usize> {
    let want = with_ext(ctx.sources[i].name(), ext);
    let n = ctx.claimed.len();
    if let Some(j) = (0..n).find(|&j| ctx.sources[j].name().eq_ignore_ascii_case(&want)) {
        return Some(j);
    }
    let b = base_name(&want);
    let hits: Vec<usize> = (0..n)
        .filter(|&j| base_name(ctx.sources[j].name()).eq_ignore_ascii_case(b))
        .collect();
    match hits.as_slice() {
        [j] => Some(*j),
        _ => None,
    }
}

/// A parsed .usmap shared by every package of the drop: its file name and schema.
type Mapping = (String, std::rc::Rc<usmap::Usmap>);

/// Parses the .usmap of user file `i` once per session (`OpenContext::memo`).
fn parse_usmap(ctx: &mut OpenContext, i: usize) -> Result<Mapping> {
    let src = ctx.sources[i].clone();
    let name = base_name(src.name()).to_string();
    // The outcome is kept either way, so a broken .usmap is read once, not once per package.
    let m = ctx.memo(&src, "unreal.usmap", |ctx| {
        Ok(
            crate::io::read_range(src.as_ref(), 0, src.len(), &ctx.limits)
                .and_then(|d| usmap::parse(&d, &ctx.limits))
                .map(std::rc::Rc::new),
        )
    })?;
    Ok((name, m?))
}

/// Claims and parses every dropped .usmap; the first that parses serves all packages.
fn open_usmaps(ctx: &mut OpenContext) -> Option<Mapping> {
    let mut found = None;
    for i in ctx.unclaimed() {
        let name = ctx.sources[i].name().to_string();
        if ext_of(&name) != ".usmap" {
            continue;
        }
        ctx.claimed[i] = true;
        match parse_usmap(ctx, i) {
            Ok(m) if found.is_none() => found = Some(m),
            Ok(_) => {
                let used = found.as_ref().map_or("", |(n, _)| n.as_str());
                ctx.problems.push(FileProblem::new(
                    &name,
                    Some(Engine::Unreal),
                    &Error::unsupported(format!(
                        "only one .usmap is used at a time; this one was ignored for {used}"
                    )),
                ))
            }
            Err(e) => ctx.problems.push(FileProblem::new(
                &name,
                Some(Engine::Unreal),
                &e.in_file(&name),
            )),
        }
    }
    found
}

/// The .usmap of the drop for a package opened from outside [`open`] (a container's entry):
/// the first user file named *.usmap that parses ([`open_usmaps`] reported the others).
fn drop_usmap(ctx: &mut OpenContext) -> Option<Mapping> {
    let maps: Vec<usize> = (0..ctx.claimed.len())
        .filter(|&i| ext_of(ctx.sources[i].name()) == ".usmap")
        .collect();
    maps.into_iter().find_map(|i| parse_usmap(ctx, i).ok())
}

/// The Unreal opener: claims containers (.pak, .utoc/.ucas: `container::open`, which enters
/// each texture package through [`open_package`]) and loose packages with their siblings, lists
/// texture exports.
pub fn open(ctx: &mut OpenContext) {
    let usmap = open_usmaps(ctx);
    let forced = match ctx.unreal_version.as_deref().map(package::parse_version) {
        Some(Ok(f)) => Some(f),
        Some(Err(e)) => {
            // A bad version string is the user's option, not a file's fault: detect instead.
            ctx.problems
                .push(FileProblem::new("--ue-version", Some(Engine::Unreal), &e));
            None
        }
        None => None,
    };
    #[cfg(feature = "containers")]
    container::open(ctx, forced.as_ref());
    #[cfg(not(feature = "containers"))]
    claim_containers(ctx);
    // Loose packages: each file this loop goes through is a step (`OpenStage::LooseFiles`), so a
    // cooked folder of thousands of packages moves the bar inside this pass. Files, not packages:
    // counting the packages first measured 157 B more of the core wasm module (gzipped), which
    // has no room for it.
    let unclaimed = ctx.unclaimed();
    let files = unclaimed.len();
    for (k, i) in unclaimed.into_iter().enumerate() {
        ctx.step(crate::OpenStage::LooseFiles, k + 1, files);
        if ctx.claimed[i] {
            continue;
        }
        let name = ctx.sources[i].name().to_string();
        let ext = ext_of(&name);
        if !matches!(ext.as_str(), ".uasset" | ".uzenasset" | ".umap") {
            continue;
        }
        ctx.claimed[i] = true;
        let legacy = is_legacy(ctx, i);
        let uexp = if legacy {
            sibling(ctx, i, ".uexp")
        } else {
            None
        };
        let ubulk = sibling(ctx, i, ".ubulk");
        let uptnl = sibling(ctx, i, ".uptnl");
        let mubulk = sibling(ctx, i, ".m.ubulk");
        for j in [uexp, ubulk, uptnl, mubulk].into_iter().flatten() {
            ctx.claimed[j] = true;
        }
        // An editor package's payload sidecar: the editor reader finds it again by name. The core
        // module has no editor reader (it reopens the whole drop in the full one), and claiming
        // sidecars there measured 118 B more of it gzipped.
        #[cfg(feature = "editor")]
        if let Some(j) = sibling(ctx, i, ".upayload") {
            ctx.claimed[j] = true;
        }
        let sources = PackageSources {
            main: i,
            uexp,
            ubulk,
            uptnl,
            mubulk,
        };
        let thumbnails = ctx.thumbnails.len();
        match open_with(ctx, &sources, None, usmap.as_ref(), forced.as_ref()) {
            // An editor package of another asset (a material, a mesh): its thumbnail is listed,
            // and the file gets a sentence naming what it holds.
            Ok(0) if ctx.thumbnails.len() > thumbnails => {
                let held: Vec<String> = ctx.thumbnails[thumbnails..]
                    .iter()
                    .map(|t| format!("{} {}", t.class, t.object))
                    .collect();
                ctx.problems.push(FileProblem::new(
                    &name,
                    Some(Engine::Unreal),
                    &Error::not_recognised(format!(
                        "an editor package of {} (no texture; its editor thumbnail is listed)",
                        held.join(", ")
                    )),
                ))
            }
            Ok(0) => ctx.problems.push(FileProblem::new(
                &name,
                Some(Engine::Unreal),
                &Error::not_recognised("the package has no texture export with cooked pixel data"),
            )),
            Ok(_) => {}
            Err(e) => ctx.problems.push(FileProblem::new(
                &name,
                Some(Engine::Unreal),
                &e.in_file(&name),
            )),
        }
    }
    for i in ctx.unclaimed() {
        let name = ctx.sources[i].name().to_string();
        let ext = ext_of(&name);
        #[cfg(feature = "editor")]
        let sidecar = ext == ".upayload";
        #[cfg(not(feature = "editor"))]
        let sidecar = false;
        if ext == ".uexp" || ext.ends_with(".ubulk") || ext.ends_with(".uptnl") || sidecar {
            ctx.claimed[i] = true;
            let e = Error::missing_sibling(
                &with_ext(base_name(&name), ".uasset"),
                format_args!("{name} (it only continues a package)"),
            );
            ctx.problems
                .push(FileProblem::new(&name, Some(Engine::Unreal), &e));
        }
    }
}

/// Without the `containers` feature (the page's first module): .pak/.utoc/.ucas files are
/// claimed and named as needing the full module (a NotInBuild problem makes the page reopen them).
#[cfg(not(feature = "containers"))]
fn claim_containers(ctx: &mut OpenContext) {
    for i in ctx.unclaimed() {
        let name = ctx.sources[i].name().to_string();
        let ext = ext_of(&name);
        let head = ctx.head(i, 16).unwrap_or_default();
        let is_toc = head.starts_with(b"-==--==--==--==-");
        if !(is_toc || matches!(ext.as_str(), ".pak" | ".utoc" | ".ucas")) {
            continue;
        }
        ctx.claimed[i] = true;
        let e = Error::not_in_build("an Unreal container (.pak / IoStore)", "containers");
        ctx.problems.push(FileProblem::new(
            &name,
            Some(Engine::Unreal),
            &e.in_file(&name),
        ));
    }
}

/// A legacy package starts with the 0x9E2A83C1 tag; a zen package has none (notes §2).
fn is_legacy(ctx: &mut OpenContext, i: SourceId) -> bool {
    let head = ctx.head(i, 4).unwrap_or_default();
    head.len() == 4 && u32::from_le_bytes([head[0], head[1], head[2], head[3]]) == PACKAGE_TAG
}

/// The files one package is made of, as catalog sources: loose files, or the derived sources of
/// a container's entries (`OpenContext::add_source`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PackageSources {
    /// The .uasset / .umap (legacy header or zen package).
    pub main: SourceId,
    /// The legacy export data.
    pub uexp: Option<SourceId>,
    /// Streamed bulk data.
    pub ubulk: Option<SourceId>,
    /// Optional bulk data (BULKDATA_OptionalPayload).
    pub uptnl: Option<SourceId>,
    /// Memory-mapped bulk data (PayloadInSeperateFile + MemoryMappedPayload).
    pub mubulk: Option<SourceId>,
}

/// Where a package found inside a container lives.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ContainerEntry {
    /// The container file as the user gave it (the textures' `file`).
    pub file: String,
    /// The package's path inside it (mount point + directory path, `../../../` stripped).
    pub path: String,
}

/// Opens one package from its sources and lists its texture exports into `ctx.textures`; the
/// entry for packages inside containers (issue 17 seam), which the loose-file opener uses too.
/// Returns how many textures were listed; a package with none is not an error here (the caller
/// decides whether to say so). Sources it names must not be claimed by another package.
pub fn open_package(
    ctx: &mut OpenContext,
    sources: &PackageSources,
    container: Option<&ContainerEntry>,
) -> Result<usize> {
    let usmap = drop_usmap(ctx);
    // A bad --ue-version is reported once by `open`; here it is simply not used.
    let forced = ctx
        .unreal_version
        .as_deref()
        .and_then(|v| package::parse_version(v).ok());
    open_with(ctx, sources, container, usmap.as_ref(), forced.as_ref())
}

fn open_with(
    ctx: &mut OpenContext,
    files: &PackageSources,
    container: Option<&ContainerEntry>,
    usmap: Option<&Mapping>,
    forced: Option<&package::ForcedVersion>,
) -> Result<usize> {
    let legacy = is_legacy(ctx, files.main);
    let first = ctx.textures.len();
    let main = ctx.sources[files.main].clone();
    let pkg = if legacy {
        package::parse_legacy(main.as_ref(), &ctx.limits, forced)?
    } else {
        let mut p = package::parse_zen(main.as_ref(), &ctx.limits)?;
        if let Some(f) = forced {
            // Zen headers tell UE4 from UE5 and 5.0-5.2 from 5.3+ themselves; a contradiction
            // is an error, agreement makes the version exact.
            let zen_ue4 = p.flavor == Flavor::Zen4;
            let late = matches!(p.flavor, Flavor::Zen5 { since_5_3: true });
            if (f.major == 4) != zen_ue4 || (f.major >= 5 && (f.major > 5 || f.minor >= 3) != late)
            {
                return Err(Error::unsupported(format!(
                    "the zen header is {} but the forced Unreal version is {}",
                    p.engine_guess, f.label
                )));
            }
            p.engine_guess = format!("{} (forced; detected {})", f.label, p.engine_guess);
            p.versions.forced = Some((f.major, f.minor));
        }
        p
    };
    // An editor package's export data follows its header in the same file; one split into a
    // .uexp like a cooked one (as the versioned fixtures write) is read as cooked.
    let editor_package = pkg.is_editor() && pkg.exports.iter().all(|e| !e.in_uexp);
    #[cfg(not(feature = "editor"))]
    if editor_package {
        return Err(Error::not_in_build(
            "an Unreal editor (uncooked) package",
            "editor",
        ));
    }
    #[cfg(feature = "editor")]
    if pkg.thumbnail_offset > 0 {
        match editor::read_thumbnails(main.as_ref(), &pkg, files.main, &ctx.limits) {
            Ok(list) => ctx.thumbnails.extend(list),
            Err(e) => ctx.problems.push(FileProblem::new(
                main.name(),
                Some(Engine::Unreal),
                &e.in_file(main.name()),
            )),
        }
    }
    #[cfg(feature = "editor")]
    if editor_package {
        let n = editor::open_exports(ctx, files, &pkg, usmap);
        in_container(ctx, first, container);
        return Ok(n);
    }
    let mut found = 0;
    // (export index, catalog index) of each texture listed: landscape providers name theirs.
    let mut texture_exports = Vec::new();
    for (k, export) in pkg.exports.iter().enumerate() {
        if let Some(class) = &export.class {
            if !is_texture_class(class) {
                continue;
            }
        }
        let data_src = if export.in_uexp {
            match files.uexp {
                Some(j) => j,
                None => {
                    let uexp = with_ext(base_name(main.name()), ".uexp");
                    let header = export.coord_delta.max(0) as u64;
                    // A .uasset that goes on past its header was meant to hold its exports (a
                    // cooked package from before the split): it is more likely cut short.
                    if main.len() > header {
                        return Err(Error::malformed(format!(
                            "the export data of {} ends at byte {}, past the end of the {}-byte \
                             file: the file is cut short (or it is split and {uexp} was not \
                             opened)",
                            export.name,
                            header + export.start + export.size,
                            main.len()
                        )));
                    }
                    return Err(Error::missing_sibling(
                        &uexp,
                        format_args!("the export data of {}", export.name),
                    ));
                }
            }
        } else {
            files.main
        };
        let src = ctx.sources[data_src].clone();
        let blocks = match texture::find_platform_data(src.as_ref(), &pkg, export, &ctx.limits) {
            Ok(b) => b,
            // Zen exports name no class: anything without platform data is simply not a texture.
            Err(_) if export.class.is_none() => continue,
            Err(e) => {
                let t = error_texture(main.name(), export, &e.in_file(src.name()));
                ctx.textures.push(t);
                found += 1;
                continue;
            }
        };
        let mut t = build_texture(ctx, files, &pkg, export, data_src, &blocks);
        let props_len = blocks[0].start.saturating_sub(export.start);
        read_properties(ctx, &pkg, export, data_src, props_len, usmap, &mut t);
        #[cfg(feature = "tiling-switch")]
        set_console_layout(ctx, files, container, &mut t);
        #[cfg(not(feature = "tiling-switch"))]
        if console_named(ctx, files, container) {
            // The first wasm module has no untilers: the files are reopened in the full one.
            return Err(Error::not_in_build("a console cook", "tiling-switch"));
        }
        texture_exports.push((k, ctx.textures.len()));
        ctx.textures.push(t);
        found += 1;
    }
    #[cfg(feature = "landscape")]
    landscape::attach(ctx, files, &pkg, &texture_exports);
    #[cfg(not(feature = "landscape"))]
    landscape_not_in_build(ctx, &pkg, &texture_exports);
    in_container(ctx, first, container);
    Ok(found)
}

/// Census "file" is the container the user gave; the package's path inside it is
/// `Texture::path` (census "path"), for the textures listed from `first` on.
fn in_container(ctx: &mut OpenContext, first: usize, container: Option<&ContainerEntry>) {
    if let Some(c) = container {
        for t in &mut ctx.textures[first..] {
            t.file = c.file.clone();
            t.path = Some(c.path.clone());
        }
    }
}

/// Without the `landscape` feature (the page's first module): a package whose heightmap has its
/// pixels in a LandscapeTextureStorageProviderFactory is a NotInBuild problem, so the page reopens
/// it in the full module, which reads them (src/unreal/landscape.rs).
#[cfg(not(feature = "landscape"))]
fn landscape_not_in_build(ctx: &mut OpenContext, pkg: &Package, textures: &[(usize, usize)]) {
    let provider = pkg
        .exports
        .iter()
        .any(|e| e.class.as_deref() == Some("LandscapeTextureStorageProviderFactory"));
    let without_pixels = textures.iter().any(|&(_, t)| {
        ctx.textures[t]
            .error
            .as_deref()
            .is_some_and(|m| m.contains("bSerializeMipData"))
    });
    if provider && without_pixels {
        let e = Error::not_in_build(
            "a landscape heightmap (LandscapeTextureStorageProviderFactory)",
            "landscape",
        );
        let file = ctx.textures[textures[0].1].file.clone();
        ctx.problems.push(FileProblem::new(
            &file,
            Some(Engine::Unreal),
            &e.in_file(&file),
        ));
    }
}

#[cfg(not(feature = "tiling-switch"))]
/// Whether the package's path or container names a console cook, cheaply (the first wasm module
/// only needs to know it must hand the files to the full one; [`platform_from_path`] decides).
fn console_named(
    ctx: &OpenContext,
    files: &PackageSources,
    container: Option<&ContainerEntry>,
) -> bool {
    let named = |n: &str| n.contains("Switch") || n.contains("PS4") || n.contains("PS5");
    named(ctx.sources[files.main].name()) || container.is_some_and(|c| named(&c.file))
}

/// The console an Unreal cook is for, from what its files say: the cook's platform folder
/// (`Saved/Cooked/<Platform>/`, UE's cook output path) or a container named for its platform
/// (UE's `pakchunk0-Switch.pak`, `-PS4`, `-PS5`). `None` when they say nothing.
#[cfg(feature = "tiling-switch")]
pub fn platform_from_path(path: &str) -> Option<Platform> {
    let p = path.replace('\\', "/").to_ascii_lowercase();
    let by_folder = p.split("/cooked/").nth(1).and_then(|rest| {
        let folder = rest.split('/').next()?;
        // Cooked platform folders: Switch, PS4, PS5; UE5 also writes the PS5 folder as
        // "PS5" and the Switch one as "Switch" (no client/server suffix on consoles).
        match folder {
            "switch" => Some(Platform::Switch),
            "ps4" => Some(Platform::Ps4),
            "ps5" => Some(Platform::Ps5),
            "windows" | "windowsnoeditor" | "windowsclient" | "linux" | "linuxnoeditor" | "mac"
            | "android" | "ios" => Some(Platform::Pc),
            _ => None,
        }
    });
    by_folder.or_else(|| {
        let name = p.rsplit('/').next()?;
        let stem = name.rsplit_once('.').map_or(name, |(s, _)| s);
        // The platform is the last dash-separated word of the container's name, before a
        // patch suffix: pakchunk0-Switch.pak, pakchunk1-PS5_P.utoc.
        let word = stem.trim_end_matches("_p").rsplit('-').next()?;
        match word {
            "switch" => Some(Platform::Switch),
            "ps4" => Some(Platform::Ps4),
            "ps5" => Some(Platform::Ps5),
            _ => None,
        }
    })
}

/// The surface layout an Unreal cook for `platform` stores mip 0 of a `w` x `h` `format` in.
/// No real UE console cook is public, so these are the platforms' defaults, assumed:
/// - Switch: block-linear with the block height NVN picks when a texture states none
///   (`block_linear::default_block_height`, the rule Ryujinx and `tegra_swizzle` implement);
/// - PS4: GCN tile mode 13 (Thin_1dThin) with the pitch aligned to 8 elements, what Sony's
///   image2gnf writes by default (the shared PS4 .gnf files: 338 -> 344, 750 -> 752);
/// - PS5: RDNA swizzle mode 9 (SW_64KB_S), what the PS5 image2gnf writes (the shared PS5 .gnf
///   files).
#[cfg(feature = "tiling-switch")]
pub fn console_tiling(
    platform: Platform,
    format: crate::PixelFormat,
    w: u32,
    h: u32,
    mips: u32,
) -> Tiling {
    let b = format.block();
    match platform {
        Platform::Pc => Tiling::Linear,
        Platform::Switch => Tiling::BlockLinear {
            block_height: crate::codec::tiling::block_linear::default_block_height(
                (h as u64).div_ceil(b.height as u64),
            ),
        },
        // The descriptor's pitch is in texels (gcn::Surface divides it by the block width).
        Platform::Ps4 => Tiling::Gcn {
            tile_mode: 13,
            pitch: w.div_ceil(b.width).next_multiple_of(8) * b.width,
        },
        Platform::Ps5 => {
            // The chain decides which small levels share the mip tail (GFX10 places them
            // together); a chain the swizzle mode cannot place keeps every level apart.
            let first_mip_in_tail = crate::codec::tiling::rdna::chain(9, format, w, h, mips)
                .map_or(mips, |(_, first, _)| first);
            Tiling::Rdna {
                swizzle_mode: 9,
                first_mip_in_tail,
            }
        }
    }
}

/// Sets a texture's platform (files first, then the user's choice) and, for a console, its
/// surface layout.
#[cfg(feature = "tiling-switch")]
fn set_console_layout(
    ctx: &OpenContext,
    files: &PackageSources,
    container: Option<&ContainerEntry>,
    t: &mut Texture,
) {
    let said = container
        .and_then(|c| platform_from_path(&c.file))
        .map(|p| (p, "the container's name"))
        .or_else(|| {
            platform_from_path(ctx.sources[files.main].name()).map(|p| (p, "the cook folder"))
        });
    let Some((platform, from)) = said.or(ctx.platform.map(|p| (p, "chosen"))) else {
        return;
    };
    t.platform = Some(platform);
    t.add_meta("platform", format!("{} ({from})", platform.name()));
    if t.is_virtual() || !matches!(t.layout, Layout::Surfaces) || t.error.is_some() {
        return;
    }
    t.tiling = console_tiling(platform, t.format, t.width, t.height, t.mips.len() as u32);
}

fn error_texture(file: &str, export: &Export, e: &Error) -> Texture {
    Texture {
        file: file.to_string(),
        path: None,
        engine: Engine::Unreal,
        name: export.name.clone(),
        class: export.class.clone().unwrap_or_else(|| "Texture".into()),
        kind: TextureKind::Tex2D,
        format: crate::PixelFormat::RGBA8,
        native_format: NativeFormat::Name(String::new()),
        width: 0,
        height: 0,
        depth: 1,
        authored: None,
        slices: 1,
        mips: Vec::new(),
        color_space: ColorSpace::Unknown,
        normal_map: None,
        platform: None,
        tiling: crate::codec::tiling::Tiling::Linear,
        rows: RowOrder::TopFirst,
        layout: Layout::Surfaces,
        metadata: Vec::new(),
        notes: Vec::new(),
        error: Some(e.to_string()),
    }
}

fn flavor_name(pkg: &Package) -> &'static str {
    match pkg.flavor {
        // Cooked before the event-driven loader split packages (UE 4.0-4.15): one file.
        Flavor::Legacy if pkg.exports.iter().all(|e| !e.in_uexp) => {
            "legacy (one .uasset: export data after the header, no .uexp)"
        }
        Flavor::Legacy => "legacy (.uasset + .uexp)",
        Flavor::Zen4 => "zen (UE4.26/4.27 IoStore)",
        Flavor::Zen5 { .. } => "zen (UE5 IoStore)",
    }
}

/// Maps a payload onto the opened files.
fn storage(
    ctx: &mut OpenContext,
    files: &PackageSources,
    data_src: SourceId,
    p: &Payload,
) -> (Storage, String) {
    match p {
        Payload::Zlib { stored, raw_size } => {
            let (inner, note) = storage(ctx, files, data_src, stored);
            match inner {
                Storage::Range {
                    source,
                    offset,
                    length,
                } => {
                    // Inflated once at open time into a derived source: compressed bulk data is
                    // rare (editor-era packages) and small, and ranged reads need plain bytes.
                    let max = if *raw_size > 0 {
                        *raw_size
                    } else {
                        ctx.limits.max_alloc
                    };
                    let src = ctx.sources[source].clone();
                    let res = crate::io::read_range(src.as_ref(), offset, length, &ctx.limits)
                        .and_then(|d| bulk::inflate_chunks(&d, max, &ctx.limits));
                    match res {
                        Ok(out) => {
                            let len = out.len() as u64;
                            let name = format!("{} (inflated bulk data at {offset})", src.name());
                            let id = ctx.add_source(crate::io::BytesSource::shared(name, out));
                            (
                                Storage::Range {
                                    source: id,
                                    offset: 0,
                                    length: len,
                                },
                                format!("{note}, zlib-compressed"),
                            )
                        }
                        Err(e) => (Storage::Empty, format!("{note}, zlib-compressed: {e}")),
                    }
                }
                Storage::Missing { file, .. } => (
                    Storage::Missing {
                        file,
                        length: *raw_size,
                    },
                    note,
                ),
                Storage::Empty => (Storage::Empty, note),
            }
        }
        Payload::Inline { pos, size } => (
            Storage::Range {
                source: data_src,
                offset: *pos,
                length: *size,
            },
            "inline".into(),
        ),
        Payload::External { file, offset, size } => {
            let ext = file.ext();
            let idx = match file {
                BulkFile::Ubulk => files.ubulk,
                BulkFile::Uptnl => files.uptnl,
                BulkFile::MappedUbulk if files.mubulk.is_some() => files.mubulk,
                BulkFile::MappedUbulk | BulkFile::Cooked { .. } => {
                    let j = sibling(ctx, files.main, &ext);
                    if let Some(j) = j {
                        ctx.claimed[j] = true;
                    }
                    j
                }
            };
            let fname = with_ext(base_name(ctx.sources[files.main].name()), &ext);
            match idx {
                Some(j) => (
                    Storage::Range {
                        source: j,
                        offset: *offset,
                        length: *size,
                    },
                    fname,
                ),
                None => (
                    Storage::Missing {
                        file: fname.clone(),
                        length: *size,
                    },
                    fname,
                ),
            }
        }
        Payload::Nothing | Payload::Unreadable(_) => (Storage::Empty, "none".into()),
    }
}

fn mip_list(ids: &[usize]) -> String {
    match (ids.first(), ids.last()) {
        (Some(a), Some(b)) if a == b => format!("mip {a}"),
        (Some(a), Some(b)) if b - a + 1 == ids.len() => format!("mips {a}-{b}"),
        _ => format!(
            "mips {}",
            ids.iter()
                .map(|i| i.to_string())
                .collect::<Vec<_>>()
                .join(", ")
        ),
    }
}

fn build_texture(
    ctx: &mut OpenContext,
    files: &PackageSources,
    pkg: &Package,
    export: &Export,
    data_src: SourceId,
    blocks: &[PlatformData],
) -> Texture {
    let pd = &blocks[0];
    let file = ctx.sources[files.main].name().to_string();
    let format = pixel_format::pixel_format(&pd.pixel_format);
    let mut t = error_texture(&file, export, &Error::malformed(""));
    t.error = None;
    t.native_format = NativeFormat::Name(pd.pixel_format.clone());
    t.format = format.unwrap_or(crate::PixelFormat::RGBA8);
    if format.is_none() {
        t.error = Some(format!(
            "pixel format {} is not supported by Texscope",
            pd.pixel_format
        ));
    }
    t.add_meta("Package", flavor_name(pkg));
    t.add_meta("Engine (guessed from layout)", engine_guess(pkg, pd));
    t.add_meta("Package flags", format!("0x{:08X}", pkg.package_flags));
    t.add_meta("Pixel format", &pd.pixel_format);
    t.add_meta("PackedData", format!("0x{:08X}", pd.packed_data));
    t.add_meta("SizeX x SizeY", format!("{}x{}", pd.size_x, pd.size_y));
    t.add_meta("FirstMipToSerialize", pd.first_mip);
    t.add_meta(
        "Platform data",
        format!(
            "bytes {}..{} of {}",
            pd.start,
            pd.end,
            ctx.sources[data_src].name()
        ),
    );
    if blocks.len() > 1 {
        let others: Vec<&str> = blocks[1..]
            .iter()
            .map(|b| b.pixel_format.as_str())
            .collect();
        t.add_meta("Other cooked formats", others.join(", "));
        t.notes.push(format!(
            "the package holds {} cooked formats; showing the first ({})",
            blocks.len(),
            pd.pixel_format
        ));
    }
    // The class decides the kind (legacy: the import map's class name; zen: the script class
    // its hash names, `script::class_name`). PackedData cannot: a Texture2DArray and a
    // VolumeTexture both store their slice count there and in every mip's SizeZ (T_Array and
    // T_Volume of the UE 5.8 set). Only a class Texscope does not know falls back on the
    // platform data.
    let inferred = export.class.is_none();
    let class = export.class.clone().unwrap_or_else(|| {
        if pd.is_cube() {
            if pd.num_slices() > 6 {
                "TextureCubeArray".into()
            } else {
                "TextureCube".into()
            }
        } else if pd.mips.first().is_some_and(|m| m.depth > 1) {
            "VolumeTexture".into()
        } else if pd.num_slices() > 1 {
            "Texture2DArray".into()
        } else {
            "Texture2D".into()
        }
    });
    if inferred {
        t.notes.push(format!(
            "the export's class is not one of the engine's texture classes Texscope knows by \
             hash; {class} is inferred from its platform data"
        ));
    }
    let slices = pd.num_slices().max(1);
    // A cube array is a cube with faces x layers slices, as the model and DDS export keep it
    // (the page labels slice i as face i % 6 of layer i / 6).
    let (kind, slices) = match class.as_str() {
        "TextureCube" => (TextureKind::Cube, 6),
        "TextureCubeArray" => (TextureKind::Cube, slices.max(6)),
        "Texture2DArray" => (TextureKind::Array, slices),
        "VolumeTexture" => (TextureKind::Volume, 1),
        _ if pd.is_cube() => (TextureKind::Cube, slices.max(6)),
        _ if pd.mips.first().is_some_and(|m| m.depth > 1) => (TextureKind::Volume, 1),
        _ if slices > 1 => (TextureKind::Array, slices),
        _ => (TextureKind::Tex2D, 1),
    };
    t.class = class;
    t.kind = kind;
    t.slices = slices;
    if t.format == crate::PixelFormat::BC5 {
        // Issue 5: BC5 is how UE cooks TC_Normalmap (notes §6); the properties saying so are
        // unversioned, so this is the format's usual meaning, not a read fact.
        t.normal_map = Some(NormalEncoding::Rg);
    }

    if let Some(raw) = &pd.vt {
        return build_vt(ctx, files, data_src, t, raw, pd);
    }

    let mut missing_by_file: Vec<(String, Vec<usize>)> = Vec::new();
    for (i, m) in pd.mips.iter().enumerate() {
        if let Payload::Unreadable(msg) = &m.payload {
            // The first unreadable mip names the problem; without mip data every mip is.
            if !pd.mip_data {
                t.error.get_or_insert_with(|| msg.clone());
            } else {
                t.error.get_or_insert_with(|| format!("mip {i}: {msg}"));
            }
        }
        let (st, mut note) = storage(ctx, files, data_src, &m.payload);
        // PayloadAtEndOfFile alone: after the export data in the same file (a one-file cooked
        // package's streamed mips, or the end of a .uexp), not inline in the export.
        let flags = bulk::bulk_flags::PAYLOAD_AT_END_OF_FILE
            | bulk::bulk_flags::FORCE_INLINE_PAYLOAD
            | bulk::bulk_flags::PAYLOAD_IN_SEPARATE_FILE
            | bulk::bulk_flags::OPTIONAL_PAYLOAD;
        if matches!(m.payload, Payload::Inline { .. })
            && m.flags & flags == bulk::bulk_flags::PAYLOAD_AT_END_OF_FILE
        {
            note = "end of file".into();
        }
        if matches!(m.payload, Payload::Zlib { .. }) && matches!(st, Storage::Empty) {
            t.error = Some(format!("mip {i}: {note}"));
        }
        t.add_meta(
            &format!("mip {i} bulk"),
            format!(
                "{}x{}x{} {}; {} ({}); {}",
                m.width,
                m.height,
                m.depth,
                m.how,
                bulk::bulk_flags::describe(m.flags),
                m.flags,
                match &m.payload {
                    Payload::Inline { pos, size } => format!("{size} bytes inline at {pos}"),
                    Payload::External { offset, size, .. } =>
                        format!("{size} bytes at {offset} of {note}"),
                    Payload::Nothing => "no payload".into(),
                    Payload::Unreadable(s) => s.clone(),
                    Payload::Zlib { raw_size, .. } => format!("{raw_size} bytes raw; {note}"),
                }
            ),
        );
        if let Storage::Missing { file, .. } = &st {
            match missing_by_file.iter_mut().find(|(f, _)| f == file) {
                Some((_, v)) => v.push(i),
                None => missing_by_file.push((file.clone(), vec![i])),
            }
        }
        let surfaces = split_surfaces(&st, kind, slices);
        t.mips.push(Mip {
            width: m.width,
            height: m.height,
            depth: if kind == TextureKind::Volume {
                m.depth
            } else {
                1
            },
            surfaces,
            location_note: note,
        });
        if let (Some(f), Some(len)) = (format, st_len(&st)) {
            // A volume mip holds its depth slices; an array or cube mip its slices (an array's
            // SizeZ repeats the slice count, it is not a depth).
            let images = if kind == TextureKind::Volume {
                m.depth.max(1)
            } else {
                slices
            };
            let need = f.surface_size(m.width, m.height) * images as u64;
            if len < need {
                t.notes.push(format!(
                    "mip {i} stores {len} bytes but a {}x{} {} mip needs {need}",
                    m.width, m.height, pd.pixel_format
                ));
            }
        }
    }
    for (f, ids) in missing_by_file {
        t.notes.push(format!(
            "{} ({}) live in {f}, which was not opened: drop it with the package to see them",
            mip_list(&ids),
            ids.iter()
                .map(|&i| format!("{}x{}", pd.mips[i].width, pd.mips[i].height))
                .collect::<Vec<_>>()
                .join(", ")
        ));
    }
    if let Some(m0) = t.mips.first() {
        t.width = m0.width;
        t.height = m0.height;
        t.depth = m0.depth;
        if (m0.width, m0.height) != (pd.size_x, pd.size_y) {
            t.authored = Some((pd.size_x, pd.size_y));
            let shift = (0..16).find(|&k| {
                (pd.size_x >> k).max(1) == m0.width && (pd.size_y >> k).max(1) == m0.height
            });
            t.notes.push(match shift {
                Some(k) if k == pd.first_mip.max(0) as u32 => format!(
                    "authored {}x{}, cooked {}x{}: the top {k} mips were dropped \
                     (FirstMipToSerialize {k})",
                    pd.size_x, pd.size_y, m0.width, m0.height
                ),
                Some(k) => format!(
                    "authored {}x{}, cooked {}x{}: a LOD bias of {k} mips",
                    pd.size_x, pd.size_y, m0.width, m0.height
                ),
                None => format!(
                    "authored {}x{} is not a whole-mip shift of the cooked {}x{}",
                    pd.size_x, pd.size_y, m0.width, m0.height
                ),
            });
        }
    } else if t.error.is_none() {
        t.error = Some("the texture has no mips".into());
    }
    t
}

fn st_len(s: &Storage) -> Option<u64> {
    match s {
        Storage::Range { length, .. } | Storage::Missing { length, .. } => Some(*length),
        Storage::Empty => None,
    }
}

/// Cube faces and array layers are stored back to back in one payload (notes §3.2).
fn split_surfaces(st: &Storage, kind: TextureKind, slices: u32) -> Vec<Storage> {
    if kind == TextureKind::Volume || slices <= 1 {
        return vec![st.clone()];
    }
    let n = slices as u64;
    (0..n)
        .map(|k| match st {
            Storage::Range {
                source,
                offset,
                length,
            } => Storage::Range {
                source: *source,
                offset: offset + k * (length / n),
                length: length / n,
            },
            Storage::Missing { file, length } => Storage::Missing {
                file: file.clone(),
                length: length / n,
            },
            Storage::Empty => Storage::Empty,
        })
        .collect()
}

fn engine_guess(pkg: &Package, pd: &PlatformData) -> String {
    let tail = match pd.layout {
        texture::TailLayout::Ue4Old => "UE4.0-4.19 texture layout",
        texture::TailLayout::Ue4 => "UE4.20+ texture layout",
        texture::TailLayout::Ue5 => "UE5 texture layout",
    };
    format!("{} ({tail})", pkg.engine_guess)
}

fn build_vt(
    ctx: &mut OpenContext,
    files: &PackageSources,
    data_src: SourceId,
    mut t: Texture,
    raw: &vt::VtRaw,
    pd: &PlatformData,
) -> Texture {
    let mut layout = raw.layout.clone();
    let mut missing = Vec::new();
    for (k, (chunk, p)) in layout
        .chunks
        .iter_mut()
        .zip(&raw.chunk_payloads)
        .enumerate()
    {
        let (st, _) = storage(ctx, files, data_src, p);
        if let Storage::Missing { file, .. } = &st {
            missing.push((k, file.clone()));
        }
        chunk.storage = st;
    }
    t.format = layout.layers[0].format;
    t.native_format = NativeFormat::Name(layout.layers[0].native_format.clone());
    t.kind = TextureKind::Tex2D;
    t.slices = layout.layers.len() as u32;
    t.width = layout.width;
    t.height = layout.height;
    if (pd.size_x, pd.size_y) != (layout.width, layout.height) {
        t.authored = Some((pd.size_x, pd.size_y));
    }
    t.normal_map = None;
    t.add_meta(
        "Virtual texture",
        format!(
            "{} layers ({}), tile {} + border {}, {} chunks",
            layout.layers.len(),
            layout
                .layers
                .iter()
                .map(|l| l.native_format.as_str())
                .collect::<Vec<_>>()
                .join(", "),
            layout.tile_size,
            layout.tile_border,
            layout.chunks.len()
        ),
    );
    t.add_meta("VT record form", layout.record_form.clone());
    t.notes.push(
        "virtual texture: slices are its layers; decode any mip or rectangle of tiles".into(),
    );
    for (k, f) in &missing {
        let mips: Vec<usize> = layout
            .mips
            .iter()
            .enumerate()
            .filter(|(_, m)| m.chunk as usize == *k)
            .map(|(i, _)| i)
            .collect();
        t.notes.push(format!(
            "VT chunk {k} ({}) lives in {f}, which was not opened: its tiles show the fallback colour",
            mip_list(&mips)
        ));
    }
    t.mips = layout
        .mips
        .iter()
        .map(|m| Mip {
            width: m.width,
            height: m.height,
            depth: 1,
            surfaces: Vec::new(),
            location_note: format!("VT chunk {}", m.chunk),
        })
        .collect();
    t.layout = Layout::Virtual(Box::new(layout));
    t
}

/// PKG_UnversionedProperties: the property block has no tags and needs a .usmap.
const PKG_UNVERSIONED_PROPERTIES: u32 = 0x2000;

/// Reads the export's property block (from the export start to the platform data) into the
/// metadata: SRGB, CompressionSettings, LODGroup, Filter, address modes ... (issue 5).
/// Returns the walk (None when the block could not be read or needs a .usmap not given);
/// `props_len` bounds the block (the bytes before the platform data, or the export's size).
fn read_properties(
    ctx: &OpenContext,
    pkg: &Package,
    export: &Export,
    data_src: SourceId,
    props_len: u64,
    usmap: Option<&Mapping>,
    t: &mut Texture,
) -> Option<props::Walk> {
    let unversioned = pkg.package_flags & PKG_UNVERSIONED_PROPERTIES != 0;
    let facts = props::CLASS_DEFAULTS
        .iter()
        .map(|(n, _)| *n)
        .collect::<Vec<_>>()
        .join(", ");
    if unversioned && usmap.is_none() {
        t.add_meta(
            "Properties",
            format!("unversioned; drop the game's .usmap to read {facts} (unknown until then)"),
        );
        t.notes.push(format!(
            "colour space unknown: the properties are unversioned; drop the game's .usmap to read {facts}"
        ));
        return None;
    }
    // The property block is small (a few hundred bytes in every sample); 1 MiB bounds a hostile one.
    let len = props_len.min(1 << 20);
    let src = ctx.sources[data_src].clone();
    let block = match crate::io::read_range(src.as_ref(), export.start, len, &ctx.limits) {
        Ok(b) => b,
        Err(e) => {
            t.add_meta("Properties", format!("not read: {e}"));
            return None;
        }
    };
    let (lwc, top_level_paths) = match pkg.flavor {
        Flavor::Legacy => (pkg.ue5_version >= 1004, pkg.ue5_version >= 1007),
        Flavor::Zen4 => (false, false),
        Flavor::Zen5 { since_5_3 } => (true, since_5_3 || pkg.resources.is_some()),
    };
    let pctx = props::Ctx {
        names: &pkg.names,
        usmap: usmap.map(|u| u.1.as_ref()),
        lwc,
        top_level_paths,
        ue5: pkg.ue5_version,
        ue4: pkg.ue4_version(),
    };
    let mut r = crate::io::Reader::at(&block, export.start);
    let w = if unversioned {
        props::walk_unversioned(&pctx, &mut r, &t.class)
    } else {
        props::walk_tagged(&pctx, &mut r)
    };
    t.add_meta(
        "Properties",
        match (unversioned, usmap) {
            (true, Some((f, _))) => format!("unversioned, read with {f}; {} bytes", w.end),
            _ => format!("tagged; {} bytes", w.end),
        },
    );
    for name in props::WANTED {
        if let Some(v) = w.get(name) {
            t.add_meta(name, v);
        } else if w.stopped.is_none() && (!unversioned || w.defaulted.iter().any(|d| d == name)) {
            // Both forms leave out a property that equals its class default.
            if let Some((_, d)) = props::CLASS_DEFAULTS.iter().find(|(n, _)| n == name) {
                t.add_meta(name, format!("{d} (not stored: class default)"));
            }
        }
    }
    if let Some(s) = &w.stopped {
        t.add_meta("Properties stopped", s);
        t.notes.push(format!(
            "the property walk stopped early ({s}); later facts are unknown"
        ));
    }
    if w.get("CompressionSettings") == Some("TC_Normalmap")
        && matches!(t.format, crate::PixelFormat::ASTC { .. })
    {
        // UE cooks ASTC normal maps with X in red (and green and blue) and Y in alpha (the UE
        // 5.8 Android fixture T_ASTC_Normal against normal.png: R = G = B = the source's X, A its
        // Y in every texel; CUE4Parse's fixture test compares the same channels): NormalEncoding::Ra.
        t.normal_map = Some(NormalEncoding::Ra);
        t.notes
            .push("normal map: X in red (and green, blue), Y in alpha, Z not stored".into());
    }
    let srgb = match w.get("SRGB") {
        Some(v) => Some(v == "true"),
        None if w.stopped.is_none() => Some(true), // UTexture's constructor default
        None => None,
    };
    t.color_space = match srgb {
        Some(true) => ColorSpace::Srgb,
        Some(false) => ColorSpace::Linear,
        None => ColorSpace::Unknown,
    };
    if t.color_space == ColorSpace::Unknown {
        t.notes
            .push("colour space unknown: SRGB was not read".into());
    }
    Some(w)
}
