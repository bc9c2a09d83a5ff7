// The index pages of `tapedeck export --all --format html`: one per project and one over all of them, each a
// self-contained file that lists its sessions, links to their pages (html-export.ts) and searches them
// offline. The list and the search text come as an embedded JSON index (no `<` in it: scriptSafeJson) that a
// small inline script turns into elements through textContent only; the script and style are allowed by their
// hashes in the same CSP as a session's page, so the index fetches nothing and runs nothing else.
import type { Envelope } from "../core/archive/schemas.ts";
import { exportHead, scriptSafeJson } from "./html-export.ts";

export interface SiteSession {
  title: string;
  session_id: string;
  provider: string;
  status: string;
  started_at: string;
  turns: number;
  tokens: number | null;
  /** The project's name as the index shows it. */
  project: string;
  /** Relative to the index page. */
  href: string;
  /** What the search reads: the prompts and the assistant's answers, as the archive holds them. */
  text: string;
}

export interface SiteProject {
  name: string;
  /** Relative to the index page; null on the project's own index. */
  href: string | null;
  sessions: number;
}

export interface SiteIndex {
  heading: string;
  /** The index over all projects, from a project's own (relative). */
  up?: string;
  projects: SiteProject[];
  sessions: SiteSession[];
}

/** Enough text per session to find it by what was asked and answered, without a page of megabytes. */
const SEARCH_TEXT_CHARS = 20_000;

/** A session's searchable text: each prompt and answer, in order, cut at SEARCH_TEXT_CHARS. */
export function searchTextOf(events: readonly Envelope[]): string {
  const parts: string[] = [];
  let size = 0;
  for (const e of events) {
    const p = e.payload as Record<string, unknown>;
    const text =
      e.kind === "user_prompt"
        ? p.prompt
        : e.kind === "assistant_message"
          ? (p.text ?? p.message)
          : undefined;
    if (typeof text !== "string" || !text) continue;
    parts.push(text);
    size += text.length + 1;
    if (size >= SEARCH_TEXT_CHARS) break;
  }
  return parts.join("\n").slice(0, SEARCH_TEXT_CHARS);
}

const CSS = `
body{font:14px/1.45 system-ui,sans-serif;margin:0;color:#1d1d1f;background:#fafaf8}
main{max-width:1100px;margin:0 auto;padding:20px 24px}
h1{font-size:20px;margin:0 0 4px}h2{font-size:15px;margin:18px 0 6px}
.dim{color:#6b6b70;font-size:12px}
input{font:inherit;width:100%;box-sizing:border-box;padding:6px 10px;margin:10px 0;border:1px solid #d8d8d4;border-radius:6px}
ul{list-style:none;padding:0;margin:0}
li.s{padding:6px 8px;border-bottom:1px solid #ececea}
li.s a{font-weight:600;overflow-wrap:anywhere}
.snip{display:block;font-size:12px;color:#6b6b70;overflow-wrap:anywhere}
mark{background:#fde68a;border-radius:2px}
.projects li{display:inline-block;margin:0 14px 4px 0}
`.trim();

// Plain browser JavaScript, kept small: read the index, list it, filter it as the query changes.
const SCRIPT = `
(function(){
var data=JSON.parse(document.getElementById("site-data").textContent);
function el(tag,cls,text){var e=document.createElement(tag);if(cls)e.className=cls;if(text!=null)e.textContent=text;return e;}
var list=document.getElementById("sessions"),count=document.getElementById("count"),q=document.getElementById("q");
function meta(s){return (data.projects.length>1?s.project+" · ":"")+s.provider+" · "+s.started_at.replace("T"," ").slice(0,16)+" · "+s.turns+" turn"+(s.turns===1?"":"s")+" · "+s.status;}
function snippet(text,at,n){var span=el("span","snip");var from=Math.max(0,at-60);span.append((from>0?"…":"")+text.slice(from,at));span.append(el("mark",null,text.slice(at,at+n)));span.append(text.slice(at+n,at+n+80));return span;}
function render(){
  var needle=q.value.trim().toLowerCase();list.textContent="";var shown=0;
  data.sessions.forEach(function(s){
    var at=-1,inText=false;
    if(needle){at=(s.title+" "+s.session_id+" "+s.provider+" "+s.project).toLowerCase().indexOf(needle);if(at<0){at=s.text.toLowerCase().indexOf(needle);inText=at>=0;}if(at<0)return;}
    var li=el("li","s");var a=el("a",null,s.title);a.href=s.href;li.append(a,el("div","dim",meta(s)));
    if(inText)li.append(snippet(s.text,at,needle.length));
    list.append(li);shown++;
  });
  count.textContent=shown+" of "+data.sessions.length+" session"+(data.sessions.length===1?"":"s")+(needle?" match":"");
}
q.addEventListener("input",render);render();
})();
`.trim();

function escapeText(text: string): string {
  return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");
}

function projectLinks(index: SiteIndex): string {
  const linked = index.projects.filter((p) => p.href !== null);
  if (linked.length === 0) return "";
  const items = linked.map(
    (p) =>
      `<li><a href="${escapeText(p.href!)}">${escapeText(p.name)}</a> <span class="dim">${p.sessions}</span></li>`,
  );
  return `<h2>Projects</h2><ul class="projects" id="projects">${items.join("")}</ul>`;
}

/** One index page: its projects' links, the search box and the session list the script fills. */
export function renderSiteIndex(index: SiteIndex): string {
  const heading = escapeText(index.heading.slice(0, 200));
  return [
    ...exportHead(heading, SCRIPT, CSS),
    "</head><body><main>",
    index.up ? `<div><a href="${escapeText(index.up)}" id="up">all projects</a></div>` : "",
    `<h1>${heading}</h1>`,
    '<div class="dim">exported by tapedeck: redacted as recorded; opens and searches offline</div>',
    projectLinks(index),
    '<input type="search" id="q" placeholder="Search titles, prompts and answers" aria-label="search">',
    '<div class="dim" id="count"></div>',
    '<ul id="sessions"></ul>',
    "</main>",
    `<script type="application/json" id="site-data">${scriptSafeJson(index)}</script>`,
    `<script>${SCRIPT}</script>`,
    "</body></html>",
    "",
  ].join("\n");
}
