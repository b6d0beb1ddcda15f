// A seat's face and name, as every view draws them (the join form, the lobby, the table, the results, the
// replay): small, so that a room link's join form loads no more than it shows (widgets.js and avatars.js
// re-export them).
import { config } from '../config.js';
import { h, svg } from '../dom.js';
import { t } from '../i18n.js';

/** A small robot head marking a computer player (drawn, so no emoji font is needed). */
export function botIcon() {
  return svg('svg', { class: 'bot-icon', viewBox: '0 0 16 16', width: 16, height: 16, 'aria-hidden': 'true' },
    svg('rect', { x: 2.5, y: 4.5, width: 11, height: 9, rx: 2.5, fill: 'currentColor' }),
    svg('circle', { cx: 6, cy: 9, r: 1.4, fill: '#0f5a43' }),
    svg('circle', { cx: 10, cy: 9, r: 1.4, fill: '#0f5a43' }),
    svg('rect', { x: 7.3, y: 1, width: 1.4, height: 3.5, fill: 'currentColor' }));
}

/** The name shown for a seat ({name, bot}): a bot's default name ('Bot 3') in the page's language. */
export function displayName(seat) {
  const number = seat.bot && /^Bot (\d+)$/.exec(seat.name);
  return number ? t('bot_name', { n: Number(number[1]) }) : seat.name;
}

/** A person's or bot's name chip: always text, never markup; a program's seat is tagged as one. */
export function nameLabel(seat) {
  const tag = seat.program
    ? h('span.program-tag', { title: t('program_title'), 'data-testid': 'program-tag' }, t('program'))
    : null;
  return h('span.name', { dir: 'auto' }, displayName(seat), tag);
}

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

