// Your hand: grouped into the server's best melds (or in your own order), fitted to the width, draggable.
// Grouped, the melds sit first in the solver's order and the unmelded cards follow in yours; either way a
// tap sorts the cards you may arrange by suit or by rank, and dragging keeps the grouping as it is.
import { cardEl, cardLabel, parseCard } from '../cards.js';
import { h, mount } from '../dom.js';
import { t } from '../i18n.js';
import { groupLabel, groupsOf as arrangedGroups } from './widgets.js';

// Your own order of the hand (cards as text; duplicates allowed with several decks). Kept for the tab's life.
let customOrder = [];

/** The hand in your order: cards you still hold keep their places, new ones go at the end. */
export function orderedHand(hand) {
  const left = [...hand];
  const out = [];
  for (const card of customOrder) {
    const i = left.indexOf(card);
    if (i >= 0) out.push(left.splice(i, 1)[0]);
  }
  out.push(...left);
  customOrder = out;
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

function groupsOf(game, grouped) {
  const order = orderedHand(game.hand);
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

/** Put your cards in suit or rank order (the unmelded ones, when the hand is grouped into melds). */
export function sortHand(hand, by) {
  const key = SORT_KEYS[by];
  customOrder = [...orderedHand(hand)].sort((a, b) => key(parseCard(a)) - key(parseCard(b)));
}

/**
 * Build the hand. ``opts``: {grouped, clickable(card) -> bool, onPlay(card), highlight: Set|null,
 * onReorder(newOrder)} — onReorder switches grouping off and keeps the order the player made.
 */
export function handEl(game, opts) {
  const groups = groupsOf(game, opts.grouped);
  let drawnMarked = false;
  let hintMarked = false;
  let selectedMarked = false;
  let index = 0;
  const container = h('div.hand', { 'data-testid': 'hand', role: 'group', 'aria-label': t('your_hand') });
  const kindOf = groupKinds(game.arrangement);
  for (const group of groups) {
    const label = groupLabel(group);
    const cards = group.cards.map((card) => {
      const el = cardEl(card, { button: true, wildRank: game.wild_rank });
      // A screen reader hears where the card stands: '7 of hearts, in a run', 'king of clubs, unmelded'.
      const kind = kindOf(card);
      if (kind) el.setAttribute('aria-label', t(`card_in_${kind}`, { card: cardLabel(card, game.wild_rank) }));
      el.dataset.key = `card-${index}`;
      el.dataset.index = String(index++);
      if (!drawnMarked && game.drawn === card) {
        el.classList.add('drawn');
        drawnMarked = true;
      }
      if (!selectedMarked && opts.selected === card) {
        el.classList.add('selected');
        el.setAttribute('aria-pressed', 'true');
        selectedMarked = true;
      }
      if (!hintMarked && opts.hinted === card) {
        el.classList.add('hinted');
        hintMarked = true;
      }
      const playable = opts.clickable(card);
      if (!playable) el.setAttribute('aria-disabled', 'true');
      if (opts.highlight && opts.highlight.has(card)) el.classList.add('go-out-card');
      if (opts.dimOthers && opts.highlight && !opts.highlight.has(card)) el.classList.add('dim');
      el.addEventListener('click', (event) => {
        if (container.dataset.dragged === '1') { event.preventDefault(); return; }
        if (opts.clickable(card)) opts.onPlay(card);
        else opts.onBlocked?.();
      });
      return el;
    });
    container.append(h('div.group', { class: `group-${group.kind}`, dataset: { kind: group.kind } },
      label ? h('span.group-label', {}, ...label) : null,
      h('div.cards', {}, cards)));
  }
  enableReorder(container, opts.onReorder);
  return container;
}

/** The cards you may move: every card, or only the unmelded ones while the hand shows its melds. */
function movable(container) {
  const all = [...container.querySelectorAll('.card')];
  return container.querySelector('.group-deadwood, .group-all') ? all.filter((el) => !el.closest(
    '.group:not(.group-deadwood):not(.group-all)')) : [];
}

/** Your new order: the movable cards as now arranged, then the others in the order they had. */
function keepOrder(movedOrder) {
  const rest = [...customOrder];
  for (const card of movedOrder) {
    const i = rest.indexOf(card);
    if (i >= 0) rest.splice(i, 1);
  }
  customOrder = [...movedOrder, ...rest];
}

function moveCard(order, from, to) {
  const next = [...order];
  const [card] = next.splice(from, 1);
  next.splice(to, 0, card);
  return next;
}

/** Drag (mouse or touch) or Shift + arrow keys to move a card among the movable ones; the order is kept. */
function enableReorder(container, onReorder) {
  let drag = null;
  container.addEventListener('pointerdown', (event) => {
    const el = event.target.closest('.card');
    if (!el || event.button !== 0 || !movable(container).includes(el)) return;
    container.dataset.dragged = '0';
    drag = { el, x: event.clientX, y: event.clientY, moving: false, id: event.pointerId };
  });
  container.addEventListener('pointermove', (event) => {
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
  });
  const finish = (event) => {
    if (!drag || event.pointerId !== drag.id) return;
    const { el, moving } = drag;
    drag = null;
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
    keepOrder(moveCard(cards.map((c) => c.dataset.card), cards.indexOf(el), target));
    onReorder();
  };
  container.addEventListener('pointerup', finish);
  container.addEventListener('pointercancel', (event) => {
    if (drag?.el) { drag.el.classList.remove('dragging'); drag.el.style.transform = ''; }
    if (drag && event.pointerId === drag.id) drag = null;
  });
  container.addEventListener('keydown', (event) => {
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
      keepOrder(moveCard(cards.map((c) => c.dataset.card), from, to));
      onReorder(cards[to].dataset.key); // the card now at that place gets the focus back below
    } else {
      const cards = [...container.querySelectorAll('.card')];
      const to = Math.max(0, Math.min(cards.length - 1, cards.indexOf(el) + (forward ? 1 : -1)));
      cards[to].focus();
    }
  });
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
  container.style.setProperty('--step', `${Math.floor(Math.min(maxStep, step))}px`);
}

export function mountHand(slot, game, opts) {
  const el = handEl(game, opts);
  mount(slot, el);
  fitHand(el);
  return el;
}
