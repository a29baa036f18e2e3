// Name, label and annotation syntax checks with the messages of
// k8s.io/apimachinery/pkg/util/validation (validation.go), which kube-apiserver returns verbatim.
const DNS1123_LABEL = '[a-z0-9]([-a-z0-9]*[a-z0-9])?';
const DNS1123_SUBDOMAIN = `${DNS1123_LABEL}(\\.${DNS1123_LABEL})*`;
const QUALIFIED_NAME_PART = '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]';
const LABEL_VALUE = `(${QUALIFIED_NAME_PART})?`;

const dns1123Label = new RegExp(`^${DNS1123_LABEL}$`);
const dns1123Subdomain = new RegExp(`^${DNS1123_SUBDOMAIN}$`);
const qualifiedNamePart = new RegExp(`^${QUALIFIED_NAME_PART}$`);
const labelValue = new RegExp(`^${LABEL_VALUE}$`);

function regexError(msg: string, fmt: string, examples: string[]): string {
  let s = `${msg} (`;
  if (examples.length > 0) {
    s += `e.g. ${examples.map((e) => `'${e}'`).join(',  or ')}, `;
  }
  return `${s}regex used for validation is '${fmt}')`;
}

function maxLenError(length: number): string {
  return `must be no more than ${length} characters`;
}

export function isDNS1123Subdomain(value: string): string[] {
  const errs: string[] = [];
  if (value.length > 253) errs.push(maxLenError(253));
  if (!dns1123Subdomain.test(value)) {
    errs.push(
      regexError(
        "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character",
        DNS1123_SUBDOMAIN,
        ['example.com'],
      ),
    );
  }
  return errs;
}

export function isDNS1123Label(value: string): string[] {
  const errs: string[] = [];
  if (value.length > 63) errs.push(maxLenError(63));
  // A valid subdomain that is no label (length already checked) has dots; kube 1.36 says just that.
  if (!dns1123Label.test(value) && dns1123Subdomain.test(value)) errs.push('must not contain dots');
  else if (!dns1123Label.test(value)) {
    errs.push(
      regexError(
        "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character",
        DNS1123_LABEL,
        ['my-name', '123-abc'],
      ),
    );
  }
  return errs;
}

/** validation.IsQualifiedName: `[prefix/]name`, prefix a DNS subdomain, name ≤ 63 characters. */
export function isQualifiedName(value: string): string[] {
  const errs: string[] = [];
  const parts = value.split('/');
  let name: string;
  if (parts.length === 1) name = parts[0] as string;
  else if (parts.length === 2) {
    const [prefix, rest] = parts as [string, string];
    name = rest;
    if (prefix.length === 0) errs.push('prefix part must be non-empty');
    else for (const msg of isDNS1123Subdomain(prefix)) errs.push(`prefix part ${msg}`);
  } else {
    return [
      regexError(
        "a qualified name must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character",
        QUALIFIED_NAME_PART,
        ['MyName', 'my.name', '123-abc'],
      ) + " with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')",
    ];
  }
  if (name.length === 0) errs.push('name part must be non-empty');
  else if (name.length > 63) errs.push(`name part ${maxLenError(63)}`);
  if (!qualifiedNamePart.test(name)) {
    errs.push(
      `name part ${regexError(
        "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character",
        QUALIFIED_NAME_PART,
        ['MyName', 'my.name', '123-abc'],
      )}`,
    );
  }
  return errs;
}

/**
 * path.IsValidPathSegmentName: what a name must be to sit in a URL path segment, and all kube
 * asks of RBAC objects' names (ValidateRBACName), so `system:controller:x` is a valid Role name.
 */
export function isValidPathSegmentName(value: string): string[] {
  if (value === '.' || value === '..') return [`may not be '${value}'`];
  return ['/', '%'].filter((c) => value.includes(c)).map((c) => `may not contain '${c}'`);
}

export function isValidLabelValue(value: string): string[] {
  const errs: string[] = [];
  if (value.length > 63) errs.push(maxLenError(63));
  if (!labelValue.test(value)) {
    errs.push(
      regexError(
        "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character",
        LABEL_VALUE,
        ['MyValue', 'my_value', '12345'],
      ),
    );
  }
  return errs;
}

/**
 * validation.IsRelaxedEnvVarName, what Pods accept since RelaxedEnvironmentVariableValidation
 * went GA (Kubernetes 1.34): any printable ASCII character but '='.
 */
export function isEnvVarName(value: string): string[] {
  for (const ch of value) {
    const code = ch.charCodeAt(0);
    if (code < 32 || code > 126 || ch === '=') {
      return [
        "a valid environment variable name must consist only of printable ASCII characters other than '='",
      ];
    }
  }
  return [];
}
