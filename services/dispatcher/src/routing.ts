/** A route as the dispatcher holds it in memory. */
export interface RouteEntry {
  prefix: string;
  carrierId: string;
  priority: number;
}

/**
 * The carriers to try for a number, best first: routes whose prefix matches,
 * longest prefix first, then by priority. The later entries are the failovers.
 * A carrier appears once, at its best position.
 */
export function carriersFor(routes: readonly RouteEntry[], destination: string): string[] {
  const matching = routes
    .filter((route) => destination.startsWith(route.prefix))
    .sort((a, b) => b.prefix.length - a.prefix.length || a.priority - b.priority);
  return [...new Set(matching.map((route) => route.carrierId))];
}
