import { freshDatabase } from '../test/support/database.js';
import { measureRoundTrips } from './round-trips-lib.js';

/** `npm run bench:round-trips`: SQL round trips per tool call path, against the budgets of DESIGN §9. */
const db = await freshDatabase();
const rows = await measureRoundTrips(db);
await db.close();
console.log('| tool call | SQL round trips | budget |\n| --- | --- | --- |');
for (const row of rows) console.log(`| ${row.call} | ${row.roundTrips} | ≤ ${row.budget} |`);
