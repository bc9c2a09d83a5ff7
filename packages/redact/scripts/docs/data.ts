// Databases and the config files of tools: the formats their manuals document (.pgpass, my.cnf,
// connection strings, service files, CLI flags), with fresh values.
import { type Doc, doc } from "./doc.ts";

export const DATA: Doc[] = [
  doc("postgres/pgpass", (v) => {
    const rows = [
      `${v.host()}:5432:orders:${v.user()}:${v.s(v.urlPassword())}`,
      `*:*:*:replicator:${v.s(v.urlPassword())}`,
    ];
    return v.pick([
      `$ cat ~/.pgpass\n# hostname:port:database:username:password\n${rows.join("\n")}\n`,
      `${rows[0]}\n`,
      `localhost:5432:app:app:${v.s(`${v.alnum(8)}\\:${v.alnum(8)}`)}\n`,
    ]);
  }),
  doc("postgres/conninfo", (v) =>
    v.pick([
      `psql "host=${v.host()} port=5432 dbname=orders user=${v.user()} password=${v.s(v.urlPassword())} sslmode=require"`,
      `conn = psycopg2.connect("dbname=orders user=${v.user()} password=${v.s(v.urlPassword())} host=${v.host()}")`,
    ]),
  ),
  doc(
    "postgres/pg-service-conf",
    (v) =>
      `[orders]\nhost=${v.host()}\nport=5432\ndbname=orders\nuser=${v.user()}\npassword=${v.s(v.password())}\n`,
  ),
  doc("postgres/url-in-error", (v) =>
    v.pick([
      `psql: error: connection to server at "db" (10.0.0.5), port 5432 failed: FATAL:  password authentication failed for user "orders"\n  while using postgresql://orders:${v.s(v.urlPassword())}@db:5432/orders`,
      `sqlalchemy.exc.OperationalError: (psycopg2.OperationalError) could not connect to server\n[SQL: SELECT 1]\n(engine url: postgresql+psycopg2://etl:${v.s(v.urlPassword())}@${v.host()}/warehouse)`,
    ]),
  ),
  doc(
    "mysql/my-cnf",
    (v) =>
      `[client]\nuser=${v.user()}\npassword="${v.s(v.password().replace(/"/g, "x"))}"\nhost=${v.host()}\n`,
  ),
  doc("mysql/cli-password-flag", (v) =>
    v.pick([
      `mysql -h ${v.host()} -u root -p${v.s(v.alnum(16))} orders`,
      `mysqldump -u backup --password=${v.s(v.alnum(18))} --single-transaction orders > orders.sql`,
      `mariadb -u root -p'${v.s(v.password().replace(/'/g, "x"))}' -e "SHOW DATABASES"`,
      `mariadb-dump -uroot -p${v.s(v.alnum(14))} --all-databases`,
    ]),
  ),
  doc("sqlserver/sqlcmd", (v) =>
    v.pick([
      `sqlcmd -S localhost,1433 -U sa -P '${v.s(`${v.alnum(12)}!Aa1`)}' -Q "SELECT @@VERSION"`,
      `/opt/mssql-tools18/bin/sqlcmd -S tcp:sql01 -U ${v.user()} -P ${v.s(v.alnum(16))} -C`,
      `bcp dbo.Orders out orders.dat -S sql01 -U ${v.user()} -P ${v.s(v.alnum(16))} -c`,
    ]),
  ),
  doc(
    "sqlserver/docker-run",
    (v) =>
      `docker run -e "ACCEPT_EULA=Y" -e "MSSQL_SA_PASSWORD=${v.s(`${v.alnum(14)}#1`)}" -p 1433:1433 -d mcr.microsoft.com/mssql/server:2022-latest`,
  ),
  doc(
    "dotnet/connection-string",
    (v) =>
      `"ConnectionStrings": {\n  "Orders": "Server=tcp:sql01.database.windows.net,1433;Initial Catalog=orders;User ID=${v.user()};Password=${v.s(v.password().replace(/[;"]/g, "x"))};Encrypt=True;"\n}`,
  ),
  doc(
    "odbc/connection-string",
    (v) =>
      `Driver={ODBC Driver 18 for SQL Server};Server=sql01;Database=orders;Uid=${v.user()};Pwd=${v.s(v.alnum(18))};Encrypt=yes;`,
  ),
  doc("oracle/ezconnect", (v) =>
    v.pick([
      `sqlplus system/${v.s(v.alnum(14))}@//db.internal:1521/ORCLPDB1`,
      `expdp ${v.user()}/${v.s(v.alnum(12))}@orcl schemas=HR directory=DATA_PUMP_DIR dumpfile=hr.dmp`,
      `spring.datasource.url=jdbc:oracle:thin:${v.user()}/${v.s(v.alnum(12))}@db.internal:1521:ORCL`,
    ]),
  ),
  doc("mongodb/connection", (v) =>
    v.pick([
      `mongosh "mongodb+srv://cluster0.ab12c.mongodb.net/orders" --apiVersion 1 --username ${v.user()} --password ${v.s(v.alnum(20))}`,
      `MONGO_URL=mongodb://${v.user()}:${v.s(v.urlPassword())}@mongo-0.mongo:27017,mongo-1.mongo:27017/orders?replicaSet=rs0`,
      `db.createUser({ user: "reporting", pwd: "${v.s(v.alnum(18))}", roles: [{ role: "read", db: "orders" }] })`,
      `mongodump --uri="mongodb://backup:${v.s(v.urlPassword())}@10.0.0.9:27017" --out=/backups`,
    ]),
  ),
  doc("redis/cli-and-conf", (v) =>
    v.pick([
      `redis-cli -h cache.internal -p 6379 -a ${v.s(v.alnum(24))} --no-auth-warning INFO`,
      `redis-cli -u redis://default:${v.s(v.alnum(24))}@cache.internal:6379 PING`,
      `# redis.conf\nbind 0.0.0.0\nprotected-mode yes\nrequirepass ${v.s(v.alnum(32))}\n`,
      `127.0.0.1:6379> AUTH default ${v.s(v.alnum(24))}\nOK`,
      `# replica\nmasterauth ${v.s(v.alnum(32))}\nreplicaof 10.0.0.4 6379\n`,
    ]),
  ),
  doc("sql/create-user", (v) =>
    v.pick([
      `CREATE USER reporting WITH PASSWORD '${v.s(v.alnum(20))}';`,
      `ALTER USER postgres WITH PASSWORD '${v.s(v.alnum(20))}';`,
      `CREATE USER 'app'@'%' IDENTIFIED BY '${v.s(v.alnum(18))}';`,
      `ALTER ROLE etl LOGIN PASSWORD '${v.s(v.alnum(18))}' VALID UNTIL '2027-01-01';`,
    ]),
  ),
  doc("cassandra/cqlsh", (v) => `cqlsh 10.0.0.12 9042 -u cassandra -p ${v.s(v.alnum(16))}`),
  doc("neo4j/cypher-shell", (v) => `cypher-shell -a neo4j://localhost:7687 -u neo4j -p ${v.s(v.alnum(16))}`),
  doc("ldap/bind-password", (v) =>
    v.pick([
      `ldapsearch -x -H ldap://ldap.acme.io -D "cn=admin,dc=acme,dc=io" -w ${v.s(v.alnum(16))} -b "dc=acme,dc=io"`,
      `ldapmodify -x -D "cn=admin,dc=acme,dc=io" -w '${v.s(v.password().replace(/'/g, "x"))}' -f change.ldif`,
    ]),
  ),
  doc(
    "clickhouse/client",
    (v) => `clickhouse-client --host ch01 --user default --password ${v.s(v.alnum(20))}`,
  ),
  doc("influx/cli", (v) =>
    v.pick([
      `influx -username admin -password ${v.s(v.alnum(16))} -host influx01`,
      `influx config create --config-name prod --host-url http://influx:8086 --org acme --token ${v.s(`${v.b64url(64)}==`)} --active`,
    ]),
  ),
  doc(
    "kafka/jaas",
    (v) =>
      `sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required username="${v.user()}" password="${v.s(v.alnum(24))}";`,
  ),
  doc("rabbitmq/cli", (v) =>
    v.pick([
      `rabbitmqctl add_user orders ${v.s(v.alnum(18))}`,
      `rabbitmqctl change_password orders ${v.s(v.alnum(18))}`,
      `RABBITMQ_DEFAULT_PASS=${v.s(v.alnum(18))}`,
    ]),
  ),
  doc("elasticsearch/reset-password", (v) =>
    v.pick([
      `$ bin/elasticsearch-reset-password -u elastic\nThis tool will reset the password of the [elastic] user to an autogenerated value.\nThe password will be printed in the console.\nPlease confirm that you would like to continue [y/N]y\n\n\nPassword for the [elastic] user successfully reset.\nNew value: ${v.s(v.alnum(20))}\n`,
      `curl -u elastic:${v.s(v.alnum(20))} https://localhost:9200/_cluster/health --cacert http_ca.crt`,
    ]),
  ),

  // Config files of tools
  doc("wordpress/wp-config", (v) => {
    const salt = () =>
      v.s(
        v.chars(
          "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789!@#$%^&*()-_[]{}<>~+=,.;:/?|",
          64,
        ),
      );
    return `define( 'DB_NAME', 'wordpress' );\ndefine( 'DB_USER', 'wp' );\ndefine( 'DB_PASSWORD', '${v.s(v.alnum(20))}' );\ndefine( 'DB_HOST', 'localhost' );\n\ndefine( 'AUTH_KEY',         '${salt()}' );\ndefine( 'NONCE_SALT',       '${salt()}' );\n`;
  }),
  doc("php/define-and-env", (v) =>
    v.pick([
      `define('STRIPE_SECRET', '${v.s(v.alnum(32))}');`,
      `putenv("API_TOKEN=${v.s(v.alnum(32))}");`,
      `$config['encryption_key'] = '${v.s(v.hex(16))}';`,
    ]),
  ),
  doc(
    "laravel/env",
    (v) =>
      `APP_NAME=Orders\nAPP_ENV=production\nAPP_KEY=base64:${v.s(v.b64(32))}\nDB_CONNECTION=mysql\nDB_PASSWORD=${v.s(v.alnum(20))}\nMAIL_PASSWORD=${v.s(v.alnum(16))}\n`,
  ),
  doc("redis-url/sidekiq", (v) => `REDIS_URL=rediss://:${v.s(v.alnum(32))}@cache.acme.io:6380/0`),
  doc(
    "dbt/profiles",
    (v) =>
      `orders:\n  target: prod\n  outputs:\n    prod:\n      type: postgres\n      host: ${v.host()}\n      user: ${v.user()}\n      password: ${v.s(v.alnum(20))}\n      port: 5432\n      dbname: analytics\n`,
  ),
  doc(
    "snowflake/snowsql-config",
    (v) =>
      `[connections.prod]\naccountname = acme-xy12345\nusername = ${v.user()}\npassword = ${v.s(v.alnum(20))}\n`,
  ),
  doc(
    "databricks/databrickscfg",
    (v) =>
      `[DEFAULT]\nhost = https://adb-${v.digits(16)}.7.azuredatabricks.net\ntoken = ${v.s(`dapi${v.hex(16)}`, "dapi")}\n`,
  ),
  doc("hashicorp/vault-kv-get", (v) => {
    const pw = v.s(v.alnum(20));
    return `$ vault kv get secret/orders/db\n====== Secret Path ======\nsecret/data/orders/db\n\n======= Metadata =======\nKey                Value\n---                -----\ncreated_time       ${v.date()}\nversion            3\n\n====== Data ======\nKey         Value\n---         -----\npassword    ${pw}\nusername    orders\n`;
  }),
  doc("hashicorp/vault-field", (v) => `$ vault kv get -field=password secret/orders/db\n${v.s(v.alnum(20))}`),
  doc("hashicorp/vault-approle-login", (v) =>
    v.pick([
      `vault write auth/approle/login role_id=${v.uuid()} secret_id=${v.s(v.uuid())}`,
      `vault login -method=userpass username=ops password=${v.s(v.alnum(16))}`,
    ]),
  ),
  doc("doppler/secrets-table", (v) => {
    const row = (k: string, val: string) => `│ ${k.padEnd(18)} │ ${val.padEnd(40)} │`;
    return [
      "┌────────────────────┬──────────────────────────────────────────┐",
      row("NAME", "VALUE"),
      "├────────────────────┼──────────────────────────────────────────┤",
      row("DOPPLER_CONFIG", "prd"),
      row("STRIPE_SECRET", v.s(v.alnum(32))),
      row("DB_PASSWORD", v.s(v.alnum(24))),
      "└────────────────────┴──────────────────────────────────────────┘",
    ].join("\n");
  }),
  doc("heroku/config", (v) => {
    const lines = [
      "=== orders-prod Config Vars",
      `DATABASE_URL:      postgres://u${v.hex(6)}:${v.s(`p${v.hex(32)}`)}@ec2-1-2-3-4.compute-1.amazonaws.com:5432/d${v.hex(6)}`,
      `SECRET_KEY_BASE:   ${v.s(v.hex(64))}`,
      "WEB_CONCURRENCY:   2",
    ];
    return `$ heroku config -a orders-prod\n${lines.join("\n")}\n`;
  }),
  doc("wifi/wpa-supplicant", (v) =>
    v.pick([
      `network={\n    ssid="acme-office"\n    psk="${v.s(v.alnum(20))}"\n    key_mgmt=WPA-PSK\n}`,
      `[wifi-security]\nkey-mgmt=wpa-psk\npsk=${v.s(v.alnum(20))}\n`,
      `wpa_passphrase=${v.s(v.alnum(20))}`,
    ]),
  ),
  doc("haproxy/userlist", (v) =>
    v.pick([
      `userlist admins\n  user ops insecure-password ${v.s(v.alnum(16))}\n`,
      `listen stats\n  bind :8404\n  stats enable\n  stats auth admin:${v.s(v.alnum(16))}\n`,
    ]),
  ),
  doc(
    "grafana/ini",
    (v) =>
      `[security]\nadmin_user = admin\nadmin_password = ${v.s(v.alnum(18))}\nsecret_key = ${v.s(v.alnum(24))}\n`,
  ),
  doc("consul/gossip-encrypt", (v) =>
    v.pick([`encrypt = "${v.s(v.b64(32))}"`, `$ consul keygen\n${v.s(v.b64(32))}`]),
  ),
  doc("samba/smbclient", (v) => `smbclient //fileserver/finance -U ${v.user()}%${v.s(v.alnum(14))} -c 'ls'`),
  doc("rdp/xfreerdp", (v) =>
    v.pick([
      `xfreerdp /v:10.0.0.30 /u:Administrator /p:${v.s(v.alnum(16))} /cert:ignore`,
      `cmdkey /generic:TERMSRV/10.0.0.30 /user:Administrator /pass:${v.s(v.alnum(16))}`,
    ]),
  ),
  doc("archive/password-flags", (v) =>
    v.pick([
      `zip -P ${v.s(v.alnum(14))} -r backup.zip ./exports`,
      `7z a -p${v.s(v.alnum(14))} -mhe=on backup.7z ./exports`,
      `unzip -P ${v.s(v.alnum(14))} backup.zip`,
      `openssl enc -aes-256-cbc -salt -in db.sql -out db.sql.enc -k ${v.s(v.alnum(20))}`,
      `ssh-keygen -t ed25519 -N '${v.s(v.alnum(18))}' -f ~/.ssh/deploy`,
    ]),
  ),
  doc(
    "mosquitto/pub",
    (v) => `mosquitto_pub -h mqtt.acme.io -u sensor -P ${v.s(v.alnum(16))} -t temp -m 21.5`,
  ),
  doc("minio/mc-alias", (v) =>
    v.pick([
      `mc alias set myminio https://minio.acme.io ${v.s(v.alnum(20))} ${v.s(v.alnum(40))}`,
      `MINIO_ROOT_USER=admin\nMINIO_ROOT_PASSWORD=${v.s(v.alnum(24))}\n`,
    ]),
  ),
  doc("ngrok/authtoken", (v) =>
    v.pick([
      `ngrok config add-authtoken ${v.s(`${v.digits(1)}${v.alnum(26)}_${v.alnum(21)}`)}`,
      `version: "2"\nauthtoken: ${v.s(`${v.digits(1)}${v.alnum(26)}_${v.alnum(21)}`)}\n`,
    ]),
  ),
];
