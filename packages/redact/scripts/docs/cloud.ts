// Cloud CLIs and SDKs: the output and files of AWS, Azure, Google Cloud and Kubernetes as their
// documentation shows them, with fresh values.
import { type Doc, doc } from "./doc.ts";

const json = (o: unknown) => JSON.stringify(o, null, 4);

export const CLOUD: Doc[] = [
  // --- AWS
  doc("aws/credentials-file", (v) => {
    const lines = [`[default]`, `aws_access_key_id = ${v.s(v.awsKeyId())}`];
    lines.push(`aws_secret_access_key = ${v.s(v.awsSecret())}`, "", "[prod]");
    lines.push(`aws_access_key_id=${v.s(v.awsKeyId())}`, `aws_secret_access_key=${v.s(v.awsSecret())}`);
    return `$ cat ~/.aws/credentials\n${lines.join("\n")}\n`;
  }),
  doc("aws/console-credentials-csv", (v) =>
    v.pick([
      `Access key ID,Secret access key\n${v.s(v.awsKeyId())},${v.s(v.awsSecret())}\n`,
      `User name,Password,Access key ID,Secret access key,Console login link\nci-deployer,,${v.s(v.awsKeyId())},${v.s(v.awsSecret())},https://${v.digits(12)}.signin.aws.amazon.com/console\n`,
    ]),
  ),
  doc("aws/iam-create-access-key-json", (v) =>
    json({
      AccessKey: {
        UserName: v.user(),
        AccessKeyId: v.s(v.awsKeyId()),
        Status: "Active",
        SecretAccessKey: v.s(v.awsSecret()),
        CreateDate: v.date(),
      },
    }),
  ),
  doc(
    "aws/iam-create-access-key-text",
    (v) => `ACCESSKEY\t${v.s(v.awsKeyId())}\t${v.date()}\t${v.s(v.awsSecret())}\tActive\t${v.user()}\n`,
  ),
  doc("aws/sts-assume-role-json", (v) =>
    json({
      AssumedRoleUser: {
        AssumedRoleId: `AROA${v.digits(4)}EXAMPLE:s3-access`,
        Arn: `arn:aws:sts::${v.digits(12)}:assumed-role/xaccounts3access/s3-access`,
      },
      Credentials: {
        SecretAccessKey: v.s(v.awsSecret()),
        SessionToken: v.s(v.awsSessionToken()),
        Expiration: v.date(),
        AccessKeyId: v.s(v.awsKeyId("ASIA")),
      },
    }),
  ),
  doc(
    "aws/sts-get-session-token-text",
    (v) =>
      `CREDENTIALS\t${v.s(v.awsKeyId("ASIA"))}\t${v.date()}\t${v.s(v.awsSecret())}\t${v.s(v.awsSessionToken())}\n`,
  ),
  doc(
    "aws/sts-query-credentials-text",
    (v) =>
      `$ aws sts assume-role --role-arn arn:aws:iam::${v.digits(12)}:role/deploy --role-session-name ci --query "Credentials.[AccessKeyId,SecretAccessKey,SessionToken]" --output text\n${v.s(v.awsKeyId("ASIA"))}\t${v.s(v.awsSecret())}\t${v.s(v.awsSessionToken())}\n`,
  ),
  doc("aws/configure-get-secret", (v) =>
    v.pick([
      `$ aws configure get aws_secret_access_key\n${v.s(v.awsSecret())}\n`,
      JSON.stringify({
        tool_name: "Bash",
        tool_input: { command: "aws configure get aws_secret_access_key --profile prod" },
        tool_response: { stdout: `${v.s(v.awsSecret())}\n`, stderr: "", interrupted: false },
      }),
    ]),
  ),
  doc("aws/bare-secret-on-stdout", (v) => `${v.s(v.awsSecret())}\n`),
  doc("aws/key-pair-on-one-line", (v) =>
    v.pick([
      `${v.s(v.awsKeyId())} ${v.s(v.awsSecret())}`,
      `prod  ${v.s(v.awsKeyId())}  ${v.s(v.awsSecret())}\nstaging  ${v.s(v.awsKeyId())}  ${v.s(v.awsSecret())}\n`,
      `${v.s(v.awsKeyId())}:${v.s(v.awsSecret())}`,
    ]),
  ),
  doc("aws/configure-interactive", (v) => {
    const id = v.s(v.awsKeyId());
    return `$ aws configure\nAWS Access Key ID [None]: ${id}\nAWS Secret Access Key [None]: ${v.s(v.awsSecret())}\nDefault region name [None]: eu-west-1\nDefault output format [None]: json\n`;
  }),
  doc("aws/export-credentials-env", (v) => {
    const lines = [
      `export AWS_ACCESS_KEY_ID=${v.s(v.awsKeyId("ASIA"))}`,
      `export AWS_SECRET_ACCESS_KEY=${v.s(v.awsSecret())}`,
      `export AWS_SESSION_TOKEN=${v.s(v.awsSessionToken())}`,
      `export AWS_CREDENTIAL_EXPIRATION=${v.date()}`,
    ];
    return `$ aws configure export-credentials --format env\n${lines.join("\n")}\n`;
  }),
  doc("aws/export-credentials-process", (v) =>
    json({
      Version: 1,
      AccessKeyId: v.s(v.awsKeyId("ASIA")),
      SecretAccessKey: v.s(v.awsSecret()),
      SessionToken: v.s(v.awsSessionToken()),
      Expiration: v.date(),
    }),
  ),
  doc(
    "aws/boto3-client",
    (v) =>
      `import boto3\n\ns3 = boto3.client(\n    "s3",\n    aws_access_key_id="${v.s(v.awsKeyId())}",\n    aws_secret_access_key="${v.s(v.awsSecret())}",\n    region_name="us-east-1",\n)\n`,
  ),
  doc("aws/sdk-positional-credentials", (v) =>
    v.pick([
      `AWSCredentials credentials = new BasicAWSCredentials("${v.s(v.awsKeyId())}", "${v.s(v.awsSecret())}");`,
      `sess := session.Must(session.NewSession(&aws.Config{\n\tCredentials: credentials.NewStaticCredentials("${v.s(v.awsKeyId())}", "${v.s(v.awsSecret())}", ""),\n}))`,
      `const creds = new AWS.Credentials('${v.s(v.awsKeyId())}', '${v.s(v.awsSecret())}');`,
    ]),
  ),
  doc(
    "aws/js-sdk-v3-config",
    (v) =>
      `const client = new S3Client({\n  region: "us-east-1",\n  credentials: {\n    accessKeyId: "${v.s(v.awsKeyId())}",\n    secretAccessKey: "${v.s(v.awsSecret())}",\n  },\n});`,
  ),
  doc(
    "aws/terraform-provider",
    (v) =>
      `provider "aws" {\n  region     = "us-west-2"\n  access_key = "${v.s(v.awsKeyId())}"\n  secret_key = "${v.s(v.awsSecret())}"\n}\n`,
  ),
  doc(
    "aws/s3cmd-config",
    (v) =>
      `[default]\naccess_key = ${v.s(v.awsKeyId())}\nhost_base = s3.amazonaws.com\nsecret_key = ${v.s(v.awsSecret())}\nuse_https = True\n`,
  ),
  doc(
    "aws/rclone-config",
    (v) =>
      `[remote]\ntype = s3\nprovider = AWS\nenv_auth = false\naccess_key_id = ${v.s(v.awsKeyId())}\nsecret_access_key = ${v.s(v.awsSecret())}\nregion = eu-central-1\n`,
  ),
  doc(
    "aws/hadoop-core-site",
    (v) =>
      `<configuration>\n  <property>\n    <name>fs.s3a.access.key</name>\n    <value>${v.s(v.awsKeyId())}</value>\n  </property>\n  <property>\n    <name>fs.s3a.secret.key</name>\n    <value>${v.s(v.awsSecret())}</value>\n  </property>\n</configuration>\n`,
  ),
  doc(
    "aws/docker-run-env",
    (v) =>
      `docker run --rm -e AWS_ACCESS_KEY_ID=${v.s(v.awsKeyId())} -e AWS_SECRET_ACCESS_KEY=${v.s(v.awsSecret())} amazon/aws-cli s3 ls`,
  ),
  doc("aws/secretsmanager-get-secret-value", (v) =>
    json({
      ARN: `arn:aws:secretsmanager:us-west-2:${v.digits(12)}:secret:prod/orders-${v.alnum(6)}`,
      Name: "prod/orders",
      VersionId: v.uuid(),
      SecretString: `{"username":"${v.user()}","password":"${v.s(v.password().replace(/["\\]/g, "x"))}"}`,
      VersionStages: ["AWSCURRENT"],
      CreatedDate: "1523477145.713",
    }),
  ),
  doc("aws/ssm-get-parameter-decrypted", (v) =>
    json({
      Parameter: {
        Name: v.pick(["/prod/orders/db", "/app/stripe", "MyParameter"]),
        Type: "SecureString",
        Value: v.s(v.password()),
        Version: 3,
        LastModifiedDate: "2026-03-01T12:00:00.000000-08:00",
        ARN: `arn:aws:ssm:us-east-2:${v.digits(12)}:parameter/MyParameter`,
        DataType: "text",
      },
    }),
  ),

  // --- Azure
  doc("azure/storage-show-connection-string", (v) =>
    json({
      connectionString: `DefaultEndpointsProtocol=https;EndpointSuffix=core.windows.net;AccountName=st${v.chars("abcdefghijklmnopqrstuvwxyz", 8)};AccountKey=${v.s(v.azureStorageKey())};BlobEndpoint=https://x.blob.core.windows.net/`,
    }),
  ),
  doc("azure/storage-keys-list-json", (v) =>
    json([
      { creationTime: v.date(), keyName: "key1", permissions: "FULL", value: v.s(v.azureStorageKey()) },
      { creationTime: v.date(), keyName: "key2", permissions: "FULL", value: v.s(v.azureStorageKey()) },
    ]),
  ),
  doc(
    "azure/storage-keys-list-table",
    (v) =>
      `$ az storage account keys list -g rg-data -n stdata01 -o table\nCreationTime                      KeyName    Permissions    Value\n--------------------------------  ---------  -------------  ----------------------------------------------------------------------------------------\n2026-02-10T09:12:33.001234+00:00  key1       FULL           ${v.s(v.azureStorageKey())}\n2026-02-10T09:12:33.001234+00:00  key2       FULL           ${v.s(v.azureStorageKey())}\n`,
  ),
  doc(
    "azure/storage-key-tsv",
    (v) =>
      `$ az storage account keys list -g rg-data -n stdata01 --query "[0].value" -o tsv\n${v.s(v.azureStorageKey())}\n`,
  ),
  doc("azure/ad-sp-create-for-rbac", (v) =>
    json({
      appId: v.uuid(),
      displayName: "azure-cli-2026-03-01-10-00-00",
      password: v.s(v.azureClientSecret()),
      tenant: v.uuid(),
    }),
  ),
  doc("azure/acr-credential-show", (v) =>
    json({
      passwords: [
        { name: "password", value: v.s(v.b64(32).replace(/=+$/, "")) },
        { name: "password2", value: v.s(v.b64(32).replace(/=+$/, "")) },
      ],
      username: "myregistry",
    }),
  ),
  doc("azure/cosmosdb-keys-list", (v) =>
    json({
      primaryMasterKey: v.s(v.azureStorageKey()),
      primaryReadonlyMasterKey: v.s(v.azureStorageKey()),
      secondaryMasterKey: v.s(v.azureStorageKey()),
      secondaryReadonlyMasterKey: v.s(v.azureStorageKey()),
    }),
  ),
  doc("azure/servicebus-authorization-rule-keys", (v) => {
    const k = v.s(v.b64(32));
    return json({
      keyName: "RootManageSharedAccessKey",
      primaryConnectionString: `Endpoint=sb://orders-bus.servicebus.windows.net/;SharedAccessKeyName=RootManageSharedAccessKey;SharedAccessKey=${k}`,
      primaryKey: k,
      secondaryConnectionString: `Endpoint=sb://orders-bus.servicebus.windows.net/;SharedAccessKeyName=RootManageSharedAccessKey;SharedAccessKey=${v.s(v.b64(32))}`,
    });
  }),
  doc("azure/keyvault-secret-show", (v) =>
    json({
      attributes: { created: v.date(), enabled: true, recoveryLevel: "Recoverable+Purgeable" },
      contentType: null,
      id: `https://kv-prod.vault.azure.net/secrets/${v.pick(["orders-db", "stripe", "SqlConn"])}/${v.hex(16)}`,
      kid: null,
      managed: null,
      name: v.pick(["orders-db", "stripe", "SqlConn"]),
      tags: { "file-encoding": "utf-8" },
      value: v.s(v.password()),
    }),
  ),
  doc("azure/functions-local-settings", (v) =>
    json({
      IsEncrypted: false,
      Values: {
        AzureWebJobsStorage: `DefaultEndpointsProtocol=https;AccountName=func01;AccountKey=${v.s(v.azureStorageKey())};EndpointSuffix=core.windows.net`,
        FUNCTIONS_WORKER_RUNTIME: "node",
      },
    }),
  ),
  doc(
    "azure/login-service-principal",
    (v) =>
      `az login --service-principal --username ${v.uuid()} --password ${v.s(v.azureClientSecret())} --tenant ${v.uuid()}`,
  ),

  // --- Google Cloud
  doc("gcp/application-default-credentials", (v) =>
    json({
      account: "",
      client_id: `${v.digits(12)}-${v.chars("abcdefghijklmnopqrstuvwxyz0123456789", 32)}.apps.googleusercontent.com`,
      client_secret: v.s(`${v.alnum(24)}`),
      quota_project_id: "acme-prod",
      refresh_token: v.s(`1//0${v.b64url(75)}`, "1//0"),
      type: "authorized_user",
      universe_domain: "googleapis.com",
    }),
  ),
  doc("gcp/secrets-versions-access", (v) =>
    v.pick([
      `$ gcloud secrets versions access latest --secret=db-password\n${v.s(v.password())}\n`,
      JSON.stringify({
        tool_name: "Bash",
        tool_input: { command: "gcloud secrets versions access latest --secret=stripe-key --project acme" },
        tool_response: { stdout: v.s(v.alnum(32)), stderr: "", interrupted: false },
      }),
    ]),
  ),

  // --- Kubernetes
  doc("k8s/get-secret-decoded-jq", (v) => {
    const body = {
      [v.pick(["password", "db-pass", "POSTGRES_PASSWORD"])]: v.s(v.password()),
      username: "orders",
      [v.pick(["api-key", "stripe", "token", "connection"])]: v.s(v.alnum(32)),
    };
    return `$ kubectl get secret orders-db -o json | jq '.data | map_values(@base64d)'\n${JSON.stringify(body, null, 2)}\n`;
  }),
  doc("k8s/get-secret-go-template", (v) => {
    const rows = [
      `${v.pick(["password", "root-password", "admin"])}: ${v.s(v.password())}`,
      `${v.pick(["dsn", "url", "endpoint"])}: postgres://orders:${v.s(v.urlPassword())}@${v.host()}:5432/orders`,
      "username: orders",
    ];
    return `$ kubectl get secret orders-db -o go-template='{{range $k,$v := .data}}{{printf "%s: " $k}}{{$v | base64decode}}{{"\\n"}}{{end}}'\n${rows.join("\n")}\n`;
  }),
  doc("k8s/get-secret-jsonpath-decoded", (v) =>
    v.pick([
      `$ kubectl get secret orders-db -o jsonpath='{.data.password}' | base64 -d\n${v.s(v.password())}`,
      `$ kubectl get secret argocd-initial-admin-secret -n argocd -o jsonpath="{.data.password}" | base64 --decode\n${v.s(v.alnum(16))}`,
    ]),
  ),
  doc("k8s/secret-yaml-data", (v) => {
    const b = (s: string) => v.s(Buffer.from(s).toString("base64"));
    return `apiVersion: v1\nkind: Secret\nmetadata:\n  name: orders\ntype: Opaque\ndata:\n  ${v.pick(["dsn", "config.yaml", "root"])}: ${b(`postgres://app:${v.urlPassword()}@db/app`)}\n  ${v.pick(["key", "admin", "value"])}: ${b(v.alnum(24))}\n`;
  }),
  doc("k8s/secret-stringdata", (v) => {
    return `apiVersion: v1\nkind: Secret\nmetadata:\n  name: api\nstringData:\n  ${v.pick(["STRIPE", "upstream", "sentry-dsn"])}: "${v.s(v.alnum(32))}"\n  extra: ${v.s(v.password().replace(/[#:"'&*!%@`|>]/g, "x"))}\n`;
  }),
  doc("k8s/create-secret-from-literal", (v) =>
    v.pick([
      `kubectl create secret generic orders --from-literal=username=orders --from-literal=password='${v.s(v.password().replace(/'/g, "x"))}'`,
      `kubectl create secret generic api --from-literal=${v.pick(["STRIPE", "upstream", "key"])}=${v.s(v.alnum(32))}`,
      `kubectl create secret docker-registry regcred --docker-server=ghcr.io --docker-username=bot --docker-password=${v.s(v.alnum(40))} --docker-email=bot@acme.io`,
    ]),
  ),
  doc("k8s/kubeconfig-user-token", (v) => {
    const t = v.pick([v.jwt({ iss: "kubernetes/serviceaccount" }), `${v.hex(3)}.${v.hex(8)}`, v.b64url(48)]);
    return `apiVersion: v1\nclusters:\n- cluster:\n    certificate-authority-data: ${v.b64(300)}\n    server: https://10.0.0.1:6443\n  name: prod\nkind: Config\nusers:\n- name: ci\n  user:\n    token: ${v.s(t)}\n`;
  }),
  doc("k8s/env-from-literal-value", (v) => {
    const name = v.pick(["DB_PASSWORD", "API_TOKEN", "STRIPE_SECRET_KEY", "SENTRY_AUTH_TOKEN"]);
    return `      containers:\n      - name: api\n        image: ghcr.io/acme/api:1.4.2\n        env:\n        - name: LOG_LEVEL\n          value: info\n        - name: ${name}\n          value: "${v.s(v.alnum(28))}"\n`;
  }),
  doc("k8s/ecs-task-definition-environment", (v) =>
    json({
      family: "orders",
      containerDefinitions: [
        {
          name: "api",
          image: "acme/api:1.4.2",
          environment: [
            { name: "NODE_ENV", value: "production" },
            { name: v.pick(["DB_PASSWORD", "API_KEY", "JWT_SECRET"]), value: v.s(v.alnum(30)) },
          ],
        },
      ],
    }),
  ),
];
