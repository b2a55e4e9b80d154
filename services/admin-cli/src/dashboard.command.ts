import type { Command } from "commander";
import { DashboardInviteError, inviteDashboardUser } from "@sms/auth";
import { ulid } from "@sms/ids";
import { accountId } from "./arguments";
import { CommandError } from "./errors";
import { formatDate, formatTable, printResult, type CliIo } from "./output";
import { findAccountOrFail } from "./records";

export function registerDashboardCommands(program: Command, io: CliIo): void {
  const dashboard = program.command("dashboard").description("People who sign in to the customer dashboard");

  dashboard
    .command("invite")
    .description(
      "Invite a person to an account's dashboard and print a one-time link (72 h) where they choose a password; inviting them again resets it",
    )
    .argument("<accountId>", "the account (acc_…)", accountId)
    .argument("<email>", "their e-mail address (they sign in with it)")
    .action(async (account: string, email: string, _options: unknown, command: Command) => {
      await findAccountOrFail(io.db.prisma, account);
      let invite;
      try {
        invite = await inviteDashboardUser(io.db.prisma, {
          newUserId: `usr_${ulid()}`,
          accountId: account,
          email,
        });
      } catch (error) {
        if (error instanceof DashboardInviteError) throw new CommandError(error.message);
        throw error;
      }
      const link = `${io.dashboardUrl.replace(/\/+$/, "")}/invite/${invite.token}`;
      printResult(io, command, {
        json: {
          user_id: invite.userId,
          account_id: account,
          email: email.trim().toLowerCase(),
          link,
          expires_at: invite.expiresAt.toISOString(),
          created: invite.created,
        },
        lines: [
          link,
          `${invite.created ? "Invited" : "Re-invited"} ${email.trim().toLowerCase()} to the dashboard of ${account}.`,
          `Send them the link: it works once, until ${formatDate(invite.expiresAt)}; it is not stored.`,
        ],
      });
    });

  dashboard
    .command("users")
    .description("List the people of an account's dashboard")
    .argument("<accountId>", "the account (acc_…)", accountId)
    .action(async (account: string, _options: unknown, command: Command) => {
      await findAccountOrFail(io.db.prisma, account);
      const users = await io.db.prisma.dashboardUser.findMany({
        where: { accountId: account },
        orderBy: { email: "asc" },
      });
      const described = users.map((u) => ({
        id: u.id,
        email: u.email,
        has_password: u.passwordHash !== null,
        last_sign_in_at: u.lastSignInAt?.toISOString() ?? null,
      }));
      printResult(io, command, {
        json: described,
        lines:
          described.length === 0
            ? [`No dashboard users for ${account}.`]
            : formatTable(
                ["EMAIL", "ID", "PASSWORD SET", "LAST SIGN-IN"],
                described.map((u) => [
                  u.email,
                  u.id,
                  u.has_password ? "yes" : "no (invited)",
                  u.last_sign_in_at ?? "-",
                ]),
              ),
      });
    });
}
