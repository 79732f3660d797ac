import { type ColumnDataType, type CreateTableBuilder, type Kysely, sql } from 'kysely';

/** What every migration builds its statements with (src/store/migrations.ts). */

export type Col = [name: string, type: ColumnDataType, nullable?: 'null'];

// biome-ignore lint/suspicious/noExplicitAny: migrations run before (and independently of) the typed schema.
export type AnyDb = Kysely<any>;
// biome-ignore lint/suspicious/noExplicitAny: the builder's table and column types are not tracked here.
type Builder = CreateTableBuilder<any, any>;

export function columns(builder: Builder, cols: readonly Col[]): Builder {
  let b = builder;
  for (const [name, type, nullable] of cols) b = b.addColumn(name, type, (c) => (nullable ? c : c.notNull()));
  return b;
}

export const bool = (col: string) => sql`${sql.ref(col)} in (0, 1)`;
export const oneOf = (col: string, values: readonly string[]) =>
  sql`${sql.ref(col)} in (${sql.join(values.map((v) => sql.lit(v)))})`;
