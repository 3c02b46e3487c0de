//! The embedded table: it loads, and classifies commands as a reader of the
//! turn would, including the ones that only look like a kind.

use super::*;
use CommandKind::{Build, Commit, Deploy, FileWrite, Lint, Lookup, Push, Test};

#[test]
fn embedded_table_loads() {
    let table = load(TABLE_JSON).unwrap();
    table.rules.validate().unwrap();
    assert!(table.rules.rules.len() > 50);
    for kind in CommandKind::ALL {
        assert!(
            table.kind_of_rule.values().any(|k| *k == kind),
            "no condition for {kind:?}"
        );
    }
}

/// Each command is classified as exactly its listed kinds.
fn assert_kinds(cases: &[(&[CommandKind], &[&str])]) {
    for (expected, commands) in cases {
        for command in *commands {
            assert_eq!(classify_command(command), *expected, "{command}");
        }
    }
}

#[test]
fn commands_get_their_kinds() {
    // Through wrappers, chains, pipelines and `bash -c`; one line may be of
    // several kinds.
    let cases: &[(&[CommandKind], &[&str])] = &[
        (
            &[Test],
            &[
                "cargo test",
                "cargo test --workspace -- --nocapture",
                "cargo +nightly test",
                "cargo nextest run",
                "RUST_LOG=debug cargo --manifest-path x/Cargo.toml test",
                "cd app && npm test",
                "npm run test:unit -- --watch=false",
                "pnpm --filter web test",
                "yarn test",
                "npx jest --ci",
                "npx vitest run",
                "pnpm playwright test e2e/profile.spec.ts",
                "yarn jest --ci",
                "pytest -q tests/",
                "python -m pytest -x",
                "python3.12 -m unittest discover",
                "uv run pytest",
                "poetry run pytest",
                "python manage.py test",
                "go test ./...",
                "make test",
                "make -C build check",
                "mvn -q test",
                "./gradlew :app:test",
                "./gradlew testDebugUnitTest",
                "./gradlew connectedDebugAndroidTest --tests '*ScreenshotTest'",
                "tox -e py312",
                "ctest --output-on-failure",
                "bundle exec rspec spec/models",
                "dotnet test",
                "timeout 600 bash -c 'cargo test'",
                r#"cmd.exe /c "cd /d C:\\src\\app && dotnet test""#,
                "cargo test 2>&1 | tail -20",
            ],
        ),
        (
            &[Build],
            &[
                "cargo build --release",
                "cargo check --all-targets",
                "npm run build",
                "npx tsc --noEmit",
                "go build ./...",
                "make",
                "make -j8",
                "cmake --build build",
                "./gradlew assembleRelease",
            ],
        ),
        (
            &[Lint],
            &[
                "cargo clippy -- -D warnings",
                "go vet ./...",
                "ruff check .",
                "eslint src",
                "helm lint charts/api",
                "helm template charts/api | kubeconform -strict",
                "terraform validate",
                "kubectl apply --dry-run=server -f k8s/ --context prod",
                "helm upgrade --install api ./chart --dry-run",
                "./gradlew lintDebug",
            ],
        ),
        (&[Test, Build], &["cargo build && cargo test"]),
        (
            &[Commit],
            &["git commit -m 'Fix parser'", "git -C repo commit -am wip"],
        ),
        (
            &[Commit, Push],
            &["git add -A && git commit -m x && git push origin main"],
        ),
        (
            &[Push],
            &[
                "git push --force-with-lease",
                "gh pr create --fill",
                "gh pr merge 12 --squash",
            ],
        ),
        (
            &[Deploy],
            &[
                "kubectl -n prod apply -f deploy.yaml",
                "helm upgrade --install api ./chart",
                "terraform apply -auto-approve",
                "fly deploy",
                "vercel --prod",
                "npm publish",
                "cargo publish",
                "gcloud run deploy api --source .",
                "docker push registry/app:1.2",
            ],
        ),
        (
            &[FileWrite],
            &[
                "sed -i 's/a/b/' src/lib.rs",
                "perl -pi -e 's/a/b/' x.txt",
                "cat > src/new.rs <<'EOF'\nfn main() {}\nEOF",
                "echo done >> notes.md",
                "git apply fix.patch",
            ],
        ),
        (&[Test, FileWrite], &["npm test > test.log 2>&1"]),
        (
            &[Lookup],
            &[
                "grep -rn 'tax_rate' billing/",
                "rg -n TODO src",
                "ls -la build/",
                "git diff --stat",
                "Get-ChildItem -Recurse -Filter *.cs",
            ],
        ),
    ];
    assert_kinds(cases);
}

#[test]
fn look_alikes_are_not_classified() {
    for command in [
        "echo 'cargo test'",
        "grep -r 'git push' .",
        "git status",
        "git log --oneline",
        "git push --dry-run",
        "git merge --abort",
        "git checkout -b feature",
        "git diff > /tmp/changes.diff",
        "cargo fetch",
        "npm install",
        "npm run dev",
        "python -m pip install pytest",
        "pip install pytest",
        "ls -la 2>/dev/null",
        "cargo build --features test 2>&1 >/dev/null",
        "kubectl get pods",
        "helm template ./chart",
        "next dev",
        "cat README.md",
        "test -f build/app && echo ok",
        "yarn workspace test-utils add lodash",
        "docker compose up -d",
    ] {
        let kinds = classify_command(command);
        // Lookups (a search for a kind's words, `git status`) are no kind
        // these look like; `commands_get_their_kinds` covers them.
        let unexpected: Vec<_> = kinds
            .iter()
            .filter(|k| !(command.starts_with("cargo build") && **k == Build))
            .filter(|k| **k != Lookup)
            .collect();
        assert!(unexpected.is_empty(), "{command}: {kinds:?}");
    }
}

#[test]
fn kind_names_round_trip() {
    for kind in CommandKind::ALL {
        assert_eq!(CommandKind::parse(kind.name()), Some(kind));
        let json = serde_json::to_string(&kind).unwrap();
        assert_eq!(json, format!("\"{}\"", kind.name()));
    }
    assert_eq!(CommandKind::parse("tests"), None);
}

#[test]
fn broken_tables_are_refused_with_the_reason() {
    let unknown = validate(r#"{"kinds": {"tests": [{"command": ["x"]}]}}"#).unwrap_err();
    assert!(unknown.contains("unknown kind `tests`"), "{unknown}");
    let catch_all = validate(r#"{"kinds": {"test": [{}]}}"#).unwrap_err();
    assert!(
        catch_all.contains("would match every command"),
        "{catch_all}"
    );
    let typo = validate(r#"{"kinds": {"test": [{"comand": ["x"]}]}}"#).unwrap_err();
    assert!(typo.contains("comand"), "{typo}");
}

#[test]
fn huge_commands_are_classified_on_their_start() {
    let command = format!("cargo test {}", "x ".repeat(200_000));
    assert_eq!(classify_command(&command), vec![Test]);
}

#[test]
fn runners_of_more_ecosystems_get_their_kinds() {
    // Test runners, builds, checks and publishing steps of ecosystems the
    // first table left out, written from their documentation: a turn that
    // ran them ran a check (or shipped), whatever the language.
    let cases: &[(&[CommandKind], &[&str])] = &[
        (
            &[Test],
            &[
                "godot --headless -s addons/gut/gut_cmdln.gd -gexit",
                "godot4 --headless -s -d res://addons/gdUnit4/bin/GdUnitCmdTool.gd -a test",
                "node --test test/",
                "php artisan test --filter=InvoiceTest",
                "./vendor/bin/phpunit tests/Unit",
                "bin/rails test test/models/user_test.rb",
                "ng test --watch=false",
                "xcodebuild test -scheme App -destination 'platform=iOS Simulator,name=iPhone 15'",
                "fastlane scan",
                "forge test -vvv",
                "npx hardhat test",
                "dune test",
                "dune runtest",
                "crystal spec",
                "gleam test",
                "nimble test",
                "rebar3 eunit",
                "busted spec/",
                "prove -lr t/",
                "ginkgo -r",
                "gotestsum --format testname ./...",
                "behave features/",
                "newman run collection.json",
                "Rscript -e 'devtools::test()'",
                "julia --project -e 'using Pkg; Pkg.test()'",
                "python tests/test_parser.py",
                "python3 run_tests.py",
                "sbt testOnly com.acme.ParserSpec",
                "docker compose exec -T web python manage.py test",
                "docker-compose run --rm app npm test",
                "./scripts/run_tests.sh",
                "bash tests/run-tests.sh --fast",
                "sh ./test.sh",
                "yarn workspace web test",
                "deno task test",
                "composer run test",
                "R CMD check --as-cran rtsmooth_0.4.0.tar.gz",
                "dbt test --select stg_payments",
                "dbt build -s +orders",
                "airflow dags test user_sessions 2024-06-01",
                "airflow tasks test etl load 2024-06-01",
                "sqlmesh test",
                "Unity -batchmode -projectPath . -runTests -testPlatform EditMode",
                "pio test -e native",
            ],
        ),
        (
            &[Build],
            &[
                "xcodebuild -scheme App build",
                "mix compile --warnings-as-errors",
                "dune build",
                "forge build",
                "npx hardhat compile",
                "elm make src/Main.elm",
                "ng build --configuration production",
                "msbuild App.sln /p:Configuration=Release",
                "swiftc main.swift",
                "godot --headless --export-release Linux build/game.x86_64",
                "nix build",
                "dbt run --select stg_payments",
                "dbt compile",
                "pio run -e esp32",
            ],
        ),
        (
            &[Lint],
            &[
                "phpstan analyse",
                "vendor/bin/psalm",
                "vue-tsc --noEmit",
                "svelte-check",
                "dart analyze",
                "flutter analyze",
                "deno lint",
                "deno check main.ts",
                "mix format --check-formatted",
                "mix credo --strict",
                "terraform fmt -check",
                "gofmt -l .",
                "shfmt -d scripts/",
                "oxlint",
                "cppcheck --enable=all src/",
                "semgrep --config auto",
                "php -l src/Invoice.php",
                "bash -n deploy.sh",
                "python -m pyright",
                "astro check",
                "terraform -chdir=dns/prod plan -out=tfplan",
                "ansible-playbook -i inventory site.yml --check",
                "ansible-playbook site.yml --syntax-check",
            ],
        ),
        (
            &[Deploy],
            &[
                "fastlane ios beta",
                "fastlane deliver",
                "eas submit -p ios",
                "eas update --branch production",
                "az webapp deploy --resource-group rg --name app --src-path app.zip",
                "az containerapp update -n api -g rg --image acr.io/api:2",
                "az deployment group create -g rg -f main.bicep",
                "func azure functionapp publish my-func",
                "doctl apps create-deployment 1234",
                "supabase functions deploy hello",
                "supabase db push",
                "npx prisma migrate deploy",
                "skaffold run -p prod",
                "argocd app sync api",
                "helmfile apply",
                "nomad job run api.nomad",
                "dotnet nuget push bin/App.1.2.0.nupkg --source nuget.org",
                "mix hex.publish",
                "pod trunk push App.podspec",
                "vsce publish",
                "npx lerna publish from-package",
                "npx changeset publish",
                "goreleaser release --clean",
                "npx semantic-release",
                "xcrun altool --upload-app -f App.ipa -t ios",
            ],
        ),
    ];
    assert_kinds(cases);
}

#[test]
fn a_local_cluster_or_a_rehearsal_is_no_deploy() {
    // A local cluster (kind, minikube, k3d, Docker Desktop) is the
    // developer's own machine; a snapshot or dry run ships nothing.
    for command in [
        "kubectl --context kind-dev apply -f k8s/",
        "kubectl apply -f k8s/ --context=minikube",
        "kubectl --context k3d-local rollout restart deploy/api",
        "kubectl --context docker-desktop delete pod api-0",
        "helm upgrade --install api ./chart --kube-context kind-dev",
        "skaffold run --kube-context minikube",
        "goreleaser release --snapshot --clean",
        "npx semantic-release --dry-run",
        "supabase db push --dry-run",
        "godot --headless -s addons/gut/gut_cmdln.gd",
        "ansible-playbook -i inventory site.yml --check --diff",
        "ansible-playbook -C site.yml",
    ] {
        let kinds = classify_command(command);
        assert!(!kinds.contains(&Deploy), "{command}: {kinds:?}");
    }
    for command in [
        "kubectl --context prod-eu apply -f k8s/",
        "kubectl --context kindergarten-prod apply -f k8s/",
        "helm upgrade --install api ./chart --kube-context staging",
        "ansible-playbook -i inventory/prod site.yml",
    ] {
        assert!(classify_command(command).contains(&Deploy), "{command}");
    }
}
