import type { Command } from "commander";
import { generateSecretToken, hashSecretToken } from "@sms/auth";
import { carrierId } from "./arguments";
import { printResult, type CliIo } from "./output";
import { carrierNotFound, isPrismaError } from "./records";

/**
 * `carrier inbound-token <id>`: issues the token a carrier posts inbound messages with
 * (POST /v1/carriers/{id}/inbound on dlr-ingest), replacing any earlier one; `--revoke` removes it.
 * Only its SHA-256 is stored: the token is printed once, to be handed to the carrier.
 */
export function registerCarrierInboundTokenCommand(carrier: Command, io: CliIo): void {
  carrier
    .command("inbound-token")
    .description(
      "Issue the token a carrier posts inbound messages over HTTP with (printed once; replaces the last), or --revoke it",
    )
    .argument("<carrierId>", "the carrier", carrierId)
    .option("--revoke", "remove the token: the carrier may no longer post inbound messages")
    .action(async (id: string, options: { revoke?: boolean }, command: Command) => {
      const token = options.revoke ? null : generateSecretToken();
      try {
        await io.db.prisma.carrier.update({
          where: { id },
          data: { inboundTokenHash: token === null ? null : hashSecretToken(token) },
        });
      } catch (error) {
        if (isPrismaError(error, "P2025")) throw carrierNotFound(id);
        throw error;
      }
      printResult(io, command, {
        json: { id, inbound_token: token },
        lines:
          token === null
            ? [`Revoked the inbound token of carrier ${id}: its posts are refused (401).`]
            : [
                `Inbound token of carrier ${id} (shown once; the previous one no longer works):`,
                token,
                `The carrier posts to POST /v1/carriers/${id}/inbound on dlr-ingest with Authorization: Bearer <token>.`,
              ],
      });
    });
}
