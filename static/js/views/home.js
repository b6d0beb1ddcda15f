// The home page: open a new table (name, seats, bots, house rules) or join one by its code. A function of the
// state: what the forms hold besides the typed text (seats, bots, rules, an error, a request under way) is the
// page's part of it (``ctx.page``, changed by ``actions.setPage``); the fields keep what is typed across renders.
import { coachOn, savedName, saveName } from '../storage.js';
import { html, nothing } from '../html.js';
import { live } from '../html-directives.js';
import { errorText, num, t } from '../i18n.js';
import { config, seatCounts } from '../config.js';
import { botIcon } from './faces.js';
import { standingsLink } from './standings-links.js';
import { DEFAULT_OPTIONS, optionRows } from './options.js';
import { enterTables, tablesTemplate } from './my-tables.js';

/** The page was entered: "Your tables" asks the server about them once the page is drawn. */
export const enter = enterTables;

/** The home page's part of the state, as a fresh page starts it. A newcomer who asked for the coach (the
 * walkthrough's last page) opens a table with hints on: the coach works only where they are (issue 37). */
function form(ctx) {
  const options = coachOn() ? { ...DEFAULT_OPTIONS, hints: true } : DEFAULT_OPTIONS;
  return { seats: config.seats.min, bots: [], options, createError: '', joinError: '', creating: false, ...ctx.page };
}

/** With the coach on: whether it will work at the table these options make (it needs hints, or practice). */
function coachNote(f) {
  if (!coachOn()) return nothing;
  return html`<p class=${f.options.hints ? 'hint' : 'hint warn'} data-testid="coach-hints-note">${
    t(f.options.hints ? 'coach_hints_on' : 'coach_hints_off')}</p>`;
}

async function create(event, ctx, actions) {
  event.preventDefault();
  const input = event.currentTarget.querySelector('[data-testid=create-name]');
  const name = input.value.trim();
  if (!name) { actions.setPage({ createError: t('err_name') }); input.focus(); return; }
  saveName(name);
  const { seats, bots, options } = form(ctx);
  actions.setPage({ createError: '', creating: true });
  try {
    await actions.create({ name, seats, bots, options });
  } catch (err) {
    actions.setPage({ createError: errorText(err), creating: false });
  }
}

async function join(event, actions) {
  event.preventDefault();
  const codeInput = event.currentTarget.querySelector('[data-testid=join-code]');
  const nameInput = event.currentTarget.querySelector('#join-name');
  const code = codeInput.value.trim().toUpperCase().replace(/[^A-Z0-9]/g, '');
  const name = nameInput.value.trim();
  if (!name) { actions.setPage({ joinError: t('err_name') }); nameInput.focus(); return; }
  if (!code) { codeInput.focus(); return; }
  saveName(name);
  try {
    await actions.join(code, name);
  } catch (err) {
    actions.setPage({ joinError: err.status === 404 ? t('err_not_found') : errorText(err) });
  }
}

function botRows(f, actions) {
  const setBots = (bots) => actions.setPage({ bots });
  const rows = f.bots.map((level, i) => html`<div class="bot-row">${botIcon()}<select aria-label=${t('bot_level')}
    .value=${live(level)} @change=${(e) => setBots(f.bots.map((l, j) => (j === i ? e.currentTarget.value : l)))}>${
    config.bot_levels.map((l) => html`<option value=${l} ?selected=${l === level}>${t(`bot_${l}`)}</option>`)}</select><button
    type="button" class="link" @click=${() => setBots(f.bots.filter((_, j) => j !== i))}>${t('remove')}</button></div>`);
  const canAdd = f.bots.length < f.seats - 1;
  return html`<div class="bots">${rows.length ? rows : html`<p class="hint">${t('bots_none')}</p>`}${canAdd
    ? html`<button type="button" class="secondary" data-testid="add-bot"
      @click=${() => setBots([...f.bots, config.default_bot_level])}>+ ${t('add_bot')}</button>` : nothing}</div>`;
}

/** The home page as the state has it. */
export function homeTemplate(ctx, actions) {
  const f = form(ctx);
  const name = savedName();
  const seatsChanged = (event) => {
    const seats = Number(event.currentTarget.value);
    actions.setPage({ seats, bots: f.bots.slice(0, seats - 1) });
  };
  const createForm = html`<form class="panel create" aria-labelledby="create-title" @submit=${(e) => create(e, ctx, actions)}><h2
    id="create-title">${t('create_title')}</h2><div class="field"><label for="create-name">${t('your_name')}</label><input
    id="create-name" name="name" required maxlength="32" autocomplete="nickname" placeholder=${t('name_placeholder')}
    data-testid="create-name" .value=${name}></div><div class="field"><label for="create-seats">${t('seats')}</label><select
    id="create-seats" data-testid="create-seats" .value=${live(String(f.seats))} @change=${seatsChanged}>${seatCounts().map((n) => html`<option
    value=${String(n)} ?selected=${n === f.seats}>${num(n)}</option>`)}</select><p class="hint">${t('seats_hint')}</p></div><fieldset><legend>${
    t('bots')}</legend>${botRows(f, actions)}</fieldset><details class="rules-box" open><summary>${t('options_title')}</summary><div>${
    optionRows(f.options, (partial) => actions.setPage({ options: { ...f.options, ...partial } }))}</div></details>${coachNote(f)}<p
    class="error" role="alert">${f.createError}</p><button type="submit" class="primary big" data-testid="create" ?disabled=${f.creating}>${
    t('create_button')}</button></form>`;
  const joinForm = html`<form class="panel join" aria-labelledby="join-title" @submit=${(e) => join(e, actions)}><h2 id="join-title">${
    t('join_title')}</h2><div class="field"><label for="join-code">${t('code')}</label><input id="join-code" name="code" required
    maxlength="12" autocomplete="off" autocapitalize="characters" spellcheck="false" placeholder=${t('code_placeholder')} dir="ltr"
    data-testid="join-code"></div><div class="field"><label for="join-name">${t('your_name')}</label><input id="join-name" name="name"
    required maxlength="32" autocomplete="nickname" placeholder=${t('name_placeholder')} .value=${name}></div><p class="error"
    role="alert">${f.joinError}</p><button type="submit" class="primary" data-testid="join">${t('join_button')}</button></form>`;
  const rules = html`<section class="panel rules" aria-labelledby="rules-title"><h2 id="rules-title">${t('rules_title')}</h2><ol>${
    ['rules_1', 'rules_2', 'rules_3', 'rules_4'].map((k) => html`<li>${t(k)}</li>`)}</ol></section>`;
  return html`<div class="home" data-view="home"><section class="hero"><div class="hero-cards" aria-hidden="true">${
    ['3♠', 'K♥', '7♦'].map((c, i) => html`<span class=${i ? 'hero-card red' : 'hero-card'}>${c}</span>`)}</div><h1>${t('app_title')}</h1><p
    class="tagline">${t('tagline')}</p>${standingsLink(actions, 'secondary home-standings')}</section>${tablesTemplate(ctx)}<div class="home-grid">${
    createForm}<div class="stack">${joinForm}${rules}</div></div></div>`;
}
