// The table in play: players, round and wild rank, stock and discard, whose turn, and your hand.
import { cardBack, cardEl, cardLabel, cardShort } from '../cards.js';
import { h, mount } from '../dom.js';
import { num, t } from '../i18n.js';
import { groupingOn, mountHand, setGrouping } from './hand.js';
import { botIcon, nameLabel } from './lobby.js';
import { winnersLine } from './scores.js';

export function seatName(ctx, seat) {
  return ctx.room.seats.find((s) => s.seat === seat)?.name ?? `#${seat + 1}`;
}

// The turn timer: the server sends its deadline and its own time; count down on this device's clock.
let timerKey = null;
let localDeadline = null;
function secondsLeft() {
  return localDeadline === null ? null : Math.max(0, Math.ceil((localDeadline - Date.now()) / 1000));
}
function countdown(room) {
  const key = room.turn_deadline && room.server_time ? `${room.turn_deadline}|${room.server_time}` : null;
  if (key !== timerKey) {
    timerKey = key;
    localDeadline = key ? Date.now() + Date.parse(room.turn_deadline) - Date.parse(room.server_time) : null;
  }
  const left = secondsLeft();
  return left === null ? null : h('span.tag.countdown', { 'data-testid': 'countdown', role: 'timer' }, t('seconds_left', { n: left }));
}
setInterval(() => {
  const left = secondsLeft();
  if (left === null) return;
  for (const el of document.querySelectorAll('.countdown')) el.textContent = t('seconds_left', { n: left });
}, 1000);

function takeSeat(ctx, info, actions) {
  if (ctx.seat !== null || !info.bot) return null;
  return h('button.secondary.small', {
    type: 'button', 'data-testid': `take-seat-${info.seat}`,
    onclick: () => {
      const name = prompt(t('take_seat_name'))?.trim();
      if (name) actions.join(ctx.route.code, name, info.seat).catch((err) => actions.toast(err.message || t('take_seat_later')));
    },
  }, t('take_seat'));
}

function handToBot(ctx, info, actions) {
  if (!ctx.isHost || info.bot || info.seat === ctx.room.host_seat) return null;
  return h('button.secondary.small', {
    type: 'button', 'data-testid': `bot-seat-${info.seat}`, title: t('hand_to_bot'), 'aria-label': t('hand_to_bot'),
    onclick: () => {
      if (confirm(t('hand_to_bot_confirm', { name: info.name }))) actions.send({ type: 'bot_seat', seat: info.seat, level: 'normal' });
    },
  }, botIcon());
}

function playerChip(ctx, player, actions) {
  const game = ctx.game;
  const info = ctx.room.seats.find((s) => s.seat === player.seat) ?? { name: `#${player.seat + 1}`, connected: false };
  const isTurn = game.turn === player.seat && game.phase !== 'game_over';
  const presence = info.connected ? 'online' : 'offline';
  return h('li.player', {
    'data-testid': `player-${player.seat}`,
    class: [isTurn ? 'turn' : '', player.seat === ctx.seat ? 'you' : '', game.went_out === player.seat ? 'out' : ''].join(' '),
    'aria-current': isTurn ? 'true' : null,
  },
  h('span.presence', { class: presence, role: 'img', 'aria-label': t(presence) }),
  info.bot ? botIcon() : null,
  nameLabel(info),
  game.dealer === player.seat ? h('span.dealer', { title: t('dealer'), 'aria-label': t('dealer') }, t('dealer_short')) : null,
  game.went_out === player.seat ? h('span.tag.gold', {}, t('went_out_mark')) : null,
  info.auto ? h('span.tag', { 'data-testid': `auto-${player.seat}`, title: t('auto_seat_title') }, t('auto_seat')) : null,
  isTurn ? countdown(ctx.room) : null,
  handToBot(ctx, info, actions),
  takeSeat(ctx, info, actions),
  h('span.stats', {},
    h('span.count', { 'aria-label': t('card_count', { n: player.card_count }) },
      h('span.mini-back', { 'aria-hidden': 'true' }), num(player.card_count)),
    h('span.total', {}, t('points', { n: player.total }))));
}

function statusLine(ctx) {
  const game = ctx.game;
  if (game.phase === 'game_over') return `${t('game_over')}: ${winnersLine(ctx)}`;
  const myTurn = ctx.seat !== null && game.turn === ctx.seat;
  if (ctx.seat === null) return t('watching');
  if (!myTurn) return t('waiting_for', { name: seatName(ctx, game.turn) });
  if (ctx.goOut) return t('go_out_pick');
  if (game.phase === 'draw') return t('your_turn_draw');
  return game.can_go_out.length ? t('your_turn_discard_go') : t('your_turn_discard');
}

function feedLine(ctx, event) {
  const name = event.seat === ctx.seat ? t('ev_you') : seatName(ctx, event.seat);
  const card = event.card ? cardShort(event.card) : '';
  if (event.kind === 'draw') return t(event.source === 'discard' && card ? 'ev_draw_discard' : 'ev_draw_stock', { name, card });
  if (event.kind === 'reshuffle') return t('ev_reshuffle');
  return t(event.kind === 'go_out' ? 'ev_go_out' : 'ev_discard', { name, card });
}

function piles(ctx, actions) {
  const game = ctx.game;
  const legal = new Set(game.legal ?? []);
  const busy = !!ctx.pending;
  const canStock = legal.has('draw_stock') && !busy;
  const canDiscard = legal.has('draw_discard') && !busy;
  const stock = cardBack({ button: true });
  stock.dataset.testid = 'stock';
  stock.dataset.key = 'stock';
  stock.setAttribute('aria-label', t('stock_label', { n: game.stock_count }));
  if (!canStock) stock.setAttribute('aria-disabled', 'true');
  else stock.classList.add('ready');
  stock.addEventListener('click', () => { if (canStock) actions.play({ type: 'draw', source: 'stock' }); });

  let discard;
  if (game.discard_top) {
    discard = cardEl(game.discard_top, { button: true, wildRank: game.wild_rank });
    discard.setAttribute('aria-label', t('discard_label', { card: cardLabel(game.discard_top, game.wild_rank) }));
  } else {
    discard = h('button.card.empty', { type: 'button', 'aria-label': t('discard_empty') });
  }
  discard.dataset.testid = 'discard';
  discard.dataset.key = 'discard';
  if (!canDiscard) discard.setAttribute('aria-disabled', 'true');
  else discard.classList.add('ready');
  discard.addEventListener('click', () => { if (canDiscard) actions.play({ type: 'draw', source: 'discard' }); });

  return h('div.piles', {},
    h('div.pile', {}, stock, h('span.pile-label', {}, t('stock'), ' · ', t('left', { n: game.stock_count }))),
    h('div.pile', {}, discard, h('span.pile-label', {}, t('discard_pile'), ' · ', num(game.discard_count))));
}

function handPanel(ctx, actions) {
  const game = ctx.game;
  const legal = new Set(game.legal ?? []);
  const grouped = groupingOn();
  const canDiscard = legal.has('discard') && !ctx.pending;
  const goOutCards = new Set(game.can_go_out ?? []);
  const clickable = (card) => (ctx.goOut ? goOutCards.has(card) && !ctx.pending : canDiscard);
  const onPlay = (card) => actions.play({ type: ctx.goOut ? 'go_out' : 'discard', card });

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

  const slot = h('div.hand-slot');
  const panel = h('section.hand-panel', { 'aria-labelledby': 'hand-title', class: ctx.goOut ? 'choosing' : '' },
    h('div.hand-head', {},
      h('h2.sr-only', { id: 'hand-title' }, t('your_hand')),
      h('span.penalty', { 'data-testid': 'penalty' }, t('penalty', { n: game.arrangement?.penalty ?? 0 })),
      h('label.toggle', { for: 'group-toggle' }, toggle, h('span', {}, t('group'))),
      h('span.spacer'),
      goOutButton),
    slot,
    grouped ? null : h('p.hint.reorder', {}, t('reorder_hint')));
  // Mounted after the panel is in the page (fitting needs real widths): see renderTable.
  panel.mountHand = () => mountHand(slot, game, {
    grouped,
    clickable,
    onPlay,
    highlight: ctx.goOut ? goOutCards : null,
    onReorder: (focusKey) => {
      setGrouping(false);
      actions.rerender();
      if (focusKey) document.querySelector(`.hand [data-key="${focusKey}"]`)?.focus();
    },
  });
  return panel;
}

export function renderTable(container, ctx, actions) {
  const game = ctx.game;
  const myTurn = ctx.seat !== null && game.turn === ctx.seat;
  const finalBanner = game.went_out !== null && game.phase !== 'game_over'
    ? h('p.banner', { role: 'status', 'data-testid': 'final-turns' },
      game.went_out === ctx.seat ? t('you_went_out') : t('final_turns', { name: seatName(ctx, game.went_out) }),
      myTurn ? ` ${t('last_turn')}` : '')
    : null;
  const hand = ctx.seat !== null && game.hand && game.phase !== 'game_over' ? handPanel(ctx, actions) : null;
  mount(container, h('div.table', {
    'data-testid': 'table',
    dataset: {
      phase: game.phase, myTurn: myTurn ? '1' : '0', round: String(game.round), pending: ctx.pending ? '1' : '0',
      version: String(ctx.version),
    },
  },
  h('ul.players', { 'aria-label': t('scores') }, game.players.map((p) => playerChip(ctx, p, actions))),
  h('div.round-bar', {},
    h('span.round', {}, t('round', { round: game.round, rounds: game.rounds })),
    h('span.dot', { 'aria-hidden': 'true' }, '·'),
    h('span', {}, t('cards_dealt', { n: game.cards_dealt })),
    h('span.wild-pill', { 'data-testid': 'wild' }, t('wild', { rank: game.wild_rank })),
    h('span.spacer'),
    h('button.secondary.small', { type: 'button', 'data-testid': 'scores', onclick: () => actions.showScores() }, t('scores'))),
  finalBanner,
  h('div.felt', {}, piles(ctx, actions),
    h('p.status', { 'data-testid': 'status', class: myTurn ? 'mine' : '', 'aria-live': 'polite' }, statusLine(ctx)),
    ctx.feed?.length ? h('ul.feed', { 'data-testid': 'feed' }, ctx.feed.map((e) => h('li', {}, feedLine(ctx, e)))) : null),
  hand,
  ctx.seat === null && ctx.room.spectators ? h('p.hint', {}, t('spectators', { n: ctx.room.spectators })) : null));
  hand?.mountHand();
}
