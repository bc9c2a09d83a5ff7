// `tapedeck export --format html`: one self-contained file that opens from file:// and shows the viewer's
// timeline and integrity panel. Everything comes from the archive as stored (already redacted): the pages
// the server would serve, the integrity data, and events.jsonl itself so the page can verify its checksum.
// The script and style are inline and allowed by their hashes in the CSP; nothing may be fetched.
import { createHash } from "node:crypto";
import { closeSync, fstatSync } from "node:fs";
import { join } from "node:path";
import { openForScan } from "../core/archive/line-scan.ts";
import { SESSION_FILES } from "../core/archive/paths.ts";
import { readRange } from "../core/base/byte-range.ts";
import type { SessionRef } from "../core/read/sessions.ts";
import { subagentToolsOf } from "../providers/catalog.ts";
import { usageFactsOf } from "../providers/usage-facts.ts";
import type { PriceTable } from "../usage/pricing.ts";
import { integrityOf, listItem } from "./api.ts";
import type { PageData } from "./page/source.ts";
import { loadPageAssets, type PageAssets } from "./server.ts";
import { readTimelinePage } from "./timeline.ts";

const PAGE_EVENTS = 500;

function readAll(path: string): Buffer {
  const fd = openForScan(path);
  try {
    return readRange(fd, 0, fstatSync(fd).size);
  } finally {
    closeSync(fd);
  }
}

function cspHash(text: string): string {
  return `'sha256-${createHash("sha256").update(text, "utf8").digest("base64")}'`;
}

/** JSON inside a <script> element: no `<` at all, so no `</script>` or `<!--` can end or bend it. */
export function scriptSafeJson(value: unknown): string {
  return JSON.stringify(value)
    .replace(/</g, "\\u003c")
    .replace(/\u2028/g, "\\u2028")
    .replace(/\u2029/g, "\\u2029");
}

export function exportCsp(js: string, css: string): string {
  return (
    `default-src 'none'; script-src ${cspHash(js)}; style-src ${cspHash(css)}; img-src data:; ` +
    "connect-src 'none'; base-uri 'none'; form-action 'none'"
  );
}

/**
 * The head of every exported page: a policy that runs only this page's own script and style (by their hashes),
 * fetches nothing and sends no referrer. `title` is already free of markup.
 */
export function exportHead(title: string, js: string, css: string): string[] {
  return [
    "<!doctype html>",
    '<html lang="en"><head><meta charset="utf-8">',
    `<meta http-equiv="Content-Security-Policy" content="${exportCsp(js, css)}">`,
    '<meta name="referrer" content="no-referrer">',
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    `<title>tapedeck · ${title}</title>`,
    `<style>${css}</style>`,
  ];
}

export function renderHtmlExport(
  ref: SessionRef,
  options: { prices?: PriceTable; assets?: PageAssets; index?: string } = {},
): { html: string; events: number; bad_lines: number } {
  const raw = readAll(join(ref.dir, SESSION_FILES.events));
  const pages: Record<string, PageData> = {};
  let offset: number | null = 0;
  let events = 0;
  let bad = 0;
  while (offset !== null) {
    const page = readTimelinePage(ref.dir, {
      fromOffset: offset,
      limit: PAGE_EVENTS,
      prices: options.prices,
      subagentTools: subagentToolsOf(ref.manifest.provider),
      facts: usageFactsOf(ref.manifest.provider),
    });
    pages[String(offset)] = { ...page, size: raw.length };
    events += page.events.length;
    bad += page.bad_lines.length;
    offset = page.nextOffset;
  }
  const item = listItem(ref, 0);
  const data = {
    sessions: [item],
    pages: { [item.key]: pages },
    integrity: { [item.key]: integrityOf(ref) },
    raw: { [item.key]: raw.toString("base64") },
    // A page of an exported site links back to its project's index.
    ...(options.index ? { site: { index: options.index } } : {}),
  };
  const assets = options.assets ?? loadPageAssets();
  const js = assets.js.replace(/<\/script/gi, "<\\/script");
  const css = assets.css.replace(/<\/style/gi, "<\\/style");
  const title = (item.title ?? item.session_id).replace(/[<>&"]/g, " ").slice(0, 120);
  const html = [
    ...exportHead(title, js, css),
    '</head><body><div id="app"></div>',
    `<script type="application/json" id="tapedeck-data">${scriptSafeJson(data)}</script>`,
    `<script>${js}</script>`,
    "</body></html>",
    "",
  ].join("\n");
  return { html, events, bad_lines: bad };
}
