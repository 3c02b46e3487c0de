#!/usr/bin/env bash
# Runs every fuzz target with libFuzzer (cargo-fuzz, nightly toolchain).
#   bash fuzz/run.sh short        # a few seconds per target (CI smoke run)
#   bash fuzz/run.sh long         # RUNS inputs per target (default 1,000,000)
#   bash fuzz/run.sh long hook    # only the named targets
# Each target's libFuzzer output goes to fuzz/logs/<mode>-<target>.log; a crash,
# timeout (> 10 s for one input) or memory blow-up (> 2 GiB) fails the run
# and leaves the input in fuzz/artifacts/<target>/.
set -euo pipefail
cd "$(dirname "$0")"
mode=${1:-short}
shift || true
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
  targets=(payload hook transcript config judge_answer shell redact)
fi
# No sanitizer, since speed buys inputs: none of these paths reaches guard's
# unsafe code (the SIGALRM watchdog, the judge child's process group and the
# stdin poll, docs/security.md); the hook target runs without a watchdog and
# with `judge: {backend: none}`.
# FUZZ_NO_BUILD=1 reuses the binaries already built.
if [ -z "${FUZZ_NO_BUILD:-}" ]; then
  cargo +nightly fuzz build -O -s none
fi
bin=target/x86_64-unknown-linux-gnu/release
mkdir -p logs
status=0
for t in "${targets[@]}"; do
  mkdir -p "corpus/$t" "artifacts/$t"
  if [ "$mode" = long ]; then
    limit=(-runs="${RUNS:-1000000}")
  else
    limit=(-max_total_time="${SECONDS_PER_TARGET:-5}")
  fi
  if "$bin/$t" "corpus/$t" "seeds/$t" "${limit[@]}" -timeout=10 -rss_limit_mb=2048 \
      -max_len=65536 -print_final_stats=1 -artifact_prefix="artifacts/$t/" >"logs/$mode-$t.log" 2>&1; then
    result=ok
  else
    result=FAILED
    status=1
  fi
  runs=$(grep -o 'number_of_executed_units: *[0-9]*' "logs/$mode-$t.log" | grep -o '[0-9]*$' || echo '?')
  rss=$(grep -o 'peak_rss_mb: *[0-9]*' "logs/$mode-$t.log" | grep -o '[0-9]*$' || echo '?')
  echo "fuzz $t: $result, $runs inputs, peak RSS ${rss} MB"
done
exit $status
