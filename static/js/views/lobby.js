// The lobby (seats, presence, host controls, link to share) and the join-or-watch prompt of a room link.
import { h, mount } from '../dom.js';
import { errorText, num, t } from '../i18n.js';
import { config, seatCounts } from '../config.js';
import { savedName, saveName } from '../storage.js';
import { optionRows } from './options.js';
import { askPanel, seatRequestControls } from './seatask.js';
import { shareBox } from './share.js';
import { confirmDialog } from './confirm.js';
import { makeHostButton } from './host.js';
import { leaveButton } from './leave.js';
import { displayName, historyLink, nameLabel } from './widgets.js';
import { standingsLink } from './standings-links.js';
import { avatarEl, avatarPicker } from '../avatars.js';

// Kept across redraws (every presence change redraws the lobby): what the host last picked or opened.
const picked = { botLevel: config.default_bot_level, rulesOpen: null };

function seatRow(ctx, actions, seat) {
  const you = seat.seat === ctx.seat;
  const host = seat.seat === ctx.room.host_seat;
  const ready = (ctx.room.ready ?? []).includes(seat.seat);
  const presence = seat.connected ? 'online' : 'offline';
  return h('li.seat-row', { 'data-testid': `seat-${seat.seat}`, class: you ? 'you' : '' },
    h('span.presence', { class: presence, role: 'img', 'aria-label': t(presence) }),
    h('span.seat-no', { 'aria-hidden': 'true' }, num(seat.seat + 1)),
    avatarEl(seat),
    nameLabel(seat),
    you ? h('span.tag', {}, t('you')) : null,
    host ? h('span.tag.gold', {}, t('host')) : null,
    seat.bot ? h('span.tag', {}, t(`bot_${seat.bot_level}`)) : null,
    seat.practice ? h('span.tag.practice', {
      'data-testid': `practice-${seat.seat}`, role: 'img', 'aria-label': t('practice_named', { name: displayName(seat) }),
    }, t('practice_tag')) : null,
    ready ? h('span.tag.ready', {
      'data-testid': `ready-${seat.seat}`, role: 'img', 'aria-label': t('ready_named', { name: displayName(seat) }),
    }, '✓ ', t('ready_tag')) : null,
    h('span.spacer'),
    ctx.isHost && !host && !seat.bot ? makeHostButton(seat, actions, 'button.link') : null,
    seatRequestControls(ctx, seat, actions),
    ctx.isHost && !host
      ? h('button.link.danger', {
        type: 'button', 'data-key': `remove-${seat.seat}`, 'data-testid': `remove-${seat.seat}`,
        'aria-label': t('remove_named', { name: displayName(seat) }),
        onclick: async () => {
          const name = displayName(seat);
          const sure = await confirmDialog({
            title: t(seat.bot ? 'remove_bot_title' : 'remove_title', { name }),
            message: t(seat.bot ? 'remove_bot_text' : 'remove_text', { name }),
            confirm: t('remove'), danger: true, testid: 'confirm-remove',
          });
          if (sure) actions.send({ type: 'remove_seat', seat: seat.seat });
        },
      }, t('remove'))
      : null);
}

/** Your own seat plays for practice (not counted in the standings) or not; fixed when the game starts. */
function practiceSwitch(ctx, actions) {
  const mine = ctx.room.seats.find((s) => s.seat === ctx.seat);
  if (!mine || mine.bot || mine.program || ctx.room.status !== 'lobby') return null;
  return h('label.practice-toggle', {},
    h('input.switch', {
      type: 'checkbox', role: 'switch', checked: !!mine.practice, 'data-testid': 'practice', 'data-key': 'practice',
      onchange: (event) => actions.send({ type: 'practice', on: event.currentTarget.checked }),
    }),
    h('span', {}, t('practice_label')));
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
    }, config.bot_levels.map((l) => h('option', { value: l }, t(`bot_${l}`))));
    level.value = picked.botLevel;
    const seatCount = h('select', {
      id: 'lobby-seats', 'data-key': 'lobby-seats',
      onchange: () => actions.send({ type: 'set_options', seats: Number(seatCount.value) }),
    }, seatCounts(room.seats.length).map((n) => h('option', { value: String(n) }, num(n))));
    seatCount.value = String(room.seat_count);
    hostControls = h('div.host-controls', {},
      h('div.field.inline', {}, h('label', { for: 'lobby-seats' }, t('seats')), seatCount),
      open > 0 ? h('div.inline', {}, level,
        h('button.secondary', {
          type: 'button', 'data-key': 'add-bot',
          onclick: () => actions.send({ type: 'add_bot', level: level.value }),
        }, '+ ', t('add_bot'))) : null,
      h('button.primary.big', {
        type: 'button', 'data-testid': 'start', 'data-key': 'start', disabled: room.seats.length < config.seats.min,
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

  // The ready check: each person but the host says they are in; the host reads who is (it does not hold the
  // start, and the host has no "I'm in" to press, so is not counted).
  const people = room.seats.filter((s) => !s.bot && !s.program && s.seat !== room.host_seat);
  const readyNow = people.filter((s) => (room.ready ?? []).includes(s.seat));
  const iAmReady = (room.ready ?? []).includes(ctx.seat);
  const readyLine = people.length
    ? h('p.hint', { 'data-testid': 'ready-count', role: 'status' },
      t('ready_count', { n: num(readyNow.length), m: num(people.length) }))
    : null;
  const status = ctx.seat === null
    ? h('div.notice', { 'data-testid': 'watching' }, t('watching'), ' ',
      open > 0 ? h('button.link', { type: 'button', onclick: () => actions.askJoin() }, t('join_this')) : null)
    : ctx.isHost ? null
      : iAmReady ? h('p.notice', { 'data-testid': 'you-are-ready' }, t('you_are_ready'))
        : h('div.row', {},
          h('p.notice', {}, t('waiting_host')),
          h('button.primary', {
            type: 'button', 'data-testid': 'ready', 'data-key': 'ready',
            onclick: () => actions.send({ type: 'ready' }),
          }, t('ready_button')));

  mount(container, h('div.lobby', { 'data-testid': 'lobby' },
    h('section.panel', { 'aria-labelledby': 'lobby-title' },
      h('h2', { id: 'lobby-title' }, t('lobby_waiting')),
      seats,
      practiceSwitch(ctx, actions),
      avatarPicker(ctx, actions),
      askPanel(ctx, actions),
      room.spectators ? h('p.hint', {}, t('spectators', { n: room.spectators })) : null,
      status,
      readyLine,
      hostControls,
      leaveButton(ctx, actions),
      h('div.inline', {}, historyLink(room.code, actions), standingsLink(actions))),
    shareBox(actions.shareUrl(room.code), actions.toast),
    rules));
}

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
