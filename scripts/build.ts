// `npm run build`: generate the Prisma client and build the console (what `npm start` does when needed).
import { buildConsoleIfNeeded } from "./lib/next-build";
import { generatePrismaClient } from "./lib/prisma-generate";

await generatePrismaClient();
await buildConsoleIfNeeded((line) => console.log(`[rebound] ${line}`));
