// The table in play: players, round and wild rank, stock and discard, whose turn, and your hand.
import { cardEl, cardShort } from '../cards.js';
import { h, mount } from '../dom.js';
import { cardCount, num, t } from '../i18n.js';
import { pausing } from '../pause.js';
import { confirmDiscardsOn, groupingOn, setConfirmDiscards, setGrouping } from '../storage.js';
import { fitHand, mountHand, sortHand } from './hand.js';
import { optionRows } from './options.js';
import { gameOverPanel, hostBox } from './host.js';
import { tableActions } from './leave.js';
import { askPanel, seatRequestControls } from './seatask.js';
import { turnStrip } from './turnstrip.js';
import { coachBar, coachFollow, coachKey, markCoachTarget } from './coach.js';
import { meldGroups, nameLabel, piles, seatName as nameAmong, winnersLine } from './widgets.js';
import { avatarEl } from '../avatars.js';

const TOUCH = window.matchMedia('(hover: none), (pointer: coarse)'); // a phone: no keys to mention
const seatName = (ctx, seat) => nameAmong(ctx.room.seats, seat);
/** No live connection: moves cannot be sent and presence cannot be known. */
const isOffline = (ctx) => ctx.conn !== 'online';

/** Seconds left on your own turn when the timer turns red and says so once (aria-live, polite). */
const LOW_SECONDS = 10;

/**
 * The turn timer: the server sends its deadline and its own time; count down on this device's clock. Below
 * LOW_SECONDS the pill turns red (it pulses unless reduced motion is asked for) and, on your own turn, the
 * time left is announced once in ``region`` (a polite live region that outlives the redraws).
 */
class Countdown {
  constructor() {
    this.key = null;
    this.deadline = null;
    this.mine = false;
    this.warned = false;
    this.region = null;
    this.interval = setInterval(() => this.tick(), 1000);
  }

  secondsLeft() {
    return this.deadline === null ? null : Math.max(0, Math.ceil((this.deadline - Date.now()) / 1000));
  }

  /** The countdown pill for ``room``'s deadline (null without one); ``mine``: it is this player's turn. */
  pill(room, mine) {
    const key = room.turn_deadline && room.server_time ? `${room.turn_deadline}|${room.server_time}` : null;
    if (key !== this.key || mine !== this.mine) {
      this.key = key;
      this.mine = mine;
      this.deadline = key ? Date.now() + Date.parse(room.turn_deadline) - Date.parse(room.server_time) : null;
      this.warned = false;
      if (this.region) this.region.textContent = '';
    }
    const left = this.secondsLeft();
    if (left === null) return null;
    this.warn(left);
    return h('span.tag.countdown', { 'data-testid': 'countdown', role: 'timer', class: left <= LOW_SECONDS ? 'low' : '' },
      t('seconds_left', { n: left }));
  }

  /** Say once per turn, on your own turn, that time is running out. */
  warn(left) {
    if (!this.mine || this.warned || left > LOW_SECONDS || left === 0 || !this.region) return;
    this.warned = true;
    this.region.textContent = t('timer_low', { n: left });
  }

  tick() {
    tickAway();
    const left = this.secondsLeft();
    if (left === null) return;
    for (const el of document.querySelectorAll('.countdown')) {
      el.textContent = t('seconds_left', { n: left });
      el.classList.toggle('low', left <= LOW_SECONDS);
    }
    this.warn(left);
  }

  stop() {
    clearInterval(this.interval);
  }
}

/** The sentence for an away person: counting down to when the table plays for them (``at``: this device's
 * clock, ms), or that it does now. */
function awayText(name, at) {
  const left = at === null ? 0 : Math.max(0, Math.ceil((at - Date.now()) / 1000));
  const isolated = `\u2068${name}\u2069`; // the name in its own direction; the sentence in the page's
  return left > 0 ? t('away_countdown', { name: isolated, n: left }) : t('away_auto', { name: isolated });
}

/** Every second: the away lines count down (their deadline is on the element, on this device's clock). */
function tickAway() {
  for (const el of document.querySelectorAll('.away-line[data-at]')) {
    el.textContent = awayText(el.dataset.name, Number(el.dataset.at));
  }
}

/** The people who dropped during a game, told to everyone: who, and when the table plays for them (the
 * server's ``auto_at``, counted on this device's clock like the turn timer), or that it does. */
function awayLines(ctx) {
  const room = ctx.room;
  if (isOffline(ctx) || ctx.game.phase === 'game_over') return null;
  const away = room.seats.filter((s) => !s.bot && s.seat !== ctx.seat && (s.auto || s.auto_at));
  if (!away.length) return null;
  return h('ul.away', { 'data-testid': 'away', role: 'status' }, away.map((s) => {
    const at = s.auto_at && room.server_time ? Date.now() + Date.parse(s.auto_at) - Date.parse(room.server_time) : null;
    return h('li.away-line', {
      'data-testid': `away-${s.seat}`, 'data-name': s.name, 'data-at': at === null ? null : String(at),
    }, awayText(s.name, at));
  }));
}

function playerChip(ctx, player, actions, timer) {
  const game = ctx.game;
  const info = ctx.room.seats.find((s) => s.seat === player.seat) ?? { name: `#${player.seat + 1}`, connected: false };
  const isTurn = game.turn === player.seat && game.phase !== 'game_over';
  // Offline we cannot know who is here: the dots go grey rather than stay green.
  const presence = isOffline(ctx) ? 'unknown' : info.connected ? 'online' : 'offline';
  return h('li.player', {
    'data-testid': `player-${player.seat}`,
    class: [isTurn ? 'turn' : '', player.seat === ctx.seat ? 'you' : '', game.went_out === player.seat ? 'out' : ''].join(' '),
    'aria-current': isTurn ? 'true' : null,
  },
  h('span.presence', { class: presence, role: 'img', 'aria-label': t(presence) }),
  avatarEl(info),
  nameLabel(info),
  game.dealer === player.seat ? h('span.dealer', { title: t('dealer'), 'aria-label': t('dealer') }, t('dealer_short')) : null,
  game.went_out === player.seat ? h('span.tag.gold', {}, t('went_out_mark')) : null,
  info.auto ? h('span.tag', { 'data-testid': `auto-${player.seat}`, title: t('auto_seat_title') }, t('auto_seat')) : null,
  isTurn && !isOffline(ctx) && !pausing(ctx) ? timer.pill(ctx.room, player.seat === ctx.seat) : null,
  seatRequestControls(ctx, info, actions),
  h('span.stats', {},
    h('span.count', { 'aria-label': cardCount(player.card_count) },
      h('span.mini-back', { 'aria-hidden': 'true' }), num(player.card_count)),
    h('span.total', {}, t('points', { n: player.total }))));
}

function statusLine(ctx) {
  const game = ctx.game;
  if (game.phase === 'game_over') return `${t('game_over')}: ${winnersLine((game.winners ?? []).map((s) => seatName(ctx, s)))}`;
  const myTurn = ctx.seat !== null && game.turn === ctx.seat;
  if (isOffline(ctx)) return t('offline_wait');
  if (pausing(ctx)) return t('break_status');
  if (ctx.seat === null) return t('watching');
  if (!myTurn) {
    const away = ctx.room.seats.find((s) => s.seat === game.turn && !s.bot && !s.connected);
    return t(away ? 'waiting_for_away' : 'waiting_for', { name: seatName(ctx, game.turn) });
  }
  if (ctx.goOut) return t('go_out_pick');
  if (game.phase === 'draw') return t('your_turn_draw');
  return game.can_go_out.length ? t('your_turn_discard_go') : t('your_turn_discard');
}

function feedLine(ctx, event) {
  if (event.kind === 'reshuffle') return t('ev_reshuffle');
  const card = event.card ? cardShort(event.card) : '';
  const what = event.kind === 'draw' ? (event.source === 'discard' && card ? 'draw_discard' : 'draw_stock')
    : event.kind === 'go_out' ? 'go_out' : 'discard';
  // Your own moves have sentences of their own (Persian verbs agree with "you").
  if (event.seat === ctx.seat) return t(`ev_you_${what}`, { card });
  return t(`ev_${what}`, { name: seatName(ctx, event.seat), card });
}

/** A tap on something that cannot be played now: offline, say why (a move must never vanish silently). */
function blocked(ctx, actions) {
  if (isOffline(ctx) && ctx.game.turn === ctx.seat) actions.toast(t('offline_move'));
}

function tablePiles(ctx, actions) {
  const game = ctx.game;
  const legal = new Set(game.legal ?? []);
  const busy = !!ctx.pending || isOffline(ctx) || pausing(ctx); // the round starts when the pause ends
  return piles(game, {
    canStock: legal.has('draw_stock') && !busy,
    canDiscard: legal.has('draw_discard') && !busy,
    onStock: () => actions.play({ type: 'draw', source: 'stock' }),
    onDiscard: () => actions.play({ type: 'draw', source: 'discard' }),
    onBlocked: () => blocked(ctx, actions),
  });
}

/** Every move of this round seen here, folded away under the last two (opened: kept open as moves come). */
function roundFeed(ctx) {
  const moves = ctx.roundFeed ?? [];
  if (moves.length <= 2) return null;
  const box = h('details.round-feed', { 'data-testid': 'round-feed', open: ctx.feedOpen },
    h('summary', {}, t('round_moves', { n: moves.length })),
    h('ol', {}, moves.map((e) => h('li', {}, feedLine(ctx, e)))));
  box.addEventListener('toggle', () => {
    ctx.feedOpen = box.open;
    if (box.open) box.querySelector('ol').scrollTop = 1e6;
  });
  if (ctx.feedOpen) requestAnimationFrame(() => { box.querySelector('ol').scrollTop = 1e6; });
  return box;
}

function handPanel(ctx, actions) {
  const game = ctx.game;
  const legal = new Set(game.legal ?? []);
  const grouped = groupingOn();
  const canDiscard = legal.has('discard') && !ctx.pending && !isOffline(ctx);
  const goOutCards = new Set(game.can_go_out ?? []);
  const clickable = (card) => (ctx.goOut ? goOutCards.has(card) && !ctx.pending && !isOffline(ctx) : canDiscard);
  // A card that can go out goes out: throwing it away would leave a complete hand unplayed.
  const play = (card) => actions.play({ type: ctx.goOut || goOutCards.has(card) ? 'go_out' : 'discard', card });
  // "Confirm discards" (a choice of this browser): a tap picks the card, a second tap or the button plays it.
  const confirming = confirmDiscardsOn();
  const selected = confirming && ctx.selected && game.hand.includes(ctx.selected) ? ctx.selected : null;
  const onPlay = (card) => {
    if (!confirming || card === selected) { play(card); return; }
    ctx.selected = card;
    actions.rerender();
    document.querySelector('[data-testid=confirm-discard]')?.focus();
  };
  const confirmToggle = h('input.switch', {
    type: 'checkbox', id: 'confirm-toggle', 'data-testid': 'confirm-toggle', 'data-key': 'confirm-toggle',
    onchange: () => { setConfirmDiscards(confirmToggle.checked); ctx.selected = null; actions.rerender(); },
  });
  confirmToggle.checked = confirming;
  const confirmButton = selected && clickable(selected)
    ? h('button.primary.small', { type: 'button', 'data-testid': 'confirm-discard', 'data-key': 'confirm-discard',
      onclick: () => play(selected) },
    t(ctx.goOut || goOutCards.has(selected) ? 'confirm_go_out' : 'confirm_discard', { card: cardShort(selected) }))
    : null;

  const toggle = h('input.switch', {
    type: 'checkbox', id: 'group-toggle', 'data-testid': 'group-toggle', 'data-key': 'group-toggle',
    onchange: () => { setGrouping(toggle.checked); actions.rerender(); },
  });
  toggle.checked = grouped;
  const goOutButton = goOutCards.size && !ctx.pending
    ? h('button.go-out', {
      type: 'button', 'data-testid': 'go-out', 'data-key': 'go-out', 'aria-pressed': ctx.goOut ? 'true' : 'false',
      onclick: () => actions.setGoOut(!ctx.goOut),
    }, ctx.goOut ? t('cancel') : t('go_out'))
    : null;
  // Where the host allows hints: the server's solver names the discard that leaves the fewest points.
  const hintButton = game.options?.hints && canDiscard && !ctx.goOut
    ? h('button.secondary.small', {
      type: 'button', 'data-testid': 'hint', 'data-key': 'hint', onclick: () => actions.askHint(),
    }, t('hint'))
    : null;

  const sortButtons = h('span.sort', { role: 'group', 'aria-labelledby': 'sort-label' },
    h('span.sort-label', { id: 'sort-label' }, t('sort')),
    ['suit', 'rank'].map((by) => h('button.secondary.small', {
      type: 'button', 'data-testid': `sort-${by}`, 'data-key': `sort-${by}`,
      onclick: () => { sortHand(game.hand, by); actions.rerender(); },
    }, t(`sort_${by}`))));

  const slot = h('div.hand-slot');
  const panel = h('section.hand-panel', { 'aria-labelledby': 'hand-title', class: ctx.goOut ? 'choosing' : '' },
    h('div.hand-head', {},
      h('h2.sr-only', { id: 'hand-title' }, t('your_hand')),
      h('span.penalty', { 'data-testid': 'penalty' }, t('penalty', { n: game.arrangement?.penalty ?? 0 })),
      h('label.toggle', { for: 'group-toggle' }, toggle, h('span', {}, t('group'))),
      h('label.toggle', { for: 'confirm-toggle' }, confirmToggle, h('span', {}, t('confirm_discards'))),
      sortButtons,
      h('span.spacer'),
      hintButton,
      confirmButton,
      goOutButton),
    slot,
    grouped ? null : h('p.hint.reorder', {}, t(TOUCH.matches ? 'reorder_hint_touch' : 'reorder_hint')));
  // Mounted after the panel is in the page (fitting needs real widths): see renderTable.
  panel.mountHand = () => mountHand(slot, game, {
    grouped,
    clickable,
    onPlay,
    onBlocked: () => blocked(ctx, actions),
    highlight: goOutCards.size ? goOutCards : null,
    dimOthers: ctx.goOut,
    hinted: ctx.hint?.card ?? null,
    selected,
    onReorder: (focusKey) => {
      actions.rerender();
      if (focusKey) document.querySelector(`.hand [data-key="${focusKey}"]`)?.focus();
    },
  });
  return panel;
}

/**
 * One part of the table, drawn again only when what it shows has changed (its ``key``): a move elsewhere
 * leaves it alone, so its animation does not restart and focus or a drag inside it survives.
 */
class Region {
  constructor() {
    this.el = h('div.region');
    this.key = null;
  }

  update(key, build) {
    if (key === this.key) return false;
    this.key = key;
    mount(this.el, build());
    return true;
  }

  invalidate() {
    this.key = null;
  }
}

const REGIONS = ['players', 'ask', 'roundBar', 'strip', 'banner', 'away', 'laidDown', 'felt', 'coach', 'hand', 'spectators', 'host', 'leave', 'rules'];

/** The melds of the player who went out, on the table for everyone during the final turns (RULES.md). */
function laidDown(ctx) {
  const laid = ctx.game.laid_down;
  if (!laid) return null;
  const groups = laid.melds.map((m) => ({ kind: m.kind, cards: m.cards }));
  return h('section.laid-down', { 'data-testid': 'laid-down', 'aria-label': t('laid_down', { name: seatName(ctx, laid.seat) }) },
    h('p.laid-title', {}, t('laid_down', { name: seatName(ctx, laid.seat) })),
    h('div.laid-melds', {}, meldGroups(groups, { wildRank: ctx.game.wild_rank, small: true })),
    laid.card ? h('p.laid-card', {}, t('went_out_with'), ' ', cardEl(laid.card, { small: true })) : null);
}

function renderTable(container, ctx, actions, timer, parts) {
  const game = ctx.game;
  const room = ctx.room;
  const myTurn = ctx.seat !== null && game.turn === ctx.seat;
  const key = (...values) => JSON.stringify([document.documentElement.lang, ...values]);
  if (!parts.root || !container.contains(parts.root)) {
    for (const name of REGIONS) parts[name] = new Region();
    timer.region = h('p.sr-only', { role: 'status', 'aria-live': 'polite', 'data-testid': 'timer-warning' });
    parts.root = h('div.table', { 'data-testid': 'table' }, REGIONS.map((name) => parts[name].el), timer.region);
    mount(container, parts.root);
  }
  parts.root.classList.toggle('offline', isOffline(ctx));
  Object.assign(parts.root.dataset, {
    conn: ctx.conn ?? '',
    phase: game.phase, myTurn: myTurn ? '1' : '0', round: String(game.round), pending: ctx.pending ? '1' : '0',
    version: String(ctx.version),
  });
  parts.players.update(
    key(game.players, game.turn, game.phase, game.dealer, game.went_out, room.seats, room.host_seat,
      room.turn_deadline, room.server_time, ctx.seat, ctx.isHost, isOffline(ctx), pausing(ctx), ctx.requestedSeat, ctx.asking),
    () => h('ul.players', { 'aria-label': t('scores'), class: game.players.length > 4 ? 'many' : '' }, game.players.map((p) => playerChip(ctx, p, actions, timer))));
  parts.ask.update(key(ctx.asking, ctx.seat, room.seats), () => askPanel(ctx, actions));
  parts.roundBar.update(key(game.round, game.rounds, game.cards_dealt, game.wild_rank), () => h('div.round-bar', {},
    h('span.round', {}, t('round', { round: game.round, rounds: game.rounds })),
    h('span.cards-dealt', {}, t('cards_dealt', { n: game.cards_dealt })),
    h('span.wild-pill', { 'data-testid': 'wild' }, t('wild', { rank: num(game.wild_rank) })),
    h('span.spacer'),
    h('button.secondary.small', { type: 'button', 'data-testid': 'scores', onclick: () => actions.showScores() }, t('scores'))));
  parts.strip.update(
    key(game.turn, game.phase, game.players.length, game.went_out, game.final_turns, room.seats, ctx.seat),
    () => turnStrip(ctx));
  const final = game.went_out !== null && game.phase !== 'game_over';
  parts.banner.update(key(final, game.went_out, myTurn, final && seatName(ctx, game.went_out)), () => (final
    ? h('p.banner', { role: 'status', 'data-testid': 'final-turns' },
      game.went_out === ctx.seat ? t('you_went_out') : t('final_turns', { name: seatName(ctx, game.went_out) }),
      myTurn ? ` ${t('last_turn')}` : '')
    : null));
  parts.away.update(
    key(isOffline(ctx), game.phase === 'game_over', room.seats.map((s) => [s.seat, s.name, s.auto, s.auto_at ?? null])),
    () => awayLines(ctx));
  parts.laidDown.update(key(game.laid_down, game.wild_rank, room.seats), () => laidDown(ctx));
  parts.felt.update(
    key(game.stock_count, game.discard_top, game.discard_count, game.wild_rank, game.legal, !!ctx.pending, isOffline(ctx), pausing(ctx),
      statusLine(ctx), myTurn, (ctx.feed ?? []).map((e) => feedLine(ctx, e)), ctx.feedOpen && ctx.roundFeed?.length,
      ctx.roundFeed?.length > 2),
    () => h('div.felt', {}, tablePiles(ctx, actions),
      h('p.status', { 'data-testid': 'status', class: myTurn ? 'mine' : '', 'aria-live': 'polite' }, statusLine(ctx)),
      ctx.feed?.length ? h('ul.feed', { 'data-testid': 'feed' }, ctx.feed.map((e) => h('li', {}, feedLine(ctx, e)))) : null,
      roundFeed(ctx)));
  const over = game.phase === 'game_over';
  const showHand = ctx.seat !== null && game.hand && !over;
  let panel = null;
  const drawn = parts.hand.update(
    key(showHand, game.hand, game.arrangement, game.drawn, game.legal, game.can_go_out, game.wild_rank, !!ctx.pending, isOffline(ctx),
      ctx.goOut, groupingOn(), ctx.hint?.card, ctx.selected, confirmDiscardsOn(),
      over && [room.status, ctx.isHost, room.host_seat, game.winners, room.seats]),
    () => {
      // Once the game is over, the place of the hand says what comes next (the dialog may be closed).
      if (over) return gameOverPanel(ctx, actions);
      const redraw = () => { parts.hand.invalidate(); actions.rerender(); };
      panel = showHand ? handPanel(ctx, { ...actions, rerender: redraw }) : null;
      return panel;
    });
  if (drawn) panel?.mountHand();
  coachFollow(ctx, actions); // on our turn the coach (if on) asks for its hint, once per version
  parts.coach.update(key(...coachKey(ctx)), () => coachBar(ctx, actions, () => { coachFollow(ctx, actions); actions.rerender(); }));
  markCoachTarget(parts.root, ctx);
  parts.host.update(key(ctx.isHost, room.host_seat, room.seats.map((s) => [s.seat, s.name, s.bot])), () => hostBox(ctx, actions));
  parts.leave.update(
    key(ctx.seat, ctx.isHost, room.status, game.phase === 'game_over', room.seats.map((s) => [s.seat, s.bot])),
    () => tableActions(ctx, actions));
  // The house rules in force, read-only, folded away under the table.
  parts.rules.update(key(game.options), () => h('details.rules-box.rules-in-play', { 'data-testid': 'rules-in-play' },
    h('summary', {}, t('rules_in_play')),
    h('p.hint', { id: 'rules-locked', 'data-testid': 'rules-locked' }, t('rules_in_play_locked')),
    optionRows(game.options ?? {}, () => {}, true, 'rules-locked')));
  parts.spectators.update(key(ctx.seat === null && room.spectators), () => (ctx.seat === null && room.spectators
    ? h('p.hint', {}, t('spectators', { n: room.spectators })) : null));
}

/** The table view: ``render(ctx)`` on every change; ``stop()`` ends its timer and listeners. */
export function createTableView(container, actions) {
  const timer = new Countdown();
  const parts = {}; // the table's regions, kept from one render to the next
  const refit = () => { const hand = container.querySelector('.hand'); if (hand) fitHand(hand); };
  window.addEventListener('resize', refit);
  return {
    render: (ctx) => renderTable(container, ctx, actions, timer, parts),
    stop() {
      timer.stop();
      window.removeEventListener('resize', refit);
    },
  };
}
