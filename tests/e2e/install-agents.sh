#!/usr/bin/env bash
# Installs the real agent CLIs used by the end-to-end tests (tests/e2e_agents.rs)
# into <repo>/.cache/agents with npm, at the versions pinned in tests/e2e/agents.json
# (the one place where they are pinned).
#
# Idempotent and fast when nothing changed: it then only prints the versions.
# After an install it runs each CLI's --version, so a package whose install
# script did not run (Claude Code links its native binary there) is caught here.
# Fails loudly when node/npm are missing or the registry cannot be reached.
# GUARD_E2E=skip makes it a no-op, on purpose.
#
#   usage: tests/e2e/install-agents.sh
#   env:   GUARD_E2E_AGENTS_DIR=DIR   install there instead of .cache/agents
set -euo pipefail

if [ "${GUARD_E2E:-}" = skip ]; then
  echo "install-agents: GUARD_E2E=skip, not installing the agent CLIs"
  exit 0
fi

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/../.." && pwd)
pins="$here/agents.json"
dest="${GUARD_E2E_AGENTS_DIR:-$repo/.cache/agents}"

die() { echo "install-agents: ERROR: $*" >&2; exit 1; }
command -v node >/dev/null || die "node is not installed (npm and the Gemini CLI need it): apt-get install nodejs npm"
command -v npm >/dev/null || die "npm is not installed: apt-get install npm"

# One line per pin: "ok|missing name package version bin-path installed-version".
check() {
  node -e '
    const fs = require("fs"), path = require("path");
    const [pins, dest] = process.argv.slice(1);
    for (const [name, p] of Object.entries(JSON.parse(fs.readFileSync(pins, "utf8")))) {
      let have = "-";
      try { have = JSON.parse(fs.readFileSync(path.join(dest, "node_modules", p.package, "package.json"))).version; } catch {}
      const bin = path.join(dest, "node_modules", ".bin", p.bin);
      const ok = have === p.version && fs.existsSync(bin);
      console.log([ok ? "ok" : "missing", name, p.package, p.version, bin, have].join(" "));
    }' "$pins" "$dest"
}

mapfile -t rows < <(check)
[ "${#rows[@]}" -gt 0 ] || die "no agents pinned in $pins"
missing=()
for row in "${rows[@]}"; do
  read -r state name package version bin have <<<"$row"
  [ "$state" = ok ] || missing+=("$package@$version")
done

if [ "${#missing[@]}" -gt 0 ]; then
  echo "install-agents: installing ${missing[*]} into $dest"
  mkdir -p "$dest"
  [ -f "$dest/package.json" ] || echo '{"name": "guard-e2e-agents", "private": true}' > "$dest/package.json"
  start=$(date +%s)
  npm install --prefix "$dest" --no-audit --no-fund --loglevel=error "${missing[@]}" ||
    die "npm install failed: is the npm registry reachable (npm ping)? The e2e tests need these CLIs; GUARD_E2E=skip skips them on purpose."
  echo "install-agents: npm took $(( $(date +%s) - start )) s"
  mapfile -t rows < <(check)
  for row in "${rows[@]}"; do
    read -r state name package version bin have <<<"$row"
    [ "$state" = ok ] || die "$package is '$have' after npm install, pinned $version"
    out=$("$bin" --version </dev/null 2>&1) || die "$bin --version failed: $out"
    echo "install-agents: $name --version: $(echo "$out" | tail -n 1)"
  done
fi

for row in "${rows[@]}"; do
  read -r state name package version bin have <<<"$row"
  [ "$state" = ok ] || die "$package is '$have', pinned $version"
  printf 'install-agents: %-7s %-26s %-8s %s\n' "$name" "$package" "$version" "$bin"
done
