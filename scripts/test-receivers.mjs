#!/usr/bin/env node
// The real OpenTelemetry receivers and Inspect AI that the e2e tests run tapedeck's exports into, installed
// from the registries into a cache outside the checkout (TAPEDECK_TEST_CACHE, default ~/.cache/tapedeck-test),
// each keyed by its pinned version and platform so that a second run reuses it:
// - Arize Phoenix (PyPI arize-phoenix) and Inspect AI (PyPI inspect-ai, with inspect-swe, which the
//   exported task imports), each in its own venv of Python >= 3.10 (TAPEDECK_TEST_PYTHON, else python3.11,
//   else python3);
// - Jaeger v2 (the Go module github.com/jaegertracing/jaeger, its cmd/jaeger), built by `go build` in a
//   scratch module;
// - an OpenTelemetry Collector built by the collector's own builder (go.opentelemetry.io/collector/cmd/
//   builder) from the collector's Go modules, all of one release: the OTLP receiver, the debug, file and
//   OTLP/HTTP exporters.
// The Go builds use a module and build cache inside the same cache (GOMODCACHE, GOCACHE there), so nothing of
// the user's Go setup is touched and removing the cache removes all of it. Nothing here is a dependency of
// tapedeck. Prints {"phoenix", "inspect", "jaeger", "otelcol"} as JSON on stdout; progress (with the
// time each install took) goes to stderr. `node scripts/test-receivers.mjs phoenix jaeger` installs only
// those. Linux and macOS.
import { execFileSync } from "node:child_process";
import {
  closeSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";

export const VERSIONS = {
  phoenix: "20.26.1",
  inspect: "0.3.285",
  inspectSwe: "0.2.72",
  jaeger: "v1.75.0",
  // The collector's modules at one release: fileexporter (contrib) builds at v0.161.0 only here, so the
  // core modules and the builder are taken at the same release.
  collector: "v0.161.0",
};

const say = (line) => process.stderr.write(`test-receivers: ${line}\n`);
const cache =
  process.env.TAPEDECK_TEST_CACHE ||
  join(process.env.XDG_CACHE_HOME || join(homedir(), ".cache"), "tapedeck-test");
const platform = `${process.platform}-${process.arch}`;

function fail(message) {
  say(message);
  process.exit(1);
}

/**
 * Runs a step of an install and says how long it took; its own output (go's hundreds of "downloading"
 * lines) goes to a log beside the install, shown when the step fails.
 */
function step(what, file, args, options = {}) {
  const t0 = Date.now();
  say(`${what} ...`);
  const log = join(cache, ".install.log");
  const fd = openSync(log, "w", 0o600);
  try {
    execFileSync(file, args, { stdio: ["ignore", fd, fd], ...options });
  } catch (error) {
    closeSync(fd);
    process.stderr.write(readFileSync(log, "utf8").slice(-8000));
    throw error;
  }
  closeSync(fd);
  say(`${what}: ${Math.round((Date.now() - t0) / 1000)} s`);
}

/** Installs into a temporary directory beside `dir`, then renames it into place: a half install is never used. */
function installOnce(dir, what, build) {
  if (existsSync(join(dir, "ready"))) return;
  mkdirSync(cache, { recursive: true, mode: 0o700 });
  const tmp = mkdtempSync(join(cache, ".install-"));
  const t0 = Date.now();
  say(`installing ${what} into ${dir} (once; later runs reuse it)`);
  try {
    build(tmp);
    writeFileSync(join(tmp, "ready"), `${new Date().toISOString()}\n`);
    try {
      renameSync(tmp, dir);
    } catch (error) {
      // Another run finished first: its install is the same one.
      if (!existsSync(join(dir, "ready"))) throw error;
      rmSync(tmp, { recursive: true, force: true });
    }
  } catch (error) {
    rmSync(tmp, { recursive: true, force: true });
    fail(`installing ${what} failed: ${error.message}`);
  }
  say(`${what} installed in ${Math.round((Date.now() - t0) / 1000)} s`);
}

function python() {
  const candidates = [process.env.TAPEDECK_TEST_PYTHON, "python3.11", "python3"].filter(Boolean);
  for (const bin of candidates) {
    try {
      const v = execFileSync(bin, ["-c", "import sys; print('%d.%d' % sys.version_info[:2])"], {
        encoding: "utf8",
        stdio: ["ignore", "pipe", "ignore"],
      }).trim();
      const [major, minor] = v.split(".").map(Number);
      if (major === 3 && minor >= 10 && minor <= 13) return { bin, v };
    } catch {
      // not there: the next one
    }
  }
  return fail("Phoenix and Inspect need Python 3.10 to 3.13 with venv and pip: set TAPEDECK_TEST_PYTHON");
}

/** A venv with these PyPI packages; answers its python. Rebuilt venvs use absolute paths: made in place. */
function venv(name, packages) {
  const py = python();
  const dir = join(cache, `${name}-py${py.v}-${platform}`);
  const bin = join(dir, "venv", "bin");
  installOnce(dir, `${packages.join(" ")} (PyPI)`, (tmp) => {
    // A venv records its own path: it is made where it stays, under the temporary name's final place.
    step("python -m venv", py.bin, ["-m", "venv", join(tmp, "venv")]);
    const pip = join(tmp, "venv", "bin", "pip");
    step(`pip install ${packages.join(" ")}`, pip, [
      "install",
      "--quiet",
      "--disable-pip-version-check",
      "--no-input",
      ...packages,
    ]);
  });
  return { dir, python: join(bin, "python"), bin };
}

/** The Go environment of the builds: their own module and build caches, the module proxy as configured. */
function goEnv() {
  try {
    execFileSync("go", ["version"], { stdio: "ignore" });
  } catch {
    fail("Jaeger and the Collector are built with Go: install Go (1.24 or newer)");
  }
  return {
    ...process.env,
    GOMODCACHE: join(cache, "go", "mod"),
    GOCACHE: join(cache, "go", "build"),
    GOFLAGS: "-modcacherw",
    CGO_ENABLED: "0",
    GOWORK: "off",
  };
}

function jaeger() {
  const dir = join(cache, `jaeger-${VERSIONS.jaeger}-${platform}`);
  installOnce(dir, `Jaeger ${VERSIONS.jaeger} (Go module github.com/jaegertracing/jaeger)`, (tmp) => {
    const env = goEnv();
    const mod = join(tmp, "src");
    mkdirSync(mod);
    step("go mod init", "go", ["mod", "init", "tapedeck.test/jaeger"], { cwd: mod, env });
    step(
      `go get -tool jaeger ${VERSIONS.jaeger}`,
      "go",
      ["get", "-tool", `github.com/jaegertracing/jaeger/cmd/jaeger@${VERSIONS.jaeger}`],
      {
        cwd: mod,
        env,
      },
    );
    step(
      "go build jaeger",
      "go",
      ["build", "-trimpath", "-o", join(tmp, "jaeger"), "github.com/jaegertracing/jaeger/cmd/jaeger"],
      {
        cwd: mod,
        env,
      },
    );
    rmSync(mod, { recursive: true, force: true });
  });
  return join(dir, "jaeger");
}

function otelcol() {
  const v = VERSIONS.collector;
  const dir = join(cache, `otelcol-${v}-${platform}`);
  installOnce(dir, `an OpenTelemetry Collector ${v} (the collector's builder and Go modules)`, (tmp) => {
    const env = goEnv();
    const core = "go.opentelemetry.io/collector";
    const contrib = "github.com/open-telemetry/opentelemetry-collector-contrib";
    const manifest = [
      "dist:",
      "  name: otelcol-tapedeck-test",
      "  description: OpenTelemetry Collector for tapedeck's tests",
      `  output_path: ${join(tmp, "build")}`,
      "receivers:",
      `  - gomod: ${core}/receiver/otlpreceiver ${v}`,
      "exporters:",
      `  - gomod: ${core}/exporter/debugexporter ${v}`,
      `  - gomod: ${core}/exporter/otlphttpexporter ${v}`,
      `  - gomod: ${contrib}/exporter/fileexporter ${v}`,
      "",
    ].join("\n");
    writeFileSync(join(tmp, "builder.yaml"), manifest);
    step(
      `collector builder ${v}`,
      "go",
      ["run", `${core}/cmd/builder@${v}`, "--config", join(tmp, "builder.yaml")],
      {
        cwd: tmp,
        env,
      },
    );
    renameSync(join(tmp, "build", "otelcol-tapedeck-test"), join(tmp, "otelcol"));
    rmSync(join(tmp, "build"), { recursive: true, force: true });
  });
  return join(dir, "otelcol");
}

const ALL = ["phoenix", "inspect", "jaeger", "otelcol"];

function main() {
  const asked = process.argv.slice(2);
  const unknown = asked.filter((a) => !ALL.includes(a));
  if (unknown.length > 0) fail(`unknown: ${unknown.join(", ")} (one of ${ALL.join(", ")})`);
  const want = new Set(asked.length > 0 ? asked : ALL);
  const out = {};
  if (want.has("phoenix"))
    out.phoenix = {
      ...venv(`phoenix-${VERSIONS.phoenix}`, [`arize-phoenix==${VERSIONS.phoenix}`]),
      version: VERSIONS.phoenix,
    };
  if (want.has("inspect"))
    out.inspect = {
      ...venv(`inspect-${VERSIONS.inspect}-swe-${VERSIONS.inspectSwe}`, [
        `inspect-ai==${VERSIONS.inspect}`,
        `inspect-swe==${VERSIONS.inspectSwe}`,
      ]),
      version: VERSIONS.inspect,
    };
  if (want.has("jaeger")) out.jaeger = { bin: jaeger(), version: VERSIONS.jaeger };
  if (want.has("otelcol")) out.otelcol = { bin: otelcol(), version: VERSIONS.collector };
  process.stdout.write(`${JSON.stringify(out)}\n`);
}

main();
