// String formats kube-apiserver checks for custom resources: the formats apiextensions keeps
// (pkg/apiserver/validation/formats.go supported formats) as validated by kube-openapi's
// strfmt default registry (pkg/validation/strfmt/default.go). Names are normalised the way
// the registry does (dashes removed, so "date-time" and "datetime" are the same format).
// Formats not listed here are not validated, as for kube.

const RFC3339_FULL_DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

/** time.Parse("2006-01-02", s): month 1-12 and a day that exists in that month. */
function isDate(s: string): boolean {
  const m = RFC3339_FULL_DATE.exec(s);
  if (!m) return false;
  const year = Number(m[1]);
  const month = Number(m[2]);
  const day = Number(m[3]);
  if (month < 1 || month > 12 || day < 1) return false;
  const daysIn = new Date(Date.UTC(year, month, 0)).getUTCDate();
  return day <= daysIn;
}

/** strfmt.IsDateTime: lowercase, split at "t", a full date, then hh:mm:ss[.frac](z|±hh:mm). */
const DATE_TIME_TAIL = /^([0-9]{2}):([0-9]{2}):([0-9]{2})(.[0-9]+)?(z|([+-][0-9]{2}:[0-9]{2}))$/;
function isDateTime(s: string): boolean {
  if (s.length < 4) return false;
  const parts = s.toLowerCase().split('t');
  if (parts.length < 2 || !isDate(parts[0] ?? '')) return false;
  const m = DATE_TIME_TAIL.exec(parts[1] ?? '');
  if (!m) return false;
  return (m[1] ?? '') <= '23' && (m[2] ?? '') <= '59' && (m[3] ?? '') <= '59';
}

/** govalidator.IsBase64: standard alphabet, padded, at least one quantum. */
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=|[A-Za-z0-9+/]{4})$/;
function isBase64(s: string): boolean {
  return BASE64.test(s);
}

/** strfmt.IsHostname: HostnamePattern, at most 255 bytes, labels of at most 63. */
const HOSTNAME =
  /^([a-zA-Z0-9\p{S}\p{L}]((-?[a-zA-Z0-9\p{S}\p{L}]{0,62})?)|([a-zA-Z0-9\p{S}\p{L}](([a-zA-Z0-9\-\p{S}\p{L}]{0,61}[a-zA-Z0-9\p{S}\p{L}])?)(\.)){1,}([a-zA-Z0-9\p{S}\p{L}])(-?[a-zA-Z0-9\p{S}\p{L}]){1,62})$/u;
function isHostname(s: string): boolean {
  const bytes = new TextEncoder().encode(s).length;
  return (
    HOSTNAME.test(s) &&
    bytes <= 255 &&
    s.split('.').every((p) => new TextEncoder().encode(p).length <= 63)
  );
}

function isIPv4(s: string): boolean {
  const parts = s.split('.');
  return (
    parts.length === 4 &&
    parts.every((p) => /^\d{1,3}$/.test(p) && Number(p) <= 255 && (p === '0' || !p.startsWith('0')))
  );
}

function isIPv6(s: string): boolean {
  if (!s.includes(':')) return false;
  try {
    new URL(`http://[${s}]/`);
    return true;
  } catch {
    return false;
  }
}

/** Go's time.ParseDuration units, plus strfmt's long forms ("3 days", "1 hour"). */
const GO_DURATION = /^[-+]?((\d+(\.\d*)?|\.\d+)(ns|us|µs|μs|ms|s|m|h))+$|^0$/;
const STRFMT_DURATION =
  /^(\d+)\s*(ns|us|µs|ms|s|m|h|d|w|nanoseconds?|microseconds?|milliseconds?|seconds?|minutes?|hours?|days?|weeks?)$/i;

const VALIDATORS: Readonly<Record<string, (s: string) => boolean>> = {
  datetime: isDateTime,
  date: isDate,
  byte: isBase64,
  uuid: (s) => /^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$/i.test(s),
  uuid3: (s) => /^[0-9a-f]{8}-?[0-9a-f]{4}-?3[0-9a-f]{3}-?[0-9a-f]{4}-?[0-9a-f]{12}$/i.test(s),
  uuid4: (s) =>
    /^[0-9a-f]{8}-?[0-9a-f]{4}-?4[0-9a-f]{3}-?[89ab][0-9a-f]{3}-?[0-9a-f]{12}$/i.test(s),
  uuid5: (s) =>
    /^[0-9a-f]{8}-?[0-9a-f]{4}-?5[0-9a-f]{3}-?[89ab][0-9a-f]{3}-?[0-9a-f]{12}$/i.test(s),
  ipv4: isIPv4,
  ipv6: isIPv6,
  cidr: (s) => {
    const [ip, bits, extra] = s.split('/');
    if (ip === undefined || bits === undefined || extra !== undefined || !/^\d+$/.test(bits))
      return false;
    return (isIPv4(ip) && Number(bits) <= 32) || (isIPv6(ip) && Number(bits) <= 128);
  },
  mac: (s) =>
    /^([0-9a-f]{2}[:-]){5}[0-9a-f]{2}$/i.test(s) ||
    /^([0-9a-f]{2}[:-]){7}[0-9a-f]{2}$/i.test(s) ||
    /^([0-9a-f]{4}\.){2}[0-9a-f]{4}$/i.test(s),
  hostname: isHostname,
  email: (s) => /^[^\s@<>]+@[^\s@<>]+$/.test(s),
  uri: (s) => /^([a-zA-Z][a-zA-Z0-9+.-]*:|\/)\S*$/.test(s),
  hexcolor: (s) => /^#?([0-9a-fA-F]{3}|[0-9a-fA-F]{6})$/.test(s),
  rgbcolor: (s) =>
    /^rgb\(\s*(0|[1-9]\d?|1\d\d?|2[0-4]\d|25[0-5])\s*,\s*(0|[1-9]\d?|1\d\d?|2[0-4]\d|25[0-5])\s*,\s*(0|[1-9]\d?|1\d\d?|2[0-4]\d|25[0-5])\s*\)$/.test(
      s,
    ),
  ssn: (s) => /^\d{3}[- ]?\d{2}[- ]?\d{4}$/.test(s),
  bsonobjectid: (s) => /^[0-9a-fA-F]{24}$/.test(s),
  duration: (s) => GO_DURATION.test(s) || STRFMT_DURATION.test(s),
  password: () => true,
};

/** The check for a format, or undefined when kube does not validate that format. */
export function formatValidator(format: string): ((s: string) => boolean) | undefined {
  return VALIDATORS[format.replaceAll('-', '').replaceAll('_', '').toLowerCase()];
}
