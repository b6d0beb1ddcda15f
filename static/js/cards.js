// Playing cards in the page: parsing the wire text ('10H', 'JK') and accessible labels (card-template.js draws
// them).
import { cardLabelWords, num, t } from './i18n.js';
import './i18n-table.js';

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
