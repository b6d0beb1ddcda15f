// The page's first script, written into the page itself by app/api/pages.py (its CSP allows it by hash), so
// that it runs even when nothing else downloads. If a file of app.js's static imports fails to download, the
// browser runs none of them and the page would stay blank: app.js marks the page (html[data-app]) as the
// first thing it does, so a page the parser has finished (module scripts run before DOMContentLoaded) that is
// still unmarked did not start. It is loaded once more (the files that did come are in the cache); if that
// fails too, a message says so in both languages, with a link to try again.
//
// First, on a room link's page opened by a browser with no seat there: the join form needs the room's public
// info, so it is asked for now, alongside the modules (on HTTP/1.1's six connections it would otherwise queue
// behind them), as a preload app.js's api.getRoom is handed. A browser with a seat (storage.js's token key)
// opens the room's socket instead and never reads that answer: a preload then lay unread (the console warned
// on every load), and a later read of the room (a history page's look at the table, minutes on) was handed
// that stale answer (issue 37: a false "a new game has started").
(() => {
  const room = /^\/r\/([A-Za-z0-9]{1,32})\/?$/.exec(location.pathname);
  if (!room) return;
  const code = room[1].toUpperCase();
  try {
    if (localStorage.getItem(`tt.token.${code}`) !== null) return;
  } catch { /* storage blocked: no seat can be kept either */ }
  const link = document.createElement('link');
  link.rel = 'preload';
  link.as = 'fetch';
  link.crossOrigin = 'anonymous';
  link.href = `/api/rooms/${code}`;
  document.head.append(link);
})();

(() => {
  const KEY = 'tt-boot-reloaded'; // this tab's last reload for a failed start: that page's address
  const started = () => 'app' in document.documentElement.dataset;

  function tellFailed() {
    const say = (text, fa) => {
      const p = document.createElement('p');
      p.textContent = text;
      if (fa) { p.lang = 'fa'; p.dir = 'rtl'; }
      return p;
    };
    const again = document.createElement('a');
    again.className = 'button primary';
    again.href = location.href;
    again.textContent = 'Try again · دوباره امتحان کنید';
    const box = document.createElement('section');
    box.className = 'panel narrow';
    box.setAttribute('role', 'alert');
    box.dataset.testid = 'load-failed';
    box.append(
      say('The page did not load. Check your connection and try again.'),
      say('صفحه بارگیری نشد. اتصال اینترنت را بررسی کنید و دوباره امتحان کنید.', true),
      again,
    );
    (document.getElementById('main') ?? document.body).replaceChildren(box);
  }

  document.addEventListener('DOMContentLoaded', () => {
    let store = null;
    try { store = window.sessionStorage; } catch { /* storage blocked: no reload, the message at once */ }
    if (started()) {
      store?.removeItem(KEY);
      return;
    }
    if (store && store.getItem(KEY) !== location.pathname) {
      store.setItem(KEY, location.pathname);
      location.reload();
      return;
    }
    store?.removeItem(KEY); // the link in the message tries once more, and may reload once again
    tellFailed();
  });
})();
