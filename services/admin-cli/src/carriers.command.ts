import type { Command } from "commander";
import type { Carrier } from "@sms/db";
import { carrierId } from "./arguments";
import { registerCarrierInboundTokenCommand } from "./carrier-inbound-token.command";
import {
  toCarrierColumns,
  withCarrierOptions,
  type AddCarrierOptions,
  type CarrierOptions,
} from "./carrier-options";
import { PASSWORD_MASK, describeBinds, describeCarrier, summarizeCarrier } from "./carrier.view";
import { healthCells, readHealth } from "./carrier-health.view";
import { CommandError, UsageError } from "./errors";
import { formatDate, formatTable, printResult, type CliIo } from "./output";
import { carrierNotFound, findCarrierOrFail, isPrismaError } from "./records";

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
