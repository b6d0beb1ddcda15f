// Seat avatars: the face each seat shows (the server keeps a fixed few ids, the client config's ``avatars``;
// every bot's seat shows ``bot_avatar``), drawn here; the picker for your own seat in the lobby; and the saved
// pick, sent for your seat at every table you sit at (a seat that changes hands starts with none).
import { config } from './config.js';
import { html, nothing } from './html.js';
import { t } from './i18n.js';
import { savedAvatar, saveAvatar } from './storage.js';
import { AVATAR_GLYPHS } from './views/faces.js';
import './i18n-looks.js';
import './i18n-table.js';

export { AVATAR_GLYPHS, avatarEl } from './views/faces.js';
// The face, the name chip and the robot under the names the lit-html views first knew them by.
export { avatarEl as avatarTemplate, nameLabel as nameTemplate, botIcon as botIconTemplate } from './views/faces.js';

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
