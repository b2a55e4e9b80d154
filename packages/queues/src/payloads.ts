import { z } from "zod";

/** sms.dispatch: the worker loads everything else from the database, the source of truth. */
export const DispatchJob = z.object({ messageId: z.string().startsWith("msg_") });
export type DispatchJob = z.infer<typeof DispatchJob>;
