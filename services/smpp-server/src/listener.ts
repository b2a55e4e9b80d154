import fs from "node:fs";
import net from "node:net";
import tls from "node:tls";
import type { Logger } from "@sms/logger";
import { CommandStatus, SmppServerSession, type BindRequest, type Pdu, type ServerResponse } from "@sms/smpp";
import { clientBucket } from "./bind-throttle";
import { ConnectionCounter } from "./connection-counter";
import type { ServerMetrics } from "./metrics";
import type { SessionRegistry } from "./sessions";

export interface ListenerOptions {
  host: string;
  port: number;
  tls?: { port: number; certFile: string; keyFile: string };
  systemId: string;
  deliverWindow: number;
  responseTimeoutMs: number;
  inactivityTimeoutMs: number;
  maxPendingRequests: number;
  /** A connection not bound this long after it opened is closed, ms. */
  bindTimeoutMs: number;
  /** Failed binds on one connection before it is closed. */
  maxBindAttempts: number;
  /** Connections at once, in total and per client address (bucketed as binds are throttled). */
  maxConnections: number;
  maxConnectionsPerAddress: number;
}

export interface ListenerHandlers {
  authenticate: (bind: BindRequest, session: SmppServerSession) => Promise<number>;
  /** submit_sm, query_sm and the other transmit commands of a bound session. */
  onRequest: (pdu: Pdu, accountId: string) => Promise<ServerResponse>;
  /** A receiver or transceiver bind of the account just came up. */
  onReceiverBound: (accountId: string) => void;
}

export interface RunningListener {
  port: number;
  tlsPort: number | undefined;
  /** Stops accepting connections, unbinds every session (bounded by the response timeout) and closes. */
  close(): Promise<void>;
}

/** The customer-facing SMPP listeners (plain, and TLS when configured): one SmppServerSession per connection. */
export async function startListener(
  options: ListenerOptions,
  handlers: ListenerHandlers,
  registry: SessionRegistry,
  metrics: ServerMetrics,
  logger: Logger,
): Promise<RunningListener> {
  const unbound = new Set<SmppServerSession>();
  const connections = new ConnectionCounter(options.maxConnections, options.maxConnectionsPerAddress);
  const accept = (socket: net.Socket) => {
    socket.on("error", () => undefined);
    const address = clientBucket(socket.remoteAddress);
    if (!connections.open(address)) {
      socket.destroy();
      return;
    }
    socket.once("close", () => connections.close(address));
    let failedBinds = 0;
    const session = new SmppServerSession(socket, {
      systemId: options.systemId,
      windowSize: options.deliverWindow,
      responseTimeoutMs: options.responseTimeoutMs,
      inactivityTimeoutMs: options.inactivityTimeoutMs,
      maxPendingRequests: options.maxPendingRequests,
      authenticate: async (bind, current) => {
        const status = await handlers.authenticate(bind, current);
        if (status === CommandStatus.ESME_ROK) metrics.bindsAccepted.inc();
        else metrics.bindsRefused.inc();
        // The refusal is written first (the session answers after we return), then the connection goes.
        if (status !== CommandStatus.ESME_ROK && ++failedBinds >= options.maxBindAttempts)
          setImmediate(() => void current.close("too many failed binds"));
        return status;
      },
      onRequest: (pdu, current) => {
        const identity = registry.identityOf(current);
        if (!identity) return { status: CommandStatus.ESME_RINVBNDSTS };
        return handlers.onRequest(pdu, identity.accountId);
      },
    });
    unbound.add(session);
    // enquire_link and failed binds do not extend it: an unbound connection has this long, whatever it sends.
    const bindTimer = setTimeout(() => session.destroy("no bind in time"), options.bindTimeoutMs);
    session.on("state", (state) => {
      if (state !== "open") {
        unbound.delete(session);
        clearTimeout(bindTimer);
      }
      const identity = registry.identityOf(session);
      if ((state === "bound_rx" || state === "bound_trx") && identity)
        handlers.onReceiverBound(identity.accountId);
      if (state === "closed") logger.debug("session closed", { account_id: identity?.accountId });
    });
  };
  const servers: net.Server[] = [net.createServer(accept)];
  if (options.tls)
    servers.push(
      tls.createServer(
        { cert: fs.readFileSync(options.tls.certFile), key: fs.readFileSync(options.tls.keyFile) },
        accept,
      ),
    );
  const ports = [options.port, options.tls?.port ?? 0];
  await Promise.all(
    servers.map(
      (server, index) =>
        new Promise<void>((resolve, reject) => {
          server.once("error", reject);
          server.listen(ports[index], options.host, () => resolve());
        }),
    ),
  );
  const portOf = (server: net.Server | undefined) =>
    server ? (server.address() as net.AddressInfo).port : undefined;
  return {
    port: portOf(servers[0])!,
    tlsPort: portOf(servers[1]),
    async close() {
      const closed = servers.map((server) => new Promise((resolve) => server.close(resolve)));
      for (const session of unbound) session.destroy("server shutting down");
      await Promise.all(registry.all().map((session) => session.close("server shutting down")));
      await Promise.all(closed);
    },
  };
}
