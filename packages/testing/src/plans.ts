import type pg from "pg";

interface PlanNode {
  "Node Type": string;
  "Relation Name"?: string;
  "Index Name"?: string;
  "Index Cond"?: string;
  "Actual Loops"?: number;
  Plans?: PlanNode[];
}

/** The nodes that read a table and ran at least once. */
function scans(node: PlanNode): PlanNode[] {
  const here = node["Relation Name"] && (node["Actual Loops"] ?? 0) > 0 ? [node] : [];
  return [...here, ...(node.Plans ?? []).flatMap(scans)];
}

async function explainAnalyzed(pool: pg.Pool, sql: string, values: unknown[]): Promise<PlanNode> {
  const client = await pool.connect();
  try {
    await client.query("BEGIN");
    const { rows } = await client.query<{ "QUERY PLAN": Array<{ Plan: PlanNode }> }>(
      `EXPLAIN (ANALYZE, FORMAT JSON) ${sql}`,
      values,
    );
    return rows[0]!["QUERY PLAN"][0]!.Plan;
  } finally {
    await client.query("ROLLBACK").catch(() => undefined);
    client.release();
  }
}

/**
 * The tables a statement really read, partitions included: it runs under EXPLAIN ANALYZE in a
 * transaction that is rolled back (a write leaves nothing), and a partition pruned at plan time or
 * while running (a parameter from the outer side of a join) is not listed. Sorted, each once.
 */
export async function tablesRead(pool: pg.Pool, sql: string, values: unknown[] = []): Promise<string[]> {
  const plan = await explainAnalyzed(pool, sql, values);
  return [...new Set(scans(plan).map((node) => node["Relation Name"]!))].sort();
}

/** How a statement read a table: through which index, or by which kind of scan. */
export interface TableRead {
  /** The table, or for a partition the partitioned table it belongs to. */
  table: string;
  /** The relation really read: the partition, or the table itself. */
  partition: string;
  /**
   * The index's name (for a partition's index, the partitioned table's index it belongs to; a
   * bitmap scan's indexes joined by " + "), else the node type ("Seq Scan", …).
   */
  via: string;
}

/**
 * Each read of a table a statement really made, in plan order (run as tablesRead runs it): what a
 * test checks when an index must serve a statement, so that dropping or narrowing it shows. A
 * partition's read is named by its partitioned table and index (PostgreSQL names a partition's
 * indexes itself), with the partition beside them.
 */
export async function readsOf(pool: pg.Pool, sql: string, values: unknown[] = []): Promise<TableRead[]> {
  return namedByRoot(pool, scans(await explainAnalyzed(pool, sql, values)));
}

/** A read a plan would make, as readsOf names it, with the index condition of an index scan. */
export type PlannedRead = TableRead & { indexCond?: string };

/**
 * The reads of a statement's plan (EXPLAIN, not run): every table the plan holds, partitions
 * pruned while planning left out (a parameter's value is known then: the plan is made for it).
 * For a list that should read one index from a position (a keyset page) rather than many rows.
 */
export async function plannedReadsOf(
  pool: pg.Pool | pg.PoolClient,
  sql: string,
  values: unknown[] = [],
): Promise<PlannedRead[]> {
  const { rows } = await pool.query<{ "QUERY PLAN": Array<{ Plan: PlanNode }> }>(
    `EXPLAIN (FORMAT JSON) ${sql}`,
    values,
  );
  const nodes = allNodes(rows[0]!["QUERY PLAN"][0]!.Plan).filter((node) => node["Relation Name"]);
  const reads = await namedByRoot(pool, nodes);
  return reads.map((read, i) => ({ ...read, indexCond: nodes[i]!["Index Cond"] }));
}

/**
 * The partitions of `tables` a statement's plan holds (EXPLAIN, not run), sorted, each once: what
 * a statement planned for each run pays to plan, whatever it then reads.
 */
export async function partitionsPlanned(
  pool: pg.Pool,
  sql: string,
  values: unknown[],
  tables: readonly string[],
): Promise<string[]> {
  const reads = await plannedReadsOf(pool, sql, values);
  return [
    ...new Set(reads.filter((read) => tables.includes(read.table)).map((read) => read.partition)),
  ].sort();
}

function allNodes(node: PlanNode): PlanNode[] {
  return [node, ...(node.Plans ?? []).flatMap(allNodes)];
}

async function namedByRoot(pool: pg.Pool | pg.PoolClient, nodes: PlanNode[]): Promise<TableRead[]> {
  const reads = nodes.map((node) => ({
    partition: node["Relation Name"]!,
    indexes: indexesOf(node),
    type: node["Node Type"],
  }));
  const names = [...new Set(reads.flatMap((read) => [read.partition, ...(read.indexes ?? [])]))];
  const { rows } = await pool.query<{ name: string; root: string }>(
    `SELECT name, COALESCE(pg_partition_root(name::regclass)::text, name) AS root FROM unnest($1::text[]) AS name`,
    [names],
  );
  const rootOf = new Map(rows.map((row) => [row.name, row.root]));
  return reads.map((read) => ({
    table: rootOf.get(read.partition)!,
    partition: read.partition,
    via: read.indexes ? read.indexes.map((index) => rootOf.get(index)!).join(" + ") : read.type,
  }));
}

/** The indexes a scan read; a bitmap heap scan's are in its bitmap index scans. */
function indexesOf(node: PlanNode): string[] | undefined {
  if (node["Index Name"]) return [node["Index Name"]];
  if (node["Node Type"] === "Bitmap Heap Scan") return indexNamesUnder(node);
  return undefined;
}

function indexNamesUnder(node: PlanNode): string[] {
  return [
    ...(node["Index Name"] ? [node["Index Name"]] : []),
    ...(node.Plans ?? []).flatMap(indexNamesUnder),
  ];
}
