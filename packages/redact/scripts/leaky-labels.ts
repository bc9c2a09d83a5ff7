// Labels for the public leaky-repo benchmark (github.com/Plazmaz/leaky-repo, MIT), scored by
// packages/redact/scripts/leaky.ts. They say WHERE each planted secret is, never what it is: a 1-based line and a
// regex of its context whose group 1 is the value, or a range of whole lines (a key file's body).
//
// Method (docs/redaction.md, "Measured on leaky-repo"): one risk label per value that grants access or
// cracks to a password (a password, a token, an API or signing key, a private key's body, a password hash,
// a credential store's encrypted fields, which its key4.db beside it decrypts), one per line where it
// is repeated; the files' own `# Risk` / `<!-- Risk -->` comments and the comments of .leaky-meta/secrets.csv
// decide where they exist. User names, hosts, e-mail addresses, key ids, timestamps and public keys are
// informative: not counted as damage when redacted (reported apart). Armour is a key file's framing
// (BEGIN/END lines, PuTTY's headers and MAC). Every other line is clean, and a clean line that changes at
// all is damage. secrets.csv counts 96 risk lines, some of them lines its own files mark informative; the
// 88 here follow the files' marks.

export type RiskLabel =
  /** The value is group 1 of `re` on the line. */
  | { line: number; re: string }
  /** Whole lines `from`..`to` (a key's body), blanks excepted. */
  | { from: number; to: number };

export interface FileLabels {
  risk: RiskLabel[];
  informative?: number[];
  armour?: number[];
}

const SQ = "'([^']+)'";
const DQ = '"([^"]+)"';

/** `"key": "value"` (any spacing), the JSON shape of most of these files. */
function json(line: number, key: string): RiskLabel {
  return { line, re: `"${key}"\\s*:\\s*${DQ}` };
}

export const LEAKY_LABELS: Record<string, FileLabels> = {
  ".bash_profile": {
    risk: [
      { line: 12, re: String.raw`AWS_SECRET_ACCESS_KEY=(\S+)` },
      { line: 20, re: `RDS_PASSWORD=${SQ}` },
      { line: 21, re: `HEROKU_API_KEY=${SQ}` },
      { line: 22, re: `HOMEBREW_GITHUB_API_TOKEN=${SQ}` },
      { line: 23, re: `SLACK_API_TOKEN=${SQ}` },
      { line: 24, re: `MLAB_PASS=${SQ}` },
    ],
    informative: [11, 18, 19, 25, 26],
  },
  ".bashrc": {
    risk: [
      { line: 105, re: `GMAIL_PASSWORD=${DQ}` },
      { line: 106, re: `MAILCHIMP_API_KEY=${DQ}` },
      { line: 109, re: `JEKYLL_GITHUB_TOKEN=${DQ}` },
    ],
    informative: [104, 107, 108],
  },
  ".docker/.dockercfg": { risk: [json(4, "auth"), json(8, "auth")], informative: [3, 7] },
  ".docker/config.json": { risk: [json(5, "auth"), json(9, "auth")], informative: [4, 8] },
  ".esmtprc": { risk: [{ line: 4, re: `password\\s+${DQ}` }], informative: [1, 2, 3] },
  ".ftpconfig": { risk: [json(6, "pass"), json(12, "passphrase")], informative: [3, 5] },
  // The password of a URL whose user part holds an `@`: from the authority's colon to its last `@`.
  ".git-credentials": { risk: [{ line: 1, re: "^https://[^:]+:(.+)@[^@]+$" }] },
  ".idea/WebServers.xml": { risk: [{ line: 6, re: `password=${DQ}` }], informative: [5] },
  ".mozilla/firefox/logins.json": {
    risk: [11, 12, 27, 28, 43, 44, 59, 60].map((line) =>
      json(line, line % 16 === 11 ? "encryptedUsername" : "encryptedPassword"),
    ),
    informative: [6, 15, 16, 17, 18, 22, 31, 32, 33, 34, 38, 47, 48, 49, 50, 54, 63, 64, 65, 66],
  },
  ".netrc": {
    risk: [
      { line: 1, re: String.raw`password\s+(\S+)` },
      { line: 2, re: String.raw`password\s+(\S+)` },
    ],
  },
  ".npmrc": {
    risk: [
      { line: 7, re: String.raw`_auth\s*=\s*(\S+)` },
      { line: 9, re: String.raw`:_authToken=(\S+)` },
    ],
    informative: [5],
  },
  ".remote-sync.json": { risk: [json(17, "password")], informative: [9, 16] },
  ".ssh/id_rsa": { risk: [{ from: 2, to: 26 }], armour: [1, 27] },
  ".ssh/id_rsa.pub": { risk: [], informative: [1] },
  ".vscode/sftp.json": { risk: [json(6, "password")], informative: [3, 4, 5] },
  "cloud/.credentials": {
    risk: [
      { line: 4, re: String.raw`aws_secret_access_key = (\S+)` },
      { line: 7, re: String.raw`aws_secret_access_key = (\S+)` },
    ],
    informative: [3, 6],
  },
  // Its own comments mark `secret_key` sensitive and `access_key` informative.
  "cloud/.s3cfg": { risk: [{ line: 1, re: String.raw`secret_key = (\S+)` }], informative: [2, 4] },
  "cloud/.tugboat": { risk: [{ line: 4, re: String.raw`api_key: (\S+)` }], informative: [3, 6] },
  "cloud/heroku.json": { risk: [json(4, "HEROKU_API_KEY")], informative: [3] },
  config: { risk: [{ line: 10, re: String.raw`IRC_PASS=(\S+)` }], informative: [3, 5, 8] },
  "db/.pgpass": { risk: [{ line: 2, re: String.raw`^[^:]+:[0-9]+:[^:]+:[^:]+:(\S+)$` }] },
  "db/dbeaver-data-sources.xml": { risk: [{ line: 4, re: `password=${DQ}` }] },
  "db/dump.sql": {
    risk: [32, 33, 34, 35, 36, 37, 38, 39, 40, 41].map((line) => ({
      line,
      re: String.raw`'\$2y\$[0-9]+\$([^']+)'`,
    })),
  },
  "db/mongoid.yml": { risk: [{ line: 4, re: "mongodb://[^:]+:([^@]+)@" }] },
  "db/robomongo.json": {
    risk: [json(14, "userPassword"), json(22, "sshPassphrase"), json(27, "sshUserPassword")],
    informative: [13, 18, 21, 26],
  },
  "deployment-config.json": { risk: [json(5, "password")], informative: [3, 4, 7] },
  // The hash field of a shadow line.
  "etc/shadow": { risk: [{ line: 20, re: String.raw`^[^:]+:\$6\$([^:]+):` }] },
  "filezilla/filezilla.xml": { risk: [{ line: 13, re: "<Pass>([^<]+)</Pass>" }], informative: [6, 11] },
  "filezilla/recentservers.xml": {
    risk: [
      { line: 13, re: "<Pass[^>]*>([^<]+)</Pass>" },
      { line: 30, re: "<Pass[^>]*>([^<]+)</Pass>" },
    ],
    informative: [6, 11, 23, 28],
  },
  "high-entropy-misc.txt": { risk: [], informative: [1, 2] },
  hub: { risk: [{ line: 4, re: `oauth_token: ${DQ}` }], informative: [3] },
  "misc-keys/cert-key.pem": { risk: [{ from: 2, to: 27 }], armour: [1, 28] },
  // Public-Lines hold the public key; Private-Lines the private one.
  "misc-keys/putty-example.ppk": {
    risk: [{ from: 12, to: 25 }],
    informative: [4, 5, 6, 7, 8, 9, 10],
    armour: [1, 2, 3, 11, 26],
  },
  proftpdpasswd: { risk: [{ line: 1, re: String.raw`^[^:]+:\$6\$([^:]+):` }] },
  "sftp-config.json": { risk: [json(15, "password")], informative: [13, 14] },
  "ventrilo_srv.ini": {
    risk: [
      { line: 7, re: String.raw`AdminPassword=(\S+)` },
      { line: 8, re: String.raw`^Password=(\S+)` },
    ],
  },
  "web/django/settings.py": { risk: [{ line: 24, re: `SECRET_KEY = ${SQ}` }] },
  "web/js/salesforce.js": { risk: [{ line: 7, re: `login\\('[^']+', ${SQ}` }] },
  "web/ruby/config/master.key": { risk: [{ line: 1, re: "^([0-9a-f]+)$" }] },
  "web/ruby/secrets.yml": {
    risk: [14, 17, 22].map((line) => ({ line, re: String.raw`secret_key_base: (\S+)` })),
  },
  "web/var/www/.env": {
    risk: [
      { line: 5, re: String.raw`APP_KEY=(\S+)` },
      { line: 14, re: String.raw`DB_PASSWORD=(\S+)` },
      { line: 23, re: String.raw`REDIS_PASSWORD=(\S+)` },
      { line: 33, re: String.raw`MAIL_PASSWORD=(\S+)` },
    ],
    informative: [8, 10, 12, 21, 28, 31],
  },
  "web/var/www/public_html/.htpasswd": { risk: [{ line: 1, re: String.raw`^[^:]+:\$apr1\$(\S+)$` }] },
  "web/var/www/public_html/config.php": {
    risk: [{ line: 11, re: String.raw`\$dbpasswd = ${SQ}` }],
    informative: [4, 7, 9],
  },
  "web/var/www/public_html/wp-config.php": {
    risk: [
      { line: 20, re: `'DB_PASSWORD',\\s*${SQ}` },
      ...[33, 35, 37, 39, 41, 43, 45, 47].map((line) => ({ line, re: `define\\('[A-Z_]+',\\s*${SQ}` })),
    ],
    informative: [16, 18, 22],
  },
};
