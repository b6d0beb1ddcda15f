// Seat avatars: the face each seat shows (the server keeps a fixed few ids, the client config's ``avatars``;
// every bot's seat shows ``bot_avatar``), drawn here; the picker for your own seat in the lobby; and the saved
// pick, sent for your seat at every table you sit at (a seat that changes hands starts with none).
import { config } from './config.js';
import { html, nothing } from './html.js';
import { t } from './i18n.js';
import { savedAvatar, saveAvatar } from './storage.js';
import { AVATAR_GLYPHS, displayName } from './views/faces.js';
import './i18n-looks.js';

export { AVATAR_GLYPHS, avatarEl } from './views/faces.js';

// faces.js's avatarEl, botIcon and nameLabel as templates, for the views drawn with lit-html (faces.js stays
// free of it: a room link's join form draws a face and does not wait for lit-html).
const BOT_ICON = html`<svg class="bot-icon" viewBox="0 0 16 16" width="16" height="16" aria-hidden="true"><rect x="2.5" y="4.5"
  width="11" height="9" rx="2.5" fill="currentColor"></rect><circle cx="6" cy="9" r="1.4" fill="#0f5a43"></circle><circle
  cx="10" cy="9" r="1.4" fill="#0f5a43"></circle><rect x="7.3" y="1" width="1.4" height="3.5" fill="currentColor"></rect></svg>`;

/** The small face of ``seat`` (as faces.js's avatarEl draws it). */
export function avatarTemplate(seat) {
  const id = seat?.avatar ?? null;
  const face = (kind, content) => html`<span class=${kind} aria-hidden="true" data-avatar=${id ?? ''}
    data-testid=${`avatar-${seat?.seat}`}>${content}</span>`;
  if (seat?.bot || id === config.bot_avatar) return face('avatar robot', BOT_ICON);
  if (id && AVATAR_GLYPHS[id]) return face('avatar', AVATAR_GLYPHS[id]);
  const letter = [...(seat?.name ? displayName(seat) : '?').trim()][0] ?? '?';
  return face('avatar initial', letter.toUpperCase());
}

/** A seat's name chip (as faces.js's nameLabel draws it): always text; a program's seat is tagged as one. */
export function nameTemplate(seat) {
  return html`<span class="name" dir="auto">${displayName(seat)}${seat.program
    ? html`<span class="program-tag" title=${t('program_title')} data-testid="program-tag">${t('program')}</span>` : nothing}</span>`;
}

/** The robot icon beside a button's words. */
export const botIconTemplate = () => BOT_ICON;

/** The lobby's row of faces for your own seat (nothing when you hold none, or it is a bot's). */
export function avatarPicker(ctx, actions) {
  const mine = ctx.room?.seats.find((s) => s.seat === ctx.seat);
  if (!mine || mine.bot) return nothing;
  const pick = (id) => {
    saveAvatar(id);
    if (mine.avatar !== id) actions.send({ type: 'avatar', avatar: id });
  };
  return html`<fieldset class="avatar-picker" data-testid="avatar-picker"><legend>${t('avatar_legend')}</legend><div
    class="avatar-choices" role="group" aria-label=${t('avatar_legend')}>${config.avatars.map((id) => html`<button type="button"
    class="avatar-choice" data-testid=${`avatar-pick-${id}`} data-key=${`avatar-${id}`} aria-pressed=${mine.avatar === id ? 'true' : 'false'}
    aria-label=${t(`avatar_${id}`)} title=${t(`avatar_${id}`)} @click=${() => pick(id)}><span aria-hidden="true">${AVATAR_GLYPHS[id]
    }</span></button>`)}</div><p class="hint">${t('avatar_hint')}</p></fieldset>`;
}

const asked = new Set(); // (table, seat, version) the saved face was sent for: once per version of the table

/** Your seat has no face yet and you picked one before (at this table or another): show it there. */
export function sendSavedAvatar(ctx, send) {
  const saved = savedAvatar();
  if (!saved || !config.avatars.includes(saved) || ctx.seat === null || ctx.seat === undefined || !ctx.room) return;
  const mine = ctx.room.seats.find((s) => s.seat === ctx.seat);
  if (!mine || mine.bot || mine.avatar) return;
  const key = `${ctx.room.code}:${ctx.seat}:${ctx.version}`;
  if (asked.has(key)) return;
  asked.add(key);
  send({ type: 'avatar', avatar: saved });
}
