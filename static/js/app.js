// The client's entry point: routes (home or a room), the room's live state, and rendering on every change.
import * as api from './api.js';
import { h, mount } from './dom.js';
import { applyDocument, lang, onLangChange, setLang, t } from './i18n.js';
import { RoomSocket } from './socket.js';
import { renderChatLog, renderChatPanel } from './views/chat.js';
import { renderHistory } from './views/history.js';
import { renderHome } from './views/home.js';
import { renderJoin, renderLobby } from './views/lobby.js';
import { renderReplay } from './views/replay.js';
import { renderOverlay } from './views/scores.js';
import { renderTable } from './views/table.js';

const els = {
  top: document.getElementById('topbar'),
  main: document.getElementById('main'),
  chat: document.getElementById('chat'),
  overlay: document.getElementById('overlay'),
  toast: document.getElementById('toast'),
};

/** Everything the views read; they change it only through the functions in ``actions``. */
const ctx = {
  route: parseRoute(),
  conn: null, // 'connecting' | 'online' | 'reconnecting'
  socket: null,
  seat: null,
  isHost: false,
  room: null,
  game: null,
  version: null,
  chat: [],
  feed: [], // the last moves, from the state's events
  pending: null, // {id, message} of the action awaiting its ack
  goOut: false,
  overlay: null, // null | {kind: 'round', index} | {kind: 'scores'}
  seenResults: null,
  joinInfo: null, // room info while choosing to join or watch
  error: null,
};

function parseRoute() {
  const page = location.pathname.match(/^\/r\/([A-Za-z0-9]+)\/(?:history|replay\/(\d+))\/?$/);
  if (page) {
    const code = page[1].toUpperCase();
    return page[2] ? { view: 'replay', code, gameId: Number(page[2]) } : { view: 'history', code };
  }
  const match = location.pathname.match(/^\/r\/([A-Za-z0-9]+)\/?$/);
  return match ? { view: 'room', code: match[1].toUpperCase() } : { view: 'home' };
}

let toastTimer = null;
function toast(message) {
  els.toast.textContent = message;
  els.toast.classList.add('show');
  clearTimeout(toastTimer);
  toastTimer = setTimeout(() => els.toast.classList.remove('show'), 4000);
}

function errorText(err) {
  const key = `err_${err.code}`;
  const known = t(key);
  if (known !== key) return known;
  return t('error', { message: err.message || err.code || '' });
}

function shareUrl(code) {
  return `${location.origin}/r/${code}`;
}

const FEED_KINDS = new Set(['draw', 'discard', 'go_out', 'reshuffle']);
let watchNext = null; // a room we just asked to join but got a place to watch: open it without asking again

function navigate(path) {
  history.pushState(null, '', path);
  start();
}

// ---- actions the views call -------------------------------------------------------------------------------

const actions = {
  async create(body) {
    const created = await api.createRoom(body);
    api.saveToken(created.code, created.token);
    navigate(`/r/${created.code}`);
  },
  async join(code, name, seat = null) {
    const joined = await api.joinRoom(code, name, seat);
    if (!joined.spectator && joined.token) api.saveToken(code, joined.token);
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
    const id = ctx.socket.action(move);
    if (!id) return;
    const message = { type: 'action', id, version: ctx.version, action: move };
    ctx.pending = { id, message };
    ctx.goOut = false;
    render();
    // No ack yet: say it again with the same id (the server never applies one id twice).
    setTimeout(() => { if (ctx.pending?.id === id) ctx.socket?.send(message); }, 8000);
  },
  send(message) {
    ctx.socket?.send(message);
  },
  setGoOut(on) {
    ctx.goOut = on;
    render();
    if (on) els.main.querySelector('.hand .card.go-out-card')?.focus();
  },
  showScores() {
    ctx.overlay = { kind: 'scores' };
    renderOverlayNow();
  },
  closeOverlay() {
    ctx.overlay = null;
    renderOverlayNow();
    els.main.querySelector('[data-testid=scores]')?.focus();
  },
  rerender: () => render(),
  navigate: (path) => navigate(path),
  toast,
  shareUrl,
};

// ---- the room socket ----------------------------------------------------------------------------------------

function connect(token) {
  ctx.socket?.close();
  ctx.joinInfo = null;
  ctx.conn = 'connecting';
  ctx.socket = new RoomSocket(ctx.route.code, token, {
    onStatus(status) {
      ctx.conn = status;
      renderTop();
    },
    onWelcome(msg) {
      ctx.seat = msg.seat;
      ctx.isHost = !!msg.you_are_host;
      if (ctx.pending) ctx.socket.send(ctx.pending.message); // same id: never applied twice
    },
    onState(msg) {
      const moves = (msg.events ?? []).filter((e) => FEED_KINDS.has(e.kind));
      if (moves.length) ctx.feed = [...ctx.feed, ...moves].slice(-2);
      if (!msg.game) ctx.feed = [];
      ctx.version = msg.version;
      ctx.room = msg.room;
      ctx.game = msg.game;
      noticeRoundEnd();
      render();
    },
    onAck(msg) {
      if (ctx.pending && ctx.pending.id === msg.id) ctx.pending = null;
    },
    onError(msg) {
      if (msg.code === 'bad_token') {
        // Our seat is gone (removed, or another database): forget it and offer to join again.
        ctx.socket.close();
        ctx.socket = null;
        try { localStorage.removeItem(`tt.token.${ctx.route.code}`); } catch { /* ignore */ }
        showJoin();
        return;
      }
      if (msg.code === 'room_not_found') {
        ctx.error = t('err_not_found');
        ctx.socket.close();
        render();
        return;
      }
      if (ctx.pending && (!msg.id || msg.id === ctx.pending.id)) ctx.pending = null;
      toast(errorText(msg));
      if (msg.id) ctx.socket.resync(); // show the true table after a refused move
      render();
    },
    onChat(msg) {
      ctx.chat.push(msg);
      if (ctx.chat.length > 60) ctx.chat.shift();
      renderChatLog(els.chat, ctx);
    },
    onClosed() {
      ctx.error = t('err_not_found');
      render();
    },
  });
  render();
}

/** Open the reveal of a round that has just ended (not the ones finished before we arrived). */
function noticeRoundEnd() {
  const results = ctx.game?.results ?? [];
  if (ctx.seenResults === null) {
    ctx.seenResults = results.length;
    if (ctx.game?.phase === 'game_over' && results.length) ctx.overlay = { kind: 'round', index: results.length - 1 };
    return;
  }
  if (results.length > ctx.seenResults) {
    ctx.overlay = { kind: 'round', index: results.length - 1 };
    ctx.goOut = false;
  } else if (results.length < ctx.seenResults) {
    ctx.overlay = null; // a rematch started a new game
  }
  ctx.seenResults = results.length;
}

async function showJoin() {
  ctx.socket?.close();
  ctx.socket = null;
  try {
    ctx.joinInfo = await api.getRoom(ctx.route.code);
  } catch (err) {
    ctx.error = err.status === 404 ? t('err_not_found') : errorText(err);
  }
  render();
}

// ---- rendering -----------------------------------------------------------------------------------------------

function renderTop() {
  const inRoom = ctx.route.view !== 'home';
  const other = lang() === 'en' ? 'fa' : 'en';
  els.top.classList.toggle('in-room', inRoom);
  const conn = inRoom && ctx.conn && ctx.conn !== 'online'
    ? h('span.conn', { class: ctx.conn, role: 'status', 'data-testid': 'conn' }, t(`conn_${ctx.conn}`))
    : null;
  mount(
    els.top,
    h('a.brand', { href: '/', 'aria-label': t('app_title'), onclick: (e) => { e.preventDefault(); actions.goHome(); } },
      h('span.brand-mark', { 'aria-hidden': 'true' }, '3|13'), h('span.brand-text', {}, t('app_title'))),
    inRoom ? h('span.room-code', { dir: 'ltr' }, ctx.route.code) : null,
    h('span.spacer'),
    conn,
    h('button.lang', {
      type: 'button', 'data-testid': 'lang', lang: other, 'aria-label': t('lang_other_label'),
      onclick: () => setLang(other),
    }, t('lang_other')),
  );
}

function renderOverlayNow() {
  renderOverlay(els.overlay, ctx, actions);
}

function render() {
  const focusKey = document.activeElement?.dataset?.key;
  renderTop();
  const myTurn = ctx.game && ctx.seat !== null && ctx.game.turn === ctx.seat && ctx.game.phase !== 'game_over';
  document.title = (myTurn ? '● ' : '') + (ctx.route.code ? `${ctx.route.code} · ` : '') + t('app_title');
  if (ctx.route.view === 'home') {
    els.chat.hidden = true;
    mount(els.overlay);
    if (!els.main.querySelector('[data-view="home"]')) renderHome(els.main, actions);
    return;
  }
  if (ctx.route.view === 'history' || ctx.route.view === 'replay') {
    els.chat.hidden = true;
    mount(els.overlay);
    (ctx.route.view === 'history' ? renderHistory : renderReplay)(els.main, ctx, actions);
    return;
  }
  if (ctx.error) {
    els.chat.hidden = true;
    mount(els.main, h('section.panel.narrow', {},
      h('p.error', { role: 'alert' }, ctx.error),
      h('button.primary', { type: 'button', onclick: () => actions.goHome() }, t('home_link'))));
    return;
  }
  if (ctx.joinInfo) {
    els.chat.hidden = true;
    renderJoin(els.main, ctx, actions);
    return;
  }
  if (!ctx.room) {
    mount(els.main, h('p.loading', { role: 'status' }, t('conn_connecting')));
    return;
  }
  if (ctx.room.status === 'lobby' || !ctx.game) renderLobby(els.main, ctx, actions);
  else renderTable(els.main, ctx, actions);
  renderChatPanel(els.chat, ctx, actions);
  renderOverlayNow();
  // Keep the keyboard where it was; after a draw, move it to the card just drawn.
  const drawn = (focusKey === 'stock' || focusKey === 'discard') && els.main.querySelector('.hand .card.drawn');
  if (drawn) drawn.focus();
  else if (focusKey) els.main.querySelector(`[data-key="${CSS.escape(focusKey)}"]`)?.focus();
}

function start() {
  ctx.socket?.close();
  Object.assign(ctx, {
    route: parseRoute(), conn: null, socket: null, seat: null, isHost: false, room: null, game: null,
    version: null, chat: [], feed: [], pending: null, goOut: false, overlay: null, seenResults: null, joinInfo: null,
    error: null,
  });
  mount(els.main);
  mount(els.chat);
  if (ctx.route.view === 'room') {
    const token = api.savedToken(ctx.route.code);
    if (token) connect(token);
    else if (watchNext === ctx.route.code) connect(null);
    else showJoin();
    watchNext = null;
  }
  render();
}

applyDocument();
onLangChange(() => {
  mount(els.main);
  mount(els.chat);
  render();
});
window.addEventListener('popstate', start);
document.addEventListener('keydown', (event) => {
  if (event.key !== 'Escape') return;
  if (ctx.overlay) actions.closeOverlay();
  else if (ctx.goOut) actions.setGoOut(false);
});
window.addEventListener('offline', () => ctx.socket?.offline());
window.addEventListener('online', () => ctx.socket?.reconnectNow());
start();
