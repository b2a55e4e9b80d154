/**
 * Runs in the page (as a string: this tree compiles without the DOM types). Returns every
 * visible text whose colour against its effective background is below WCAG 2.1 AA: 4.5:1,
 * or 3:1 for large text (≥ 24 px, or ≥ 18.66 px bold). Backgrounds are found by walking up to
 * the first opaque one; text over images or gradients is not judged (there is none).
 */
export const FIND_LOW_CONTRAST = `(() => {
  const parse = (c) => { const m = c.match(/rgba?\\(([^)]+)\\)/); if (!m) return null;
    const [r, g, b, a = 1] = m[1].split(/[ ,\\/]+/).filter(Boolean).map(Number); return { r, g, b, a }; };
  const lum = ({ r, g, b }) => { const f = (v) => { v /= 255; return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; };
    return 0.2126 * f(r) + 0.7152 * f(g) + 0.0722 * f(b); };
  const background = (el) => { for (let e = el; e; e = e.parentElement) { const c = parse(getComputedStyle(e).backgroundColor);
    if (c && c.a >= 1) return c; } return { r: 255, g: 255, b: 255, a: 1 }; };
  const failures = [];
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const text = node.textContent.trim(); const el = node.parentElement;
    if (!text || !el) continue;
    const style = getComputedStyle(el); const box = el.getBoundingClientRect();
    if (style.visibility === "hidden" || style.display === "none" || box.width <= 1 || box.height <= 1) continue;
    if (el.closest("svg, .visually-hidden, details:not([open]) > :not(summary)")) continue;
    const fg = parse(style.color); if (!fg) continue;
    const bg = background(el);
    const [hi, lo] = [lum(fg), lum(bg)].sort((a, b) => b - a);
    const ratio = (hi + 0.05) / (lo + 0.05);
    const size = parseFloat(style.fontSize); const bold = Number(style.fontWeight) >= 700;
    const needed = size >= 24 || (bold && size >= 18.66) ? 3 : 4.5;
    if (ratio < needed) failures.push(text.slice(0, 40) + " " + ratio.toFixed(2) + ":1 < " + needed);
  }
  return failures;
})()`;
