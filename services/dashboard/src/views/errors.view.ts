import { html } from "./html";
import { publicPage } from "./layout";

/** A plain error page: what happened and what to do, with a way back. */
export function errorPage(status: number, title: string, advice: string) {
  return publicPage(
    title,
    html`<p>${advice}</p>
      <p class="muted">HTTP ${status}</p>
      <p><a class="button button-primary" href="/">Go to the dashboard</a></p>`,
  );
}
