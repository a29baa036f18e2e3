// Entry point: `node --import tsx agent-child.ts JSON` (JSON: AgentChildOptions) runs a node
// agent until killed; prints "started" once it runs. Tests only.
import { restartableAgent, type AgentChildOptions } from './restartable-agent.ts';

const agent = restartableAgent(JSON.parse(process.argv[2] ?? '{}') as AgentChildOptions);
agent.start().then(
  () => process.stdout.write('started\n'),
  (e: unknown) => {
    process.stderr.write(`${String(e)}\n`);
    process.exit(1);
  },
);
