/** tapedeck's version, as `tapedeck --version` and the MCP server report it. */
export const VERSION = "0.1.0";
