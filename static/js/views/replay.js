// The replay viewer: a finished game turn by turn with every hand open (prev/next, round jumps, play/pause,
// a slider, arrow keys). The frames come from the server's engine; ReplayPlayer walks them.
import * as api from '../api.js';
import { cardShort } from '../cards.js';
import { h, mount, svg } from '../dom.js';
import { num, t } from '../i18n.js';
import { ReplayPlayer } from '../replay.js';
import { formatDate } from './history.js';
import { STANDINGS_PATH } from './standings-links.js';
import { botIcon, displayName, groupsOf, meldGroups, piles, scoreSheet, seatName, sheetBox, winnersLine } from './widgets.js';

const TOUCH = window.matchMedia('(hover: none), (pointer: coarse)'); // as the table: a phone has no keys

// One replay open at a time: the game shown, its data, the player, and where to draw.
const view = { gameId: null, data: null, error: null, player: null, roundInfo: new Map(), target: null };

function isShown(ctx, gameId) {
  return ctx.route.view === 'replay' && ctx.route.gameId === gameId;
}

async function load(ctx, gameId, actions) {
  try {
    const data = await api.gameReplay(gameId);
    if (view.gameId !== gameId) return;
    view.data = data;
    view.roundInfo = new Map(data.steps.filter((s) => s.result).map((s) => [s.round, s.result]));
    view.player = new ReplayPlayer(data.steps, () => {
      if (!isShown(ctx, gameId)) { view.player?.stop(); return; }
      draw();
    });
  } catch (err) {
    if (view.gameId !== gameId) return;
    view.error = err.code === 'game_not_finished' ? t('replay_unavailable')
      : err.status === 404 ? t('err_game_not_found') : err.code === 'offline' ? t('err_offline') : t('error', { message: err.message || err.code });
  }
  if (isShown(ctx, gameId)) actions.rerender();
}

function draw() {
  if (!view.target) return;
  const { container, ctx, actions } = view.target;
  renderReplay(container, ctx, actions);
}

function playerName(seat) {
  return seatName(view.data.game.players, seat);
}

/** What happened on this frame, in words. */
function describe(frame) {
  if (frame.kind === 'deal') {
    return t('rp_deal', { round: frame.round, name: playerName(frame.dealer), n: frame.cards_dealt });
  }
  const name = playerName(frame.seat);
  const card = frame.card ? cardShort(frame.card) : '';
  const action = frame.action;
  let text;
  if (action.type === 'draw') text = t(action.source === 'discard' ? 'rp_draw_discard' : 'rp_draw_stock', { name, card });
  else text = t(action.type === 'go_out' ? 'rp_go_out' : 'rp_discard', { name, card });
  return frame.reshuffled ? `${t('ev_reshuffle')}. ${text}` : text;
}

function winnersText(frame) {
  return winnersLine(frame.winners.map(playerName));
}

function banner(frame) {
  if (frame.phase === 'game_over') {
    return h('p.banner.win', { 'data-testid': 'replay-banner' },
      h('span.crown', { 'aria-hidden': 'true' }, '♛ '), `${t('game_over')}: ${winnersText(frame)}`);
  }
  if (frame.kind === 'round_end') {
    return h('p.banner', { 'data-testid': 'replay-banner' },
      t('round_over', { n: frame.round }), t('colon'),
      frame.went_out === null ? t('turn_limit_reached') : t('went_out_by', { name: playerName(frame.went_out) }));
  }
  if (frame.went_out !== null) {
    return h('p.banner.soft', { 'data-testid': 'replay-banner' }, t('final_turns', { name: playerName(frame.went_out) }));
  }
  return null;
}

function handView(frame, hand) {
  const seat = hand.seat;
  const info = view.data.game.players.find((p) => p.seat === seat) ?? { name: `#${seat + 1}`, bot: false };
  const acting = frame.seat === seat && frame.kind !== 'deal';
  const toPlay = frame.turn === seat;
  const drewNow = acting && frame.action?.type === 'draw' ? frame.card : null;
  let marked = false;
  const over = frame.kind === 'round_end';
  const mark = (card) => {
    if (marked || drewNow !== card) return null;
    marked = true;
    return 'drawn';
  };
  const groups = meldGroups(groupsOf(hand), { wildRank: frame.wild_rank, mark });
  return h('li.rp-hand', {
    'data-testid': `replay-hand-${seat}`,
    dataset: { cards: hand.cards.join(' ') },
    class: [toPlay ? 'turn' : '', acting ? 'acting' : '', frame.went_out === seat ? 'out' : '',
      over && frame.winners.includes(seat) ? 'won' : ''].join(' '),
    'aria-current': toPlay ? 'true' : null,
  },
  h('div.rp-hand-head', {},
    info.bot ? botIcon() : null,
    h('span.name', { dir: 'auto' }, displayName(info)),
    frame.dealer === seat ? h('span.dealer', { title: t('dealer'), 'aria-label': t('dealer') }, t('dealer_short')) : null,
    toPlay ? h('span.tag.gold', {}, t('turn_now')) : null,
    frame.went_out === seat ? h('span.tag.gold', {}, t('went_out_mark')) : null,
    h('span.spacer'),
    h('span.penalty', { 'data-testid': `replay-penalty-${seat}` }, t('penalty', { n: hand.penalty })),
    h('span.rp-total', {}, t('points', { n: frame.totals[seat] ?? 0 }))),
  h('div.rp-groups', {}, groups));
}

function framePiles(frame) {
  return piles({ ...frame, thrown: frame.action && frame.action.type !== 'draw' }, null, 'replay-');
}

function scoreTable(frame) {
  if (!frame.scores.length) return null;
  const rounds = frame.scores.map((_row, r) => view.roundInfo.get(r + 1));
  return sheetBox(scoreSheet({
    players: view.data.game.players, scores: frame.scores, totals: frame.totals, rounds, testid: 'replay-scores',
  }));
}

// Drawn icons (no symbol font needed), pointing forward in English; mirrored by CSS in Persian.
const ICONS = {
  prevRound: [['rect', { x: 3, y: 3, width: 2.2, height: 10, rx: 0.6 }], ['path', { d: 'M13 3v10L6 8z' }]],
  prev: [['path', { d: 'M12 3v10L4 8z' }]],
  next: [['path', { d: 'M4 3v10l8-5z' }]],
  nextRound: [['path', { d: 'M3 3v10l7-5z' }], ['rect', { x: 10.8, y: 3, width: 2.2, height: 10, rx: 0.6 }]],
  play: [['path', { d: 'M4.5 2.5v11l9-5.5z' }]],
  pause: [['rect', { x: 3.5, y: 3, width: 3, height: 10, rx: 0.8 }], ['rect', { x: 9.5, y: 3, width: 3, height: 10, rx: 0.8 }]],
};

function icon(name, extra = '') {
  return svg('svg', { class: `icon ${extra}`.trim(), viewBox: '0 0 16 16', width: 16, height: 16, 'aria-hidden': 'true', fill: 'currentColor' },
    ...ICONS[name].map(([tag, attrs]) => svg(tag, attrs)));
}

function controls(player) {
  const button = (key, label, iconName, onclick, disabled) => h('button.rp-btn', {
    type: 'button', 'data-testid': `replay-${key}`, 'data-key': `replay-${key}`, 'aria-label': label, title: label,
    disabled, onclick,
  }, icon(iconName));
  const atStart = player.index === 0;
  const atEnd = player.index === player.last;
  const slider = h('input.rp-slider', {
    type: 'range', min: 0, max: player.last, value: player.index, step: 1, 'aria-label': t('rp_position'),
    'data-testid': 'replay-slider', 'data-key': 'replay-slider',
    oninput: (e) => player.go(Number(e.currentTarget.value)),
  });
  return h('div.rp-controls', { role: 'toolbar', 'aria-label': t('rp_controls') },
    h('div.rp-buttons', {},
      button('prev-round', t('rp_prev_round'), 'prevRound', () => player.prevRound(), atStart),
      button('prev', t('rp_prev'), 'prev', () => player.prev(), atStart),
      h('button.rp-btn.play', {
        type: 'button', 'data-testid': 'replay-play', 'data-key': 'replay-play',
        'aria-pressed': player.playing ? 'true' : 'false', onclick: () => player.toggle(),
      }, icon(player.playing ? 'pause' : 'play', 'noflip'), h('span', {}, player.playing ? t('rp_pause') : t('rp_play'))),
      button('next', t('rp_next'), 'next', () => player.next(), atEnd),
      button('next-round', t('rp_next_round'), 'nextRound', () => player.nextRound(), atEnd)),
    slider);
}

function roundJumps(player) {
  const current = player.frame.round;
  return h('nav.rp-rounds', { 'aria-label': t('jump_round') },
    player.rounds.map((n) => h('button.rp-round', {
      type: 'button', 'data-testid': `round-jump-${n}`, 'data-key': `round-jump-${n}`,
      'aria-current': n === current ? 'true' : null,
      'aria-label': t('round', { round: n, rounds: 11 }),
      onclick: () => player.jumpToRound(n),
    }, num(n))));
}

function renderReplay(container, ctx, actions) {
  const { code, gameId } = ctx.route;
  view.target = { container, ctx, actions };
  if (view.gameId !== gameId) {
    view.player?.stop();
    Object.assign(view, { gameId, data: null, error: null, player: null, roundInfo: new Map() });
    load(ctx, gameId, actions);
  }
  // Opened by the game's id alone (from the standings, which never name a table): back to the standings.
  const backPath = code ? `/r/${code}/history` : STANDINGS_PATH;
  const back = h('a.secondary.small', {
    href: backPath, 'data-testid': code ? 'back-to-history' : 'back-to-standings',
    onclick: (e) => { e.preventDefault(); view.player?.stop(); actions.navigate(backPath); },
  }, t(code ? 'history' : 'standings'));
  const game = view.data?.game;
  const head = h('div.page-head', {},
    h('h1', {}, t('replay_title', { n: game ? game.number : '' }), code ? [' ', h('span.room-code', { dir: 'ltr' }, code)] : null),
    game ? h('time.hint.on-felt', { datetime: game.finished_at ?? game.created_at, 'data-testid': 'replay-date' }, formatDate(game.finished_at ?? game.created_at)) : null,
    h('span.spacer'),
    back);
  if (view.error || !view.player) {
    mount(container, h('div.replay', { 'data-testid': 'replay' }, head,
      view.error ? h('section.panel', {}, h('p.error', { role: 'alert' }, view.error)) : h('p.loading', { role: 'status' }, t('loading'))));
    return;
  }
  const player = view.player;
  const frame = player.frame;
  const focusKey = document.activeElement?.dataset?.key;
  mount(container, h('div.replay', {
    'data-testid': 'replay',
    dataset: { index: String(player.index), round: String(frame.round), kind: frame.kind, phase: frame.phase, playing: player.playing ? '1' : '0' },
  },
  head,
  h('div.round-bar', {},
    h('span.round', {}, t('round', { round: frame.round, rounds: 11 })),
    h('span.cards-dealt', {}, t('cards_dealt', { n: frame.cards_dealt })),
    h('span.wild-pill', {}, t('wild', { rank: num(frame.wild_rank) })),
    h('span.spacer'),
    h('span.rp-step', { 'data-testid': 'replay-step' }, t('step_of', { i: player.index + 1, n: player.last + 1 }))),
  roundJumps(player),
  controls(player),
  banner(frame),
  h('div.rp-body', {},
    h('div.rp-main', {},
      h('div.felt.rp-felt', {},
        framePiles(frame),
        h('p.status', { 'data-testid': 'replay-action', 'aria-live': 'polite' }, describe(frame))),
      h('ul.rp-hands', { 'aria-label': t('rp_hands'), class: frame.hands.length > 3 ? 'many' : '' },
        frame.hands.map((hand) => handView(frame, hand))),
      TOUCH.matches ? null : h('p.hint.on-felt.rp-keys', {}, t('rp_keys'))), // a phone: no keys to mention
    h('aside.rp-side', {},
      frame.scores.length ? h('section.panel.rp-sheet', {}, scoreTable(frame)) : null))));
  spreadHands(container);
  if (focusKey) container.querySelector(`[data-key="${CSS.escape(focusKey)}"]`)?.focus();
}

/** Each hand's cards side by side where its row has room for them, overlapping only where it has not (the
 * groups of a hand wrap onto a second row otherwise). */
function spreadHands(container) {
  for (const row of container.querySelectorAll('.rp-groups')) {
    row.classList.add('spread');
    const groups = [...row.children];
    const wraps = groups.some((g) => g.offsetTop !== groups[0].offsetTop);
    const overflows = groups.some((g) => g.scrollWidth > g.clientWidth + 1) || row.scrollWidth > row.clientWidth + 1;
    if (wraps || overflows) row.classList.remove('spread');
  }
}

// Keys while a replay is shown: arrows step (mirrored in Persian), Page Up/Down or [ ] change round,
// Home/End, Space or K play/pause. The slider keeps its own arrow keys.
function onKey(event) {
  const player = view.player;
  if (!player || !document.querySelector('[data-testid=replay]') || event.altKey || event.ctrlKey || event.metaKey) return;
  const target = event.target;
  if (target.matches?.('input, textarea, select')) return;
  const onButton = target.matches?.('button, a');
  const rtl = document.documentElement.dir === 'rtl';
  const forward = rtl ? 'ArrowLeft' : 'ArrowRight';
  const backward = rtl ? 'ArrowRight' : 'ArrowLeft';
  const keys = {
    [forward]: () => player.next(),
    [backward]: () => player.prev(),
    PageDown: () => player.nextRound(),
    PageUp: () => player.prevRound(),
    ']': () => player.nextRound(),
    '[': () => player.prevRound(),
    Home: () => player.first(),
    End: () => player.end(),
    k: () => player.toggle(),
    ' ': onButton ? null : () => player.toggle(),
  };
  const run = keys[event.key];
  if (!run) return;
  event.preventDefault();
  run();
}

/** The replay view: ``render(ctx)`` on every change; ``stop()`` ends its playback and key listener. */
export function createReplayView(container, actions) {
  document.addEventListener('keydown', onKey);
  const refit = () => spreadHands(container);
  window.addEventListener('resize', refit);
  return {
    render: (ctx) => renderReplay(container, ctx, actions),
    stop() {
      document.removeEventListener('keydown', onKey);
      window.removeEventListener('resize', refit);
      view.player?.stop();
      Object.assign(view, { gameId: null, data: null, error: null, player: null, roundInfo: new Map(), target: null });
    },
  };
}
