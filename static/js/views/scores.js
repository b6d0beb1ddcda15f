// Round-end reveal, the score sheet (rounds x players, totals, leader) and the game's end with a rematch.
// The dialog is made once when it opens; what it shows is a lit-html template drawn on every change (people
// pressing Continue, the countdown): the button that has the keyboard and the reader's place stay as they are.
import { html, nothing, render } from '../html.js';
import { t } from '../i18n.js';
import { pauseLeft, pausing } from '../pause.js';
import { avatarEl, nameTemplate } from '../avatars.js';
import { keepLink, playerLink, standingsLink } from './standings-links.js';
import { fitCues, historyLink, meldGroups, scoreSheet, sheetBox, seatName as nameAmong, winnersLine } from './widgets.js';
import '../i18n-standings.js';
import '../i18n-table.js';

const seatName = (ctx, seat) => nameAmong(ctx.room.seats, seat);

/**
 * The live game's score sheet; a person's name opens their standings (in a new tab while the game is played,
 * so the table stays open; in this one once it is over). Bots and programs have none.
 */
export function liveScoreSheet(ctx, actions) {
  const game = ctx.game;
  const players = game.players.map((p) => ctx.room.seats.find((s) => s.seat === p.seat) ?? { seat: p.seat, name: `#${p.seat + 1}` });
  const newTab = game.phase !== 'game_over';
  const nameLink = (p) => (p.bot || p.program || !p.name ? null
    : playerLink(p.name, actions, { newTab, testid: `standings-of-${p.seat}` }));
  return scoreSheet({ players, scores: game.scores, totals: game.totals, rounds: game.results, nameLink, face: avatarEl });
}

function roundReveal(ctx, result, heading) {
  return html`<div class="reveal" data-testid="reveal">${heading ? html`<h3>${t('round_over', { n: result.round })}</h3>` : nothing}<p
    class="went-out-line">${result.went_out === null ? t('turn_limit_reached') : t('went_out_by', { name: seatName(ctx, result.went_out) })
    }</p><ul class="reveal-hands">${result.hands.map((hand) => html`<li class=${hand.seat === result.went_out ? 'reveal-hand out' : 'reveal-hand'}
    ><div class="reveal-head"><span class="name" dir="auto">${seatName(ctx, hand.seat)}</span><span class="spacer"></span><span
    class="penalty">${t('points', { n: hand.penalty })}</span></div><div class="reveal-melds">${meldGroups(
    [...hand.melds.map((m) => ({ kind: m.kind, cards: m.cards })), ...(hand.deadwood.length ? [{ kind: 'deadwood', cards: hand.deadwood }] : [])],
    { wildRank: result.wild_rank, small: true, labels: false, mark: (_card, group) => (group.kind === 'deadwood' ? 'dead' : 'meld') },
  )}</div></li>`)}</ul></div>`;
}

/** The people the pause waits for (here now, or ready already), each marked ready or not. */
function readyList(ctx) {
  const ready = new Set(ctx.room.continued ?? []);
  const people = ctx.room.seats.filter((s) => !s.bot && !s.program && (s.connected || ready.has(s.seat)));
  return html`<ul class="ready-list" aria-label=${t('break_players')} data-testid="ready-list">${people.map((s) => {
    const isReady = ready.has(s.seat);
    return html`<li class=${isReady ? 'ready' : 'waiting'} data-testid=${`ready-${s.seat}`} data-ready=${isReady ? '1' : '0'}><span
      class="mark" aria-hidden="true">${isReady ? '✓' : '○'}</span>${nameTemplate(s)}<span class="state">${
      isReady ? t('break_ready') : t('break_waiting')}</span></li>`;
  })}</ul>`;
}

/** The countdown to the next round, under the dialog's title (app.js draws the page again each second). */
function pauseCountdown(ctx) {
  return html`<p class="pause-countdown" role="timer" data-testid="pause-left">${t('break_next_in', { n: pauseLeft(ctx.pause) })}</p>`;
}

/** Who has read the results, and what pressing Continue did; kept in view under the long reveal. */
function pauseFoot(ctx, buttons) {
  return html`<div class="pause-foot" data-testid="pause">${readyList(ctx)}${ctx.pause.sent
    ? html`<p class="hint pause-note" role="status">${t('break_you_ready')}</p>` : nothing}${buttons}</div>`;
}

/**
 * Give the keyboard back to ``el`` (what had it before a dialog opened) if it is still on the page, or to
 * the element drawn in its place (same ``data-key``); false when neither is there.
 */
function giveFocusBack(el) {
  if (!el || el === document.body) return false;
  const target = el.isConnected ? el
    : el.dataset?.key ? document.querySelector(`#main [data-key="${CSS.escape(el.dataset.key)}"]`) : null;
  target?.focus({ preventScroll: true });
  return !!target && document.activeElement === target;
}

/**
 * The dialog, made once: a native modal <dialog> (the page behind it is inert, so Tab stays inside; Escape
 * closes it through ``actions.closeOverlay``); on close the keyboard goes back where it was.
 */
function makeDialog(container, actions) {
  const dialog = document.createElement('dialog');
  dialog.className = 'dialog';
  dialog.setAttribute('aria-labelledby', 'dialog-title');
  dialog.returnTo = document.activeElement;
  dialog.addEventListener('cancel', (event) => {
    event.preventDefault(); // the page's state says when it closes
    if (dialog.isConnected) actions.closeOverlay();
  });
  // The page behind is inert, but Tab past the last control would leave for the browser's own bar: wrap.
  dialog.addEventListener('keydown', (event) => {
    if (event.key !== 'Tab') return;
    const stops = [...dialog.querySelectorAll('button, a[href], input, select, textarea, [tabindex]:not([tabindex="-1"])')]
      .filter((el) => !el.disabled && el.getClientRects().length);
    if (!stops.length) return;
    const edge = event.shiftKey ? stops[0] : stops[stops.length - 1];
    if (document.activeElement === edge || !dialog.contains(document.activeElement)) {
      event.preventDefault();
      (event.shiftKey ? stops[stops.length - 1] : stops[0]).focus();
    }
  });
  dialog.addEventListener('click', (event) => {
    if (event.target !== dialog) return;
    const box = dialog.getBoundingClientRect();
    const inside = event.clientX >= box.left && event.clientX <= box.right && event.clientY >= box.top && event.clientY <= box.bottom;
    if (!inside) actions.closeOverlay(); // a click on the backdrop
  });
  container.replaceChildren(dialog);
  return dialog;
}

function dialogTemplate(ctx, actions) {
  const overlay = ctx.overlay;
  const game = ctx.game;
  const paused = pausing(ctx) && overlay.kind === 'round' && !!ctx.room.break_until;
  const over = game.phase === 'game_over';
  // A view carries the revealed hands of the last finished round only (older ones: the history API).
  const last = game.last_result;
  const result = overlay.kind === 'round' && last && last.round === overlay.index + 1 ? last : null;
  const title = over ? t('game_over')
    : result ? t('round_over', { n: result.round }) : t('score_sheet');
  // During the pause Continue says "I have read them" and the results stay up until the next round starts.
  const waiting = paused && ctx.pause.sent;
  const close = html`<button type="button" class=${waiting ? 'secondary' : 'primary'} data-testid="continue"
    @click=${() => (paused && !waiting && ctx.seat !== null ? actions.continueRound() : actions.closeOverlay())}
    >${over || !result || waiting ? t('close') : t('continue')}</button>`;
  const finished = over && ctx.room.status === 'finished';
  const rematch = finished
    ? ctx.isHost
      ? html`<button type="button" class="primary big" data-testid="rematch" @click=${() => actions.send({ type: 'rematch' })}
        >${t('rematch')}</button>`
      : html`<p class="notice">${t('waiting_rematch')}</p>`
    : nothing;
  const mine = ctx.seat === null ? null : ctx.room.seats.find((s) => s.seat === ctx.seat);
  const keep = mine && !mine.bot && !mine.program && mine.name ? keepLink(mine.name, actions) : nothing;
  const links = over ? html`${historyLink(ctx.room.code, actions, 'secondary')}${standingsLink(actions, 'secondary')}${keep}` : nothing;
  const buttons = html`<div class="row end">${links}${rematch}${close}</div>`;
  const sheet = sheetBox(liveScoreSheet(ctx, actions));
  const reveal = result ? roundReveal(ctx, result, over) : nothing;
  return html`<h2 id="dialog-title">${title}</h2>${paused ? pauseCountdown(ctx) : nothing}${over
    ? html`<p class="winner" data-testid="winner"><span class="crown" aria-hidden="true">♛ </span>${
      winnersLine((game.winners ?? []).map((s) => seatName(ctx, s)))}</p>` : nothing}${
    // At the end the totals come first; after a round, the hands that made its scores.
    over ? sheet : nothing}${reveal}${over ? nothing : sheet}${paused ? pauseFoot(ctx, buttons) : buttons}`;
}

/** Draw the overlay the state asks for into ``container`` (nothing: closed, the keyboard given back). */
export function renderOverlay(container, ctx, actions) {
  let dialog = container.querySelector('dialog');
  if (!ctx.overlay || !ctx.game) {
    if (!dialog) return false;
    container.replaceChildren();
    return giveFocusBack(dialog.returnTo);
  }
  const fresh = !dialog;
  if (fresh) dialog = makeDialog(container, actions);
  render(dialogTemplate(ctx, actions), dialog);
  fitCues(dialog);
  if (fresh) {
    dialog.showModal();
    (dialog.querySelector('[data-testid=rematch]') ?? dialog.querySelector('[data-testid=continue]')).focus({ preventScroll: true });
  }
  return false;
}
