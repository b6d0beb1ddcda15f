// A seat's face and name, as every view draws them (the join form, the lobby, the table, the results, the
// replay): small, so that a room link's join form loads no more than it shows (widgets.js and avatars.js
// re-export them).
import { config } from '../config.js';
import { html, nothing } from '../html.js';
import { t } from '../i18n.js';

const BOT_ICON = html`<svg class="bot-icon" viewBox="0 0 16 16" width="16" height="16" aria-hidden="true"><rect x="2.5" y="4.5"
  width="11" height="9" rx="2.5" fill="currentColor"></rect><circle cx="6" cy="9" r="1.4" fill="#0f5a43"></circle><circle
  cx="10" cy="9" r="1.4" fill="#0f5a43"></circle><rect x="7.3" y="1" width="1.4" height="3.5" fill="currentColor"></rect></svg>`;

/** A small robot head marking a computer player (drawn, so no emoji font is needed). */
export const botIcon = () => BOT_ICON;

/** The name shown for a seat ({name, bot}): a bot's default name ('Bot 3') in the page's language. */
export function displayName(seat) {
  const number = seat.bot && /^Bot (\d+)$/.exec(seat.name);
  return number ? t('bot_name', { n: Number(number[1]) }) : seat.name;
}

/** Who played a recorded seat (the history API's ``holders``: [{from_round, name, bot}], the start's first). */
const holdersOf = (player) => (player.holders?.length ? player.holders : [{ from_round: 1, name: player.name, bot: player.bot }]);

/** The recorded seat's holder in ``round`` ({name, bot}): a friend who took over a bot's seat from round 3 on. */
export function holderAt(player, round) {
  const holders = holdersOf(player);
  return holders.findLast((h) => h.from_round <= round) ?? holders[0];
}

/** Every holder of a recorded seat, with when each came: 'Bot 3, then Sam from round 3' (one name: just it). */
export function holdersName(player) {
  const [first, ...later] = holdersOf(player);
  // A bot that played on under a person's name (they left, or the host handed it over) is said to be one.
  const named = (h) => (h.bot && !/^Bot \d+$/.test(h.name) ? t('bot_for', { name: h.name }) : displayName(h));
  return [named(first), ...later.map((h) => t('holder_then', { name: named(h), n: h.from_round }))].join('');
}

/** A person's or bot's name chip: always text, never markup; a program's seat is tagged as one. */
export function nameLabel(seat) {
  return html`<span class="name" dir="auto">${displayName(seat)}${seat.program
    ? html`<span class="program-tag" title=${t('program_title')} data-testid="program-tag">${t('program')}</span>` : nothing}</span>`;
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
  const face = (kind, content) => html`<span class=${kind} aria-hidden="true" data-avatar=${id ?? ''}
    data-testid=${`avatar-${seat?.seat}`}>${content}</span>`;
  if (seat?.bot || id === config.bot_avatar) return face('avatar robot', BOT_ICON);
  if (id && AVATAR_GLYPHS[id]) return face('avatar', AVATAR_GLYPHS[id]);
  const letter = [...(seat?.name ? displayName(seat) : '?').trim()][0] ?? '?';
  return face('avatar initial', letter.toUpperCase());
}
