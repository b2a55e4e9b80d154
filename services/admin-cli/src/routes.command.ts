import type { Command } from "commander";
import { ulid } from "@sms/ids";
import { carrierId, e164Number, routePrefix, routePriority } from "./arguments";
import { CommandError } from "./errors";
import { formatTable, printResult, type CliIo } from "./output";
import { carrierNotFound, findCarrierOrFail, isPrismaError, type Db } from "./records";
import { rankRoutesFor } from "./routing";

/** A route id: `rte_<ULID>` (@sms/ids has no route prefix; the format is the same). */
function newRouteId(): string {
  return `rte_${ulid()}`;
}

/** Sends numbers starting with `prefix` to the carrier; a CommandError for an unknown carrier or a duplicate. */
export async function addRoute(
  db: Db,
  route: { prefix: string; carrierId: string; priority: number },
): Promise<{ id: string }> {
  await findCarrierOrFail(db, route.carrierId);
  const id = newRouteId();
  try {
    await db.route.create({ data: { id, ...route } });
  } catch (error) {
    if (isPrismaError(error, "P2002"))
      throw new CommandError(`A route ${route.prefix} → ${route.carrierId} already exists.`);
    // The carrier went away between the check and the insert.
    if (isPrismaError(error, "P2003")) throw carrierNotFound(route.carrierId);
    throw error;
  }
  return { id };
}

function describeStatus(route: { enabled: boolean; carrier: { enabled: boolean } }): string {
  if (!route.enabled) return "route disabled";
  return route.carrier.enabled ? "active" : "carrier disabled";
}

export function registerRouteCommands(program: Command, io: CliIo): void {
  const route = program
    .command("route")
    .description("Choose carriers by destination prefix: longest prefix wins, then lower priority");

  route
    .command("add")
    .description('Send numbers starting with <prefix> to a carrier ("+" matches every number)')
    .argument("<prefix>", '"+" and up to 15 digits, like +44 or +4479', routePrefix)
    .argument("<carrierId>", "the carrier", carrierId)
    .option("--priority <n>", "order among routes with the same prefix, 0 first", routePriority, 0)
    .action(async (prefix: string, carrier: string, options: { priority: number }, command: Command) => {
      const { id } = await addRoute(io.db.prisma, { prefix, carrierId: carrier, priority: options.priority });
      printResult(io, command, {
        json: { id, prefix, carrier_id: carrier, priority: options.priority },
        lines: [`Added route ${prefix} → ${carrier} (priority ${options.priority}).`],
      });
    });

  route
    .command("remove")
    .description("Remove the route from a prefix to a carrier")
    .argument("<prefix>", "the route's prefix", routePrefix)
    .argument("<carrierId>", "the carrier", carrierId)
    .action(async (prefix: string, carrier: string, _options: unknown, command: Command) => {
      const { count } = await io.db.prisma.route.deleteMany({ where: { prefix, carrierId: carrier } });
      if (count === 0) {
        await findCarrierOrFail(io.db.prisma, carrier);
        throw new CommandError(`No route ${prefix} → ${carrier}.`);
      }
      printResult(io, command, {
        json: { prefix, carrier_id: carrier, removed: true },
        lines: [`Removed route ${prefix} → ${carrier}.`],
      });
    });

  route
    .command("list")
    .description("List every route, or with --for the carriers a number would be tried on, best first")
    .option("--for <number>", "an E.164 number, like +14155550100", e164Number)
    .action(async (options: { for?: string }, command: Command) => {
      const routes = await io.db.prisma.route.findMany({
        include: { carrier: { select: { enabled: true } } },
        orderBy: [{ prefix: "asc" }, { priority: "asc" }, { carrierId: "asc" }],
      });
      if (options.for !== undefined) {
        printRoutesFor(io, command, options.for, routes);
        return;
      }
      printResult(io, command, {
        json: routes.map((r) => ({
          id: r.id,
          prefix: r.prefix,
          carrier_id: r.carrierId,
          priority: r.priority,
          enabled: r.enabled,
          carrier_enabled: r.carrier.enabled,
        })),
        lines:
          routes.length === 0
            ? ["No routes yet: add one with `route add <prefix> <carrierId>`."]
            : formatTable(
                ["PREFIX", "CARRIER", "PRIORITY", "STATUS"],
                routes.map((r) => [r.prefix, r.carrierId, String(r.priority), describeStatus(r)]),
              ),
      });
    });
}

type ListedRoute = {
  prefix: string;
  carrierId: string;
  priority: number;
  enabled: boolean;
  carrier: { enabled: boolean };
};

/**
 * The dispatcher's view of `number`: it reads enabled routes only and binds enabled carriers
 * only, so a disabled carrier's place in the order is skipped (shown apart, not tried).
 */
function printRoutesFor(io: CliIo, command: Command, number: string, routes: ListedRoute[]): void {
  const ranked = rankRoutesFor(
    routes.filter((r) => r.enabled),
    number,
  );
  const tried = ranked.filter((r) => r.carrier.enabled);
  const skipped = ranked.filter((r) => !r.carrier.enabled).map((r) => r.carrierId);
  const lines =
    tried.length === 0
      ? [`No enabled route covers ${number}: the dispatcher would fail it with NO_ROUTE.`]
      : [
          `Carriers tried for ${number}, best first:`,
          ...formatTable(
            ["ORDER", "CARRIER", "PREFIX", "PRIORITY"],
            tried.map((r, index) => [String(index + 1), r.carrierId, r.prefix, String(r.priority)]),
          ),
        ];
  if (skipped.length > 0) lines.push(`Skipped (carrier disabled): ${skipped.join(", ")}`);
  printResult(io, command, {
    json: {
      number,
      carriers: tried.map((r) => ({ carrier_id: r.carrierId, prefix: r.prefix, priority: r.priority })),
      skipped_disabled_carriers: skipped,
    },
    lines,
  });
}
