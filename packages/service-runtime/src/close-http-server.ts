import type http from "node:http";

/**
 * Stops `server` taking connections and resolves once the ones it has are closed: idle ones at
 * once, busy ones as their request ends, and any still busy after `boundMs` cut (`onCut` is
 * told first). A request being answered keeps its connection until then, so its answer is not
 * lost to a reset.
 */
export async function closeHttpServer(
  server: http.Server,
  boundMs: number,
  onCut?: () => void,
): Promise<void> {
  const closed = new Promise<void>((resolve) => server.close(() => resolve()));
  server.closeIdleConnections();
  const cut = setTimeout(() => {
    onCut?.();
    server.closeAllConnections();
  }, boundMs);
  await closed;
  clearTimeout(cut);
}
