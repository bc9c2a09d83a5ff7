import type { Plugin } from "esbuild";

export const workspacePackages: Plugin;
