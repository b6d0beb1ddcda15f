// The join-or-watch prompt of a room link opened without a seat: a room link's first screen, so it imports
// only what it draws (app/api/pages.py preloads exactly these modules on a room's page).
import { h, mount } from '../dom.js';
import { errorText, t } from '../i18n.js';
import { savedName, saveName } from '../storage.js';
import { avatarEl, nameLabel } from './faces.js';

/** A room link opened without a seat: join with a name, or just watch. */
export function renderJoin(container, ctx, actions) {
  const info = ctx.joinInfo;
  const typed = container.querySelector('[data-testid=join-name]')?.value; // drawn again: keep what was typed
  const nameInput = h('input', {
    id: 'room-join-name', required: true, maxlength: 32, autocomplete: 'nickname', value: typed ?? savedName(),
    placeholder: t('name_placeholder'), 'data-testid': 'join-name',
  });
  const error = h('p.error', { role: 'alert' });
  const canJoin = info.status === 'lobby' && info.seats.length < info.seat_count;
  const form = h('form.panel.narrow', {
    onsubmit: async (event) => {
      event.preventDefault();
      const name = nameInput.value.trim();
      if (!name) { error.textContent = t('err_name'); return; }
      saveName(name);
      try {
        await actions.join(info.code, name);
      } catch (err) {
        error.textContent = errorText(err);
      }
    },
  },
  h('h2', {}, t('join_this'), ' ', h('span.room-code', { dir: 'ltr' }, info.code)),
  h('ul.seats.compact', {}, info.seats.map((s) => h('li.seat-row', {},
    h('span.presence', { class: s.connected ? 'online' : 'offline' }), avatarEl(s), nameLabel(s)))),
  canJoin
    ? h('div.field', {}, h('label', { for: 'room-join-name' }, t('your_name')), nameInput)
    : h('p.notice', {}, t(info.status === 'lobby' ? 'table_full_choice' : 'game_started')),
  error,
  h('div.row', {},
    canJoin ? h('button.primary', { type: 'submit', 'data-testid': 'join-seat' }, t('join_button')) : null,
    h('button.secondary', { type: 'button', 'data-testid': 'watch', onclick: () => actions.watch() }, t('watch_button'))));
  mount(container, form);
  if (canJoin) nameInput.focus();
}
