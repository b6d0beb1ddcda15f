// The service worker, served at /sw.js by app/api/install.py, which writes this build's id and files in below.
// It keeps the client's files so that a page opens at once on a slow link, and opens at all offline:
//  - /static/...?v=<hash> (a file's content never changes under its URL): from the cache first;
//  - pages (/, /r/CODE, its history and replays, /standings, /games/ID): from the network first; if the
//    network has not answered in 50 ms, or is down, a kept copy of the page, else of the home page (the same
//    client: it reads the address), else a page saying "you are offline". What the network brings later is
//    kept for the next time;
//  - a room's info (GET /api/rooms/CODE, never kept): asked for by the worker itself the moment it is asked for
//    the room's page; the page's own request for it (its preload, once the page is parsed) gets that answer,
//    once, rather than waiting a round trip of its own. A read that asks for a fresh answer (cache: 'no-store',
//    a history page's look at the table), and any request after 10 s, go to the network;
//  - everything else (the rest of the API, the WebSocket, /healthz, /readyz, /metrics, /docs): never touched.
// It also shows turn notifications (Web Push, app/push): a push's JSON {title, body, url, tag, lang, dir} as a
// notification, and a tap on one focuses a window open at that table, or opens one there.
// A new deploy changes this script (new hashes), so browsers install the new worker; it takes over at once,
// and drops the caches of older builds (but the last: see activate). A kept page always names files of the
// worker's own build (checked before it is kept), so what a page asks for offline is in the cache.
const BUILD = 'dev';
const SHELL = [];

const CACHE = `tt-${BUILD}`;
// A page not there by then comes from the cache (the network's copy is kept for next time): on a phone's link
// (a round trip of 100 ms or more) a kept page opens at once; a server next door still answers in time.
const PAGE_PATIENCE_MS = 50;
// Pages kept for offline (rooms, histories, replays, records): the most recently visited ones only.
const PAGES_KEPT = 12;
const PAGES = /^\/(?:r\/[A-Za-z0-9]+(?:\/history|\/replay\/[a-z0-9]+)?\/?|standings(?:\/.*)?|games\/[a-z0-9]+\/?)?$/;
// The room's info asked for as its page was (path -> {at, response}): for the page's own request, once, soon.
const early = new Map();
const EARLY_FOR_MS = 10000;
const ROOM_PAGE = /^\/r\/([A-Za-z0-9]{1,32})\/?$/;
const ENTRY = SHELL.find((url) => url.startsWith('/static/js/app.js?')); // every page names it
const STYLE = SHELL.find((url) => url.startsWith('/static/css/app.css?'));

self.addEventListener('install', (event) => {
  event.waitUntil((async () => {
    const cache = await caches.open(CACHE);
    const files = SHELL.filter((url) => url !== '/');
    await cache.addAll(files.map((url) => new Request(url, { cache: 'reload' })));
    const home = await keepable(await fetch('/', { cache: 'reload' }));
    if (!home) throw new Error('the home page is of another build'); // a deploy in between: tried again later
    await cache.put('/', home);
    await self.skipWaiting();
  })());
});

self.addEventListener('activate', (event) => {
  event.waitUntil((async () => {
    // Older builds' caches go, but for the one before this: a page opened from it a moment ago (before this
    // worker took over) still finds every file it names, of its own build.
    const older = (await caches.keys()).filter((name) => name.startsWith('tt-') && name !== CACHE);
    for (const name of older.slice(0, -1)) await caches.delete(name);
    await self.clients.claim();
  })());
});

self.addEventListener('fetch', (event) => {
  const { request } = event;
  if (request.method !== 'GET') return;
  const url = new URL(request.url);
  if (url.origin !== self.location.origin) return;
  if (url.pathname.startsWith('/static/') && url.searchParams.has('v')) {
    event.respondWith(cacheFirst(request, url));
  } else if (request.mode === 'navigate' && PAGES.test(url.pathname)) {
    askRoomInfo(url.pathname);
    event.respondWith(networkFirst(event, url));
  } else if (early.has(url.pathname) && request.cache !== 'no-store') { // (no-store: a read wanting it fresh)
    const asked = early.get(url.pathname);
    early.delete(url.pathname);
    if (Date.now() - asked.at < EARLY_FOR_MS) event.respondWith(asked.response.catch(() => fetch(request)));
  }
});

// Turn notifications. The payload is the server's (app/push/texts.py); anything else in it is ignored, and the
// page a tap opens is only ever a table's page of this site.
const ICON = '/static/icons/icon-192.png';

self.addEventListener('push', (event) => {
  let data = {};
  try {
    data = event.data?.json() ?? {};
  } catch { /* not JSON: shown with the app's name only */ }
  const text = (value) => (typeof value === 'string' ? value.slice(0, 300) : '');
  const url = ROOM_PAGE.test(text(data.url)) ? text(data.url) : '/';
  const options = { body: text(data.body), icon: ICON, data: { url } };
  if (text(data.tag)) Object.assign(options, { tag: text(data.tag), renotify: true }); // a new turn alerts again
  if (['en', 'fa'].includes(data.lang)) options.lang = data.lang;
  if (['ltr', 'rtl'].includes(data.dir)) options.dir = data.dir;
  event.waitUntil(self.registration.showNotification(text(data.title) || 'Three Thirteen', options));
});

self.addEventListener('notificationclick', (event) => {
  event.notification.close();
  event.waitUntil(openTable(event.notification.data?.url));
});

/** A tap on a turn's notification: the window already open at that table, focused, else a new one there. Only
 * this site's table pages open (anything else opens the home page); paths compare without case or a last '/'. */
async function openTable(path) {
  const url = new URL(ROOM_PAGE.test(path ?? '') ? path : '/', self.location.origin);
  const table = (at) => at.pathname.replace(/\/$/, '').toUpperCase();
  const same = (client) => {
    const open = new URL(client.url);
    return open.origin === url.origin && table(open) === table(url);
  };
  const windows = await self.clients.matchAll({ type: 'window', includeUncontrolled: true });
  const open = windows.find(same);
  if (open) return open.focus();
  return self.clients.openWindow(url.href);
}

/** On a room's page being asked for: ask for the room's info now (app/api/pages.py's room preload, early). */
function askRoomInfo(path) {
  const room = path.match(ROOM_PAGE);
  if (!room) return;
  const info = `/api/rooms/${room[1].toUpperCase()}`;
  const response = fetch(info, { credentials: 'same-origin' });
  response.catch(() => {}); // offline: the page's own request fails in its turn, and says so
  early.set(info, { at: Date.now(), response });
}

async function cacheFirst(request, url) {
  const kept = await caches.match(request); // this build's cache, or the one before (its page's files)
  if (kept) return kept;
  const cache = await caches.open(CACHE);
  const response = await fetch(request);
  // Only this build's files: an older page's URL now answers with the current content.
  if (response.ok && SHELL.includes(url.pathname + url.search)) await cache.put(request, response.clone());
  return response;
}

/** A copy of page ``response`` to keep, if it is of this build (every client file it names, in its import
 * map and preloads, is one this worker keeps); else null. */
async function keepable(response) {
  if (!response.ok || !ENTRY) return null;
  const html = await response.text();
  const named = html.match(/\/static\/(?:js|css)\/[\w./-]+\?v=[0-9a-f]+/g) ?? [];
  if (!named.includes(ENTRY) || named.some((url) => !url.includes('api-docs') && !SHELL.includes(url))) return null;
  return new Response(html, { status: response.status, statusText: response.statusText, headers: response.headers });
}

function networkFirst(event, url) {
  const network = fetch(event.request);
  event.waitUntil(network.then(async (response) => { // kept for the next time the network fails
    const copy = await keepable(response.clone());
    // (Not into a cache a newer worker has dropped meanwhile.)
    if (copy && await caches.has(CACHE)) await keepPage(await caches.open(CACHE), url.pathname, copy);
  }).catch(() => {}));
  return fromNetworkOrKept(network, url);
}

/** Keep ``copy`` as the page at ``path``, the newest of at most PAGES_KEPT pages; the oldest go (the home
 * page, which every page can open as, stays). A cache lists its entries in the order they were put. */
async function keepPage(cache, path, copy) {
  await cache.delete(path);
  await cache.put(path, copy);
  const pages = (await cache.keys()).map((request) => new URL(request.url).pathname)
    .filter((kept) => kept !== '/' && !kept.startsWith('/static/'));
  for (const old of pages.slice(0, -PAGES_KEPT)) await cache.delete(old);
}

async function fromNetworkOrKept(network, url) {
  const cache = await caches.open(CACHE);
  const patience = new Promise((resolve) => { setTimeout(resolve, PAGE_PATIENCE_MS, null); });
  const answer = await Promise.race([network.catch(() => null), patience]);
  if (answer) return answer;
  const kept = await cache.match(url.pathname);
  if (kept) return kept;
  const home = await cache.match('/');
  if (home) return home; // the same client: it reads the address (its boot script asks for a room's info)
  try {
    return await network;
  } catch {
    return offlinePage(url);
  }
}

/** Nothing kept and no network: say so, in both languages (no script; this build's stylesheet if kept). */
function offlinePage(url) {
  const again = url.pathname.replace(/[^A-Za-z0-9/_.~%-]/g, '');
  const html = `<!doctype html>
<html lang="en" dir="ltr"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1, viewport-fit=cover">
<meta name="theme-color" content="#0d3b2e"><title>Offline – Three Thirteen</title>
${STYLE ? `<link rel="stylesheet" href="${STYLE}">` : ''}</head>
<body><main class="main"><section class="panel narrow offline" data-testid="offline">
<h1>You are offline</h1>
<p>Three Thirteen cannot reach the server. This page opens once you are back online.</p>
<div lang="fa" dir="rtl"><h1>شما آفلاین هستید</h1>
<p>سه و سیزده به سرور دسترسی ندارد. این صفحه وقتی دوباره آنلاین شوید باز می‌شود.</p></div>
<p><a class="button primary" href="${again}">Try again · دوباره</a></p>
</section></main></body></html>`;
  return new Response(html, {
    status: 503,
    headers: {
      'Content-Type': 'text/html; charset=utf-8',
      'Cache-Control': 'no-store',
      'Content-Security-Policy': "default-src 'none'; style-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
    },
  });
}
