// A developer-domain concept lexicon. The builtin embedding model is too small to know that "pnpm"
// and "install a dependency", or "tabs" and "indentation", are about the same thing; the keyword leg
// only sees different words. Each concept lists the specific words (tools, jargon) that are very
// likely about it, so a memory and a prompt about one concept share its concept token. Terms are
// folded with the keyword index's own tokenizer (Porter-stemmed), so they meet tokens as indexed.
// Words whose stem is an everyday word are left out even when apt ("accessibility" stems to
// "access", "localization" to "local", "production" to "product").
import { tokenize } from "./fts5-tokenizer";

export interface Concept {
  /** Short name: lower case, words joined by "-". */
  id: string;
  /** Lower-case single words; a word stands for at most two concepts. */
  terms: string[];
}

// One concept a row: its id, then its terms. Tools also name their umbrella concept (vitest is
// unit-testing and testing), so "run the tests" meets "use vitest".
const TABLE: readonly (readonly [id: string, terms: string])[] = [
  // Packages and toolchains
  ["package-manager", "npm pnpm yarn bun npx bunx pip pipx uv poetry conda mamba cargo bundler brew homebrew apt nuget corepack install uninstall dependency package lockfile pypi registry deps pkg"],
  ["dependencies", "dependency lockfile devdependencies peerdependencies dependabot renovate transitive outdated deps upgrade"],
  ["versioning", "version semver calver prerelease"],
  ["release", "release changelog publish goreleaser changeset hotfix"],
  ["build", "build webpack vite rollup esbuild parcel turbopack swc babel tsup bundler bundle makefile cmake bazel gradle maven msbuild compile transpile hmr sourcemap minify minification"],
  ["monorepo", "monorepo turborepo lerna nx workspaces"],
  ["programming-language", "typescript javascript python golang rust java kotlin ruby php csharp elixir erlang haskell scala clojure swift cpp ocaml zig lua perl dart"],
  ["typescript", "typescript tsconfig tsc"],
  ["javascript", "javascript ecmascript es6 vanillajs"],
  ["type-checking", "mypy pyright tsc typecheck typehint sorbet"],
  ["python-runtime", "python python3 pyenv venv virtualenv pyproject cpython pypy pythonpath"],
  ["node-runtime", "node nodejs nvm fnm volta deno bun nodemon libuv"],
  ["go-toolchain", "golang gomod gopath gopls govet gofmt goroutine"],
  ["rust-toolchain", "rust rustup rustc cargo crate clippy rustfmt msrv"],
  ["jvm", "java jvm jdk openjdk kotlin scala gradle maven sdkman groovy"],
  ["dotnet", "dotnet csharp fsharp nuget msbuild aspnet"],
  ["ruby", "ruby rbenv rvm gemfile gem rubygems rake irb rails"],
  ["php", "php laravel symfony artisan phpstan wordpress"],
  ["c-cpp", "gcc clang llvm cpp cxx vcpkg conan"],
  ["webassembly", "wasm webassembly emscripten wasi"],
  ["module-system", "esm commonjs cjs importmap treeshaking"],

  // Code style and quality
  ["indentation", "indent tabs spaces whitespace editorconfig tabstop shiftwidth tabwidth softtabs prettier"],
  ["formatting", "prettier gofmt rustfmt ruff biome dprint autopep8 yapf isort formatter reformat semicolon quotes crlf printwidth linelength styleguide"],
  ["linting", "lint linter eslint eslintrc ruff flake8 pylint clippy rubocop stylelint shellcheck biome oxlint tslint golangci phpstan sonarqube sqlfluff"],
  ["naming", "camelcase snakecase kebabcase pascalcase convention"],
  ["refactoring", "refactor techdebt deadcode"],
  ["docs", "docs documentation readme docstring jsdoc tsdoc javadoc sphinx mkdocs docusaurus comment wiki adr"],
  ["markdown", "markdown mdx commonmark frontmatter"],
  ["diagrams", "diagram mermaid plantuml excalidraw drawio"],
  ["parsing", "parser parse ast treesitter lexer antlr"],
  ["regex", "regex regexp"],
  ["codegen", "codegen scaffold boilerplate"],
  ["templating", "templating jinja jinja2 handlebars ejs nunjucks"],

  // Testing
  ["testing", "test spec tdd bdd coverage fixture mock stub assertion flaky testcase testsuite jest vitest mocha pytest unittest junit rspec minitest phpunit jasmine xunit nunit testify"],
  ["unit-testing", "jest vitest mocha pytest unittest junit rspec minitest phpunit jasmine xunit nunit testify chai sinon"],
  ["e2e-testing", "e2e playwright cypress selenium puppeteer webdriver testcafe appium headless"],
  ["load-testing", "k6 locust jmeter gatling loadtest vegeta"],

  // Version control and collaboration
  ["version-control", "git github gitlab bitbucket gitignore mercurial svn subversion repo repository submodule diff"],
  ["commits", "commit commitlint amend squash signoff gpg gitmoji"],
  ["branching", "branch trunk gitflow rebase merge worktree fork conflict checkout"],
  ["code-review", "review pr codeowners lgtm approve merge diff"],
  ["git-hooks", "precommit prepush husky lefthook githooks"],
  ["project-management", "jira ticket backlog kanban trello asana youtrack sprint scrum standup retrospective milestone okr"],
  ["licensing", "license gpl agpl lgpl spdx copyleft opensource"],

  // CI/CD and operations
  ["ci", "ci cicd jenkins jenkinsfile circleci travis buildkite teamcity pipeline runner gha"],
  ["deployment", "deploy deployment vercel netlify heroku rollout rollback canary bluegreen staging prod preprod argocd spinnaker capistrano"],
  ["containers", "docker dockerfile dockerignore podman dockercompose oci registry dockerhub ghcr ecr containerd alpine containerize"],
  ["kubernetes", "kubernetes k8s k3s kubectl helm kustomize pod ingress eks gke aks minikube statefulset daemonset configmap kubeconfig argocd cluster"],
  ["infrastructure-as-code", "terraform opentofu pulumi cloudformation cdk bicep ansible crossplane hcl tfvars tfstate terragrunt iac saltstack"],
  ["cloud-provider", "aws gcp azure gcloud digitalocean linode hetzner cloudflare"],
  ["cloud-access", "iam sts assumerole credential"],
  ["virtual-machines", "vm ec2 gce virtualbox vmware qemu kvm hypervisor vagrant"],
  ["serverless", "serverless lambda faas"],
  ["scaling", "autoscaling autoscale scalability hpa"],
  ["regions", "region datacenter multiregion residency"],
  ["dns", "dns cname nameserver route53 subdomain dnssec registrar coredns"],
  ["cdn", "cdn cloudfront fastly akamai cloudflare"],
  ["networking", "subnet vpc cidr firewall iptables ufw nftables tcp udp ipv4 ipv6 port proxy localhost loopback ngrok timeout"],
  ["vpn", "vpn wireguard tailscale openvpn zerotier headscale"],
  ["ssh", "ssh sshd scp sftp bastion jumphost"],
  ["web-server", "nginx apache caddy traefik haproxy envoy reverseproxy loadbalancer alb elb"],
  ["service-mesh", "istio linkerd consul servicemesh envoy mtls"],
  ["tls", "tls ssl certificate cert letsencrypt certbot mtls"],
  ["cost", "cost budget finops billing"],
  ["environments", "staging prod preprod sandbox uat"],
  ["env-config", "env dotenv environment envvar direnv envrc"],
  ["secrets", "secret vault sops 1password bitwarden kms keychain credential apikey secretsmanager doppler infisical gitleaks trufflehog"],
  ["encryption", "encrypt decrypt aes rsa gpg pgp hmac sha256"],
  ["process-management", "systemd systemctl launchd launchctl supervisord pm2 daemon initd"],
  ["operating-system", "linux ubuntu debian fedora alpine macos osx wsl wsl2 centos rhel nixos freebsd"],
  ["dev-environment", "nix devcontainer devbox devenv codespaces vagrant"],
  ["backup", "backup snapshot restore pgdump restic"],
  ["storage-volumes", "disk ebs nfs pvc ssd nvme raid volume"],
  ["object-storage", "s3 blob bucket minio r2 presigned storage"],

  // Observability and reliability
  ["logging", "log logger winston pino bunyan log4j logback loguru structlog syslog journald journalctl logrus verbosity"],
  ["monitoring", "monitoring observability metric prometheus grafana datadog newrelic sentry honeycomb opentelemetry otel tracing dashboard uptime apm statsd healthcheck telemetry"],
  ["alerting", "alert pagerduty opsgenie oncall pager alertmanager slack"],
  ["incidents", "incident outage postmortem runbook rca downtime"],
  ["reliability", "sre sla slo sli errorbudget uptime"],
  ["error-handling", "error throw thrown panic unwrap errorboundary sentry bugsnag rollbar crashlytics errorhandling"],
  ["retries", "retry backoff idempotent circuitbreaker resilience tenacity jitter timeout"],
  ["debugging", "debug debugger breakpoint gdb lldb pdb ipdb devtools stacktrace traceback repro bisect delve error trace sourcemap"],
  ["performance", "perf performance latency throughput benchmark flamegraph bottleneck p95 p99 pprof optimize speedup slow lighthouse webvitals loadtest"],
  ["memory-usage", "oom heap heapdump leak valgrind malloc allocation gc"],
  ["concurrency", "concurrency parallelism thread multithreading async asyncio goroutine mutex deadlock semaphore atomic threadpool coroutine eventloop"],
  ["rate-limiting", "ratelimit throttle quota"],

  // Security and compliance
  ["auth", "auth authn authentication login logout signin signup oauth oauth2 oidc openid jwt saml sso password passwordless mfa 2fa totp okta auth0 keycloak cognito nextauth bcrypt argon2"],
  ["authorization", "authz rbac abac acl permission casbin opa pundit"],
  ["security", "vulnerability cve xss csrf sqli owasp snyk pentest sast dast exploit cors sanitize"],
  ["privacy", "pii gdpr ccpa privacy anonymize pseudonymize redact consent dpa residency"],
  ["compliance", "compliance compliant soc2 iso27001 hipaa pci audit"],

  // Application building blocks
  ["database", "database db postgres postgresql psql mysql mariadb sqlite mongodb mongo dynamodb cassandra cockroachdb supabase planetscale redis sql nosql schema transaction pgbouncer neo4j influxdb timescaledb"],
  ["db-migration", "migration sqitch flyway liquibase alembic dbmate goose ddl alter column"],
  ["database-scaling", "replica replication failover sharding readreplica"],
  ["orm", "orm prisma drizzle sequelize typeorm sqlalchemy activerecord hibernate gorm knex kysely mikroorm querybuilder"],
  ["search-engine", "elasticsearch opensearch meilisearch typesense algolia solr lucene fulltext fts bm25"],
  ["embeddings", "embedding pgvector pinecone weaviate qdrant chromadb milvus faiss rag vectordb reranker"],
  ["llm", "llm openai anthropic claude gpt chatgpt gemini ollama mistral llama huggingface finetune"],
  ["machine-learning", "pytorch tensorflow keras sklearn xgboost lightgbm ml mlops mlflow wandb cuda gpu"],
  ["notebooks", "jupyter notebook ipynb colab jupyterlab ipython"],
  ["caching", "cache redis memcached varnish memoize lru etag ttl"],
  ["schema-validation", "zod yup joi ajv pydantic jsonschema valibot validation schema"],
  ["http-client", "axios httpx urllib undici superagent okhttp retrofit curl wget httpie apiclient"],
  ["api-design", "api graphql grpc protobuf openapi swagger endpoint trpc jsonapi pagination"],
  ["web-framework", "express fastify koa hono elysia nestjs django flask fastapi rails laravel symfony springboot sinatra actix axum middleware router routes"],
  ["realtime", "websocket socketio sse realtime longpolling"],
  ["queues", "queue kafka rabbitmq sqs sns nats pubsub celery bullmq sidekiq resque amqp kinesis eventbridge broker"],
  ["webhooks", "webhook"],
  ["scheduling", "cron crontab cronjob schedule nightly"],
  ["orchestration", "airflow dagster prefect luigi dag orchestration"],
  ["data-pipeline", "etl elt pipeline ingestion dbt fivetran airbyte spark pyspark flink beam kafka backfill"],
  ["data-warehouse", "warehouse snowflake bigquery redshift databricks clickhouse duckdb athena lakehouse datalake olap iceberg dwh"],
  ["dataframes", "pandas polars dataframe numpy dask pyarrow column"],
  ["data-formats", "csv tsv parquet avro jsonl ndjson xlsx excel spreadsheet"],
  ["serialization", "serialize deserialize marshal unmarshal msgpack protobuf pickle"],
  ["text-encoding", "utf8 utf16 unicode ascii charset encoding latin1 mojibake"],
  ["identifiers", "uuid ulid nanoid guid cuid autoincrement"],
  ["filesystem", "filesystem symlink chmod chown inode fsync tmpfs"],
  ["file-uploads", "upload multipart presigned dropzone"],
  ["media", "ffmpeg imagemagick thumbnail transcode codec webp avif png jpeg jpg"],
  ["pdf", "pdf pdfkit wkhtmltopdf reportlab"],
  ["email", "email mail mailer smtp sendgrid mailgun postmark ses mailchimp newsletter inbox dkim dmarc imap nodemailer mjml"],
  ["notifications", "notification notify apns fcm sms twilio webpush"],
  ["team-chat", "slack discord mattermost zulip"],
  ["payments", "payment stripe paypal braintree adyen checkout invoice subscription refund chargeback billing pci transaction price tax vat"],
  ["money", "money currency cents usd eur gbp decimal bigdecimal price"],
  ["i18n", "i18n l10n internationalization translation gettext icu rtl multilingual language intl"],
  ["timezones", "timezone tz utc gmt dst daylight zoneinfo pytz"],
  ["dates", "date datetime timestamp iso8601 rfc3339 dayjs luxon datefns calendar epoch strftime chrono"],
  ["geo", "geolocation latitude longitude geojson postgis gis mapbox geocoding"],
  ["feature-flags", "featureflag launchdarkly unleash flagsmith growthbook statsig killswitch toggles rollout"],
  ["analytics", "analytics posthog mixpanel amplitude ga4 funnel cohort pageview abtest telemetry"],
  ["seo", "seo sitemap opengraph metatags robotstxt"],
  ["cms", "cms strapi wordpress"],
  ["web3", "ethereum blockchain web3"],

  // Frontend
  ["frontend-framework", "frontend react vue svelte angular preact solidjs nextjs nuxt sveltekit jsx tsx spa hydration ssr"],
  ["state-management", "redux zustand mobx recoil jotai pinia vuex xstate usestate"],
  ["styling", "css scss sass tailwind tailwindcss stylesheet postcss classname theme darkmode font color colour mediaquery breakpoint"],
  ["ui-components", "storybook figma shadcn mui chakra radix antd designsystem"],
  ["accessibility", "a11y aria wcag screenreader voiceover nvda"],
  ["animation", "animation gsap framermotion keyframes lottie"],
  ["icons", "icon lucide heroicons fontawesome"],
  ["charts", "chart d3 recharts chartjs plotly matplotlib seaborn dataviz plot"],
  ["browsers", "browser chrome chromium firefox safari polyfill browserslist caniuse"],
  ["browser-storage", "localstorage sessionstorage indexeddb cookie"],
  ["http", "http cors cookie useragent statuscode"],
  ["mobile", "ios android swiftui xcode reactnative flutter expo testflight appstore playstore cocoapods"],
  ["desktop-apps", "electron tauri qt gtk wpf winforms"],

  // Tools on the developer's machine
  ["shell", "shell bash zsh powershell pwsh bashrc zshrc shebang posix alias aliases dotfiles chezmoi stow"],
  ["terminal", "terminal tmux iterm iterm2 alacritty wezterm ghostty starship ohmyzsh"],
  ["editor", "editor vscode vim neovim nvim emacs intellij jetbrains pycharm webstorm goland sublime keybinding keymap lsp"],
  ["cli-framework", "cli yargs oclif citty cobra typer argparse clap subcommand argv getopt docopt"],
  ["search-tools", "grep ripgrep fzf ctags sourcegraph"],
  ["coding-assistant", "copilot codex aider cline windsurf"],
  ["architecture", "architecture microservice monolith hexagonal ddd cqrs eventsourcing modular"],
];

export const CONCEPTS: readonly Concept[] = TABLE.map(([id, terms]) => ({ id, terms: terms.split(" ") }));

/**
 * The first character of every concept token: a Private Use code point, which FTS5's unicode61 (and
 * so tokenize) keeps as a token character, which no word of ordinary text holds, and which queries
 * never carry (queryTerms keeps only letters, digits and "_"). U+E100 is also outside the ranges
 * icon fonts (Powerline, Nerd Fonts) fill, so terminal output pasted into a memory does not hold it.
 */
export const CONCEPT_PREFIX = "\uE100";

/**
 * The token standing for a concept in a keyword index. It is its own single token under tokenize and
 * FTS5 alike: the marker closes it too, and Porter only rewrites tokens that end in a letter.
 */
export function conceptToken(id: string): string {
  return `${CONCEPT_PREFIX}${id.replace(/[^a-z0-9]/g, "")}${CONCEPT_PREFIX}`;
}

/**
 * Each term's token (as tokenize gives it) → the ids of the concepts it stands for. Built on first
 * use (about 1,400 tokenize calls): a process that never looks a concept up never pays for it.
 */
let conceptsByToken: Map<string, string[]> | undefined;

function byToken(): Map<string, string[]> {
  if (conceptsByToken) return conceptsByToken;
  const map = new Map<string, string[]>();
  for (const { id, terms } of CONCEPTS) {
    for (const term of terms) {
      const tokens = tokenize(term);
      if (tokens.length !== 1) throw new Error(`lexicon term "${term}" of "${id}" is not one token`);
      const ids = map.get(tokens[0]!);
      if (!ids) map.set(tokens[0]!, [id]);
      else if (!ids.includes(id)) ids.push(id);
    }
  }
  return (conceptsByToken = map);
}

/** The distinct ids of the concepts any of `tokens` (tokenize's output) stands for, in order of first mention. */
export function conceptsOf(tokens: Iterable<string>): string[] {
  const map = byToken();
  const found: string[] = [];
  for (const token of tokens) {
    const ids = map.get(token);
    if (ids === undefined) continue;
    for (const id of ids) if (!found.includes(id)) found.push(id);
  }
  return found;
}
