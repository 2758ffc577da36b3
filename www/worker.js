// The decode worker: owns the wasm Session (the catalog of every file opened so far). Runs in a
// dedicated worker because the core reads files synchronously (FileReaderSync), and so that
// parsing and decoding never freeze the page.
import init, { Session, demoFiles, frostbiteProfiles, takePanic } from './pkg/texscope.js';
import { thumbnail } from './thumbs.js';

const ready = init();
let session = null;
// After a panic the wasm instance is unusable; the page starts a fresh worker.
let broken = false;

function message(e) {
  const panic = takePanicSafe();
  if (panic) return `Texscope hit an internal error: ${panic}. Please report it with the file.`;
  if (e instanceof Error) return e.message;
  return String(e);
}

function takePanicSafe() {
  try { return takePanic(); } catch { return null; }
}

async function handle(req) {
  await ready;
  session ??= new Session();
  switch (req.op) {
    case 'add':
      // A worker started after a crash is told the profile the files were open with.
      if (req.profile !== undefined) session.setFrostbiteProfile(req.profile);
      if (req.unityVersion !== undefined) session.setUnityVersion(req.unityVersion);
      session.add(req.files);
      return { textures: session.textures(), problems: session.problems() };
    case 'profile':
      session.setFrostbiteProfile(req.profile);
      return { textures: session.textures(), problems: session.problems() };
    case 'unityVersion':
      session.setUnityVersion(req.version);
      return { textures: session.textures(), problems: session.problems() };
    case 'profiles':
      return { value: frostbiteProfiles() };
    case 'panic':
      session.debugPanic();
      return { value: null };
    case 'decode': {
      const img = session.decode(req.texture, req.mip, req.slice);
      return { result: img, transfer: [img.data.buffer] };
    }
    case 'thumb': {
      // The grid's thumbnail: one small mip (the page picks it) reduced here to a few KiB.
      const t = thumbnail(session.decode(req.texture, req.mip, 0));
      return { result: t, transfer: [t.data.buffer] };
    }
    case 'exportDds': {
      const bytes = session.exportDds(req.texture);
      return { result: bytes, transfer: [bytes.buffer] };
    }
    case 'surfaceBytes': {
      const bytes = session.surfaceBytes(req.texture, req.mip, req.slice);
      return { result: bytes, transfer: [bytes.buffer] };
    }
    case 'vtLayout':
      return { value: session.vtLayout(req.texture) };
    case 'tiles': {
      // A rectangle of VT tiles (www/pool.js runs these on every worker of the pool).
      const img = session.decodeTiles(req.texture, req.mip, req.layer, req.x, req.y, req.w, req.h);
      return { result: img, transfer: [img.data.buffer] };
    }
    case 'vtGrid':
      return { value: session.vtGrid(req.texture, req.mip, req.layer) };
    case 'demo': {
      // Generated in the core; the page opens them as it would dropped files. Not transferred:
      // a buffer handed over could be the wasm memory itself, and detaching that kills the module.
      return { value: demoFiles(req.demo) };
    }
    default:
      throw new Error(`unknown request ${req.op}`);
  }
}

self.onmessage = async (ev) => {
  const req = ev.data;
  if (broken) {
    self.postMessage({ id: req.id, ok: false, fatal: true, error: 'the decoder stopped after an internal error' });
    return;
  }
  try {
    const out = await handle(req);
    if (out.transfer) self.postMessage({ id: req.id, ok: true, value: out.result }, out.transfer);
    else self.postMessage({ id: req.id, ok: true, value: 'value' in out ? out.value : out });
  } catch (e) {
    // A wasm trap (panic) is a WebAssembly.RuntimeError; a JsError from the core is a plain Error.
    const fatal = e instanceof WebAssembly.RuntimeError;
    if (fatal) broken = true;
    self.postMessage({ id: req.id, ok: false, fatal, error: message(e) });
  }
};
