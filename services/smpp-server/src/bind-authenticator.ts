import { decoySmppPasswordHash, isValidSystemId, verifySmppPassword } from "@sms/auth";
import type { PrismaClient } from "@sms/db";
import type { Logger } from "@sms/logger";
import { CommandStatus, type BindRequest, type SmppServerSession } from "@sms/smpp";
import type { AccountDirectory } from "./accounts";
import type { BindLeases } from "./bind-leases";
import type { SessionRegistry } from "./sessions";

export interface BindPolicy {
  /** Wrong passwords in a row before the system_id locks. */
  failuresBeforeLock: number;
  /** How long a lock lasts, ms. */
  lockMs: number;
  /** Extra wait per failure in a row before answering a wrong password, ms (capped at 5 s). */
  failureDelayMs: number;
}

const MAX_FAILURE_DELAY_MS = 5000;

/**
 * Decides binds (SMPP 3.4 §4.1): unknown system_id → ESME_RINVSYSID; wrong password →
 * ESME_RINVPASWD, answered more slowly with each failure in a row, and after
 * `failuresBeforeLock` of them the system_id is locked for `lockMs` (every bind then gets
 * ESME_RBINDFAIL, the password is not even checked); suspended account or over the
 * account's bind limit → ESME_RBINDFAIL. Failures and locks live in PostgreSQL, so every
 * replica sees them.
 */
export function createBindAuthenticator(deps: {
  prisma: PrismaClient;
  accounts: AccountDirectory;
  registry: SessionRegistry;
  leases: BindLeases;
  policy: BindPolicy;
  logger: Logger;
}) {
  const { prisma, accounts, registry, leases, policy, logger } = deps;

  async function recordFailure(systemId: string): Promise<number> {
    // One statement: parallel wrong binds cannot both read "4 failures" and skip the lock.
    const rows = await prisma.$queryRaw<Array<{ failed_attempts: number; locked: boolean }>>`
      UPDATE smpp_credentials SET
        failed_attempts = CASE WHEN failed_attempts + 1 >= ${policy.failuresBeforeLock} THEN 0 ELSE failed_attempts + 1 END,
        locked_until = CASE WHEN failed_attempts + 1 >= ${policy.failuresBeforeLock}
                            THEN now() + make_interval(secs => ${policy.lockMs / 1000}::double precision)
                            ELSE locked_until END,
        updated_at = now()
      WHERE system_id = ${systemId}
      RETURNING failed_attempts, locked_until > now() AS locked`;
    const row = rows[0];
    if (row?.locked) logger.warn("system_id locked after repeated wrong passwords", { system_id: systemId });
    return row?.locked ? policy.failuresBeforeLock : (row?.failed_attempts ?? 1);
  }

  return async function authenticate(bind: BindRequest, session: SmppServerSession): Promise<number> {
    if (!isValidSystemId(bind.systemId)) return CommandStatus.ESME_RINVSYSID;
    const credential = await prisma.smppCredential.findUnique({ where: { systemId: bind.systemId } });
    if (!credential) {
      // Same work as a real check, so timing does not tell more than the status already does.
      await verifySmppPassword(bind.password, await decoySmppPasswordHash());
      return CommandStatus.ESME_RINVSYSID;
    }
    if (credential.lockedUntil && credential.lockedUntil > new Date()) return CommandStatus.ESME_RBINDFAIL;
    if (!(await verifySmppPassword(bind.password, credential.passwordHash))) {
      const failures = await recordFailure(bind.systemId);
      await delay(Math.min(failures * policy.failureDelayMs, MAX_FAILURE_DELAY_MS));
      return CommandStatus.ESME_RINVPASWD;
    }
    if (credential.failedAttempts > 0)
      await prisma.smppCredential.update({
        where: { systemId: bind.systemId },
        data: { failedAttempts: 0 },
      });
    const account = await accounts.get(credential.accountId);
    if (!account || account.status !== "active") return CommandStatus.ESME_RBINDFAIL;
    // The limit is the account's across every replica: a lease in Redis per bind.
    const lease = await leases.acquire(account.id, credential.maxBinds);
    const identity = { accountId: account.id, systemId: credential.systemId };
    if (!lease || !registry.reserve(session, identity, credential.maxBinds)) {
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
