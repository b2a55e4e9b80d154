import type { NextFunction, Request, RequestHandler, Response } from "express";
import { notFound } from "@sms/errors";

/** A route taken without walking the app's routers: its method, its exact path, and what runs. */
export interface HotRoute {
  method: string;
  path: string;
  /** The steps every request takes before any route (authentication, body, rate limit), in order. */
  door: RequestHandler[];
  /** The route's own handlers, in order, as the router would run them once the path matched. */
  handlers: RequestHandler[];
}

/**
 * Express middleware that answers one route itself: a request for exactly `method` and `path`
 * (a query string aside) runs `door`, then the route's handlers, one after the other, as
 * Express's router and route would run those same handlers as layers; any other request goes
 * on to the app's routers untouched.
 *
 * POST /v1/sms/send is nearly all of the gateway's traffic. Through the routers it walked a
 * dozen layers, each matching its path pattern, trimming the URL and restoring it; here it
 * compares one string. What it runs, and in what order, is what the routers ran: the same
 * handler functions, the route's marked on `req.route` once the door passed (the metrics label
 * requests refused at the door as matching no route), errors and rejected promises passed on
 * to the app's error handlers, and a request no handler answers ends as NOT_FOUND.
 */
export function hotRoute({ method, path, door, handlers }: HotRoute): RequestHandler {
  const route = { path };
  return (req, res, next) => {
    if (req.method !== method || !isPath(req.url, path)) return next();
    runInOrder(door, req, res, (doorError) => {
      if (doorError) return next(doorError);
      req.route = route;
      runInOrder(handlers, req, res, (error) => (error ? next(error) : notFound(req, res, next)));
    });
  };
}

/** The path of the request target equals `path` (a query string may follow). */
function isPath(url: string, path: string): boolean {
  return url.startsWith(path) && (url.length === path.length || url[path.length] === "?");
}

/**
 * Calls each handler with a `next` that calls the following one, as an Express route does: a
 * handler that throws or whose promise rejects passes its error on, and an error (or the end
 * of the list) goes to `done`.
 */
function runInOrder(handlers: RequestHandler[], req: Request, res: Response, done: NextFunction): void {
  let index = 0;
  const next = (error?: unknown): void => {
    if (error) return done(error);
    const handler = handlers[index++];
    if (!handler) return done();
    try {
      const returned: unknown = handler(req, res, next);
      if (returned instanceof Promise)
        returned.then(undefined, (rejection: unknown) => next(rejection || new Error("Rejected promise")));
    } catch (thrown) {
      next(thrown);
    }
  };
  next();
}
