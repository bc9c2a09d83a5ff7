// HTTP: API-client collections (Postman, Insomnia, HAR, Bruno, .http files), headers as services document
// them, curl/httpie/wget invocations, and the CLIs that take a token or password as a flag.
import { type Doc, doc, J } from "./doc.ts";
import type { Values } from "./values.ts";

const pretty = (o: unknown) => JSON.stringify(o, null, "\t");

function opaque(v: Values): string {
  return v.pick([v.hex(20), v.b64url(30), v.alnum(40), `${v.alnum(8)}.${v.b64url(24)}`, v.hex(32)]);
}

export const HTTP: Doc[] = [
  doc("postman/collection-bearer", (v) =>
    pretty({
      info: {
        _postman_id: v.uuid(),
        name: "Orders API",
        schema: "https://schema.getpostman.com/json/collection/v2.1.0/collection.json",
      },
      auth: { type: "bearer", bearer: [{ key: "token", value: v.s(opaque(v)), type: "string" }] },
      item: [],
    }),
  ),
  doc("postman/collection-apikey", (v) =>
    pretty({
      info: { name: "Weather" },
      auth: {
        type: "apikey",
        apikey: [
          { key: "value", value: v.s(v.hex(16)), type: "string" },
          { key: "key", value: "X-API-Key", type: "string" },
          { key: "in", value: "header", type: "string" },
        ],
      },
    }),
  ),
  doc("postman/request-headers", (v) =>
    pretty({
      name: "List orders",
      request: {
        method: "GET",
        header: [
          { key: "Accept", value: "application/json" },
          {
            key: v.pick(["X-API-Key", "Authorization", "DD-API-KEY", "x-auth-token"]),
            value: v.s(opaque(v)),
          },
        ],
        url: { raw: "https://api.acme.io/v1/orders" },
      },
    }),
  ),
  doc("postman/environment", (v) =>
    pretty({
      id: v.uuid(),
      name: "Production",
      values: [
        { key: "baseUrl", value: "https://api.acme.io", type: "default", enabled: true },
        {
          key: v.pick(["apiKey", "token", "client_secret", "pw"]),
          value: v.s(opaque(v)),
          type: "secret",
          enabled: true,
        },
      ],
      _postman_variable_scope: "environment",
    }),
  ),
  doc("postman/basic-auth", (v) =>
    pretty({
      auth: {
        type: "basic",
        basic: [
          { key: "password", value: v.s(v.password()), type: "string" },
          { key: "username", value: v.user(), type: "string" },
        ],
      },
    }),
  ),
  doc("insomnia/export", (v) =>
    pretty({
      _type: "export",
      __export_format: 4,
      resources: [
        {
          _id: `req_${v.hex(16)}`,
          _type: "request",
          url: "https://api.acme.io/v1/me",
          method: "GET",
          headers: [{ name: v.pick(["X-Api-Key", "Authorization"]), value: v.s(opaque(v)) }],
          authentication: { type: "bearer", token: v.s(opaque(v)), prefix: "", disabled: false },
        },
      ],
    }),
  ),
  doc("insomnia/environment", (v) =>
    pretty({
      _type: "environment",
      name: "Base Environment",
      data: { base_url: "https://api.acme.io", api_key: v.s(opaque(v)) },
    }),
  ),
  doc("har/entry", (v) =>
    pretty({
      request: {
        method: "GET",
        url: "https://app.acme.io/api/session",
        headers: [
          { name: "authorization", value: `Bearer ${v.s(opaque(v))}` },
          { name: "user-agent", value: "Mozilla/5.0" },
        ],
        cookies: [
          { name: v.pick(["sid", "_session_id", "connect.sid"]), value: v.s(v.b64url(32)), httpOnly: true },
        ],
      },
    }),
  ),
  doc("bruno/bru-file", (v) =>
    v.pick([
      `meta {\n  name: List orders\n  type: http\n}\n\nget {\n  url: https://api.acme.io/v1/orders\n  auth: bearer\n}\n\nauth:bearer {\n  token: ${v.s(opaque(v))}\n}\n`,
      `headers {\n  x-api-key: ${v.s(opaque(v))}\n  accept: application/json\n}\n`,
    ]),
  ),
  doc("rest-client/http-file", (v) =>
    v.pick([
      `@baseUrl = https://api.acme.io\n@token = ${v.s(opaque(v))}\n\nGET {{baseUrl}}/v1/orders\nAuthorization: Bearer {{token}}\n`,
      `POST https://api.acme.io/v1/orders\nContent-Type: application/json\nX-Api-Key: ${v.s(opaque(v))}\n\n{"sku": "A-1"}\n`,
    ]),
  ),
  doc(
    "datadog/curl-headers",
    (v) =>
      `curl -X GET "https://api.datadoghq.com/api/v1/validate" \\\n  -H "Accept: application/json" \\\n  -H "DD-API-KEY: ${v.s(v.hex(16))}" \\\n  -H "DD-APPLICATION-KEY: ${v.s(v.hex(20))}"`,
  ),
  doc("headers/vendor-api-keys", (v) => {
    const name = v.pick([
      "X-Insert-Key",
      "X-Honeycomb-Team",
      "X-Api-Key",
      "Api-Key",
      "X-Auth-Token",
      "X-Vault-Token",
      "PRIVATE-TOKEN",
      "X-Postmark-Server-Token",
      "Ocp-Apim-Subscription-Key",
      "X-RapidAPI-Key",
      "apikey",
      "X-Goog-Api-Key",
      "X-Figma-Token",
    ]);
    return v.pick([
      `curl -s https://api.example.com/v1/events -H "${name}: ${v.s(opaque(v))}"`,
      `> GET /v1/events HTTP/2\n> Host: api.example.com\n> ${name}: ${v.s(opaque(v))}\n> accept: */*\n`,
      `fetch("https://api.example.com/v1/events", { headers: { "${name}": "${v.s(opaque(v))}" } })`,
    ]);
  }),
  doc("headers/authorization-schemes", (v) => {
    const scheme = v.pick(["Bearer", "Token", "token", "Bot", "ApiKey", "SSWS", "Key", "Splunk"]);
    return v.pick([
      `curl -H "Authorization: ${scheme} ${v.s(opaque(v))}" https://api.example.com/v2/me`,
      `requests.get(url, headers={"Authorization": "${scheme} ${v.s(opaque(v))}"})`,
      `Authorization: ${scheme} ${v.s(opaque(v))}`,
    ]);
  }),
  doc("headers/bearer-opaque-outside-header", (v) =>
    v.pick([
      `wget --header="Authorization: Bearer ${v.s(opaque(v))}" https://dl.acme.io/build.tgz`,
      `curl --oauth2-bearer ${v.s(opaque(v))} https://api.acme.io/v1/me`,
      `http GET api.acme.io/v1/me "Authorization:Bearer ${v.s(opaque(v))}"`,
    ]),
  ),
  doc("httpie/auth", (v) =>
    v.pick([
      `http -a ${v.user()}:${v.s(v.alnum(16))} GET https://api.acme.io/v1/me`,
      `https --auth ${v.user()}:${v.s(v.alnum(16))} api.acme.io/v1/me`,
      `http POST api.acme.io/v1/events x-api-key:${v.s(v.alnum(32))} name=deploy`,
    ]),
  ),
  doc("curl/user-and-forms", (v) =>
    v.pick([
      `curl -u ${v.user()}:${v.s(v.alnum(18))} https://jenkins.acme.io/job/deploy/build -X POST`,
      `curl --user '${v.user()}:${v.s(v.password().replace(/'/g, "x"))}' https://nexus.acme.io/service/rest/v1/status`,
      `curl -X POST https://auth.acme.io/oauth/token -d "grant_type=client_credentials&client_id=orders&client_secret=${v.s(v.alnum(32))}"`,
      `curl -X POST https://auth.acme.io/oauth/token -d grant_type=password -d username=ops -d password=${v.s(v.alnum(16))}`,
      `curl --proxy-user proxy:${v.s(v.alnum(14))} -x http://proxy.acme.io:3128 https://example.com`,
    ]),
  ),
  doc("wget/credentials", (v) =>
    v.pick([
      `wget --user=${v.user()} --password=${v.s(v.alnum(16))} https://files.acme.io/dump.tgz`,
      `wget --http-user=ops --http-password='${v.s(v.alnum(16))}' https://files.acme.io/a.tgz`,
    ]),
  ),
  doc("cli/token-flags", (v) =>
    v.pick([
      `terraform login app.terraform.io && tfe-cli --token ${v.s(opaque(v))} workspaces list`,
      `sentry-cli --auth-token ${v.s(v.hex(32))} releases new 1.4.2`,
      `vercel deploy --prod --token=${v.s(v.alnum(24))}`,
      `netlify deploy --prod --auth ${v.s(v.alnum(40))}`,
      `codecov -t ${v.s(v.uuid())}`,
      `snyk auth ${v.s(v.uuid())}`,
      `npx wrangler deploy --api-token ${v.s(v.alnum(40))}`,
      `gitlab-runner register --url https://gitlab.acme.io --registration-token ${v.s(v.alnum(20))}`,
      `docker login ghcr.io -u bot --password ${v.s(v.alnum(36))}`,
      `helm repo add private https://charts.acme.io --username bot --password ${v.s(v.alnum(24))}`,
      `twine upload -u __token__ -p ${v.s(v.alnum(40))} dist/*`,
      `heroku container:login --api-key=${v.s(v.uuid())}`,
      `pulumi login --access-token ${v.s(v.alnum(40))}`,
      `cf login -a https://api.cf.acme.io -u ops -p ${v.s(v.alnum(16))}`,
      `oc login https://api.ocp.acme.io:6443 --token=sha256~${v.s(v.b64url(32))}`,
      `argocd login argocd.acme.io --username admin --password ${v.s(v.alnum(16))}`,
      `gh secret set DEPLOY_KEY --body '${v.s(v.alnum(32))}'`,
    ]),
  ),
  doc("cli/piped-secrets", (v) =>
    v.pick([
      `echo "${v.s(v.alnum(32))}" | npx wrangler secret put STRIPE_KEY`,
      `printf '%s' '${v.s(v.alnum(32))}' | gh secret set API_TOKEN`,
      `echo '${v.s(v.alnum(24))}' | docker login registry.acme.io -u ci --password-stdin`,
      `echo "ops:${v.s(v.alnum(16))}" | chpasswd`,
      `echo ${v.s(v.alnum(16))} | passwd --stdin deploy`,
      `echo -n '${v.s(v.alnum(32))}' | fly secrets import`,
    ]),
  ),
  doc("java/system-properties", (v) =>
    v.pick([
      `mvn deploy -Dusername=ci -Dpassword=${v.s(v.alnum(16))}`,
      `java -Dspring.datasource.password=${v.s(v.alnum(18))} -jar orders.jar`,
      `./gradlew publish -PossrhPassword=${v.s(v.alnum(18))} -PsigningKeyPassphrase=${v.s(v.alnum(18))}`,
      `spark-submit --conf spark.hadoop.fs.s3a.secret.key=${v.s(v.awsSecret())} job.py`,
    ]),
  ),
  doc("registry/npmrc-pypirc", (v) =>
    v.pick([
      `//npm.pkg.github.com/:_authToken=${v.s(v.alnum(36))}\n@acme:registry=https://npm.pkg.github.com\n`,
      `npm config set //registry.acme.io/:_authToken ${v.s(v.uuid())}`,
      `[distutils]\nindex-servers = private\n\n[private]\nrepository = https://pypi.acme.io/\nusername = ci\npassword = ${v.s(v.alnum(20))}\n`,
      `pip install --index-url https://ci:${v.s(v.alnum(20))}@pypi.acme.io/simple orders-sdk`,
      `poetry config http-basic.acme ci ${v.s(v.alnum(20))}`,
      `bundle config set --global rubygems.acme.io ci:${v.s(v.alnum(20))}`,
    ]),
  ),
  doc("git/credentials", (v) =>
    v.pick([
      `git clone https://oauth2:${v.s(v.alnum(20))}@gitlab.acme.io/orders/api.git`,
      `$ git remote -v\norigin\thttps://ci-bot:${v.s(v.alnum(40))}@bitbucket.org/acme/api.git (fetch)`,
      `protocol=https\nhost=github.com\nusername=ci-bot\npassword=${v.s(v.alnum(40))}\n`,
    ]),
  ),
  doc("twilio/sdk-positional", (v) =>
    v.pick([
      `client = Client("AC${v.hex(16)}", "${v.s(v.hex(16))}")`,
      `const client = require('twilio')('AC${v.hex(16)}', '${v.s(v.hex(16))}');`,
      `TWILIO_ACCOUNT_SID=AC${v.hex(16)}\nTWILIO_AUTH_TOKEN=${v.s(v.hex(16))}\n`,
    ]),
  ),
  doc("algolia/sdk-positional", (v) =>
    v.pick([
      `const client = algoliasearch("${v.chars("ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789", 10)}", "${v.s(v.hex(16))}");`,
      `client = SearchClient.create("${v.chars("ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789", 10)}", "${v.s(v.hex(16))}")`,
    ]),
  ),
  doc("http-basic/code", (v) =>
    v.pick([
      `r = requests.get(url, auth=("${v.user()}", "${v.s(v.alnum(16))}"))`,
      `r = requests.get(url, auth=HTTPBasicAuth("${v.user()}", "${v.s(v.alnum(16))}"))`,
      `var cred = new NetworkCredential("${v.user()}", "${v.s(v.alnum(16))}");`,
      `req.SetBasicAuth("${v.user()}", "${v.s(v.alnum(16))}")`,
      `async with aiohttp.ClientSession(auth=aiohttp.BasicAuth("${v.user()}", "${v.s(v.alnum(16))}")) as s:`,
    ]),
  ),
  doc(
    "sentry/auth-header",
    (v) =>
      `X-Sentry-Auth: Sentry sentry_version=7, sentry_client=raven-python/6.10, sentry_key=${v.s(v.hex(16))}, sentry_secret=${v.s(v.hex(16))}`,
  ),
  doc("provider-tokens/in-json-output", (v) =>
    v.pick([
      pretty({
        token: v.s(J("gh", "s_") + v.alnum(36), "ghs_"),
        expires_at: v.date(),
        permissions: { contents: "read" },
      }),
      pretty({
        access_token: v.s(v.jwt({ scope: "openid" })),
        token_type: "Bearer",
        expires_in: 3600,
        refresh_token: v.s(v.b64url(48)),
      }),
      pretty({ id: "tok_1", object: "token", secret: v.s(J("sk", "_live_") + v.alnum(24), "sk_live_") }),
    ]),
  ),
];
