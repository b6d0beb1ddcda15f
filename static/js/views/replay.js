// The replay viewer: a finished game turn by turn with every hand open (prev/next, round jumps, play/pause,
// a slider, arrow keys). The frames come from the server's engine; ReplayPlayer walks them. The page is a
// lit-html template drawn at every step: its controls stay the same elements, so the button or the slider
// that has the keyboard keeps it as the frames go by.
import * as api from '../api.js';
import { cardShort } from '../cards.js';
import { html, nothing, render, svg } from '../html.js';
import { live } from '../html-directives.js';
import { errorText, num, t } from '../i18n.js';
import { ReplayPlayer } from '../replay.js';
import { formatDate } from './history.js';
import { STANDINGS_PATH } from './standings-links.js';
import {
  botIcon, displayName, fitCues, groupsOf, meldGroups, piles, scoreSheet, seatName, sheetBox, winnersLine,
} from './widgets.js';
import { holderAt, holdersName } from './faces.js';
import '../i18n-standings.js';
import '../i18n-table.js';

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
      : err.status === 404 ? t('err_game_not_found') : errorText(err);
  }
  if (isShown(ctx, gameId)) actions.rerender();
}

function draw() {
  if (!view.target) return;
  const { root, ctx, actions } = view.target;
  renderReplay(root, ctx, actions);
}

/** Who played ``seat`` in ``frame``'s round (a friend may have taken over a bot's seat in the game). */
function playerName(seat, frame) {
  const player = view.data.game.players.find((p) => p.seat === seat);
  return player ? displayName(holderAt(player, frame.round)) : seatName(view.data.game.players, seat);
}

/** What happened on this frame, in words. */
function describe(frame) {
  if (frame.kind === 'deal') {
    return t('rp_deal', { round: frame.round, name: playerName(frame.dealer, frame), n: frame.cards_dealt });
  }
  const name = playerName(frame.seat, frame);
  const card = frame.card ? cardShort(frame.card) : '';
  const action = frame.action;
  let text;
  if (action.type === 'draw') text = t(action.source === 'discard' ? 'rp_draw_discard' : 'rp_draw_stock', { name, card });
  else text = t(action.type === 'go_out' ? 'rp_go_out' : 'rp_discard', { name, card });
  return frame.reshuffled ? `${t('ev_reshuffle')}. ${text}` : text;
}

function winnersText(frame) {
  return winnersLine(frame.winners.map((seat) => playerName(seat, frame)));
}

function banner(frame) {
  if (frame.phase === 'game_over') {
    return html`<p class="banner win" data-testid="replay-banner"><span class="crown" aria-hidden="true">♛ </span>${
      `${t('game_over')}: ${winnersText(frame)}`}</p>`;
  }
  if (frame.kind === 'round_end') {
    return html`<p class="banner" data-testid="replay-banner">${t('round_over', { n: frame.round })}${t('colon')}${
      frame.went_out === null ? t('turn_limit_reached') : t('went_out_by', { name: playerName(frame.went_out, frame) })}</p>`;
  }
  if (frame.went_out !== null) {
    return html`<p class="banner soft" data-testid="replay-banner">${t('final_turns', { name: playerName(frame.went_out, frame) })}</p>`;
  }
  return nothing;
}

function handView(frame, hand) {
  const seat = hand.seat;
  const player = view.data.game.players.find((p) => p.seat === seat);
  const info = player ? holderAt(player, frame.round) : { name: `#${seat + 1}`, bot: false };
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
  const classes = ['rp-hand', toPlay ? 'turn' : '', acting ? 'acting' : '', frame.went_out === seat ? 'out' : '',
    over && frame.winners.includes(seat) ? 'won' : ''].filter(Boolean).join(' ');
  return html`<li class=${classes} data-testid=${`replay-hand-${seat}`} data-cards=${hand.cards.join(' ')}
    aria-current=${toPlay ? 'true' : nothing}><div class="rp-hand-head">${info.bot ? botIcon() : nothing}<span class="name"
    dir="auto">${displayName(info)}</span>${frame.dealer === seat ? html`<span class="dealer" title=${t('dealer')}
    aria-label=${t('dealer')}>${t('dealer_short')}</span>` : nothing}${toPlay ? html`<span class="tag gold">${t('turn_now')}</span>`
    : nothing}${frame.went_out === seat ? html`<span class="tag gold">${t('went_out_mark')}</span>` : nothing}<span
    class="spacer"></span><span class="penalty" data-testid=${`replay-penalty-${seat}`}>${t('penalty', { n: hand.penalty })}</span><span
    class="rp-total">${t('points', { n: frame.totals[seat] ?? 0 })}</span></div><div class="rp-groups">${groups}</div></li>`;
}

function framePiles(frame) {
  return piles({ ...frame, thrown: frame.action && frame.action.type !== 'draw' }, 'replay-');
}

function scoreTable(frame) {
  if (!frame.scores.length) return nothing;
  const rounds = frame.scores.map((_row, r) => view.roundInfo.get(r + 1));
  return sheetBox(scoreSheet({
    players: view.data.game.players, scores: frame.scores, totals: frame.totals, rounds, testid: 'replay-scores',
    nameLink: (p) => html`<span dir="auto" data-testid=${`replay-name-${p.seat}`}>${holdersName(p)}</span>`,
  }));
}

// Drawn icons (no symbol font needed), pointing forward in English; mirrored by CSS in Persian.
const ICONS = {
  prevRound: svg`<rect x="3" y="3" width="2.2" height="10" rx="0.6"></rect><path d="M13 3v10L6 8z"></path>`,
  prev: svg`<path d="M12 3v10L4 8z"></path>`,
  next: svg`<path d="M4 3v10l8-5z"></path>`,
  nextRound: svg`<path d="M3 3v10l7-5z"></path><rect x="10.8" y="3" width="2.2" height="10" rx="0.6"></rect>`,
  play: svg`<path d="M4.5 2.5v11l9-5.5z"></path>`,
  pause: svg`<rect x="3.5" y="3" width="3" height="10" rx="0.8"></rect><rect x="9.5" y="3" width="3" height="10" rx="0.8"></rect>`,
};

function icon(name, extra = '') {
  return html`<svg class=${`icon ${extra}`.trim()} viewBox="0 0 16 16" width="16" height="16" aria-hidden="true"
    fill="currentColor">${ICONS[name]}</svg>`;
}

function controls(player) {
  const button = (key, label, iconName, onclick, disabled) => html`<button type="button" class="rp-btn"
    data-testid=${`replay-${key}`} data-key=${`replay-${key}`} aria-label=${label} title=${label} ?disabled=${disabled}
    @click=${onclick}>${icon(iconName)}</button>`;
  const atStart = player.index === 0;
  const atEnd = player.index === player.last;
  const playIcon = player.playing ? 'pause' : 'play';
  return html`<div class="rp-controls" role="toolbar" aria-label=${t('rp_controls')}><div class="rp-buttons">${
    button('prev-round', t('rp_prev_round'), 'prevRound', () => player.prevRound(), atStart)}${
    button('prev', t('rp_prev'), 'prev', () => player.prev(), atStart)}<button type="button" class="rp-btn play"
    data-testid="replay-play" data-key="replay-play" aria-pressed=${player.playing ? 'true' : 'false'}
    @click=${() => player.toggle()}>${icon(playIcon, 'noflip')}<span>${
    player.playing ? t('rp_pause') : t('rp_play')}</span></button>${
    button('next', t('rp_next'), 'next', () => player.next(), atEnd)}${
    button('next-round', t('rp_next_round'), 'nextRound', () => player.nextRound(), atEnd)}</div><input class="rp-slider"
    type="range" min="0" max=${player.last} .value=${live(String(player.index))} step="1" aria-label=${t('rp_position')}
    data-testid="replay-slider" data-key="replay-slider" @input=${(e) => player.go(Number(e.currentTarget.value))}></div>`;
}

function roundJumps(player) {
  const current = player.frame.round;
  return html`<nav class="rp-rounds" aria-label=${t('jump_round')}>${player.rounds.map((n) => html`<button type="button"
    class="rp-round" data-testid=${`round-jump-${n}`} data-key=${`round-jump-${n}`} aria-current=${n === current ? 'true' : nothing}
    aria-label=${t('round', { round: n, rounds: 11 })} @click=${() => player.jumpToRound(n)}>${num(n)}</button>`)}</nav>`;
}

function replayTemplate(ctx, actions) {
  const { code } = ctx.route;
  // Opened by the game's id alone (from the standings, which never name a table): back to the standings.
  const backPath = code ? `/r/${code}/history` : STANDINGS_PATH;
  const back = html`<a class="secondary small" href=${backPath} data-testid=${code ? 'back-to-history' : 'back-to-standings'}
    @click=${(e) => { e.preventDefault(); view.player?.stop(); actions.navigate(backPath); }}>${t(code ? 'history' : 'standings')}</a>`;
  const game = view.data?.game;
  const when = game ? game.finished_at ?? game.created_at : null;
  const head = html`<div class="page-head"><h1>${t('replay_title', { n: game ? game.number : '' })}${code
    ? html` <span class="room-code" dir="ltr">${code}</span>` : nothing}</h1>${game ? html`<time class="hint on-felt"
    datetime=${when} data-testid="replay-date">${formatDate(when)}</time>` : nothing}<span class="spacer"></span>${back}</div>`;
  if (view.error || !view.player) {
    return html`<div class="replay" data-testid="replay">${head}${view.error
      ? html`<section class="panel"><p class="error" role="alert">${view.error}</p></section>`
      : html`<p class="loading" role="status">${t('loading')}</p>`}</div>`;
  }
  const player = view.player;
  const frame = player.frame;
  return html`<div class="replay" data-testid="replay" data-index=${String(player.index)} data-round=${String(frame.round)}
    data-kind=${frame.kind} data-phase=${frame.phase} data-playing=${player.playing ? '1' : '0'}>${head}<div class="round-bar"><span
    class="round">${t('round', { round: frame.round, rounds: 11 })}</span><span class="cards-dealt">${t('cards_dealt', { n: frame.cards_dealt })
    }</span><span class="wild-pill">${t('wild', { rank: num(frame.wild_rank) })}</span><span class="spacer"></span><span class="rp-step"
    data-testid="replay-step">${t('step_of', { i: player.index + 1, n: player.last + 1 })}</span></div>${roundJumps(player)}${
    controls(player)}${banner(frame)}<div class="rp-body"><div class="rp-main"><div
    class="felt rp-felt">${framePiles(frame)}<p class="status" data-testid="replay-action"
    aria-live="polite">${describe(frame)}</p></div><ul class=${frame.hands.length > 3 ? 'rp-hands many' : 'rp-hands'}
    aria-label=${t('rp_hands')}>${frame.hands.map((hand) => handView(frame, hand))}</ul>${
    TOUCH.matches ? nothing : html`<p class="hint on-felt rp-keys">${t('rp_keys')}</p>`}</div><aside class="rp-side">${
    frame.scores.length ? html`<section class="panel rp-sheet">${scoreTable(frame)}</section>`
      : nothing}</aside></div></div>`;
}

function renderReplay(root, ctx, actions) {
  const { gameId } = ctx.route;
  view.target = { root, ctx, actions };
  if (view.gameId !== gameId) {
    view.player?.stop();
    Object.assign(view, { gameId, data: null, error: null, player: null, roundInfo: new Map() });
    load(ctx, gameId, actions);
  }
  render(replayTemplate(ctx, actions), root);
  if (view.player) spreadHands(root);
  fitCues(root);
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
  const root = document.createElement('div');
  container.replaceChildren(root);
  document.addEventListener('keydown', onKey);
  const refit = () => spreadHands(root);
  window.addEventListener('resize', refit);
  return {
    render: (ctx) => renderReplay(root, ctx, actions),
    stop() {
      document.removeEventListener('keydown', onKey);
      window.removeEventListener('resize', refit);
      view.player?.stop();
      Object.assign(view, { gameId: null, data: null, error: null, player: null, roundInfo: new Map(), target: null });
    },
  };
}
