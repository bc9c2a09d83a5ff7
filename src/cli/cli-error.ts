// The class and the exit codes live in the core, which throws them too (a bad config.json); the CLI's name stays.
export { EXIT, UserError as CliError } from "../core/base/user-error.ts";
