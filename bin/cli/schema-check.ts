import {
  type ConnectedRole,
  compareSchema,
  connectedRole,
  knownMigrations,
  type SchemaStanding,
  SchemaAccessError,
  appliedMigrations,
} from '../../lambda/adapters/pg/schema/version.js';
import { SchemaError } from '../../lambda/adapters/pg/schema/facts.js';
import type { SqlClient } from '../../lambda/adapters/pg/sql-client.js';

/** What `naaba migrate --check` prints: lines for a person, and the same facts as JSON. */
export interface SchemaReport {
  readonly lines: string[];
  readonly json: Omit<SchemaStanding, 'unknown' | 'incompatible'> & {
    readonly unknown: readonly string[];
    readonly incompatible: readonly string[];
    readonly role: string;
    readonly canChangeSchema: boolean;
  };
}

/** The standing line: the state word first, so a script can read it. */
function standingLine(s: SchemaStanding, known: readonly string[]): string[] {
  const names = (list: readonly { version: string }[]) => list.map((m) => m.version).join(', ');
  switch (s.state) {
    case 'current':
      return [`current: the database has every migration this code knows (the last is ${known.at(-1) ?? 'none'}), and no other`];
    case 'behind':
      return [
        `behind: the database lacks ${s.missing.join(', ')}; run \`naaba migrate\` as the owner before deploying this code`,
      ];
    case 'diverged':
      return [
        `diverged: the database lacks ${s.missing.join(', ')} and has ${names(s.unknown)}, which this code does not know`,
        'the two come from different releases: deploy and migrate from one of them',
      ];
    case 'ahead':
      return s.incompatible.length === 0
        ? [
            `ahead: the database has ${names(s.unknown)}, which this code does not know; all are expansions, so this code can still run against it`,
          ]
        : [
            `ahead: the database has ${names(s.unknown)}, which this code does not know`,
            ...s.incompatible.map(
              (m) =>
                `  ${m.version} is a contract migration for code that knows ${m.requires}: this code must not run against it`,
            ),
          ];
  }
}

function roleLine(role: ConnectedRole): string {
  const can = role.canCreate || role.ownsTables;
  return can
    ? `connected as ${role.role}: can change the schema (${role.ownsTables ? 'owns tables' : 'may create in schema public'}); fine for naaba migrate, wrong for the functions' secret`
    : `connected as ${role.role}: cannot change the schema; right for the functions' secret`;
}

/** How the database stands against this code, and who is connected. Changes nothing. */
export async function schemaReport(db: SqlClient): Promise<SchemaReport> {
  const known = await knownMigrations(db.engine);
  let applied: Awaited<ReturnType<typeof appliedMigrations>> = [];
  try {
    applied = await appliedMigrations(db);
  } catch (error) {
    // No record at all: a new database, behind by everything. A login that may not read it is said so.
    if (!(error instanceof SchemaError) || error instanceof SchemaAccessError) throw error;
  }
  const standing = compareSchema(known, applied);
  const role = await connectedRole(db);
  return {
    lines: [...standingLine(standing, known), roleLine(role)],
    json: {
      ...standing,
      unknown: standing.unknown.map((m) => m.version),
      incompatible: standing.incompatible.map((m) => m.version),
      role: role.role,
      canChangeSchema: role.canCreate || role.ownsTables,
    },
  };
}
