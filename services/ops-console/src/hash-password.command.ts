import { hashPassword } from "@sms/auth";

/**
 * `main.js hash-password`: reads the password from stdin (so it stays out of the shell
 * history and the process list) and prints the value for OPS_CONSOLE_PASSWORD_HASH.
 */
export async function runHashPassword(): Promise<void> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  const password = Buffer.concat(chunks)
    .toString("utf8")
    .replace(/\r?\n$/, "");
  if (password.length < 12) {
    console.error("hash-password: give a password of at least 12 characters on stdin");
    process.exit(2);
  }
  console.log(await hashPassword(password));
}
