//! Comparing two decoded surfaces (issue 21): the figures (PSNR per channel, max and mean absolute
//! error, differing texels and their bounding box), which mips of two chains to compare, and a
//! difference image the page can show. [`build`] pairs the textures of two builds.
//!
//! Engine-free and platform-free (it builds for wasm32): it sees [`Image`]s and catalogs, never
//! files. docs/compare.md defines every figure; the definitions below are the same.
//!
//! Values are compared in one unit: unorm data as 0..1 (8-bit value / 255, 16-bit / 65535), float
//! data as decoded. Two images of the same unorm precision are compared in their integer levels and
//! scaled once at the end, so 3 levels of 8-bit data give exactly `3.0 / 255.0`.

pub mod build;

use crate::codec::{Image, Pixels, Precision};
use crate::io::{Error, Limits, Result};
use serde::Serialize;

/// The figures of one channel.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Channel {
    /// Largest |B - A| over the texels (finite pairs only).
    pub max_abs: f64,
    /// Sum of |B - A| over finite pairs, divided by the texel count.
    pub mean_abs: f64,
    /// Sum of (B - A)² over finite pairs, divided by the texel count.
    pub mse: f64,
    /// The value PSNR is relative to: 1 for unorm data; for float data the largest finite |value|
    /// of this channel in either image (float data has no fixed white).
    pub peak: f64,
    /// 10·log10(peak² / mse) in dB; `None` when the channel is identical (the PSNR is infinite)
    /// or the peak is 0.
    pub psnr: Option<f64>,
}

/// A rectangle of texels: `x`, `y` of its top-left texel and its size.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Rect {
    pub x: u32,
    pub y: u32,
    pub width: u32,
    pub height: u32,
}

/// What comparing two same-sized images gives.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Figures {
    pub width: u32,
    pub height: u32,
    /// Either image holds float values: PSNR's peak is then taken from the data.
    pub float: bool,
    /// R, G, B, A.
    pub channels: [Channel; 4],
    /// The largest of the channels' `max_abs`.
    pub max_abs: f64,
    /// The mean of the channels' `mean_abs`.
    pub mean_abs: f64,
    /// Texels where any channel differs by more than the tolerance (or where one value is
    /// non-finite and the other is not the same non-finite value).
    pub differing_texels: u64,
    /// `differing_texels` / texel count (0 for an empty image).
    pub differing_share: f64,
    /// The smallest rectangle holding every differing texel; `None` when none differs.
    pub bbox: Option<Rect>,
    /// Texels with a channel where A and B are not both finite and not the same NaN/Inf; these
    /// channels count as differing and are left out of the sums (their difference is not a number).
    pub nonfinite: u64,
}

/// Channel values of one image: how to read channel value `i` and the scale to the common unit.
trait Values {
    fn at(&self, i: usize) -> f64;
}
impl Values for Vec<u8> {
    #[inline(always)]
    fn at(&self, i: usize) -> f64 {
        self[i] as f64
    }
}
impl Values for Vec<u16> {
    #[inline(always)]
    fn at(&self, i: usize) -> f64 {
        self[i] as f64
    }
}
impl Values for Vec<f32> {
    #[inline(always)]
    fn at(&self, i: usize) -> f64 {
        self[i] as f64
    }
}

/// The values of an image and what they are divided by to reach the common unit (levels per 1).
fn values(img: &Image) -> (&dyn Values, f64) {
    match &img.pixels {
        Pixels::Rgba8(p) => (p, 255.0),
        Pixels::Rgba16(p) => (p, 65535.0),
        Pixels::Rgba32F(p) => (p, 1.0),
    }
}

fn check_same_size(a: &Image, b: &Image) -> Result<()> {
    if (a.width, a.height) != (b.width, b.height) {
        return Err(Error::malformed(format!(
            "A is {}x{} and B is {}x{}: compare images of one size (see compare::plan)",
            a.width, a.height, b.width, b.height
        )));
    }
    Ok(())
}

/// The figures of B against A (same size). A texel differs when a channel's |B - A| is above
/// `tolerance` (in the common unit: 0..1 for unorm data); 0 counts every difference.
pub fn figures(a: &Image, b: &Image, tolerance: f64) -> Result<Figures> {
    check_same_size(a, b)?;
    // Monomorphised per precision pair: the loop below runs once per channel value.
    match (&a.pixels, &b.pixels) {
        (Pixels::Rgba8(x), Pixels::Rgba8(y)) => Ok(run(a, b, x, y, tolerance)),
        (Pixels::Rgba16(x), Pixels::Rgba16(y)) => Ok(run(a, b, x, y, tolerance)),
        (Pixels::Rgba32F(x), Pixels::Rgba32F(y)) => Ok(run(a, b, x, y, tolerance)),
        _ => {
            let (x, _) = values(a);
            let (y, _) = values(b);
            Ok(run(a, b, x, y, tolerance))
        }
    }
}

fn run<A: Values + ?Sized, B: Values + ?Sized>(
    a: &Image,
    b: &Image,
    va: &A,
    vb: &B,
    tolerance: f64,
) -> Figures {
    let (_, sa) = values(a);
    let (_, sb) = values(b);
    // Same unit on both sides: work in raw levels (exact for integers) and scale once at the end.
    let (ka, kb, unit) = if sa == sb {
        (1.0, 1.0, sa)
    } else {
        (sa, sb, 1.0)
    };
    let float = a.precision() == Precision::Float || b.precision() == Precision::Float;
    let threshold = tolerance.max(0.0) * unit;
    let (w, h) = (a.width as usize, a.height as usize);
    let mut max = [0f64; 4];
    let mut sum = [0f64; 4];
    let mut sq = [0f64; 4];
    let mut peak = [0f64; 4];
    let mut count = 0u64;
    let mut nonfinite = 0u64;
    let (mut x0, mut y0, mut x1, mut y1) = (usize::MAX, usize::MAX, 0usize, 0usize);
    for y in 0..h {
        for x in 0..w {
            let i = (y * w + x) * 4;
            let mut differs = false;
            let mut odd = false;
            for c in 0..4 {
                let p = va.at(i + c) / ka;
                let q = vb.at(i + c) / kb;
                if p.is_finite() && q.is_finite() {
                    let d = (q - p).abs();
                    sum[c] += d;
                    sq[c] += d * d;
                    if d > max[c] {
                        max[c] = d;
                    }
                    if float {
                        peak[c] = peak[c].max(p.abs()).max(q.abs());
                    }
                    differs |= d > threshold;
                } else if !(p == q || (p.is_nan() && q.is_nan())) {
                    differs = true;
                    odd = true;
                }
            }
            nonfinite += odd as u64;
            if differs {
                count += 1;
                x0 = x0.min(x);
                y0 = y0.min(y);
                x1 = x1.max(x);
                y1 = y1.max(y);
            }
        }
    }
    let n = (w * h) as f64;
    let channels: [Channel; 4] = std::array::from_fn(|c| {
        let mse = if n > 0.0 {
            sq[c] / (unit * unit) / n
        } else {
            0.0
        };
        let pk = if float { peak[c] / unit } else { 1.0 };
        Channel {
            max_abs: max[c] / unit,
            mean_abs: if n > 0.0 { sum[c] / unit / n } else { 0.0 },
            mse,
            peak: pk,
            psnr: (mse > 0.0 && pk > 0.0).then(|| 10.0 * (pk * pk / mse).log10()),
        }
    });
    Figures {
        width: a.width,
        height: a.height,
        float,
        max_abs: channels.iter().map(|c| c.max_abs).fold(0.0, f64::max),
        mean_abs: channels.iter().map(|c| c.mean_abs).sum::<f64>() / 4.0,
        channels,
        differing_texels: count,
        differing_share: if n > 0.0 { count as f64 / n } else { 0.0 },
        bbox: (count > 0).then(|| Rect {
            x: x0 as u32,
            y: y0 as u32,
            width: (x1 - x0 + 1) as u32,
            height: (y1 - y0 + 1) as u32,
        }),
        nonfinite,
    }
}

/// Which mip of A and of B to compare, and whether B is scaled to A's size.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Plan {
    pub a_mip: usize,
    pub b_mip: usize,
    /// B's mip is sampled at A's size (nearest texel): their sizes do not differ by whole mips.
    pub scaled: bool,
    /// What the user should be told when the mips are not the ones asked for, or B is scaled.
    pub notice: Option<String>,
}

/// Decides what to compare, from the mip sizes (width, height) of A's and B's chains.
///
/// With `b_mip` given (the user picked B's mip): that mip, scaled to A's when the sizes differ.
/// Without: B's mip of A's size if B has one; else A's first mip from `a_mip` on of B's largest
/// size (the sizes differ by whole mips: "mip-matched"); else B's smallest mip at least as large
/// as A's on both axes (or B's largest), scaled to A's size. `None` when a chain is empty or a
/// mip asked for does not exist.
pub fn plan(
    a: &[(u32, u32)],
    a_mip: usize,
    b: &[(u32, u32)],
    b_mip: Option<usize>,
) -> Option<Plan> {
    let target = *a.get(a_mip)?;
    let size = |(w, h): (u32, u32)| format!("{w}x{h}");
    let scaled = |bm: usize| {
        Plan {
        a_mip,
        b_mip: bm,
        scaled: true,
        notice: Some(format!(
            "B (mip {bm}, {}) is scaled to A's {} (nearest texel): the sizes do not differ by whole mips",
            size(b[bm]),
            size(target)
        )),
    }
    };
    if let Some(bm) = b_mip {
        let s = *b.get(bm)?;
        return Some(if s == target {
            Plan {
                a_mip,
                b_mip: bm,
                scaled: false,
                notice: None,
            }
        } else {
            scaled(bm)
        });
    }
    let b0 = *b.first()?;
    if let Some(bm) = b.iter().position(|&s| s == target) {
        return Some(Plan {
            a_mip,
            b_mip: bm,
            scaled: false,
            notice: (bm != a_mip).then(|| {
                format!(
                    "mip-matched: A's mip {a_mip} and B's mip {bm} are both {}",
                    size(target)
                )
            }),
        });
    }
    if let Some(am) = (a_mip..a.len()).find(|&m| a[m] == b0) {
        return Some(Plan {
            a_mip: am,
            b_mip: 0,
            scaled: false,
            notice: Some(format!(
                "mip-matched: B is smaller; A's mip {am} and B's mip 0 are both {}",
                size(b0)
            )),
        });
    }
    let bm = b
        .iter()
        .rposition(|&(w, h)| w >= target.0 && h >= target.1)
        .unwrap_or(0);
    Some(scaled(bm))
}

/// `img` sampled at `w` x `h` by the nearest texel: output texel x reads source texel
/// floor((x + 0.5) * source width / w), and the same for rows.
pub fn resample(img: &Image, w: u32, h: u32, limits: &Limits) -> Result<Image> {
    let mut out = Image::new(w, h, img.precision(), limits)?;
    if img.width == 0 || img.height == 0 {
        return Ok(out);
    }
    let src =
        |o: u32, n: u32, sn: u32| (((2 * o as u64 + 1) * sn as u64) / (2 * n as u64)) as usize;
    let xs: Vec<usize> = (0..w).map(|x| src(x, w, img.width)).collect();
    let sw = img.width as usize;
    fn fill<T: Copy>(out: &mut [T], inp: &[T], w: usize, sw: usize, xs: &[usize], ys: &[usize]) {
        for (y, &sy) in ys.iter().enumerate() {
            for (x, &sx) in xs.iter().enumerate() {
                let o = (y * w + x) * 4;
                let i = (sy * sw + sx) * 4;
                out[o..o + 4].copy_from_slice(&inp[i..i + 4]);
            }
        }
    }
    let ys: Vec<usize> = (0..h).map(|y| src(y, h, img.height)).collect();
    let w = w as usize;
    match (&mut out.pixels, &img.pixels) {
        (Pixels::Rgba8(o), Pixels::Rgba8(i)) => fill(o, i, w, sw, &xs, &ys),
        (Pixels::Rgba16(o), Pixels::Rgba16(i)) => fill(o, i, w, sw, &xs, &ys),
        (Pixels::Rgba32F(o), Pixels::Rgba32F(i)) => fill(o, i, w, sw, &xs, &ys),
        _ => unreachable!("Image::new made the source's precision"),
    }
    Ok(out)
}

/// B - A per channel in the common unit (unorm as 0..1), as an RGBA f32 image of their size.
/// Where either value is not finite the result is NaN unless both are the same value (0).
pub fn difference(a: &Image, b: &Image, limits: &Limits) -> Result<Image> {
    check_same_size(a, b)?;
    let mut out = Image::new(a.width, a.height, Precision::Float, limits)?;
    let (va, sa) = values(a);
    let (vb, sb) = values(b);
    let Pixels::Rgba32F(o) = &mut out.pixels else {
        unreachable!("Image::new(Float) holds f32")
    };
    for (i, d) in o.iter_mut().enumerate() {
        *d = delta(va.at(i), vb.at(i), sa, sb) as f32;
    }
    Ok(out)
}

/// B - A of one channel value in the common unit (values of one precision subtracted in their
/// levels, then divided once): 0 when both are the same value (two NaNs, one infinity), NaN when
/// only one is finite. The page's lib/compare.js `delta` follows the same rule.
fn delta(a: f64, b: f64, la: f64, lb: f64) -> f64 {
    let (p, q, unit) = if la == lb {
        (a, b, la)
    } else {
        (a / la, b / lb, 1.0)
    };
    if p == q || (p.is_nan() && q.is_nan()) {
        0.0
    } else {
        (q - p) / unit
    }
}

/// How [`render_difference`] shows a difference image.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct DiffView {
    /// `true`: the largest |difference| of the chosen channels through the colour ramp;
    /// `false`: each chosen channel's |difference| as that colour (one channel alone as grey).
    pub max: bool,
    /// |difference| is multiplied by this before display (1 / max_abs puts the largest at the
    /// ramp's top).
    pub scale: f32,
    /// R, G, B, A: the channels looked at.
    pub channels: [bool; 4],
}

/// The colour ramp of the difference view: t in 0..1 (clamped) through black, deep blue,
/// magenta, orange, yellow and white, linearly between these stops (chosen here so that 0 is
/// black, small differences are already visible as blue, and the order reads as "hotter").
pub fn ramp(t: f32) -> [u8; 3] {
    const STOPS: [[f32; 3]; 6] = [
        [0.0, 0.0, 0.0],
        [0.0, 0.0, 160.0],
        [200.0, 0.0, 200.0],
        [255.0, 128.0, 0.0],
        [255.0, 255.0, 0.0],
        [255.0, 255.0, 255.0],
    ];
    let t = if t.is_nan() { 1.0 } else { t.clamp(0.0, 1.0) };
    let pos = t * (STOPS.len() - 1) as f32;
    let k = (pos.floor() as usize).min(STOPS.len() - 2);
    let f = pos - k as f32;
    std::array::from_fn(|c| (STOPS[k][c] + (STOPS[k + 1][c] - STOPS[k][c]) * f).round() as u8)
}

/// The colour of a non-finite difference (a NaN against a number): the viewer's NaN mark.
pub const NONFINITE_COLOUR: [u8; 3] = [255, 0, 255];

/// RGBA8 display bytes of a difference image made by [`difference`].
pub fn render_difference(diff: &Image, view: &DiffView) -> Vec<u8> {
    let (v, s) = values(diff);
    let n = diff.width as usize * diff.height as usize;
    let on = view.channels;
    let solo = (on.iter().filter(|&&c| c).count() == 1).then(|| on.iter().position(|&c| c));
    let mut out = vec![0u8; n * 4];
    let byte = |d: f64| ((d.abs() as f32 * view.scale).clamp(0.0, 1.0) * 255.0).round() as u8;
    for (p, px) in out.chunks_exact_mut(4).enumerate() {
        let d: [f64; 4] = std::array::from_fn(|c| v.at(p * 4 + c) * s);
        px[3] = 255;
        if (0..4).any(|c| on[c] && !d[c].is_finite()) {
            px[..3].copy_from_slice(&NONFINITE_COLOUR);
        } else if view.max {
            let m = (0..4)
                .filter(|&c| on[c])
                .map(|c| d[c].abs())
                .fold(0.0, f64::max);
            px[..3].copy_from_slice(&ramp(m as f32 * view.scale));
        } else if let Some(Some(c)) = solo {
            px[..3].fill(byte(d[c]));
        } else {
            for c in 0..3 {
                px[c] = if on[c] { byte(d[c]) } else { 0 };
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rgba8(w: u32, h: u32, px: &[[u8; 4]]) -> Image {
        Image {
            width: w,
            height: h,
            pixels: Pixels::Rgba8(px.concat()),
        }
    }

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() <= 1e-9 * b.abs().max(1.0)
    }

    #[test]
    fn figures_of_two_changed_texels() {
        // Hand-worked: a 2x2 image of (10, 20, 30, 255); B raises the red of texel (1, 0) by 3
        // and lowers the green of texel (1, 1) by 1.
        let base = [10, 20, 30, 255];
        let a = rgba8(2, 2, &[base; 4]);
        let b = rgba8(2, 2, &[base, [13, 20, 30, 255], base, [10, 19, 30, 255]]);
        let f = figures(&a, &b, 0.0).unwrap();
        assert_eq!(f.differing_texels, 2);
        assert_eq!(f.differing_share, 0.5);
        // Both changed texels are in column 1, rows 0 and 1.
        let rect = |x, y, width, height| {
            Some(Rect {
                x,
                y,
                width,
                height,
            })
        };
        assert_eq!(f.bbox, rect(1, 0, 1, 2));
        assert!(!f.float);
        let [r, g, bl, al] = f.channels;
        // Red: one difference of 3 levels among 4 texels.
        assert_eq!(r.max_abs, 3.0 / 255.0);
        assert!(close(r.mean_abs, 3.0 / 255.0 / 4.0));
        assert!(close(r.mse, 9.0 / (255.0 * 255.0) / 4.0));
        // PSNR = 10 log10(1 / mse) = 20 log10(255) + 10 log10(4 / 9) = 48.1308 - 3.5218 dB.
        assert!((r.psnr.unwrap() - 44.609).abs() < 1e-3, "{:?}", r.psnr);
        // Green: one difference of 1 level: 20 log10(255) + 10 log10(4) = 54.151 dB.
        assert_eq!(g.max_abs, 1.0 / 255.0);
        assert!((g.psnr.unwrap() - 54.151).abs() < 1e-3, "{:?}", g.psnr);
        // Blue and alpha are identical: no PSNR (infinite), no error.
        for c in [bl, al] {
            assert_eq!(
                (c.max_abs, c.mean_abs, c.mse, c.psnr),
                (0.0, 0.0, 0.0, None)
            );
        }
        assert_eq!(f.max_abs, 3.0 / 255.0);
        // (3 + 1) levels over 4 texels x 4 channels.
        assert!(close(f.mean_abs, 4.0 / 255.0 / 16.0));
        // Above a tolerance of 2 levels only the red change counts.
        let f = figures(&a, &b, 2.5 / 255.0).unwrap();
        assert_eq!(f.differing_texels, 1);
        assert_eq!(f.bbox, rect(1, 0, 1, 1));
        // Tolerance changes the count, not the error figures.
        assert_eq!(f.channels[0].max_abs, 3.0 / 255.0);
    }

    #[test]
    fn identical_images_have_no_differences() {
        let a = rgba8(3, 1, &[[1, 2, 3, 4], [5, 6, 7, 8], [9, 10, 11, 12]]);
        let f = figures(&a, &a.clone(), 0.0).unwrap();
        assert_eq!((f.differing_texels, f.bbox, f.max_abs), (0, None, 0.0));
        assert!(f.channels.iter().all(|c| c.psnr.is_none()));
    }

    #[test]
    fn precisions_meet_in_one_unit() {
        // 8-bit 128 is 128/255; 16-bit 32896 = 128 * 257 is 32896/65535 = the same rational, and
        // both divisions round it to the same f64, so nothing differs. 255 and 65535 are both 1.
        let a = rgba8(1, 1, &[[128, 255, 0, 255]]);
        let texel16 = |r: u16| Image {
            width: 1,
            height: 1,
            pixels: Pixels::Rgba16(vec![r, 65535, 0, 65535]),
        };
        let f = figures(&a, &texel16(32896), 0.0).unwrap();
        assert_eq!(f.differing_texels, 0);
        // 16-bit 32896 + 257 = 129 * 257 is 8-bit 129: one 8-bit level, 1/255.
        let f = figures(&a, &texel16(33153), 0.0).unwrap();
        assert_eq!(f.differing_texels, 1);
        assert!(close(f.channels[0].max_abs, 1.0 / 255.0));
    }

    fn rgba32f(w: u32, v: Vec<f32>) -> Image {
        Image {
            width: w,
            height: (v.len() / 4) as u32 / w,
            pixels: Pixels::Rgba32F(v),
        }
    }

    #[test]
    fn float_figures_and_non_finite_values() {
        // Hand-worked: two texels. Red 1.0 -> 1.5 in texel 0; texel 1 holds NaN red on both sides
        // (not a difference) and green 2.0 on both sides.
        let nan = f32::NAN;
        let a = rgba32f(2, vec![1.0, 0.0, 0.0, 1.0, nan, 2.0, 0.0, 1.0]);
        let b = rgba32f(2, vec![1.5, 0.0, 0.0, 1.0, nan, 2.0, 0.0, 1.0]);
        let f = figures(&a, &b, 0.0).unwrap();
        assert!(f.float);
        assert_eq!((f.differing_texels, f.nonfinite), (1, 0));
        let r = f.channels[0];
        assert_eq!(r.max_abs, 0.5);
        // mse = 0.5² / 2 texels = 0.125; the peak is red's largest finite magnitude, 1.5:
        // PSNR = 10 log10(2.25 / 0.125) = 10 log10(18) = 12.5527 dB.
        assert_eq!((r.mse, r.peak), (0.125, 1.5));
        assert!((r.psnr.unwrap() - 12.5527).abs() < 1e-4, "{:?}", r.psnr);
        // Green: identical, peak 2 but no error: no PSNR.
        assert_eq!((f.channels[1].peak, f.channels[1].psnr), (2.0, None));
        // Texel 1 red: NaN against 7; green: -Inf against +Inf. Differing and non-finite, and
        // left out of the sums (red's max stays texel 0's 0.5, green's 0).
        let inf = f32::INFINITY;
        let a2 = rgba32f(2, vec![1.0, 0.0, 0.0, 1.0, nan, -inf, 0.0, 1.0]);
        let b2 = rgba32f(2, vec![1.5, 0.0, 0.0, 1.0, 7.0, inf, 0.0, 1.0]);
        let f = figures(&a2, &b2, 0.0).unwrap();
        assert_eq!((f.differing_texels, f.nonfinite), (2, 1));
        assert_eq!(f.channels[0].max_abs, 0.5);
        assert_eq!(f.channels[1].max_abs, 0.0);
        // The same infinity on both sides is no difference.
        let f = figures(&b2, &b2.clone(), 0.0).unwrap();
        assert_eq!((f.differing_texels, f.nonfinite), (0, 0));
    }

    #[test]
    fn sizes_must_agree() {
        let a = rgba8(1, 1, &[[0; 4]]);
        let b = rgba8(2, 1, &[[0; 4]; 2]);
        assert!(figures(&a, &b, 0.0).is_err());
        assert!(difference(&a, &b, &Limits::default()).is_err());
    }

    fn chain(w: u32, h: u32) -> Vec<(u32, u32)> {
        let mut v = vec![(w, h)];
        while v.last() != Some(&(1, 1)) {
            let (w, h) = *v.last().unwrap();
            v.push(((w / 2).max(1), (h / 2).max(1)));
        }
        v
    }

    #[test]
    fn plans_match_mips_or_scale() {
        // Chains as halving sizes, each axis at least 1 (the mip rule of every engine here).
        let a512 = chain(512, 512);
        let b256 = chain(256, 256);
        // B is one mip smaller: A's mip 1 (256) against B's mip 0.
        let p = plan(&a512, 0, &b256, None).unwrap();
        assert_eq!((p.a_mip, p.b_mip, p.scaled), (1, 0, false));
        assert!(p.notice.unwrap().contains("mip-matched"));
        // B is one mip larger: A's mip 0 against B's mip 1 (512).
        let p = plan(&b256, 0, &a512, None).unwrap();
        assert_eq!((p.a_mip, p.b_mip, p.scaled), (0, 1, false));
        // Same chains: mip for mip, nothing to say.
        assert_eq!(
            plan(&a512, 3, &a512, None).unwrap(),
            Plan {
                a_mip: 3,
                b_mip: 3,
                scaled: false,
                notice: None
            }
        );
        // Non-square: 256x64 halves to 128x32, 64x16 ... 2x1, 1x1.
        assert_eq!(
            plan(&chain(256, 64), 0, &chain(64, 16), None)
                .unwrap()
                .a_mip,
            2
        );
        // 300x200 against 100x100: no whole-mip relation; B's largest (its only one not smaller
        // than A is none) is scaled.
        let p = plan(&chain(300, 200), 0, &chain(100, 100), None).unwrap();
        assert_eq!((p.b_mip, p.scaled), (0, true));
        assert!(p.notice.unwrap().contains("scaled"));
        // 64x64 against a 200x200 chain (200, 100, 50, ...): the smallest B mip >= 64 is 100.
        let p = plan(&chain(64, 64), 0, &chain(200, 200), None).unwrap();
        assert_eq!((p.b_mip, p.scaled), (1, true));
        // A mip picked for B is kept; a different size is scaled.
        let p = plan(&a512, 0, &a512, Some(1)).unwrap();
        assert_eq!((p.a_mip, p.b_mip, p.scaled), (0, 1, true));
        assert_eq!(plan(&a512, 0, &a512, Some(10)), None);
        assert_eq!(plan(&a512, 10, &a512, None), None);
        assert_eq!(plan(&a512, 0, &[], None), None);
    }

    #[test]
    fn nearest_resampling() {
        // Hand-worked: 4x1 -> 2x1 reads source columns floor((x + 0.5) * 4 / 2) = 1 and 3.
        let img = rgba8(4, 1, &[[0; 4], [1; 4], [2; 4], [3; 4]]);
        let r = resample(&img, 2, 1, &Limits::default()).unwrap();
        assert_eq!(r.pixels, Pixels::Rgba8([[1u8; 4], [3; 4]].concat()));
        // 2x1 -> 4x2: columns floor((x + 0.5) / 2) = 0, 0, 1, 1; both rows read row 0.
        let img = rgba8(2, 1, &[[5; 4], [6; 4]]);
        let r = resample(&img, 4, 2, &Limits::default()).unwrap();
        assert_eq!(
            r.pixels,
            Pixels::Rgba8([[5u8; 4], [5; 4], [6; 4], [6; 4]].repeat(2).concat())
        );
    }

    #[test]
    fn difference_image_and_its_display() {
        let a = rgba8(2, 1, &[[10, 20, 30, 255], [0, 0, 0, 255]]);
        let b = rgba8(2, 1, &[[10, 20, 30, 255], [51, 0, 102, 255]]);
        let d = difference(&a, &b, &Limits::default()).unwrap();
        let Pixels::Rgba32F(p) = &d.pixels else {
            panic!("difference is float")
        };
        // 51/255 = 0.2 and 102/255 = 0.4 (in f32).
        assert_eq!(p, &[0.0, 0.0, 0.0, 0.0, 0.2, 0.0, 0.4, 0.0]);
        let all = [true; 4];
        // Per channel, scale 1: 0.2 and 0.4 of 255 are 51 and 102; texel 0 is black.
        let out = render_difference(
            &d,
            &DiffView {
                max: false,
                scale: 1.0,
                channels: all,
            },
        );
        assert_eq!(out, vec![0, 0, 0, 255, 51, 0, 102, 255]);
        // Blue alone shows as grey.
        let mut blue = [false; 4];
        blue[2] = true;
        let out = render_difference(
            &d,
            &DiffView {
                max: false,
                scale: 1.0,
                channels: blue,
            },
        );
        assert_eq!(&out[4..], &[102, 102, 102, 255]);
        // Max of channels, scaled by 1 / 0.4: texel 1 reaches the ramp's top (white), texel 0
        // stays black.
        let out = render_difference(
            &d,
            &DiffView {
                max: true,
                scale: 2.5,
                channels: all,
            },
        );
        assert_eq!(out, vec![0, 0, 0, 255, 255, 255, 255, 255]);
    }

    #[test]
    fn ramp_stops() {
        // The stops themselves, and a midpoint: halfway from black to deep blue is (0, 0, 80).
        assert_eq!(ramp(0.0), [0, 0, 0]);
        assert_eq!(ramp(0.1), [0, 0, 80]);
        assert_eq!(ramp(0.4), [200, 0, 200]);
        assert_eq!(ramp(1.0), [255, 255, 255]);
        assert_eq!(ramp(7.0), [255, 255, 255]);
        assert_eq!(ramp(-1.0), [0, 0, 0]);
    }
}
