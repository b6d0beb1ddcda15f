// Seat avatars: the face each seat shows (the server keeps a fixed few ids, the client config's ``avatars``;
// every bot's seat shows ``bot_avatar``), drawn here; the picker for your own seat in the lobby; and the saved
// pick, sent for your seat at every table you sit at (a seat that changes hands starts with none).
import { config } from './config.js';
import { h } from './dom.js';
import { t } from './i18n.js';
import { savedAvatar, saveAvatar } from './storage.js';
import { botIcon, displayName } from './views/widgets.js';

/** Each id's glyph (an emoji: every phone and desktop draws them in colour). */
export const AVATAR_GLYPHS = {
  fox: '🦊', cat: '🐱', owl: '🦉', bear: '🐻', panda: '🐼', frog: '🐸', lion: '🦁', tiger: '🐯',
  koala: '🐨', penguin: '🐧', octopus: '🐙', unicorn: '🦄', rabbit: '🐰', monkey: '🐵', whale: '🐳', bee: '🐝',
};

/**
 * The small face of ``seat`` ({seat, name, bot, avatar}): its person's pick, the robot for a bot, or the first
 * letter of the name until they pick one. Beside the name it stands for, so hidden from screen readers.
 */
export function avatarEl(seat) {
  const id = seat?.avatar ?? null;
  const attrs = { 'aria-hidden': 'true', 'data-avatar': id ?? '', 'data-testid': `avatar-${seat?.seat}` };
  if (seat?.bot || id === config.bot_avatar) return h('span.avatar.robot', attrs, botIcon());
  if (id && AVATAR_GLYPHS[id]) return h('span.avatar', attrs, AVATAR_GLYPHS[id]);
  const letter = [...(seat?.name ? displayName(seat) : '?').trim()][0] ?? '?';
  return h('span.avatar.initial', attrs, letter.toUpperCase());
}

/** The lobby's row of faces for your own seat (null when you hold none, or it is a bot's). */
export function avatarPicker(ctx, actions) {
  const mine = ctx.room?.seats.find((s) => s.seat === ctx.seat);
  if (!mine || mine.bot) return null;
  return h('fieldset.avatar-picker', { 'data-testid': 'avatar-picker' },
    h('legend', {}, t('avatar_legend')),
    h('div.avatar-choices', { role: 'group', 'aria-label': t('avatar_legend') },
      config.avatars.map((id) => h('button.avatar-choice', {
        type: 'button', 'data-testid': `avatar-pick-${id}`, 'data-key': `avatar-${id}`,
        'aria-pressed': mine.avatar === id ? 'true' : 'false', 'aria-label': t(`avatar_${id}`), title: t(`avatar_${id}`),
        onclick: () => {
          saveAvatar(id);
          if (mine.avatar !== id) actions.send({ type: 'avatar', avatar: id });
        },
      }, h('span', { 'aria-hidden': 'true' }, AVATAR_GLYPHS[id])))),
    h('p.hint', {}, t('avatar_hint')));
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
