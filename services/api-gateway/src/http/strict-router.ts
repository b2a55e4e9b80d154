import { Router } from "express";

/**
 * A router that matches paths exactly: no case folding, no trailing-slash alias. One URL per
 * route keeps every check that reads a path (permissions, documentation, metrics) honest.
 */
export function strictRouter(): Router {
  return Router({ caseSensitive: true, strict: true });
}
