// Pieces drawn alike on the live table, its dialogs and the replay viewer: names, bot icon, piles, meld
// groups, the score sheet, the winners line and the link to a table's history.
import { cardBack, cardEl, cardLabel } from '../cards.js';
import { h } from '../dom.js';
import { cardCount, num, t } from '../i18n.js';
import { displayName } from './faces.js';

export { botIcon, displayName, nameLabel } from './faces.js';

/** A link to the table's history page (games played there, leaderboard, replays). */
export function historyLink(code, actions, tag = 'a.link.history-link') {
  const path = `/r/${code}/history`;
  return h(tag, {
    href: path, 'data-testid': 'history-link',
    onclick: (e) => { e.preventDefault(); actions.navigate(path); },
  }, t('history'));
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
 * The stock and the discard pile. ``pile``: {stock_count, discard_top, discard_count, wild_rank, thrown};
 * ``play`` (the live table only): {canStock, canDiscard, onStock(), onDiscard(), onBlocked()}; ``prefix``
 * for test ids.
 */
export function piles(pile, play = null, prefix = '') {
  const stock = cardBack({ button: !!play });
  let discard;
  if (pile.discard_top) {
    discard = cardEl(pile.discard_top, { button: !!play, wildRank: pile.wild_rank, extraClass: pile.thrown ? 'just-thrown' : null });
    if (play) discard.setAttribute('aria-label', t('discard_label', { card: cardLabel(pile.discard_top, pile.wild_rank) }));
  } else {
    discard = h(play ? 'button.card.empty' : 'div.card.empty', { type: play ? 'button' : null, role: play ? null : 'img', 'aria-label': t('discard_empty') });
  }
  if (play) {
    stock.dataset.key = 'stock';
    stock.setAttribute('aria-label', t('stock_label', { n: pile.stock_count }));
    discard.dataset.key = 'discard';
    for (const [el, can, onPlay] of [[stock, play.canStock, play.onStock], [discard, play.canDiscard, play.onDiscard]]) {
      if (can) el.classList.add('ready');
      else el.setAttribute('aria-disabled', 'true');
      el.addEventListener('click', () => { if (can) onPlay(); else play.onBlocked?.(); });
    }
  }
  stock.dataset.testid = `${prefix}stock`;
  discard.dataset.testid = `${prefix}discard`;
  // The word and the count on lines of their own: a dot between them reads as a zero in Persian.
  return h('div.piles', {},
    h('div.pile', {}, stock, h('span.pile-label', { 'data-testid': `${prefix}stock-label` },
      h('span.pile-name', {}, t('stock')), h('span.pile-count', {}, t('left', { n: pile.stock_count })))),
    h('div.pile', {}, discard, h('span.pile-label', { 'data-testid': `${prefix}discard-label` },
      h('span.pile-name', {}, t('discard_pile')), h('span.pile-count', {}, cardCount(pile.discard_count)))));
}

/** A hand's melds then its unmelded cards: [{kind: 'set'|'run'|'deadwood', cards, penalty?}]. */
export function groupsOf(arrangement) {
  const groups = arrangement.melds.map((m) => ({ kind: m.kind, cards: m.cards }));
  if (arrangement.deadwood.length) groups.push({ kind: 'deadwood', cards: arrangement.deadwood, penalty: arrangement.penalty });
  return groups;
}

/** The words over a group of cards (['Run'], ['Unmelded', <12 pts>]); none for an ungrouped hand. */
export function groupLabel(group) {
  if (group.kind === 'all') return null;
  if (group.kind !== 'deadwood') return [t(group.kind)];
  return [t('unmelded'), ' ', h('span.label-count', {}, t('points', { n: group.penalty }))];
}

/**
 * Groups of face-up cards (no buttons): the replay's open hands and the round's reveal.
 * ``opts``: {wildRank, small, labels (default true), mark(card) -> extra class or null}.
 */
export function meldGroups(groups, opts = {}) {
  return groups.map((group) => h('div.group', { class: `group-${group.kind}`, dataset: { kind: group.kind } },
    opts.labels === false ? null : h('span.group-label', {}, ...groupLabel(group)),
    h('div.cards', {}, group.cards.map((card) => cardEl(card, {
      wildRank: opts.wildRank, small: opts.small, extraClass: opts.mark?.(card, group) ?? null,
    })))));
}

/**
 * The score sheet: rounds down, players across, totals at the foot, the leaders (or winners) marked.
 * ``sheet``: {players: [{seat, name, bot}], scores, totals, rounds: [{wild_rank, went_out}], testid,
 * nameLink(player) -> a link for the name over its column, or null for the plain name}.
 */
export function scoreSheet(sheet) {
  const lead = sheet.scores.length ? lowest(sheet.totals) : new Set();
  return h('table.score-sheet', { 'data-testid': sheet.testid ?? 'score-sheet' },
    h('caption', {}, t('score_sheet')),
    h('thead', {}, h('tr', {},
      h('th', { scope: 'col' }, t('round_col')),
      sheet.players.map((p) => h('th', { scope: 'col', class: lead.has(p.seat) ? 'leader' : '' },
        lead.has(p.seat) ? h('span.crown', { 'aria-label': t('leader') }, '♛ ') : null,
        sheet.face?.(p), sheet.nameLink?.(p) ?? h('span', { dir: 'auto' }, displayName(p)))))),
    h('tbody', {}, sheet.scores.map((row, r) => {
      const info = sheet.rounds[r];
      return h('tr', {},
        h('th', { scope: 'row' }, num(r + 1), h('span.wild-mini', {}, ` (${num(info?.wild_rank ?? '')})`)),
        row.map((v, s) => h('td', { class: info?.went_out === s ? 'went-out' : v === 0 ? 'zero' : '' }, num(v))));
    })),
    h('tfoot', {}, h('tr', {},
      h('th', { scope: 'row' }, t('total')),
      sheet.totals.map((v, s) => h('td', { class: lead.has(s) ? 'leader' : '' }, num(v))))));
}

/**
 * A score sheet in a box that scrolls sideways when the columns do not fit (eight players on a phone), with
 * a cue at the end while there is more to see.
 */
export function sheetBox(table) {
  const wrap = h('div.sheet-wrap', {}, table);
  const cue = h('span.scroll-cue', { 'aria-hidden': 'true', 'data-testid': 'scroll-cue', hidden: true }, t('scroll_more'));
  const update = () => {
    const left = Math.abs(wrap.scrollLeft); // negative in right-to-left pages
    cue.hidden = !(wrap.scrollWidth > wrap.clientWidth + 2 && left + wrap.clientWidth < wrap.scrollWidth - 2);
  };
  wrap.addEventListener('scroll', update, { passive: true });
  requestAnimationFrame(update); // once it is laid out
  return h('div.sheet-box', {}, wrap, cue);
}
