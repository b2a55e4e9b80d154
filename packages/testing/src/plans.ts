import type pg from "pg";

interface PlanNode {
  "Node Type": string;
  "Relation Name"?: string;
  "Index Name"?: string;
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
  table: string;
  /** The index's name (a bitmap scan's indexes joined by " + "), else the node type ("Seq Scan", …). */
  via: string;
}

/**
 * Each read of a table a statement really made, in plan order (run as tablesRead runs it): what a
 * test checks when an index must serve a statement, so that dropping or narrowing it shows.
 */
export async function readsOf(pool: pg.Pool, sql: string, values: unknown[] = []): Promise<TableRead[]> {
  const plan = await explainAnalyzed(pool, sql, values);
  return scans(plan).map((node) => ({
    table: node["Relation Name"]!,
    via: indexesOf(node) ?? node["Node Type"],
  }));
}

/** The index a scan read; a bitmap heap scan's are in its bitmap index scans, joined by " + ". */
function indexesOf(node: PlanNode): string | undefined {
  if (node["Index Name"]) return node["Index Name"];
  if (node["Node Type"] === "Bitmap Heap Scan") return indexNamesUnder(node).join(" + ");
  return undefined;
}

function indexNamesUnder(node: PlanNode): string[] {
  return [
    ...(node["Index Name"] ? [node["Index Name"]] : []),
    ...(node.Plans ?? []).flatMap(indexNamesUnder),
  ];
}
