// A short table chat: lines are shown as plain text; the server limits length and rate. Quick reactions sit
// above it, always in view (the chat folds away on a phone), and float up from the player's chip.
// Drawn with lit-html on every change: the field is never touched by a render (a line being typed stays, and
// keeps the keyboard), the lines are kept by their id, and the log follows new lines only if it was at its
// end (someone reading back up keeps their place).
import { element, html, nothing, render } from '../html.js';
import { repeat } from '../html-directives.js';
import { num, t } from '../i18n.js';
import { config } from '../config.js';
import '../i18n-table.js';

/** Show ``emoji`` rising from the chip (table) or row (lobby) of ``seat`` for a moment. */
export function showReaction(seat, emoji) {
  const anchor = document.querySelector(`[data-testid=player-${seat}], [data-testid=seat-${seat}]`);
  if (!anchor) return;
  const box = anchor.getBoundingClientRect();
  const bubble = element(html`<span class="reaction-bubble" aria-hidden="true" data-testid=${`reaction-${seat}`}>${emoji}</span>`);
  bubble.style.left = `${box.left + box.width / 2}px`;
  bubble.style.top = `${box.top + box.height / 2}px`;
  document.body.append(bubble);
  setTimeout(() => bubble.remove(), 2500);
}

/** The chat is open: as the viewer left it, else open on a wide screen. */
export const chatOpen = (ctx) => ctx.chatOpen ?? window.matchMedia('(min-width: 900px)').matches;

function send(event, actions) {
  event.preventDefault();
  const input = event.currentTarget.querySelector('input');
  const text = input.value.trim();
  if (!text) return;
  actions.send({ type: 'chat', text });
  input.value = '';
}

function chatTemplate(ctx, actions) {
  const open = chatOpen(ctx);
  const unread = open ? 0 : ctx.chat.length - ctx.chatSeen;
  const watching = ctx.seat === null; // spectators read but do not talk (the server refuses their lines)
  const toggled = (event) => { if (event.currentTarget.open !== open) actions.setChatOpen(event.currentTarget.open); };
  return html`<div class="reactions" role="group" aria-label=${t('reactions')} ?hidden=${watching}>${config.reactions.map((emoji) => html`<button
    type="button" class="reaction" data-testid="react" title=${t('react_with', { emoji })} aria-label=${t('react_with', { emoji })}
    @click=${() => actions.send({ type: 'react', emoji })}>${emoji}</button>`)}</div><details class="chat-box" .open=${open}
    @toggle=${toggled}><summary>${t('chat')} <span class="chat-count">${unread > 0 ? num(unread) : ''}</span></summary><ul
    class="chat-log" aria-live="polite" data-testid="chat-log">${repeat(ctx.chat, (m) => m.id, (m) => html`<li><span
    class="chat-name" dir="auto">${m.name}</span> <span class="chat-text" dir="auto">${m.text}</span></li>`)}</ul><form
    class="chat-form" ?hidden=${watching} @submit=${(event) => send(event, actions)}><input type="text" maxlength="200"
    aria-label=${t('chat')} placeholder=${t('chat_placeholder')} data-testid="chat-input" dir="auto" autocomplete="off"
    ><button class="secondary" type="submit">${t('send')}</button></form><p class="chat-watching" data-testid="chat-watching"
    ?hidden=${!watching}>${t('chat_watching')}</p></details>`;
}

/** Draw the chat into ``panel`` (app.js: on every change while a room is open; ``nothing`` clears it). */
export function renderChatPanel(panel, ctx, actions) {
  panel.hidden = false;
  const log = panel.querySelector('.chat-log');
  const atEnd = !log || log.scrollTop + log.clientHeight >= log.scrollHeight - 4;
  render(chatTemplate(ctx, actions), panel);
  const newest = String(ctx.chat.at(-1)?.id ?? '');
  if (newest !== panel.dataset.newest && atEnd) {
    const now = panel.querySelector('.chat-log');
    now.scrollTop = now.scrollHeight;
  }
  panel.dataset.newest = newest;
}

/** Empty the chat (another page, or another table). */
export function clearChat(panel) {
  render(nothing, panel);
  delete panel.dataset.newest;
}
