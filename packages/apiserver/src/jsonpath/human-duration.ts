// Relative ages as kube-apiserver renders them into Table cells:
// k8s.io/apimachinery/pkg/util/duration.HumanDuration and metav1.Time query-parameter parsing.

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;

/**
 * duration.HumanDuration: `42s`, `3m4s`, `95m`, `5h12m`, `27h`, `3d4h`, `400d`, `3y45d`, `9y`.
 * More than one second in the future is `<invalid>`; up to a second ahead reads `0s`.
 */
export function humanDuration(ms: number): string {
  const seconds = Math.trunc(ms / SECOND);
  if (seconds < -1) return '<invalid>';
  if (seconds < 0) return '0s';
  if (seconds < 60 * 2) return `${seconds}s`;
  const minutes = Math.trunc(ms / MINUTE);
  if (minutes < 10) {
    const s = Math.trunc(ms / SECOND) % 60;
    return s === 0 ? `${minutes}m` : `${minutes}m${s}s`;
  }
  if (minutes < 60 * 3) return `${minutes}m`;
  const hours = Math.trunc(ms / HOUR);
  if (hours < 8) {
    const m = minutes % 60;
    return m === 0 ? `${hours}h` : `${hours}h${m}m`;
  }
  if (hours < 48) return `${hours}h`;
  if (hours < 24 * 8) {
    const h = hours % 24;
    return h === 0 ? `${Math.trunc(hours / 24)}d` : `${Math.trunc(hours / 24)}d${h}h`;
  }
  if (hours < 24 * 365 * 2) return `${Math.trunc(hours / 24)}d`;
  if (hours < 24 * 365 * 8) {
    const dy = Math.trunc(hours / 24) % 365;
    const y = Math.trunc(hours / 24 / 365);
    return dy === 0 ? `${y}y` : `${y}y${dy}d`;
  }
  return `${Math.trunc(hours / 24 / 365)}y`;
}

const RFC3339 =
  /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(\.\d+)?(Z|([+-])(\d{2}):(\d{2}))$/;

/**
 * metav1.Time.UnmarshalQueryParameter: `""` and `"null"` are the zero time (`null` here);
 * otherwise time.Parse(time.RFC3339, s) — fractional seconds allowed, `Z` or `±hh:mm` required.
 * Returns epoch milliseconds, `null` for the zero time, `undefined` when it does not parse.
 */
export function parseRfc3339(s: string): number | null | undefined {
  if (s === '' || s === 'null') return null;
  const m = RFC3339.exec(s);
  if (m === null) return undefined;
  const [year, month, day, hour, minute, second] = m.slice(1, 7).map(Number) as [
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  if (month < 1 || month > 12 || hour > 23 || minute > 59 || second > 59) return undefined;
  const daysInMonth = new Date(Date.UTC(year, month, 0)).getUTCDate();
  if (day < 1 || day > daysInMonth) return undefined;
  let offsetMin = 0;
  if (m[8] !== 'Z') {
    const oh = Number(m[10]);
    const om = Number(m[11]);
    if (oh > 23 || om > 59) return undefined;
    offsetMin = (m[9] === '-' ? -1 : 1) * (oh * 60 + om);
  }
  const frac = m[7] === undefined ? 0 : Number(`0${m[7]}`) * 1000;
  const utc = Date.UTC(year, month - 1, day, hour, minute, second) - offsetMin * MINUTE;
  // Date.UTC maps years 0-99 to 1900+; kube timestamps never use them but keep it exact.
  const fixed = year < 100 ? new Date(utc).setUTCFullYear(year) : utc;
  return fixed + frac;
}

/**
 * translateTimestampSince / ConvertToHumanReadableDateType: the age of an RFC 3339 timestamp
 * at `now`; `<unknown>` for an absent or zero timestamp.
 */
export function humanAge(timestamp: string | null | undefined, now: Date): string {
  if (timestamp === null || timestamp === undefined) return '<unknown>';
  const t = parseRfc3339(timestamp);
  if (t === null || t === undefined) return '<unknown>';
  return humanDuration(now.getTime() - t);
}
