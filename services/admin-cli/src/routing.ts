/** A route as the ranking needs it; callers may carry more fields along. */
export interface RouteEntry {
  /** E.164 prefix with the +; "+" matches every number. */
  prefix: string;
  carrierId: string;
  /** Lower is tried first among routes with the same prefix. */
  priority: number;
}

/**
 * The routes the dispatcher would try for `destination`, best first: prefixes that match,
 * longest first, then lower priority (the rule in prisma/schema.prisma and the dispatcher's
 * `carriersFor`). A carrier appears once, with its best route. Equal prefix and priority
 * are ordered by carrier id, so a listing is stable (the dispatcher defines no order there).
 */
export function rankRoutesFor<R extends RouteEntry>(routes: readonly R[], destination: string): R[] {
  const ranked = routes
    .filter((route) => destination.startsWith(route.prefix))
    .sort(
      (a, b) =>
        b.prefix.length - a.prefix.length ||
        a.priority - b.priority ||
        (a.carrierId < b.carrierId ? -1 : a.carrierId > b.carrierId ? 1 : 0),
    );
  const best = new Map<string, R>();
  for (const route of ranked) if (!best.has(route.carrierId)) best.set(route.carrierId, route);
  return [...best.values()];
}
