// The client's entry point: the route (home, a room, its history or a replay, the standings), the actions the
// views call (every change of the state goes through state.js's change(), here or in room.js), and a new page
// when the address changes. Drawing is render.js's (one render per batch of changes), the room socket's
// messages room.js's, loading the views loader.js's. It imports only what every page's first screen needs (a
// room link's join form above all: on a slow phone link each file is a round trip); what a connected room
// needs is loaded by room.js's loadLive(), the views by loader.js's view().
import * as api from './api.js';
import { applyDocument, lang, onLangChange, t } from './i18n.js';
import { change, createStore, initialState } from './state.js';
import { notifyOn, savedToken, saveToken, setConfirmDiscards, setGrouping } from './storage.js';
import { importOnce, onLoadFailure, prefetchViews, view } from './loader.js';
import { drawing, dropView, els, renderAll, toast } from './render.js';
import { connect, liveModules, loadLive, pauseTick, readAllChat, showJoin, wireRoom } from './room.js';
import { applyLooks } from './views/settings.js';
import './install.js';

document.documentElement.dataset.app = 'started'; // every import came: js/boot.js need not load the page again

/** A path segment as typed (a malformed escape stays as it is). */
function decoded(segment) {
  try { return decodeURIComponent(segment); } catch { return segment; }
}

function parseRoute() {
  if (/^\/passkeys\/?$/.test(location.pathname)) {
    const query = new URLSearchParams(location.search);
    return { view: 'standings', name: null, passkeys: true, keep: query.get('name'), signin: query.get('signin') };
  }
  const standings = location.pathname.match(/^\/standings(?:\/(.+?))?\/?$/);
  if (standings) return { view: 'standings', name: standings[1] ? decoded(standings[1]) : null };
  const game = location.pathname.match(/^\/games\/([a-z0-9]+)\/?$/); // a replay by the game's id alone
  if (game) return { view: 'replay', code: null, gameId: game[1] };
  const page = location.pathname.match(/^\/r\/([A-Za-z0-9]+)\/(?:history|replay\/([a-z0-9]+))\/?$/);
  if (page) {
    const code = page[1].toUpperCase();
    return page[2] ? { view: 'replay', code, gameId: page[2] } : { view: 'history', code };
  }
  const match = location.pathname.match(/^\/r\/([A-Za-z0-9]+)\/?$/);
  if (match) return { view: 'room', code: match[1].toUpperCase() };
  return location.pathname === '/' ? { view: 'home' } : { view: 'not_found' };
}

/** Everything the views read; it changes only in change() (state.js), called by the actions below. */
const ctx = createStore(initialState(parseRoute()), {
  render: renderAll,
  // What the state itself calls for, before it is drawn: on your turn the coach (if on) asks for its hint.
  follow: (state) => {
    if (liveModules() && state.route.view === 'room') liveModules().coachFollow(state, actions);
    syncPush(state, false);
  },
});

let pushedFor = null; // the table whose notifications this page has asked the server for (or to stop)

/** Turn notifications on this device (Web Push) follow the bell at a table played at its own pace where this
 * browser holds a seat: the bell on, the server is asked to notify (``ask``: from the bell's tap, so the
 * browser may ask for its permission; otherwise only once it is granted); off, to stop. */
function syncPush(state, ask) {
  const code = state.route.view === 'room' ? state.route.code : null;
  const token = code ? savedToken(code) : null;
  const pace = state.room?.options?.pace;
  if (!token || state.seat === null || state.seat === undefined || !pace || pace === 'live') return;
  const key = `${code}|${notifyOn()}`;
  if (pushedFor === key && !ask) return;
  pushedFor = key;
  if (!ask && !notifyOn()) return; // only the bell's tap turns them off
  importOnce('./push.js').then(async (push) => {
    if (!push.pushSupported()) return;
    if (!notifyOn()) await push.unsubscribe(code, token);
    else if (ask || push.pushPermission() === 'granted') await push.subscribe(code, token, lang());
  }).catch(() => { pushedFor = null; }); // asked again at the next change
}

function shareUrl(code) {
  return `${location.origin}/r/${code}`;
}

let watchNext = null; // a room we just asked to join but got a place to watch: open it without asking again

function navigate(path) {
  history.pushState(null, '', path);
  start();
}

// ---- actions the views call -------------------------------------------------------------------------------

const actions = {
  async create(body) {
    const created = await api.createRoom(body);
    saveToken(created.code, created.token);
    navigate(`/r/${created.code}`);
  },
  async join(code, name, seat = null) {
    const joined = await api.joinRoom(code, name, seat);
    if (!joined.spectator && joined.token) saveToken(code, joined.token);
    if (joined.spectator) {
      watchNext = code.toUpperCase();
      toast(t('table_full'));
    }
    if (ctx.route.view === 'room' && ctx.route.code === code.toUpperCase()) {
      connect(joined.spectator ? null : joined.token);
    } else {
      navigate(`/r/${code.toUpperCase()}`);
    }
  },
  watch() {
    connect(null);
  },
  askJoin() {
    showJoin();
  },
  goHome() {
    navigate('/');
  },
  play(move) {
    if (!ctx.socket || ctx.pending) return;
    // Offline a move cannot be sent: say so, rather than let it vanish.
    const id = ctx.conn === 'online' ? ctx.socket.action(move) : null;
    if (!id) {
      toast(t('offline_move'));
      return;
    }
    const message = { type: 'action', id, version: ctx.version, action: move };
    change((s) => {
      s.pending = { id, message };
      s.goOut = false;
    });
    // No ack yet: say it again with the same id (the server never applies one id twice).
    setTimeout(() => { if (ctx.pending?.id === id) ctx.socket?.send(message); }, 8000);
  },
  send(message) {
    ctx.socket?.send(message);
  },
  leave() { // the seat goes to a bot; the welcome that follows says we watch
    change((s) => { s.leaving = true; });
    ctx.socket?.send({ type: 'leave' });
    const token = savedToken(ctx.route.code);
    if (token) importOnce('./push.js').then((push) => push.unsubscribe(ctx.route.code, token)).catch(() => {});
  },
  askSeat(seat) {
    change((s) => {
      s.asking = seat;
      s.askError = null;
    })
      .then(() => { if (seat !== null) els.main.querySelector('[data-testid=ask-name]')?.focus(); });
  },
  setAskError(error) {
    change((s) => { s.askError = error; });
  },
  /** The current page's own part of the state (a form's choices and errors, what a page fetched). */
  setPage(partial) {
    change((s) => { s.page = { ...s.page, ...partial }; });
  },
  requestSeat(seat, name) {
    change((s) => { s.asking = null; });
    ctx.socket?.send({ type: 'request_seat', seat, name });
  },
  /** The bell: at a table notify.js is here already (the room's live modules), so the permission is asked at
   * once, within the click (a browser asks for it only then). */
  async toggleNotify() {
    const { toggleNotify } = liveModules() ?? await importOnce('./notify.js');
    await toggleNotify();
    syncPush(ctx, true);
    change();
  },
  askHint() {
    ctx.socket?.send({ type: 'hint' });
  },
  setGoOut(on) {
    change((s) => { s.goOut = on; })
      .then(() => { if (on) els.main.querySelector('.hand .card.go-out-card')?.focus(); });
  },
  showScores() {
    change((s) => { s.overlay = { kind: 'scores' }; });
  },
  /** "I have read the results": the server ends the pause once everyone present has said so. */
  continueRound() {
    if (!liveModules()?.pausing(ctx) || ctx.pause.sent || ctx.seat === null) return;
    change((s) => { s.pause.sent = true; });
    ctx.socket?.send({ type: 'continue' });
  },
  closeOverlay() {
    if (ctx.overlay?.kind === 'round') actions.continueRound(); // closing the results means: read
    change((s) => { s.overlay = null; });
  },
  /** Pick ``card`` to be confirmed ("confirm discards"); the button that plays it takes the keyboard. */
  select(card) {
    change((s) => { s.selected = card; })
      .then(() => els.main.querySelector('[data-testid=confirm-discard]')?.focus());
  },
  setConfirmDiscards(on) {
    setConfirmDiscards(on);
    change((s) => { s.selected = null; });
  },
  setGrouping(on) {
    setGrouping(on);
    change();
  },
  /** Your own order of the hand; ``card``: the element that moved by the keyboard (it keeps the keyboard). */
  reorder(order, card = null) {
    change((s) => { s.handOrder = order; }).then(() => { if (card?.isConnected) card.focus(); });
  },
  setFeedOpen(open) {
    change((s) => { s.feedOpen = open; });
  },
  setChatOpen(open) {
    change((s) => {
      s.chatOpen = open;
      readAllChat(s);
    });
  },
  setHostBoxOpen(open) {
    change((s) => { s.hostBoxOpen = open; });
  },
  setBotLevel(level) {
    change((s) => { s.botLevel = level; });
  },
  setRulesOpen(open) {
    change((s) => { s.rulesOpen = open; });
  },
  /** The coach switched on or off here (a choice of this browser): it asks at once if it is our turn. */
  setCoach(on) {
    liveModules().setCoach(on);
    change();
  },
  rerender: () => change(),
  navigate: (path) => navigate(path),
  toast,
  shareUrl,
};

// On a table's history or replay page: the watch for a new game there, and its notice.
const away = { watch: null, banner: null };

function closeBanner() {
  away.banner?.remove();
  away.banner = null;
}

/** Watch ``code`` for a new game while its history or a replay is open (``known``: the game we left). */
function watchForNewGame(code, known) {
  if (away.watch?.code === code) return; // history -> replay of the same table: the same watch goes on
  away.watch?.stop();
  // new-game.js is loaded here (these pages preload it): a stand-in until it comes, stopped if left before.
  const watch = { code, inner: null, stopped: false, stop() { this.stopped = true; this.inner?.stop(); } };
  away.watch = watch;
  importOnce('./new-game.js').then(({ NewGameWatch, newGameBanner }) => {
    if (watch.stopped) return;
    watch.inner = new NewGameWatch(code, known, () => {
      closeBanner();
      away.banner = newGameBanner(code, navigate, closeBanner);
      document.body.append(away.banner);
    });
  }, () => {});
}

function stopWatching() {
  away.watch?.stop();
  away.watch = null;
  closeBanner();
}

// What the tab keeps from one page to the next (the rest of the state starts afresh with each page).
const TAB_LIFE = ['handOrder', 'hostBoxOpen', 'botLevel', 'rulesOpen'];

function start() {
  ctx.socket?.close();
  const left = ctx.route?.view === 'room' && ctx.room ? { code: ctx.route.code, gameId: ctx.room.game_id } : null;
  change((s) => {
    const kept = Object.fromEntries(TAB_LIFE.map((name) => [name, s[name]]));
    Object.assign(s, initialState(parseRoute()), kept);
  });
  const { view: page, code } = ctx.route;
  if (code && (page === 'history' || page === 'replay') && (left?.code === code || savedToken(code) || away.watch?.code === code)) {
    watchForNewGame(code, left?.code === code ? left.gameId : undefined);
  } else {
    stopWatching();
  }
  dropView();
  view('chat')?.clearChat(els.chat);
  if (ctx.route.view === 'room') {
    const token = savedToken(ctx.route.code);
    if (token) connect(token);
    else if (watchNext === ctx.route.code) connect(null);
    else showJoin();
    watchNext = null;
  }
}

drawing(ctx, actions);
wireRoom(ctx);
onLoadFailure(toast);
applyDocument();
applyLooks();
onLangChange(() => change()); // every page is a template: drawn again in the new language, what is typed kept
window.addEventListener('popstate', start);
window.addEventListener('load', () => setTimeout(() => {
  prefetchViews();
  if (ctx.route.view === 'room') loadLive().catch(() => {});
}, 0), { once: true });
document.addEventListener('keydown', (event) => {
  if (event.key !== 'Escape') return;
  if (ctx.overlay) actions.closeOverlay();
  else if (ctx.goOut) actions.setGoOut(false);
});
window.addEventListener('offline', () => ctx.socket?.offline());
setInterval(pauseTick, 250);
window.addEventListener('online', () => ctx.socket?.reconnectNow());
start();
