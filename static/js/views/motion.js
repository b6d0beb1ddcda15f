// Card movement: a draw flies from its pile to the hand (or to the player's chip), a discard from the hand
// (or the chip) to the discard pile. Drawn over the table after it is updated, so nothing waits for it;
// nothing moves for those who ask for reduced motion, or in a hidden tab.
import { cardBackTemplate, cardTemplate } from '../card-template.js';
import { element } from '../html.js';

const FLIGHT_MS = 320;
const REDUCED = window.matchMedia('(prefers-reduced-motion: reduce)');

function rectOf(root, selector) {
  const el = selector ? root.querySelector(selector) : null;
  const rect = el?.getBoundingClientRect();
  return rect && rect.width ? rect : null;
}

/** Where a move starts and ends on screen: [from, to] selectors for one event as this seat sees it. */
function ends(event, seat) {
  const chip = `[data-testid=player-${event.seat}]`;
  const mine = event.seat === seat;
  if (event.kind === 'draw') {
    const pile = event.source === 'discard' ? '[data-testid=discard]' : '[data-testid=stock]';
    return [pile, mine ? '.hand .card.drawn' : chip];
  }
  if (event.kind === 'discard' || event.kind === 'go_out') return [mine ? '.hand' : chip, '[data-testid=discard]'];
  return [null, null];
}

function fly(event, from, to, size, wildRank) {
  const card = element(event.card ? cardTemplate(event.card, { wildRank }) : cardBackTemplate());
  card.classList.add('flying-card');
  card.setAttribute('aria-hidden', 'true');
  const x = from.left + from.width / 2 - size.width / 2;
  const y = from.top + from.height / 2 - size.height / 2;
  Object.assign(card.style, { left: `${x}px`, top: `${y}px`, width: `${size.width}px`, height: `${size.height}px` });
  document.body.append(card);
  const dx = to.left + to.width / 2 - size.width / 2 - x;
  const dy = to.top + to.height / 2 - size.height / 2 - y;
  const flight = card.animate(
    [{ transform: 'translate(0, 0)' }, { transform: `translate(${dx}px, ${dy}px)` }],
    { duration: FLIGHT_MS, easing: 'cubic-bezier(.2, .7, .3, 1)' },
  );
  flight.onfinish = () => card.remove();
  flight.oncancel = () => card.remove();
}

/** Animate the moves of the state just drawn in ``root`` (events as the server sent them to this seat). */
export function animateMoves(root, events, seat, wildRank) {
  if (REDUCED.matches || document.hidden || !events?.length) return;
  const size = rectOf(root, '[data-testid=stock]');
  if (!size) return;
  for (const event of events) {
    const [fromSel, toSel] = ends(event, seat);
    const from = rectOf(root, fromSel);
    const to = rectOf(root, toSel);
    if (from && to) fly(event, from, to, size, wildRank);
  }
}
