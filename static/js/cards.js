// Playing cards in the page: parsing the wire text ('10H', 'JK'), accessible labels, and card elements (the
// live table draws them as lit-html templates: card-template.js, so that the home page needs no lit-html).
import { h } from './dom.js';
import { cardLabelWords, num, t } from './i18n.js';

export const SUIT_SYMBOLS = { S: '♠', H: '♥', D: '♦', C: '♣' };
export const RED = new Set(['H', 'D']);

/** '10H' -> {rank: '10', suit: 'H'}; 'JK' -> {rank: 'JK', suit: null, joker: true}. */
export function parseCard(text) {
  if (text === 'JK') return { rank: 'JK', suit: null, joker: true };
  return { rank: text.slice(0, -1), suit: text.slice(-1), joker: false };
}

export function isWild(text, wildRank) {
  const card = parseCard(text);
  return card.joker || (wildRank != null && card.rank === wildRank);
}

/**
 * A card's accessible name: what is printed on it first (rank and suit as on its corner, and "wild" as on its
 * badge), so the name contains the visible text (WCAG 2.5.3, label in name), then the words:
 * '10♥ wild: 10 of hearts' / '10♥ وحشی: ۱۰ دل'.
 */
export function cardLabel(text, wildRank) {
  const words = cardLabelWords();
  const card = parseCard(text);
  let said;
  if (card.joker) {
    said = words.joker;
  } else {
    const rank = words.ranks[card.rank] ?? num(card.rank);
    said = words.label.replace('{rank}', rank).replace('{suit}', words.suits[card.suit]);
  }
  const printed = card.joker ? 'JK★' : `${card.rank}${SUIT_SYMBOLS[card.suit]}`;
  return `${printed}${isWild(text, wildRank) ? ` ${t('wild_short')}` : ''}: ${said}`;
}

/**
 * Short printed form for running text, e.g. '10♥' ('۱۰♥' in Persian), isolated left to right so that a
 * right-to-left sentence still shows the rank before the suit.
 */
export function cardShort(text) {
  const card = parseCard(text);
  return card.joker ? '🃏' : `\u2066${num(card.rank)}${SUIT_SYMBOLS[card.suit]}\u2069`;
}

/**
 * A face-up card. ``opts.button`` makes it a focusable <button>; ``opts.wildRank`` marks wild cards.
 * Ranks and suit symbols are printed the same in every language; the corner sits at the inline start,
 * the edge that stays in view when cards overlap (the left in English, the right in Persian).
 */
export function cardEl(text, opts = {}) {
  const card = parseCard(text);
  const wild = isWild(text, opts.wildRank);
  const classes = ['card', card.joker ? 'joker' : RED.has(card.suit) ? 'red' : 'black'];
  if (card.suit) classes.push(`suit-${card.suit}`); // the four-colour deck (app.css) colours by suit
  if (wild) classes.push('wild');
  if (opts.small) classes.push('small');
  if (opts.extraClass) classes.push(opts.extraClass);
  const tag = opts.button ? 'button' : 'div';
  const symbol = card.joker ? '★' : SUIT_SYMBOLS[card.suit];
  const rank = card.joker ? 'JK' : card.rank;
  const attrs = {
    class: classes.join(' '),
    dataset: { card: text },
    'aria-label': cardLabel(text, opts.wildRank),
  };
  if (opts.button) attrs.type = 'button';
  else attrs.role = 'img';
  return h(
    tag,
    attrs,
    h('span.corner', { 'aria-hidden': 'true' }, h('span.rank', { class: rank.length > 1 ? 'ten' : '' }, rank), h('span.suit', {}, symbol)),
    h('span.pip', { 'aria-hidden': 'true' }, symbol),
    wild ? h('span.wild-badge', { 'aria-hidden': 'true' }, t('wild_short')) : null,
  );
}

/** A face-down card (the stock). */
export function cardBack(opts = {}) {
  return h(opts.button ? 'button' : 'div', {
    class: 'card back' + (opts.small ? ' small' : ''),
    type: opts.button ? 'button' : null,
    'aria-hidden': opts.button ? null : 'true',
  });
}
