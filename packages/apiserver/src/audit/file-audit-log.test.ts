// The audit log's size bound on a real directory: lines are whole JSON events, the current file
// never passes maxBytes, backups shift and the oldest goes, and a closed log drops records.
import { existsSync, mkdtempSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { auditEvent, type AuditEvent } from './audit-event.ts';
import { FileAuditLog } from './file-audit-log.ts';

function event(n: number): AuditEvent {
  return auditEvent(
    {
      auditID: `id-${n}`,
      received: new Date('2026-12-01T10:00:00.123Z'),
      url: new URL(`https://x/api/v1/namespaces/ns/configmaps?n=${n}`),
      userAgent: 'test',
      user: { username: 'alice', groups: ['system:authenticated'] },
      req: { group: '', version: 'v1', resource: 'configmaps', namespace: 'ns', verb: 'create' },
      name: `cm-${n}`,
    },
    201,
    new Date('2026-12-01T10:00:00.456Z'),
  );
}

const lines = (path: string): AuditEvent[] =>
  readFileSync(path, 'utf8')
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as AuditEvent);

describe('FileAuditLog', () => {
  it('writes one kube audit Event per line', () => {
    const path = join(mkdtempSync(join(tmpdir(), 'audit-')), 'audit.log');
    const log = new FileAuditLog({ path });
    log.record(event(1));
    log.close();
    log.record(event(2)); // dropped after close
    expect(lines(path)).toEqual([
      {
        kind: 'Event',
        apiVersion: 'audit.k8s.io/v1',
        level: 'Metadata',
        auditID: 'id-1',
        stage: 'ResponseComplete',
        requestURI: '/api/v1/namespaces/ns/configmaps?n=1',
        verb: 'create',
        user: { username: 'alice', groups: ['system:authenticated'] },
        userAgent: 'test',
        objectRef: { resource: 'configmaps', namespace: 'ns', name: 'cm-1', apiVersion: 'v1' },
        responseStatus: { metadata: {}, code: 201 },
        requestReceivedTimestamp: '2026-12-01T10:00:00.123000Z',
        stageTimestamp: '2026-12-01T10:00:00.456000Z',
      },
    ]);
    expect(statSync(path).mode & 0o777).toBe(0o600);
  });

  it('rotates at maxBytes, keeps maxBackups files and drops the oldest', () => {
    const path = join(mkdtempSync(join(tmpdir(), 'audit-')), 'audit.log');
    const size = Buffer.byteLength(`${JSON.stringify(event(10))}\n`);
    const log = new FileAuditLog({ path, maxBytes: size * 3, maxBackups: 2 });
    for (let n = 10; n < 30; n++) log.record(event(n));
    log.close();
    for (const p of [path, `${path}.1`, `${path}.2`])
      expect(statSync(p).size).toBeLessThanOrEqual(size * 3);
    expect(existsSync(`${path}.3`)).toBe(false);
    // 20 events, 3 per file: the newest 8 survive (2 in the current file, 3 in each backup).
    const kept = [`${path}.2`, `${path}.1`, path].flatMap(lines).map((e) => e.auditID);
    expect(kept).toEqual(Array.from({ length: 8 }, (_, i) => `id-${22 + i}`));
  });

  it('appends to the file a previous run left, counting its size', () => {
    const path = join(mkdtempSync(join(tmpdir(), 'audit-')), 'audit.log');
    const size = Buffer.byteLength(`${JSON.stringify(event(10))}\n`);
    const first = new FileAuditLog({ path, maxBytes: size * 2 });
    first.record(event(10));
    first.close();
    const second = new FileAuditLog({ path, maxBytes: size * 2 });
    second.record(event(11));
    second.record(event(12));
    second.close();
    expect(lines(`${path}.1`).map((e) => e.auditID)).toEqual(['id-10', 'id-11']);
    expect(lines(path).map((e) => e.auditID)).toEqual(['id-12']);
  });
});
