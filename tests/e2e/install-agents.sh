#!/usr/bin/env bash
# Installs the real agent CLIs used by the end-to-end tests (tests/e2e_agents.rs)
# into <repo>/.cache/agents with npm, at the versions pinned in tests/e2e/agents.json
# (the one place where they are pinned). A pin's "with" list names more packages
# installed beside it, as name@version (Factory's droid binary: the npm registry
# has no @factory/cli-linux-x64 at the wrapper's own version, so it is pinned apart).
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

# One line per pinned package: "ok|missing name package version bin-path installed-version"
# (bin-path is "-" for a pin's "with" packages).
check() {
  node -e '
    const fs = require("fs"), path = require("path");
    const [pins, dest] = process.argv.slice(1);
    const version = (pkg) => {
      try { return JSON.parse(fs.readFileSync(path.join(dest, "node_modules", pkg, "package.json"))).version; }
      catch { return "-"; }
    };
    for (const [name, p] of Object.entries(JSON.parse(fs.readFileSync(pins, "utf8")))) {
      const bin = path.join(dest, "node_modules", ".bin", p.bin);
      const have = version(p.package);
      const ok = have === p.version && fs.existsSync(bin);
      console.log([ok ? "ok" : "missing", name, p.package, p.version, bin, have].join(" "));
      for (const spec of p.with || []) {
        const at = spec.lastIndexOf("@");
        const [pkg, want] = [spec.slice(0, at), spec.slice(at + 1)];
        const got = version(pkg);
        console.log([got === want ? "ok" : "missing", name, pkg, want, "-", got].join(" "));
      }
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
    [ "$bin" = - ] && continue
    out=$("$bin" --version </dev/null 2>&1) || die "$bin --version failed: $out"
    echo "install-agents: $name --version: $(echo "$out" | head -n 1)"
  done
fi

# Copilot CLI unpacks itself (235 MB) into its cache on the first start; the
# tests share this cache (XDG_CACHE_HOME), filled here once.
cache="$dest/xdg-cache"
if [ ! -d "$cache/copilot/pkg" ] && [ -x "$dest/node_modules/.bin/copilot" ]; then
  XDG_CACHE_HOME="$cache" COPILOT_AUTO_UPDATE=false "$dest/node_modules/.bin/copilot" --version </dev/null >/dev/null ||
    die "copilot --version failed while filling $cache"
  echo "install-agents: filled Copilot CLI's cache in $cache"
fi

for row in "${rows[@]}"; do
  read -r state name package version bin have <<<"$row"
  [ "$state" = ok ] || die "$package is '$have', pinned $version"
  printf 'install-agents: %-7s %-29s %-8s %s\n' "$name" "$package" "$version" "$bin"
done
