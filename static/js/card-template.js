// A face-up card as a lit-html template, as cards.js's cardEl draws it (the live table's hand and discard pile).
import { cardLabel, isWild, parseCard, RED, SUIT_SYMBOLS } from './cards.js';
import { html, nothing } from './html.js';
import { t } from './i18n.js';
import './i18n-table.js';

/**
 * A face-up card as a template, as cardEl draws it. ``opts``: {button, wildRank, small, extraClass (classes),
 * label (the accessible name, by default cardLabel's), disabled, pressed, testid, key (data-key), index, onclick}.
 */
export function cardTemplate(text, opts = {}) {
  const card = parseCard(text);
  const wild = isWild(text, opts.wildRank);
  const classes = ['card', card.joker ? 'joker' : RED.has(card.suit) ? 'red' : 'black'];
  if (card.suit) classes.push(`suit-${card.suit}`);
  if (wild) classes.push('wild');
  if (opts.small) classes.push('small');
  if (opts.extraClass) classes.push(opts.extraClass);
  const symbol = card.joker ? '★' : SUIT_SYMBOLS[card.suit];
  const rank = card.joker ? 'JK' : card.rank;
  const face = html`<span class="corner" aria-hidden="true"><span class=${rank.length > 1 ? 'rank ten' : 'rank'}
    >${rank}</span><span class="suit">${symbol}</span></span><span class="pip" aria-hidden="true">${symbol}</span>${wild
    ? html`<span class="wild-badge" aria-hidden="true">${t('wild_short')}</span>` : nothing}`;
  const label = opts.label ?? cardLabel(text, opts.wildRank);
  if (!opts.button) return html`<div class=${classes.join(' ')} data-card=${text} aria-label=${label} role="img">${face}</div>`;
  return html`<button type="button" class=${classes.join(' ')} data-card=${text} aria-label=${label}
    data-testid=${opts.testid ?? nothing} data-key=${opts.key ?? nothing} data-index=${opts.index ?? nothing}
    aria-disabled=${opts.disabled ? 'true' : nothing} aria-pressed=${opts.pressed ? 'true' : nothing}
    @click=${opts.onclick ?? nothing}>${face}</button>`;
}

/** A face-down card (the stock): ``opts`` {small, testid}; hidden from screen readers (its pile is named). */
export function cardBackTemplate(opts = {}) {
  return html`<div class=${opts.small ? 'card back small' : 'card back'} aria-hidden="true"
    data-testid=${opts.testid ?? nothing}></div>`;
}
