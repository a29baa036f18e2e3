// `--trace`: where a cold start's time goes between the parts that share the process. Every
// request the embedded API server answers (not watches) is kept with who sent it (the client's
// User-Agent), what it was and when it came and was answered; the controller's informer
// deliveries are kept as instants. A round takes the items inside its window as extra steps, so
// the phase tables show them beside the agent's own (`api controller POST pods`, ...).
import type { ApiServer } from '@agent-sandbox/apiserver';

export interface TraceItem {
  phase: string;
  startMs: number;
  endMs: number;
}

/** `pods`, `pods/binding`, `sandboxes/status`, `serviceaccounts/token` from a request path. */
export function resourceOf(pathname: string): string {
  const parts = pathname.split('/').filter((p) => p !== '');
  // /api/v1/... or /apis/<group>/<version>/...
  let rest = parts[0] === 'api' ? parts.slice(2) : parts.slice(3);
  if (rest[0] === 'namespaces' && rest.length > 2) rest = rest.slice(2);
  return rest[2] === undefined ? (rest[0] ?? pathname) : `${rest[0]}/${rest[2]}`;
}

export class ApiTrace {
  readonly #items: TraceItem[] = [];

  /** Records every non-watch request `server` answers from now on. */
  wrap(server: ApiServer): void {
    const handle = server.handle.bind(server);
    server.handle = async (request, ...rest) => {
      const startMs = performance.now();
      const response = await handle(request, ...rest);
      const url = new URL(request.url);
      const watch = url.searchParams.get('watch');
      if (watch !== 'true' && watch !== '1') {
        const who = request.headers.get('user-agent') ?? '?';
        const method = rest[1] ?? request.method;
        const phase = `api ${who} ${method} ${resourceOf(url.pathname)}`;
        this.#items.push({ phase, startMs, endMs: performance.now() });
      }
      return response;
    };
  }

  /** An instant (an informer delivery). */
  mark(phase: string): void {
    const at = performance.now();
    this.#items.push({ phase, startMs: at, endMs: at });
  }

  /**
   * The items that started in [from, to), relative to `from`, and forgotten; a name seen again
   * in the window gets `#2`, `#3` so each write keeps its own row.
   */
  take(from: number, to: number): TraceItem[] {
    const seen = new Map<string, number>();
    const out: TraceItem[] = [];
    for (const item of this.#items) {
      if (item.startMs < from || item.startMs >= to) continue;
      const n = (seen.get(item.phase) ?? 0) + 1;
      seen.set(item.phase, n);
      const phase = n === 1 ? item.phase : `${item.phase} #${n}`;
      out.push({ phase, startMs: item.startMs - from, endMs: item.endMs - from });
    }
    const cut = this.#items.findIndex((i) => i.startMs >= to);
    this.#items.splice(0, cut === -1 ? this.#items.length : cut);
    return out;
  }
}
