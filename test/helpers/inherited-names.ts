/**
 * Names a plain object answers without holding them: Object.prototype's members and the `__proto__` accessor.
 * A table keyed by a recorded or typed name must treat each as just a name.
 */
export const INHERITED_NAMES = ["constructor", "__proto__", "toString", "hasOwnProperty", "valueOf"] as const;

/** `{ [name]: value }` as JSON.parse makes it: `__proto__` an own key, as it is in a payload or a file. */
export function parsedWith(name: string, value: unknown): Record<string, unknown> {
  return JSON.parse(`{${JSON.stringify(name)}:${JSON.stringify(value)}}`);
}
