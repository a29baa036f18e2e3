// The files a kubelet puts into every container: /etc/hosts, /etc/hostname, /etc/resolv.conf.
import type { Pod } from '@agent-sandbox/kube-types';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { podResolvConf } from '../network/dns/pod-dns.ts';
import type { PodNetworkStatus } from '../network/pod-network.ts';
import type { BundleMount } from '../runtime/oci-spec.ts';

export async function writePodFiles(
  podDir: string,
  pod: Pod,
  net: PodNetworkStatus,
): Promise<BundleMount[]> {
  const dir = join(podDir, 'etc');
  await mkdir(dir, { recursive: true });
  const hostname = pod.spec?.hostname ?? pod.metadata?.name ?? 'localhost';
  const hosts = [
    '# Kubernetes-managed hosts file.',
    '127.0.0.1\tlocalhost',
    '::1\tlocalhost ip6-localhost ip6-loopback',
    ...(net.ips[0] ? [`${net.ips[0]}\t${hostname}`] : [`127.0.1.1\t${hostname}`]),
    ...(net.hostAliases ?? []),
    ...(pod.spec?.hostAliases ?? []).map((a) => `${a.ip}\t${(a.hostnames ?? []).join(' ')}`),
    '',
  ].join('\n');
  await writeFile(join(dir, 'hosts'), hosts);
  await writeFile(join(dir, 'hostname'), `${hostname}\n`);
  const mounts: BundleMount[] = [
    { destination: '/etc/hosts', source: join(dir, 'hosts'), readOnly: false },
    { destination: '/etc/hostname', source: join(dir, 'hostname'), readOnly: false },
  ];
  // spec.dnsPolicy and spec.dnsConfig decide between the network's cluster DNS and the Pod's own.
  const d = podResolvConf(pod, net.dns);
  if (d) {
    const resolv = [
      ...(d.searches.length ? [`search ${d.searches.join(' ')}`] : []),
      ...d.nameservers.map((n) => `nameserver ${n}`),
      ...(d.options.length ? [`options ${d.options.join(' ')}`] : []),
      '',
    ].join('\n');
    await writeFile(join(dir, 'resolv.conf'), resolv);
    mounts.push({
      destination: '/etc/resolv.conf',
      source: join(dir, 'resolv.conf'),
      readOnly: false,
    });
  }
  return mounts;
}
