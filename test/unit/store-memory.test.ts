import { storeSuite } from '../store/conformance.js';
import { openMemory } from '../store/harness.js';

/** The in-memory reference store passes the same conformance suite as the SQL engines, with no database. */
storeSuite('in memory (the reference store)', 'memory', openMemory);
