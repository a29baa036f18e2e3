import { describe, expect, it } from 'vitest';
import { SelectorError } from './errors.ts';
import { escapeFieldValue, parseFieldSelector, unescapeFieldValue } from './field-selector.ts';
import { customResourceFieldSelectors, FIELD_SELECTORS } from './field-selectors.ts';

function spec(resource: string) {
  const s = FIELD_SELECTORS[resource];
  if (s === undefined) throw new Error(`no spec for ${resource}`);
  return s;
}

function failure(run: () => unknown): SelectorError {
  try {
    run();
  } catch (err: unknown) {
    if (err instanceof SelectorError) return err;
    throw err;
  }
  throw new Error('expected a SelectorError');
}

describe('parseFieldSelector: grammar', () => {
  it.each([
    ['', [], ''],
    ['metadata.name=a', [{ field: 'metadata.name', op: '=', value: 'a' }], 'metadata.name=a'],
    ['metadata.name==a', [{ field: 'metadata.name', op: '=', value: 'a' }], 'metadata.name=a'],
    ['metadata.name!=a', [{ field: 'metadata.name', op: '!=', value: 'a' }], 'metadata.name!=a'],
    ['metadata.name=', [{ field: 'metadata.name', op: '=', value: '' }], 'metadata.name='],
    [
      'metadata.namespace=b,metadata.name=a',
      [
        { field: 'metadata.name', op: '=', value: 'a' },
        { field: 'metadata.namespace', op: '=', value: 'b' },
      ],
      'metadata.name=a,metadata.namespace=b',
    ],
    [',metadata.name=a,', [{ field: 'metadata.name', op: '=', value: 'a' }], 'metadata.name=a'],
    [
      'metadata.name=a\\,b\\=c\\\\d',
      [{ field: 'metadata.name', op: '=', value: 'a,b=c\\d' }],
      'metadata.name=a\\,b\\=c\\\\d',
    ],
  ])('%j', (input, requirements, canonical) => {
    const sel = parseFieldSelector(input, ['metadata.name', 'metadata.namespace']);
    expect(sel.requirements()).toEqual(requirements);
    expect(sel.isEmpty()).toBe(requirements.length === 0);
    if (canonical !== null) expect(sel.toString()).toBe(canonical);
  });
});

describe('parseFieldSelector: errors carry kube-apiserver messages', () => {
  it.each([
    ['a', ["invalid selector: 'a'; can't understand 'a'", 'InvalidFieldSelector']],
    [
      'metadata.name=a,b',
      ["invalid selector: 'metadata.name=a,b'; can't understand 'b'", 'InvalidFieldSelector'],
    ],
    [
      'metadata.name=a=b',
      ['invalid field selector: unescaped character in value: 61', 'InvalidFieldSelector'],
    ],
    [
      'metadata.name=a\\q',
      ['invalid field selector: invalid escape sequence: \\q', 'InvalidFieldSelector'],
    ],
    [
      'metadata.name=a\\',
      ['invalid field selector: invalid escape sequence: \\', 'InvalidFieldSelector'],
    ],
    [
      'metadata.name===a',
      ['invalid field selector: unescaped character in value: 61', 'InvalidFieldSelector'],
    ],
  ])('%j', (input, [message, code]) => {
    const err = failure(() => parseFieldSelector(input, ['metadata.name']));
    expect(err.message).toBe(message);
    expect(err.code).toBe(code);
  });
});

describe('field labels each resource accepts', () => {
  it.each([
    ['pods', 'spec.nodeName=n1,status.phase!=Running', null],
    ['pods', 'spec.restartPolicy=Always,spec.schedulerName=x,spec.serviceAccountName=y', null],
    [
      'pods',
      'spec.hostNetwork=true,status.podIP=1.2.3.4,status.podIPs=,status.nominatedNodeName=n',
      null,
    ],
    ['pods', 'metadata.name=a,metadata.namespace=b', null],
    ['pods', 'foo=bar', 'field label not supported: foo'],
    ['pods', 'zz=1,aa=2', 'field label not supported: aa'],
    ['pods', 'metadata.name = a', 'field label not supported: metadata.name '],
    ['pods', 'metadata.labels.app=web', 'field label not supported: metadata.labels.app'],
    ['events', 'involvedObject.kind=Pod,involvedObject.name=p,involvedObject.uid=u', null],
    [
      'events',
      'involvedObject.namespace=n,involvedObject.apiVersion=v1,involvedObject.resourceVersion=1',
      null,
    ],
    [
      'events',
      'involvedObject.fieldPath=x,reason=Started,reportingComponent=kubelet,source=kubelet,type=Normal',
      null,
    ],
    ['events', 'regarding.kind=Pod', 'field label not supported: regarding.kind'],
    [
      'events.k8s.io/events',
      'regarding.kind=Pod,reportingController=kubelet,source=x,reason=r,type=t',
      null,
    ],
    [
      'events.k8s.io/events',
      'involvedObject.kind=Pod',
      'field label not supported: involvedObject.kind',
    ],
    ['namespaces', 'status.phase=Active,metadata.name=default', null],
    ['namespaces', 'metadata.namespace=x', 'field label not supported: metadata.namespace'],
    ['secrets', 'type=Opaque,metadata.namespace=x', null],
    ['secrets', 'data.key=x', 'field label not supported: data.key'],
    ['services', 'spec.clusterIP=None,spec.type=ClusterIP', null],
    [
      'configmaps',
      'data.x=y',
      '"data.x" is not a known field selector: only "metadata.name", "metadata.namespace"',
    ],
    [
      'serviceaccounts',
      'secrets=x',
      '"secrets" is not a known field selector: only "metadata.name", "metadata.namespace"',
    ],
    [
      'coordination.k8s.io/leases',
      'spec.holderIdentity=x',
      '"spec.holderIdentity" is not a known field selector: only "metadata.name", "metadata.namespace"',
    ],
    [
      'apiextensions.k8s.io/customresourcedefinitions',
      'spec.group=x',
      '"spec.group" is not a known field selector: only "metadata.name", "metadata.namespace"',
    ],
    ['apiextensions.k8s.io/customresourcedefinitions', 'metadata.namespace=', null],
  ])('%s %j', (resource, input, message) => {
    if (message === null) {
      expect(() => parseFieldSelector(input, spec(resource))).not.toThrow();
    } else {
      const err = failure(() => parseFieldSelector(input, spec(resource)));
      expect(err.code).toBe('UnsupportedFieldLabel');
      expect(err.message).toBe(message);
    }
  });

  it('rewrites the legacy pod label spec.host to spec.nodeName', () => {
    const sel = parseFieldSelector('spec.host=n1', spec('pods'));
    expect(sel.requirements()).toEqual([{ field: 'spec.nodeName', op: '=', value: 'n1' }]);
    expect(sel.requiresExactMatch('spec.nodeName')).toBe('n1');
  });
});

describe('matching against object field sets', () => {
  const pod = {
    metadata: { name: 'web-0', namespace: 'team' },
    spec: { nodeName: 'node-1', restartPolicy: 'Always', serviceAccountName: 'default' },
    status: { phase: 'Running', podIPs: [{ ip: '10.0.0.5' }, { ip: 'fd00::5' }] },
  };
  it.each([
    ['metadata.name=web-0', true],
    ['metadata.name=web-1', false],
    ['metadata.namespace=team,status.phase=Running', true],
    ['status.phase!=Running', false],
    ['status.phase!=Pending', true],
    ['spec.nodeName=node-1', true],
    ['spec.host=node-1', true],
    ['spec.hostNetwork=false', true],
    ['status.podIP=10.0.0.5', true],
    ['status.podIPs=10.0.0.5', false],
    ['status.podIPs=', true],
    ['spec.schedulerName=', true],
    ['status.nominatedNodeName!=', false],
  ])('pod %j → %s', (input, want) => {
    const s = spec('pods');
    expect(parseFieldSelector(input, s).matches(s.extract(pod))).toBe(want);
  });

  it('reads status.podIP from the singular field when podIPs is absent', () => {
    const s = spec('pods');
    const fields = s.extract({
      metadata: { name: 'p' },
      status: { podIP: '10.1.1.1' },
      spec: { hostNetwork: true },
    });
    expect(fields('status.podIP')).toBe('10.1.1.1');
    expect(fields('spec.hostNetwork')).toBe('true');
  });

  it('core events: source falls back to reportingComponent', () => {
    const s = spec('events');
    const event = {
      metadata: { name: 'e1', namespace: 'team' },
      involvedObject: {
        kind: 'Pod',
        name: 'web-0',
        namespace: 'team',
        uid: 'u1',
        fieldPath: 'spec.containers{app}',
      },
      reason: 'Started',
      type: 'Normal',
      reportingComponent: 'kubelet',
    };
    const fields = s.extract(event);
    expect(fields('source')).toBe('kubelet');
    expect(fields('involvedObject.fieldPath')).toBe('spec.containers{app}');
    expect(
      parseFieldSelector(
        'involvedObject.kind=Pod,involvedObject.name=web-0,involvedObject.namespace=team',
        s,
      ).matches(fields),
    ).toBe(true);
    expect(s.extract({ ...event, source: { component: 'scheduler' } })('source')).toBe('scheduler');
  });

  it('events.k8s.io events read regarding and reportingController', () => {
    const s = spec('events.k8s.io/events');
    const fields = s.extract({
      metadata: { name: 'e1', namespace: 'team' },
      regarding: { kind: 'Sandbox', name: 'sb' },
      reportingController: 'agent-sandbox',
      type: 'Warning',
    });
    expect(
      parseFieldSelector(
        'regarding.kind=Sandbox,reportingController=agent-sandbox,source=agent-sandbox',
        s,
      ).matches(fields),
    ).toBe(true);
    expect(parseFieldSelector('type=Normal', s).matches(fields)).toBe(false);
  });

  it('namespaces and secrets', () => {
    const ns = spec('namespaces');
    expect(
      parseFieldSelector('status.phase=Terminating', ns).matches(
        ns.extract({ metadata: { name: 'a' }, status: { phase: 'Terminating' } }),
      ),
    ).toBe(true);
    const sec = spec('secrets');
    const fields = sec.extract({
      metadata: { name: 's', namespace: 'n' },
      type: 'kubernetes.io/tls',
    });
    expect(parseFieldSelector('type=kubernetes.io/tls', sec).matches(fields)).toBe(true);
    expect(parseFieldSelector('type!=Opaque,metadata.name=s', sec).matches(fields)).toBe(true);
  });
});

describe('custom resources', () => {
  const namespaced = customResourceFieldSelectors({ namespaced: true });
  const cluster = customResourceFieldSelectors({ namespaced: false });
  const sandbox = { metadata: { name: 'sb-1', namespace: 'team' }, spec: { replicas: 1 } };

  it('accept metadata.name and (when namespaced) metadata.namespace', () => {
    expect(
      parseFieldSelector('metadata.name=sb-1', namespaced).matches(namespaced.extract(sandbox)),
    ).toBe(true);
    expect(
      parseFieldSelector('metadata.namespace=team', namespaced).matches(
        namespaced.extract(sandbox),
      ),
    ).toBe(true);
    expect(
      parseFieldSelector('metadata.name!=sb-1', namespaced).matches(namespaced.extract(sandbox)),
    ).toBe(false);
    expect(failure(() => parseFieldSelector('metadata.namespace=x', cluster)).message).toBe(
      'field label not supported: metadata.namespace',
    );
    expect(failure(() => parseFieldSelector('spec.replicas=1', namespaced)).message).toBe(
      'field label not supported: spec.replicas',
    );
  });

  it('accept selectableFields, rendering strings, integers and booleans', () => {
    const s = customResourceFieldSelectors({
      namespaced: true,
      selectableFields: [
        { jsonPath: '.spec.color' },
        { jsonPath: '.spec.replicas' },
        { jsonPath: '.spec.paused' },
      ],
    });
    const fields = s.extract({
      metadata: { name: 'x' },
      spec: { color: 'blue', replicas: 3, paused: false },
    });
    expect(
      parseFieldSelector('spec.color=blue,spec.replicas=3,spec.paused=false', s).matches(fields),
    ).toBe(true);
    expect(fields('spec.missing')).toBe('');
  });

  it('a plain list of labels rejects others with the CR wording', () => {
    expect(failure(() => parseFieldSelector('x=1', ['metadata.name'])).message).toBe(
      'field label not supported: x',
    );
  });
});

describe('value escaping (fields.EscapeValue / UnescapeValue)', () => {
  it.each([
    ['plain', 'plain'],
    ['a,b', 'a\\,b'],
    ['a=b', 'a\\=b'],
    ['a\\b', 'a\\\\b'],
    ['', ''],
  ])('%j ⇄ %j', (raw, escaped) => {
    expect(escapeFieldValue(raw)).toBe(escaped);
    expect(unescapeFieldValue(escaped)).toBe(raw);
  });
});
