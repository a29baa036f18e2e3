// Counts read once at the end of a run, in pages of 500 (each page well inside kube-apiserver's
// request timeout, which one unpaginated list of 10,000 Sandboxes outlasted on a busy machine).
import type { Client } from '../apiserver/client.ts';

interface Item {
  status?: { conditions?: { type?: string; status?: string }[] };
}

async function eachPage(client: Client, path: string, onItems: (items: Item[]) => void) {
  let cont = '';
  const sep = path.includes('?') ? '&' : '?';
  do {
    const q = `limit=500${cont ? `&continue=${encodeURIComponent(cont)}` : ''}`;
    const res = await client.request('GET', `${path}${sep}${q}`);
    if (res.status !== 200) throw new Error(`list ${path}: HTTP ${res.status}`);
    const list = res.body as { metadata?: { continue?: string }; items?: Item[] };
    onItems(list.items ?? []);
    cont = list.metadata?.continue ?? '';
  } while (cont);
}

/** Objects under `path` whose Ready condition is True now. */
export async function countReady(client: Client, path: string): Promise<number> {
  let n = 0;
  await eachPage(client, path, (items) => {
    for (const i of items)
      if ((i.status?.conditions ?? []).some((c) => c.type === 'Ready' && c.status === 'True')) n++;
  });
  return n;
}

/** Events with this reason, cluster-wide (e.g. NodeNotReady from the node lifecycle controller). */
export async function countEvents(client: Client, reason: string): Promise<number> {
  let n = 0;
  await eachPage(client, `/api/v1/events?fieldSelector=reason%3D${reason}`, (items) => {
    n += items.length;
  });
  return n;
}
