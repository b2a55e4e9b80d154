import { InvalidArgumentError, type Command } from "commander";
import { isId } from "@sms/ids";
import { SecretBoxError } from "@sms/secret-box";
import { UrlNotAllowedError } from "@sms/ssrf-guard";
import {
  deliveryAttempts,
  replayFailedDeliveries,
  WebhookEndpointError,
  type EndpointView,
  type WebhookEndpoints,
} from "@sms/webhooks";
import {
  buildTestDelivery,
  EventTypesError,
  parseEventSubscription,
  resolveEventTypes,
  WEBHOOK_EVENT_TYPES,
  type EventSubscription,
} from "@sms/webhooks";
import type { AttemptResult } from "@sms/webhooks";
import { accountId } from "./arguments";
import { CommandError, UsageError } from "./errors";
import { formatDate, formatTable, printResult, type CliIo } from "./output";

/** Runs `work`, turning the endpoint package's refusals into one-line CLI errors. */
async function refusals<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof SecretBoxError)
      throw new CommandError(
        "the endpoint's secret was sealed under another SECRET_ENCRYPTION_KEY: use that key, or `webhook set` the URL again for a new secret",
      );
    if (
      error instanceof UrlNotAllowedError ||
      error instanceof WebhookEndpointError ||
      error instanceof EventTypesError
    )
      throw new CommandError(error.message);
    throw error;
  }
}

/** `all` or a comma-separated list of event types; commander names the option with our reason. */
function eventSubscription(value: string): EventSubscription {
  try {
    return parseEventSubscription(value);
  } catch (error) {
    if (error instanceof EventTypesError) throw new InvalidArgumentError(`${error.message}.`);
    throw error;
  }
}

interface SetOptions {
  events?: EventSubscription;
}

const EVENTS_HELP = `"all" (the default) or a comma-separated list of ${WEBHOOK_EVENT_TYPES.join(", ")}`;

function describeEndpoint(endpoint: EndpointView) {
  return {
    account_id: endpoint.accountId,
    url: endpoint.url,
    enabled: endpoint.enabled,
    // As GET /v1/account shows them: the list spelled out, and whether it is "every event".
    event_types: resolveEventTypes(endpoint.eventTypes),
    all_events: endpoint.eventTypes === null,
    disabled_reason: endpoint.disabledReason,
    disabled_at: endpoint.disabledAt?.toISOString() ?? null,
    failing_since: endpoint.failingSince?.toISOString() ?? null,
    previous_secret_expires_at: endpoint.previousSecretExpiresAt?.toISOString() ?? null,
    created_at: endpoint.createdAt.toISOString(),
  };
}

const endpointLines = (e: ReturnType<typeof describeEndpoint>) => [
  `url:            ${e.url}`,
  `events:         ${e.all_events ? "all" : e.event_types.join(", ")}`,
  `enabled:        ${e.enabled ? "yes" : `no (${e.disabled_reason ?? "?"} since ${e.disabled_at ?? "?"})`}`,
  `failing since:  ${e.failing_since ?? "-"}`,
  `old secret until: ${e.previous_secret_expires_at ?? "-"}`,
];

const testLine = (result: AttemptResult) =>
  result.outcome === "success"
    ? `test event delivered: HTTP ${result.statusCode} in ${result.latencyMs} ms`
    : `test event NOT delivered: ${result.error ?? `HTTP ${result.statusCode}`} (${result.latencyMs} ms)`;

async function sendTest(io: CliIo, endpoints: WebhookEndpoints, account: string): Promise<AttemptResult> {
  const target = await endpoints.loadTarget(account);
  if (!target) throw new CommandError(`account ${account} has no webhook endpoint`);
  const sender = io.webhooks().sender();
  try {
    return await sender.send(buildTestDelivery(target));
  } finally {
    sender.close();
  }
}

function parseInstant(value: string, name: string): Date {
  const at = new Date(value);
  if (!/^\d{4}-\d{2}-\d{2}/.test(value) || Number.isNaN(at.getTime()))
    throw new UsageError(`${name} must be an ISO 8601 time, e.g. 2026-11-22T10:00:00Z`);
  return at;
}

export function registerWebhookCommands(program: Command, io: CliIo): void {
  const webhook = program
    .command("webhook")
    .description("An account's webhook endpoint: URL, events, secret, state, test, replay");

  webhook
    .command("set")
    .description(
      "Set the endpoint URL (checked: https, no credentials, no blocked address) and send a test event",
    )
    .argument("<accountId>", "the account (acc_…)", accountId)
    .argument("<url>", "where status events are POSTed")
    .option(
      "--events <list>",
      `the events it receives: ${EVENTS_HELP}; left out, an existing endpoint keeps its own`,
      eventSubscription,
    )
    .action(async (account: string, url: string, options: SetOptions, command: Command) => {
      const endpoints = io.webhooks().endpoints();
      const subscription = options.events === undefined ? {} : { eventTypes: options.events };
      const { endpoint, secret } = await refusals(() => endpoints.register(account, url, subscription));
      const test = await sendTest(io, endpoints, account);
      printResult(io, command, {
        json: {
          ...describeEndpoint(endpoint),
          secret,
          test: { outcome: test.outcome, status_code: test.statusCode, error: test.error },
        },
        lines: [
          ...endpointLines(describeEndpoint(endpoint)),
          secret
            ? `signing secret: ${secret}   (shown now; \`admin webhook show ${account} --reveal\` shows it again)`
            : "signing secret: unchanged",
          testLine(test),
        ],
      });
    });

  webhook
    .command("show")
    .description("Show the endpoint and its state")
    .argument("<accountId>", "the account (acc_…)", accountId)
    .option("--reveal", "also print the signing secret(s) in clear")
    .action(async (account: string, options: { reveal?: boolean }, command: Command) => {
      const endpoints = io.webhooks().endpoints();
      const endpoint = await endpoints.get(account);
      if (!endpoint) throw new CommandError(`account ${account} has no webhook endpoint`);
      const secrets = options.reveal ? await refusals(() => endpoints.reveal(account)) : null;
      const view = describeEndpoint(endpoint);
      printResult(io, command, {
        json: { ...view, ...(secrets ? { secret: secrets.current, previous_secret: secrets.previous } : {}) },
        lines: [
          ...endpointLines(view),
          ...(secrets
            ? [`secret:         ${secrets.current}`, `previous:       ${secrets.previous ?? "-"}`]
            : []),
        ],
      });
    });

  webhook
    .command("events")
    .description("Change only which events the endpoint receives (webhook.test is always sent)")
    .argument("<accountId>", "the account (acc_…)", accountId)
    .argument("<events>", EVENTS_HELP, eventSubscription)
    .action(async (account: string, events: EventSubscription, _options: unknown, command: Command) => {
      const endpoint = await refusals(() => io.webhooks().endpoints().setEventTypes(account, events));
      const view = describeEndpoint(endpoint);
      printResult(io, command, {
        json: view,
        lines: [`events:         ${view.all_events ? "all" : view.event_types.join(", ")}`],
      });
    });

  webhook
    .command("rotate")
    .description("New signing secret; the old one also signs for 24 h")
    .argument("<accountId>", "the account (acc_…)", accountId)
    .action(async (account: string, _options: unknown, command: Command) => {
      const { secret, previousExpiresAt } = await refusals(() => io.webhooks().endpoints().rotate(account));
      printResult(io, command, {
        json: { account_id: account, secret, previous_secret_expires_at: previousExpiresAt.toISOString() },
        lines: [
          `new signing secret: ${secret}`,
          `the old secret also signs until ${formatDate(previousExpiresAt)}`,
        ],
      });
    });

  for (const [name, enable] of [
    ["enable", true],
    ["disable", false],
  ] as const) {
    webhook
      .command(name)
      .description(
        enable ? "Enable the endpoint again (clears its failure state)" : "Stop delivering to the endpoint",
      )
      .argument("<accountId>", "the account (acc_…)", accountId)
      .action(async (account: string, _options: unknown, command: Command) => {
        const endpoints = io.webhooks().endpoints();
        if (enable) await refusals(() => endpoints.enable(account));
        else if (!(await endpoints.get(account)))
          throw new CommandError(`account ${account} has no webhook endpoint`);
        else await endpoints.disable(account, "operator");
        printResult(io, command, {
          json: { account_id: account, enabled: enable },
          lines: [`webhook endpoint ${name}d`],
        });
      });
  }

  webhook
    .command("test")
    .description("POST a signed webhook.test event to the endpoint now and print the answer")
    .argument("<accountId>", "the account (acc_…)", accountId)
    .action(async (account: string, _options: unknown, command: Command) => {
      const result = await refusals(() => sendTest(io, io.webhooks().endpoints(), account));
      printResult(io, command, {
        json: {
          outcome: result.outcome,
          status_code: result.statusCode,
          latency_ms: result.latencyMs,
          error: result.error,
        },
        lines: [testLine(result)],
      });
      if (result.outcome !== "success") throw new CommandError("the endpoint did not accept the test event");
    });

  webhook
    .command("replay")
    .description("Send failed deliveries again, by event id or by an account's time range")
    .option("--event <ids...>", "event ids (evt_…)")
    .option("--account <accountId>", "the account (acc_…)", accountId)
    .option("--from <time>", "with --account: failed deliveries created at or after this time (ISO 8601)")
    .option("--until <time>", "with --account: … and before this time (default: now)")
    .action(
      async (
        options: { event?: string[]; account?: string; from?: string; until?: string },
        command: Command,
      ) => {
        if (options.event) {
          const bad = options.event.find((id) => !isId("evt", id));
          if (bad) throw new UsageError(`not an event id: ${bad}`);
        } else if (!options.account || !options.from) {
          throw new UsageError("give --event <ids…>, or --account with --from (and optionally --until)");
        }
        const filter = options.event
          ? { eventIds: options.event, ...(options.account ? { accountId: options.account } : {}) }
          : {
              accountId: options.account!,
              from: parseInstant(options.from!, "--from"),
              // No --until: no upper bound, rather than this machine's clock (it may be behind the database's).
              ...(options.until ? { until: parseInstant(options.until, "--until") } : {}),
            };
        const queue = io.webhooks().producer();
        try {
          const { replayed, remaining } = await replayFailedDeliveries(
            io.db.pool,
            queue.producer,
            filter,
            io.webhooks().replayMaxPerRequest,
          );
          printResult(io, command, {
            json: { replayed, remaining },
            lines: [
              `${replayed} failed deliveries queued again`,
              ...(remaining > 0
                ? [
                    `${remaining} more still failed (at most WEBHOOK_REPLAY_MAX_PER_REQUEST per run): run it again`,
                  ]
                : []),
            ],
          });
        } finally {
          await queue.close();
        }
      },
    );

  webhook
    .command("attempts")
    .description("Every attempt of one delivery")
    .argument("<eventId>", "the event (evt_…)")
    .action(async (eventId: string, _options: unknown, command: Command) => {
      if (!isId("evt", eventId)) throw new UsageError(`not an event id: ${eventId}`);
      const rows = (await deliveryAttempts(io.db.prisma, [eventId])).reverse();
      const json = rows.map((a) => ({
        attempt: a.attempt,
        started_at: a.startedAt.toISOString(),
        status_code: a.statusCode,
        latency_ms: a.latencyMs,
        error: a.error,
        response_body: a.responseBody,
      }));
      printResult(io, command, {
        json,
        lines: formatTable(
          ["#", "STARTED", "STATUS", "MS", "ERROR"],
          json.map((a) => [
            String(a.attempt),
            a.started_at,
            String(a.status_code ?? "-"),
            String(a.latency_ms),
            a.error ?? "-",
          ]),
        ),
      });
    });
}
