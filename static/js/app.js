// The client's entry point: routes (home or a room), the room's live state, its actions (every change of the
// state goes through state.js's change(), here), and one render per batch of changes. The views draw the state
// (the room's with lit-html: what keeps the keyboard and the scroll is the library's keyed update, not code
// here). It imports only what every page's first screen needs (a room link's join form above all: on a slow
// phone link each file is a round trip; lit-html comes with the room's views); what a connected room needs is
// loaded by loadLive(), the views by view().
import * as api from './api.js';
import { h, mount } from './dom.js';
import { applyDocument, errorText, lang, onLangChange, setLang, t } from './i18n.js';
import { change, createStore, initialState } from './state.js';
import {
  forgetToken, learnOffered, notifyOn, savedToken, saveToken, setConfirmDiscards, setGrouping,
} from './storage.js';
import { applyLooks, settingsButton } from './views/settings.js';

document.documentElement.dataset.app = 'started'; // every import came: js/boot.js need not load the page again

const els = {
  top: document.getElementById('topbar'),
  main: document.getElementById('main'),
  chat: document.getElementById('chat'),
  overlay: document.getElementById('overlay'),
  toast: document.getElementById('toast'),
};

/** Everything the views read; it changes only in change() (state.js), called by the actions below. */
const ctx = createStore(initialState(parseRoute()), {
  render,
  // What the state itself calls for, before it is drawn: on your turn the coach (if on) asks for its hint.
  follow: (state) => { if (live && state.route.view === 'room') live.coachFollow(state, actions); },
});

// The view in the main area: made when the page changes, stopped (timers, listeners) when it goes.
let active = { key: null, view: null };

function show(key, create) {
  if (active.key !== key) {
    active.view?.stop?.();
    els.main.querySelector('[data-testid=learn-offer]')?.remove(); // offered on the home page and join form only
    // Another view takes the main area: if the keyboard was in it, it goes to the next thing to do there.
    if (els.main.contains(document.activeElement)) refocus = true;
    active = { key, view: create() };
  }
  return active.view;
}
let refocus = false; // the view that had the keyboard went: give it to the next one's first thing to do

// The views are loaded with import(): the server preloads the ones a page shows first (app/api/pages.py),
// the others follow once the page has loaded (history and replay only when opened).
const VIEWS = {
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

// A module whose download failed stays failed under its address for the page's life (the browser keeps the
// failure), so it is asked again once under a second address a moment later, before the page gives up.
const importAgain = (path) => new Promise((resolve) => setTimeout(resolve, 1000))
  .then(() => import(`${import.meta.resolve(path)}${import.meta.resolve(path).includes('?') ? '&' : '?'}again=1`));

/** ``import(path)``, asked again once under a second address if its download fails. */
const importOnce = (path) => import(path).catch(() => importAgain(path));

function load(path) {
  let entry = lazyModules.get(path);
  if (!entry) {
    entry = { module: null, wanted: false };
    lazyModules.set(path, entry);
    importOnce(path).then((module) => {
      entry.module = module;
      if (entry.wanted) change();
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
  if (ctx.route.view === 'room') loadLive().catch(() => {});
}

// What a connected room uses (the socket, and what its messages need: turn notices, the pause between rounds,
// card names, the coach, the saved face): not needed by a room link's join form, so loaded when the page
// connects (or in the background once it has loaded). ``live`` holds their exports once they are here.
let live = null;
let liveLoading = null;
function loadLive() {
  liveLoading ??= Promise.all(['./socket.js', './notify.js', './pause.js', './cards.js', './views/coach.js', './avatars.js',
    './views/hand.js'].map(importOnce))
    .then(([socket, notify, pause, cards, coach, avatars, hand]) => {
      live = {
        RoomSocket: socket.RoomSocket,
        noticeTurn: notify.noticeTurn, resetTurnNotice: notify.resetTurnNotice, toggleNotify: notify.toggleNotify,
        notePause: pause.notePause, pauseLeft: pause.pauseLeft, pausing: pause.pausing,
        cardShort: cards.cardShort,
        coachRefused: coach.coachRefused, coachTake: coach.coachTake, coachFollow: coach.coachFollow,
        setCoach: coach.setCoach, orderedHand: hand.orderedHand,
        sendSavedAvatar: avatars.sendSavedAvatar,
      };
      return live;
    }, (err) => {
      liveLoading = null; // asked again the next time
      throw err;
    });
  return liveLoading;
}

/** A view drawn with dom.js's h() (the pages without live updates): drawn again only when ``key(ctx)``
 * changes (a render for anything else, such as a module arriving, must not wipe a name being typed). */
function drawnOnChange(key, draw) {
  return () => {
    let drawn;
    return { render: (c) => { const now = key(c); if (drawn !== now) { drawn = now; draw(c); } } };
  };
}

function showLoading(text = t('loading')) {
  show(`loading:${text}`, drawnOnChange(() => text, () => mount(els.main, h('p.loading', { role: 'status' }, text)))).render(ctx);
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
  },
  askSeat(seat) {
    change((s) => { s.asking = seat; })
      .then(() => { if (seat !== null) els.main.querySelector('[data-testid=ask-name]')?.focus(); });
  },
  requestSeat(seat, name) {
    change((s) => { s.asking = null; });
    ctx.socket?.send({ type: 'request_seat', seat, name });
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
    if (!live?.pausing(ctx) || ctx.pause.sent || ctx.seat === null) return;
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
      s.chatSeen = s.chat.length;
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
    live.setCoach(on);
    change();
  },
  rerender: () => change(),
  navigate: (path) => navigate(path),
  toast,
  shareUrl,
};

// ---- the room socket ----------------------------------------------------------------------------------------

let connecting = 0; // the latest connect() waiting for loadLive(): an earlier one, or another page's, gives way

function connect(token) {
  ctx.socket?.close();
  const attempt = ++connecting;
  change((s) => {
    s.socket = null;
    s.joinInfo = null;
    s.conn = 'connecting';
  });
  if (!live) {
    load(VIEWS.lobby); // what the welcome will show, meanwhile
    load(VIEWS.table);
    const route = ctx.route;
    const current = () => attempt === connecting && ctx.route === route;
    loadLive().then(() => { if (current()) connect(token); }, () => {
      if (current()) change((s) => { s.error = t('err_network'); });
    });
    return;
  }
  const { RoomSocket, resetTurnNotice, noticeTurn, notePause, pausing, sendSavedAvatar, orderedHand } = live;
  const { cardShort, coachRefused, coachTake } = live;
  resetTurnNotice();
  const socket = new RoomSocket(ctx.route.code, token, {
    onStatus(status) {
      if (status === ctx.conn) return;
      change((s) => { s.conn = status; }); // offline freezes the table; back online unfreezes it
    },
    onWelcome(msg) {
      change((s) => {
        if (msg.seat !== null && s.requestedSeat !== null && s.seat === null) toast(t('request_granted'));
        s.justLeft = msg.seat === null && s.leaving; // said with the host's change the next state brings
        if (s.justLeft) toast(t('you_left'));
        s.leaving = false;
        s.seat = msg.seat;
        s.isHost = !!msg.you_are_host;
        s.requestedSeat = msg.seat === null ? msg.requested_seat ?? s.requestedSeat : null;
        if (msg.seat !== null) s.asking = null;
        if (msg.chat) { // the table's recent chat (a reload or a reconnect would otherwise show an empty log)
          s.chat = msg.chat.map(({ seat, name, text }) => ({ seat, name, text, id: ++s.chatLines }));
          s.chatSeen = 0;
        }
        if (msg.moves) { // this round's moves so far: what happened while this page was away
          s.roundFeed = msg.moves.slice(-300);
          s.feed = msg.moves.slice(-2);
          s.feedKey = 'welcome'; // they are of the round the next state shows
        }
      });
      if (ctx.pending) ctx.socket.send(ctx.pending.message); // same id: never applied twice
      // A restarted server forgot who pressed Continue: say it again.
      if (pausing(ctx) && ctx.pause.sent && ctx.seat !== null) ctx.socket.send({ type: 'continue' });
    },
    onState(msg) {
      const moves = (msg.events ?? []).filter((e) => FEED_KINDS.has(e.kind));
      change((s) => {
        // Another game or round than the moves held (back after a round ended unseen): they are not its moves.
        const feedKey = msg.game ? `${msg.room.game_id}:${msg.game.round}` : null;
        if (s.feedKey !== feedKey && s.feedKey !== 'welcome') {
          s.roundFeed = [];
          s.feed = [];
        }
        s.feedKey = feedKey;
        for (const event of msg.events ?? []) { // this round's moves (those seen since the page opened)
          if (event.kind === 'round_start') { // a new deal: the last round's moves are not this one's
            s.roundFeed = [];
            s.feed = [];
          } else if (FEED_KINDS.has(event.kind)) {
            s.roundFeed = [...s.roundFeed, event].slice(-300);
            s.feed = [...s.feed, event].slice(-2);
          }
        }
        if (!msg.game) s.feed = [];
        if (!msg.game) s.roundFeed = [];
        s.version = msg.version;
        s.hint = null; // a hint is for the hand it was asked about
        s.selected = null; // so is a card picked to be confirmed
        noticeHost(msg.room);
        // Only the host ending it takes a game being played back to the lobby.
        if (s.room?.status === 'playing' && msg.room.status === 'lobby') {
          toast(s.isHost ? t('game_ended_you') : t('game_ended', { name: nameOf(msg.room.seats, msg.room.host_seat) }));
          s.overlay = null;
        }
        s.room = msg.room;
        s.game = msg.game;
        // Your order of the hand: the cards you still hold keep their places, new ones go at the end.
        if (msg.game?.hand) s.handOrder = orderedHand(s.handOrder, msg.game.hand);
        noticeRequestGone();
        noticeRoundEnd();
        notice(s.pause, notePause(s.pause, s.room, s.game));
      });
      noticeTurn(!!msg.game && ctx.seat !== null && msg.game.turn === ctx.seat && msg.game.phase === 'draw', ctx.route.code);
      sendSavedAvatar(ctx, (message) => ctx.socket?.send(message));
      // The server played this turn's end for us (the turn timer ran out, or we were away): say so.
      if ((msg.events ?? []).some((e) => e.auto && e.seat === ctx.seat && e.kind !== 'draw')) toast(t('time_up'));
      change().then(() => {
        if (msg.game && !ctx.overlay) view('motion')?.animateMoves(els.main, moves, ctx.seat, msg.game.wild_rank);
      });
    },
    onPresence(msg) {
      change((s) => {
        noticeHost(msg.room);
        s.room = msg.room;
        notice(s.pause, notePause(s.pause, s.room, s.game));
        noticeRequestGone();
      });
    },
    onSeatRequested(msg) {
      if (msg.token) saveToken(ctx.route.code, msg.token);
      change((s) => { if (s.seat === null) s.requestedSeat = msg.seat; });
    },
    onAck(msg) {
      if (ctx.pending && ctx.pending.id === msg.id) change((s) => { s.pending = null; });
    },
    onError(msg) {
      if (msg.code === 'bad_token') {
        // Our seat is gone (removed, or another database): forget it and offer to join again.
        ctx.socket.close();
        change((s) => { s.socket = null; });
        forgetToken(ctx.route.code);
        showJoin();
        return;
      }
      if (msg.code === 'room_not_found') {
        ctx.socket.close();
        change((s) => { s.error = t('err_not_found'); });
        return;
      }
      let quiet = false;
      change((s) => {
        quiet = coachRefused(s, msg); // the turn moved on while the coach asked
        if (!quiet && s.pending && (!msg.id || msg.id === s.pending.id)) s.pending = null;
      });
      if (quiet) return;
      toast(errorText(msg));
      if (msg.id) ctx.socket.resync(); // show the true table after a refused move
    },
    onHint(msg) {
      change((s) => {
        if (coachTake(s, msg)) return; // the coach's own question: it shows the answer itself
        s.hint = { card: msg.card, goOut: msg.go_out };
        toast(msg.go_out ? t('hint_go_out', { card: cardShort(msg.card) })
          : t('hint_discard', { card: cardShort(msg.card), n: msg.penalty }));
      });
    },
    onReaction(msg) {
      view('chat')?.showReaction(msg.seat, msg.emoji);
      const name = ctx.room?.seats?.find((s) => s.seat === msg.seat)?.name ?? '';
      addChatLine({ seat: msg.seat, name, text: msg.emoji });
    },
    onChat: addChatLine,
    onClosed() {
      change((s) => { s.error = t('err_not_found'); });
    },
  });
  change((s) => { s.socket = socket; });
}

/** Our request for a bot's seat is no longer on the table (declined, or the game ended): say so (in change()). */
function noticeRequestGone() {
  if (ctx.requestedSeat === null || ctx.seat !== null) return;
  const seat = ctx.room?.seats.find((s) => s.seat === ctx.requestedSeat);
  if (seat?.request) return;
  ctx.requestedSeat = null;
  toast(t('request_gone'));
}

function addChatLine({ seat, name, text }) {
  change((s) => {
    s.chat = [...s.chat, { seat, name, text, id: ++s.chatLines }].slice(-60);
    if (view('chat')?.chatOpen(s)) s.chatSeen = s.chat.length; // read as it comes
  });
}

/** A person's name at the table (the host is always a person, so no bot name to translate). */
const nameOf = (seats, seat) => seats.find((s) => s.seat === seat)?.name ?? null;

/** The host is whoever the room says (the role moves: handed over, or the host was gone); say when it moves.
 * (These notice…() helpers run inside change(): they are the state's transitions on a message.) */
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

let pauseShown = null; // the pause's seconds left as last drawn

/** Count the pause down in the dialog (drawn again as a second passes); end it here when its time is up (the
 * server sends nothing then). */
function pauseTick() {
  if (!live?.pausing(ctx)) return;
  const left = live.pauseLeft(ctx.pause);
  if (left <= 0) {
    change(endPause);
    return;
  }
  if (left !== pauseShown) change();
  pauseShown = left;
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
  change((s) => { s.socket = null; });
  let info = null;
  let error = null;
  try {
    info = await api.getRoom(ctx.route.code);
  } catch (err) {
    error = err.status === 404 ? t('err_not_found') : errorText(err);
  }
  change((s) => {
    s.joinInfo = info;
    if (error) s.error = error;
  });
}

// ---- rendering -----------------------------------------------------------------------------------------------

let topDrawn = null; // what the top bar shows: drawn again only when that changes (its buttons keep the keyboard)

function renderTop() {
  const inRoom = !!ctx.route.code;
  const conn = inRoom && ctx.conn && ctx.conn !== 'online' ? ctx.conn : null;
  const shown = JSON.stringify([lang(), inRoom && ctx.route.code, conn, notifyOn()]);
  if (shown === topDrawn) return;
  topDrawn = shown;
  const other = lang() === 'en' ? 'fa' : 'en';
  els.top.classList.toggle('in-room', inRoom);
  mount(
    els.top,
    // The name holds the printed mark too (label in name, WCAG 2.5.3): on a phone in a room only the mark shows.
    h('a.brand', { href: '/', 'aria-label': `3|13 ${t('app_title')}`, onclick: (e) => { e.preventDefault(); actions.goHome(); } },
      h('span.brand-mark', { 'aria-hidden': 'true' }, '3|13'), ' ', h('span.brand-text', {}, t('app_title'))),
    inRoom ? h('span.room-code', { dir: 'ltr' }, ctx.route.code) : null,
    h('span.spacer'),
    conn ? h('span.conn', { class: conn, role: 'status', 'data-testid': 'conn' }, t(`conn_${conn}`)) : null,
    inRoom ? h('button.bell', {
      type: 'button', 'data-testid': 'notify', 'aria-pressed': notifyOn() ? 'true' : 'false',
      'aria-label': t('notify_label'), title: t('notify_label'),
      onclick: async () => {
        // At a table notify.js is here (loadLive): asked at once, within the click (a browser asks for the
        // permission only then).
        const { toggleNotify } = live ?? await importOnce('./notify.js');
        await toggleNotify();
        // The bell is drawn again, pressed or not: the keyboard stays on it.
        change().then(() => els.top.querySelector('[data-testid=notify]')?.focus());
      },
    }, notifyOn() ? '🔔' : '🔕') : null,
    h('button.bell.learn-open', {
      type: 'button', 'data-testid': 'learn-open', 'aria-label': t('learn_open'), title: t('learn_open'),
      onclick: () => openLearn(),
    }, '?'),
    settingsButton(() => change()),
    h('button.lang', {
      // Named by its visible text (the other language's name); what it does is its description.
      type: 'button', 'data-testid': 'lang', lang: other, title: t('lang_other_label'),
      onclick: () => setLang(other),
    }, t('lang_other')),
  );
}

/** "How to play": the walkthrough in a dialog (the coach may be switched on its last page). */
function openLearn() {
  import(VIEWS.learn).then((module) => module.openWalkthrough({ onClose: () => change() }), () => toast(t('err_network')));
}

/** On a first visit, the offer of the walkthrough: above the home page, below a room link's join form. */
function offerLearn(below) {
  if (learnOffered() && !lazyModules.get(VIEWS.learn)?.module) return; // offered before: no need to load it
  const module = view('learn');
  if (!module || els.main.querySelector('[data-testid=learn-offer]')) return;
  const banner = module.learnOffer(openLearn);
  if (banner) els.main[below ? 'append' : 'prepend'](banner);
}

/** A page drawn with h() that shows ``children`` (drawn again only when the language changes). */
const panelView = (key, ...children) => show(key, drawnOnChange(() => lang(), () => mount(els.main, h(...children)))).render(ctx);

/** Draw the state: called by state.js once per batch of changes (never directly). */
function render() {
  const before = document.activeElement;
  const hadKeyboard = (els.main.contains(before) && before !== els.main) || els.overlay.contains(before);
  renderTop();
  drawMain();
  // The keyboard was in the main area (or a dialog) and its element is gone (the view changed; the button
  // pressed is no longer offered; the card thrown; the dialog closed and what it came from is gone): to the
  // next thing to do there, never the page.
  if (refocus || (hadKeyboard && !before.isConnected)) keepKeyboardNear(before);
  refocus = false;
}

function drawMain() {
  const myTurn = ctx.game && ctx.seat !== null && ctx.game.turn === ctx.seat && ctx.game.phase !== 'game_over';
  document.title = (myTurn ? '● ' : '') + (ctx.route.code ? `${ctx.route.code} – ` : '') + t('app_title');
  if (ctx.route.view !== 'room') els.chat.hidden = true;
  if (ctx.route.view === 'home') {
    mount(els.overlay);
    const home = view('home');
    if (!home) showLoading();
    else show('home', () => { home.renderHome(els.main, actions); return {}; }); // drawn once: typing is never lost
    if (home) offerLearn(false);
    return;
  }
  if (ctx.route.view === 'not_found') {
    panelView('not_found', 'section.panel.narrow', { 'data-testid': 'not-found' },
      h('p', {}, t('page_not_found')),
      h('button.primary', { type: 'button', onclick: () => actions.goHome() }, t('home_link')));
    return;
  }
  if (ctx.route.view === 'standings') {
    mount(els.overlay);
    const module = view('standings');
    if (!module) showLoading();
    else show('standings', () => ({})) && module.renderStandings(els.main, ctx, actions); // it keeps what it shows
    return;
  }
  if (ctx.route.view === 'history' || ctx.route.view === 'replay') {
    mount(els.overlay);
    const module = view(ctx.route.view);
    if (!module) {
      showLoading();
    } else if (ctx.route.view === 'history') {
      show('history', () => ({})) && module.renderHistory(els.main, ctx, actions); // it keeps what it shows
    } else {
      show('replay', () => module.createReplayView(els.main, actions)).render(ctx);
    }
    return;
  }
  if (ctx.error) {
    els.chat.hidden = true;
    panelView(`error:${ctx.error}`, 'section.panel.narrow', {},
      h('p.error', { role: 'alert' }, ctx.error),
      h('button.primary', { type: 'button', onclick: () => actions.goHome() }, t('home_link')));
    return;
  }
  if (ctx.joinInfo) {
    els.chat.hidden = true;
    const join = view('join');
    if (!join) showLoading();
    else show('join', drawnOnChange((c) => c.joinInfo, (c) => join.renderJoin(els.main, c, actions))).render(ctx);
    if (join) offerLearn(true);
    return;
  }
  const inLobby = ctx.room && (ctx.room.status === 'lobby' || !ctx.game);
  const main = ctx.room && view(inLobby ? 'lobby' : 'table');
  if (!main) {
    showLoading(t('conn_connecting'));
    return;
  }
  if (inLobby) show('lobby', () => main.createLobbyView(els.main, actions)).render(ctx);
  else show('table', () => main.createTableView(els.main, actions)).render(ctx);
  view('chat')?.renderChatPanel(els.chat, ctx, actions);
  view('scores')?.renderOverlay(els.overlay, ctx, actions);
}

/** The keyboard's element ``lost`` went with an update: a card thrown gives it to the card now in its place
 * (or the hand's last), anything else to the stock if it is ours to draw, else the hand, else the scores. */
function keepKeyboardNear(lost) {
  if (document.activeElement && document.activeElement !== document.body) return;
  if (els.overlay.querySelector('dialog')) return; // the dialog has it
  const cards = [...els.main.querySelectorAll('.hand .card')];
  const index = lost?.matches?.('.card[data-index]') ? Number(lost.dataset.index) : NaN; // a card of the hand
  const target = (Number.isInteger(index) && cards.length ? cards[Math.min(index, cards.length - 1)] : null)
    ?? els.main.querySelector('[data-key=stock].ready') ?? cards[0]
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

applyDocument();
applyLooks();
onLangChange(() => {
  dropView(); // the pages drawn with h() are drawn afresh in the new language (lit-html's just update)
  topDrawn = null;
  change();
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
