// The page's composition root: creates the store, the worker client and pool, then every view and
// service, wired through one `app` object (types.d.ts App), and starts with what the address names.
// All parsing and decoding happen in the worker; this thread only paints and shows text.
// docs/page.md describes the modules and how to add one.
import { Store, initialState } from './store.js';
import { createActions } from './actions.js';
import { WorkerClient } from './worker-client.js';
import { WorkerPool } from './lib/pool.js';
import { allowSourceOrigins } from './lib/safety.js';
import { parseSources } from './lib/share-hash.js';
import { createGpuPath } from './services/gpu-path.js';
import { createSelection } from './services/selection.js';
import { createOpener, openPath } from './services/open.js';
import { createShare } from './services/share.js';
import { createExports } from './services/export.js';
import { createDemos } from './services/demos.js';
import { createSources } from './services/sources.js';
import { createQuery } from './services/query.js';
import { createCompare } from './services/compare.js';
import { createKeys } from './services/keys.js';
import { createTasks } from './services/tasks.js';
import { createOffline } from './services/offline.js';
import { createStatus } from './views/status.js';
import { createViewport } from './views/viewport.js';
import { attachGestures } from './views/gestures.js';
import { createInspector } from './views/inspector.js';
import { createUdim } from './views/udim.js';
import { createInfo } from './views/info.js';
import { createMipStrip } from './views/mipstrip.js';
import { createTextures } from './views/textures.js';
import { createToolbar } from './views/toolbar.js';
import { createHeaderMenus } from './views/header-menus.js';
import { createDialogs } from './views/dialogs.js';
import { attachKeyboard } from './views/keyboard.js';
import { createCompareView } from './views/compare.js';
import { createBuilds } from './views/builds.js';
import { createKeysView } from './views/keys.js';
import { createTestApi } from './testapi.js';

// First of all, before any request: only this server and the origins ?src= names may be fetched.
allowSourceOrigins(parseSources(location.search, location.href).urls);

const store = new Store(initialState());
const actions = createActions(store);
// What the worker has open, for a worker restarted after a crash and for the tile pool's workers.
// Files of a folder go by their path in it (services/open.js openPath), as the first 'add' sent them.
const opened = () => ({
  files: store.state.files,
  paths: store.state.files.map(openPath),
  profile: store.state.profile,
  unityVersion: store.state.unityVersion,
  platform: store.state.platform,
  only: store.state.only,
  keys: app.keys?.keys(),
});

/** @type {import('./types').App} */
// (Typed as the whole App: the lines below fill in the rest before anything runs.)
const app = /** @type {import('./types').App} */ (/** @type {unknown} */ ({ store, actions, client: new WorkerClient(opened), pool: new WorkerPool(opened) }));
// Views subscribe in this order, which is the order they are told of a change: the status first,
// then the viewport (layout, then paint), then what describes the image.
createStatus(app);
app.tasks = createTasks(app);
app.gpuPath = createGpuPath(app);
app.viewport = createViewport(app);
app.inspector = createInspector(app);
app.udim = createUdim(app);
app.info = createInfo(app);
createMipStrip(app);
app.textures = createTextures(app);
app.toolbar = createToolbar(app);
app.selection = createSelection(app);
app.opener = createOpener(app);
app.share = createShare(app);
app.exports = createExports(app);
app.demos = createDemos(app);
app.sources = createSources(app);
app.compare = createCompare(app);
app.compareView = createCompareView(app);
app.builds = createBuilds(app);
app.keys = createKeys(app);
createKeysView(app);
createHeaderMenus(app);
createDialogs(app);
attachGestures(app);
attachKeyboard(app);
app.offline = createOffline(app);
window.texscope = createTestApi(app);

createQuery(app).start();
