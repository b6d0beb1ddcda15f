// The strings every first screen shows (the top bar, the home page, a room link's join form, the messages of a
// connection and of errors), one dictionary per language, and the switch between them (LTR/RTL). The strings
// of the table (i18n-table.js), the walkthrough and coach (i18n-learn.js), the settings and faces
// (i18n-looks.js) and the standings (i18n-standings.js) are in files of their own, added here by the views that
// show them when they load: a room link's join form downloads none of them.
import { savedLang, saveLang } from './storage.js';

const en = {
  app_title: 'Three Thirteen',
  tagline: 'Eleven rounds of rummy with friends. Make sets and runs; the fewest points wins.',
  lang_other: 'فارسی',
  lang_other_label: 'Switch to Persian',
  conn_connecting: 'Connecting…',
  conn_reconnecting: 'Reconnecting…',
  conn_online: 'Connected',
  offline_move: 'You are offline: that move was not sent. Play it again once reconnected.',
  home_link: 'Home',

  create_title: 'New table',
  your_name: 'Your name',
  name_placeholder: 'e.g. Sara',
  seats: 'Players',
  seats_hint: 'Seats at the table, you included. Bots take some of them.',
  bots: 'Computer players',
  bots_none: 'No computer players: friends fill the seats.',
  add_bot: 'Add a computer player',
  remove: 'Remove',
  bot_easy: 'Easy',
  bot_normal: 'Normal',
  bot_hard: 'Hard',
  bot_random: 'Random',
  bot_level: 'Level',
  options_title: 'House rules',
  opt_decks: 'Decks',
  opt_decks_hint: '52-card decks shuffled together. Auto: 1 for 2 players, 2 for 3–4, more for bigger tables.',
  auto: 'Auto',
  opt_jokers: 'Jokers',
  opt_jokers_hint: 'Two jokers per deck, wild in every round.',
  opt_joker_points: 'Joker penalty',
  opt_joker_points_hint: 'Points for a joker left unmelded.',
  opt_ace_high_low: 'Ace high or low',
  opt_ace_high_low_hint: 'Q-K-A is a run too (never K-A-2), but an unmelded ace costs 15.',
  opt_face_values: 'Face cards count',
  opt_face_values_hint: 'Unmelded J, Q, K cost 10 each, or 11, 12 and 13.',
  face_ten: '10 each',
  face_rank: 'J 11, Q 12, K 13',
  opt_natural_in_every_meld: 'A natural card in every meld',
  opt_natural_in_every_meld_hint: 'A meld may not be made of wild cards only (matters with jokers).',
  opt_turn_timer: 'Turn timer',
  opt_turn_timer_hint: 'Seconds per turn before a move is made for you. Off: no limit.',
  opt_hints: 'Hints',
  opt_hints_hint: 'A player may ask which discard leaves the fewest points.',
  opt_pace: 'Pace',
  opt_pace_hint: 'Live: played at one sitting. Or hours per turn: played over days, and nobody is played for until their time runs out.',
  pace_live: 'Live',
  hours: '{n} h',
  pace_hours: '{n} h a turn',
  coach_hints_on: 'Hints are on, so the coach you asked for can help you at this table.',
  coach_hints_off: 'With hints off, the coach you asked for will not work at this table (unless you play for practice).',
  hint: 'Hint',
  notify_label: 'Tell me when it is my turn (sound, vibration, notification)',
  hint_discard: 'Hint: throw {card} — {n} points stay unmelded.',
  hint_go_out: 'Hint: go out, throwing {card}.',
  off: 'Off',
  seconds: '{n} s',
  create_button: 'Create table',
  join_title: 'Join a table',
  code: 'Table code',
  code_placeholder: 'e.g. K7QX3MPA',
  join_button: 'Join',
  watch_button: 'Just watch',
  rules_title: 'How to play',
  rules_1: 'Round 1 deals 3 cards, round 11 deals 13. The rank equal to the cards dealt is wild (3s, then 4s … Kings).',
  rules_2: 'On your turn draw from the stock or the discard pile, then discard one card.',
  rules_3: 'Sets (7-7-7) and runs of one suit (4-5-6♥) are melds. When all but one card meld, go out: everyone else gets one last turn.',
  rules_4: 'Unmelded cards count against you. After 11 rounds the lowest total wins.',

  lobby_title: 'Table {code}',
  bot: 'bot',
  online: 'online',
  offline: 'offline',
  join_this: 'Join this table',
  table_full: 'This table has no open seat: you are watching.',
  table_full_choice: 'This table has no open seat, but you can watch the game.',
  page_not_found: 'There is no page at this address.',
  game_started: 'The game has started: you can watch it.',
  bot_seat_askable: 'A computer player has a seat here: watch, then press “Ask for this seat” on it to play in its place (the host decides).',

  round: 'Round {round} of {rounds}',
  you_left: 'You left the table: a bot plays your seat, and you are watching.',
  game_ended_you: 'You ended the game. Back in the lobby.',
  game_ended: '{name} ended the game. Back in the lobby.',
  now_host_you: 'You are now the host.',
  now_host: '{name} is now the host.',
  request_gone: 'Your request for the seat was declined or has ended.',
  request_granted: 'The seat is yours now: your turn will come.',
  go_out: 'Go out',
  scores: 'Scores',
  chat: 'Chat',
  card_count: '{n} cards',
  card_count_one: '1 card',
  points: '{n} pts',
  points_one: '1 pt',

  continue: 'Continue',
  time_up: "Time's up — a move was played for you.",
  your_turn_now: "Round {n} has started: it's your turn.",
  game_over: 'Game over',
  close: 'Close',
  bot_name: 'Bot {n}',
  program: 'program',
  program_title: 'A program its player runs, not a person',

  error: 'That did not work: {message}',
  err_not_found: 'No table with that code.',
  err_network: 'The server cannot be reached.',
  err_offline: 'You are offline. This page needs the connection: it opens once you are back online.',
  err_name: 'Type your name first.',
  err_room_not_found: 'No table with that code.',
  err_stale_version: 'The table had moved on: this is it now.',
  err_not_your_turn: 'It is not your turn.',
  err_wrong_phase: 'Not now: draw first, then discard.',
  err_cannot_go_out: 'You cannot go out with that card.',
  err_rate_limited: 'A little slower, please.',
  err_not_host: 'Only the host can do that.',
  err_seats_full: 'Every seat is taken.',
  err_name_taken: 'Someone at this table already goes by that name, or one that looks just like it. Pick another.',
  err_name_kept: 'That name (or one that reads the same) is kept by its holder with a passkey. Play under another name, or, if it is yours, sign in on the Passkeys page.',
  err_name_for_bots: 'That name reads as a bot’s (“Bot 2”), so it is kept for bots. Pick another.',
  err_name_mixes_scripts: 'That name mixes letters of alphabets that look alike (say Latin with Cyrillic or Greek), as fake names do. Write it in one alphabet.',
  err_already_seated: 'You already play a seat at this table: one person, one seat.',
  err_already_requested: 'You have already asked for another seat: one request at a time.',
  err_seat_requested: 'Someone has already asked for that seat; the host has not answered yet.',
  err_no_request: 'Nobody is waiting for an answer about that seat.',
  err_bad_message: 'The server did not understand that. Reload the page if it happens again.',
  err_unknown_type: 'The server did not understand that. Reload the page if it happens again.',
  err_too_large: 'That was too long to send.',
  err_bad_token: 'Your seat at this table is gone.',
  err_not_seated: 'Only a seated player can do that: you are watching.',
  err_wrong_status: 'Not possible at this point of the game.',
  err_not_allowed: 'The table\'s rules do not allow that.',
  err_game_not_started: 'The game has not started yet.',
  err_card_not_in_hand: 'That card is not in your hand.',
  err_illegal_action: 'That move is not allowed.',
  err_game_over: 'The game is over.',
  err_bad_card: 'That card could not be read.',
  err_bad_options: 'Those house rules cannot be used.',
  err_bad_request: 'Something in that request was not right.',
  err_round_not_finished: 'That round is still being played.',
  err_game_not_finished: 'That game is still being played.',
  err_bad_subscription: 'This browser cannot get turn notifications from this server.',
  err_internal_error: 'Something went wrong on the server; the table is unchanged. Try again.',
  resynced: 'Out of step: showing the true table.',

  history: 'History',
  loading: 'Loading…',
  err_game_not_found: 'No such game.',
  err_not_ready: 'The server is starting or restarting. Try again in a moment.',
  learn_open: 'How to play',
  settings: 'Settings',
  err_player_not_found: 'No finished game counts for that name yet.',
};

const fa = {
  app_title: 'سه و سیزده',
  tagline: 'یازده دست رامی با دوستان. ست و ردیف بسازید؛ کمترین امتیاز برنده است.',
  lang_other: 'English',
  lang_other_label: 'تغییر زبان به انگلیسی',
  conn_connecting: 'در حال اتصال…',
  conn_reconnecting: 'اتصال دوباره…',
  conn_online: 'متصل',
  offline_move: 'شما آفلاین هستید: این حرکت فرستاده نشد. پس از اتصال دوباره بازی کنید.',
  home_link: 'خانه',

  create_title: 'میز تازه',
  your_name: 'نام شما',
  name_placeholder: 'مثلاً سارا',
  seats: 'بازیکنان',
  seats_hint: 'تعداد جاهای میز، با خودتان. رایانه می‌تواند چند جا را پر کند.',
  bots: 'بازیکن‌های رایانه‌ای',
  bots_none: 'بدون رایانه: دوستان جاها را پر می‌کنند.',
  add_bot: 'افزودن بازیکن رایانه‌ای',
  remove: 'حذف',
  bot_easy: 'آسان',
  bot_normal: 'معمولی',
  bot_hard: 'سخت',
  bot_random: 'تصادفی',
  bot_level: 'سطح',
  options_title: 'قوانین خانگی',
  opt_decks: 'تعداد دسته‌ها',
  opt_decks_hint: 'دسته‌های ۵۲ کارتی که با هم بُر می‌خورند. خودکار: ۱ برای ۲ نفر، ۲ برای ۳ تا ۴ نفر، بیشتر برای میز بزرگ‌تر.',
  auto: 'خودکار',
  opt_jokers: 'ژوکر',
  opt_jokers_hint: 'دو ژوکر در هر دسته که در همه‌ی دست‌ها وحشی‌اند.',
  opt_joker_points: 'جریمه‌ی ژوکر',
  opt_joker_points_hint: 'امتیاز ژوکری که در ترکیب نیامده.',
  opt_ace_high_low: 'آس بالا یا پایین',
  opt_ace_high_low_hint: 'Q-K-A هم ردیف است (نه K-A-۲)، ولی آسِ بی‌ترکیب ۱۵ امتیاز دارد.',
  opt_face_values: 'ارزش کارت‌های تصویری',
  opt_face_values_hint: 'J، Q و K بی‌ترکیب هر کدام ۱۰ امتیاز، یا ۱۱، ۱۲ و ۱۳.',
  face_ten: 'هر کدام ۱۰',
  face_rank: 'J ۱۱، Q ۱۲، K ۱۳',
  opt_natural_in_every_meld: 'یک کارت طبیعی در هر ترکیب',
  opt_natural_in_every_meld_hint: 'ترکیبی که فقط از کارت‌های وحشی باشد پذیرفته نیست (با ژوکر مهم است).',
  opt_turn_timer: 'زمان هر نوبت',
  opt_turn_timer_hint: 'چند ثانیه برای هر نوبت؛ پس از آن به جای شما بازی می‌شود. خاموش: بی‌محدودیت.',
  opt_hints: 'راهنمایی',
  opt_hints_hint: 'بازیکن می‌تواند بپرسد دور انداختن کدام کارت کمترین امتیاز را باقی می‌گذارد.',
  opt_pace: 'آهنگ بازی',
  opt_pace_hint: 'زنده: در یک نشست بازی می‌شود. یا چند ساعت برای هر نوبت: بازی چند روز طول می‌کشد و تا وقت کسی تمام نشده، کسی به جای او بازی نمی‌کند.',
  pace_live: 'زنده',
  hours: '{n} ساعت',
  pace_hours: '{n} ساعت برای هر نوبت',
  coach_hints_on: 'راهنمایی روشن است تا مربی‌ای که خواستید سر این میز کمکتان کند.',
  coach_hints_off: 'با راهنمایی خاموش، مربی‌ای که خواستید سر این میز کار نمی‌کند (مگر تمرینی بازی کنید).',
  hint: 'راهنمایی',
  notify_label: 'وقتی نوبتم شد خبرم کن (صدا، لرزش، اعلان)',
  hint_discard: 'راهنمایی: {card} را دور بیندازید؛ {n} امتیاز بی‌ترکیب می‌ماند.',
  hint_go_out: 'راهنمایی: با دور انداختن {card} بیرون بروید.',
  off: 'خاموش',
  seconds: '{n} ثانیه',
  create_button: 'ساختن میز',
  join_title: 'پیوستن به میز',
  code: 'کد میز',
  code_placeholder: 'مثلاً K7QX3MPA',
  join_button: 'پیوستن',
  watch_button: 'فقط تماشا',
  rules_title: 'روش بازی',
  rules_1: 'دست ۱ سه کارت پخش می‌کند و دست ۱۱ سیزده کارت. کارتی که عددش برابر تعداد کارت‌هاست وحشی است (۳ها، سپس ۴ها … تا شاه‌ها).',
  rules_2: 'در نوبت خود یک کارت از دسته یا از کارت‌های دورریخته بردارید، سپس یک کارت دور بیندازید.',
  rules_3: 'ست (۷-۷-۷) و ردیفِ یک خال (۴-۵-۶ دل) ترکیب‌اند. وقتی همه‌ی کارت‌ها جز یکی ترکیب شدند بیرون بروید: بقیه یک نوبت آخر دارند.',
  rules_4: 'کارت‌های بی‌ترکیب امتیاز منفی‌اند. پس از ۱۱ دست کمترین جمع برنده است.',

  lobby_title: 'میز {code}',
  bot: 'رایانه',
  online: 'آنلاین',
  offline: 'آفلاین',
  join_this: 'پیوستن به این میز',
  table_full: 'این میز جای خالی ندارد: شما تماشاگر هستید.',
  table_full_choice: 'این میز جای خالی ندارد، ولی می‌توانید بازی را تماشا کنید.',
  page_not_found: 'در این نشانی صفحه‌ای نیست.',
  game_started: 'بازی شروع شده است: می‌توانید تماشا کنید.',
  bot_seat_askable: 'یک بازیکن رایانه‌ای اینجا جا دارد: تماشا کنید، بعد روی جای او «درخواست این جا» را بزنید تا به جایش بازی کنید (میزبان تصمیم می‌گیرد).',

  round: 'دست {round} از {rounds}',
  you_left: 'میز را ترک کردید: رایانه به جای شما بازی می‌کند و شما تماشاگرید.',
  game_ended_you: 'بازی را تمام کردید. به لابی برگشتید.',
  game_ended: '{name} بازی را تمام کرد. به لابی برگشتید.',
  now_host_you: 'اکنون شما میزبان هستید.',
  now_host: 'اکنون {name} میزبان است.',
  request_gone: 'درخواست شما برای این جا پذیرفته نشد یا به پایان رسید.',
  request_granted: 'این جا حالا مال شماست: نوبت‌تان خواهد رسید.',
  go_out: 'بیرون رفتن',
  scores: 'امتیازها',
  chat: 'گفتگو',
  card_count: '{n} کارت',
  card_count_one: '۱ کارت',
  points: '{n} امتیاز',
  points_one: '۱ امتیاز',

  continue: 'ادامه',
  time_up: 'وقت تمام شد؛ یک حرکت به جای شما بازی شد.',
  your_turn_now: 'دست {n} شروع شد: نوبت شماست.',
  game_over: 'بازی تمام شد',
  close: 'بستن',
  bot_name: 'رایانه {n}',
  program: 'برنامه',
  program_title: 'برنامه‌ای که بازیکنش اجرا می‌کند، نه یک آدم',

  error: 'انجام نشد: {message}',
  err_not_found: 'میزی با این کد نیست.',
  err_network: 'به سرور دسترسی نیست.',
  err_offline: 'شما آفلاین هستید. این صفحه به اتصال نیاز دارد: وقتی دوباره آنلاین شوید باز می‌شود.',
  err_name: 'اول نام خود را بنویسید.',
  err_room_not_found: 'میزی با این کد نیست.',
  err_stale_version: 'میز جلوتر رفته بود: این وضعیت تازه است.',
  err_not_your_turn: 'نوبت شما نیست.',
  err_wrong_phase: 'الان نه: اول بردارید، بعد دور بیندازید.',
  err_cannot_go_out: 'با این کارت نمی‌توانید بیرون بروید.',
  err_rate_limited: 'لطفاً کمی آهسته‌تر.',
  err_not_host: 'فقط میزبان می‌تواند.',
  err_seats_full: 'همه‌ی جاها پر است.',
  err_name_taken: 'کسی سر این میز همین نام یا نامی بسیار شبیه آن را دارد. نام دیگری انتخاب کنید.',
  err_name_kept: 'این نام (یا نامی که همین‌طور خوانده می‌شود) را دارنده‌اش با کلید عبور (passkey) نگه داشته است. با نام دیگری بازی کنید، یا اگر مال شماست، در صفحهٔ کلیدهای عبور وارد شوید.',
  err_name_for_bots: 'این نام مثل نام بازیکن‌های رایانه‌ای («رایانه ۲») خوانده می‌شود و برای آن‌ها نگه داشته شده است. نام دیگری انتخاب کنید.',
  err_name_mixes_scripts: 'در این نام حروف الفباهایی که شبیه هم‌اند (مثلاً لاتین با سیریلیک یا یونانی) قاطی شده‌اند، مثل نام‌های جعلی. آن را با یک الفبا بنویسید.',
  err_already_seated: 'شما در این میز جایی دارید: هر نفر یک جا.',
  err_already_requested: 'شما پیش‌تر جای دیگری را خواسته‌اید: هر بار یک درخواست.',
  err_seat_requested: 'کس دیگری این جا را خواسته است و میزبان هنوز پاسخ نداده.',
  err_no_request: 'کسی برای این جا منتظر پاسخ نیست.',
  err_bad_message: 'سرور این را نفهمید. اگر دوباره پیش آمد صفحه را تازه کنید.',
  err_unknown_type: 'سرور این را نفهمید. اگر دوباره پیش آمد صفحه را تازه کنید.',
  err_too_large: 'این برای فرستادن بیش از حد بلند بود.',
  err_bad_token: 'جای شما در این میز دیگر نیست.',
  err_not_seated: 'فقط بازیکن نشسته می‌تواند: شما تماشاگر هستید.',
  err_wrong_status: 'در این مرحله از بازی ممکن نیست.',
  err_not_allowed: 'قوانین میز این را اجازه نمی‌دهد.',
  err_game_not_started: 'بازی هنوز شروع نشده است.',
  err_card_not_in_hand: 'این کارت در دست شما نیست.',
  err_illegal_action: 'این حرکت مجاز نیست.',
  err_game_over: 'بازی تمام شده است.',
  err_bad_card: 'این کارت خوانده نشد.',
  err_bad_options: 'این قوانین خانگی پذیرفته نیست.',
  err_bad_request: 'چیزی در این درخواست درست نبود.',
  err_round_not_finished: 'این دست هنوز در جریان است.',
  err_game_not_finished: 'این بازی هنوز در جریان است.',
  err_bad_subscription: 'این مرورگر نمی‌تواند از این سرور اعلان نوبت بگیرد.',
  err_internal_error: 'مشکلی در سرور پیش آمد؛ میز تغییری نکرد. دوباره امتحان کنید.',
  resynced: 'ناهماهنگی پیش آمد: وضعیت درست میز نمایش داده شد.',

  history: 'تاریخچه',
  loading: 'در حال بارگذاری…',
  err_game_not_found: 'چنین بازی‌ای نیست.',
  err_not_ready: 'سرور در حال راه‌اندازی است. چند لحظه دیگر دوباره امتحان کنید.',
  learn_open: 'روش بازی',
  settings: 'تنظیمات',
  err_player_not_found: 'هنوز هیچ بازی تمام‌شده‌ای برای این نام شمرده نشده است.',
};

// Card words for accessible labels; ranks and suit symbols on the cards themselves stay as printed.
const cardWords = {
  en: {
    ranks: { A: 'ace', J: 'jack', Q: 'queen', K: 'king' },
    suits: { S: 'spades', H: 'hearts', D: 'diamonds', C: 'clubs' },
    joker: 'joker',
    label: '{rank} of {suit}',
  },
  fa: {
    ranks: { A: 'آس', J: 'سرباز', Q: 'بی‌بی', K: 'شاه' },
    suits: { S: 'پیک', H: 'دل', D: 'خشت', C: 'گشنیز' },
    joker: 'ژوکر',
    label: '{rank} {suit}',
  },
};

export const DICTIONARIES = { en, fa };
/** Add a file's strings ({en: {...}, fa: {...}}) to the dictionaries: i18n-learn.js and the others call it. */
export function addStrings(dictionaries) {
  for (const [code, strings] of Object.entries(dictionaries)) Object.assign(DICTIONARIES[code], strings);
}
export const LANGS = ['en', 'fa'];
const listeners = new Set();
let current = readStored();

function readStored() {
  const saved = savedLang();
  if (LANGS.includes(saved)) return saved;
  return (navigator.language || '').toLowerCase().startsWith('fa') ? 'fa' : 'en';
}

export function lang() {
  return current;
}

/** Set the language, remember it, flip the page direction, and tell every listener. */
export function setLang(next) {
  if (!LANGS.includes(next)) return;
  current = next;
  saveLang(next);
  applyDocument();
  for (const fn of listeners) fn(next);
}

export function onLangChange(fn) {
  listeners.add(fn);
}

export function applyDocument() {
  const root = document.documentElement;
  root.lang = current;
  root.dir = current === 'fa' ? 'rtl' : 'ltr';
  document.title = t('app_title');
}

const PERSIAN_DIGITS = '۰۱۲۳۴۵۶۷۸۹';

/** '{n} cards', or its singular for one. */
export function cardCount(n) {
  return n === 1 ? t('card_count_one') : t('card_count', { n });
}

/** A number in the current language's digits. */
export function num(value) {
  const text = String(value);
  if (current !== 'fa') return text;
  // A number's decimal point is the Persian separator (٫): '63.5' reads ۶۳٫۵.
  const digits = text.replace(/[0-9]/g, (d) => PERSIAN_DIGITS[d]);
  return typeof value === 'number' ? digits.replace('.', '٫') : digits;
}

/** The string ``key`` with {placeholders} filled (numbers in local digits); for ``n`` = 1, ``key_one``
 * when the language has one ('1 pt', not '1 pts'). */
export function t(key, params = {}) {
  const dict = DICTIONARIES[current];
  let text = (params.n === 1 ? dict[`${key}_one`] : undefined) ?? dict[key] ?? en[key] ?? key;
  for (const [name, value] of Object.entries(params)) {
    text = text.replaceAll(`{${name}}`, typeof value === 'number' ? num(value) : String(value));
  }
  return text;
}

/** Words for a card's accessible label in the current language. */
export function cardLabelWords() {
  return cardWords[current];
}

/** The message for a refusal ({code, message}) in the page's language; unknown codes show the server's words. */
export function errorText(err) {
  const key = `err_${err.code}`;
  if (key in DICTIONARIES[current] || key in en) return t(key);
  return t('error', { message: err.message || err.code || '' });
}
