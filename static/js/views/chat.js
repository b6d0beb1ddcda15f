// A short table chat: lines are shown as plain text; the server limits length and rate. Quick reactions sit
// above it, always in view (the chat folds away on a phone), and float up from the player's chip.
import { h, mount } from '../dom.js';
import { num, t } from '../i18n.js';
import { config } from '../config.js';

/** Show ``emoji`` rising from the chip (table) or row (lobby) of ``seat`` for a moment. */
export function showReaction(seat, emoji) {
  const anchor = document.querySelector(`[data-testid=player-${seat}], [data-testid=seat-${seat}]`);
  if (!anchor) return;
  const box = anchor.getBoundingClientRect();
  const bubble = h('span.reaction-bubble', { 'aria-hidden': 'true', 'data-testid': `reaction-${seat}` }, emoji);
  bubble.style.left = `${box.left + box.width / 2}px`;
  bubble.style.top = `${box.top + box.height / 2}px`;
  document.body.append(bubble);
  setTimeout(() => bubble.remove(), 2500);
}

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
    const reactions = h('div.reactions', { role: 'group', 'aria-label': t('reactions') },
      config.reactions.map((emoji) => h('button.reaction', {
        type: 'button', 'data-testid': 'react', title: t('react_with', { emoji }), 'aria-label': t('react_with', { emoji }),
        onclick: () => actions.send({ type: 'react', emoji }),
      }, emoji)));
    const details = h('details.chat-box', { open: window.matchMedia('(min-width: 900px)').matches },
      h('summary', {}, t('chat'), ' ', h('span.chat-count')),
      h('ul.chat-log', { 'aria-live': 'polite', 'data-testid': 'chat-log' }),
      form,
      h('p.chat-watching', { 'data-testid': 'chat-watching' }, t('chat_watching')));
    details.addEventListener('toggle', () => renderChatLog(panel, ctx));
    mount(panel, reactions, details);
  }
  const form = panel.querySelector('.chat-form');
  form.hidden = ctx.seat === null; // spectators read but do not talk (the server refuses their lines)
  panel.querySelector('.chat-watching').hidden = ctx.seat !== null;
  panel.querySelector('.reactions').hidden = ctx.seat === null;
  renderChatLog(panel, ctx);
}
