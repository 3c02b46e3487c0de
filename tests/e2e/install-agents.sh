#!/usr/bin/env bash
# Installs the real agent CLIs used by the end-to-end tests (tests/e2e_agents.rs)
# into <repo>/.cache/agents with npm, at the versions pinned in tests/e2e/agents.json.
#
# Idempotent: when every pinned package is already installed at its version and its
# binary is present, it does nothing but print the versions. Fails loudly when npm is
# missing or the registry cannot be reached. GUARD_E2E=skip turns it into a no-op.
#
#   usage: tests/e2e/install-agents.sh            (install if needed, print versions)
#          GUARD_E2E_AGENTS_DIR=DIR tests/e2e/...  (install somewhere else)
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
command -v node >/dev/null || die "node is not installed (needed by npm and by the Gemini CLI); install nodejs and npm"
command -v npm >/dev/null || die "npm is not installed; install nodejs and npm"

# "name package version bin" lines from the pin file (node is needed anyway: parse JSON with it).
mapfile -t rows < <(node -e '
  const pins = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"));
  for (const [name, p] of Object.entries(pins)) console.log([name, p.package, p.version, p.bin].join(" "));
' "$pins")
[ "${#rows[@]}" -gt 0 ] || die "no agents pinned in $pins"

installed_version() { # package -> version installed in $dest, or empty
  local manifest="$dest/node_modules/$1/package.json"
  [ -f "$manifest" ] && node -p 'require(process.argv[1]).version' "$manifest" 2>/dev/null || true
}

missing=()
for row in "${rows[@]}"; do
  read -r name package version bin <<<"$row"
  if [ "$(installed_version "$package")" != "$version" ] || [ ! -x "$dest/node_modules/.bin/$bin" ]; then
    missing+=("$package@$version")
  fi
done

if [ "${#missing[@]}" -gt 0 ]; then
  echo "install-agents: installing ${missing[*]} into $dest"
  mkdir -p "$dest"
  [ -f "$dest/package.json" ] || echo '{"name":"guard-e2e-agents","private":true}' > "$dest/package.json"
  start=$(date +%s)
  if ! npm install --prefix "$dest" --no-audit --no-fund --loglevel=error "${missing[@]}"; then
    die "npm install failed (is the npm registry reachable? try: npm ping). Nothing else can run the e2e tests; set GUARD_E2E=skip to skip them on purpose."
  fi
  echo "install-agents: npm took $(( $(date +%s) - start )) s"
fi

status=0
for row in "${rows[@]}"; do
  read -r name package version bin <<<"$row"
  got=$(installed_version "$package")
  if [ "$got" != "$version" ] || [ ! -x "$dest/node_modules/.bin/$bin" ]; then
    echo "install-agents: ERROR: $package is '${got:-missing}', pinned $version" >&2
    status=1
    continue
  fi
  printf 'install-agents: %-7s %-28s %s  (%s)\n' "$name" "$package" "$version" "$dest/node_modules/.bin/$bin"
done
exit $status
