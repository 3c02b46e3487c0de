//! The embedded table: it loads, and classifies commands as a reader of the
//! turn would, including the ones that only look like a kind.

use super::*;
use CommandKind::{Build, Commit, Deploy, FileWrite, Lint, Lookup, Push, Test};

#[test]
fn embedded_table_loads() {
    let table = validate(TABLE_YAML).unwrap();
    assert!(table.rules.rules.len() > 50);
    for kind in CommandKind::ALL {
        assert!(
            table.kind_of_rule.values().any(|k| *k == kind),
            "no condition for {kind:?}"
        );
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
            ],
        ),
    ];
    for (expected, commands) in cases {
        for command in *commands {
            assert_eq!(classify_command(command), *expected, "{command}");
        }
    }
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
        "terraform plan",
        "helm template ./chart",
        "next dev",
        "cat README.md",
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
    let unknown = validate("kinds:\n  tests: [{command: [x]}]\n").unwrap_err();
    assert!(unknown.contains("unknown kind `tests`"), "{unknown}");
    let catch_all = validate("kinds:\n  test: [{}]\n").unwrap_err();
    assert!(
        catch_all.contains("would match every command"),
        "{catch_all}"
    );
    let typo = validate("kinds:\n  test: [{comand: [x]}]\n").unwrap_err();
    assert!(typo.contains("comand"), "{typo}");
}

#[test]
fn huge_commands_are_classified_on_their_start() {
    let command = format!("cargo test {}", "x ".repeat(200_000));
    assert_eq!(classify_command(&command), vec![Test]);
}
