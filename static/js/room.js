// The live room's wiring: the modules a connected room uses (loaded when the page connects), the room socket
// and what each of its messages changes in the state (the state's transitions on a message: the notice…()
// helpers run inside change()), the pause between rounds counted down, and a room link's join-or-watch info.
import * as api from './api.js';
import { errorText, t } from './i18n.js';
import { change } from './state.js';
import { chatReadUntil, forgetToken, saveToken, setChatReadUntil } from './storage.js';
import { importOnce, load, VIEWS, view } from './loader.js';
import { els, toast } from './render.js';

let ctx = null;

/** The state the room's messages change (app.js gives it once). */
export function wireRoom(state) {
  ctx = state;
}

/** The live modules' exports once they are here (null before). */
export const liveModules = () => live;

const FEED_KINDS = new Set(['draw', 'discard', 'go_out', 'reshuffle']);

// What a connected room uses (the socket, and what its messages need: turn notices, the pause between rounds,
// card names, the coach, the saved face): not needed by a room link's join form, so loaded when the page
// connects (or in the background once it has loaded). ``live`` holds their exports once they are here.
let live = null;
let liveLoading = null;
export function loadLive() {
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

// ---- the room socket ----------------------------------------------------------------------------------------

let connecting = 0; // the latest connect() waiting for loadLive(): an earlier one, or another page's, gives way

export function connect(token) {
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
        s.formerSeat = msg.seat === null ? msg.former_seat ?? null : null;
        if (msg.seat !== null) s.asking = null;
        if (msg.chat) { // the table's recent chat (a reload or a reconnect would otherwise show an empty log)
          s.chat = msg.chat.map(({ seat, name, text, at }) => ({ seat, name, text, at, id: ++s.chatLines }));
          const readUntil = chatReadUntil(s.route.code); // what this browser read of it before
          s.chatSeen = readUntil ? s.chat.filter((line) => line.at && line.at <= readUntil).length : 0;
          if (view('chat')?.chatOpen(s)) readAllChat(s);
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
      addChatLine({ seat: msg.seat, name, text: msg.emoji, at: msg.at });
    },
    onChat: addChatLine,
    onClosed() {
      change((s) => { s.error = t('err_not_found'); });
    },
  });
  change((s) => { s.socket = socket; });
}

/** Our request for a bot's seat is no longer on the table (declined, or the game ended): say so (in change()).
 * The seat we left is ours to take back only while a bot holds it under our name (not once someone took it). */
function noticeRequestGone() {
  const former = ctx.room?.seats.find((s) => s.seat === ctx.formerSeat);
  if (ctx.formerSeat !== null && !former?.bot) ctx.formerSeat = null;
  if (ctx.requestedSeat === null || ctx.seat !== null) return;
  const seat = ctx.room?.seats.find((s) => s.seat === ctx.requestedSeat);
  if (seat?.request) return;
  ctx.requestedSeat = null;
  toast(t('request_gone'));
}

function addChatLine({ seat, name, text, at }) {
  change((s) => {
    const lines = [...s.chat, { seat, name, text, at, id: ++s.chatLines }];
    s.chat = lines.slice(-60);
    s.chatSeen = Math.max(0, s.chatSeen - (lines.length - s.chat.length)); // read lines dropped at the top
    if (view('chat')?.chatOpen(s)) readAllChat(s); // read as it comes
  });
}

/** Every chat line read (in change()): remembered for the table, so a reload counts none of them unread again. */
export function readAllChat(s) {
  s.chatSeen = s.chat.length;
  const newest = s.chat.at(-1)?.at;
  if (newest && s.route.view === 'room') setChatReadUntil(s.route.code, newest);
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
export function pauseTick() {
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

export async function showJoin() {
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
