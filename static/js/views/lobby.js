// The lobby (seats, presence, host controls, link to share) and the join-or-watch prompt of a room link.
import { savedName, saveName } from '../api.js';
import { h, mount, svg } from '../dom.js';
import { num, t } from '../i18n.js';
import { optionRows } from './options.js';
import { shareBox } from './share.js';

const BOT_LEVELS = ['easy', 'normal', 'hard', 'random'];
// Kept across redraws (every presence change redraws the lobby): what the host last picked or opened.
const picked = { botLevel: 'normal', rulesOpen: null };

/** A small robot head marking a computer player (drawn, so no emoji font is needed). */
export function botIcon() {
  return svg('svg', { class: 'bot-icon', viewBox: '0 0 16 16', width: 16, height: 16, 'aria-hidden': 'true' },
    svg('rect', { x: 2.5, y: 4.5, width: 11, height: 9, rx: 2.5, fill: 'currentColor' }),
    svg('circle', { cx: 6, cy: 9, r: 1.4, fill: '#0f5a43' }),
    svg('circle', { cx: 10, cy: 9, r: 1.4, fill: '#0f5a43' }),
    svg('rect', { x: 7.3, y: 1, width: 1.4, height: 3.5, fill: 'currentColor' }));
}

/** A person's or bot's name chip: always text, never markup. */
export function nameLabel(seat) {
  return h('span.name', { dir: 'auto' }, seat.name);
}

function seatRow(ctx, actions, seat) {
  const you = seat.seat === ctx.seat;
  const host = seat.seat === ctx.room.host_seat;
  const presence = seat.connected ? 'online' : 'offline';
  return h('li.seat-row', { 'data-testid': `seat-${seat.seat}`, class: you ? 'you' : '' },
    h('span.presence', { class: presence, role: 'img', 'aria-label': t(presence) }),
    h('span.seat-no', { 'aria-hidden': 'true' }, num(seat.seat + 1)),
    seat.bot ? botIcon() : null,
    nameLabel(seat),
    you ? h('span.tag', {}, t('you')) : null,
    host ? h('span.tag.gold', {}, t('host')) : null,
    seat.bot ? h('span.tag', {}, t(`bot_${seat.bot_level}`)) : null,
    h('span.spacer'),
    ctx.isHost && !host
      ? h('button.link.danger', {
        type: 'button', 'data-key': `remove-${seat.seat}`,
        onclick: () => actions.send({ type: 'remove_seat', seat: seat.seat }),
      }, t('remove'))
      : null);
}

/** A link to the table's history page (games played there, leaderboard, replays). */
export function historyLink(code, actions, tag = 'a.link.history-link') {
  const path = `/r/${code}/history`;
  return h(tag, {
    href: path, 'data-testid': 'history-link',
    onclick: (e) => { e.preventDefault(); actions.navigate(path); },
  }, t('history'));
}

export function renderLobby(container, ctx, actions) {
  const room = ctx.room;
  const open = Math.max(0, room.seat_count - room.seats.length);
  const seats = h('ul.seats', {}, room.seats.map((s) => seatRow(ctx, actions, s)),
    Array.from({ length: open }, () => h('li.seat-row.open', {}, h('span.presence.none'), t('open_seat'))));

  let hostControls = null;
  if (ctx.isHost && room.status === 'lobby') {
    const level = h('select', {
      'aria-label': t('bot_level'), 'data-key': 'bot-level', onchange: () => { picked.botLevel = level.value; },
    }, BOT_LEVELS.map((l) => h('option', { value: l }, t(`bot_${l}`))));
    level.value = picked.botLevel;
    const seatCount = h('select', {
      id: 'lobby-seats', 'data-key': 'lobby-seats',
      onchange: () => actions.send({ type: 'set_options', seats: Number(seatCount.value) }),
    }, [2, 3, 4, 5, 6, 7, 8].filter((n) => n >= room.seats.length).map((n) => h('option', { value: String(n) }, num(n))));
    seatCount.value = String(room.seat_count);
    hostControls = h('div.host-controls', {},
      h('div.field.inline', {}, h('label', { for: 'lobby-seats' }, t('seats')), seatCount),
      open > 0 ? h('div.inline', {}, level,
        h('button.secondary', {
          type: 'button', 'data-key': 'add-bot',
          onclick: () => actions.send({ type: 'add_bot', level: level.value }),
        }, '+ ', t('add_bot'))) : null,
      h('button.primary.big', {
        type: 'button', 'data-testid': 'start', 'data-key': 'start', disabled: room.seats.length < 2,
        onclick: () => actions.send({ type: 'start' }),
      }, t('start')));
  }

  const rules = h('details.panel.rules-box', {
    open: picked.rulesOpen ?? ctx.isHost,
    ontoggle: (event) => { picked.rulesOpen = event.currentTarget.open; },
  },
    h('summary', {}, t('options_title')),
    ctx.isHost ? null : h('p.hint', {}, t('options_locked')),
    optionRows(room.options, (partial) => actions.send({ type: 'set_options', options: partial }), !ctx.isHost));

  const status = ctx.seat === null
    ? h('div.notice', { 'data-testid': 'watching' }, t('watching'), ' ',
      open > 0 ? h('button.link', { type: 'button', onclick: () => actions.askJoin() }, t('join_this')) : null)
    : ctx.isHost ? null : h('p.notice', {}, t('waiting_host'));

  mount(container, h('div.lobby', { 'data-testid': 'lobby' },
    h('section.panel', { 'aria-labelledby': 'lobby-title' },
      h('h2', { id: 'lobby-title' }, t('lobby_waiting')),
      seats,
      room.spectators ? h('p.hint', {}, t('spectators', { n: room.spectators })) : null,
      status,
      hostControls,
      historyLink(room.code, actions)),
    shareBox(actions.shareUrl(room.code), actions.toast),
    rules));
}

/** A room link opened without a seat: join with a name, or just watch. */
export function renderJoin(container, ctx, actions) {
  const info = ctx.joinInfo;
  const nameInput = h('input', {
    id: 'room-join-name', required: true, maxlength: 32, autocomplete: 'nickname', value: savedName(),
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
        error.textContent = t('error', { message: err.message });
      }
    },
  },
  h('h2', {}, t('join_this'), ' ', h('span.room-code', { dir: 'ltr' }, info.code)),
  h('ul.seats.compact', {}, info.seats.map((s) => h('li.seat-row', {},
    h('span.presence', { class: s.connected ? 'online' : 'offline' }), nameLabel(s)))),
  canJoin
    ? h('div.field', {}, h('label', { for: 'room-join-name' }, t('your_name')), nameInput)
    : h('p.notice', {}, t(info.status === 'lobby' ? 'table_full' : 'game_started')),
  error,
  h('div.row', {},
    canJoin ? h('button.primary', { type: 'submit', 'data-testid': 'join-seat' }, t('join_button')) : null,
    h('button.secondary', { type: 'button', 'data-testid': 'watch', onclick: () => actions.watch() }, t('watch_button'))));
  mount(container, form);
  if (canJoin) nameInput.focus();
}
