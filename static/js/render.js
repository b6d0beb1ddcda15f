// Drawing the state (called by state.js once per batch of changes, never directly): the top bar, the main area's
// view (by the route's key: a page's view is made when the page is entered, stopped when it goes), the dialog
// over a table, and where the keyboard goes when its element went with an update. Every page is a lit-html
// template drawn into an element of its own: a render touches only what changed, so a field being typed in
// keeps its text and the keyboard whatever causes the render (a late module, data arriving, a language switch).
import { html, nothing, render } from './html.js';
import { lang, setLang, t } from './i18n.js';
import { change } from './state.js';
import { learnOffered, notifyOn } from './storage.js';
import { importOnce, isLoaded, loadFailed, view } from './loader.js';
import { settingsButton } from './views/settings.js';

export const els = {
  top: document.getElementById('topbar'),
  main: document.getElementById('main'),
  chat: document.getElementById('chat'),
  overlay: document.getElementById('overlay'),
  toast: document.getElementById('toast'),
};

let ctx = null;
let actions = null;

/** What render() draws: the state and the actions its views call (app.js gives them once). */
export function drawing(state, theActions) {
  ctx = state;
  actions = theActions;
}

let toastTimer = null;
/** A line at the foot of the page for a few seconds. */
export function toast(message) {
  els.toast.textContent = message;
  els.toast.classList.add('show');
  clearTimeout(toastTimer);
  toastTimer = setTimeout(() => els.toast.classList.remove('show'), 4000);
}

// The view in the main area: made when the page changes, stopped (timers, listeners) when it goes.
let active = { key: null, view: null };
let refocus = false; // the view that had the keyboard went: give it to the next one's first thing to do

function show(key, create) {
  if (active.key !== key) {
    active.view?.stop?.();
    // Another view takes the main area: if the keyboard was in it, it goes to the next thing to do there.
    if (els.main.contains(document.activeElement)) refocus = true;
    active = { key, view: create() };
  }
  return active.view;
}

/** Stop the current view, so that the next render makes a fresh one (a new page). */
export function dropView() {
  active.view?.stop?.();
  active = { key: null, view: null };
  els.main.replaceChildren();
}

/**
 * A page drawn from ``template(ctx, actions)`` into an element of its own, made when the page (``key``) is
 * entered: ``enter(ctx, actions)`` then (its first fetch), ``focus(root)`` after its first render; ``offer``:
 * the walkthrough's offer on a first visit, 'above' or 'below' the page.
 */
function pageView(key, template, { enter, focus, offer } = {}) {
  const page = show(key, () => {
    const root = document.createElement('div');
    els.main.replaceChildren(root);
    enter?.(ctx, actions);
    return { root, fresh: true };
  });
  const banner = offer ? learnOfferPart() : nothing;
  render(html`${offer === 'above' ? banner : nothing}${template(ctx, actions)}${offer === 'below' ? banner : nothing}`, page.root);
  if (page.fresh) {
    page.fresh = false;
    focus?.(page.root);
  }
}

const loadingTemplate = (text) => () => html`<p class="loading" role="status">${text}</p>`;

const notFoundTemplate = () => html`<section class="panel narrow" data-testid="not-found"><p>${t('page_not_found')}</p><button
  type="button" class="primary" @click=${() => actions.goHome()}>${t('home_link')}</button></section>`;

const errorTemplate = (c) => html`<section class="panel narrow"><p class="error" role="alert">${c.error}</p><button type="button"
  class="primary" @click=${() => actions.goHome()}>${t('home_link')}</button></section>`;

function showLoading(text = t('loading')) {
  pageView('loading', loadingTemplate(text));
}

/** "How to play": the walkthrough in a dialog (the coach may be switched on its last page). */
export function openLearn() {
  importOnce('./views/learn.js')
    .then((module) => module.openWalkthrough({ onClose: () => change() }), () => toast(t('err_network')));
}

/** On a first visit, the offer of the walkthrough is on its way (its module is asked for here): the home page
 * waits for it, as the offer stands above the form; drawn first, the form would then move down under a finger
 * about to press something. A module that cannot come holds nothing. */
const offerOnItsWay = () => !learnOffered() && !loadFailed('learn') && !view('learn', { optional: true });

/** On a first visit, the offer of the walkthrough (the home page and a room link's join form). */
function learnOfferPart() {
  if (learnOffered() && !isLoaded('learn')) return nothing; // offered before: no need to load it
  if (loadFailed('learn')) return nothing; // it could not come: the next visit offers it
  const module = view('learn', { optional: true });
  return module ? module.learnOffer(openLearn, () => change()) : nothing;
}

function topTemplate() {
  const inRoom = !!ctx.route.code;
  const conn = inRoom && ctx.conn && ctx.conn !== 'online' ? ctx.conn : null;
  const other = lang() === 'en' ? 'fa' : 'en';
  // The brand's name holds the printed mark too (label in name, WCAG 2.5.3): on a phone in a room only the
  // mark shows. The language button is named by its visible text (the other language's name).
  return html`<a class="brand" href="/" aria-label=${`3|13 ${t('app_title')}`} @click=${(e) => { e.preventDefault(); actions.goHome(); }}
    ><span class="brand-mark" aria-hidden="true">3|13</span> <span class="brand-text">${t('app_title')}</span></a>${inRoom
    ? html`<span class="room-code" dir="ltr">${ctx.route.code}</span>` : nothing}<span class="spacer"></span>${conn
    ? html`<span class=${`conn ${conn}`} role="status" data-testid="conn">${t(`conn_${conn}`)}</span>` : nothing}${inRoom
    ? html`<button type="button" class="bell" data-testid="notify" aria-pressed=${notifyOn() ? 'true' : 'false'}
      aria-label=${t('notify_label')} title=${t('notify_label')} @click=${() => actions.toggleNotify()}>${notifyOn() ? '🔔' : '🔕'}</button>` : nothing}<button
    type="button" class="bell learn-open" data-testid="learn-open" aria-label=${t('learn_open')} title=${t('learn_open')}
    @click=${() => openLearn()}>?</button>${settingsButton(() => change())}<button type="button" class="lang" data-testid="lang"
    lang=${other} title=${t('lang_other_label')} @click=${() => setLang(other)}>${t('lang_other')}</button>`;
}

/** Draw the state: called by state.js once per batch of changes (never directly). */
export function renderAll() {
  const before = document.activeElement;
  const hadKeyboard = (els.main.contains(before) && before !== els.main) || els.overlay.contains(before);
  els.top.classList.toggle('in-room', !!ctx.route.code);
  render(topTemplate(), els.top);
  drawMain();
  // The keyboard was in the main area (or a dialog) and its element is gone (the view changed; the button
  // pressed is no longer offered; the card thrown; the dialog closed and what it came from is gone): to the
  // next thing to do there, never the page.
  if (refocus || (hadKeyboard && !before.isConnected)) keepKeyboardNear(before);
  refocus = false;
}

function clearOverlay() {
  els.overlay.replaceChildren();
}

/** A page of its own module (home, history, standings): loading until the module is here. */
function modulePage(name, key, draw) {
  clearOverlay();
  const module = view(name);
  if (!module) showLoading();
  else draw(module, key);
}

function drawMain() {
  const myTurn = ctx.game && ctx.seat !== null && ctx.game.turn === ctx.seat && ctx.game.phase !== 'game_over';
  document.title = (myTurn ? '● ' : '') + (ctx.route.code ? `${ctx.route.code} – ` : '') + t('app_title');
  const page = ctx.route.view;
  if (page !== 'room') els.chat.hidden = true;
  if (page === 'home') {
    modulePage('home', 'home', (m) => (offerOnItsWay() ? showLoading() : pageView('home', m.homeTemplate, { offer: 'above', enter: m.enter })));
  } else if (page === 'not_found') {
    pageView('not_found', notFoundTemplate);
  } else if (page === 'standings' || page === 'history') {
    modulePage(page, page, (m) => pageView(page, m[`${page}Template`], { enter: m.enter }));
  } else if (page === 'replay') {
    modulePage('replay', 'replay', (m) => show('replay', () => m.createReplayView(els.main, actions)).render(ctx));
  } else if (ctx.error) {
    els.chat.hidden = true;
    pageView(`error:${ctx.error}`, errorTemplate);
  } else if (ctx.joinInfo) {
    els.chat.hidden = true;
    const join = view('join');
    if (!join) showLoading();
    else pageView('join', join.joinTemplate, { offer: 'below', focus: join.focusFirst });
  } else {
    drawRoom();
  }
}

function drawRoom() {
  const inLobby = ctx.room && (ctx.room.status === 'lobby' || !ctx.game);
  const main = ctx.room && view(inLobby ? 'lobby' : 'table');
  if (!main) {
    showLoading(t('conn_connecting'));
    return;
  }
  // The game starting (or ending) replaces the whole page: it opens at its top, not where the lobby was
  // scrolled to (Start sits low in a phone's lobby: the table opened with its players under the top bar).
  const key = inLobby ? 'lobby' : 'table';
  const switched = active.key !== key && ['lobby', 'table'].includes(active.key);
  if (inLobby) show('lobby', () => main.createLobbyView(els.main, actions)).render(ctx);
  else show('table', () => main.createTableView(els.main, actions)).render(ctx);
  if (switched) window.scrollTo(0, 0);
  view('chat')?.renderChatPanel(els.chat, ctx, actions);
  view('scores')?.renderOverlay(els.overlay, ctx, actions);
}

/** The keyboard's element ``lost`` went with an update: a card thrown gives it to the card now in its place
 * (or the hand's last), anything else to the stock if it is ours to draw, else the hand, else the scores. */
function keepKeyboardNear(lost) {
  if (document.activeElement && document.activeElement !== document.body) return;
  if (els.overlay.querySelector('dialog')) return; // the dialog has it
  const cards = [...els.main.querySelectorAll('.hand .card')];
  const index = lost?.matches?.('.card[data-index]') ? Number(lost.dataset.index) : NaN; // a card of the hand
  const target = (Number.isInteger(index) && cards.length ? cards[Math.min(index, cards.length - 1)] : null)
    ?? els.main.querySelector('[data-key=stock].ready') ?? cards[0]
    ?? els.main.querySelector('[data-testid=scores]');
  target?.focus({ preventScroll: true });
}
