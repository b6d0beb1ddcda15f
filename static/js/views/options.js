// The house-rule controls (home page and lobby): one row per option with its one-line explanation.
import { html } from '../html.js';
import { live, repeat } from '../html-directives.js';
import { num, t } from '../i18n.js';
import { config } from '../config.js';

export const DEFAULT_OPTIONS = config.options;
const CHOICES = config.option_choices;

function optionRow(name, control) {
  return { name, template: html`<div class="option" data-option=${name}><label for=${`opt-${name}`}>${t(`opt_${name}`)}</label>${control}<p
    class="hint" id=${`opt-${name}-hint`}>${t(`opt_${name}_hint`)}</p></div>` };
}

/**
 * A list of option rows; ``onchange(partial)`` gets {name: value}. ``disabled`` makes them read-only;
 * ``note``: the id of the text that says why (read with each control).
 */
export function optionRows(options, onchange, disabled = false, note = null) {
  const o = { ...DEFAULT_OPTIONS, ...options };
  const described = (name) => (note ? `opt-${name}-hint ${note}` : `opt-${name}-hint`);
  const select = (name, choices, value, parse) => optionRow(name, html`<select id=${`opt-${name}`} data-key=${`opt-${name}`}
    aria-describedby=${described(name)} ?disabled=${disabled} .value=${live(String(value))}
    @change=${(e) => onchange({ [name]: parse(e.currentTarget.value) })}>${choices.map(([v, label]) => html`<option
    value=${String(v)} ?selected=${String(v) === String(value)}>${label}</option>`)}</select>`);
  const toggle = (name) => optionRow(name, html`<input type="checkbox" class="switch" id=${`opt-${name}`} data-key=${`opt-${name}`}
    aria-describedby=${described(name)} ?disabled=${disabled} .checked=${live(!!o[name])}
    @change=${(e) => onchange({ [name]: Boolean(e.currentTarget.checked) })}>`);
  const rows = [
    select('decks', [['', t('auto')], ...CHOICES.decks.map((n) => [n, num(n)])], o.decks ?? '', (v) => (v === '' ? null : Number(v))),
    toggle('jokers'),
    o.jokers ? select('joker_points', [0, 10, 15, 20, 25, 50].map((n) => [n, num(n)]), o.joker_points, Number) : null,
    o.jokers ? toggle('natural_in_every_meld') : null,
    toggle('ace_high_low'),
    select('face_values', CHOICES.face_values.map((v) => [v, t(`face_${v}`)]), o.face_values, String),
    select('turn_timer', CHOICES.turn_timer.map((n) => [n, n ? t('seconds', { n }) : t('off')]), o.turn_timer, Number),
    toggle('hints'),
    select('pace', CHOICES.pace.map((v) => [v, v === 'live' ? t('pace_live') : t('pace_hours', { n: v })]), o.pace ?? 'live',
      (v) => (v === 'live' ? 'live' : Number(v))),
  ].filter(Boolean);
  // Kept by option: the row that has the keyboard stays the same element when the jokers' rows come or go.
  return html`<div class="options">${repeat(rows, (row) => row.name, (row) => row.template)}</div>`;
}
