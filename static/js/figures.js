// Numbers with a fraction in the page's language: Persian digits and the Persian decimal separator (٫)
// in Persian; a share of 1 as a percentage.
import { lang } from './i18n.js';

const LOCALES = { en: 'en-GB', fa: 'fa-IR' };

/** ``value`` with at most ``digits`` digits after the separator (4.5, 63.25 -> 63.3; ۴٫۵ in Persian). */
export function decimal(value, digits = 1) {
  if (typeof value !== 'number' || !Number.isFinite(value)) return '';
  return new Intl.NumberFormat(LOCALES[lang()] ?? 'en-GB', { maximumFractionDigits: digits, useGrouping: false }).format(value);
}

/** A share of 1 (0.375) as a percentage (38%; ۳۸٪ in Persian). */
export function percent(share) {
  if (typeof share !== 'number' || !Number.isFinite(share)) return '';
  return new Intl.NumberFormat(LOCALES[lang()] ?? 'en-GB', { style: 'percent', maximumFractionDigits: 0 }).format(share);
}
