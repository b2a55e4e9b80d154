import { InvalidArgumentError, Option, type Command } from "commander";
import type { Prisma } from "@sms/db";
import {
  displayName,
  host,
  nonNegativeInteger,
  positiveInteger,
  smppPassword,
  smppSystemId,
  smppSystemType,
} from "./arguments";

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
export interface CarrierOptions {
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
export type AddCarrierOptions = CarrierOptions &
  Required<Pick<CarrierOptions, "host" | "port" | "systemId" | "password">>;

/** The columns `options` sets; undefined leaves a column alone (update) or at its default (add). */
export function toCarrierColumns(options: CarrierOptions) {
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

/** Adds the shared options; on add, the four a bind cannot do without are required. */
export function withCarrierOptions(command: Command, isAdd: boolean): Command {
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
