// The client's entry point: routes (home or a room), the room's live state, and rendering on every change.
import * as api from './api.js';
import { h, mount } from './dom.js';
import { cardShort } from './cards.js';
import { applyDocument, errorText, lang, onLangChange, setLang, t } from './i18n.js';
import { noticeTurn, resetTurnNotice, toggleNotify } from './notify.js';
import { notePause, pauseLeft, pausing } from './pause.js';
import { RoomSocket } from './socket.js';
import { NewGameWatch, newGameBanner } from './new-game.js';
import { initialState } from './state.js';
import { forgetToken, learnOffered, notifyOn, savedToken, saveToken } from './storage.js';
import { coachFollow, coachRefused, coachTake } from './views/coach.js';
import { applyLooks, settingsButton } from './views/settings.js';
import { sendSavedAvatar } from './avatars.js';

const els = {
  top: document.getElementById('topbar'),
  main: document.getElementById('main'),
  chat: document.getElementById('chat'),
  overlay: document.getElementById('overlay'),
  toast: document.getElementById('toast'),
};

/** Everything the views read; they change it only through the functions in ``actions``. */
const ctx = initialState(parseRoute());

// The view in the main area: made when the page changes, stopped (timers, listeners) when it goes.
let active = { key: null, view: null };

function show(key, create) {
  if (active.key !== key) {
    active.view?.stop?.();
    els.main.querySelector('[data-testid=learn-offer]')?.remove(); // offered on the home page and join form only
    active = { key, view: create() };
  }
  return active.view;
}

// The views are loaded with import(): the server preloads the ones a page shows first (app/api/pages.py),
// the others follow once the page has loaded (history and replay only when opened).
const VIEWS = {
  home: './views/home.js',
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

// A module whose download failed stays failed under its address for the page's life (the browser keeps the
// failure), so it is asked again once under a second address a moment later, before the page gives up.
const importAgain = (path) => new Promise((resolve) => setTimeout(resolve, 1000))
  .then(() => import(`${import.meta.resolve(path)}${import.meta.resolve(path).includes('?') ? '&' : '?'}again=1`));

function load(path) {
  let entry = lazyModules.get(path);
  if (!entry) {
    entry = { module: null, wanted: false };
    lazyModules.set(path, entry);
    import(path).catch(() => importAgain(path)).then((module) => {
      entry.module = module;
      if (entry.wanted) render();
    }, () => {
      lazyModules.delete(path);
      if (entry.wanted) toast(t('err_network'));
    });
  }
  return entry;
}

/** The view module ``name`` once loaded, or null while it loads (the page is drawn again when it comes). */
function view(name) {
  const entry = load(VIEWS[name]);
  if (!entry.module) entry.wanted = true;
  return entry.module;
}

/** Load the views of a table in the background, without drawing anything when they come. */
function prefetchViews() {
  for (const name of ['home', 'lobby', 'table', 'scores', 'chat', 'motion']) load(VIEWS[name]);
}

function showLoading(text = t('loading')) {
  show('loading', drawOnly(() => null));
  mount(els.main, h('p.loading', { role: 'status' }, text));
}

/** A view that only draws (no timers or listeners of its own). */
const drawOnly = (draw) => () => ({ render: () => draw() });
/** The join form: drawn again only when the room's info does (a render for anything else, such as a module
 * arriving, must not wipe a name being typed). */
function joinView(lobby) {
  let drawn = null;
  return { render: (c) => { if (drawn !== c.joinInfo) { drawn = c.joinInfo; lobby.renderJoin(els.main, c, actions); } } };
}

/** A path segment as typed (a malformed escape stays as it is). */
function decoded(segment) {
  try { return decodeURIComponent(segment); } catch { return segment; }
}

function parseRoute() {
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

let toastTimer = null;
function toast(message) {
  els.toast.textContent = message;
  els.toast.classList.add('show');
  clearTimeout(toastTimer);
  toastTimer = setTimeout(() => els.toast.classList.remove('show'), 4000);
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
    ctx.pending = { id, message };
    ctx.goOut = false;
    render();
    // No ack yet: say it again with the same id (the server never applies one id twice).
    setTimeout(() => { if (ctx.pending?.id === id) ctx.socket?.send(message); }, 8000);
  },
  send(message) {
    ctx.socket?.send(message);
  },
  leave() { // the seat goes to a bot; the welcome that follows says we watch
    ctx.leaving = true;
    ctx.socket?.send({ type: 'leave' });
  },
  askSeat(seat) {
    ctx.asking = seat;
    render();
    if (seat !== null) els.main.querySelector('[data-testid=ask-name]')?.focus();
  },
  requestSeat(seat, name) {
    ctx.asking = null;
    ctx.socket?.send({ type: 'request_seat', seat, name });
    render();
  },
  askHint() {
    ctx.socket?.send({ type: 'hint' });
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
  /** "I have read the results": the server ends the pause once everyone present has said so. */
  continueRound() {
    if (!pausing(ctx) || ctx.pause.sent || ctx.seat === null) return;
    ctx.pause.sent = true;
    ctx.socket?.send({ type: 'continue' });
    renderOverlayNow();
  },
  closeOverlay() {
    if (ctx.overlay?.kind === 'round') actions.continueRound(); // closing the results means: read
    ctx.overlay = null;
    // The keyboard goes back where it was; if that is gone (a new round was dealt), to the next thing to do.
    if (!view('scores')?.renderOverlay(els.overlay, ctx, actions)) focusSomewhereUseful();
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
  resetTurnNotice();
  ctx.socket = new RoomSocket(ctx.route.code, token, {
    onStatus(status) {
      if (status === ctx.conn) return;
      ctx.conn = status;
      render(); // offline freezes the table; back online unfreezes it
    },
    onWelcome(msg) {
      if (msg.seat !== null && ctx.requestedSeat !== null && ctx.seat === null) toast(t('request_granted'));
      ctx.justLeft = msg.seat === null && ctx.leaving; // said with the host's change the next state brings
      if (ctx.justLeft) toast(t('you_left'));
      ctx.leaving = false;
      ctx.seat = msg.seat;
      ctx.isHost = !!msg.you_are_host;
      ctx.requestedSeat = msg.seat === null ? msg.requested_seat ?? ctx.requestedSeat : null;
      if (msg.seat !== null) ctx.asking = null;
      if (msg.chat) { // the table's recent chat (a reload or a reconnect would otherwise show an empty log)
        ctx.chat = msg.chat.map(({ seat, name, text }) => ({ seat, name, text }));
        view('chat')?.renderChatLog(els.chat, ctx);
      }
      if (msg.moves) { // this round's moves so far: what happened while this page was away
        ctx.roundFeed = msg.moves.slice(-300);
        ctx.feed = msg.moves.slice(-2);
        ctx.feedKey = 'welcome'; // they are of the round the next state shows
      }
      if (ctx.pending) ctx.socket.send(ctx.pending.message); // same id: never applied twice
      // A restarted server forgot who pressed Continue: say it again.
      if (pausing(ctx) && ctx.pause.sent && ctx.seat !== null) ctx.socket.send({ type: 'continue' });
    },
    onState(msg) {
      const moves = (msg.events ?? []).filter((e) => FEED_KINDS.has(e.kind));
      // Another game or round than the moves held (back after a round ended unseen): they are not its moves.
      const feedKey = msg.game ? `${msg.room.game_id}:${msg.game.round}` : null;
      if (ctx.feedKey !== feedKey && ctx.feedKey !== 'welcome') {
        ctx.roundFeed = [];
        ctx.feed = [];
      }
      ctx.feedKey = feedKey;
      for (const event of msg.events ?? []) { // this round's moves (those seen since the page opened)
        if (event.kind === 'round_start') { // a new deal: the last round's moves are not this one's
          ctx.roundFeed = [];
          ctx.feed = [];
        } else if (FEED_KINDS.has(event.kind)) {
          ctx.roundFeed = [...ctx.roundFeed, event].slice(-300);
          ctx.feed = [...ctx.feed, event].slice(-2);
        }
      }
      if (!msg.game) ctx.feed = [];
      if (!msg.game) ctx.roundFeed = [];
      ctx.version = msg.version;
      ctx.hint = null; // a hint is for the hand it was asked about
      ctx.selected = null; // so is a card picked to be confirmed
      noticeHost(msg.room);
      // Only the host ending it takes a game being played back to the lobby.
      if (ctx.room?.status === 'playing' && msg.room.status === 'lobby') {
        toast(ctx.isHost ? t('game_ended_you') : t('game_ended', { name: nameOf(msg.room.seats, msg.room.host_seat) }));
        ctx.overlay = null;
      }
      ctx.room = msg.room;
      ctx.game = msg.game;
      noticeRequestGone();
      noticeRoundEnd();
      noticeTurn(!!msg.game && ctx.seat !== null && msg.game.turn === ctx.seat && msg.game.phase === 'draw', ctx.route.code);
      sendSavedAvatar(ctx, (message) => ctx.socket?.send(message));
      notice(ctx.pause, notePause(ctx.pause, ctx.room, ctx.game));
      // The server played this turn's end for us (the turn timer ran out, or we were away): say so.
      if ((msg.events ?? []).some((e) => e.auto && e.seat === ctx.seat && e.kind !== 'draw')) toast(t('time_up'));
      render();
      if (msg.game && !ctx.overlay) view('motion')?.animateMoves(els.main, moves, ctx.seat, msg.game.wild_rank);
    },
    onPresence(msg) {
      noticeHost(msg.room);
      ctx.room = msg.room;
      notice(ctx.pause, notePause(ctx.pause, ctx.room, ctx.game));
      noticeRequestGone();
      render();
    },
    onSeatRequested(msg) {
      if (msg.token) saveToken(ctx.route.code, msg.token);
      if (ctx.seat === null) ctx.requestedSeat = msg.seat;
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
        forgetToken(ctx.route.code);
        showJoin();
        return;
      }
      if (msg.code === 'room_not_found') {
        ctx.error = t('err_not_found');
        ctx.socket.close();
        render();
        return;
      }
      if (coachRefused(ctx, msg)) { render(); return; } // the turn moved on while the coach asked
      if (ctx.pending && (!msg.id || msg.id === ctx.pending.id)) ctx.pending = null;
      toast(errorText(msg));
      if (msg.id) ctx.socket.resync(); // show the true table after a refused move
      render();
    },
    onHint(msg) {
      if (coachTake(ctx, msg)) { render(); return; } // the coach's own question: it shows the answer itself
      ctx.hint = { card: msg.card, goOut: msg.go_out };
      toast(msg.go_out ? t('hint_go_out', { card: cardShort(msg.card) })
        : t('hint_discard', { card: cardShort(msg.card), n: msg.penalty }));
      render();
    },
    onReaction(msg) {
      view('chat')?.showReaction(msg.seat, msg.emoji);
      const name = ctx.room?.seats?.find((s) => s.seat === msg.seat)?.name ?? '';
      addChatLine({ seat: msg.seat, name, text: msg.emoji });
    },
    onChat: addChatLine,
    onClosed() {
      ctx.error = t('err_not_found');
      render();
    },
  });
  render();
}

/** Our request for a bot's seat is no longer on the table (declined, or the game ended): say so. */
function noticeRequestGone() {
  if (ctx.requestedSeat === null || ctx.seat !== null) return;
  const seat = ctx.room?.seats.find((s) => s.seat === ctx.requestedSeat);
  if (seat?.request) return;
  ctx.requestedSeat = null;
  toast(t('request_gone'));
}

function addChatLine(line) {
  ctx.chat.push(line);
  if (ctx.chat.length > 60) ctx.chat.shift();
  view('chat')?.renderChatLog(els.chat, ctx);
}

/** A person's name at the table (the host is always a person, so no bot name to translate). */
const nameOf = (seats, seat) => seats.find((s) => s.seat === seat)?.name ?? null;

/** The host is whoever the room says (the role moves: handed over, or the host was gone); say when it moves. */
function noticeHost(room) {
  const before = ctx.room ? nameOf(ctx.room.seats, ctx.room.host_seat) : null;
  ctx.isHost = ctx.seat !== null && room.host_seat === ctx.seat;
  const after = nameOf(room.seats, room.host_seat);
  const left = ctx.justLeft ? `${t('you_left')} ` : '';
  ctx.justLeft = false;
  if (before !== null && before !== after) toast(ctx.isHost ? t('now_host_you') : left + t('now_host', { name: after }));
}

/** Take in the pause as the room now says it is; one that just ended closes the results by itself. */
function notice(before, after) {
  ctx.pause = after;
  if (after && after.over && before && !before.over) endPause();
}

/** The pause is over (everyone continued, or its countdown ran out): the round's first turn starts. */
function endPause() {
  ctx.pause.over = true;
  if (ctx.overlay?.kind === 'round' && ctx.game && ctx.game.phase !== 'game_over') ctx.overlay = null;
  if (ctx.game && ctx.seat !== null && ctx.game.turn === ctx.seat) toast(t('your_turn_now', { n: ctx.game.round }));
}

/** Count the pause down in the dialog; end it here when its time is up (the server sends nothing then). */
function pauseTick() {
  if (!pausing(ctx)) return;
  const left = pauseLeft(ctx.pause);
  if (left <= 0) {
    endPause();
    render();
    return;
  }
  for (const el of document.querySelectorAll('[data-pause-left]')) el.textContent = t('break_next_in', { n: left });
}

/** Open the reveal of a round that has just ended (not the ones finished before we arrived). */
function noticeRoundEnd() {
  const results = ctx.game?.results ?? [];
  if (ctx.seenResults === null) {
    ctx.seenResults = results.length;
    // Arriving at the end of the game, or during the pause between rounds: the last round's results.
    const reading = ctx.game?.phase === 'game_over' || !!ctx.room?.break_until;
    if (reading && results.length) ctx.overlay = { kind: 'round', index: results.length - 1 };
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
  const inRoom = !!ctx.route.code;
  const other = lang() === 'en' ? 'fa' : 'en';
  els.top.classList.toggle('in-room', inRoom);
  const conn = inRoom && ctx.conn && ctx.conn !== 'online'
    ? h('span.conn', { class: ctx.conn, role: 'status', 'data-testid': 'conn' }, t(`conn_${ctx.conn}`))
    : null;
  mount(
    els.top,
    // The name holds the printed mark too (label in name, WCAG 2.5.3): on a phone in a room only the mark shows.
    h('a.brand', { href: '/', 'aria-label': `3|13 ${t('app_title')}`, onclick: (e) => { e.preventDefault(); actions.goHome(); } },
      h('span.brand-mark', { 'aria-hidden': 'true' }, '3|13'), ' ', h('span.brand-text', {}, t('app_title'))),
    inRoom ? h('span.room-code', { dir: 'ltr' }, ctx.route.code) : null,
    h('span.spacer'),
    conn,
    inRoom ? h('button.bell', {
      type: 'button', 'data-testid': 'notify', 'aria-pressed': notifyOn() ? 'true' : 'false',
      'aria-label': t('notify_label'), title: t('notify_label'),
      onclick: async () => { await toggleNotify(); renderTop(); },
    }, notifyOn() ? '🔔' : '🔕') : null,
    h('button.bell.learn-open', {
      type: 'button', 'data-testid': 'learn-open', 'aria-label': t('learn_open'), title: t('learn_open'),
      onclick: () => openLearn(),
    }, '?'),
    settingsButton(render),
    h('button.lang', {
      // Named by its visible text (the other language's name); what it does is its description.
      type: 'button', 'data-testid': 'lang', lang: other, title: t('lang_other_label'),
      onclick: () => setLang(other),
    }, t('lang_other')),
  );
}

/** "How to play": the walkthrough in a dialog (the coach may be switched on its last page). */
function openLearn() {
  import(VIEWS.learn).then((module) => module.openWalkthrough({
    onClose: () => { coachFollow(ctx, actions); render(); },
  }), () => toast(t('err_network')));
}

/** On a first visit, the offer of the walkthrough: above the home page, below a room link's join form. */
function offerLearn(below) {
  if (learnOffered() && !lazyModules.get(VIEWS.learn)?.module) return; // offered before: no need to load it
  const module = view('learn');
  if (!module || els.main.querySelector('[data-testid=learn-offer]')) return;
  const banner = module.learnOffer(openLearn);
  if (banner) els.main[below ? 'append' : 'prepend'](banner);
}

function renderOverlayNow() {
  view('scores')?.renderOverlay(els.overlay, ctx, actions);
}

function render() {
  const focusKey = document.activeElement?.dataset?.key;
  const focusInMain = els.main.contains(document.activeElement);
  renderTop();
  const myTurn = ctx.game && ctx.seat !== null && ctx.game.turn === ctx.seat && ctx.game.phase !== 'game_over';
  document.title = (myTurn ? '● ' : '') + (ctx.route.code ? `${ctx.route.code} – ` : '') + t('app_title');
  if (ctx.route.view === 'home') {
    els.chat.hidden = true;
    mount(els.overlay);
    const home = view('home');
    if (!home) showLoading();
    else show('home', () => { home.renderHome(els.main, actions); return {}; }); // drawn once: typing is never lost
    if (home) offerLearn(false);
    return;
  }
  if (ctx.route.view === 'not_found') {
    els.chat.hidden = true;
    show('not_found', drawOnly(() => null));
    mount(els.main, h('section.panel.narrow', { 'data-testid': 'not-found' },
      h('p', {}, t('page_not_found')),
      h('button.primary', { type: 'button', onclick: () => actions.goHome() }, t('home_link'))));
    return;
  }
  if (ctx.route.view === 'standings') {
    els.chat.hidden = true;
    mount(els.overlay);
    const module = view('standings');
    if (!module) showLoading();
    else show('standings', drawOnly(() => module.renderStandings(els.main, ctx, actions))).render(ctx);
    return;
  }
  if (ctx.route.view === 'history' || ctx.route.view === 'replay') {
    els.chat.hidden = true;
    mount(els.overlay);
    const module = view(ctx.route.view);
    if (!module) {
      showLoading();
    } else if (ctx.route.view === 'history') {
      show('history', drawOnly(() => module.renderHistory(els.main, ctx, actions))).render(ctx);
    } else {
      show('replay', () => module.createReplayView(els.main, actions)).render(ctx);
    }
    return;
  }
  if (ctx.error) {
    els.chat.hidden = true;
    show('error', drawOnly(() => null));
    mount(els.main, h('section.panel.narrow', {},
      h('p.error', { role: 'alert' }, ctx.error),
      h('button.primary', { type: 'button', onclick: () => actions.goHome() }, t('home_link'))));
    return;
  }
  if (ctx.joinInfo) {
    els.chat.hidden = true;
    const lobby = view('lobby');
    if (!lobby) showLoading();
    else show('join', () => joinView(lobby)).render(ctx);
    if (lobby) offerLearn(true);
    return;
  }
  const inLobby = ctx.room && (ctx.room.status === 'lobby' || !ctx.game);
  const main = ctx.room && view(inLobby ? 'lobby' : 'table');
  if (!main) {
    showLoading(t('conn_connecting'));
    return;
  }
  if (inLobby) show('lobby', drawOnly(() => main.renderLobby(els.main, ctx, actions))).render(ctx);
  else show('table', () => main.createTableView(els.main, actions)).render(ctx);
  view('chat')?.renderChatPanel(els.chat, ctx, actions);
  renderOverlayNow();
  // Keep the keyboard where it was; after a draw, move it to the card just drawn.
  const drawn = (focusKey === 'stock' || focusKey === 'discard') && els.main.querySelector('.hand .card.drawn');
  if (drawn) drawn.focus();
  else if (focusKey) els.main.querySelector(`[data-key="${CSS.escape(focusKey)}"]`)?.focus();
  // The card thrown was the hand's last: the keyboard goes to the card now at the end, not to the page.
  if (focusKey?.startsWith('card-') && document.activeElement === document.body) {
    [...els.main.querySelectorAll('.hand .card')].pop()?.focus();
  }
  // What had the keyboard went with the redraw (Start, a button that is no longer offered): never the page.
  if (focusInMain) focusSomewhereUseful();
}

/** Put the keyboard on the stock if it is ours to draw, else the hand, else the score button. */
function focusSomewhereUseful() {
  if (document.activeElement && document.activeElement !== document.body) return;
  const target = els.main.querySelector('[data-key=stock].ready') ?? els.main.querySelector('.hand .card')
    ?? els.main.querySelector('[data-testid=scores]');
  target?.focus({ preventScroll: true });
}

/** Stop the current view, so that the next render makes a fresh one. */
function dropView() {
  active.view?.stop?.();
  active = { key: null, view: null };
  mount(els.main);
}

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
  away.watch = new NewGameWatch(code, known, () => {
    closeBanner();
    away.banner = newGameBanner(code, navigate, closeBanner);
    document.body.append(away.banner);
  });
}

function stopWatching() {
  away.watch?.stop();
  away.watch = null;
  closeBanner();
}

function start() {
  ctx.socket?.close();
  const left = ctx.route?.view === 'room' && ctx.room ? { code: ctx.route.code, gameId: ctx.room.game_id } : null;
  Object.assign(ctx, initialState(parseRoute()));
  const { view, code } = ctx.route;
  if (code && (view === 'history' || view === 'replay') && (left?.code === code || savedToken(code) || away.watch?.code === code)) {
    watchForNewGame(code, left?.code === code ? left.gameId : undefined);
  } else {
    stopWatching();
  }
  dropView();
  mount(els.chat);
  if (ctx.route.view === 'room') {
    const token = savedToken(ctx.route.code);
    if (token) connect(token);
    else if (watchNext === ctx.route.code) connect(null);
    else showJoin();
    watchNext = null;
  }
  render();
}

applyDocument();
applyLooks();
onLangChange(() => {
  dropView();
  mount(els.chat);
  render();
});
window.addEventListener('popstate', start);
window.addEventListener('load', () => setTimeout(prefetchViews, 0), { once: true });
document.addEventListener('keydown', (event) => {
  if (event.key !== 'Escape') return;
  if (ctx.overlay) actions.closeOverlay();
  else if (ctx.goOut) actions.setGoOut(false);
});
window.addEventListener('offline', () => ctx.socket?.offline());
setInterval(pauseTick, 250);
window.addEventListener('online', () => ctx.socket?.reconnectNow());
start();

// ---- installing as an app ------------------------------------------------------------------------------------

/** The manifest in the page's language (/manifest.en.webmanifest or .fa: the same app, app/api/install.py). */
function followLanguageInManifest() {
  const link = document.querySelector('link[rel=manifest]');
  if (link) link.href = `/manifest.${lang()}.webmanifest`;
}
followLanguageInManifest();
onLangChange(followLanguageInManifest);
// The service worker (static/sw.js) keeps the client for slow links and offline; browsers allow one only in a
// secure context (https, or this machine: localhost, 127.0.0.1).
if ('serviceWorker' in navigator && window.isSecureContext) {
  window.addEventListener('load', () => navigator.serviceWorker.register('/sw.js', { scope: '/' }).catch(() => {}), { once: true });
}
