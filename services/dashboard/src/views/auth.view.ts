import { csrfInput, field, notice, time } from "./components";
import { html } from "./html";
import { publicPage } from "./layout";

export function signInPage(options: {
  csrf: string;
  email?: string;
  next?: string;
  error?: string;
  lockedUntil?: Date;
  /** Whose failures locked it: the e-mail address's, or the client address's. */
  lockedBy?: "email" | "ip";
  notice?: string;
}) {
  const lockedFor =
    options.lockedBy === "ip"
      ? "Too many failed sign-ins from your network"
      : "Too many wrong passwords for this address";
  return publicPage(
    "Sign in",
    html`${options.notice ? notice("success", options.notice) : ""}
      ${options.lockedUntil ? notice("error", html`${lockedFor}. Try again after ${time(options.lockedUntil)}.`) : ""}
      <form method="post" action="/sign-in" novalidate>
        ${csrfInput(options.csrf)}
        <input type="hidden" name="next" value="${options.next ?? ""}" />
        ${field({ label: "E-mail address", name: "email", type: "email", value: options.email ?? "", required: true, autocomplete: "username", maxlength: 254 })}
        ${field({ label: "Password", name: "password", type: "password", required: true, autocomplete: "current-password", error: options.error, maxlength: 200 })}
        <button class="button button-primary" type="submit">Sign in</button>
      </form>
      <p class="hint">
        No account yet, or forgot your password? Ask your administrator for an invite link.
      </p>`,
  );
}

export function invitePage(options: { csrf: string; token: string; email: string; error?: string }) {
  return publicPage(
    "Choose your password",
    html`<p>You are invited to sign in as <strong>${options.email}</strong>.</p>
      <form method="post" action="/invite/${options.token}" novalidate>
        ${csrfInput(options.csrf)}
        <input type="text" name="username" value="${options.email}" autocomplete="username" hidden />
        ${field({ label: "New password", name: "password", type: "password", required: true, autocomplete: "new-password", hint: "At least 12 characters. A few unrelated words make a good one.", error: options.error, maxlength: 200 })}
        <button class="button button-primary" type="submit">Save and sign in</button>
      </form>`,
  );
}

export function inviteInvalidPage() {
  return publicPage(
    "This invite link does not work",
    html`<p>
        It was already used, has expired, or was replaced by a newer one. Ask your administrator for a new
        link.
      </p>
      <p><a class="button button-secondary" href="/sign-in">Sign in</a></p>`,
  );
}
