// Where the page's data comes from: the local server's API, or the data embedded in an exported file.
import type { ExperimentListItem, ExperimentView, Integrity, SessionListItem } from "../api.ts";
import type { TimelinePage } from "../timeline.ts";
import type { ScenarioResultView } from "./scenario-view.ts";

export type PageData = TimelinePage & { size: number };

export interface SearchHitView {
  key: string | null;
  session_id: string;
  sequence: number;
  kind: string;
  timestamp: string;
  snippet: string;
}

export interface Source {
  embedded: boolean;
  sessions(): Promise<SessionListItem[]>;
  search(q: string): Promise<{ hits: SearchHitView[]; stale: boolean }>;
  page(key: string, offset: number): Promise<PageData>;
  integrity(key: string): Promise<Integrity>;
  /** a chunk of events.jsonl from `offset`; empty at the end */
  raw(key: string, offset: number): Promise<Uint8Array>;
  /** the byte offset to read from for an event: a deep link far into a session skips the pages before it */
  locate(key: string, sequence: number): Promise<number>;
  experiments(): Promise<ExperimentListItem[]>;
  scenarioResults(): Promise<ScenarioResultView[]>;
  experiment(key: string): Promise<ExperimentView>;
}

/** What `tapedeck export --format html` embeds. */
export interface EmbeddedData {
  sessions: SessionListItem[];
  pages: Record<string, Record<string, PageData>>;
  integrity: Record<string, Integrity>;
  /** events.jsonl, base64 */
  raw: Record<string, string>;
  /** A page of `export --all --format html`: its project's index, relative to the page. */
  site?: { index: string };
}

export const PAGE_EVENTS = 500;

async function getJson<T>(path: string): Promise<T> {
  const res = await fetch(path, { credentials: "same-origin" });
  if (!res.ok) throw new Error(`${path}: ${res.status} ${await res.text()}`);
  return (await res.json()) as T;
}

export function httpSource(): Source {
  return {
    embedded: false,
    sessions: async () => (await getJson<{ sessions: SessionListItem[] }>("api/sessions")).sessions,
    search: (q) => getJson(`api/search?q=${encodeURIComponent(q)}`),
    page: (key, offset) => getJson(`api/sessions/${key}/events?offset=${offset}&limit=${PAGE_EVENTS}`),
    integrity: (key) => getJson(`api/sessions/${key}/integrity`),
    locate: async (key, seq) =>
      (await getJson<{ offset: number }>(`api/sessions/${key}/locate?seq=${seq}`)).offset,
    scenarioResults: async () =>
      (await getJson<{ results: ScenarioResultView[] }>("api/scenario-results")).results,
    experiments: async () =>
      (await getJson<{ experiments: ExperimentListItem[] }>("api/experiments")).experiments,
    experiment: (key) => getJson(`api/experiments/${key}`),
    raw: async (key, offset) => {
      const res = await fetch(`api/sessions/${key}/raw?offset=${offset}`);
      if (!res.ok) throw new Error(`raw: ${res.status}`);
      return new Uint8Array(await res.arrayBuffer());
    },
  };
}

function decodeBase64(b64: string): Uint8Array {
  const bin = atob(b64);
  const out = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
  return out;
}

export function embeddedSource(data: EmbeddedData): Source {
  const raws = new Map<string, Uint8Array>();
  const rawOf = (key: string) => {
    let r = raws.get(key);
    if (!r) {
      r = decodeBase64(data.raw[key] ?? "");
      raws.set(key, r);
    }
    return r;
  };
  return {
    embedded: true,
    sessions: async () => data.sessions,
    search: async (q) => {
      const needle = q.toLowerCase().trim();
      const hits: SearchHitView[] = [];
      if (!needle) return { hits, stale: false };
      for (const s of data.sessions) {
        const text = new TextDecoder().decode(rawOf(s.key));
        for (const line of text.split("\n")) {
          const at = line.toLowerCase().indexOf(needle);
          if (at < 0) continue;
          const e = JSON.parse(line) as { sequence: number; kind: string; timestamp: string };
          const snippet = `${line.slice(Math.max(0, at - 60), at)}\ue000${line.slice(at, at + needle.length)}\ue001${line.slice(at + needle.length, at + needle.length + 60)}`;
          hits.push({
            key: s.key,
            session_id: s.session_id,
            sequence: e.sequence,
            kind: e.kind,
            timestamp: e.timestamp,
            snippet,
          });
        }
      }
      return { hits: hits.slice(0, 50), stale: false };
    },
    page: async (key, offset) => {
      const p = data.pages[key]?.[String(offset)];
      if (!p) throw new Error(`no page at offset ${offset}`);
      return p;
    },
    integrity: async (key) => data.integrity[key]!,
    locate: async (key, seq) => {
      let best = 0;
      for (const [offset, page] of Object.entries(data.pages[key] ?? {})) {
        const first = page.events[0]?.sequence;
        if (first !== undefined && first <= seq && Number(offset) >= best) best = Number(offset);
      }
      return best;
    },
    experiments: async () => [],
    scenarioResults: async () => [],
    experiment: async () => {
      throw new Error("an exported session holds no experiment");
    },
    raw: async (key, offset) => (offset === 0 ? rawOf(key) : new Uint8Array(0)),
  };
}
