// Entry point of `npm run cluster -- <command>`: the only file here that reads argv and the
// environment. See test/cluster/README.md.
import { parseArgs } from 'node:util';
import { down, kubeconfigPath, status, up } from './src/cluster.ts';
import { ClusterError } from './src/errors.ts';
import { optionsFromEnv } from './src/options.ts';

const USAGE = `usage: npm run cluster -- <command>
  up [--nodes N]  build if needed, start etcd, kube-apiserver, kube-controller-manager,
                  kube-scheduler and kwok with N fake nodes (default 10), install our CRDs and
                  run their conversion webhook (agent-sandbox controller --controllers=none);
                  reuse a running cluster
  down            stop every process up started and remove its data
  status          show the processes, their logs and the node count; exits 1 when down
  kubeconfig      print the kubeconfig path (last line)`;

const log = (message: string) => console.error(message);

async function main(argv: string[]): Promise<void> {
  const { positionals, values } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: { nodes: { type: 'string' }, help: { type: 'boolean', short: 'h' } },
  });
  const [command, ...rest] = positionals;
  if (values.help || !command || rest.length > 0) {
    console.log(USAGE);
    process.exitCode = values.help ? 0 : 2;
    return;
  }
  const overrides = values.nodes === undefined ? {} : { nodes: Number(values.nodes) };
  const options = optionsFromEnv(process.env, overrides);
  switch (command) {
    case 'up': {
      const t0 = Date.now();
      const result = await up(options, log);
      log(
        `cluster: up in ${((Date.now() - t0) / 1000).toFixed(1)}s${result.reused ? ' (reused)' : ''}`,
      );
      console.log(result.kubeconfig);
      return;
    }
    case 'down':
      return down(options, log);
    case 'status': {
      const result = await status(options);
      for (const c of result.components) {
        console.log(
          `${c.name.padEnd(24)} pid ${String(c.pid).padEnd(8)} ${c.running ? 'running' : 'stopped'}  ${c.logFile}`,
        );
      }
      if (result.nodes) console.log(`nodes: ${result.nodes.ready}/${result.nodes.total} Ready`);
      console.log(result.up ? `up: ${result.kubeconfig}` : 'down');
      process.exitCode = result.up ? 0 : 1;
      return;
    }
    case 'kubeconfig':
      console.log(await kubeconfigPath(options));
      return;
    default:
      console.error(`unknown command ${command}\n${USAGE}`);
      process.exitCode = 2;
  }
}

main(process.argv.slice(2)).catch((err: unknown) => {
  if (err instanceof ClusterError) {
    console.error(`cluster: ${err.message}`);
  } else {
    console.error(err);
  }
  process.exitCode = 1;
});
