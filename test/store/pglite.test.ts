import { freshDatabase, truncateAll } from '../support/database.js';
import { storeSuite } from './suite.js';

storeSuite('PGlite in-process', async () => {
  const db = await freshDatabase();
  return { sql: db, reset: () => truncateAll(db), close: () => db.close() };
});
