// "How to play": a short walkthrough in a dialog (the goal and the rounds, a turn, melds, going out, scoring,
// the coach), with real cards drawn as the table draws them; and its offer on a first visit (home page and a
// room link's join form), shown once per browser and never in the way of the form.
import { cardBackTemplate, cardTemplate } from '../card-template.js';
import { html, nothing, render } from '../html.js';
import { num, t } from '../i18n.js';
import { learnOffered, setLearnOffered } from '../storage.js';
import { coachSwitch } from './coach.js';
import { meldGroups } from './widgets.js';
import '../i18n-learn.js';
import '../i18n-table.js';

const WILD = ['3', '4', '5', '6', '7', '8', '9', '10', 'J', 'Q', 'K'];

/** A row of face-up cards under a caption (``wildRank``: those of that rank are marked wild). */
function picture(caption, cards, { wildRank = null, mark = null } = {}) {
  return html`<figure class="learn-figure"><div class="learn-cards" dir="ltr">${cards.map((c) => cardTemplate(c,
    { small: true, wildRank, extraClass: mark?.(c) ?? null }))}</div><figcaption>${caption}</figcaption></figure>`;
}

function roundsTable() {
  const row = (head, cells) => html`<tr><th scope="row">${head}</th>${cells.map((c) => html`<td>${num(c)}</td>`)}</tr>`;
  return html`<div class="learn-rounds-wrap"><table class="learn-rounds" data-testid="learn-rounds"><caption>${
    t('learn_rounds_caption')}</caption><tbody>${row(t('learn_row_round'), WILD.map((_, i) => i + 1))}${
    row(t('learn_row_cards'), WILD.map((_, i) => i + 3))}${row(t('learn_row_wild'), WILD)}</tbody></table></div>`;
}

const para = (key) => html`<p>${t(key)}</p>`;

/** The pages, each {title, body()}; drawn when shown, in the page's language. */
const PAGES = [
  { key: 'goal', title: 'learn_goal_title', body: () => html`${para('learn_goal_1')}${para('learn_goal_2')}${roundsTable()}${
    para('learn_goal_3')}` },
  { key: 'turn', title: 'learn_turn_title', body: () => html`${para('learn_turn_1')}<figure class="learn-figure"><div
    class="learn-cards learn-piles" dir="ltr">${cardBackTemplate({ small: true })}${cardTemplate('7H', { small: true })}</div><figcaption>${
    t('learn_draw_from')}</figcaption></figure>${para('learn_turn_2')}${para('learn_turn_3')}` },
  { key: 'melds', title: 'learn_melds_title', body: () => html`${para('learn_melds_1')}<div class="learn-row">${
    picture(t('learn_meld_set'), ['7S', '7H', '7D'])}${picture(t('learn_meld_run'), ['4H', '5H', '6H', '7H'])}</div>${
    para('learn_melds_2')}${picture(t('learn_meld_wild'), ['QH', 'KH', '3S'], { wildRank: '3' })}` },
  { key: 'out', title: 'learn_out_title', body: () => html`${para('learn_out_1')}<figure class="learn-figure"><div class="learn-melds"
    dir="ltr">${meldGroups([{ kind: 'set', cards: ['9C', '9H', '9D'] }, { kind: 'run', cards: ['JS', '6D', 'KS'] }],
    { wildRank: '6', small: true })}<div class="group"><span class="group-label">${t('go_out')}</span><div class="cards">${
    cardTemplate('2H', { small: true, extraClass: 'go-out-card' })}</div></div></div><figcaption>${t('learn_out_example')}</figcaption></figure>${
    para('learn_out_2')}` },
  { key: 'score', title: 'learn_score_title', body: () => html`${para('learn_score_1')}${
    picture(t('learn_score_example'), ['9H', '4D', 'KS'], { wildRank: '3' })}${para('learn_score_2')}` },
  { key: 'coach', title: 'learn_coach_title', body: () => html`${para('learn_coach_1')}${para('learn_coach_2')}${
    coachSwitch('learn-coach', t('learn_coach_switch'))}` },
];

/** The dialog at page ``index`` (``turn(step)``, ``finish()``: its buttons). */
function walkthroughTemplate(index, turn, finish) {
  const p = PAGES[index];
  const last = index === PAGES.length - 1;
  return html`<div class="dialog learn-dialog" role="dialog" aria-modal="true" aria-labelledby="learn-title" data-testid="learn"
    data-page=${p.key}><div class="learn-head"><span class="learn-kicker">${t('learn_title')}</span><button type="button"
    class="link learn-close" data-testid="learn-close" aria-label=${t('close')} title=${t('close')} @click=${finish}>×</button></div><h2
    id="learn-title" tabindex="-1">${t(p.title)}</h2><div class="learn-body" data-testid="learn-body">${p.body()}</div><p
    class="hint learn-swipe">${t('learn_swipe')}</p><div class="learn-foot"><button type="button" class="secondary"
    data-testid="learn-back" ?disabled=${index === 0} @click=${() => turn(-1)}>${t('learn_back')}</button><div class="learn-dots"
    aria-hidden="true">${PAGES.map((_, i) => html`<span class=${i === index ? 'learn-dot on' : 'learn-dot'}></span>`)}</div><p
    class="learn-counter" data-testid="learn-counter" aria-live="polite">${t('learn_page', { n: index + 1, total: PAGES.length })}</p><button
    type="button" class="primary" data-testid="learn-next" @click=${() => turn(1)}>${last ? t('learn_done') : t('learn_next')}</button></div></div>`;
}

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

  const backdrop = document.createElement('div');
  backdrop.className = 'backdrop learn-backdrop';
  const draw = () => render(walkthroughTemplate(index, turn, finish), backdrop);

  const turn = (step) => {
    const to = index + step;
    if (to < 0) return;
    if (to >= PAGES.length) { finish(); return; }
    index = to;
    draw();
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

  draw();
  const dialog = backdrop.firstElementChild;
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
  dialog.querySelector('[data-testid=learn-next]').focus();
  return finish;
}

// The offer on a first visit: shown on the first page this browser opens (and for as long as that page lasts,
// across language switches), then never again; the walkthrough stays a tap away in the top bar.
let offering = null; // null: not decided yet; true: shown on this page; false: not (or dismissed)

/** Whether the offer shows on this page (decided once, on the first page that asks: then never again). */
export function learnOffering() {
  if (offering === null) {
    offering = !learnOffered();
    if (offering) setLearnOffered();
  }
  return offering;
}

/** The "New here? How to play" banner, or nothing where it is not offered. ``onOpen``: open the walkthrough;
 * ``onGone``: the page draws itself again without it. */
export function learnOffer(onOpen, onGone) {
  if (!learnOffering()) return nothing;
  const gone = () => { offering = false; onGone(); };
  return html`<aside class="learn-offer" data-testid="learn-offer" aria-label=${t('learn_open')}><span class="learn-offer-text">${
    t('learn_new_here')}</span><button type="button" class="primary small" data-testid="learn-offer-open"
    @click=${() => { gone(); onOpen(); }}>${t('learn_open')}</button><button type="button" class="link"
    data-testid="learn-offer-dismiss" @click=${gone}>${t('learn_dismiss')}</button></aside>`;
}
