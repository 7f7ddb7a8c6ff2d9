/**
 * Cell values as a reader of the sheet sees them, from what the file stores: numbers as the
 * shortest text that reads back to the same double (Excel keeps 15 significant digits, so
 * 0.1 + 0.2 is shown 0.3), dates from their serial numbers when the cell's number format is a
 * date format.
 */

/** Excel's built-in number formats that show dates or times (ECMA-376 18.8.30). */
const BUILT_IN_DATE_FORMATS = new Set([14, 15, 16, 17, 18, 19, 20, 21, 22, 45, 46, 47]);

/** Whether a number format (its id, and its code when custom) shows a date or time. */
export function isDateFormat(id: number, code: string | undefined): boolean {
  if (BUILT_IN_DATE_FORMATS.has(id)) return true;
  if (!code) return false;
  // Quoted text, escaped characters, and [Red]/[$-409] sections say nothing about dates; [h] and [mm] do.
  const bare = code.replace(/"[^"]*"|\\.|_.|\*./g, '').replace(/\[(?![hms]+\])[^\]]*\]/gi, '');
  return /[dmyhs]/i.test(bare) && !/^general$/i.test(bare.trim());
}

export function numberText(raw: string): string {
  const value = Number(raw);
  if (!Number.isFinite(value) || raw.trim() === '') return raw.trim();
  return String(Number(value.toPrecision(15)));
}

const DAY_MS = 86_400_000;
/** Serial 25569 is 1970-01-01 in the 1900 date system (whose 1900-02-29 never existed, hence day 60's skew before March 1900). */
const UNIX_EPOCH_SERIAL = 25569;
const DATE1904_OFFSET = 1462;

/** A date serial as ISO text: the date, the time, or both, as the value holds. */
export function serialDateText(raw: string, date1904: boolean): string {
  const serial = Number(raw);
  if (!Number.isFinite(serial) || serial < 0 || serial > 2_958_465) return numberText(raw);
  const days = serial + (date1904 ? DATE1904_OFFSET : 0);
  const ms = Math.round((days - UNIX_EPOCH_SERIAL) * DAY_MS / 1000) * 1000;
  const iso = new Date(ms).toISOString();
  const date = iso.slice(0, 10);
  const time = iso.slice(11, 19);
  if (serial < 1) return time;
  return time === '00:00:00' ? date : `${date} ${time}`;
}
