/**
 * Bounds a scrape-time read: a Redis or PostgreSQL that does not answer must not hang
 * /metrics (Prometheus would record the whole target as down, process metrics too).
 */
export async function withinScrapeBudget<T>(read: Promise<T>, ms = 2000): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([read, timeout]);
  } finally {
    clearTimeout(timer);
  }
}
