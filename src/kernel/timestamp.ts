// ISO 8601 combined date and time; the offset may be absent (read as UTC), but never the
// "unknown local offset" -00, -0000 or -00:00 of RFC 3339 §4.3 (xAPI 2.0 Part 2 §4.5).
const TIMESTAMP = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d+))?)?(Z|[+-]\d{2}(?::?\d{2})?)?$/i;

export interface TimestampOptions {
  /** Refuse a timestamp without a zone (query parameters, where "local time" means nothing to a server). */
  requireZone?: boolean;
}

/**
 * The instant of an xAPI timestamp, or undefined when the text is not one: the one parser of every
 * timestamp the server reads, in statements and in query parameters alike. Impossible calendar
 * dates (`2024-02-30`, year `0000`) and times (`24:00`), and the negative zero offset RFC 3339 reserves for
 * "unknown" (`-00:00`), are refused rather than rolled over as `Date` would.
 */
export function parseTimestamp(value: unknown, options: TimestampOptions = {}): Date | undefined {
  if (typeof value !== 'string') return undefined;
  const match = TIMESTAMP.exec(value);
  if (!match) return undefined;
  const [, year, month, day, hour, minute, second = '0', , zone] = match;
  if (zone === undefined && options.requireZone) return undefined;
  const offset = zone ?? 'Z';
  if (/^-00(?::?00)?$/.test(offset)) return undefined;
  const [y, mo, d, h, mi, s] = [year, month, day, hour, minute, second].map(Number);
  // Year 0000 is 1 BC to `Date` but no year at all to PostgreSQL (22008): ISO 8601 needs a
  // mutual agreement for it, and xAPI has none.
  if (y < 1 || mo < 1 || mo > 12 || d < 1 || d > daysInMonth(y, mo) || h > 23 || mi > 59 || s > 60) return undefined;
  if (!/^[zZ]$/.test(offset) && offset.length > 3) {
    const offsetMinutes = Number(offset.replace(':', '').slice(3));
    if (offsetMinutes > 59) return undefined;
  }
  const normalised = `${value.slice(0, 10)}T${value.slice(11).replace(',', '.')}`;
  const date = new Date(/[zZ]$|[+-]\d{2}(:?\d{2})?$/.test(normalised.slice(11)) ? normalised : `${normalised}Z`);
  // An offset can still carry 0001-01-01 back into year 0000.
  return Number.isNaN(date.getTime()) || date.getUTCFullYear() < 1 ? undefined : date;
}

const daysInMonth = (year: number, month: number) => new Date(Date.UTC(year, month, 0)).getUTCDate();
