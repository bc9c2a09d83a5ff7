// A usage report asked for something it cannot be: an unknown report, time zone, date or provider. The CLI
// answers it as a usage error (exit 2), the viewer as a 400.
export class UsageQueryError extends Error {}
