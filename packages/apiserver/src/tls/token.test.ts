import { mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CredentialError } from './errors.ts';
import { renderKubeconfig, writeKubeconfig } from './kubeconfig.ts';
import { ensureToken } from './token.ts';

function tempDir(): string {
  return mkdtempSync(join(tmpdir(), 'apiserver-token-'));
}

describe('ensureToken', () => {
  it('creates a random token once (mode 0600) and reuses it', () => {
    const path = join(tempDir(), 'token');
    const token = ensureToken({ path });
    expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(readFileSync(path, 'utf8')).toBe(`${token}\n`);
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(ensureToken({ path })).toBe(token);
    expect(ensureToken({ path: join(tempDir(), 'token') })).not.toBe(token);
  });

  it('refuses a file that holds no token and leaves it untouched', () => {
    const path = join(tempDir(), 'token');
    writeFileSync(path, 'not a token\n');
    expect(() => ensureToken({ path })).toThrow(CredentialError);
    expect(() => ensureToken({ path })).toThrow(`${path} does not hold a bearer token`);
    expect(readFileSync(path, 'utf8')).toBe('not a token\n');
  });
});

describe('kubeconfig', () => {
  it('names the HTTPS server, the inline CA and the token, written 0600', () => {
    const path = join(tempDir(), 'kubeconfig');
    const caCert = '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n';
    writeKubeconfig(path, { server: 'https://127.0.0.1:6443', caCert, token: 'abc' });
    const text = readFileSync(path, 'utf8');
    expect(text).toBe(renderKubeconfig({ server: 'https://127.0.0.1:6443', caCert, token: 'abc' }));
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(text).toContain('    server: https://127.0.0.1:6443\n');
    expect(text).toContain(
      `    certificate-authority-data: ${Buffer.from(caCert).toString('base64')}\n`,
    );
    expect(text).toContain('    token: abc\n');
    expect(text).toContain('current-context: agent-sandbox\n');
  });
});
