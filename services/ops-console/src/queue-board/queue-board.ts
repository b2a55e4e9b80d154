import path from "node:path";
import { createBullBoard } from "@bull-board/api";
import { BullMQAdapter } from "@bull-board/api/bullMQAdapter";
import { ExpressAdapter } from "@bull-board/express";
import type { Queue } from "bullmq";
import type { Router } from "express";

export interface QueueBoardOptions {
  /** The queues to show (opened with @sms/queues' openQueue). */
  queues: Queue[];
  /** Where the router is mounted, e.g. "/" or "/queues". */
  basePath: string;
  /** No retry, promote, clean or remove buttons. @defaultValue true */
  readOnly?: boolean;
  /** Folder of @bull-board/ui (its index.ejs and static files). @defaultValue found next to @bull-board/api */
  uiPath?: string;
  title?: string;
}

/** Bull Board over `queues`: an Express router serving the page and its JSON API. Put it behind basicAuth. */
export function queueBoardRouter(options: QueueBoardOptions): Router {
  const serverAdapter = new ExpressAdapter();
  serverAdapter.setBasePath(options.basePath === "/" ? "" : options.basePath);
  createBullBoard({
    queues: options.queues.map(
      (queue) => new BullMQAdapter(queue, { readOnlyMode: options.readOnly ?? true }),
    ),
    // @bull-board/express 9.10.1 declares the IServerAdapter of its own @bull-board/api
    // (9.10.1) while we have 9.10.2: the same interface, two copies of the type.
    serverAdapter: serverAdapter as unknown as Parameters<typeof createBullBoard>[0]["serverAdapter"],
    options: {
      uiBasePath: options.uiPath ?? locateBullBoardUi(),
      uiConfig: { boardTitle: options.title ?? "SMS queues" },
    },
  });
  return serverAdapter.getRouter() as Router;
}

/**
 * The @bull-board/ui folder. Bull Board finds it with require.resolve from its own
 * file, which fails inside our esbuild bundle (services/ops-console/dist); so we look
 * from this file's folder, which is inside the ops console's package both where the
 * source runs (tests) and where the bundle runs (dist/; the image keeps the workspace's
 * node_modules above it).
 */
export function locateBullBoardUi(): string {
  try {
    const api = require.resolve("@bull-board/api", { paths: [__dirname] });
    return path.dirname(require.resolve("@bull-board/ui/package.json", { paths: [path.dirname(api)] }));
  } catch {
    throw new Error("@bull-board/ui not found; set OPS_CONSOLE_UI_PATH to its folder");
  }
}
