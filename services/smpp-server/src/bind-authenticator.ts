import { decoySmppPasswordHash, isValidSystemId, verifySmppPassword } from "@sms/auth";
import type { PrismaClient } from "@sms/db";
import type { Logger } from "@sms/logger";
import { CommandStatus, type BindRequest, type SmppServerSession } from "@sms/smpp";
import type { AccountDirectory } from "./accounts";
import type { BindLeases } from "./bind-leases";
import { clientBucket, type BindThrottle } from "./bind-throttle";
import type { HashGate } from "./hash-gate";
import type { SessionRegistry } from "./sessions";

/**
 * Decides binds (SMPP 3.4 §4.1). Unknown system_id and wrong password get the same answer,
 * ESME_RINVPASWD, after the same work (a decoy hash), so a bind does not tell which ids exist.
 * Each attempt is counted per (system_id, client address) and per address before the password
 * is checked, and waits longer the more failed before it (BindThrottle): guessing slows down,
 * but nobody is ever locked out, least of all a customer binding from an address that has not
 * failed. Password checks run through the HashGate (bounded scrypt work). A suspended account
 * or one over its bind limit → ESME_RBINDFAIL.
 */
export function createBindAuthenticator(deps: {
  prisma: PrismaClient;
  accounts: AccountDirectory;
  registry: SessionRegistry;
  leases: BindLeases;
  throttle: BindThrottle;
  hashGate: HashGate;
  logger: Logger;
}) {
  const { prisma, accounts, registry, leases, throttle, hashGate, logger } = deps;

  return async function authenticate(bind: BindRequest, session: SmppServerSession): Promise<number> {
    const address = clientBucket(session.remoteAddress);
    const validId = isValidSystemId(bind.systemId);
    const attempt = await throttle.attempt(validId ? bind.systemId : "-", address);
    await delay(attempt.delayMs);
    if (session.state !== "open") return CommandStatus.ESME_RBINDFAIL;
    const credential = validId
      ? await prisma.smppCredential.findUnique({ where: { systemId: bind.systemId } })
      : null;
    const passwordHash = credential?.passwordHash ?? (await decoySmppPasswordHash());
    const matches = await hashGate.run(address, () => verifySmppPassword(bind.password, passwordHash));
    if (!credential || !matches) {
      if (attempt.delayMs > 0)
        logger.info("wrong SMPP bind from an address that failed before", {
          address,
          delay_ms: attempt.delayMs,
        });
      return CommandStatus.ESME_RINVPASWD;
    }
    await attempt.succeeded();
    const account = await accounts.get(credential.accountId);
    if (!account || account.status !== "active") return CommandStatus.ESME_RBINDFAIL;
    // The limit is the account's across every replica: a lease in Redis per bind.
    const lease = await leases.acquire(account.id, credential.maxBinds);
    const identity = lease && {
      accountId: account.id,
      systemId: credential.systemId,
      passwordHash: credential.passwordHash,
      leaseId: lease,
    };
    if (!lease || !identity || !registry.reserve(session, identity, credential.maxBinds)) {
      if (lease) await leases.release(account.id, lease);
      logger.info("bind refused: over the account's bind limit", {
        account_id: account.id,
        max_binds: credential.maxBinds,
      });
      return CommandStatus.ESME_RBINDFAIL;
    }
    session.on("state", (state) => {
      if (state === "closed") void leases.release(account.id, lease).catch(() => undefined);
    });
    return CommandStatus.ESME_ROK;
  };
}

function delay(ms: number): Promise<void> {
  return ms > 0 ? new Promise((resolve) => setTimeout(resolve, ms)) : Promise.resolve();
}
