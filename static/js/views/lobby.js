// The lobby: seats, presence, host controls, link to share (a room link's join form is views/join.js).
// Drawn with lit-html on every change (a presence change, a ready, a new seat): the seats are kept by seat,
// so the host's controls, a menu or a button being pressed keep the keyboard; what the viewer picked or opened
// lives in the state (botLevel, rulesOpen), changed through actions.
import { html, nothing, render } from '../html.js';
import { live, repeat } from '../html-directives.js';
import { num, t } from '../i18n.js';
import '../i18n-standings.js';
import { config, seatCounts } from '../config.js';
import { optionRows } from './options.js';
import { askPanel, seatRequestControls } from './seatask.js';
import { shareBox } from './share.js';
import { confirmDialog } from './confirm.js';
import { makeHostButton } from './host.js';
import { leaveButton } from './leave.js';
import { displayName, historyLink } from './widgets.js';
import { standingsLink } from './standings-links.js';
import { avatarPicker, avatarTemplate, nameTemplate } from '../avatars.js';
import { coachOn } from './coach.js';
import '../i18n-table.js';

async function removeSeat(seat, actions) {
  const name = displayName(seat);
  const sure = await confirmDialog({
    title: t(seat.bot ? 'remove_bot_title' : 'remove_title', { name }),
    message: t(seat.bot ? 'remove_bot_text' : 'remove_text', { name }),
    confirm: t('remove'), danger: true, testid: 'confirm-remove',
  });
  if (sure) actions.send({ type: 'remove_seat', seat: seat.seat });
}

function seatRow(ctx, actions, seat) {
  const you = seat.seat === ctx.seat;
  const host = seat.seat === ctx.room.host_seat;
  const ready = (ctx.room.ready ?? []).includes(seat.seat);
  const presence = seat.connected ? 'online' : 'offline';
  const tag = (text) => html`<span class="tag">${text}</span>`;
  return html`<li class=${you ? 'seat-row you' : 'seat-row'} data-testid=${`seat-${seat.seat}`}><span class=${`presence ${presence}`}
    role="img" aria-label=${t(presence)}></span><span class="seat-no" aria-hidden="true">${num(seat.seat + 1)}</span>${
    avatarTemplate(seat)}${nameTemplate(seat)}${you ? tag(t('you')) : nothing}${
    host ? html`<span class="tag gold">${t('host')}</span>` : nothing}${seat.bot ? tag(t(`bot_${seat.bot_level}`)) : nothing}${
    seat.practice ? html`<span class="tag practice" data-testid=${`practice-${seat.seat}`} role="img"
      aria-label=${t('practice_named', { name: displayName(seat) })}>${t('practice_tag')}</span>` : nothing}${
    ready ? html`<span class="tag ready" data-testid=${`ready-${seat.seat}`} role="img"
      aria-label=${t('ready_named', { name: displayName(seat) })}>✓ ${t('ready_tag')}</span>` : nothing}<span class="spacer"></span>${
    ctx.isHost && !host && !seat.bot
      ? makeHostButton(seat, actions, 'link') : nothing}${
    seatRequestControls(ctx, seat, actions)}${
    ctx.isHost && !host
      ? html`<button type="button" class="link danger" data-key=${`remove-${seat.seat}`} data-testid=${`remove-${seat.seat}`}
        aria-label=${t('remove_named', { name: displayName(seat) })} @click=${() => removeSeat(seat, actions)}>${t('remove')}</button>`
      : nothing}</li>`;
}

/** Your own seat plays for practice (not counted in the standings) or not; fixed when the game starts. */
function practiceSwitch(ctx, actions) {
  const mine = ctx.room.seats.find((s) => s.seat === ctx.seat);
  if (!mine || mine.bot || mine.program || ctx.room.status !== 'lobby') return nothing;
  return html`<label class="practice-toggle"><input class="switch" type="checkbox" role="switch" .checked=${live(!!mine.practice)}
    data-testid="practice" data-key="practice" @change=${(event) => actions.send({ type: 'practice', on: event.currentTarget.checked })}
    ><span>${t('practice_label')}</span></label>`;
}

/** A seated person with the coach on, at a table where it would not work (hints off, not practising): said
 * before the game starts (once it starts neither can change), with the one change that makes it work. */
function coachWarning(ctx, actions) {
  const room = ctx.room;
  const mine = room.seats.find((s) => s.seat === ctx.seat);
  if (!mine || mine.bot || mine.program || room.status !== 'lobby' || !coachOn() || room.options?.hints || mine.practice) {
    return nothing;
  }
  const fix = ctx.isHost
    ? html`<button type="button" class="primary small" data-testid="coach-hints-on" data-key="coach-hints-on"
      @click=${() => actions.send({ type: 'set_options', options: { hints: true } })}>${t('coach_hints_button')}</button>`
    : html`<button type="button" class="secondary small" data-testid="coach-practice" data-key="coach-practice"
      @click=${() => actions.send({ type: 'practice', on: true })}>${t('coach_practice_button')}</button>`;
  return html`<div class="notice coach-warning" role="status" data-testid="coach-warning"><p>${
    t(ctx.isHost ? 'coach_lobby_host' : 'coach_lobby_guest')}</p>${fix}</div>`;
}

function hostControls(ctx, actions, open) {
  const room = ctx.room;
  if (!ctx.isHost || room.status !== 'lobby') return nothing;
  const level = ctx.botLevel ?? config.default_bot_level;
  return html`<div class="host-controls"><div class="field inline"><label for="lobby-seats">${t('seats')}</label><select
    id="lobby-seats" data-key="lobby-seats" @change=${(event) => actions.send({ type: 'set_options', seats: Number(event.currentTarget.value) })}
    >${seatCounts(room.seats.length).map((n) => html`<option value=${String(n)} .selected=${live(n === room.seat_count)}>${num(n)}</option>`)
    }</select></div>${open > 0 ? html`<div class="inline"><select aria-label=${t('bot_level')} data-key="bot-level"
    @change=${(event) => actions.setBotLevel(event.currentTarget.value)}>${config.bot_levels.map((l) => html`<option value=${l}
    .selected=${live(l === level)}>${t(`bot_${l}`)}</option>`)}</select><button type="button" class="secondary" data-key="add-bot"
    @click=${() => actions.send({ type: 'add_bot', level })}>+ ${t('add_bot')}</button></div>` : nothing}<button type="button"
    class="primary big" data-testid="start" data-key="start" ?disabled=${room.seats.length < config.seats.min}
    @click=${() => actions.send({ type: 'start' })}>${t('start')}</button></div>`;
}

function lobbyTemplate(ctx, actions) {
  const room = ctx.room;
  const open = Math.max(0, room.seat_count - room.seats.length);
  const openSeats = Array.from({ length: open }, () => html`<li class="seat-row open"><span class="presence none"></span>${t('open_seat')}</li>`);
  // The ready check: each person but the host says they are in; the host reads who is (it does not hold the
  // start, and the host has no "I'm in" to press, so is not counted).
  const people = room.seats.filter((s) => !s.bot && !s.program && s.seat !== room.host_seat);
  const readyNow = people.filter((s) => (room.ready ?? []).includes(s.seat));
  const iAmReady = (room.ready ?? []).includes(ctx.seat);
  const readyLine = people.length
    ? html`<p class="hint" data-testid="ready-count" role="status">${t('ready_count', { n: num(readyNow.length), m: num(people.length) })}</p>`
    : nothing;
  const status = ctx.seat === null
    ? html`<div class="notice" data-testid="watching">${t('watching')} ${open > 0
      ? html`<button type="button" class="link" @click=${() => actions.askJoin()}>${t('join_this')}</button>` : nothing}</div>`
    : ctx.isHost ? nothing
      : iAmReady ? html`<p class="notice" data-testid="you-are-ready">${t('you_are_ready')}</p>`
        : html`<div class="row"><p class="notice">${t('waiting_host')}</p><button type="button" class="primary" data-testid="ready"
          data-key="ready" @click=${() => actions.send({ type: 'ready' })}>${t('ready_button')}</button></div>`;
  const rulesOpen = ctx.rulesOpen ?? ctx.isHost;
  const toggled = (event) => { if (event.currentTarget.open !== rulesOpen) actions.setRulesOpen(event.currentTarget.open); };
  return html`<div class="lobby" data-testid="lobby"><section class="panel" aria-labelledby="lobby-title"><h2 id="lobby-title"
    >${t('lobby_waiting')}</h2><ul class="seats">${repeat(room.seats, (s) => s.seat, (s) => seatRow(ctx, actions, s))}${openSeats
    }</ul>${coachWarning(ctx, actions)}${practiceSwitch(ctx, actions)}${avatarPicker(ctx, actions)}${
    askPanel(ctx, actions)}${
    room.spectators ? html`<p class="hint">${t('spectators', { n: room.spectators })}</p>` : nothing}${status}${readyLine}${
    hostControls(ctx, actions, open)}${leaveButton(ctx, actions)}${html`<div class="inline">${historyLink(room.code, actions)}${standingsLink(actions)}</div>`}</section>${shareBox(actions.shareUrl(room.code), actions.toast)
    }<details class="panel rules-box" .open=${rulesOpen} @toggle=${toggled}><summary>${t('options_title')}</summary>${
    ctx.isHost ? nothing : html`<p class="hint">${t('options_locked')}</p>`}${optionRows(room.options, (partial) => actions.send({ type: 'set_options', options: partial }), !ctx.isHost)}</details></div>`;
}

/** The lobby view: ``render(ctx)`` on every change. */
export function createLobbyView(container, actions) {
  const root = document.createElement('div');
  container.replaceChildren(root);
  return { render: (ctx) => render(lobbyTemplate(ctx, actions), root) };
}
