// The BCn block mode of a stored block, read from its first bytes (no decoding):
//  - BC1: colour0 > colour1 (as little-endian RGB565 integers) is the 4-colour mode, else the
//    3-colour mode with index 3 transparent black (Microsoft "Block Compression", BC1).
//  - BC7: the mode is the number of low zero bits of byte 0 (mode m starts with m zeros then a 1);
//    byte 0 = 0 is reserved (Microsoft "BC7 Format Mode Reference").
//  - BC6H: the mode field is the low 2 bits, or the low 5 bits when those 2 are 1x; numbered 1-14
//    as in Microsoft's "BC6H Format" table; the four 5-bit values ending in 10011 are reserved.
/** @type {Record<number, number>} */
const BC6H_MODES = { 0: 1, 1: 2, 2: 3, 6: 4, 10: 5, 14: 6, 18: 7, 22: 8, 26: 9, 30: 10, 3: 11, 7: 12, 11: 13, 15: 14 };

/** Block mode text for `format` (census name) from the block's bytes, or '' when not BCn-moded. @param {string} format @param {Uint8Array | null | undefined} b */
export function blockMode(format, b) {
  if (!b || !b.length) return '';
  if (/^BC1/.test(format) && b.length >= 4) {
    const c0 = b[0] | (b[1] << 8);
    const c1 = b[2] | (b[3] << 8);
    return c0 > c1 ? 'BC1 4-colour' : 'BC1 3-colour + transparent';
  }
  if (/^BC7/.test(format)) {
    if (b[0] === 0) return 'BC7 reserved mode (decodes to zero)';
    let m = 0;
    while (!(b[0] & (1 << m))) m++;
    return `BC7 mode ${m}`;
  }
  if (/^BC6H/.test(format)) {
    const v = b[0] & 3;
    const key = v < 2 ? v : b[0] & 0x1f;
    const mode = BC6H_MODES[key];
    return mode ? `BC6H mode ${mode}` : 'BC6H reserved mode (decodes to zero)';
  }
  return '';
}

/** True for the formats blockMode() reads. */
export const hasBlockMode = (/** @type {string} */ format) => /^(BC1|BC6H|BC7)/.test(format);
