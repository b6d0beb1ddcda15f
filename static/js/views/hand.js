// Your hand: grouped into the server's best melds (or in your own order), fitted to the width, draggable.
// Grouped, the melds sit first in the solver's order and the unmelded cards follow in yours; either way a
// tap sorts the cards you may arrange by suit or by rank, and dragging keeps the grouping as it is.
// Drawn with lit-html, each card kept by its own key: a card keeps its element (and the keyboard) while the
// rest of the table changes; your order lives in the state (state.handOrder), changed through actions.reorder.
import { cardLabel, parseCard } from '../cards.js';
import { cardTemplate } from '../card-template.js';
import { html, nothing } from '../html.js';
import { repeat } from '../html-directives.js';
import { t } from '../i18n.js';
import { groupLabel, groupsOf as arrangedGroups } from './widgets.js';
import '../i18n-table.js';

/** The hand in your order ``order`` (state.handOrder): cards you still hold keep their places, new ones go at
 * the end. */
export function orderedHand(order, hand) {
  const left = [...hand];
  const out = [];
  for (const card of order ?? []) {
    const i = left.indexOf(card);
    if (i >= 0) out.push(left.splice(i, 1)[0]);
  }
  out.push(...left);
  return out;
}

/**
 * card -> the kind of group the server's best arrangement puts it in ('set', 'run' or 'deadwood'), one
 * copy at a time (several decks can deal the same card twice); null without an arrangement.
 */
function groupKinds(arrangement) {
  if (!arrangement) return () => null;
  const left = new Map();
  for (const group of arrangedGroups(arrangement)) {
    for (const card of group.cards) left.set(card, [...(left.get(card) ?? []), group.kind]);
  }
  return (card) => left.get(card)?.shift() ?? null;
}

/** ``cards`` in the order of ``order`` (which holds them all; duplicates allowed). */
function inOrder(cards, order) {
  const left = [...cards];
  const out = [];
  for (const card of order) {
    const i = left.indexOf(card);
    if (i >= 0) out.push(left.splice(i, 1)[0]);
  }
  return [...out, ...left];
}

function groupsOf(game, grouped, handOrder) {
  const order = orderedHand(handOrder, game.hand);
  if (!grouped || !game.arrangement) return [{ kind: 'all', cards: order }];
  return arrangedGroups(game.arrangement).map((group) => (group.kind === 'deadwood'
    ? { ...group, cards: inOrder(group.cards, order) } : group));
}

const RANKS = ['A', '2', '3', '4', '5', '6', '7', '8', '9', '10', 'J', 'Q', 'K'];
const SUITS = ['S', 'H', 'C', 'D']; // black and red take turns
const rankIndex = (c) => (c.joker ? 99 : RANKS.indexOf(c.rank));
const suitIndex = (c) => (c.joker ? 99 : SUITS.indexOf(c.suit));
const SORT_KEYS = {
  suit: (c) => suitIndex(c) * 100 + rankIndex(c),
  rank: (c) => rankIndex(c) * 100 + suitIndex(c),
};

/** Your cards in suit or rank order (the unmelded ones, when the hand is grouped into melds): the new order. */
export function sortedHand(order, hand, by) {
  const key = SORT_KEYS[by];
  return [...orderedHand(order, hand)].sort((a, b) => key(parseCard(a)) - key(parseCard(b)));
}

/**
 * The hand as a template. ``opts``: {grouped, order (state.handOrder), clickable(card) -> bool, onPlay(card),
 * onBlocked(), highlight: Set|null, dimOthers, hinted, selected, coached (the card the coach points at),
 * onReorder(order, card)} — onReorder gets your new order and the card that moved (it keeps the keyboard).
 */
export function handTemplate(game, opts) {
  const groups = groupsOf(game, opts.grouped, opts.order);
  const marked = { drawn: false, hint: false, selected: false, coached: false };
  const markOnce = (what, on) => {
    if (!on || marked[what]) return false;
    marked[what] = true;
    return true;
  };
  const seen = new Map(); // card -> copies met so far: each copy's key (several decks deal a card twice)
  let index = 0;
  const kindOf = groupKinds(game.arrangement);
  const items = groups.map((group) => ({
    group,
    cards: group.cards.map((card) => {
      const copy = seen.get(card) ?? 0;
      seen.set(card, copy + 1);
      return { card, id: `${card}#${copy}`, index: index++, kind: kindOf(card) };
    }),
  }));
  const cardOf = ({ card, index: at, kind }) => {
    const classes = [
      markOnce('drawn', game.drawn === card) ? 'drawn' : '',
      markOnce('hint', opts.hinted === card) ? 'hinted' : '',
      opts.highlight?.has(card) ? 'go-out-card' : '',
      opts.dimOthers && opts.highlight && !opts.highlight.has(card) ? 'dim' : '',
      markOnce('coached', opts.coached === card) ? 'coach-target' : '',
    ];
    const selected = markOnce('selected', opts.selected === card);
    if (selected) classes.push('selected');
    return cardTemplate(card, {
      button: true, wildRank: game.wild_rank, extraClass: classes.filter(Boolean).join(' ') || null,
      // A screen reader hears where the card stands: '7 of hearts, in a run', 'king of clubs, unmelded'.
      label: kind ? t(`card_in_${kind}`, { card: cardLabel(card, game.wild_rank) }) : null,
      key: `card-${at}`, index: String(at), pressed: selected, disabled: !opts.clickable(card),
      onclick: (event) => {
        if (event.currentTarget.closest('.hand')?.dataset.dragged === '1') { event.preventDefault(); return; }
        if (opts.clickable(card)) opts.onPlay(card);
        else opts.onBlocked?.();
      },
    });
  };
  const reorder = (moved, el) => opts.onReorder(keepOrder(orderedHand(opts.order, game.hand), moved), el);
  return html`<div class="hand" data-testid="hand" role="group" aria-label=${t('your_hand')} .reorder=${reorder}
    @pointerdown=${pointerDown} @pointermove=${pointerMove} @pointerup=${pointerUp} @pointercancel=${pointerCancel}
    @keydown=${keyDown}>${repeat(items, (item, i) => `${item.group.kind}-${i}`, ({ group, cards }) => {
    const label = groupLabel(group);
    return html`<div class=${`group group-${group.kind}`} data-kind=${group.kind}>${label
      ? html`<span class="group-label">${label}</span>` : nothing}<div class="cards">${repeat(cards, (c) => c.id, cardOf)}</div></div>`;
  })}</div>`;
}

/** The cards you may move: every card, or only the unmelded ones while the hand shows its melds. */
function movable(container) {
  const all = [...container.querySelectorAll('.card')];
  return container.querySelector('.group-deadwood, .group-all') ? all.filter((el) => !el.closest(
    '.group:not(.group-deadwood):not(.group-all)')) : [];
}

/** Your new order: the movable cards as now arranged, then the others in the order they had. */
function keepOrder(order, movedOrder) {
  const rest = [...order];
  for (const card of movedOrder) {
    const i = rest.indexOf(card);
    if (i >= 0) rest.splice(i, 1);
  }
  return [...movedOrder, ...rest];
}

function moveCard(order, from, to) {
  const next = [...order];
  const [card] = next.splice(from, 1);
  next.splice(to, 0, card);
  return next;
}

// Drag (mouse or touch) or Shift + arrow keys to move a card among the movable ones. A drag under way is the
// hand element's own (``drags``: while the pointer is down), not the state's: it is over before a render.
const drags = new WeakMap(); // the hand element -> {el, x, y, moving, id}

function pointerDown(event) {
  const container = event.currentTarget;
  const el = event.target.closest('.card');
  if (!el || event.button !== 0 || !movable(container).includes(el)) return;
  container.dataset.dragged = '0';
  drags.set(container, { el, x: event.clientX, y: event.clientY, moving: false, id: event.pointerId });
}

function pointerMove(event) {
  const drag = drags.get(event.currentTarget);
  if (!drag || event.pointerId !== drag.id) return;
  const dx = event.clientX - drag.x;
  const dy = event.clientY - drag.y;
  if (!drag.moving && Math.hypot(dx, dy) < 10) return;
  if (!drag.moving) {
    drag.moving = true;
    drag.el.setPointerCapture?.(event.pointerId);
    drag.el.classList.add('dragging');
  }
  drag.el.style.transform = `translate(${dx}px, ${dy}px)`;
}

function pointerUp(event) {
  const container = event.currentTarget;
  const drag = drags.get(container);
  if (!drag || event.pointerId !== drag.id) return;
  const { el, moving } = drag;
  drags.delete(container);
  if (!moving) return;
  container.dataset.dragged = '1';
  setTimeout(() => { container.dataset.dragged = '0'; }, 0);
  el.classList.remove('dragging');
  el.style.transform = '';
  const cards = movable(container);
  const others = cards.filter((c) => c !== el);
  let target = others.length;
  let best = Infinity;
  others.forEach((c, i) => {
    const r = c.getBoundingClientRect();
    const d = Math.hypot(event.clientX - (r.left + r.width / 2), event.clientY - (r.top + r.height / 2));
    if (d < best) {
      best = d;
      const rtl = document.documentElement.dir === 'rtl';
      const before = rtl ? event.clientX > r.left + r.width / 2 : event.clientX < r.left + r.width / 2;
      target = before ? i : i + 1;
    }
  });
  container.reorder(moveCard(cards.map((c) => c.dataset.card), cards.indexOf(el), target), null);
}

function pointerCancel(event) {
  const drag = drags.get(event.currentTarget);
  if (drag?.el) { drag.el.classList.remove('dragging'); drag.el.style.transform = ''; }
  if (drag && event.pointerId === drag.id) drags.delete(event.currentTarget);
}

function keyDown(event) {
  const container = event.currentTarget;
  const el = event.target.closest('.card');
  if (!el || !['ArrowLeft', 'ArrowRight'].includes(event.key)) return;
  const rtl = document.documentElement.dir === 'rtl';
  const forward = (event.key === 'ArrowRight') !== rtl;
  event.preventDefault();
  if (event.shiftKey) {
    const cards = movable(container);
    const from = cards.indexOf(el);
    const to = Math.max(0, Math.min(cards.length - 1, from + (forward ? 1 : -1)));
    if (from < 0 || to === from) return;
    container.reorder(moveCard(cards.map((c) => c.dataset.card), from, to), el);
  } else {
    const cards = [...container.querySelectorAll('.card')];
    const to = Math.max(0, Math.min(cards.length - 1, cards.indexOf(el) + (forward ? 1 : -1)));
    cards[to].focus();
  }
}

/** Overlap the cards so the whole hand fits the width; groups wrap onto a second row only when needed. */
export function fitHand(container) {
  const cards = container.querySelectorAll('.card');
  if (!cards.length) return;
  const cw = cards[0].offsetWidth;
  const width = container.clientWidth;
  if (!width || !cw) return; // not laid out (hidden): fitted again on the next render or resize
  const groups = [...container.querySelectorAll('.group')];
  const gap = parseFloat(getComputedStyle(container).columnGap) || 10;
  const n = cards.length;
  const g = groups.length;
  const maxStep = cw + 4;
  let step = n > g ? (width - g * cw - (g - 1) * gap) / (n - g) : maxStep;
  let wrap = false;
  if (step < cw * 0.45) {
    wrap = true;
    const longest = Math.max(...groups.map((el) => el.querySelectorAll('.card').length));
    step = Math.min(cw * 0.55, longest > 1 ? (width - cw) / (longest - 1) : maxStep);
  }
  container.classList.toggle('wrap', wrap);
  const shown = Math.floor(Math.min(maxStep, step));
  container.style.setProperty('--step', `${shown}px`);
  // Too tight for the word "wild" on a card the next one covers: a star stands in for it there (app.css).
  container.classList.remove('tight');
  const badge = container.querySelector('.wild-badge');
  container.classList.toggle('tight', badge !== null && badge.offsetWidth + cw * 0.1 > shown);
}
