// The join-or-watch prompt of a room link opened without a seat: a room link's first screen, so it imports
// only what it draws (app/api/pages.py preloads exactly these modules on a room's page). A function of the
// state (the room's info, ``ctx.joinInfo``; an error, ``ctx.page.joinError``): the name typed stays in its field.
import { html, nothing } from '../html.js';
import { errorText, t } from '../i18n.js';
import { savedName, saveName } from '../storage.js';
import { avatarEl, nameLabel } from './faces.js';

async function submit(event, info, actions) {
  event.preventDefault();
  const name = event.currentTarget.querySelector('[data-testid=join-name]').value.trim();
  if (!name) { actions.setPage({ joinError: t('err_name') }); return; }
  saveName(name);
  try {
    await actions.join(info.code, name);
  } catch (err) {
    actions.setPage({ joinError: errorText(err) });
  }
}

/** Whether the room has a seat to take (else only watching is offered). */
export const canJoin = (info) => info.status === 'lobby' && info.seats.length < info.seat_count;

/** A room link opened without a seat: join with a name, or just watch. */
export function joinTemplate(ctx, actions) {
  const info = ctx.joinInfo;
  const open = canJoin(info);
  return html`<form class="panel narrow" @submit=${(e) => submit(e, info, actions)}><h2>${t('join_this')} <span class="room-code"
    dir="ltr">${info.code}</span></h2><ul class="seats compact">${info.seats.map((s) => html`<li class="seat-row"><span
    class=${s.connected ? 'presence online' : 'presence offline'}></span>${avatarEl(s)}${nameLabel(s)}</li>`)}</ul>${open
    ? html`<div class="field"><label for="room-join-name">${t('your_name')}</label><input id="room-join-name" required maxlength="32"
      autocomplete="nickname" .value=${savedName()} placeholder=${t('name_placeholder')} data-testid="join-name"></div>`
    : html`<p class="notice" data-testid="watch-only">${t(info.status === 'lobby' ? 'table_full_choice' : 'game_started')}${
      info.seats.some((s) => s.bot) ? html` ${t('bot_seat_askable')}` : nothing}</p>`}<p class="error" role="alert">${
    ctx.page?.joinError ?? ''}</p><div class="row">${open ? html`<button type="submit" class="primary" data-testid="join-seat">${
    t('join_button')}</button>` : nothing}<button type="button" class="secondary" data-testid="watch" @click=${() => actions.watch()}>${
    t('watch_button')}</button></div></form>`;
}

/** The first thing to do once the form is shown: type a name (if a seat is free). */
export function focusFirst(root) {
  root.querySelector('[data-testid=join-name]')?.focus();
}
