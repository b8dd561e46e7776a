import { freshDatabase, truncateAll } from '../support/database.js';
import { storeSuite } from './conformance.js';
import { sqlHarness } from './harness.js';

storeSuite('PGlite in-process', 'sql', async () => {
  const db = await freshDatabase();
  return sqlHarness(db, { reset: () => truncateAll(db), close: () => db.close() });
});
