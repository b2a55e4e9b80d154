import { InvalidArgumentError, Option, type Command } from "commander";
import type { Carrier, Prisma } from "@sms/db";
import {
  carrierId,
  displayName,
  host,
  nonNegativeInteger,
  positiveInteger,
  smppPassword,
  smppSystemId,
  smppSystemType,
} from "./arguments";
import { registerCarrierInboundTokenCommand } from "./carrier-inbound-token.command";
import { healthCells, readHealth } from "./carrier-health.view";
import { CommandError, UsageError } from "./errors";
import { formatDate, formatTable, printResult, type CliIo } from "./output";
import { carrierNotFound, findCarrierOrFail, isPrismaError } from "./records";

/** Printed wherever the password would be: we present it to the carrier, never to a screen. */
export const PASSWORD_MASK = "********";

// Limits of what we ask of one carrier: 64 binds of a kind and a window of 1000 are far above
// what carriers contract for; 100,000 submit_sm/s is above any single SMSC we know of.
const MAX_BINDS = 64;
const MAX_WINDOW = 1000;
const MAX_SUBMITS_PER_SECOND = 100_000;
// The carriers table's CHECK: a year.
const MAX_RECEIPT_WINDOW_HOURS = 8760;

// The carriers table's CHECK (and @sms/carrier-receipts' ReceiptIdForm): how receipts quote our ids.
const RECEIPT_ID_FORMS = ["as_is", "hex", "decimal"] as const;
type ReceiptIdForm = (typeof RECEIPT_ID_FORMS)[number];

// The carriers table's CHECK (and the dispatcher's Gsm7Encoding).
const GSM7_ENCODINGS = ["unpacked", "packed", "latin1"] as const;
type Gsm7Encoding = (typeof GSM7_ENCODINGS)[number];

function gsm7Encoding(value: string): Gsm7Encoding {
  if (!(GSM7_ENCODINGS as readonly string[]).includes(value))
    throw new InvalidArgumentError(`Must be one of ${GSM7_ENCODINGS.join(", ")}.`);
  return value as Gsm7Encoding;
}

/** 0 (transmitter + receiver binds) to MAX_BINDS transceivers. */
function transceiverCount(value: string): number {
  const parsed = nonNegativeInteger(value);
  if (parsed > MAX_BINDS) throw new InvalidArgumentError(`Must be at most ${MAX_BINDS}.`);
  return parsed;
}

function receiptIdForm(value: string): ReceiptIdForm {
  if (!(RECEIPT_ID_FORMS as readonly string[]).includes(value))
    throw new InvalidArgumentError(`Must be one of ${RECEIPT_ID_FORMS.join(", ")}.`);
  return value as ReceiptIdForm;
}

/** The options `carrier add` and `carrier update` share, as commander parses them. */
interface CarrierOptions {
  name?: string;
  host?: string;
  port?: number;
  systemId?: string;
  password?: string;
  systemType?: string;
  tls?: boolean;
  transmitters?: number;
  receivers?: number;
  transceivers?: number;
  window?: number;
  tps?: number;
  receiptIds?: ReceiptIdForm;
  receiptWindow?: number;
  gsm7?: Gsm7Encoding;
}

/** What `carrier add` gets: the options a bind cannot do without are required there. */
type AddCarrierOptions = CarrierOptions &
  Required<Pick<CarrierOptions, "host" | "port" | "systemId" | "password">>;

/** The columns `options` sets; undefined leaves a column alone (update) or at its default (add). */
function toCarrierColumns(options: CarrierOptions) {
  return {
    name: options.name,
    host: options.host,
    port: options.port,
    systemId: options.systemId,
    password: options.password,
    // A password written in clear replaces a sealed one; the dispatcher seals it at its next refresh.
    passwordSealed: options.password === undefined ? undefined : null,
    systemType: options.systemType,
    useTls: options.tls,
    transmitterBinds: options.transmitters,
    receiverBinds: options.receivers,
    // Transmitters or receivers named alone go back to that mode: else they would change nothing.
    transceiverBinds:
      options.transceivers ??
      (options.transmitters !== undefined || options.receivers !== undefined ? 0 : undefined),
    windowSize: options.window,
    submitsPerSecond: options.tps,
    receiptIdForm: options.receiptIds,
    receiptWindowHours: options.receiptWindow,
    gsm7Encoding: options.gsm7,
  } satisfies Prisma.CarrierUpdateInput;
}

/** A carrier as listings print it, password masked. */
export function describeCarrier(carrier: Carrier) {
  return {
    id: carrier.id,
    name: carrier.name,
    host: carrier.host,
    port: carrier.port,
    tls: carrier.useTls,
    system_id: carrier.systemId,
    password: PASSWORD_MASK,
    system_type: carrier.systemType,
    transmitter_binds: carrier.transmitterBinds,
    receiver_binds: carrier.receiverBinds,
    transceiver_binds: carrier.transceiverBinds,
    window_size: carrier.windowSize,
    submits_per_second: carrier.submitsPerSecond,
    receipt_id_form: carrier.receiptIdForm,
    receipt_window_hours: carrier.receiptWindowHours,
    gsm7_encoding: carrier.gsm7Encoding,
    /** Whether the carrier may post inbound messages over HTTP; the token itself is never kept. */
    inbound_token: carrier.inboundTokenHash !== null,
    enabled: carrier.enabled,
    created_at: carrier.createdAt.toISOString(),
    updated_at: carrier.updatedAt.toISOString(),
  };
}

/** The binds we open: transceivers only, or transmitters plus receivers (docs/decisions.md#transceiver-binds). */
function describeBinds(carrier: Carrier): string {
  return carrier.transceiverBinds > 0
    ? `${carrier.transceiverBinds} transceiver binds`
    : `${carrier.transmitterBinds} transmitter + ${carrier.receiverBinds} receiver binds`;
}

/** One line: where we bind and how hard we may push. */
export function summarizeCarrier(carrier: Carrier): string {
  return (
    `${carrier.host}:${carrier.port} (${carrier.useTls ? "TLS" : "plain TCP"}), system_id ${carrier.systemId}, ` +
    `${describeBinds(carrier)}, ` +
    `window ${carrier.windowSize}, ${carrier.submitsPerSecond} submits/s` +
    (carrier.receiptIdForm === "as_is" ? "" : `, receipts quote ids in ${carrier.receiptIdForm}`) +
    (carrier.gsm7Encoding === "unpacked" ? "" : `, data_coding 0 as ${carrier.gsm7Encoding}`) +
    (carrier.enabled ? "" : ", disabled")
  );
}

/** Adds the shared options; on add, the four a bind cannot do without are required. */
function withCarrierOptions(command: Command, isAdd: boolean): Command {
  const addOption = (
    flags: string,
    description: string,
    parse: (value: string) => unknown,
    isRequired = false,
  ) =>
    command.addOption(
      new Option(flags, description).argParser(parse).makeOptionMandatory(isAdd && isRequired),
    );
  addOption("--host <h>", "the carrier's SMPP host name or IP address", host, true);
  addOption("--port <p>", "the carrier's SMPP port (1-65535)", positiveInteger(65_535), true);
  addOption(
    "--system-id <s>",
    "system_id the carrier issued us (1-15 ASCII characters, kept as given)",
    smppSystemId,
    true,
  );
  addOption(
    "--password <pw>",
    "password the carrier issued us (0-8 ASCII characters, kept as given)",
    smppPassword,
    true,
  );
  addOption(
    "--system-type <t>",
    'system_type the carrier asks for (0-12 characters; default "")',
    smppSystemType,
  );
  addOption("--name <name>", `a name people recognise${isAdd ? " (default: the id)" : ""}`, displayName);
  command
    .option("--tls", "connect over TLS")
    .option("--no-tls", "connect over plain TCP (the default on add)");
  addOption(
    "--transmitters <n>",
    `transmitter binds the dispatcher keeps open (1-${MAX_BINDS}; default 1)`,
    positiveInteger(MAX_BINDS),
  );
  addOption(
    "--receivers <n>",
    `receiver binds for delivery receipts (1-${MAX_BINDS}; default 1)`,
    positiveInteger(MAX_BINDS),
  );
  command.addOption(
    new Option(
      "--transceivers <n>",
      `transceiver binds instead of transmitters and receivers, for a carrier that sends receipts on the bind it took the submit on (0-${MAX_BINDS}; 0, the default, is transmitters + receivers, as is naming --transmitters or --receivers)`,
    )
      .argParser(transceiverCount)
      .conflicts(["transmitters", "receivers"]),
  );
  addOption(
    "--window <n>",
    `outstanding submit_sm per bind (1-${MAX_WINDOW}; default 10)`,
    positiveInteger(MAX_WINDOW),
  );
  addOption(
    "--tps <n>",
    `submit_sm per second, all binds together (1-${MAX_SUBMITS_PER_SECOND}; default 100)`,
    positiveInteger(MAX_SUBMITS_PER_SECOND),
  );
  addOption(
    "--receipt-ids <form>",
    "how receipts quote the submit_sm_resp id: as_is (the same id), hex (a decimal id written in hex), decimal (a hex id written in decimal); default as_is",
    receiptIdForm,
  );
  addOption(
    "--receipt-window <hours>",
    `segments submitted longer ago take no receipts: carriers reuse ids (1-${MAX_RECEIPT_WINDOW_HOURS}; default 72)`,
    positiveInteger(MAX_RECEIPT_WINDOW_HOURS),
  );
  addOption(
    "--gsm7 <form>",
    "what the carrier takes for data_coding 0: unpacked (GSM-7, a septet per octet; default), packed (GSM-7, 7 bits each), latin1 (its default alphabet is ISO-8859-1)",
    gsm7Encoding,
  );
  return command;
}

async function setCarrierEnabled(io: CliIo, id: string, enabled: boolean): Promise<Carrier> {
  try {
    return await io.db.prisma.carrier.update({ where: { id }, data: { enabled } });
  } catch (error) {
    if (isPrismaError(error, "P2025")) throw carrierNotFound(id);
    throw error;
  }
}

export function registerCarrierCommands(program: Command, io: CliIo): void {
  const carrier = program
    .command("carrier")
    .description("Add and tune the upstream SMSCs the dispatcher binds to (passwords are never printed)");
  registerCarrierInboundTokenCommand(carrier, io);

  withCarrierOptions(
    carrier
      .command("add")
      .description("Add a carrier (enabled); routes send traffic to it")
      .argument("<carrierId>", "1-32 lowercase letters, digits and dashes", carrierId),
    true,
  ).action(async (id: string, options: AddCarrierOptions, command: Command) => {
    let created: Carrier;
    try {
      created = await io.db.prisma.carrier.create({
        data: {
          ...toCarrierColumns(options),
          id,
          name: options.name ?? id,
          host: options.host,
          port: options.port,
          systemId: options.systemId,
          password: options.password,
        },
      });
    } catch (error) {
      if (isPrismaError(error, "P2002")) throw new CommandError(`Carrier ${id} already exists.`);
      throw error;
    }
    printResult(io, command, {
      json: describeCarrier(created),
      lines: [`Added carrier ${id}: ${summarizeCarrier(created)}.`],
    });
  });

  withCarrierOptions(
    carrier
      .command("update")
      .description("Change a carrier's settings; the ones not given stay as they are")
      .argument("<carrierId>", "the carrier", carrierId),
    false,
  ).action(async (id: string, options: CarrierOptions, command: Command) => {
    const columns = toCarrierColumns(options);
    if (Object.values(columns).every((value) => value === undefined)) {
      throw new UsageError(
        "carrier update needs at least one of --host, --port, --system-id, --password, --system-type, " +
          "--name, --tls/--no-tls, --transmitters, --receivers, --transceivers, --window, --tps.",
      );
    }
    let updated: Carrier;
    try {
      updated = await io.db.prisma.carrier.update({ where: { id }, data: columns });
    } catch (error) {
      if (isPrismaError(error, "P2025")) throw carrierNotFound(id);
      throw error;
    }
    printResult(io, command, {
      json: describeCarrier(updated),
      lines: [`Updated carrier ${id}: ${summarizeCarrier(updated)}.`],
    });
  });

  for (const enabled of [true, false]) {
    carrier
      .command(enabled ? "enable" : "disable")
      .description(
        enabled
          ? "Let the dispatcher bind to a carrier and route to it again"
          : "Stop routing to a carrier: the dispatcher drops its binds and skips its routes",
      )
      .argument("<carrierId>", "the carrier", carrierId)
      .action(async (id: string, _options: unknown, command: Command) => {
        await setCarrierEnabled(io, id, enabled);
        printResult(io, command, {
          json: { id, enabled },
          lines: [
            enabled
              ? `Enabled carrier ${id}.`
              : `Disabled carrier ${id}: its routes are skipped until it is enabled again.`,
          ],
        });
      });
  }

  carrier
    .command("list")
    .description(
      "List every carrier (passwords masked) with its health: breaker state, error rate and window use of every dispatcher",
    )
    .action(async (_options: unknown, command: Command) => {
      const carriers = await io.db.prisma.carrier.findMany({ orderBy: { id: "asc" } });
      const health = await readHealth(
        io,
        carriers.map((c) => c.id),
      );
      printResult(io, command, {
        json: carriers.map((c) => ({ ...describeCarrier(c), health: health?.get(c.id) ?? null })),
        lines:
          carriers.length === 0
            ? [
                "No carriers yet: add one with `carrier add <id> --host … --port … --system-id … --password …`.",
              ]
            : formatTable(
                [
                  "ID",
                  "NAME",
                  "HOST",
                  "PORT",
                  "TLS",
                  "SYSTEM ID",
                  "PASSWORD",
                  "TX",
                  "RX",
                  "TRX",
                  "WINDOW",
                  "TPS",
                  "STATUS",
                  "HEALTH",
                  "ERRORS",
                  "WINDOW USE",
                ],
                carriers.map((c) => [
                  c.id,
                  c.name,
                  c.host,
                  String(c.port),
                  c.useTls ? "yes" : "no",
                  c.systemId,
                  PASSWORD_MASK,
                  String(c.transmitterBinds),
                  String(c.receiverBinds),
                  String(c.transceiverBinds),
                  String(c.windowSize),
                  String(c.submitsPerSecond),
                  c.enabled ? "enabled" : "disabled",
                  ...healthCells(health?.get(c.id)),
                ]),
              ),
      });
    });

  carrier
    .command("show")
    .description("Show one carrier and its routes (password masked)")
    .argument("<carrierId>", "the carrier", carrierId)
    .action(async (id: string, _options: unknown, command: Command) => {
      const found = await findCarrierOrFail(io.db.prisma, id);
      const routes = await io.db.prisma.route.findMany({
        where: { carrierId: id },
        orderBy: [{ prefix: "asc" }, { priority: "asc" }],
      });
      printResult(io, command, {
        json: {
          ...describeCarrier(found),
          routes: routes.map((r) => ({ prefix: r.prefix, priority: r.priority, enabled: r.enabled })),
        },
        lines: [
          `Carrier ${found.id} "${found.name}" (${found.enabled ? "enabled" : "disabled"}), ` +
            `created ${formatDate(found.createdAt)}, updated ${formatDate(found.updatedAt)}`,
          `Endpoint: ${found.host}:${found.port} (${found.useTls ? "TLS" : "plain TCP"})`,
          `Bind: system_id ${found.systemId}, password ${PASSWORD_MASK}, system_type ${JSON.stringify(found.systemType)}`,
          `Inbound over HTTP: ${found.inboundTokenHash ? "token issued" : "no token (posts refused)"}`,
          `Binds: ${describeBinds(found)}; ` +
            `window ${found.windowSize} per bind; ${found.submitsPerSecond} submits/s`,
          `Routes: ${
            routes.length === 0
              ? "none"
              : routes
                  .map((r) => `${r.prefix} (priority ${r.priority}${r.enabled ? "" : ", disabled"})`)
                  .join(", ")
          }`,
        ],
      });
    });
}
