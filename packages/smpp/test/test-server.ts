import net from "node:net";
import { PduFramer } from "../src/codec";
import { SmppServerSession, type SmppServerSessionOptions } from "../src/server-session";
import { CommandStatus } from "../src/status";

/** A minimal SMSC built from SmppServerSession, on an ephemeral port of 127.0.0.1. */
export interface TestServer {
  port: number;
  sessions: SmppServerSession[];
  /** Every command received, in order, across sessions (read off the wire). */
  commands: string[];
  /** Stops listening and destroys every session. */
  close(): Promise<void>;
}

/** Starts a test SMSC that accepts any bind and answers submit_sm with ids "m1", "m2", … unless told otherwise. */
export async function startTestServer(
  options: Partial<SmppServerSessionOptions> = {},
  port = 0,
): Promise<TestServer> {
  const sessions: SmppServerSession[] = [];
  const commands: string[] = [];
  let counter = 0;
  const server = net.createServer((socket) => {
    const framer = new PduFramer();
    socket.on("data", (chunk: Buffer) => {
      for (const event of framer.push(chunk)) if (event.type === "pdu") commands.push(event.pdu.command);
    });
    sessions.push(
      new SmppServerSession(socket, {
        authenticate: () => CommandStatus.ESME_ROK,
        onRequest: () => ({ fields: { message_id: `m${++counter}` } }),
        ...options,
      }),
    );
  });
  await new Promise<void>((resolve) => server.listen(port, "127.0.0.1", resolve));
  return {
    port: (server.address() as net.AddressInfo).port,
    sessions,
    commands,
    close: async () => {
      for (const session of sessions) session.destroy("test server closing");
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
