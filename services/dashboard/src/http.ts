import type { Request, Response } from "express";
import type { DashboardSession } from "./security/sessions";
import type { Html } from "./views/html";

/** Sends a page; every page is private and may hold a secret shown once, so nothing is cached. */
export function sendPage(res: Response, status: number, page: Html): void {
  res.status(status).set("Cache-Control", "no-store").type("html").send(page.value);
}

/** The session of a signed-in request (the session middleware guarantees one on these routes). */
export function sessionOf(res: Response): DashboardSession {
  const session = res.locals.session as DashboardSession | undefined;
  if (!session) throw new Error("route reached without a session");
  return session;
}

/** A form body as a plain record (the urlencoded parser gives one; a missing body gives {}). */
export function formOf(req: Request): Record<string, unknown> {
  return req.body && typeof req.body === "object" ? (req.body as Record<string, unknown>) : {};
}

/** A string field of a form or query; anything else (arrays, objects) reads as empty. */
export function textOf(source: Record<string, unknown>, name: string, max = 1000): string {
  const value = source[name];
  return typeof value === "string" ? value.slice(0, max) : "";
}

/** Thrown by a route for an unknown id, or another account's: both answer the same 404. */
export class NotFoundError extends Error {
  override readonly name = "NotFoundError";
}
