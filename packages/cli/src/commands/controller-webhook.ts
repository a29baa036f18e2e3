// The controller manager's conversion webhook (spec §17): certificates (controller-webhook-certs.ts),
// an HTTPS server answering POST /convert with @agent-sandbox/controllers' reviewConversion, and
// the merge patch that points our CRDs' Webhook conversion at it. --webhook-url-host is an
// agent-sandbox extension for running outside a cluster: the CRDs get `clientConfig.url` instead
// of a Service reference, and the certificate covers that host (ADR 0015).
import { createServer, type Server } from 'node:https';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { isIP } from 'node:net';
import { EXTENSIONS_GROUP, SANDBOX_GROUP } from '@agent-sandbox/api';
import { ConversionReviewError, reviewConversion } from '@agent-sandbox/controllers';
import { CUSTOM_RESOURCE_DEFINITIONS, KubeClient, isNotFound } from '@agent-sandbox/kube';
import type { KubeObject } from '@agent-sandbox/kube-types';
import type { Logger } from 'pino';
import {
  WebhookError,
  ensureWebhookCertificates,
  loadWebhookCertificateFiles,
  type WebhookCertificates,
} from './controller-webhook-certs.ts';

export const CONVERT_PATH = '/convert';
/** Our four CRDs (spec §1). */
export const WEBHOOK_CRD_NAMES: readonly string[] = [
  `sandboxes.${SANDBOX_GROUP}`,
  `sandboxtemplates.${EXTENSIONS_GROUP}`,
  `sandboxclaims.${EXTENSIONS_GROUP}`,
  `sandboxwarmpools.${EXTENSIONS_GROUP}`,
];
/** Largest ConversionReview body accepted; kube-apiserver's own request limit is 3 MiB. */
const MAX_BODY_BYTES = 3 * 1024 * 1024;

export interface WebhookOptions {
  client: KubeClient;
  logger: Logger;
  /** 0 picks a free port (logged). */
  port: number;
  certDir: string;
  certName: string;
  keyName: string;
  serviceName: string;
  namespace: string;
  clusterDomain: string;
  manageCerts: boolean;
  extensions: boolean;
  /** agent-sandbox extension: patch CRDs with `https://<urlHost>:<port>/convert`. */
  urlHost?: string;
}

export interface WebhookHandle {
  port: number;
  /** What the CRDs now point at; undefined when certificates are unmanaged (no patch). */
  clientConfig?: WebhookClientConfig;
  close(): Promise<void>;
}

interface WebhookClientConfig {
  url?: string | null;
  service?: { name: string; namespace: string; path: string } | null;
  caBundle: string;
}

/** The request handler: POST /convert only, JSON in and out. */
export function webhookRequestListener(options: {
  extensions: boolean;
  logger: Logger;
}): (req: IncomingMessage, res: ServerResponse) => void {
  const reply = (res: ServerResponse, status: number, body: unknown): void => {
    const text = JSON.stringify(body);
    res.writeHead(status, { 'content-type': 'application/json' }).end(text);
  };
  return (req, res) => {
    const path = (req.url ?? '').split('?')[0];
    if (path !== CONVERT_PATH)
      return reply(res, 404, {
        message: `no handler for ${path}; the webhook serves POST ${CONVERT_PATH}`,
      });
    if (req.method !== 'POST')
      return reply(res, 405, { message: `${CONVERT_PATH} accepts POST only` });
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size > MAX_BODY_BYTES) {
        reply(res, 413, { message: `ConversionReview larger than ${MAX_BODY_BYTES} bytes` });
        req.destroy();
      } else chunks.push(c);
    });
    req.on('end', () => {
      if (res.headersSent) return;
      let body: unknown;
      try {
        body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      } catch {
        return reply(res, 400, {
          message: 'the request body is not JSON: send a ConversionReview',
        });
      }
      try {
        const answer = reviewConversion(body, { extensions: options.extensions });
        if (answer.response.result.status === 'Failure')
          options.logger.info(
            { uid: answer.response.uid, message: answer.response.result.message },
            'conversion failed',
          );
        reply(res, 200, answer);
      } catch (err: unknown) {
        if (!(err instanceof ConversionReviewError)) {
          options.logger.error({ err }, 'conversion webhook handler failed');
          return reply(res, 500, { message: 'internal error converting the review' });
        }
        reply(res, 400, { message: err.message });
      }
    });
  };
}

/** `host:port` for a URL: IPv6 literals go in brackets. */
function urlAuthority(host: string, port: number): string {
  return isIP(host) === 6 ? `[${host}]:${port}` : `${host}:${port}`;
}

/**
 * Points each of our CRDs that exists and uses Webhook conversion at the webhook (spec §17):
 * a merge patch of `spec.conversion.webhook` (clientConfig and, when empty,
 * conversionReviewVersions). The other of url/service is nulled, as kube allows only one.
 * @returns the names of the CRDs patched
 */
export async function patchCrdConversion(
  client: KubeClient,
  clientConfig: WebhookClientConfig,
): Promise<string[]> {
  const patched: string[] = [];
  for (const name of WEBHOOK_CRD_NAMES) {
    let crd: KubeObject & {
      spec?: {
        conversion?: { strategy?: string; webhook?: { conversionReviewVersions?: string[] } };
      };
    };
    try {
      crd = await client.get(CUSTOM_RESOURCE_DEFINITIONS, undefined, name);
    } catch (err: unknown) {
      if (isNotFound(err)) continue;
      throw err;
    }
    const conversion = crd.spec?.conversion;
    if (conversion?.strategy !== 'Webhook') continue;
    const versions = conversion.webhook?.conversionReviewVersions;
    await client.patch(CUSTOM_RESOURCE_DEFINITIONS, undefined, name, {
      type: 'merge',
      body: {
        spec: {
          conversion: {
            webhook: {
              clientConfig,
              ...(versions?.length ? {} : { conversionReviewVersions: ['v1', 'v1beta1'] }),
            },
          },
        },
      },
    });
    patched.push(name);
  }
  return patched;
}

/**
 * Gets certificates, starts the HTTPS server and patches the CRDs. The server runs on every
 * replica, not only the leader: kube-apiserver may call any of them.
 */
export async function startWebhook(options: WebhookOptions): Promise<WebhookHandle> {
  const { logger } = options;
  const extraHosts = options.urlHost ? [...new Set([options.urlHost, '127.0.0.1'])] : [];
  let certs: WebhookCertificates;
  if (options.manageCerts) {
    const ensured = await ensureWebhookCertificates({
      client: options.client,
      certDir: options.certDir,
      certName: options.certName,
      keyName: options.keyName,
      serviceName: options.serviceName,
      namespace: options.namespace,
      clusterDomain: options.clusterDomain,
      extraHosts,
    });
    certs = ensured.certs;
    logger.info(
      {
        secret: `${options.namespace}/agent-sandbox-webhook-certs`,
        created: ensured.created,
        certDir: options.certDir,
      },
      ensured.created
        ? 'webhook certificates generated'
        : 'webhook certificates loaded from the Secret',
    );
  } else {
    certs = loadWebhookCertificateFiles(options);
    logger.info({ certDir: options.certDir }, 'webhook certificates loaded from files');
  }

  const server: Server = createServer(
    { cert: certs.cert, key: certs.key },
    webhookRequestListener({ extensions: options.extensions, logger }),
  );
  await new Promise<void>((resolve, reject) => {
    server.once('error', (err: Error) =>
      reject(
        new WebhookError(
          'ListenFailed',
          `cannot serve the conversion webhook on port ${options.port} (${(err as NodeJS.ErrnoException).code ?? 'listen failed'}); pass a free --webhook-port (0 picks one)`,
          { cause: err },
        ),
      ),
    );
    server.listen(options.port, resolve);
  });
  // After listen, an error is logged rather than thrown from an event the manager cannot catch.
  server.on('error', (err: Error) => logger.error({ err }, 'conversion webhook server error'));
  const port = (server.address() as AddressInfo).port;
  const close = async (): Promise<void> => {
    server.closeAllConnections();
    await new Promise<void>((r) => server.close(() => r()));
  };
  logger.info({ port, path: CONVERT_PATH }, 'conversion webhook serving');

  if (certs.caCert === undefined) {
    logger.info(
      'webhook certificates are unmanaged: the CRDs are left as they are (inject caBundle yourself)',
    );
    return { port, close };
  }
  const caBundle = Buffer.from(certs.caCert).toString('base64');
  const clientConfig: WebhookClientConfig = options.urlHost
    ? {
        url: `https://${urlAuthority(options.urlHost, port)}${CONVERT_PATH}`,
        service: null,
        caBundle,
      }
    : {
        url: null,
        service: { name: options.serviceName, namespace: options.namespace, path: CONVERT_PATH },
        caBundle,
      };
  try {
    const patched = await patchCrdConversion(options.client, clientConfig);
    logger.info(
      { crds: patched, url: clientConfig.url ?? undefined },
      'CRD conversion webhook configured',
    );
  } catch (err: unknown) {
    await close();
    throw err;
  }
  return { port, clientConfig, close };
}
