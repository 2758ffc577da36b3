// The AES key bar (issue 17): under the header, not modal, shown while dropped containers wait
// for a key. It names them and takes a key: typed or pasted into a password field (0x-hex, base64,
// or the text of an FModel JSON key file), or a key file picked or dropped on the bar. The rest of
// the drop stays usable meanwhile; "Not now" hides the bar until another container needs a key.
// The field is emptied as soon as its text is sent (services/keys.js says where a key lives).
import { $ } from '../util.js';

/** Key files bigger than this are not key files (FModel's hold a few keys: well under 1 MiB). */
const MAX_KEY_FILE = 1 << 20;

/**
 * An element with a class, a test id and children.
 * @template {keyof HTMLElementTagNameMap} T
 * @param {T} tag @param {string} cls @param {string} testid @param {(Node | string)[]} [children]
 * @returns {HTMLElementTagNameMap[T]}
 */
function el(tag, cls, testid, children = []) {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (testid) e.dataset.testid = testid;
  e.append(...children);
  return e;
}

/** @param {import('../types').App} app */
export function createKeysView(app) {
  const { store } = app;
  const bar = $('keys');
  // Drops on the bar are key files, not files to open (services/open.js leaves them to us).
  bar.dataset.ownDrop = '';

  const title = el('strong', 'keys-title', 'keys-title');
  const names = el('ul', 'keys-names', 'keys-names');
  const input = el('input', 'keys-input', 'key-input');
  input.type = 'password';
  input.autocomplete = 'off';
  input.spellcheck = false;
  input.placeholder = 'AES key: 0x… (64 hex digits), base64, or a key file’s JSON';
  input.setAttribute('aria-label', 'AES key for the encrypted containers');
  const submit = el('button', 'button primary small', 'key-submit', ['Use key']);
  submit.type = 'submit';
  const fileInput = el('input', '', 'key-file');
  fileInput.type = 'file';
  fileInput.id = 'key-file';
  fileInput.accept = '.json,application/json,.txt,text/plain';
  fileInput.hidden = true;
  const fileButton = el('label', 'button small', '', ['Key file…']);
  fileButton.htmlFor = 'key-file';
  fileButton.title = 'A JSON key file as FModel keeps them ({"mainKey": …, "dynamicKeys": …}, or keys by container GUID), or a text file holding one key';
  const hide = el('button', 'button small', 'keys-hide', ['Not now']);
  hide.type = 'button';
  hide.title = 'Hide this bar; the containers stay listed under “Not opened”';
  const form = el('form', 'keys-form', 'keys-form', [input, submit, fileButton, fileInput]);
  const note = el('div', 'keys-note', 'keys-note');
  note.setAttribute('role', 'status');
  const hint = el('div', 'keys-hint', '', ['Keys stay in this tab’s memory: never in links, storage or logs. Drop a .json key file here.']);
  const badge = el('span', 'badge keys-badge', '', ['AES']);
  badge.setAttribute('aria-hidden', 'true');
  bar.replaceChildren(el('div', 'keys-head', '', [badge, title]), names, hide, form, note, hint);

  /** Names the user hid the bar for; the bar comes back when another container needs a key. */
  let hidden = new Set();

  /** @param {string} text */
  async function send(text) {
    input.value = '';
    submit.disabled = true;
    try {
      await app.keys.submit(text);
    } finally {
      submit.disabled = false;
    }
  }

  /** @param {File | undefined} file */
  async function sendFile(file) {
    if (!file) return;
    if (file.size > MAX_KEY_FILE) {
      store.commit('keys/note', { keyNote: { text: `${file.name} is ${file.size} bytes: not a key file.`, error: true } });
      return;
    }
    await send(await file.text());
  }

  form.addEventListener('submit', (e) => {
    e.preventDefault();
    send(input.value);
  });
  fileInput.addEventListener('change', () => {
    sendFile(fileInput.files?.[0]).finally(() => { fileInput.value = ''; });
  });
  bar.addEventListener('dragover', (e) => { e.preventDefault(); bar.classList.add('drag'); });
  bar.addEventListener('dragleave', () => bar.classList.remove('drag'));
  bar.addEventListener('drop', (e) => {
    e.preventDefault();
    bar.classList.remove('drag');
    sendFile(e.dataTransfer?.files[0]);
  });
  hide.addEventListener('click', () => {
    hidden = new Set(store.state.needsKey);
    store.commit('keys/note', { keyNote: null });
    render(store.state);
  });

  /** @param {Readonly<import('../types').State>} s */
  function render(s) {
    const n = s.needsKey.length;
    const k = s.keyNote;
    // After a key opened the last container, the bar stays to say so until closed or a new drop.
    const done = !n && Boolean(k && !k.error && !k.busy);
    if (!n) hidden = new Set();
    bar.hidden = !(done || (n && !s.needsKey.every((x) => hidden.has(x))));
    bar.classList.toggle('done', done);
    badge.className = `badge keys-badge ${done ? 'ok' : 'wait'}`;
    title.textContent = done ? 'Every encrypted container is open'
      : n === 1 ? 'An encrypted container needs an AES key' : `${n} encrypted containers need an AES key`;
    names.replaceChildren(...s.needsKey.map((name) => {
      const li = el('li', '', 'keys-name', [name]);
      li.title = name;
      return li;
    }));
    form.hidden = done;
    hide.textContent = done ? 'Close' : 'Not now';
    note.textContent = k?.text ?? '';
    note.classList.toggle('bad', Boolean(k?.error));
    note.setAttribute('role', k?.error ? 'alert' : 'status');
  }
  store.subscribe(['needsKey', 'keyNote'], render);
}
