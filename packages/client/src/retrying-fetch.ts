import { parseRetryAfter } from "./errors";

export interface RetryOptions {
  /** Retries after the first attempt, on 429 and 503 only. @defaultValue 3 */
  maxRetries?: number;
  /** Wait when the answer has no Retry-After; doubles each retry. @defaultValue 500 */
  baseDelayMs?: number;
  /** Longest wait the client accepts; a longer Retry-After is returned to the caller instead. @defaultValue 30000 */
  maxDelayMs?: number;
}

type Fetch = (request: Request) => Promise<Response>;

const RETRIED = new Set([429, 503]);

/**
 * A fetch that gives every POST an Idempotency-Key (unless the caller set one) and retries
 * 429 and 503 after Retry-After. The key is set before the first attempt, so a retry of a
 * request whose answer was lost can never send twice: the API replays the first answer.
 */
export function retryingFetch(
  fetchImpl: Fetch,
  options: RetryOptions = {},
  sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)),
): Fetch {
  const maxRetries = options.maxRetries ?? 3;
  const baseDelayMs = options.baseDelayMs ?? 500;
  const maxDelayMs = options.maxDelayMs ?? 30_000;
  return async (request) => {
    if (request.method === "POST" && !request.headers.has("idempotency-key"))
      request.headers.set("idempotency-key", crypto.randomUUID());
    for (let attempt = 0; ; attempt++) {
      const response = await fetchImpl(request.clone());
      if (!RETRIED.has(response.status) || attempt >= maxRetries) return response;
      const retryAfter = parseRetryAfter(response.headers.get("retry-after"));
      const delay = retryAfter === undefined ? baseDelayMs * 2 ** attempt : retryAfter * 1000;
      if (delay > maxDelayMs) return response;
      await response.body?.cancel();
      await sleep(delay);
    }
  };
}
