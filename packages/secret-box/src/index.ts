import crypto from "node:crypto";
import { z } from "zod";

/** Thrown for a key that is not 32 bytes of base64, or a sealed value that does not open. */
export class SecretBoxError extends Error {
  override readonly name = "SecretBoxError";
}

const VERSION = "v1";
const IV_BYTES = 12;
/**
 * GCM accepts tags of 4 to 16 bytes when decrypting; without a pinned length a forger who truncates the
 * tag to 4 bytes needs only 2^32 tries (NIST SP 800-38D §5.2.1.2). We seal 16 and open 16.
 */
const TAG_BYTES = 16;

/**
 * AES-256-GCM under one deployment key (SECRET_ENCRYPTION_KEY). A sealed value is
 * `v1.<iv>.<ciphertext>.<tag>` in base64url; `context` (e.g. the account id) is bound
 * as associated data, so a sealed secret copied onto another row does not open there.
 */
export interface SecretBox {
  seal(plaintext: string, context: string): string;
  open(sealed: string, context: string): string;
}

/** Parses a base64 key of exactly 32 bytes. */
export function parseEncryptionKey(base64: string): Buffer {
  const key = Buffer.from(base64, "base64");
  if (key.length !== 32 || key.toString("base64").replace(/=+$/, "") !== base64.trim().replace(/=+$/, "")) {
    throw new SecretBoxError(
      "SECRET_ENCRYPTION_KEY must be 32 random bytes in base64 (openssl rand -base64 32)",
    );
  }
  return key;
}

export function createSecretBox(base64Key: string): SecretBox {
  const key = parseEncryptionKey(base64Key);
  return {
    seal(plaintext, context) {
      const iv = crypto.randomBytes(IV_BYTES);
      const cipher = crypto.createCipheriv("aes-256-gcm", key, iv, { authTagLength: TAG_BYTES });
      cipher.setAAD(Buffer.from(context, "utf8"));
      const ciphertext = Buffer.concat([cipher.update(plaintext, "utf8"), cipher.final()]);
      return [VERSION, iv, ciphertext, cipher.getAuthTag()]
        .map((part) => (typeof part === "string" ? part : part.toString("base64url")))
        .join(".");
    },
    open(sealed, context) {
      const [version, iv, ciphertext, tag, extra] = sealed.split(".");
      if (version !== VERSION || !iv || ciphertext === undefined || !tag || extra !== undefined) {
        throw new SecretBoxError("not a sealed secret");
      }
      const tagBytes = Buffer.from(tag, "base64url");
      if (tagBytes.length !== TAG_BYTES) throw new SecretBoxError("not a sealed secret");
      try {
        const decipher = crypto.createDecipheriv("aes-256-gcm", key, Buffer.from(iv, "base64url"), {
          authTagLength: TAG_BYTES,
        });
        decipher.setAAD(Buffer.from(context, "utf8"));
        decipher.setAuthTag(tagBytes);
        return Buffer.concat([
          decipher.update(Buffer.from(ciphertext, "base64url")),
          decipher.final(),
        ]).toString("utf8");
      } catch {
        throw new SecretBoxError("the sealed secret does not open with this key and context");
      }
    },
  };
}

/** True when `value` is a usable SECRET_ENCRYPTION_KEY. */
export function isEncryptionKey(value: string): boolean {
  try {
    return parseEncryptionKey(value).length === 32;
  } catch {
    return false;
  }
}

/** The SECRET_ENCRYPTION_KEY setting every service that seals or opens secrets declares. */
export const encryptionKeySetting = () =>
  z.string().refine(isEncryptionKey, "must be 32 random bytes in base64 (openssl rand -base64 32)");

export {
  needsSealing,
  openCarrierPassword,
  openCarrierPasswords,
  sealCarrierPassword,
  type CarrierPasswordColumns,
  type CarrierPasswordLogger,
} from "./carrier-password";
