// The views' templates: lit-html (js/vendor/lit-html) as the client uses it. Text always goes in as text (a
// binding is never parsed as HTML; nothing here offers unsafeHTML). ``html`` is lit-html's, but for the line
// breaks a template is written with: whitespace holding a line break beside a tag, at a value's side in the
// content, or between two values is dropped (as dom.js's h() never made such text), elsewhere (between a
// tag's attributes) it is one space. So an inline row of elements looks as it did before lit-html.
import { html as litHtml, nothing, render } from './vendor/lit-html/lit-html.js';
import { repeat } from './vendor/lit-html/directives/repeat.js';
import { live } from './vendor/lit-html/directives/live.js';

export { live, nothing, render, repeat };

/** One template's strings with its layout's line breaks taken out (see above). */
function tighten(text) {
  return text
    .replace(/>\s*\n\s*/g, '>')
    .replace(/\s*\n\s*</g, '<')
    .replace(/\s*\n\s*$/, '')
    .replace(/\s*\n\s*/g, ' ');
}

const tightened = new WeakMap(); // a template's strings (the same object every time it runs) -> tightened
/** lit-html's ``html``, its template's layout whitespace taken out (lit-html caches by the strings' identity,
 * so each template's are tightened once and the same array is given every time). */
export function html(strings, ...values) {
  let tight = tightened.get(strings);
  if (!tight) {
    const out = strings.map(tighten);
    tight = Object.freeze(Object.defineProperty(out, 'raw', { value: Object.freeze([...out]) }));
    tightened.set(strings, tight);
  }
  return litHtml(tight, ...values);
}

/**
 * A part still drawn with dom.js's h() inside a template (the dialogs' and the host's few controls): the same
 * element while ``key`` is the same (so it keeps the keyboard and its animation), made anew when it changes.
 * ``cache``: a Map of the view's own (made with the view, gone with it).
 */
export function kept(cache, name, key, build) {
  const stamp = JSON.stringify([document.documentElement.lang, key]);
  const hit = cache.get(name);
  if (hit && hit.stamp === stamp) return hit.node;
  const node = build() ?? nothing;
  cache.set(name, { stamp, node });
  return node;
}
