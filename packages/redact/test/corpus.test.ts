// Both redaction corpora scored in the terms of issue 12: the generated one (packages/redact/scripts/corpus.ts,
// credential kinds crossed with contexts) and the documented-formats one (packages/redact/scripts/corpus-docs.ts,
// whole documents as the tools print them, written before the issue-26 rules and not tuned on). Floors,
// not targets: a change that loses recall or damages a look-alike fails here with the kinds named.
import { describe, expect, it } from "vitest";
import { buildRedactionCorpus } from "../scripts/corpus.ts";
import { buildDocsCorpus } from "../scripts/corpus-docs.ts";
import { type Score, scoreCorpus } from "../scripts/score.ts";

const RECALL_FLOOR = 0.99;
const FALSE_POSITIVE_CEILING = 0.005;

// The kinds issue 12 found missed, each of which must now be caught in every generated case.
const ISSUE_KINDS = [
  "discord_webhook",
  "netrc",
  "pgpass",
  "maven_settings",
  "nuget_config",
  "tomcat_users",
  "heroku_api_key",
  "heroku_legacy_uuid",
  "docker_hub_pat",
  "doppler_personal",
  "doppler_service",
  "json_escaped_secret",
  "datadog_api_key",
  "datadog_app_key",
  "kubeconfig_token",
  "kubeconfig_client_key",
  "kubeconfig_password",
  "k8s_secret_data",
  "k8s_secret_json",
  "cli_flag_secret",
  "bearer_opaque",
  "postman_bearer",
  "azure_ad_client_secret",
  "docker_config_auth",
  "azure_storage_connection",
  "gcp_service_account",
  "gcp_service_account_base64",
  "sourcegraph",
  "curl_basic_user",
  "vercel",
  "aws_configure_set",
  "azure_sas",
  "framework_secret",
  "sentry_dsn",
  "supabase_secret",
  "supabase_service_role",
  "telegram_bot",
  "yaml_secret_field",
  "nested_json",
  "env_file",
  "cookie_header",
  "connection_url",
  "split_concat_code",
  "split_array_parts",
  "split_stream_deltas",
  "split_wrapped_line",
  "split_shell_vars",
  "putty_private_key",
  "openssh_private_key",
];

describe("redaction corpus", () => {
  const corpus = buildRedactionCorpus();
  const score = scoreCorpus(corpus);

  it("is broad: well over 150 credential kinds and a dozen look-alike categories", () => {
    expect(Object.keys(score.perKind).length).toBeGreaterThanOrEqual(150);
    expect(Object.keys(score.perCategory).length).toBeGreaterThanOrEqual(12);
    expect(score.cases).toBeGreaterThan(1000);
  });

  it("is generated the same way every time", () => {
    const again = buildRedactionCorpus();
    expect(again.positives.map((p) => p.text)).toEqual(corpus.positives.map((p) => p.text));
  });

  it(`keeps recall at or above ${RECALL_FLOOR}`, () => {
    const missed = Object.entries(score.perKind)
      .filter(([, v]) => v.caught < v.total)
      .map(([k, v]) => `${k} ${v.caught}/${v.total}`);
    expect(score.recall, `missed: ${missed.join(", ")}`).toBeGreaterThanOrEqual(RECALL_FLOOR);
  });

  it(`damages at most ${FALSE_POSITIVE_CEILING * 100}% of the look-alikes`, () => {
    const damaged = Object.entries(score.perCategory)
      .filter(([, v]) => v.damaged > 0)
      .map(([k, v]) => `${k} ${v.damaged}/${v.total}`);
    expect(score.falsePositiveRate, `damaged: ${damaged.join(", ")}`).toBeLessThanOrEqual(
      FALSE_POSITIVE_CEILING,
    );
  });

  it("catches every case of the kinds issue 12 listed as missed", () => {
    const short = ISSUE_KINDS.filter((k) => {
      const v = score.perKind[k];
      return v === undefined || v.caught < v.total;
    });
    expect(short).toEqual([]);
  });
});

function missed(score: Score): string {
  return Object.entries(score.perKind)
    .filter(([, v]) => v.caught < v.total)
    .map(([k, v]) => `${k} ${v.caught}/${v.total}`)
    .join(", ");
}
function damaged(score: Score): string {
  return Object.entries(score.perCategory)
    .filter(([, v]) => v.damaged > 0)
    .map(([k, v]) => `${k} ${v.damaged}/${v.total}`)
    .join(", ");
}

// The shapes issue 26 found leaking on a held-out corpus, as formats of the documented corpus: every
// case of each must be caught.
const ISSUE_26_FORMATS = [
  "aws/bare-secret-on-stdout",
  "aws/key-pair-on-one-line",
  "aws/console-credentials-csv",
  "aws/iam-create-access-key-text",
  "aws/sdk-positional-credentials",
  "postman/collection-bearer",
  "postman/request-headers",
  "insomnia/export",
  "azure/storage-show-connection-string",
  "azure/storage-keys-list-json",
  "k8s/get-secret-decoded-jq",
  "k8s/get-secret-go-template",
  "postgres/pgpass",
  "php/define-and-env",
  "wordpress/wp-config",
  "dump/python-repr",
  "dump/node-inspect",
  "encoding/json-in-json",
  "encoding/go-quoted",
  "code/split-provider-token",
  "code/concatenated-literals",
  "datadog/curl-headers",
  "curl/user-and-forms",
  "headers/authorization-schemes",
  "headers/bearer-opaque-outside-header",
  "mysql/cli-password-flag",
];

describe("documented-formats redaction corpus", () => {
  const corpus = buildDocsCorpus();
  const score = scoreCorpus(corpus);

  it("is broad: over a hundred formats, look-alikes of every kind the issue names", () => {
    expect(Object.keys(score.perKind).length).toBeGreaterThanOrEqual(120);
    expect(Object.keys(score.perCategory)).toEqual(
      expect.arrayContaining([
        "env_example",
        "env_lookup",
        "cli_help",
        "masked",
        "hash_or_id",
        "encoded_blob",
      ]),
    );
    expect(score.cases).toBeGreaterThan(500);
    expect(score.lookalikes).toBeGreaterThan(150);
  });

  it("is generated the same way every time", () => {
    expect(buildDocsCorpus().positives.map((p) => p.text)).toEqual(corpus.positives.map((p) => p.text));
  });

  it(`keeps recall at or above ${RECALL_FLOOR}`, () => {
    expect(score.recall, `missed: ${missed(score)}`).toBeGreaterThanOrEqual(RECALL_FLOOR);
  });

  it(`damages at most ${FALSE_POSITIVE_CEILING * 100}% of the look-alikes`, () => {
    expect(score.falsePositiveRate, `damaged: ${damaged(score)}`).toBeLessThanOrEqual(FALSE_POSITIVE_CEILING);
  });

  it("catches every case of the formats issue 26 listed as leaking", () => {
    const short = ISSUE_26_FORMATS.filter((k) => {
      const v = score.perKind[k];
      return v === undefined || v.caught < v.total;
    });
    expect(short).toEqual([]);
  });

  it("holds on fresh values: the same formats from other seeds", () => {
    for (const seed of ["held-out-1", "held-out-2"]) {
      const s = scoreCorpus(buildDocsCorpus(seed));
      expect(s.recall, `${seed} missed: ${missed(s)}`).toBeGreaterThanOrEqual(RECALL_FLOOR);
      expect(s.falsePositiveRate, `${seed} damaged: ${damaged(s)}`).toBeLessThanOrEqual(
        FALSE_POSITIVE_CEILING,
      );
    }
  });
});
