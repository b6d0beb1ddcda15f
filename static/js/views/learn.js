// "How to play": a short walkthrough in a dialog (the goal and the rounds, a turn, melds, going out, scoring,
// the coach), with real cards drawn as the table draws them; and its offer on a first visit (home page and a
// room link's join form), shown once per browser and never in the way of the form.
import { cardBack, cardEl } from '../cards.js';
import { h, mount } from '../dom.js';
import { num, t } from '../i18n.js';
import { learnOffered, setLearnOffered } from '../storage.js';
import { coachSwitch } from './coach.js';
import { meldGroups } from './widgets.js';
import '../i18n-learn.js';

const WILD = ['3', '4', '5', '6', '7', '8', '9', '10', 'J', 'Q', 'K'];

/** A row of face-up cards under a caption (``wildRank``: those of that rank are marked wild). */
function picture(caption, cards, { wildRank = null, mark = null } = {}) {
  return h('figure.learn-figure', {},
    h('div.learn-cards', { dir: 'ltr' }, cards.map((c) => cardEl(c, { small: true, wildRank, extraClass: mark?.(c) ?? null }))),
    h('figcaption', {}, caption));
}

function roundsTable() {
  const row = (head, cells) => h('tr', {}, h('th', { scope: 'row' }, head), cells.map((c) => h('td', {}, num(c))));
  return h('div.learn-rounds-wrap', {}, h('table.learn-rounds', { 'data-testid': 'learn-rounds' },
    h('caption', {}, t('learn_rounds_caption')),
    h('tbody', {},
      row(t('learn_row_round'), WILD.map((_, i) => i + 1)),
      row(t('learn_row_cards'), WILD.map((_, i) => i + 3)),
      row(t('learn_row_wild'), WILD))));
}

/** The pages, each {title, body()}; drawn when shown, in the page's language. */
const PAGES = [
  { key: 'goal', title: 'learn_goal_title', body: () => [
    h('p', {}, t('learn_goal_1')), h('p', {}, t('learn_goal_2')), roundsTable(), h('p', {}, t('learn_goal_3'))] },
  { key: 'turn', title: 'learn_turn_title', body: () => [
    h('p', {}, t('learn_turn_1')),
    h('figure.learn-figure', {},
      h('div.learn-cards.learn-piles', { dir: 'ltr' }, cardBack({ small: true }), cardEl('7H', { small: true })),
      h('figcaption', {}, t('learn_draw_from'))),
    h('p', {}, t('learn_turn_2')), h('p', {}, t('learn_turn_3'))] },
  { key: 'melds', title: 'learn_melds_title', body: () => [
    h('p', {}, t('learn_melds_1')),
    h('div.learn-row', {},
      picture(t('learn_meld_set'), ['7S', '7H', '7D']),
      picture(t('learn_meld_run'), ['4H', '5H', '6H', '7H'])),
    h('p', {}, t('learn_melds_2')),
    picture(t('learn_meld_wild'), ['QH', 'KH', '3S'], { wildRank: '3' })] },
  { key: 'out', title: 'learn_out_title', body: () => [
    h('p', {}, t('learn_out_1')),
    h('figure.learn-figure', {},
      h('div.learn-melds', { dir: 'ltr' },
        meldGroups([{ kind: 'set', cards: ['9C', '9H', '9D'] }, { kind: 'run', cards: ['JS', '6D', 'KS'] }], { wildRank: '6', small: true }),
        h('div.group', {}, h('span.group-label', {}, t('go_out')), h('div.cards', {}, cardEl('2H', { small: true, extraClass: 'go-out-card' })))),
      h('figcaption', {}, t('learn_out_example'))),
    h('p', {}, t('learn_out_2'))] },
  { key: 'score', title: 'learn_score_title', body: () => [
    h('p', {}, t('learn_score_1')),
    picture(t('learn_score_example'), ['9H', '4D', 'KS'], { wildRank: '3' }),
    h('p', {}, t('learn_score_2'))] },
  { key: 'coach', title: 'learn_coach_title', body: () => [
    h('p', {}, t('learn_coach_1')), h('p', {}, t('learn_coach_2')),
    coachSwitch('learn-coach', t('learn_coach_switch'))] },
];

let closeOpen = null; // the walkthrough being shown: opening it again replaces it

/**
 * Open the walkthrough as a modal dialog: Back and Next (and the arrow keys, and a swipe) turn the pages,
 * Escape or a tap outside closes it, the keyboard stays inside, and focus goes back where it was.
 * ``onClose`` is called once it is closed (the coach may have been switched).
 */
export function openWalkthrough({ onClose = () => {}, page = 0 } = {}) {
  closeOpen?.();
  const before = document.activeElement;
  let index = Math.max(0, Math.min(page, PAGES.length - 1));
  const rtl = () => document.documentElement.dir === 'rtl';

  const title = h('h2', { id: 'learn-title', tabindex: '-1' });
  const body = h('div.learn-body', { 'data-testid': 'learn-body' });
  const counter = h('p.learn-counter', { 'data-testid': 'learn-counter', 'aria-live': 'polite' });
  const dots = h('div.learn-dots', { 'aria-hidden': 'true' });
  const back = h('button.secondary', { type: 'button', 'data-testid': 'learn-back' }, t('learn_back'));
  const next = h('button.primary', { type: 'button', 'data-testid': 'learn-next' });
  const close = h('button.link.learn-close', { type: 'button', 'data-testid': 'learn-close', 'aria-label': t('close'), title: t('close') }, '×');
  const dialog = h('div.dialog.learn-dialog', {
    role: 'dialog', 'aria-modal': 'true', 'aria-labelledby': 'learn-title', 'data-testid': 'learn',
  },
  h('div.learn-head', {}, h('span.learn-kicker', {}, t('learn_title')), close),
  title, body,
  h('p.hint.learn-swipe', {}, t('learn_swipe')),
  h('div.learn-foot', {}, back, dots, counter, next));
  const backdrop = h('div.backdrop.learn-backdrop', {}, dialog);

  function draw(focusTitle) {
    const p = PAGES[index];
    dialog.dataset.page = p.key;
    title.textContent = t(p.title);
    mount(body, p.body());
    counter.textContent = t('learn_page', { n: index + 1, total: PAGES.length });
    mount(dots, PAGES.map((_, i) => h('span.learn-dot', { class: i === index ? 'on' : '' })));
    back.disabled = index === 0;
    next.textContent = index === PAGES.length - 1 ? t('learn_done') : t('learn_next');
    if (focusTitle) title.focus({ preventScroll: true });
  }

  const turn = (step) => {
    const to = index + step;
    if (to < 0) return;
    if (to >= PAGES.length) { finish(); return; }
    index = to;
    draw(false);
  };

  function finish() {
    if (closeOpen !== finish) return;
    closeOpen = null;
    backdrop.remove();
    onClose(); // may draw the page again: the control that opened the walkthrough may be a new element
    const back = before?.isConnected ? before : before?.dataset?.testid
      && document.querySelector(`[data-testid="${CSS.escape(before.dataset.testid)}"]`);
    if (back instanceof HTMLElement) back.focus({ preventScroll: true });
  }
  closeOpen = finish;

  back.addEventListener('click', () => turn(-1));
  next.addEventListener('click', () => turn(1));
  close.addEventListener('click', finish);
  backdrop.addEventListener('click', (event) => { if (event.target === backdrop) finish(); });
  backdrop.addEventListener('keydown', (event) => {
    if (event.key === 'Escape') {
      event.stopPropagation();
      finish();
    } else if ((event.key === 'ArrowRight' || event.key === 'ArrowLeft') && !(event.target instanceof HTMLInputElement)) {
      event.preventDefault(); // the arrow towards the reading direction's end is "next"
      turn((event.key === 'ArrowRight') !== rtl() ? 1 : -1);
    } else if (event.key === 'Tab') { // the keyboard goes round the dialog's own controls
      const stops = [...dialog.querySelectorAll('button:not([disabled]), input')];
      if (!stops.length) return;
      const at = stops.indexOf(document.activeElement);
      event.preventDefault();
      const to = event.shiftKey ? (at <= 0 ? stops.length - 1 : at - 1) : (at === -1 || at === stops.length - 1 ? 0 : at + 1);
      stops[to].focus();
    }
  });
  // A swipe across the dialog turns the page (towards the reading direction's start: next).
  let start = null;
  dialog.addEventListener('pointerdown', (event) => { start = { x: event.clientX, y: event.clientY }; });
  dialog.addEventListener('pointerup', (event) => {
    if (!start) return;
    const dx = event.clientX - start.x;
    const dy = event.clientY - start.y;
    start = null;
    if (Math.abs(dx) < 50 || Math.abs(dx) < Math.abs(dy) * 1.5) return;
    turn((dx < 0) !== rtl() ? 1 : -1);
  });
  dialog.addEventListener('pointercancel', () => { start = null; });

  document.body.append(backdrop);
  draw(false);
  next.focus();
  return finish;
}

// The offer on a first visit: shown on the first page this browser opens (and for as long as that page lasts,
// across language switches), then never again; the walkthrough stays a tap away in the top bar.
let offering = null; // null: not decided yet; true: shown on this page; false: not (or dismissed)

/** The "New here? How to play" banner, or null where it is not offered. ``onOpen``: open the walkthrough. */
export function learnOffer(onOpen) {
  if (offering === null) {
    offering = !learnOffered();
    if (offering) setLearnOffered();
  }
  if (!offering) return null;
  const banner = h('aside.learn-offer', { 'data-testid': 'learn-offer', 'aria-label': t('learn_open') },
    h('span.learn-offer-text', {}, t('learn_new_here')),
    h('button.primary.small', {
      type: 'button', 'data-testid': 'learn-offer-open',
      onclick: () => { offering = false; banner.remove(); onOpen(); },
    }, t('learn_open')),
    h('button.link', {
      type: 'button', 'data-testid': 'learn-offer-dismiss',
      onclick: () => { offering = false; banner.remove(); },
    }, t('learn_dismiss')));
  return banner;
}
