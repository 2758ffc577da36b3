//! Generated .dds fixtures shared by tests/dds.rs and tests/cli.rs: deterministic random bytes
//! for every surface, written with `texscope::formats::dds::write`, so each test knows exactly which
//! bytes every mip and slice holds.
#![allow(dead_code)] // each test crate uses a different part

use texscope::codec::ALL_FIXED;
use texscope::formats::dds::{self, Desc};
use texscope::model::mip_dims;
use texscope::{decode_surface, Limits, PixelFormat, TextureKind};

/// xorshift64*: deterministic bytes without a dependency.
pub fn random_bytes(seed: u64, n: usize) -> Vec<u8> {
    let mut s = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    (0..n)
        .map(|_| {
            s ^= s >> 12;
            s ^= s << 25;
            s ^= s >> 27;
            (s.wrapping_mul(0x2545_F491_4F6C_DD1D) >> 56) as u8
        })
        .collect()
}

/// The fixed formats `decode_surface` decodes today and a .dds can hold (the fixtures follow the
/// codec as it grows; ETC/EAC have no DXGI format and are tested through KTX).
pub fn decodable_formats() -> Vec<PixelFormat> {
    ALL_FIXED
        .iter()
        .copied()
        .filter(|&f| texscope::formats::dds::can_write(f))
        .filter(|&f| {
            let zeros = vec![0u8; f.surface_size(8, 8) as usize];
            decode_surface(f, 8, 8, &zeros, &Limits::default()).is_ok()
        })
        .collect()
}

pub struct Fixture {
    /// File name, e.g. `BC1_13x9.dds`.
    pub file: String,
    pub desc: Desc,
    /// `surfaces[slice][mip]`; a volume has one slice whose mips hold every depth slice.
    pub surfaces: Vec<Vec<Vec<u8>>>,
}

impl Fixture {
    pub fn new(file: &str, desc: Desc) -> Fixture {
        let volume = desc.kind == TextureKind::Volume;
        let slices = if volume { 1 } else { desc.slices };
        let seed = file
            .bytes()
            .fold(7u64, |a, b| a.wrapping_mul(31).wrapping_add(b as u64));
        let surfaces = (0..slices)
            .map(|s| {
                (0..desc.mips)
                    .map(|m| {
                        let (w, h, d) = mip_dims(desc.width, desc.height, desc.depth, m);
                        let n = desc.format.surface_size(w, h) * if volume { d as u64 } else { 1 };
                        random_bytes(seed ^ ((s as u64) << 32 | m as u64), n as usize)
                    })
                    .collect()
            })
            .collect();
        Fixture {
            file: file.to_string(),
            desc,
            surfaces,
        }
    }

    pub fn simple(file: &str, format: PixelFormat, w: u32, h: u32, mips: u32) -> Fixture {
        Fixture::new(file, desc(format, w, h, mips))
    }

    pub fn bytes(&self) -> Vec<u8> {
        dds::write(&self.desc, |m, s| {
            Ok(self.surfaces[s as usize][m as usize].clone())
        })
        .unwrap()
    }

    /// Images the viewer can pick at `mip` (depth slices for a volume).
    pub fn surface_count(&self, mip: u32) -> u32 {
        if self.desc.kind == TextureKind::Volume {
            mip_dims(self.desc.width, self.desc.height, self.desc.depth, mip).2
        } else {
            self.desc.slices
        }
    }

    /// The stored bytes of one 2D image, and its size.
    pub fn surface(&self, mip: u32, slice: u32) -> (&[u8], u32, u32) {
        let (w, h, _) = mip_dims(self.desc.width, self.desc.height, self.desc.depth, mip);
        if self.desc.kind == TextureKind::Volume {
            let n = self.desc.format.surface_size(w, h) as usize;
            let all = &self.surfaces[0][mip as usize];
            (&all[slice as usize * n..(slice as usize + 1) * n], w, h)
        } else {
            (&self.surfaces[slice as usize][mip as usize], w, h)
        }
    }
}

pub fn desc(format: PixelFormat, w: u32, h: u32, mips: u32) -> Desc {
    Desc::plain_2d(format, w, h, mips)
}

/// A 2D texture per decodable format (NPOT 13x9, 4 mips down to 1x1), plus one of each shape:
/// 1x1, array, cube, cube array, volume, sRGB, DX10-forced.
pub fn standard_set() -> Vec<Fixture> {
    let mut v: Vec<Fixture> = decodable_formats()
        .into_iter()
        .map(|f| Fixture::simple(&format!("{}_13x9.dds", f.name()), f, 13, 9, 4))
        .collect();
    v.push(Fixture::simple("BC1_1x1.dds", PixelFormat::BC1, 1, 1, 1));
    v.push(Fixture::new(
        "RGBA8_array3.dds",
        Desc {
            kind: TextureKind::Array,
            slices: 3,
            ..desc(PixelFormat::RGBA8, 8, 4, 2)
        },
    ));
    v.push(Fixture::new(
        "BC3_cube.dds",
        Desc {
            kind: TextureKind::Cube,
            slices: 6,
            ..desc(PixelFormat::BC3, 8, 8, 3)
        },
    ));
    v.push(Fixture::new(
        "RGBA16F_cubearray2.dds",
        Desc {
            kind: TextureKind::Cube,
            slices: 12,
            ..desc(PixelFormat::RGBA16F, 4, 4, 2)
        },
    ));
    v.push(Fixture::new(
        "BGRA8_volume.dds",
        Desc {
            kind: TextureKind::Volume,
            depth: 4,
            ..desc(PixelFormat::BGRA8, 8, 6, 3)
        },
    ));
    v.push(Fixture::new(
        "BC7_srgb.dds",
        Desc {
            srgb: true,
            ..desc(PixelFormat::BC7, 12, 12, 2)
        },
    ));
    v.push(Fixture::new(
        "BC1_dx10.dds",
        Desc {
            force_dx10: true,
            ..desc(PixelFormat::BC1, 16, 8, 3)
        },
    ));
    v
}
