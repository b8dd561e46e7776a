import type { Statement } from '../sql/statement.js';
import { COUNTS } from './curation/counts.js';
import { EXPIRE_PARTITION } from './curation/expire-partition.js';
import { FORGET_ALL } from './curation/forget-all.js';
import { FORGET_IDS } from './curation/forget-ids.js';
import { INSERT_MEMORY } from './curation/insert-memory.js';
import { JOURNAL_PAGE } from './curation/journal-page.js';
import { LOCK_PARTITION } from './curation/lock-partition.js';
import { MERGE_MEMORY } from './curation/merge-memory.js';
import { NEIGHBOURS } from './curation/neighbours.js';
import { DATABASE_REGIONS } from './keys/database-regions.js';
import { FIND_KEY_BY_ACCESS_TOKEN } from './keys/find-by-access-token.js';
import { FIND_KEY_BY_HASH } from './keys/find-by-hash.js';
import { INSERT_KEY } from './keys/insert-key.js';
import { LIST_KEYS } from './keys/list-keys.js';
import { LIVE_KEY_HASHES } from './keys/live-key-hashes.js';
import { REVOKE_KEY } from './keys/revoke-key.js';
import { USER_EXISTS } from './keys/user-exists.js';
import { ASSIGN_CELLS } from './maintenance/cells-assign.js';
import { CELLS_BUILT } from './maintenance/cells-built.js';
import { DROP_CELLS } from './maintenance/cells-drop.js';
import { LIST_CELLS } from './maintenance/cells-list.js';
import { CELL_PARTITIONS } from './maintenance/cells-partitions.js';
import { REFINE_CELLS } from './maintenance/cells-refine.js';
import { REFRESH_CELLS } from './maintenance/cells-refresh.js';
import { SEED_CELLS } from './maintenance/cells-seed.js';
import { UNMARK_CELLS } from './maintenance/cells-unmark.js';
import { CLEAR_EMPTY_TERMS } from './maintenance/clear-empty-terms.js';
import { MARK_EXPIRING } from './maintenance/mark-expiring.js';
import { PASSAGES_PAGE } from './maintenance/passages-page.js';
import { WRITE_PASSAGES } from './maintenance/passages-write.js';
import { RANK_POSTINGS } from './maintenance/rank-postings.js';
import { RECORD_EXPIRING_KINDS } from './maintenance/record-expiring-kinds.js';
import { REEMBED_ADD_COLUMN } from './maintenance/reembed-add-column.js';
import { REEMBED_CLEAR_CELLS } from './maintenance/reembed-clear-cells.js';
import { REEMBED_DONE } from './maintenance/reembed-done.js';
import { REEMBED_DROP_NEXT_COLUMN } from './maintenance/reembed-drop-next-column.js';
import { REEMBED_DROP_OLD_COLUMN } from './maintenance/reembed-drop-old-column.js';
import { REEMBED_FIRST } from './maintenance/reembed-first.js';
import { REEMBED_MISSING } from './maintenance/reembed-missing.js';
import { REEMBED_NEXT_COLUMN } from './maintenance/reembed-next-column.js';
import { REEMBED_NEXT } from './maintenance/reembed-next.js';
import { REEMBED_RENAME_COLUMN } from './maintenance/reembed-rename-column.js';
import { REEMBED_REQUIRE_VECTORS } from './maintenance/reembed-require-vectors.js';
import { REEMBED_REWRITE } from './maintenance/reembed-rewrite.js';
import { REEMBED_TOTAL } from './maintenance/reembed-total.js';
import { STALE_TERMS } from './maintenance/stale-terms.js';
import { SWEEP_EXPIRED } from './maintenance/sweep-expired.js';
import { SWEEP_SUPERSEDED } from './maintenance/sweep-superseded.js';
import { SWEEPER_STATE } from './maintenance/sweeper-state.js';
import { TRIM_JOURNAL } from './maintenance/trim-journal.js';
import { CONSUME_CODE } from './oauth/consume-code.js';
import { COUNT_REQUEST } from './oauth/count-request.js';
import { CREATE_GRANT } from './oauth/create-grant.js';
import { DELETE_EXPIRED_CODES } from './oauth/delete-expired-codes.js';
import { DELETE_EXPIRED_TOKENS } from './oauth/delete-expired-tokens.js';
import { DELETE_LAPSED_CLIENTS } from './oauth/delete-lapsed-clients.js';
import { DELETE_OLD_WINDOWS } from './oauth/delete-old-windows.js';
import { FIND_CLIENT } from './oauth/find-client.js';
import { LAPSE_UNUSED_CLIENTS } from './oauth/lapse-unused-clients.js';
import { GRANT_OF } from './oauth/grant-of.js';
import { REGISTER_CLIENT } from './oauth/register-client.js';
import { REPLACED_REFRESH } from './oauth/replaced-refresh.js';
import { ROTATE } from './oauth/rotate.js';
import { SAVE_CODE } from './oauth/save-code.js';
import { USED_CODE } from './oauth/used-code.js';
import { BROWSE } from './page/browse.js';
import { JOURNAL_BY_DAY } from './page/journal-by-day.js';
import { JOURNAL_BY_HOUR } from './page/journal-by-hour.js';
import { MEMORY_BY_ID } from './page/memory-by-id.js';
import { NEXT_TO_GO } from './page/next-to-go.js';
import { SET_PINNED_MANY } from './page/set-pinned-many.js';
import { WRITERS } from './page/writers.js';
import { RECALL } from './recall/recall.js';
import { ANY_MEMORY } from './schema/any-memory.js';
import { APPLIED_MIGRATIONS } from './schema/applied-migrations.js';
import { CONNECTED_ROLE } from './schema/connected-role.js';
import { CURRENT_DATABASE } from './schema/current-database.js';
import { DELETE_SETTING } from './schema/delete-setting.js';
import { INVALID_INDEX } from './schema/invalid-index.js';
import { ISOLATION_LEVEL } from './schema/isolation-level.js';
import { READ_SETTING } from './schema/read-setting.js';
import { RECORD_SETTING } from './schema/record-setting.js';
import { REGIONS_OF_DATABASE } from './schema/regions-of-database.js';
import { ROLE_EXISTS } from './schema/role-exists.js';
import { SCHEMA_SETTINGS } from './schema/schema-settings.js';
import { SCHEMA_USAGE } from './schema/schema-usage.js';
import { SERVER_VERSION } from './schema/server-version.js';
import { TABLE_HAS_ROWS } from './schema/table-has-rows.js';
import { SAMPLED_COLUMNS } from './schema/sampled-columns.js';
import { STALE_STATISTICS } from './schema/stale-statistics.js';
import { TABLE_VISIBILITY } from './schema/table-visibility.js';
import { IMPORT_MEMORIES } from './transfer/import-memories.js';
import { LOAD_MEMORIES } from './transfer/load-memories.js';

/** A statement of any inputs and rows. */
// biome-ignore lint/suspicious/noExplicitAny: a list of statements of every input type
export type AnyStatement = Statement<any, unknown>;

/**
 * Every runtime statement, one per file, by use case: what the plan verifier's catalogue must cover
 * (bin/plan/catalogue.ts). test/unit/statement-registry.test.ts reads the folder and fails unless
 * every statement a file of it exports is listed here, under its file's name (`<use case>/<name>`).
 */
export const STATEMENTS: readonly AnyStatement[] = [
  COUNTS,
  EXPIRE_PARTITION,
  FORGET_ALL,
  FORGET_IDS,
  INSERT_MEMORY,
  JOURNAL_PAGE,
  LOCK_PARTITION,
  MERGE_MEMORY,
  NEIGHBOURS,
  DATABASE_REGIONS,
  FIND_KEY_BY_ACCESS_TOKEN,
  FIND_KEY_BY_HASH,
  INSERT_KEY,
  LIST_KEYS,
  LIVE_KEY_HASHES,
  REVOKE_KEY,
  USER_EXISTS,
  ASSIGN_CELLS,
  DROP_CELLS,
  CELL_PARTITIONS,
  REFINE_CELLS,
  REFRESH_CELLS,
  SEED_CELLS,
  UNMARK_CELLS,
  CELLS_BUILT,
  LIST_CELLS,
  CLEAR_EMPTY_TERMS,
  MARK_EXPIRING,
  PASSAGES_PAGE,
  WRITE_PASSAGES,
  RANK_POSTINGS,
  RECORD_EXPIRING_KINDS,
  REEMBED_ADD_COLUMN,
  REEMBED_CLEAR_CELLS,
  REEMBED_DONE,
  REEMBED_DROP_NEXT_COLUMN,
  REEMBED_DROP_OLD_COLUMN,
  REEMBED_FIRST,
  REEMBED_MISSING,
  REEMBED_NEXT_COLUMN,
  REEMBED_NEXT,
  REEMBED_RENAME_COLUMN,
  REEMBED_REQUIRE_VECTORS,
  REEMBED_REWRITE,
  REEMBED_TOTAL,
  STALE_TERMS,
  SWEEP_EXPIRED,
  SWEEP_SUPERSEDED,
  SWEEPER_STATE,
  TRIM_JOURNAL,
  CONSUME_CODE,
  COUNT_REQUEST,
  CREATE_GRANT,
  DELETE_EXPIRED_CODES,
  DELETE_EXPIRED_TOKENS,
  DELETE_LAPSED_CLIENTS,
  DELETE_OLD_WINDOWS,
  FIND_CLIENT,
  LAPSE_UNUSED_CLIENTS,
  GRANT_OF,
  REGISTER_CLIENT,
  REPLACED_REFRESH,
  ROTATE,
  SAVE_CODE,
  USED_CODE,
  BROWSE,
  JOURNAL_BY_DAY,
  JOURNAL_BY_HOUR,
  MEMORY_BY_ID,
  NEXT_TO_GO,
  SET_PINNED_MANY,
  WRITERS,
  RECALL,
  ANY_MEMORY,
  APPLIED_MIGRATIONS,
  CONNECTED_ROLE,
  CURRENT_DATABASE,
  DELETE_SETTING,
  INVALID_INDEX,
  ISOLATION_LEVEL,
  READ_SETTING,
  RECORD_SETTING,
  REGIONS_OF_DATABASE,
  ROLE_EXISTS,
  SCHEMA_SETTINGS,
  SCHEMA_USAGE,
  SERVER_VERSION,
  TABLE_HAS_ROWS,
  SAMPLED_COLUMNS,
  STALE_STATISTICS,
  TABLE_VISIBILITY,
  IMPORT_MEMORIES,
  LOAD_MEMORIES,
];
