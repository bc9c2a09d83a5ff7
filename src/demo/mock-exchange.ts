// A mock model server's requests, each read, logged and answered once, the same way in every wire protocol; a
// mock adds its protocol's own parts: routes, ids, the error shape and the frames of a stream.
import { appendFileSync } from "node:fs";
import type http from "node:http";
import { flatHeaders, readBody, sendSse, startMockServer } from "./mock-http.ts";

/** What every mock logs of a request; each adds its protocol's fields (ids, kind, model). */
export interface LoggedExchange {
  /** 1-based arrival order across all paths. */
  seq: number;
  ts: string;
  method: string;
  /** Path including the query string, e.g. `/v1/messages?beta=true`. */
  path: string;
  headers: Record<string, string>;
  body: unknown;
  /** Which scripted branch answered (e.g. `bash`, `bash-result`, `compact`, `not-found`). */
  scenario: string;
  status: number;
}

/** A running mock model: where it listens, every request it was sent and the usage of every response it gave. */
export interface ModelMock<E extends LoggedExchange, U> {
  url: string;
  port: number;
  requests: E[];
  usageLog: U[];
  close(): Promise<void>;
}

/** What a mock's API does alike for every request. */
export interface MockApi {
  /** Credential headers, logged as `[redacted]`. */
  redactedHeaders: ReadonlySet<string>;
  /** The API's error body when a handler throws. */
  errorBody(err: unknown): unknown;
  /** Logged for a body no decoder takes, which is then a bad body; without it such a request fails. */
  undecodableBody?: string;
  /** What the URL the client is given ends in. */
  urlPath?: string;
}

/** One request, as its mock's handler is handed it. */
export interface MockCall<E extends LoggedExchange, U> {
  /** What its log entry starts with: the arrival number, when, and what was asked where. */
  head: Pick<LoggedExchange, "seq" | "ts" | "method" | "path">;
  /** The path without its query string. */
  pathname: string;
  /** The headers, credentials redacted. */
  headers: Record<string, string>;
  readBody(): Promise<RequestBody>;
  /** The request's one answer, which logs `entry` with it. */
  answer(entry: E, style: JsonStyle): Answer<U>;
}

/** How a protocol answers in JSON: the headers of every such response and the shape of its errors. */
export interface JsonStyle {
  headers: Record<string, string>;
  error(status: number, type: string, message: string): unknown;
}

/** The one answer to a request; it logs the request with the scenario and status it was answered with. */
export interface Answer<U> {
  json(status: number, payload: unknown, scenario: string): void;
  error(status: number, type: string, message: string, scenario: string): void;
  /**
   * The request of a model call: its logged body when the call is on the API's route (`onRoute`) and the body is
   * a JSON object; otherwise undefined, and answered 404 (off the route) or 400 (any other body).
   */
  modelCall<T>(onRoute: boolean): T | undefined;
  /** A streamed 200 of these frames. */
  stream(frames: Iterable<string>, scenario: string, headers?: Record<string, string>): void;
  /** Records the usage of the model response this answer gives. */
  usage(record: U): void;
}

/** Starts a mock model on 127.0.0.1 (or `opts.host`, `opts.port`) whose `handle` answers each request. */
export async function startModelMock<E extends LoggedExchange, U>(
  opts: { port?: number; host?: string; logFile?: string },
  api: MockApi,
  handle: (call: MockCall<E, U>) => Promise<void>,
): Promise<ModelMock<E, U>> {
  const { requests, log } = requestLog<E>(opts.logFile);
  const usageLog: U[] = [];
  let seq = 0;
  const mock = await startMockServer(
    (req, res) => {
      const path = req.url ?? "/";
      return handle({
        head: { seq: ++seq, ts: new Date().toISOString(), method: req.method ?? "", path },
        pathname: pathnameOf(path),
        headers: flatHeaders(req, api.redactedHeaders),
        readBody: () => readRequestBody(req, api.undecodableBody),
        answer: (entry, style) => answerTo(res, entry, style, log, usageLog),
      });
    },
    api.errorBody,
    opts,
  );
  return {
    url: `http://${mock.host}:${mock.port}${api.urlPath ?? ""}`,
    port: mock.port,
    requests,
    usageLog,
    close: mock.close,
  };
}

function pathnameOf(path: string): string {
  return new URL(path, "http://mock").pathname;
}

interface RequestBody {
  raw: Buffer;
  /** The parsed JSON, else the text; null when empty. */
  value: unknown;
}

/** The body, decoded and parsed; see MockApi.undecodableBody. */
async function readRequestBody(req: http.IncomingMessage, undecodable?: string): Promise<RequestBody> {
  let raw: Buffer;
  try {
    raw = await readBody(req);
  } catch (err) {
    if (undecodable === undefined) throw err;
    return { raw: Buffer.alloc(0), value: undecodable };
  }
  if (raw.length === 0) return { raw, value: null };
  try {
    return { raw, value: JSON.parse(raw.toString("utf8")) };
  } catch {
    return { raw, value: raw.toString("utf8") };
  }
}

/** The requests a mock has seen, in arrival order; with `file`, each also appended to it as a JSON line. */
function requestLog<E>(file?: string): { requests: E[]; log(entry: E): void } {
  const requests: E[] = [];
  return {
    requests,
    log(entry) {
      requests.push(entry);
      if (file) appendFileSync(file, `${JSON.stringify(entry)}\n`);
    },
  };
}

function answerTo<E extends LoggedExchange, U>(
  res: http.ServerResponse,
  entry: E,
  style: JsonStyle,
  log: (entry: E) => void,
  usageLog: U[],
): Answer<U> {
  const settle = (status: number, scenario: string): void => {
    entry.status = status;
    entry.scenario = scenario;
    log(entry);
  };
  const answer: Answer<U> = {
    json(status, payload, scenario) {
      settle(status, scenario);
      res.writeHead(status, style.headers);
      res.end(JSON.stringify(payload));
    },
    error(status, type, message, scenario) {
      answer.json(status, style.error(status, type, message), scenario);
    },
    modelCall<T>(onRoute: boolean) {
      if (!onRoute) {
        const route = `${entry.method} ${pathnameOf(entry.path)}`;
        answer.error(404, "not_found_error", `mock: no route for ${route}`, "not-found");
        return undefined;
      }
      // A body that is not JSON is logged as its text, so only a parsed one can be an object.
      if (typeof entry.body !== "object" || entry.body === null) {
        answer.error(400, "invalid_request_error", "mock: body is not a JSON object", "bad-body");
        return undefined;
      }
      return entry.body as T;
    },
    stream(frames, scenario, headers) {
      settle(200, scenario);
      sendSse(res, frames, headers);
    },
    usage(record) {
      usageLog.push(record);
    },
  };
  return answer;
}
