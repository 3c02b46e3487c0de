//! The embedded table: it loads, and classifies commands as a reader of the
//! turn would, including the ones that only look like a kind.

use super::*;
use CommandKind::{Build, Commit, Deploy, FileWrite, Lint, Push, Test};

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
    let cases: &[(&str, &[CommandKind])] = &[
        // tests, through wrappers, chains and pipelines
        ("cargo test", &[Test]),
        ("cargo test --workspace -- --nocapture", &[Test]),
        ("cargo +nightly test", &[Test]),
        ("cargo nextest run", &[Test]),
        (
            "RUST_LOG=debug cargo --manifest-path x/Cargo.toml test",
            &[Test],
        ),
        ("cd app && npm test", &[Test]),
        ("npm run test:unit -- --watch=false", &[Test]),
        ("pnpm --filter web test", &[Test]),
        ("yarn test", &[Test]),
        ("npx jest --ci", &[Test]),
        ("npx vitest run", &[Test]),
        ("pytest -q tests/", &[Test]),
        ("python -m pytest -x", &[Test]),
        ("python3.12 -m unittest discover", &[Test]),
        ("uv run pytest", &[Test]),
        ("poetry run pytest", &[Test]),
        ("python manage.py test", &[Test]),
        ("go test ./...", &[Test]),
        ("make test", &[Test]),
        ("make -C build check", &[Test]),
        ("mvn -q test", &[Test]),
        ("./gradlew :app:test", &[Test]),
        ("tox -e py312", &[Test]),
        ("ctest --output-on-failure", &[Test]),
        ("bundle exec rspec spec/models", &[Test]),
        ("dotnet test", &[Test]),
        ("timeout 600 bash -c 'cargo test'", &[Test]),
        ("cargo test 2>&1 | tail -20", &[Test]),
        // builds and linters
        ("cargo build --release", &[Build]),
        ("cargo check --all-targets", &[Build]),
        ("cargo clippy -- -D warnings", &[Lint]),
        ("npm run build", &[Build]),
        ("npx tsc --noEmit", &[Build]),
        ("go build ./...", &[Build]),
        ("go vet ./...", &[Lint]),
        ("make", &[Build]),
        ("make -j8", &[Build]),
        ("cmake --build build", &[Build]),
        ("ruff check .", &[Lint]),
        ("eslint src", &[Lint]),
        ("cargo build && cargo test", &[Test, Build]),
        // commits, pushes, deploys
        ("git commit -m 'Fix parser'", &[Commit]),
        ("git -C repo commit -am wip", &[Commit]),
        (
            "git add -A && git commit -m x && git push origin main",
            &[Commit, Push],
        ),
        ("git push --force-with-lease", &[Push]),
        ("gh pr create --fill", &[Push]),
        ("gh pr merge 12 --squash", &[Push]),
        ("kubectl -n prod apply -f deploy.yaml", &[Deploy]),
        ("helm upgrade --install api ./chart", &[Deploy]),
        ("terraform apply -auto-approve", &[Deploy]),
        ("fly deploy", &[Deploy]),
        ("vercel --prod", &[Deploy]),
        ("npm publish", &[Deploy]),
        ("cargo publish", &[Deploy]),
        ("gcloud run deploy api --source .", &[Deploy]),
        ("docker push registry/app:1.2", &[Deploy]),
        // writes to files
        ("sed -i 's/a/b/' src/lib.rs", &[FileWrite]),
        ("perl -pi -e 's/a/b/' x.txt", &[FileWrite]),
        ("cat > src/new.rs <<'EOF'\nfn main() {}\nEOF", &[FileWrite]),
        ("echo done >> notes.md", &[FileWrite]),
        ("git apply fix.patch", &[FileWrite]),
        ("npm test > test.log 2>&1", &[Test, FileWrite]),
    ];
    for (command, expected) in cases {
        assert_eq!(classify_command(command), *expected, "{command}");
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
        let unexpected: Vec<_> = kinds
            .iter()
            .filter(|k| !(command.starts_with("cargo build") && **k == Build))
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
