// The GPU path (issue 8): where WebGL2 offers a texture's block format (BC, ETC/EAC, ASTC) or its
// plain layout (8-bit, half, float), the stored bytes go to the GPU as they are and a fragment
// shader draws them with the same display pipeline as display.js's displayBytes (channels, EV,
// tonemaps, sRGB handling, normal view, the NaN/Inf/negative marks, Y flip). The CPU decode stays
// for the inspector, the histogram, exports, and whenever this path cannot draw.
//
// Sources for the GL side: the WebGL extension registry (WEBGL_compressed_texture_s3tc rev 6,
// EXT_texture_compression_rgtc rev 5 and _bptc rev 6: "the width and the height of the top level
// mip map are required to be a multiple of 4"; WEBGL_compressed_texture_etc; _astc with
// getSupportedProfiles()), and the OpenGL ES 3.0 spec (texelFetch, §2.1.6.1 float -> unorm
// conversion rounds to nearest). Format enums are read from the extension objects by name.

import { TONEMAPS } from './display.js';

const EXTENSIONS = [
  'WEBGL_compressed_texture_s3tc', 'WEBGL_compressed_texture_s3tc_srgb', 'EXT_texture_compression_rgtc',
  'EXT_texture_compression_bptc', 'WEBGL_compressed_texture_etc', 'WEBGL_compressed_texture_etc1',
  'WEBGL_compressed_texture_astc',
];

// Texscope format name -> [extension, enum name]. Blocks are always uploaded with the UNORM (not
// sRGB) enum: the shader applies the colour space itself, exactly as displayBytes does, so the
// sampled value is the stored value the CPU decoder gives too.
/** @type {Record<string, [string, string]>} */
const BLOCK_FORMATS = {
  BC1: ['WEBGL_compressed_texture_s3tc', 'COMPRESSED_RGBA_S3TC_DXT1_EXT'],
  BC2: ['WEBGL_compressed_texture_s3tc', 'COMPRESSED_RGBA_S3TC_DXT3_EXT'],
  BC3: ['WEBGL_compressed_texture_s3tc', 'COMPRESSED_RGBA_S3TC_DXT5_EXT'],
  BC4: ['EXT_texture_compression_rgtc', 'COMPRESSED_RED_RGTC1_EXT'],
  BC4S: ['EXT_texture_compression_rgtc', 'COMPRESSED_SIGNED_RED_RGTC1_EXT'],
  BC5: ['EXT_texture_compression_rgtc', 'COMPRESSED_RED_GREEN_RGTC2_EXT'],
  BC5S: ['EXT_texture_compression_rgtc', 'COMPRESSED_SIGNED_RED_GREEN_RGTC2_EXT'],
  BC6HU: ['EXT_texture_compression_bptc', 'COMPRESSED_RGB_BPTC_UNSIGNED_FLOAT_EXT'],
  BC6HS: ['EXT_texture_compression_bptc', 'COMPRESSED_RGB_BPTC_SIGNED_FLOAT_EXT'],
  BC7: ['EXT_texture_compression_bptc', 'COMPRESSED_RGBA_BPTC_UNORM_EXT'],
  // ETC2 decoders read ETC1 blocks unchanged (ETC2 is a superset, Khronos Data Format spec §C.1).
  ETC1: ['WEBGL_compressed_texture_etc', 'COMPRESSED_RGB8_ETC2'],
  ETC2RGB: ['WEBGL_compressed_texture_etc', 'COMPRESSED_RGB8_ETC2'],
  ETC2RGBA1: ['WEBGL_compressed_texture_etc', 'COMPRESSED_RGB8_PUNCHTHROUGH_ALPHA1_ETC2'],
  ETC2RGBA8: ['WEBGL_compressed_texture_etc', 'COMPRESSED_RGBA8_ETC2_EAC'],
  EACR11: ['WEBGL_compressed_texture_etc', 'COMPRESSED_R11_EAC'],
  EACR11S: ['WEBGL_compressed_texture_etc', 'COMPRESSED_SIGNED_R11_EAC'],
  EACRG11: ['WEBGL_compressed_texture_etc', 'COMPRESSED_RG11_EAC'],
  EACRG11S: ['WEBGL_compressed_texture_etc', 'COMPRESSED_SIGNED_RG11_EAC'],
};
// S3TC, RGTC and BPTC: the WebGL extensions require the top mip to be a multiple of 4.
const TOP_MULTIPLE_OF_4 = new Set(['WEBGL_compressed_texture_s3tc', 'EXT_texture_compression_rgtc', 'EXT_texture_compression_bptc']);

// Plain layouts: [internal format, format, type, bytes per texel, swizzle of the sampled vector
// into RGBA (index, or -1 for 1)] so the shader sees what the CPU decoder gives (D3D/GL rules:
// R -> (r,0,0,1), RG -> (r,g,0,1)).
/** @typedef {[number, number, number, number]} Swizzle */
/** @type {Record<string, [string, string, 'UNSIGNED_BYTE' | 'HALF_FLOAT' | 'FLOAT', number, Swizzle]>} */
const PLAIN_FORMATS = {
  RGBA8: ['RGBA8', 'RGBA', 'UNSIGNED_BYTE', 4, [0, 1, 2, 3]],
  BGRA8: ['RGBA8', 'RGBA', 'UNSIGNED_BYTE', 4, [2, 1, 0, 3]],
  BGRX8: ['RGBA8', 'RGBA', 'UNSIGNED_BYTE', 4, [2, 1, 0, -1]],
  ARGB8: ['RGBA8', 'RGBA', 'UNSIGNED_BYTE', 4, [1, 2, 3, 0]],
  R8: ['R8', 'RED', 'UNSIGNED_BYTE', 1, [0, 1, 2, 3]],
  RG8: ['RG8', 'RG', 'UNSIGNED_BYTE', 2, [0, 1, 2, 3]],
  R16F: ['R16F', 'RED', 'HALF_FLOAT', 2, [0, 1, 2, 3]],
  RG16F: ['RG16F', 'RG', 'HALF_FLOAT', 4, [0, 1, 2, 3]],
  RGBA16F: ['RGBA16F', 'RGBA', 'HALF_FLOAT', 8, [0, 1, 2, 3]],
  R32F: ['R32F', 'RED', 'FLOAT', 4, [0, 1, 2, 3]],
  RG32F: ['RG32F', 'RG', 'FLOAT', 8, [0, 1, 2, 3]],
  RGB32F: ['RGB32F', 'RGB', 'FLOAT', 12, [0, 1, 2, 3]],
  RGBA32F: ['RGBA32F', 'RGBA', 'FLOAT', 16, [0, 1, 2, 3]],
};

const ASTC_NAME = /^ASTC_(\d+)x(\d+)(_HDR)?$/;

const VERTEX = `#version 300 es
void main() {
  // One triangle covering the viewport, from the vertex id alone (no buffers).
  vec2 p = vec2(float((gl_VertexID & 1) << 2), float((gl_VertexID & 2) << 1)) - 1.0;
  gl_Position = vec4(p, 0.0, 1.0);
}`;

// The display pipeline of display.js displayBytes, step by step in the same order; comments name
// the JS each block mirrors. Output is straight (not premultiplied) RGBA, like putImageData's.
const FRAGMENT = `#version 300 es
precision highp float;
precision highp int;
precision highp sampler2D;
uniform sampler2D uTex;
uniform ivec2 uSize;
uniform bool uFlip;       // texture memory rows read bottom-up (Y flip xor rows stored bottom first)
uniform ivec4 uSwz;       // component of the sampled vector per RGBA output, -1 = 1.0
uniform int uPrec;        // 0 unorm8, 1 unorm16, 2 float: what the CPU decode gives
uniform int uColour;      // 0 srgb, 1 linear, 2 gamma
uniform int uNormal;      // 0 off, 1 rg, 2 ag, 3 ra (display.js NORMAL_CHANNELS)
uniform bool uFlipGreen;
uniform float uScale;     // 2^EV
uniform int uTonemap;     // 0 clamp, 1 reinhard, 2 aces
uniform bool uPlain;      // exposure 0 and clamp
uniform bvec4 uOn;        // channels
uniform int uOnCount;
uniform int uSolo;        // the channel shown alone, when uOnCount == 1
uniform bool uBad;        // mark NaN / Inf / negative (float images)
out vec4 outColour;

float toLinear(float s) { return s <= 0.04045 ? s / 12.92 : pow((s + 0.055) / 1.055, 2.4); }
float encode(float v) { return v <= 0.0031308 ? v * 12.92 : 1.055 * pow(v, 1.0 / 2.4) - 0.055; }
// srgbLut[Math.round(t * 4096)]: the CPU encodes through a 4097-entry table; so does this.
float encodeLut(float t) { return encode(floor(t * 4096.0 + 0.5) / 4096.0); }
// encode8[byte]: the curve applied to a byte, rounded to a byte.
float encodeByte(float v) { return floor(encode(v) * 255.0 + 0.5) / 255.0; }
float tonemap(float v) {
  if (!(v > 0.0)) return 0.0;
  // Every curve gives 1 from here on (Reinhard 0.999999 rounds to the top of the LUT); in float32
  // the ACES terms would overflow to Inf / Inf where the CPU's doubles do not.
  if (v >= 1.0e6) return 1.0;
  if (uTonemap == 1) v = v / (1.0 + v);
  else if (uTonemap == 2) v = (v * (2.51 * v + 0.03)) / (v * (2.43 * v + 0.59) + 0.14);
  return v < 1.0 ? v : 1.0;
}
float pick(vec4 t, int i) {
  if (i < 0) return 1.0;
  return i == 0 ? t.r : i == 1 ? t.g : i == 2 ? t.b : t.a;
}
// NaN, Inf and negative from the bits, as JS sees the value: compilers may fold float compares
// on NaN, and GPUs flush denormals to zero in arithmetic (a random -3e-39 was negative on the CPU
// and -0 on SwiftShader), but texelFetch of a float texture returns the stored bits.
bool bitsNan(float v) { uint b = floatBitsToUint(v); return (b & 0x7f800000u) == 0x7f800000u && (b & 0x007fffffu) != 0u; }
bool bitsInf(float v) { return (floatBitsToUint(v) & 0x7fffffffu) == 0x7f800000u; }
bool bitsNegative(float v) { uint b = floatBitsToUint(v); return (b & 0x80000000u) != 0u && (b & 0x7fffffffu) != 0u; }

void main() {
  int x = int(gl_FragCoord.x);
  int row = uSize.y - 1 - int(gl_FragCoord.y); // display row, top first
  int y = uFlip ? uSize.y - 1 - row : row;
  vec4 raw = texelFetch(uTex, ivec2(x, y), 0);
  vec4 d = vec4(pick(raw, uSwz.x), pick(raw, uSwz.y), pick(raw, uSwz.z), pick(raw, uSwz.w));
  // Unorm values arrive in [0, 1] already: the CPU's data * norm.
  vec4 o;
  if (uNormal != 0) {
    // normalBytes
    float nx = uNormal == 2 ? d.a : d.r;
    float ny = uNormal == 3 ? d.a : d.g;
    if (uPrec != 2) { nx = nx * 2.0 - 1.0; ny = ny * 2.0 - 1.0; }
    if (uFlipGreen) ny = -ny;
    float nz = sqrt(max(0.0, 1.0 - nx * nx - ny * ny));
    o = vec4(vec3(nx, ny, nz) * 0.5 + 0.5, 1.0);
  } else if (uPrec == 0 && uPlain) {
    // the unorm8 fast paths
    o = uColour != 2 ? d : vec4(encodeByte(d.r), encodeByte(d.g), encodeByte(d.b), d.a);
  } else {
    bool stored = uColour == 1 && uPrec != 2;
    for (int c = 0; c < 3; c++) {
      float v = d[c];
      // NaN shows black on the CPU (tonemap's first test). Shader compilers may fold the
      // comparisons that would carry a NaN there (SwiftShader's pow turned one into 255), so it
      // is tested here, once, on the value as sampled.
      if (bitsNan(v)) { o[c] = 0.0; continue; }
      if (uColour == 0) v = toLinear(v);
      float t = tonemap(v * uScale);
      o[c] = stored ? t : encodeLut(t);
    }
    o.a = clamp(d.a, 0.0, 1.0); // NaN alpha: the JS comparison chain gives 0
    if (bitsNan(d.a) || !(d.a > 0.0)) o.a = 0.0;
  }
  // applyChannels
  if (uOnCount == 1) {
    o = vec4(vec3(o[uSolo]), 1.0);
  } else if (uOnCount < 4) {
    for (int c = 0; c < 3; c++) if (!uOn[c]) o[c] = 0.0;
    if (!uOn[3]) o.a = 1.0;
  }
  if (uBad && uPrec == 2) {
    // NaN wins over Inf, Inf over negative (displayBytes' mark order)
    int mark = 0;
    for (int c = 0; c < 4; c++) {
      float v = d[c];
      if (bitsNan(v)) { mark = 1; break; }
      if (bitsInf(v)) mark = 2;
      else if (bitsNegative(v) && mark == 0) mark = 3;
    }
    if (mark == 1) o = vec4(1.0, 0.0, 1.0, 1.0);
    else if (mark == 2) o = vec4(1.0, 1.0, 0.0, 1.0);
    else if (mark == 3) o = vec4(0.0, 1.0, 1.0, 1.0);
  }
  outColour = o;
}`;

// GL textures kept (one per texture and slice, holding the mips viewed), and the bytes they may
// hold together (the newest is kept whatever its size; WebGL itself refuses what does not fit).
const TEXTURE_CACHE = 6;
const CACHE_BYTES = 256 << 20;

/**
 * How a format goes up: compressed blocks with their GL enum, or plain texels with format/type.
 * @typedef {{ compressed: true, internal: number, extName: string, swizzle: Swizzle }
 *   | { compressed: false, internal: number, format: number, type: number, typeName: string, bytes: number, swizzle: Swizzle }} Layout
 */
/**
 * An uploaded surface: mip `level` of the GL texture `key`.
 * @typedef {{ key: string, level: number, width: number, height: number, format: string, swizzle: Swizzle, uploadMs: number, cached: boolean }} Surface
 */
/** @typedef {{ tex: WebGLTexture, levels: Map<number, { width: number, height: number }>, bytes: number }} TextureEntry */

export class GpuView {
  constructor() {
    /** @type {WebGL2RenderingContext | null} */
    this.gl = null;
    /** Why there is no GPU path at all. @type {string | null} */
    this.reason = null;
    this.lost = false;
    /** @type {Map<string, TextureEntry>} */
    this.textures = new Map();
    /** The extension objects offered, by name. @type {Record<string, any>} */
    this.extensions = {};
    this.astcHdr = false;
    /** Where draw() renders; made by init(), which every method calls first. @type {HTMLCanvasElement} */
    this.canvas = /** @type {HTMLCanvasElement} */ (/** @type {unknown} */ (null));
    /** @type {WebGLProgram | null} */
    this.program = null;
    /** @type {Record<string, WebGLUniformLocation | null>} */
    this.uniforms = {};
  }

  /** Creates the context on first use; false (with `reason`) when there is no WebGL2. */
  init() {
    if (this.gl) return !this.lost;
    if (this.reason) return false;
    if (typeof document === 'undefined') { this.reason = 'no document'; return false; }
    this.canvas = document.createElement('canvas');
    const gl = this.canvas.getContext('webgl2', { premultipliedAlpha: false, preserveDrawingBuffer: true, antialias: false, alpha: true });
    if (!gl) { this.reason = 'this browser offers no WebGL2'; return false; }
    this.gl = gl;
    for (const name of EXTENSIONS) {
      const ext = gl.getExtension(name);
      if (ext) this.extensions[name] = ext;
    }
    gl.getExtension('EXT_color_buffer_float'); // not needed to draw; harmless
    const astc = this.extensions.WEBGL_compressed_texture_astc;
    this.astcHdr = Boolean(astc?.getSupportedProfiles?.().includes('hdr'));
    this.canvas.addEventListener('webglcontextlost', (e) => {
      e.preventDefault();
      this.lost = true;
      this.textures.clear();
    });
    this.canvas.addEventListener('webglcontextrestored', () => {
      // Everything is re-created on the next draw.
      this.gl = null;
      this.lost = false;
      this.program = null;
    });
    try {
      this.program = this.buildProgram();
    } catch (e) {
      this.reason = `the display shader did not compile (${/** @type {Error} */ (e).message})`;
      this.gl = null;
      return false;
    }
    return true;
  }

  buildProgram() {
    const gl = /** @type {WebGL2RenderingContext} */ (this.gl);
    const shader = (/** @type {number} */ type, /** @type {string} */ src) => {
      const s = /** @type {WebGLShader} */ (gl.createShader(type));
      gl.shaderSource(s, src);
      gl.compileShader(s);
      if (!gl.getShaderParameter(s, gl.COMPILE_STATUS)) throw new Error(gl.getShaderInfoLog(s) ?? 'no log');
      return s;
    };
    const p = gl.createProgram();
    gl.attachShader(p, shader(gl.VERTEX_SHADER, VERTEX));
    gl.attachShader(p, shader(gl.FRAGMENT_SHADER, FRAGMENT));
    gl.linkProgram(p);
    if (!gl.getProgramParameter(p, gl.LINK_STATUS)) throw new Error(gl.getProgramInfoLog(p) ?? 'no log');
    /** @type {Record<string, WebGLUniformLocation | null>} */
    const u = {};
    for (const n of ['uTex', 'uSize', 'uFlip', 'uSwz', 'uPrec', 'uColour', 'uNormal', 'uFlipGreen', 'uScale', 'uTonemap',
      'uPlain', 'uOn', 'uOnCount', 'uSolo', 'uBad']) u[n] = gl.getUniformLocation(p, n);
    this.uniforms = u;
    return p;
  }

  /** @returns {string} */
  renderer() {
    const gl = /** @type {WebGL2RenderingContext} */ (this.gl);
    const info = gl.getExtension('WEBGL_debug_renderer_info');
    return info ? gl.getParameter(info.UNMASKED_RENDERER_WEBGL) : gl.getParameter(gl.RENDERER);
  }

  /** True when WebGL runs on a software rasterizer (SwiftShader, llvmpipe): measured slower than the wasm decode. */
  software() {
    return this.init() && /SwiftShader|llvmpipe|softpipe|Software/i.test(this.renderer());
  }

  /** What the GPU offers: extension names, ASTC HDR, and the Texscope formats it can draw. */
  capabilities() {
    if (!this.init()) return { webgl2: false, reason: this.reason, extensions: [], formats: [] };
    const formats = [...Object.keys(BLOCK_FORMATS), ...Object.keys(PLAIN_FORMATS)].filter((f) => !this.unsupported(f));
    if (this.extensions.WEBGL_compressed_texture_astc) formats.push(this.astcHdr ? 'ASTC (LDR and HDR)' : 'ASTC (LDR)');
    return {
      webgl2: true, renderer: this.renderer(), software: this.software(), extensions: Object.keys(this.extensions),
      astcHdr: this.astcHdr, formats, cached: this.textures.size,
    };
  }

  /** How `format` is uploaded; or a string saying why it cannot be. @param {string} format @returns {Layout | string} */
  layout(format) {
    const gl = /** @type {WebGL2RenderingContext & Record<string, number>} */ (this.gl);
    if (BLOCK_FORMATS[format]) {
      const [extName, enumName] = BLOCK_FORMATS[format];
      const ext = this.extensions[extName];
      if (!ext) return `this GPU does not offer ${extName}`;
      return { compressed: true, internal: ext[enumName], extName, swizzle: [0, 1, 2, 3] };
    }
    const astc = ASTC_NAME.exec(format);
    if (astc) {
      const ext = this.extensions.WEBGL_compressed_texture_astc;
      if (!ext) return 'this GPU does not offer WEBGL_compressed_texture_astc';
      if (astc[3] && !this.astcHdr) return 'this GPU offers only the LDR profile of ASTC';
      const internal = ext[`COMPRESSED_RGBA_ASTC_${astc[1]}x${astc[2]}_KHR`];
      if (!internal) return `this GPU has no ${format} footprint`;
      return { compressed: true, internal, extName: 'WEBGL_compressed_texture_astc', swizzle: [0, 1, 2, 3] };
    }
    const plain = PLAIN_FORMATS[format];
    if (plain) {
      const [internal, fmt, type, bytes, swizzle] = plain;
      return { compressed: false, internal: gl[internal], format: gl[fmt], type: gl[type], typeName: type, bytes, swizzle };
    }
    return `the GPU path has no upload for ${format}`;
  }

  /** '' when `format` can be drawn here, else the reason it cannot. @param {string} format @returns {string} */
  unsupported(format) {
    if (!this.init()) return this.reason ?? 'the WebGL context was lost';
    const l = this.layout(format);
    return typeof l === 'string' ? l : '';
  }

  /**
   * Uploads one stored surface (`bytes` exactly as read, no decode) as mip `level` of the GL
   * texture `key`; returns a surface handle {key, level, width, height, format, uploadMs}. Throws
   * an Error whose message says why when the GPU cannot take it.
   * @param {string} key @param {string} format @param {number} level @param {number} width @param {number} height
   * @param {ArrayBufferView} bytes
   * @returns {Surface}
   */
  upload(key, format, level, width, height, bytes) {
    if (!this.init()) throw new Error(this.reason ?? 'the WebGL context was lost');
    const gl = /** @type {WebGL2RenderingContext} */ (this.gl);
    const l = this.layout(format);
    if (typeof l === 'string') throw new Error(l);
    const max = gl.getParameter(gl.MAX_TEXTURE_SIZE);
    if (width > max || height > max) throw new Error(`${width}×${height} is more than this GPU's ${max}-texel limit`);
    if (l.compressed && TOP_MULTIPLE_OF_4.has(l.extName) && (((width << level) % 4) || ((height << level) % 4))) {
      throw new Error(`${l.extName} needs a top mip whose sides are multiples of 4 (mip ${level} is ${width}×${height})`);
    }
    let entry = this.textures.get(key);
    const had = entry?.levels.get(level);
    if (entry && had) {
      const e = had;
      this.textures.delete(key); // most recently used last
      this.textures.set(key, entry);
      return { key, level, width: e.width, height: e.height, format, swizzle: l.swizzle, uploadMs: 0, cached: true };
    }
    const t0 = performance.now();
    if (!entry) {
      entry = { tex: /** @type {WebGLTexture} */ (gl.createTexture()), levels: new Map(), bytes: 0 };
    }
    this.textures.delete(key); // most recently used last
    this.textures.set(key, entry);
    entry.bytes += bytes.byteLength;
    let total = 0;
    for (const e of this.textures.values()) total += e.bytes;
    for (const [k, old] of this.textures) {
      if (old === entry || (this.textures.size <= TEXTURE_CACHE && total <= CACHE_BYTES)) break;
      total -= old.bytes;
      gl.deleteTexture(old.tex);
      this.textures.delete(k);
    }
    gl.getError(); // clear
    gl.bindTexture(gl.TEXTURE_2D, entry.tex);
    gl.pixelStorei(gl.UNPACK_ALIGNMENT, 1);
    gl.pixelStorei(gl.UNPACK_FLIP_Y_WEBGL, false);
    gl.pixelStorei(gl.UNPACK_PREMULTIPLY_ALPHA_WEBGL, false);
    gl.pixelStorei(gl.UNPACK_COLORSPACE_CONVERSION_WEBGL, gl.NONE);
    const view = bytes instanceof Uint8Array ? bytes : new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    if (l.compressed) {
      gl.compressedTexImage2D(gl.TEXTURE_2D, level, l.internal, width, height, 0, view);
    } else {
      if (view.byteLength !== width * height * l.bytes) throw new Error(`${format}: ${view.byteLength} bytes for ${width}×${height}`);
      // Half and float data go up as Uint16Array / Float32Array views of the same bytes (copied
      // when not aligned for the view).
      const aligned = (/** @type {number} */ n) => (view.byteOffset % n ? new Uint8Array(view) : view);
      const data = l.typeName === 'HALF_FLOAT' ? new Uint16Array(aligned(2).buffer, aligned(2).byteOffset, view.byteLength / 2)
        : l.typeName === 'FLOAT' ? new Float32Array(aligned(4).buffer, aligned(4).byteOffset, view.byteLength / 4) : view;
      gl.texImage2D(gl.TEXTURE_2D, level, l.internal, width, height, 0, l.format, l.type, data);
    }
    const err = gl.getError();
    if (err !== gl.NO_ERROR) {
      throw new Error(`the GPU refused the ${format} ${l.compressed ? 'blocks' : 'texels'} of mip ${level} (${width}×${height}, GL error 0x${err.toString(16)})`);
    }
    // texelFetch ignores filtering, but completeness still needs a non-mipmap min filter.
    gl.texParameteri(gl.TEXTURE_2D, gl.TEXTURE_MIN_FILTER, gl.NEAREST);
    gl.texParameteri(gl.TEXTURE_2D, gl.TEXTURE_MAG_FILTER, gl.NEAREST);
    entry.levels.set(level, { width, height });
    return { key, level, width, height, format, swizzle: l.swizzle, uploadMs: performance.now() - t0, cached: false };
  }

  /** Test hook: loses the context as a driver reset would (WEBGL_lose_context); resolves once lost. */
  loseContext() {
    if (!this.gl) return Promise.resolve(false);
    const lost = new Promise((resolve) => this.canvas.addEventListener('webglcontextlost', () => resolve(true), { once: true }));
    this.gl.getExtension('WEBGL_lose_context')?.loseContext();
    return lost;
  }

  /** Forgets the GL texture `key`. @param {string} key */
  forget(key) {
    const e = this.textures.get(key);
    if (e && this.gl) this.gl.deleteTexture(e.tex);
    this.textures.delete(key);
  }

  /** Forgets every uploaded surface (e.g. after the files changed). */
  clear() {
    if (this.gl) for (const e of this.textures.values()) this.gl.deleteTexture(e.tex);
    this.textures.clear();
  }

  /**
   * Draws `surface` at 1:1 into this.canvas with the display settings `s` (the object
   * displayBytes takes) for a CPU image of `precision`; `bottomFirst`: rows are stored bottom first
   * (the CPU decode flips them). Returns the canvas, or null when the context is gone.
   * @param {Surface} surface @param {import('../types').Precision} precision
   * @param {Partial<import('../types').DisplaySettings>} s @param {boolean} [bottomFirst]
   * @returns {HTMLCanvasElement | null}
   */
  draw(surface, precision, s = {}, bottomFirst = false) {
    if (!this.init()) return null;
    const gl = /** @type {WebGL2RenderingContext} */ (this.gl);
    const entry = this.textures.get(surface.key);
    if (!entry || !entry.levels.has(surface.level)) return null;
    const { width, height } = surface;
    if (this.canvas.width !== width || this.canvas.height !== height) {
      this.canvas.width = width;
      this.canvas.height = height;
    }
    gl.viewport(0, 0, width, height);
    gl.useProgram(this.program);
    gl.activeTexture(gl.TEXTURE0);
    gl.bindTexture(gl.TEXTURE_2D, entry.tex);
    // Only the mip shown: texelFetch's level 0 is the base level.
    gl.texParameteri(gl.TEXTURE_2D, gl.TEXTURE_BASE_LEVEL, surface.level);
    gl.texParameteri(gl.TEXTURE_2D, gl.TEXTURE_MAX_LEVEL, surface.level);
    const u = this.uniforms;
    const ch = { r: true, g: true, b: true, a: true, ...(s.channels ?? {}) };
    const on = [ch.r, ch.g, ch.b, ch.a];
    const count = on.filter(Boolean).length;
    const tm = s.tonemap && TONEMAPS.includes(s.tonemap) ? s.tonemap : 'clamp';
    const exposure = s.exposure ?? 0;
    gl.uniform1i(u.uTex, 0);
    gl.uniform2i(u.uSize, width, height);
    gl.uniform1i(u.uFlip, Boolean(s.flipY) !== Boolean(bottomFirst) ? 1 : 0);
    gl.uniform4i(u.uSwz, ...surface.swizzle);
    gl.uniform1i(u.uPrec, precision === 'unorm8' ? 0 : precision === 'unorm16' ? 1 : 2);
    gl.uniform1i(u.uColour, s.colour === 'linear' ? 1 : s.colour === 'gamma' ? 2 : 0);
    gl.uniform1i(u.uNormal, Math.max(0, ['off', 'rg', 'ag', 'ra'].indexOf(s.normal ?? 'off')));
    gl.uniform1i(u.uFlipGreen, s.flipGreen ? 1 : 0);
    gl.uniform1f(u.uScale, Math.pow(2, exposure));
    gl.uniform1i(u.uTonemap, TONEMAPS.indexOf(tm));
    gl.uniform1i(u.uPlain, exposure === 0 && tm === 'clamp' ? 1 : 0);
    gl.uniform4i(u.uOn, Number(on[0]), Number(on[1]), Number(on[2]), Number(on[3]));
    gl.uniform1i(u.uOnCount, count);
    gl.uniform1i(u.uSolo, Math.max(0, on.indexOf(true)));
    gl.uniform1i(u.uBad, s.badOverlay ? 1 : 0);
    gl.disable(gl.BLEND);
    gl.drawArrays(gl.TRIANGLES, 0, 3);
    return this.canvas;
  }

  /** The last drawing as RGBA bytes, rows top first (readPixels gives them bottom first). */
  pixels() {
    const gl = /** @type {WebGL2RenderingContext} */ (this.gl);
    const { width, height } = this.canvas;
    const raw = new Uint8Array(width * height * 4);
    gl.readPixels(0, 0, width, height, gl.RGBA, gl.UNSIGNED_BYTE, raw);
    const out = new Uint8Array(raw.length);
    const row = width * 4;
    for (let y = 0; y < height; y++) out.set(raw.subarray(y * row, (y + 1) * row), (height - 1 - y) * row);
    return out;
  }

  /** Waits until the GPU has done what was asked (for timings). */
  finish() {
    if (!this.gl) return;
    const px = new Uint8Array(4);
    this.gl.readPixels(0, 0, 1, 1, this.gl.RGBA, this.gl.UNSIGNED_BYTE, px);
  }
}
