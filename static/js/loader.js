// The modules loaded after the first screen: the views (app/api/pages.py preloads the ones a page shows first;
// the others follow once the page has loaded, history and replay only when opened), each asked again once under
// a second address if its download fails, and the page drawn again when one it waited for arrives.
import { t } from './i18n.js';
import { change } from './state.js';

export const VIEWS = {
  home: './views/home.js',
  join: './views/join.js',
  lobby: './views/lobby.js',
  table: './views/table.js',
  scores: './views/scores.js',
  chat: './views/chat.js',
  motion: './views/motion.js',
  history: './views/history.js',
  replay: './views/replay.js',
  standings: './views/standings.js',
  learn: './views/learn.js',
};
const lazyModules = new Map(); // path -> {module, wanted}
const failures = new Set(); // optional views whose download failed under both addresses: pages go on without them
let failed = () => {}; // said when a module the page waits for cannot be loaded

/** ``say(message)`` tells the person a module the page waits for did not come (the page's toast). */
export function onLoadFailure(say) {
  failed = say;
}

// A module whose download failed stays failed under its address for the page's life (the browser keeps the
// failure), so it is asked again once under a second address a moment later, before the page gives up.
const importAgain = (path) => new Promise((resolve) => setTimeout(resolve, 1000))
  .then(() => import(`${import.meta.resolve(path)}${import.meta.resolve(path).includes('?') ? '&' : '?'}again=1`));

/** ``import(path)`` (relative to js/), asked again once under a second address if its download fails. */
export const importOnce = (path) => import(path).catch(() => importAgain(path));

/** Start loading ``path`` (once); a render follows its arrival if the page asked for it meanwhile. */
export function load(path) {
  let entry = lazyModules.get(path);
  if (!entry) {
    entry = { module: null, wanted: false, optional: false };
    lazyModules.set(path, entry);
    importOnce(path).then((module) => {
      entry.module = module;
      if (entry.wanted) change();
    }, () => {
      lazyModules.delete(path);
      if (entry.optional) {
        failures.add(path); // asked for no more in this page's life
        change(); // the page that waited for it, drawn without it
      } else if (entry.wanted) {
        failed(t('err_network'));
      }
    });
  }
  return entry;
}

/** The view module ``name`` once loaded, or null while it loads (the page is drawn again when it comes).
 * ``optional``: a page can do without it (if its download fails, the page is drawn without it, nothing said). */
export function view(name, { optional = false } = {}) {
  const entry = load(VIEWS[name]);
  if (!entry.module) entry.wanted = true;
  entry.optional ||= optional;
  return entry.module;
}

/** The view module ``name`` is here already. */
export const isLoaded = (name) => !!lazyModules.get(VIEWS[name])?.module;

/** The optional view module ``name`` could not be downloaded (a page that waited for it waits no more). */
export const loadFailed = (name) => failures.has(VIEWS[name]);

/** Load the views of a table in the background, without drawing anything when they come. */
export function prefetchViews() {
  for (const name of ['home', 'lobby', 'table', 'scores', 'chat', 'motion']) load(VIEWS[name]);
}
