// The views' templates: lit-html (js/vendor/lit-html) as the client uses it. Text always goes in as text (a
// binding is never parsed as HTML; nothing here offers unsafeHTML). ``html`` is lit-html's, but for the line
// breaks a template is written with: whitespace holding a line break beside a tag, at a value's side in the
// content, or between two values is dropped (as a page written with DOM calls never had such text), elsewhere (between a
// tag's attributes) it is one space. So an inline row of elements looks as it did before lit-html.
// ``live`` and ``repeat`` (lit-html's directives, three more files) come from html-directives.js: the first
// screens (a room link's join form, the home page's top) do not wait for them.
import { html as litHtml, nothing, render, svg } from './vendor/lit-html/lit-html.js';

export { nothing, render, svg };

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

/** ``template`` as one element of its own, outside any view (a card flying over the table: views/motion.js). */
export function element(template) {
  const holder = document.createElement('div');
  render(template, holder);
  return holder.firstElementChild;
}
