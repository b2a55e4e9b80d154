import type { SecretBox } from "./index";

/** A carrier row's password columns: `password` in clear until sealed, then ''. */
export interface CarrierPasswordColumns {
  id: string;
  password: string;
  passwordSealed: string | null;
}

const contextOf = (carrierId: string) => `carrier:${carrierId}`;

/** Seals the SMPP password a carrier issued us, bound to that carrier (copied onto another row, it does not open). */
export function sealCarrierPassword(box: SecretBox, carrierId: string, password: string): string {
  return box.seal(password, contextOf(carrierId));
}

/**
 * The password to bind with. A password in clear wins over a sealed one: a writer that does not
 * seal (an older admin CLI, plain SQL) has set it since, and the next seal replaces the old value.
 */
export function openCarrierPassword(box: SecretBox, carrier: CarrierPasswordColumns): string {
  if (carrier.passwordSealed === null || carrier.password !== "") return carrier.password;
  return box.open(carrier.passwordSealed, contextOf(carrier.id));
}

/** True while the row still holds its password in clear. */
export function needsSealing(carrier: CarrierPasswordColumns): boolean {
  return carrier.passwordSealed === null || carrier.password !== "";
}

/** Where openCarrierPasswords reports a password that does not open (a service's logger). */
export interface CarrierPasswordLogger {
  error(message: string, meta: { carrierId: string; error: string }): unknown;
}

/**
 * The rows with their passwords opened. A password that does not open (sealed under another
 * SECRET_ENCRYPTION_KEY) costs that carrier its binds, not the others theirs: the row is left
 * out and an error logged, with what the operator should do.
 */
export function openCarrierPasswords<Row extends CarrierPasswordColumns>(
  box: SecretBox,
  rows: readonly Row[],
  logger: CarrierPasswordLogger,
): Array<Omit<Row, "passwordSealed">> {
  return rows.flatMap((row) => {
    const { passwordSealed: _sealed, ...carrier } = row;
    try {
      return [{ ...carrier, password: openCarrierPassword(box, row) }];
    } catch (error) {
      logger.error("carrier password does not open with this key; set it again (admin carrier update)", {
        carrierId: row.id,
        error: String(error),
      });
      return [];
    }
  });
}
