// A short table chat: lines are shown as plain text; the server limits length and rate.
import { h, mount } from '../dom.js';
import { num, t } from '../i18n.js';

export function renderChatLog(panel, ctx) {
  const log = panel.querySelector('.chat-log');
  if (!log) return;
  mount(log, ctx.chat.map((m) => h('li', {},
    h('span.chat-name', { dir: 'auto' }, m.name), ' ',
    h('span.chat-text', { dir: 'auto' }, m.text))));
  log.scrollTop = log.scrollHeight;
  const details = panel.querySelector('details');
  if (details.open) details.dataset.seen = String(ctx.chat.length);
  const unread = ctx.chat.length - Number(details.dataset.seen || 0);
  panel.querySelector('.chat-count').textContent = unread > 0 ? num(unread) : '';
}

/** Built once per room (so typing is never interrupted); later calls only refresh the log. */
export function renderChatPanel(panel, ctx, actions) {
  panel.hidden = false;
  if (!panel.querySelector('.chat-log')) {
    const input = h('input', {
      type: 'text', maxlength: 200, 'aria-label': t('chat'), placeholder: t('chat_placeholder'),
      'data-testid': 'chat-input', dir: 'auto', autocomplete: 'off',
    });
    const form = h('form.chat-form', {
      onsubmit: (event) => {
        event.preventDefault();
        const text = input.value.trim();
        if (!text) return;
        actions.send({ type: 'chat', text });
        input.value = '';
      },
    }, input, h('button.secondary', { type: 'submit' }, t('send')));
    const details = h('details.chat-box', { open: window.matchMedia('(min-width: 900px)').matches },
      h('summary', {}, t('chat'), ' ', h('span.chat-count')),
      h('ul.chat-log', { 'aria-live': 'polite', 'data-testid': 'chat-log' }),
      form);
    details.addEventListener('toggle', () => renderChatLog(panel, ctx));
    mount(panel, details);
  }
  const form = panel.querySelector('.chat-form');
  form.hidden = ctx.seat === null; // spectators read but do not talk
  renderChatLog(panel, ctx);
}
