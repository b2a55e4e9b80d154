import type pg from "pg";

interface PlanNode {
  "Relation Name"?: string;
  "Actual Loops"?: number;
  Plans?: PlanNode[];
}

function scanned(node: PlanNode): string[] {
  const here = node["Relation Name"] && (node["Actual Loops"] ?? 0) > 0 ? [node["Relation Name"]] : [];
  return [...here, ...(node.Plans ?? []).flatMap(scanned)];
}

/**
 * The tables a statement really read, partitions included: it runs under EXPLAIN ANALYZE in a
 * transaction that is rolled back (a write leaves nothing), and a partition pruned at plan time or
 * while running (a parameter from the outer side of a join) is not listed. Sorted, each once.
 */
export async function tablesRead(pool: pg.Pool, sql: string, values: unknown[] = []): Promise<string[]> {
  const client = await pool.connect();
  try {
    await client.query("BEGIN");
    const { rows } = await client.query<{ "QUERY PLAN": Array<{ Plan: PlanNode }> }>(
      `EXPLAIN (ANALYZE, FORMAT JSON) ${sql}`,
      values,
    );
    return [...new Set(scanned(rows[0]!["QUERY PLAN"][0]!.Plan))].sort();
  } finally {
    await client.query("ROLLBACK").catch(() => undefined);
    client.release();
  }
}
