// A JSON value parsed from its text on first read, once for every extension that reads it; an extension that
// sets it hands the others its value instead. The request's body and each SSE event's data are read so. A base
// class, not a field: an SSE event is one object, thousands of them a stream.
export abstract class LazyJson {
  #value: unknown;
  #parsed = false;

  /** The text to parse; undefined when there is none (the value then reads undefined). */
  protected abstract jsonText(): string | undefined;

  protected readJson(): unknown {
    if (!this.#parsed) {
      this.#parsed = true;
      const text = this.jsonText();
      if (text !== undefined) this.#value = parseOrUndefined(text);
    }
    return this.#value;
  }

  protected writeJson(value: unknown): void {
    this.#parsed = true;
    this.#value = value;
  }
}

function parseOrUndefined(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
