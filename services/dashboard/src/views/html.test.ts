import { escapeHtml, html, raw } from "./html";

describe("html", () => {
  it("escapes interpolated text, including quotes that would end an attribute", () => {
    const value = `"><script>alert('x')</script>&`;
    expect(html`<p title="${value}">${value}</p>`.value).toBe(
      '<p title="&quot;&gt;&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;&amp;">&quot;&gt;&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;&amp;</p>',
    );
  });

  it("keeps nested Html, flattens arrays and drops null, undefined and booleans", () => {
    const items = ["a<b", "c"].map((t) => html`<li>${t}</li>`);
    // Through an alias: Prettier reformats templates tagged `html`, which would change the text.
    const markup = html;
    expect(markup`<ul>${items}${null}${undefined}${false}</ul>`.value).toBe(
      "<ul><li>a&lt;b</li><li>c</li></ul>",
    );
    expect(html`${raw("<br>")}${0}`.value).toBe("<br>0");
  });

  it("escapes every character that matters in HTML text and attributes", () => {
    expect(escapeHtml("&<>\"'`")).toBe("&amp;&lt;&gt;&quot;&#39;&#96;");
  });
});
