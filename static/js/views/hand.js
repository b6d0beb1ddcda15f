// Your hand: grouped into the server's best melds (or in your own order), fitted to the width, draggable.
import { cardEl } from '../cards.js';
import { h, mount } from '../dom.js';
import { num, t } from '../i18n.js';

const PREFS_KEY = 'tt.group';

/** Whether the hand is shown grouped into melds (remembered; on by default). */
export function groupingOn() {
  try {
    return localStorage.getItem(PREFS_KEY) !== 'off';
  } catch {
    return true;
  }
}

export function setGrouping(on) {
  try { localStorage.setItem(PREFS_KEY, on ? 'on' : 'off'); } catch { /* ignore */ }
}

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

function groupsOf(game, grouped) {
  if (!grouped || !game.arrangement) return [{ kind: 'all', cards: orderedHand(game.hand) }];
  const groups = game.arrangement.melds.map((m) => ({ kind: m.kind, cards: m.cards }));
  if (game.arrangement.deadwood.length) {
    groups.push({ kind: 'deadwood', cards: game.arrangement.deadwood, penalty: game.arrangement.penalty });
  }
  return groups;
}

/**
 * Build the hand. ``opts``: {grouped, clickable(card) -> bool, onPlay(card), highlight: Set|null,
 * onReorder(newOrder)} — onReorder switches grouping off and keeps the order the player made.
 */
export function handEl(game, opts) {
  const groups = groupsOf(game, opts.grouped);
  let drawnMarked = false;
  let index = 0;
  const container = h('div.hand', { 'data-testid': 'hand', role: 'group', 'aria-label': t('your_hand') });
  for (const group of groups) {
    const label = group.kind === 'all' ? null
      : group.kind === 'deadwood' ? `${t('unmelded')} · ${num(group.penalty)}`
        : t(group.kind);
    const cards = group.cards.map((card) => {
      const el = cardEl(card, { button: true, wildRank: game.wild_rank });
      el.dataset.key = `card-${index}`;
      el.dataset.index = String(index++);
      if (!drawnMarked && game.drawn === card) {
        el.classList.add('drawn');
        drawnMarked = true;
      }
      const playable = opts.clickable(card);
      if (!playable) el.setAttribute('aria-disabled', 'true');
      if (opts.highlight && opts.highlight.has(card)) el.classList.add('go-out-card');
      if (opts.highlight && !opts.highlight.has(card)) el.classList.add('dim');
      el.addEventListener('click', (event) => {
        if (container.dataset.dragged === '1') { event.preventDefault(); return; }
        if (opts.clickable(card)) opts.onPlay(card);
      });
      return el;
    });
    container.append(h('div.group', { class: `group-${group.kind}`, dataset: { kind: group.kind } },
      label ? h('span.group-label', {}, label) : null,
      h('div.cards', {}, cards)));
  }
  enableReorder(container, opts.onReorder);
  return container;
}

/** Cards in the order they are shown. */
function shownOrder(container) {
  return [...container.querySelectorAll('.card')].map((el) => el.dataset.card);
}

function moveCard(order, from, to) {
  const next = [...order];
  const [card] = next.splice(from, 1);
  next.splice(to, 0, card);
  return next;
}

/** Drag (mouse or touch) or Shift + arrow keys to move a card; the new order is kept and grouping goes off. */
function enableReorder(container, onReorder) {
  let drag = null;
  container.addEventListener('pointerdown', (event) => {
    const el = event.target.closest('.card');
    if (!el || event.button !== 0) return;
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
    const others = [...container.querySelectorAll('.card')].filter((c) => c !== el);
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
    const order = shownOrder(container);
    const from = Number(el.dataset.index);
    customOrder = moveCard(order, from, target);
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
    const cards = [...container.querySelectorAll('.card')];
    const from = cards.indexOf(el);
    const to = Math.max(0, Math.min(cards.length - 1, from + (forward ? 1 : -1)));
    event.preventDefault();
    if (event.shiftKey) {
      if (to === from) return;
      customOrder = moveCard(shownOrder(container), from, to);
      onReorder(`card-${to}`);
    } else {
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

export function refit() {
  const hand = document.querySelector('.hand');
  if (hand) fitHand(hand);
}

window.addEventListener('resize', refit);

export function mountHand(slot, game, opts) {
  const el = handEl(game, opts);
  mount(slot, el);
  fitHand(el);
  return el;
}
