// The seeded generator the redaction package's tests use, for the app's tests that draw cases the same way.
export * from "../../packages/redact/test/random.ts";
