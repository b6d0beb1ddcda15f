// The home page: open a new table (name, seats, bots, house rules) or join one by its code.
import { savedName, saveName } from '../storage.js';
import { h, mount } from '../dom.js';
import { errorText, num, t } from '../i18n.js';
import { config, seatCounts } from '../config.js';
import { botIcon } from './widgets.js';
import { standingsLink } from './standings-links.js';
import { DEFAULT_OPTIONS, optionRows } from './options.js';

export function renderHome(container, actions) {
  const form = { name: savedName(), seats: config.seats.min, bots: [], options: { ...DEFAULT_OPTIONS } };

  const nameInput = h('input', {
    id: 'create-name', name: 'name', required: true, maxlength: 32, autocomplete: 'nickname',
    placeholder: t('name_placeholder'), 'data-testid': 'create-name', value: form.name,
  });
  const seatsSelect = h('select', { id: 'create-seats', 'data-testid': 'create-seats' },
    seatCounts().map((n) => h('option', { value: String(n) }, num(n))));
  seatsSelect.value = String(form.seats);
  const botList = h('div.bots');
  const optionsBox = h('div');
  const createError = h('p.error', { role: 'alert' });

  function drawBots() {
    const rows = form.bots.map((level, i) => {
      const sel = h('select', { 'aria-label': t('bot_level'), onchange: () => { form.bots[i] = sel.value; } },
        config.bot_levels.map((l) => h('option', { value: l }, t(`bot_${l}`))));
      sel.value = level;
      return h('div.bot-row', {},
        botIcon(),
        sel,
        h('button.link', { type: 'button', onclick: () => { form.bots.splice(i, 1); drawBots(); } }, t('remove')));
    });
    const canAdd = form.bots.length < form.seats - 1;
    mount(botList,
      rows.length ? rows : h('p.hint', {}, t('bots_none')),
      canAdd ? h('button.secondary', {
        type: 'button', 'data-testid': 'add-bot',
        onclick: () => { form.bots.push(config.default_bot_level); drawBots(); },
      }, '+ ', t('add_bot')) : null);
  }

  function drawOptions() {
    mount(optionsBox, optionRows(form.options, (partial) => {
      Object.assign(form.options, partial);
      drawOptions();
    }));
  }

  seatsSelect.addEventListener('change', () => {
    form.seats = Number(seatsSelect.value);
    form.bots = form.bots.slice(0, form.seats - 1);
    drawBots();
  });

  const createForm = h('form.panel.create', {
    'aria-labelledby': 'create-title',
    onsubmit: async (event) => {
      event.preventDefault();
      const name = nameInput.value.trim();
      if (!name) { createError.textContent = t('err_name'); nameInput.focus(); return; }
      saveName(name);
      createError.textContent = '';
      submit.disabled = true;
      try {
        await actions.create({ name, seats: form.seats, bots: form.bots, options: form.options });
      } catch (err) {
        createError.textContent = errorText(err);
        submit.disabled = false;
      }
    },
  });
  const submit = h('button.primary.big', { type: 'submit', 'data-testid': 'create' }, t('create_button'));
  mount(createForm,
    h('h2', { id: 'create-title' }, t('create_title')),
    h('div.field', {}, h('label', { for: 'create-name' }, t('your_name')), nameInput),
    h('div.field', {},
      h('label', { for: 'create-seats' }, t('seats')), seatsSelect,
      h('p.hint', {}, t('seats_hint'))),
    h('fieldset', {}, h('legend', {}, t('bots')), botList),
    h('details.rules-box', { open: true },
      h('summary', {}, t('options_title')),
      optionsBox),
    createError,
    submit);

  const codeInput = h('input', {
    id: 'join-code', name: 'code', required: true, maxlength: 12, autocomplete: 'off', autocapitalize: 'characters',
    spellcheck: 'false', placeholder: t('code_placeholder'), dir: 'ltr', 'data-testid': 'join-code',
  });
  const joinName = h('input', {
    id: 'join-name', name: 'name', required: true, maxlength: 32, autocomplete: 'nickname',
    placeholder: t('name_placeholder'), value: form.name,
  });
  const joinError = h('p.error', { role: 'alert' });
  const joinForm = h('form.panel.join', {
    'aria-labelledby': 'join-title',
    onsubmit: async (event) => {
      event.preventDefault();
      const code = codeInput.value.trim().toUpperCase().replace(/[^A-Z0-9]/g, '');
      const name = joinName.value.trim();
      if (!name) { joinError.textContent = t('err_name'); joinName.focus(); return; }
      if (!code) { codeInput.focus(); return; }
      saveName(name);
      try {
        await actions.join(code, name);
      } catch (err) {
        joinError.textContent = err.status === 404 ? t('err_not_found') : errorText(err);
      }
    },
  },
  h('h2', { id: 'join-title' }, t('join_title')),
  h('div.field', {}, h('label', { for: 'join-code' }, t('code')), codeInput),
  h('div.field', {}, h('label', { for: 'join-name' }, t('your_name')), joinName),
  joinError,
  h('button.primary', { type: 'submit', 'data-testid': 'join' }, t('join_button')));

  const rules = h('section.panel.rules', { 'aria-labelledby': 'rules-title' },
    h('h2', { id: 'rules-title' }, t('rules_title')),
    h('ol', {}, ['rules_1', 'rules_2', 'rules_3', 'rules_4'].map((k) => h('li', {}, t(k)))));

  drawBots();
  drawOptions();
  mount(container, h('div.home', { dataset: { view: 'home' } },
    h('section.hero', {},
      h('div.hero-cards', { 'aria-hidden': 'true' },
        ['3♠', 'K♥', '7♦'].map((c, i) => h('span.hero-card', { class: i === 1 ? 'red' : i === 2 ? 'red' : '' }, c))),
      h('h1', {}, t('app_title')),
      h('p.tagline', {}, t('tagline')),
      standingsLink(actions, 'a.secondary.home-standings')),
    h('div.home-grid', {}, createForm, h('div.stack', {}, joinForm, rules))));
}
