// The one version lives in the core, where the proxy's mirror reads it too (the proxy imports no cli/).
export { VERSION } from "../core/base/version.ts";
