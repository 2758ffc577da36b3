//! The wasm half of the decode benchmark (bench.html) and of the wasm == native check
//! (tests/browser/wasm-native.test.mjs); the native half is `texscope bench` / `fingerprints`.

use crate::codec::sample::{self, Surface};
use crate::codec::PixelFormat;
use wasm_bindgen::prelude::*;

/// The name of every format, in the order `texscope bench` uses.
#[wasm_bindgen(js_name = benchFormats)]
pub fn bench_formats() -> Vec<String> {
    sample::formats().iter().map(|f| f.name()).collect()
}

/// A square surface of seeded random blocks; the page times `decode()`.
#[wasm_bindgen]
pub struct BenchSurface(Surface);

#[wasm_bindgen]
impl BenchSurface {
    #[wasm_bindgen(constructor)]
    pub fn new(format: &str, side: u32, seed: u32) -> Result<BenchSurface, JsError> {
        let f = PixelFormat::from_name(format)
            .ok_or_else(|| JsError::new(&format!("unknown format {format}")))?;
        if side == 0 || side > 8192 {
            return Err(JsError::new("side must be 1..8192"));
        }
        Ok(BenchSurface(Surface::new(f, side, seed as u64)))
    }

    /// The same seeded blocks stored as an Unreal cook for `platform` (switch, ps4, ps5) lays the
    /// surface out; `decode()` then untiles first (bench.html?untile=1, `texscope bench --untile`).
    #[cfg(feature = "tiling-switch")]
    pub fn tiled(
        format: &str,
        side: u32,
        seed: u32,
        platform: &str,
    ) -> Result<BenchSurface, JsError> {
        let f = PixelFormat::from_name(format)
            .ok_or_else(|| JsError::new(&format!("unknown format {format}")))?;
        let p = crate::Platform::from_name(platform)
            .ok_or_else(|| JsError::new(&format!("unknown platform {platform}")))?;
        if side == 0 || side > 8192 {
            return Err(JsError::new("side must be 1..8192"));
        }
        let tiling = crate::unreal::console_tiling(p, f, side, side, 1);
        Surface::tiled(f, side, seed as u64, tiling)
            .map(BenchSurface)
            .map_err(|e| JsError::new(&e.to_string()))
    }

    /// The layout `decode()` untiles ("linear" for a plain surface).
    #[cfg(feature = "tiling-switch")]
    pub fn layout(&self) -> String {
        self.0.tiling.describe()
    }

    /// Decodes once; returns megabytes of RGBA output, or throws the decode error.
    pub fn decode(&self) -> Result<f64, JsError> {
        let img = self.0.decode().map_err(|e| JsError::new(&e.to_string()))?;
        std::hint::black_box(img);
        Ok(self.0.output_mb())
    }
}

/// The AES decryption benchmark (bench.html?aes=1, `texscope bench --aes` natively): the page
/// times `decrypt()`, which runs the same `AesBench::decrypt` as the native bench. Full module
/// only (the core has no AES).
#[cfg(feature = "containers")]
#[wasm_bindgen]
pub struct BenchAes(crate::io::aes::AesBench);

#[cfg(feature = "containers")]
fn aes_mode(mode: &str) -> Result<crate::io::aes::Mode, JsError> {
    crate::io::aes::Mode::from_name(mode)
        .ok_or_else(|| JsError::new(&format!("unknown AES mode {mode} (ECB or CTR)")))
}

#[cfg(feature = "containers")]
#[wasm_bindgen]
impl BenchAes {
    /// `mib` MiB of the seeded bytes the native bench decrypts.
    #[wasm_bindgen(constructor)]
    pub fn new(mib: u32) -> Result<BenchAes, JsError> {
        crate::io::aes::AesBench::new(mib)
            .map(BenchAes)
            .map_err(|e| JsError::new(&e.to_string()))
    }

    /// Decrypts the buffer once in place in `mode` ("ECB" or "CTR"); returns the megabytes done.
    pub fn decrypt(&mut self, mode: &str) -> Result<f64, JsError> {
        self.0
            .decrypt(aes_mode(mode)?)
            .map_err(|e| JsError::new(&e.to_string()))?;
        std::hint::black_box(self.0.bytes());
        Ok(self.0.megabytes())
    }

    /// The SHA-1 (hex) of a fresh `mib` MiB buffer decrypted once in `mode`, as the native bench
    /// prints it.
    pub fn digest(mib: u32, mode: &str) -> Result<String, JsError> {
        crate::io::aes::AesBench::first_digest(mib, aes_mode(mode)?)
            .map_err(|e| JsError::new(&e.to_string()))
    }
}

/// The same JSON object `texscope fingerprints FILES...` prints: digests of every format decoded
/// from seeded random blocks, plus one per reference-vector file given as (names, contents).
#[wasm_bindgen(js_name = codecFingerprints)]
pub fn codec_fingerprints(names: Vec<String>, files: js_sys::Array) -> String {
    let mut map = serde_json::Map::new();
    for (k, v) in sample::fingerprints() {
        map.insert(k, v.into());
    }
    for (name, file) in names.iter().zip(files.iter()) {
        let bytes = js_sys::Uint8Array::new(&file).to_vec();
        if let Some(v) = sample::vector_fingerprint(name, &bytes) {
            map.insert(format!("vector {name}"), v.into());
        }
    }
    serde_json::Value::Object(map).to_string()
}
