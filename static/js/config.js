// The server's fixed values, read from the page (app/protocol/client_config.py writes them there; programs
// read the same document at /api/client-config): seat bounds, bot levels, quick reactions, the default house
// rules and the options' choices. The client keeps no copy of them.
const element = document.getElementById('client-config');
if (!element) throw new Error('the page carries no #client-config (served by app/api/pages.py)');

/** @type {{seats: {min: number, max: number}, bot_levels: string[], default_bot_level: string,
 *  reactions: string[], options: Object<string, *>, option_choices: Object<string, Array<*>>}} */
export const config = JSON.parse(element.textContent, (_key, value) => Object.freeze(value)); // read-only

/** The seat counts a table may have, from ``least`` (at most the maximum) up. */
export function seatCounts(least = config.seats.min) {
  const counts = [];
  for (let n = Math.max(least, config.seats.min); n <= config.seats.max; n += 1) counts.push(n);
  return counts;
}
