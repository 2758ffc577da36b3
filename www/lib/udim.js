// UDIM block layout (issue 18), from the core's tile grid: the rule of model::tiled
// TiledLayout::blocks, repeated here because the core's own block list cost ~0.7 KB of the first
// wasm module's 300 KB gzipped budget (measured), which that module had no room for. Block (x, y)
// of a width_in_blocks x height_in_blocks grid is an equal share of mip 0's tile grid and UV tile
// 1001 + x + 10 y (docs/unreal.md); a block none of whose mip-0 cells holds a tile is an empty UV
// tile. tests/unreal_fixtures.rs (the Rust rule) and tests/browser/unreal.test.mjs (this one) hold
// both to the same expectations.

/** @typedef {import('../types').VtBlock} VtBlock */

/**
 * The blocks of a UDIM texture from its mip-0 grid; none when the grid does not divide into them.
 * @param {import('../types').VtGrid} g0 @param {number} across @param {number} down @returns {VtBlock[]}
 */
export function layoutBlocks(g0, across, down) {
  const { width_tiles: wt, height_tiles: ht, tile_size: ts } = g0;
  if (wt % across || ht % down) return [];
  const tw = wt / across;
  const th = ht / down;
  /** @type {VtBlock[]} */
  const out = [];
  for (let by = 0; by < down; by++) {
    for (let bx = 0; bx < across; bx++) {
      let present = 0;
      for (const c of g0.tiles) {
        if (Math.floor(c.x / tw) === bx && Math.floor(c.y / th) === by && c.tile_index !== null && c.tile_index !== undefined) present++;
      }
      out.push({ x: bx, y: by, udim: 1001 + bx + 10 * by, pixels: [bx * tw * ts, by * th * ts, tw * ts, th * ts], tiles: tw * th, tiles_present: present });
    }
  }
  return out;
}
