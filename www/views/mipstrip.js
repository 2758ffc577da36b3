// The mip strip under the view: every mip of the selected texture with its size and where it lives
// (inline, streamed from another file, or missing: the file to drop); a click shows that mip.
import { $ } from '../util.js';

/** @param {import('../types').App} app */
export function createMipStrip(app) {
  const { store } = app;
  const strip = $('mip-strip');

  /** @param {import('../types').TextureRecord} t @param {number} mip */
  function render(t, mip) {
    strip.replaceChildren();
    t.mips.forEach((m, i) => {
      const b = document.createElement('button');
      b.type = 'button';
      b.className = `mip-chip${m.present ? '' : ' missing'}${i === mip ? ' selected' : ''}`;
      b.dataset.testid = `mip-chip-${i}`;
      const where = m.present ? (/inline|^$/.test(m.location_note) ? 'inline' : 'streamed') : 'missing';
      b.dataset.where = where;
      const size = document.createElement('span');
      size.className = 'mip-size';
      size.textContent = `${i} · ${m.width}×${m.height}${m.depth > 1 ? `×${m.depth}` : ''}`;
      const loc = document.createElement('span');
      loc.className = 'mip-loc';
      loc.textContent = m.present
        ? `${where} · ${m.files.join(', ') || m.location_note || t.census.file}`
        : `missing · drop ${m.missing.join(', ') || m.location_note}`;
      b.title = `${m.location_note}${m.files.length ? ` — ${m.files.join(', ')}` : ''}${m.missing.length ? ` — not opened: ${m.missing.join(', ')}` : ''}`;
      b.append(size, loc);
      b.addEventListener('click', () => {
        const c = store.state.current;
        if (c) app.selection.selectFromUi({ index: c.index, mip: i, slice: Math.min(c.slice, m.surfaces - 1) });
      });
      strip.append(b);
    });
  }

  store.subscribe(['current'], (s) => {
    if (s.current) render(s.textures[s.current.index], s.current.mip);
  });
}
