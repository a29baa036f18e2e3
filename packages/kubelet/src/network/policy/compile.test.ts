import { describe, expect, it } from 'vitest';
import { compilePolicyTable, selects, type PolicyInput } from './compile.ts';

const sandbox = { namespace: 'team', name: 'sb', labels: { hash: 'h1' }, ip: '10.88.0.2' };
const router = {
  namespace: 'agent-sandbox-system',
  name: 'router',
  labels: { app: 'sandbox-router' },
  ip: '10.88.0.3',
};
const other = { namespace: 'team', name: 'web', labels: { app: 'web' }, ip: '10.88.0.4' };
const namespaces = [
  { name: 'team', labels: { 'kubernetes.io/metadata.name': 'team' } },
  {
    name: 'agent-sandbox-system',
    labels: { 'kubernetes.io/metadata.name': 'agent-sandbox-system' },
  },
];
const secure = {
  metadata: { name: 'p', namespace: 'team' },
  spec: {
    podSelector: { matchLabels: { hash: 'h1' } },
    policyTypes: ['Ingress', 'Egress'],
    ingress: [
      {
        from: [
          {
            namespaceSelector: {
              matchLabels: { 'kubernetes.io/metadata.name': 'agent-sandbox-system' },
            },
            podSelector: { matchLabels: { app: 'sandbox-router' } },
          },
        ],
      },
    ],
    egress: [
      {
        to: [
          { ipBlock: { cidr: '0.0.0.0/0', except: ['10.0.0.0/8', '169.254.0.0/16'] } },
          { ipBlock: { cidr: '::/0', except: ['fc00::/7'] } },
        ],
      },
    ],
  },
};

describe('NetworkPolicy compilation', () => {
  it('matches label selectors like apimachinery', () => {
    const l = { app: 'web', tier: 'fe' };
    expect(selects(undefined, l)).toBe(true);
    expect(selects({}, l)).toBe(true);
    expect(selects({ matchLabels: { app: 'web' } }, l)).toBe(true);
    expect(
      selects({ matchExpressions: [{ key: 'tier', operator: 'In', values: ['fe', 'be'] }] }, l),
    ).toBe(true);
    expect(
      selects({ matchExpressions: [{ key: 'tier', operator: 'NotIn', values: ['fe'] }] }, l),
    ).toBe(false);
    expect(selects({ matchExpressions: [{ key: 'x', operator: 'DoesNotExist' }] }, l)).toBe(true);
    expect(selects({ matchExpressions: [{ key: 'x', operator: 'Exists' }] }, l)).toBe(false);
    expect(selects({ matchExpressions: [{ key: 'x', operator: 'Bogus' }] }, l)).toBe(false);
  });

  it('isolates the selected sandbox: router-only ingress, internet-only egress, never the node', () => {
    const input: PolicyInput = { pods: [sandbox, router, other], namespaces, policies: [secure] };
    const script = compilePolicyTable('t', input);
    expect(script).toContain('ip saddr 10.88.0.2 jump egress_0');
    expect(script).toContain('ip saddr 10.88.0.2 jump node_0');
    expect(script).toContain(
      'ip daddr 0.0.0.0/0 ip daddr != { 10.0.0.0/8, 169.254.0.0/16 } return',
    );
    expect(script).toContain('ip6 daddr ::/0 ip6 daddr != { fc00::/7 } return');
    expect(script).toContain('ip saddr { 10.88.0.3 } return'); // only the router may connect in
    // the node chain allows nothing: 0.0.0.0/0 is the internet, not the node
    expect(/chain node_0 \{\n {4}# team\/sb\n {4}drop/.test(script)).toBe(true);
    // unselected Pods get no chains
    expect(script).not.toContain('10.88.0.4 jump');
    expect(script.startsWith('table inet t\ndelete table inet t\ntable inet t {')).toBe(true);
  });

  it('compiles ports, pod peers in the policy namespace, and deny-all', () => {
    const input: PolicyInput = {
      pods: [sandbox, other],
      namespaces,
      policies: [
        {
          metadata: { name: 'a', namespace: 'team' },
          spec: {
            podSelector: { matchLabels: { hash: 'h1' } },
            policyTypes: ['Egress'],
            egress: [
              {
                to: [{ podSelector: { matchLabels: { app: 'web' } } }],
                ports: [{ port: 80 }, { protocol: 'UDP', port: 53, endPort: 54 }, { port: 'http' }],
              },
              { to: [{ ipBlock: { cidr: '10.88.0.1/32' } }] },
            ],
          },
        },
        {
          metadata: { name: 'deny', namespace: 'team' },
          spec: { podSelector: { matchLabels: { app: 'web' } }, policyTypes: ['Ingress'] },
        },
      ],
    };
    const script = compilePolicyTable('t', input);
    expect(script).toContain('ip daddr { 10.88.0.4 } tcp dport 80 return');
    expect(script).toContain('ip daddr { 10.88.0.4 } udp dport 53-54 return');
    expect(script).not.toContain('http');
    // a /32 ipBlock may name the node itself
    expect(
      /chain node_0 \{\n {4}# team\/sb\n {4}ip daddr 10\.88\.0\.1\/32 return/.test(script),
    ).toBe(true);
    expect(/chain ingress_1 \{\n {4}# team\/web\n {4}drop/.test(script)).toBe(true);
  });
});
