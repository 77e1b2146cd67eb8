// `npm run db:generate`: regenerates the Prisma client into generated/prisma (no schema engine needed).
import { generatePrismaClient } from "./lib/prisma-generate";

await generatePrismaClient({ force: true });
