// The house-rule controls (home page and lobby): one row per option with its one-line explanation.
import { h } from '../dom.js';
import { num, t } from '../i18n.js';
import { config } from '../config.js';

export const DEFAULT_OPTIONS = config.options;
const CHOICES = config.option_choices;

function optionRow(name, control, note) {
  const id = `opt-${name}`;
  control.id = id;
  control.setAttribute('aria-describedby', note ? `${id}-hint ${note}` : `${id}-hint`);
  control.dataset.key = id;
  return h('div.option', { dataset: { option: name } },
    h('label', { for: id }, t(`opt_${name}`)),
    control,
    h('p.hint', { id: `${id}-hint` }, t(`opt_${name}_hint`)));
}

function select(choices, value, onchange, disabled) {
  const el = h('select', { disabled, onchange: () => onchange(el.value) },
    choices.map(([v, label]) => h('option', { value: String(v) }, label)));
  el.value = String(value);
  return el;
}

function toggle(value, onchange, disabled) {
  const el = h('input', { type: 'checkbox', class: 'switch', disabled, onchange: () => onchange(el.checked) });
  el.checked = !!value;
  return el;
}

/**
 * A list of option rows; ``onchange(partial)`` gets {name: value}. ``disabled`` makes them read-only;
 * ``note``: the id of the text that says why (read with each control).
 */
export function optionRows(options, onchange, disabled = false, note = null) {
  const o = { ...DEFAULT_OPTIONS, ...options };
  const row = (name, control) => optionRow(name, control, note);
  const set = (name, parse) => (value) => onchange({ [name]: parse(value) });
  const rows = [
    row('decks', select([['', t('auto')], ...CHOICES.decks.map((n) => [n, num(n)])], o.decks ?? '',
      set('decks', (v) => (v === '' ? null : Number(v))), disabled)),
    row('jokers', toggle(o.jokers, set('jokers', Boolean), disabled)),
  ];
  if (o.jokers) {
    rows.push(row('joker_points', select([0, 10, 15, 20, 25, 50].map((n) => [n, num(n)]), o.joker_points,
      set('joker_points', Number), disabled)));
    rows.push(row('natural_in_every_meld', toggle(o.natural_in_every_meld, set('natural_in_every_meld', Boolean), disabled)));
  }
  rows.push(
    row('ace_high_low', toggle(o.ace_high_low, set('ace_high_low', Boolean), disabled)),
    row('face_values', select(CHOICES.face_values.map((v) => [v, t(`face_${v}`)]), o.face_values,
      set('face_values', String), disabled)),
    row('turn_timer', select(CHOICES.turn_timer.map((n) => [n, n ? t('seconds', { n }) : t('off')]), o.turn_timer,
      set('turn_timer', Number), disabled)),
    row('hints', toggle(o.hints, set('hints', Boolean), disabled)),
  );
  return h('div.options', {}, rows);
}
