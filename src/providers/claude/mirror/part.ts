// The mirror as Claude's catalog entry offers it to the proxy: the settings from the user's config and the
// proxy's flags, and the extension when they switch it on.
import type { MirrorFlags, ProxyMirror } from "../../../core/ports/proxy-extension.ts";
import { createMirrorExtension } from "./extension.ts";
import { loadMirrorSettings, type MirrorOverrides } from "./settings.ts";

function overrides(flags: MirrorFlags): MirrorOverrides {
  const o: MirrorOverrides = {};
  if (flags.enabled !== undefined) o.enabled = flags.enabled;
  if (flags.dir) o.dir = flags.dir;
  if (flags.redact === false) o.redact = false;
  if (flags.includeThinking === false) o.includeThinking = false;
  return o;
}

export const claudeMirror: ProxyMirror = {
  start({ flags, rules, warn }) {
    const { settings } = loadMirrorSettings({ overrides: overrides(flags), warn });
    return {
      enabled: settings.enabled,
      dir: settings.dir,
      ...(settings.enabled ? { extension: createMirrorExtension(settings, { redactionRules: rules }) } : {}),
    };
  },
};
