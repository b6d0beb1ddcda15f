// What the host does to other seats and after a game: hand a person's seat to a bot, hand the host role
// over (each asked first, in the page), the box at the table that gathers those, and what the table shows
// once the game is over (Play again, or waiting for the host; the final scores; the history).
import { html, nothing } from '../html.js';
import { repeat } from '../html-directives.js';
import { t } from '../i18n.js';
import { config } from '../config.js';
import { confirmDialog } from './confirm.js';
import { botIcon, displayName, historyLink, seatName, winnersLine } from './widgets.js';
import '../i18n-table.js';

/** Make ``seat`` ({seat, name, bot}) the host, once the host says yes. */
export function makeHostButton(seat, actions, className = 'secondary small') {
  const name = displayName(seat);
  const ask = async () => {
    const sure = await confirmDialog({
      title: t('make_host_title', { name }), message: t('make_host_text', { name }),
      confirm: t('make_host'), testid: 'confirm-host',
    });
    if (sure) actions.send({ type: 'make_host', seat: seat.seat });
  };
  return html`<button type="button" class=${className} data-testid=${`make-host-${seat.seat}`} data-key=${`make-host-${seat.seat}`}
    aria-label=${t('make_host_named', { name })} @click=${ask}>${t('make_host')}</button>`;
}

/** Let a bot play a person's seat, once the host says yes: a button with words, not only a robot. */
export function handToBotButton(seat, actions) {
  const name = displayName(seat);
  const ask = async () => {
    const sure = await confirmDialog({
      title: t('hand_to_bot_title', { name }), message: t('hand_to_bot_text', { name }),
      confirm: t('hand_to_bot'), danger: true, testid: 'confirm-bot',
    });
    if (sure) actions.send({ type: 'bot_seat', seat: seat.seat, level: config.default_bot_level });
  };
  return html`<button type="button" class="secondary small bot-seat" data-testid=${`bot-seat-${seat.seat}`}
    data-key=${`bot-seat-${seat.seat}`} aria-label=${t('hand_to_bot_named', { name })} @click=${ask}>${botIcon()}<span>${
    t('hand_to_bot')}</span></button>`;
}

/** At the table, for the host: every other person's seat with its two controls (folded away). */
export function hostBox(ctx, actions) {
  if (!ctx.isHost) return nothing;
  const others = ctx.room.seats.filter((s) => s.seat !== ctx.room.host_seat && !s.bot);
  if (!others.length) return nothing;
  const toggled = (event) => { if (event.currentTarget.open !== ctx.hostBoxOpen) actions.setHostBoxOpen(event.currentTarget.open); };
  return html`<details class="host-box" data-testid="host-controls" ?open=${ctx.hostBoxOpen} @toggle=${toggled}><summary>${
    t('host_controls')}</summary><p class="hint">${t('host_controls_hint')}</p><ul class="host-seats">${repeat(others, (s) => s.seat,
    (s) => html`<li class="host-seat" data-testid=${`host-seat-${s.seat}`}><span class="name" dir="auto">${displayName(s)}</span><span
    class="spacer"></span>${handToBotButton(s, actions)}${makeHostButton(s, actions)}</li>`)}</ul></details>`;
}

/** Where the hand was, once the game is over: Play again (host) or waiting, the final scores, history. */
export function gameOverPanel(ctx, actions) {
  const game = ctx.game;
  const winners = winnersLine((game.winners ?? []).map((s) => seatName(ctx.room.seats, s)));
  const next = ctx.room.status !== 'finished' ? nothing
    : ctx.isHost
      ? html`<div class="row"><button type="button" class="primary big" data-testid="play-again" data-key="play-again"
        @click=${() => actions.send({ type: 'rematch' })}>${t('rematch')}</button><button type="button" class="secondary"
        data-testid="reopen" data-key="reopen" @click=${() => actions.send({ type: 'reopen' })}>${t('reopen')}</button></div>`
      : html`<p class="notice" data-testid="waiting-rematch" role="status">${
        t('waiting_rematch_named', { name: seatName(ctx.room.seats, ctx.room.host_seat) })}</p>`;
  // The history link under the finished game has its own test id (the game-over dialog has one too).
  return html`<section class="game-over-panel" data-testid="game-over-panel" aria-labelledby="game-over-title"><h2
    id="game-over-title">${t('game_over')}</h2><p class="winner-line"><span class="crown" aria-hidden="true">♛ </span>${winners}</p>${
    next}<div class="row"><button type="button" class="secondary" data-testid="final-scores" data-key="final-scores"
    @click=${() => actions.showScores()}>${t('final_scores')}</button>${
    historyLink(ctx.room.code, actions, 'secondary history-link', 'table-history')}</div></section>`;
}
