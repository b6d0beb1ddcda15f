// Pieces drawn alike on the live table, its dialogs and the replay viewer: names, bot icon, piles, meld
// groups, the score sheet, the winners line and the link to a table's history.
import { cardLabel } from '../cards.js';
import { cardBackTemplate, cardTemplate } from '../card-template.js';
import { html, nothing } from '../html.js';
import { cardCount, num, t } from '../i18n.js';
import { displayName } from './faces.js';
import { pageLink } from './standings-links.js';
import '../i18n-table.js';

export { botIcon, displayName, nameLabel } from './faces.js';

/** A link to the table's history page (games played there, leaderboard, replays). */
export function historyLink(code, actions, className = 'link history-link', testid = 'history-link') {
  return pageLink(`/r/${code}/history`, actions, { class: className, testid }, t('history'));
}

/** The name of ``seat`` among ``seats`` ([{seat, name, bot}]). */
export function seatName(seats, seat) {
  const info = seats.find((s) => s.seat === seat);
  return info ? displayName(info) : `#${num(seat + 1)}`;
}

/** 'Sara wins!' / 'Sara and Omid share the win!' */
export function winnersLine(names) {
  const text = names.join(t('and'));
  return names.length > 1 ? t('wins_many', { names: text }) : t('wins', { names: text });
}

/** Seats with the lowest total (the leaders, or the winners at the end). */
export function lowest(totals) {
  if (!totals.length) return new Set();
  const low = Math.min(...totals);
  return new Set(totals.map((v, i) => (v === low ? i : -1)).filter((i) => i >= 0));
}

/**
 * The stock and the discard pile (face up, no buttons: the replay's; the live table draws its own).
 * ``pile``: {stock_count, discard_top, discard_count, wild_rank, thrown}; ``prefix`` for test ids.
 */
export function piles(pile, prefix = '') {
  const discard = pile.discard_top
    ? cardTemplate(pile.discard_top, { wildRank: pile.wild_rank, extraClass: pile.thrown ? 'just-thrown' : null, testid: `${prefix}discard` })
    : html`<div class="card empty" role="img" aria-label=${t('discard_empty')} data-testid=${`${prefix}discard`}></div>`;
  // The word and the count on lines of their own: a dot between them reads as a zero in Persian.
  return html`<div class="piles"><div class="pile">${cardBackTemplate({ testid: `${prefix}stock` })}<span class="pile-label"
    data-testid=${`${prefix}stock-label`}><span class="pile-name">${t('stock')}</span><span class="pile-count">${
    t('left', { n: pile.stock_count })}</span></span></div><div class="pile">${discard}<span class="pile-label"
    data-testid=${`${prefix}discard-label`}><span class="pile-name">${t('discard_pile')}</span><span class="pile-count">${
    cardCount(pile.discard_count)}</span></span></div></div>`;
}

/** A hand's melds then its unmelded cards: [{kind: 'set'|'run'|'deadwood', cards, penalty?}]. */
export function groupsOf(arrangement) {
  const groups = arrangement.melds.map((m) => ({ kind: m.kind, cards: m.cards }));
  if (arrangement.deadwood.length) groups.push({ kind: 'deadwood', cards: arrangement.deadwood, penalty: arrangement.penalty });
  return groups;
}

/** The words over a group of cards ('Run', 'Unmelded <12 pts>'); none for an ungrouped hand. */
export function groupLabel(group) {
  if (group.kind === 'all') return null;
  if (group.kind !== 'deadwood') return t(group.kind);
  return html`${t('unmelded')} <span class="label-count">${t('points', { n: group.penalty })}</span>`;
}

/**
 * Groups of face-up cards (no buttons): the replay's open hands and the round's reveal.
 * ``opts``: {wildRank, small, labels (default true), mark(card) -> extra class or null}.
 */
export function meldGroups(groups, opts = {}) {
  return groups.map((group) => html`<div class=${`group group-${group.kind}`} data-kind=${group.kind}>${opts.labels === false
    ? nothing : html`<span class="group-label">${groupLabel(group)}</span>`}<div class="cards">${group.cards.map((card) => cardTemplate(card, {
    wildRank: opts.wildRank, small: opts.small, extraClass: opts.mark?.(card, group) ?? null,
  }))}</div></div>`);
}

/**
 * The score sheet: rounds down, players across, totals at the foot, the leaders (or winners) marked.
 * ``sheet``: {players: [{seat, name, bot}], scores, totals, rounds: [{wild_rank, went_out}], testid,
 * nameLink(player) -> a link for the name over its column, or null for the plain name}.
 */
export function scoreSheet(sheet) {
  const lead = sheet.scores.length ? lowest(sheet.totals) : new Set();
  const cls = (on) => (on ? 'leader' : nothing);
  return html`<table class="score-sheet" data-testid=${sheet.testid ?? 'score-sheet'}><caption>${t('score_sheet')}</caption><thead><tr><th
    scope="col">${t('round_col')}</th>${sheet.players.map((p) => html`<th scope="col" class=${cls(lead.has(p.seat))}>${lead.has(p.seat)
    ? html`<span class="crown" aria-label=${t('leader')}>♛ </span>` : nothing}${sheet.face?.(p) ?? nothing}${sheet.nameLink?.(p)
    ?? html`<span dir="auto">${displayName(p)}</span>`}</th>`)}</tr></thead><tbody>${sheet.scores.map((row, r) => {
    const info = sheet.rounds[r];
    return html`<tr><th scope="row">${num(r + 1)}<span class="wild-mini">${` (${num(info?.wild_rank ?? '')})`}</span></th>${row.map((v, s) => html`<td
      class=${info?.went_out === s ? 'went-out' : v === 0 ? 'zero' : nothing}>${num(v)}</td>`)}</tr>`;
  })}</tbody><tfoot><tr><th scope="row">${t('total')}</th>${sheet.totals.map((v, s) => html`<td class=${cls(lead.has(s))}>${num(v)}</td>`)
  }</tr></tfoot></table>`;
}

/** Show or hide a sheet box's cue: shown while the sheet has more to see at its end. */
function cue(wrap) {
  const mark = wrap.nextElementSibling;
  if (!mark) return;
  const left = Math.abs(wrap.scrollLeft); // negative in right-to-left pages
  mark.hidden = !(wrap.scrollWidth > wrap.clientWidth + 2 && left + wrap.clientWidth < wrap.scrollWidth - 2);
}

/**
 * A score sheet in a box that scrolls sideways when the columns do not fit (eight players on a phone), with
 * a cue at the end while there is more to see (fitCues() sets it once the box is drawn, scrolling after).
 */
export function sheetBox(table) {
  return html`<div class="sheet-box"><div class="sheet-wrap" @scroll=${(e) => cue(e.currentTarget)}>${table}</div><span
    class="scroll-cue" aria-hidden="true" data-testid="scroll-cue" hidden>${t('scroll_more')}</span></div>`;
}

/** The sheet boxes under ``root`` set their cue, once laid out (a view calls it after drawing them). */
export function fitCues(root) {
  requestAnimationFrame(() => { for (const wrap of root.querySelectorAll('.sheet-box > .sheet-wrap')) cue(wrap); });
}
