// `npm run build`: generate the Prisma client, build the console (what `npm start` does when needed) and
// bundle the demo trainer, the operator and the agent.
import { buildAgent } from "./lib/agent-build";
import { buildDemoTrainer } from "./lib/demo-trainer-build";
import { buildConsoleIfNeeded } from "./lib/next-build";
import { buildOperator } from "./lib/operator-build";
import { generatePrismaClient } from "./lib/prisma-generate";

await generatePrismaClient();
await buildConsoleIfNeeded((line) => console.log(`[rebound] ${line}`));
await buildDemoTrainer();
await buildOperator();
await buildAgent();
