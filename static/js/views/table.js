// The table in play: players, round and wild rank, stock and discard, whose turn, and your hand. One lit-html
// template drawn on every change of the state: only what changed is touched, the players, the feed and the
// hand's cards are kept by key, so the keyboard, an open box and an animation survive a move elsewhere.
import { cardLabel, cardShort } from '../cards.js';
import { cardTemplate } from '../card-template.js';
import { html, nothing, render } from '../html.js';
import { live, repeat } from '../html-directives.js';
import { cardCount, num, t } from '../i18n.js';
import { pausing } from '../pause.js';
import { confirmDiscardsOn, groupingOn } from '../storage.js';
import { fitHand, handTemplate, sortedHand } from './hand.js';
import { optionRows } from './options.js';
import { gameOverPanel, hostBox } from './host.js';
import { tableActions } from './leave.js';
import { askPanel, seatRequestControls } from './seatask.js';
import { turnStrip } from './turnstrip.js';
import { coachBar, coachTarget } from './coach.js';
import { meldGroups, seatName as nameAmong, winnersLine } from './widgets.js';
import { avatarTemplate, nameTemplate } from '../avatars.js';
import '../i18n-table.js';

const TOUCH = window.matchMedia('(hover: none), (pointer: coarse)'); // a phone: no keys to mention
const seatName = (ctx, seat) => nameAmong(ctx.room.seats, seat);
/** No live connection: moves cannot be sent and presence cannot be known. */
const isOffline = (ctx) => ctx.conn !== 'online';

/** Seconds left on your own turn when the timer turns red and says so once (aria-live, polite). */
const LOW_SECONDS = 10;

/**
 * The turn timer: the server sends its deadline and its own time; count down on this device's clock (the view
 * is drawn again every second while a deadline runs). Below LOW_SECONDS the pill turns red (it pulses unless
 * reduced motion is asked for) and, on your own turn, the time left is announced once (a polite live region).
 */
class Countdown {
  constructor(onTick) {
    this.key = null;
    this.deadline = null;
    this.mine = false;
    this.warning = '';
    this.interval = setInterval(onTick, 1000);
  }

  secondsLeft() {
    return this.deadline === null ? null : Math.max(0, Math.ceil((this.deadline - Date.now()) / 1000));
  }

  /** Follow ``room``'s deadline (``mine``: it is this player's turn); a new turn starts without a warning. */
  follow(room, mine) {
    const key = room.turn_deadline && room.server_time ? `${room.turn_deadline}|${room.server_time}` : null;
    if (key !== this.key || mine !== this.mine) {
      this.key = key;
      this.mine = mine;
      this.deadline = key ? Date.now() + Date.parse(room.turn_deadline) - Date.parse(room.server_time) : null;
      this.warning = '';
    }
    const left = this.secondsLeft();
    // Said once per turn, on your own turn, that time is running out.
    if (this.mine && !this.warning && left !== null && left <= LOW_SECONDS && left > 0) this.warning = t('timer_low', { n: left });
  }

  /** The countdown pill (nothing without a deadline). */
  pill() {
    const left = this.secondsLeft();
    if (left === null) return nothing;
    return html`<span class=${left <= LOW_SECONDS ? 'tag countdown low' : 'tag countdown'} data-testid="countdown"
      role="timer">${timeLeft(left)}</span>`;
  }

  stop() {
    clearInterval(this.interval);
  }
}

/** Time left on a turn: seconds at a live table; minutes, or hours and minutes, at a paced one. */
function timeLeft(left) {
  if (left < 120) return t('seconds_left', { n: left });
  if (left < 3600) return t('minutes_left', { n: Math.ceil(left / 60) });
  return t('hours_left', { h: Math.floor(left / 3600), m: Math.floor((left % 3600) / 60) });
}

/** The sentence for an away person: counting down to when the table plays for them (``at``: this device's
 * clock, ms), or that it does now. */
function awayText(name, at) {
  const left = at === null ? 0 : Math.max(0, Math.ceil((at - Date.now()) / 1000));
  const isolated = `\u2068${name}\u2069`; // the name in its own direction; the sentence in the page's
  return left > 0 ? t('away_countdown', { name: isolated, n: left }) : t('away_auto', { name: isolated });
}

/** The people who dropped during a game, told to everyone: who, and when the table plays for them (the
 * server's ``auto_at``, put on this device's clock when it first comes, like the turn timer's deadline: the
 * view keeps it in ``parts``), or that it does. */
function awayLines(ctx, parts) {
  const room = ctx.room;
  if (isOffline(ctx) || ctx.game.phase === 'game_over') return nothing;
  const away = room.seats.filter((s) => !s.bot && s.seat !== ctx.seat && (s.auto || s.auto_at));
  if (!away.length) return nothing;
  const deadline = (s) => {
    if (!s.auto_at || !room.server_time) return null;
    const kept = parts.get(`away-${s.seat}`);
    if (kept?.autoAt === s.auto_at) return kept.at;
    const at = Date.now() + Date.parse(s.auto_at) - Date.parse(room.server_time);
    parts.set(`away-${s.seat}`, { autoAt: s.auto_at, at });
    return at;
  };
  return html`<ul class="away" data-testid="away" role="status">${repeat(away, (s) => s.seat,
    (s) => html`<li class="away-line" data-testid=${`away-${s.seat}`}>${awayText(s.name, deadline(s))}</li>`)}</ul>`;
}

function playerChip(ctx, player, actions, timer) {
  const game = ctx.game;
  const info = ctx.room.seats.find((s) => s.seat === player.seat) ?? { name: `#${player.seat + 1}`, connected: false };
  const isTurn = game.turn === player.seat && game.phase !== 'game_over';
  // Offline we cannot know who is here: the dots go grey rather than stay green.
  const presence = isOffline(ctx) ? 'unknown' : info.connected ? 'online' : 'offline';
  const classes = ['player', isTurn ? 'turn' : '', player.seat === ctx.seat ? 'you' : '', game.went_out === player.seat ? 'out' : ''].filter(Boolean);
  return html`<li class=${classes.join(' ')} data-testid=${`player-${player.seat}`} aria-current=${isTurn ? 'true' : nothing}
    ><span class=${`presence ${presence}`} role="img" aria-label=${t(presence)}></span>${avatarTemplate(info)}${nameTemplate(info)}${
    game.dealer === player.seat ? html`<span class="dealer" title=${t('dealer')} aria-label=${t('dealer')}>${t('dealer_short')}</span>` : nothing}${
    game.went_out === player.seat ? html`<span class="tag gold">${t('went_out_mark')}</span>` : nothing}${
    info.auto ? html`<span class="tag" data-testid=${`auto-${player.seat}`} title=${t('auto_seat_title')}>${t('auto_seat')}</span>` : nothing}${
    isTurn && !isOffline(ctx) && !pausing(ctx) ? timer.pill() : nothing}${
    seatRequestControls(ctx, info, actions)}<span class="stats"><span class="count"
    aria-label=${cardCount(player.card_count)}><span class="mini-back" aria-hidden="true"></span>${num(player.card_count)}</span><span
    class="total">${t('points', { n: player.total })}</span></span></li>`;
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

/** The stock and the discard pile, to draw from (the replay and the walkthrough draw widgets.js's piles). */
function tablePiles(ctx, actions, coached) {
  const game = ctx.game;
  const legal = new Set(game.legal ?? []);
  const busy = !!ctx.pending || isOffline(ctx) || pausing(ctx); // the round starts when the pause ends
  const pile = (can, move) => ({
    ready: can, onclick: () => (can ? actions.play({ type: 'draw', source: move }) : blocked(ctx, actions)),
  });
  const stock = pile(legal.has('draw_stock') && !busy, 'stock');
  const discard = pile(legal.has('draw_discard') && !busy, 'discard');
  const mark = (name, can) => [can ? 'ready' : '', coached === name ? 'coach-target' : ''].filter(Boolean).join(' ');
  const top = game.discard_top;
  const discardCard = top
    ? cardTemplate(top, {
      button: true, wildRank: game.wild_rank, extraClass: [game.thrown ? 'just-thrown' : '', mark('discard', discard.ready)].filter(Boolean).join(' ') || null,
      label: t('discard_label', { card: cardLabel(top, game.wild_rank) }), testid: 'discard', key: 'discard',
      disabled: !discard.ready, onclick: discard.onclick,
    })
    : html`<button type="button" class=${`card empty ${mark('discard', discard.ready)}`} aria-label=${t('discard_empty')}
      data-key="discard" data-testid="discard" aria-disabled=${discard.ready ? nothing : 'true'} @click=${discard.onclick}></button>`;
  // The word and the count on lines of their own: a dot between them reads as a zero in Persian.
  return html`<div class="piles"><div class="pile"><button type="button" class=${`card back ${mark('stock', stock.ready)}`}
    data-key="stock" data-testid="stock" aria-label=${t('stock_label', { n: game.stock_count })}
    aria-disabled=${stock.ready ? nothing : 'true'} @click=${stock.onclick}></button><span class="pile-label"
    data-testid="stock-label"><span class="pile-name">${t('stock')}</span><span class="pile-count">${t('left', { n: game.stock_count })
    }</span></span></div><div class="pile">${discardCard}<span class="pile-label" data-testid="discard-label"><span
    class="pile-name">${t('discard_pile')}</span><span class="pile-count">${cardCount(game.discard_count)}</span></span></div></div>`;
}

/** Every move of this round seen here, folded away under the last two (opened: kept open as moves come, and
 * scrolled to the newest when opened). */
function roundFeed(ctx, actions) {
  const moves = ctx.roundFeed ?? [];
  if (moves.length <= 2) return nothing;
  const toggled = (event) => {
    const box = event.currentTarget;
    if (box.open === ctx.feedOpen) return;
    actions.setFeedOpen(box.open);
    if (box.open) box.querySelector('ol').scrollTop = 1e6;
  };
  return html`<details class="round-feed" data-testid="round-feed" .open=${ctx.feedOpen} @toggle=${toggled}><summary
    >${t('round_moves', { n: moves.length })}</summary><ol>${moves.map((e) => html`<li>${feedLine(ctx, e)}</li>`)}</ol></details>`;
}

function handPanel(ctx, actions, coached) {
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
    if (!confirming || card === selected) play(card);
    else actions.select(card);
  };
  const confirmButton = selected && clickable(selected)
    ? html`<button type="button" class="primary small" data-testid="confirm-discard" data-key="confirm-discard"
      @click=${() => play(selected)}>${t(ctx.goOut || goOutCards.has(selected) ? 'confirm_go_out' : 'confirm_discard', { card: cardShort(selected) })}</button>`
    : nothing;
  const goOutButton = goOutCards.size && !ctx.pending
    ? html`<button type="button" class="go-out" data-testid="go-out" data-key="go-out" aria-pressed=${ctx.goOut ? 'true' : 'false'}
      @click=${() => actions.setGoOut(!ctx.goOut)}>${ctx.goOut ? t('cancel') : t('go_out')}</button>`
    : nothing;
  // Where the host allows hints: the server's solver names the discard that leaves the fewest points.
  const hintButton = game.options?.hints && canDiscard && !ctx.goOut
    ? html`<button type="button" class="secondary small" data-testid="hint" data-key="hint" @click=${() => actions.askHint()}
      >${t('hint')}</button>`
    : nothing;
  const sortButtons = html`<span class="sort" role="group" aria-labelledby="sort-label"><span class="sort-label" id="sort-label"
    >${t('sort')}</span>${['suit', 'rank'].map((by) => html`<button type="button" class="secondary small"
    data-testid=${`sort-${by}`} data-key=${`sort-${by}`} @click=${() => actions.reorder(sortedHand(ctx.handOrder, game.hand, by))}>${t(`sort_${by}`)}</button>`)}</span>`;
  const hand = handTemplate(game, {
    grouped,
    order: ctx.handOrder,
    clickable,
    onPlay,
    onBlocked: () => blocked(ctx, actions),
    highlight: goOutCards.size ? goOutCards : null,
    dimOthers: ctx.goOut,
    hinted: ctx.hint?.card ?? null,
    selected,
    coached,
    onReorder: (order, card) => actions.reorder(order, card),
  });
  return html`<section class=${ctx.goOut ? 'hand-panel choosing' : 'hand-panel'} aria-labelledby="hand-title"><div
    class="hand-head"><h2 class="sr-only" id="hand-title">${t('your_hand')}</h2><span class="penalty" data-testid="penalty"
    >${t('penalty', { n: game.arrangement?.penalty ?? 0 })}</span><label class="toggle" for="group-toggle"><input
    class="switch" type="checkbox" id="group-toggle" data-testid="group-toggle" data-key="group-toggle" .checked=${live(grouped)}
    @change=${(e) => actions.setGrouping(e.currentTarget.checked)}><span>${t('group')}</span></label><label class="toggle"
    for="confirm-toggle"><input class="switch" type="checkbox" id="confirm-toggle" data-testid="confirm-toggle"
    data-key="confirm-toggle" .checked=${live(confirming)} @change=${(e) => actions.setConfirmDiscards(e.currentTarget.checked)}
    ><span>${t('confirm_discards')}</span></label>${sortButtons}<span class="spacer"></span>${hintButton}${confirmButton}${goOutButton
    }</div><div class="hand-slot">${hand}</div>${grouped ? nothing
    : html`<p class="hint reorder">${t(TOUCH.matches ? 'reorder_hint_touch' : 'reorder_hint')}</p>`}</section>`;
}

/** The melds of the player who went out, on the table for everyone during the final turns (RULES.md). */
function laidDown(ctx) {
  const laid = ctx.game.laid_down;
  if (!laid) return nothing;
  const groups = laid.melds.map((m) => ({ kind: m.kind, cards: m.cards }));
  const label = t('laid_down', { name: seatName(ctx, laid.seat) });
  return html`<section class="laid-down" data-testid="laid-down" aria-label=${label}><p class="laid-title">${label}</p><div
    class="laid-melds">${meldGroups(groups, { wildRank: ctx.game.wild_rank, small: true })}</div>${laid.card
    ? html`<p class="laid-card">${t('went_out_with')} ${cardTemplate(laid.card, { small: true })}</p>` : nothing}</section>`;
}

function tableTemplate(ctx, actions, timer, parts) {
  const game = ctx.game;
  const room = ctx.room;
  const myTurn = ctx.seat !== null && game.turn === ctx.seat;
  const over = game.phase === 'game_over';
  const showHand = ctx.seat !== null && game.hand && !over;
  const final = game.went_out !== null && game.phase !== 'game_over';
  const coached = coachTarget(ctx);
  timer.follow(room, myTurn);
  const players = html`<ul class=${game.players.length > 4 ? 'players many' : 'players'} aria-label=${t('scores')}>${
    repeat(game.players, (p) => p.seat, (p) => playerChip(ctx, p, actions, timer))}</ul>`;
  const roundBar = html`<div class="round-bar"><span class="round">${t('round', { round: game.round, rounds: game.rounds })
    }</span><span class="cards-dealt">${t('cards_dealt', { n: game.cards_dealt })}</span><span class="wild-pill" data-testid="wild"
    >${t('wild', { rank: num(game.wild_rank) })}</span><span class="spacer"></span><button type="button" class="secondary small"
    data-testid="scores" @click=${() => actions.showScores()}>${t('scores')}</button></div>`;
  const banner = final
    ? html`<p class="banner" role="status" data-testid="final-turns">${game.went_out === ctx.seat ? t('you_went_out')
      : t('final_turns', { name: seatName(ctx, game.went_out) })}${myTurn ? ` ${t('last_turn')}` : ''}</p>`
    : nothing;
  const feed = ctx.feed ?? [];
  const felt = html`<div class="felt">${tablePiles(ctx, actions, coached?.pile)}<p class=${myTurn ? 'status mine' : 'status'}
    data-testid="status" aria-live="polite">${statusLine(ctx)}</p>${feed.length
    ? html`<ul class="feed" data-testid="feed">${feed.map((e) => html`<li>${feedLine(ctx, e)}</li>`)}</ul>` : nothing}${
    roundFeed(ctx, actions)}</div>`;
  // Once the game is over, the place of the hand says what comes next (the dialog may be closed).
  const handPlace = over
    ? gameOverPanel(ctx, actions)
    : showHand ? handPanel(ctx, actions, coached?.card) : nothing;
  // The house rules in force, read-only, folded away under the table.
  const rules = html`<details class="rules-box rules-in-play" data-testid="rules-in-play"><summary>${t('rules_in_play')}</summary><p
    class="hint" id="rules-locked" data-testid="rules-locked">${t('rules_in_play_locked')}</p>${
    optionRows(game.options ?? {}, () => {}, true, 'rules-locked')}</details>`;
  return html`<div class=${isOffline(ctx) ? 'table offline' : 'table'} data-testid="table" data-conn=${ctx.conn ?? ''}
    data-phase=${game.phase} data-my-turn=${myTurn ? '1' : '0'} data-round=${String(game.round)}
    data-pending=${ctx.pending ? '1' : '0'} data-version=${String(ctx.version)}>${players}${
    askPanel(ctx, actions)}${roundBar}${turnStrip(ctx)}${banner}${
    awayLines(ctx, parts)}${laidDown(ctx)}${felt}${
    coachBar(ctx, actions)}${handPlace}${
    ctx.seat === null && room.spectators ? html`<p class="hint">${t('spectators', { n: room.spectators })}</p>` : nothing}${
    hostBox(ctx, actions)}${
    tableActions(ctx, actions)}${rules}<p class="sr-only" role="status" aria-live="polite"
    data-testid="timer-warning">${timer.warning}</p></div>`;
}

/** The table view: ``render(ctx)`` on every change; ``stop()`` ends its timer and listeners. */
export function createTableView(container, actions) {
  const root = document.createElement('div');
  container.replaceChildren(root);
  const parts = new Map(); // what the view remembers between renders: when each away person's turn is played
  let last = null;
  let feedSeen = 0;
  let drawing = false; // it was this seat's turn to draw, as last shown
  const draw = (ctx) => {
    last = ctx;
    render(tableTemplate(ctx, actions, timer, parts), root);
    const hand = root.querySelector('.hand');
    if (hand) fitHand(hand);
    // Drawn from a pile with the keyboard: it goes on to the card just drawn (the one to throw, or keep).
    const mine = ctx.seat !== null && ctx.game.turn === ctx.seat;
    if (drawing && mine && ctx.game.phase === 'discard' && document.activeElement?.matches('[data-key=stock], [data-key=discard]')) {
      root.querySelector('.hand .card.drawn')?.focus();
    }
    drawing = mine && ctx.game.phase === 'draw';
    // The whole round's moves, opened: the newest in view as they come.
    const moves = ctx.roundFeed?.length ?? 0;
    if (ctx.feedOpen && moves !== feedSeen) root.querySelector('.round-feed ol')?.scrollTo({ top: 1e6 });
    feedSeen = moves;
  };
  // Every second: the countdowns (the turn's, the away people's) are drawn again from the clock.
  const timer = new Countdown(() => { if (last) draw(last); });
  const refit = () => { const hand = root.querySelector('.hand'); if (hand) fitHand(hand); };
  window.addEventListener('resize', refit);
  return {
    render: draw,
    stop() {
      timer.stop();
      window.removeEventListener('resize', refit);
    },
  };
}
