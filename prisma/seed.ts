// `npm run db:seed`: seeds the demo data into DATABASE_URL when that database has no teams yet.
import { createDb } from "@/server/db/client";
import { seedIfEmpty } from "@/server/db/seed";

const url = process.env.DATABASE_URL;
if (!url) {
  console.error("db:seed: set DATABASE_URL (npm start seeds the embedded database by itself)");
  process.exit(2);
}
const db = createDb(url);
try {
  console.log(
    (await seedIfEmpty(db)) ? "seeded the demo data" : "database already has teams; nothing seeded",
  );
} finally {
  await db.$disconnect();
}
