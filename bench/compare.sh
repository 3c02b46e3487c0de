#!/usr/bin/env bash
# Whole-process comparison of `guard hook` (docs/performance.md), in one run:
#
#   floor        a Rust program that only reads stdin (bench/floor.rs)
#   guard miss   guard hook claude-code, 4 KB turn end that Layer 1 lets through
#   guard hit    the same with a Layer-1 hit and a judge that answers at once
#                (and the same with one non-ASCII character in the text)
#   judge        that judge's own process, alone
#   bash+jq      the design article's Layer 1 as a bash hook (bench/reference-hook.sh)
#   python       the same regex work in Python (bench/reference_hook.py)
#   transcript   guard miss reading the turn from a 1 KB and a 100 MB transcript,
#                and from a turn that edited a file and ran the tests (its actions)
#   Bash         guard hook on a Bash call the shell gate lets through (`cargo
#                test`; a chain of three programs)
#   all five     a turn that hits all five turn-end detectors, judge taking 200 ms
#   judge 200ms  that judge alone
#
# The commands run round-robin (bench/runner.rs) so that the machine's load
# touches all alike; the table gives medians, p99 and peak RSS, then the
# ratios the targets are stated in. hyperfine (installed if missing) gives a
# cross-check of the first rows.
#
# Usage: bench/compare.sh [RUNS]   (RUNS defaults to 300; SLOW_RUNS=20 for
# the 200 ms judge rows; HYPERFINE=0 skips the cross-check). BASE_BIN=PATH
# adds the miss and hit rows of another guard binary (an older build) to the
# same round-robin run, for a before/after comparison (both binaries are
# copied at the start of the run: docs/performance.md explains why).
set -euo pipefail
cd "$(dirname "$0")/.."
RUNS=${1:-300}
SLOW_RUNS=${SLOW_RUNS:-20}
WARMUP=${WARMUP:-10}

need() { command -v "$1" >/dev/null 2>&1; }
if ! need hyperfine && [ "${HYPERFINE:-1}" = 1 ]; then
  echo "installing hyperfine…" >&2
  (apt-get install -y -qq hyperfine || (apt-get update -qq && apt-get install -y -qq hyperfine)) >/dev/null 2>&1 \
    || echo "hyperfine could not be installed; skipping the cross-check" >&2
fi
for tool in jq python3 rustc cargo; do
  need "$tool" || { echo "compare.sh needs $tool" >&2; exit 1; }
done

if [ -n "${GUARD_BIN:-}" ] && [ -n "${JUDGE_BIN:-}" ]; then
  GUARD=$GUARD_BIN JUDGE=$JUDGE_BIN # already built (e.g. a profiling build)
else
  echo "building guard (release) and the test judge…" >&2
  cargo build --release --quiet --bin guard --example test_judge
  GUARD=$PWD/target/release/guard
  JUDGE=$PWD/target/release/examples/test_judge
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# Both builds run from copies made now, so that the page cache holds them
# alike (docs/performance.md: the same bytes ran 15 % apart from an old copy
# and a fresh one).
cp "$GUARD" "$work/guard"
GUARD=$work/guard
if [ -n "${BASE_BIN:-}" ]; then
  cp "$BASE_BIN" "$work/guard-before"
  BASE_BIN=$work/guard-before
fi
rustc -O -o "$work/floor" bench/floor.rs
rustc -O -o "$work/runner" bench/runner.rs
mkdir -p "$work/home" "$work/project"
export HOME=$work/home XDG_STATE_HOME=$work/state XDG_CONFIG_HOME=$work/config
unset GUARD_CONFIG GUARD_JUDGE_ACTIVE STOP_HOOK_LLM_JUDGE_ACTIVE

# Payloads, transcripts and configs.
python3 - "$work" "$JUDGE" <<'PY'
import json, os, sys
work, judge = sys.argv[1], sys.argv[2]
QUIET = ("The parser reads each record once and keeps offsets in a table. The second pass "
         "over the file was removed, and two helpers were renamed to say what they return. ")
def fill(text, size):
    return (text * (size // len(text) + 1))[:size]
quiet4k = fill(QUIET, 4000)
hit4k = fill(QUIET, 3900) + " Shall I commit and push this now?"
# One em dash: the text is no longer pure ASCII (Layer 1's Unicode builds).
hitutf8 = fill(QUIET, 3900) + " Done \u2014 shall I commit and push this now?"
all5 = fill(QUIET, 3000) + (" I changed the timeout in the client and the bug is fixed: it works now."
        " Shall I commit and push this to main? I will defer the remaining items to a later"
        " session and leave the other parts out of scope for now.")

def line(kind, text, i):
    content = text if kind == "user" else [{"type": "text", "text": text}]
    return json.dumps({"type": kind, "uuid": f"u{i}", "sessionId": "s1",
                       "message": {"id": f"m{i}", "role": kind, "content": content}}) + "\n"

def transcript(path, size, last):
    with open(path, "w") as f:
        written, i, filler = 0, 0, fill(QUIET, 900)
        while written + 2 * len(last) + 400 < size:
            l = line("user" if i % 2 == 0 else "assistant", filler, i)
            f.write(l); written += len(l); i += 1
        f.write(line("user", "Please tidy the parser.", i))
        f.write(line("assistant", last, i + 1))

def payload(name, text, tpath):
    with open(os.path.join(work, name), "w") as f:
        json.dump({"session_id": "bench-" + name, "transcript_path": tpath,
                   "cwd": os.path.join(work, "project"), "prompt_id": "p-" + name,
                   "permission_mode": "default", "hook_event_name": "Stop",
                   "stop_hook_active": False, "last_assistant_message": text}, f)

def transcript_with_actions(path, last):
    # A turn that edited a file and ran the tests: Layer 1 reads its actions.
    calls = [("t1", "Edit", {"file_path": "/w/src/parser.rs", "old_string": "a", "new_string": "b"}, "ok"),
             ("t2", "Bash", {"command": "cargo test"}, "test result: ok. 12 passed")]
    with open(path, "w") as f:
        f.write(line("user", "Please tidy the parser.", 0))
        for i, (id, name, args, result) in enumerate(calls):
            f.write(json.dumps({"type": "assistant", "message": {"id": f"c{i}", "role": "assistant",
                "content": [{"type": "tool_use", "id": id, "name": name, "input": args}]}}) + "\n")
            f.write(json.dumps({"type": "user", "message": {"role": "user",
                "content": [{"type": "tool_result", "tool_use_id": id, "content": result, "is_error": False}]}}) + "\n")
        f.write(line("assistant", last, 9))

def pretool(name, command):
    # A Bash call the shell gate lets through: its program is among the
    # dangerous-command detector's keywords, so its rules run.
    with open(os.path.join(work, name), "w") as f:
        json.dump({"session_id": "bench-" + name, "transcript_path": f"{work}/t-miss.jsonl",
                   "cwd": os.path.join(work, "project"), "permission_mode": "default",
                   "hook_event_name": "PreToolUse", "tool_name": "Bash",
                   "tool_input": {"command": command}, "tool_use_id": "toolu_bench"}, f)

pretool("bash-cargo.json", "cargo test")
pretool("bash-chain.json", "cd web && npm run build && python -m pytest tests/ -x")
short = fill(QUIET, 400)
transcript(f"{work}/t-miss.jsonl", 0, quiet4k)
transcript_with_actions(f"{work}/t-miss-actions.jsonl", quiet4k)
transcript(f"{work}/t-hit.jsonl", 0, hit4k)
transcript(f"{work}/t-hit-utf8.jsonl", 0, hitutf8)
transcript(f"{work}/t-all5.jsonl", 0, all5)
transcript(f"{work}/t-1k.jsonl", 1024, short)
transcript(f"{work}/t-100m.jsonl", 100 * 1024 * 1024, short)
payload("miss.json", quiet4k, f"{work}/t-miss.jsonl")
payload("miss-actions.json", quiet4k, f"{work}/t-miss-actions.jsonl")
payload("hit.json", hit4k, f"{work}/t-hit.jsonl")
payload("hit-utf8.json", hitutf8, f"{work}/t-hit-utf8.jsonl")
payload("all5.json", all5, f"{work}/t-all5.jsonl")
payload("tx-1k.json", short, f"{work}/t-1k.jsonl")
payload("tx-100m.json", short, f"{work}/t-100m.jsonl")
with open(f"{work}/envelope.txt", "w") as f:
    f.write("Judge this text.\n--- text-begin n0 ---\n" + hit4k + "\n--- text-end n0 ---\n")
for name, mode in [("at-once", "ok"), ("200ms", "sleep=200")]:
    with open(f"{work}/judge-{name}.yaml", "w") as f:
        f.write(f"judge: {{backend: command, command: [{json.dumps(judge)}, {json.dumps(mode)}], cache_ttl_s: 0}}\n")
PY

# Checks that each guard row takes the path it claims (from the decision log).
last_record() { tail -n 1 "$XDG_STATE_HOME"/guard/logs/decisions-*.jsonl; }
check_path() { # name, payload, expected layer1 states (jq), expected judgments (a regex), config...
  local name=$1 payload=$2 want=$3 judged=$4; shift 4
  "$GUARD" "$@" hook claude-code <"$work/$payload" >/dev/null
  local got
  got=$(last_record | jq -c '[.detectors[] | .layer1]')
  local runs
  runs=$(last_record | jq '[.detectors[] | select(.judge.outcome != "skipped")] | length')
  if [ "$got" != "$want" ] || ! [[ "$runs" =~ ^($judged)$ ]]; then
    echo "$name: expected Layer 1 $want with $judged judgment(s), got $got with $runs" >&2
    last_record >&2
    exit 1
  fi
}
check_path "guard miss" miss.json '["miss","miss","miss","miss","miss"]' 0
check_path "guard miss, turn with actions" miss-actions.json '["miss","miss","miss","miss","miss"]' 0
check_path "guard allow, Bash cargo test" bash-cargo.json '["miss"]' 0
check_path "guard allow, Bash chain" bash-chain.json '["miss"]' 0
check_path "transcript 100 MB" tx-100m.json '["miss","miss","miss","miss","miss"]' 0
# A hit judges the whole turn: the four detectors that missed join its one call.
check_path "guard hit" hit.json '["miss","hit","miss","miss","miss"]' 5 --config "$work/judge-at-once.yaml"
check_path "guard hit, non-ASCII" hit-utf8.json '["miss","hit","miss","miss","miss"]' 5 --config "$work/judge-at-once.yaml"
check_path "all five" all5.json '["hit","hit","hit","hit","hit"]' 5 --config "$work/judge-200ms.yaml"
if [ -n "${BASE_BIN:-}" ]; then
  GUARD=$BASE_BIN check_path "before: guard miss" miss.json '["miss","miss","miss","miss","miss"]' 0
  GUARD=$BASE_BIN check_path "before: guard hit" hit.json '["miss","hit","miss","miss","miss"]' '1|5' --config "$work/judge-at-once.yaml"
fi

T=$'\t'
cat >"$work/fast.tsv" <<EOF
floor${T}$work/miss.json${T}$work/floor
guard miss${T}$work/miss.json${T}$GUARD${T}hook${T}claude-code
guard hit, judge at once${T}$work/hit.json${T}$GUARD${T}--config${T}$work/judge-at-once.yaml${T}hook${T}claude-code
guard hit, non-ASCII text${T}$work/hit-utf8.json${T}$GUARD${T}--config${T}$work/judge-at-once.yaml${T}hook${T}claude-code
judge at once, alone${T}$work/envelope.txt${T}$JUDGE${T}ok
bash+jq reference${T}$work/miss.json${T}bash${T}$PWD/bench/reference-hook.sh
python reference${T}$work/miss.json${T}python3${T}$PWD/bench/reference_hook.py
guard miss, 1 KB transcript${T}$work/tx-1k.json${T}$GUARD${T}hook${T}claude-code
guard miss, 100 MB transcript${T}$work/tx-100m.json${T}$GUARD${T}hook${T}claude-code
guard miss, turn with an edit and a test${T}$work/miss-actions.json${T}$GUARD${T}hook${T}claude-code
guard allow, Bash cargo test${T}$work/bash-cargo.json${T}$GUARD${T}hook${T}claude-code
guard allow, Bash chain${T}$work/bash-chain.json${T}$GUARD${T}hook${T}claude-code
EOF
if [ -n "${BASE_BIN:-}" ]; then
  cat >>"$work/fast.tsv" <<EOF
before: guard miss${T}$work/miss.json${T}$BASE_BIN${T}hook${T}claude-code
before: guard hit, judge at once${T}$work/hit.json${T}$BASE_BIN${T}--config${T}$work/judge-at-once.yaml${T}hook${T}claude-code
before: guard hit, non-ASCII text${T}$work/hit-utf8.json${T}$BASE_BIN${T}--config${T}$work/judge-at-once.yaml${T}hook${T}claude-code
before: guard miss, turn with an edit and a test${T}$work/miss-actions.json${T}$BASE_BIN${T}hook${T}claude-code
before: guard allow, Bash cargo test${T}$work/bash-cargo.json${T}$BASE_BIN${T}hook${T}claude-code
before: guard allow, Bash chain${T}$work/bash-chain.json${T}$BASE_BIN${T}hook${T}claude-code
EOF
fi
cat >"$work/slow.tsv" <<EOF
all five hit, judge 200 ms${T}$work/all5.json${T}$GUARD${T}--config${T}$work/judge-200ms.yaml${T}hook${T}claude-code
judge 200 ms, alone${T}$work/envelope.txt${T}$JUDGE${T}sleep=200
EOF

echo "running $RUNS rounds (and $SLOW_RUNS of the 200 ms rows)…" >&2
"$work/runner" "$RUNS" "$WARMUP" "$work/fast.tsv" >"$work/results.tsv"
"$work/runner" "$SLOW_RUNS" 2 "$work/slow.tsv" >>"$work/results.tsv"

python3 - "$work/results.tsv" <<'PY'
import os, platform, subprocess, sys
rows = {}
for line in open(sys.argv[1]):
    name, median, mean, p99, fastest, rss, runs = line.rstrip("\n").split("\t")
    rows[name] = dict(median=float(median), mean=float(mean), p99=float(p99),
                      min=float(fastest), rss=int(rss), runs=int(runs))
cpu = next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name")), "?")
print(f"machine: {cpu}, {os.cpu_count()} CPUs, Linux {platform.release()}, "
      f"load average {os.getloadavg()[0]:.1f} at the end")
print()
print("| command | median ms | mean ms | p99 ms | min ms | peak RSS KB | runs |")
print("|---|---:|---:|---:|---:|---:|---:|")
for name, r in rows.items():
    print(f"| {name} | {r['median']:.3f} | {r['mean']:.3f} | {r['p99']:.3f} | {r['min']:.3f} | {r['rss']} | {r['runs']} |")
m = lambda n: rows[n]["median"]
checks = [
    ("Layer-1 miss / floor", m("guard miss") / m("floor"), "<= 2.0", lambda x: x <= 2.0),
    ("bash+jq reference / Layer-1 miss", m("bash+jq reference") / m("guard miss"), ">= 10", lambda x: x >= 10),
    ("python reference / Layer-1 miss", m("python reference") / m("guard miss"), "(for reference)", lambda x: True),
    ("100 MB transcript / 1 KB transcript", m("guard miss, 100 MB transcript") / m("guard miss, 1 KB transcript"), "<= 1.2", lambda x: x <= 1.2),
    ("peak RSS on the Layer-1 path, MB", rows["guard miss"]["rss"] / 1024, "<= 10", lambda x: x <= 10),
    ("all five hit, judge 200 ms / one judgment", m("all five hit, judge 200 ms") / m("judge 200 ms, alone"), "<= 1.3", lambda x: x <= 1.3),
    ("Layer-1 miss of a turn with an edit and a test / floor", m("guard miss, turn with an edit and a test") / m("floor"), "<= 2.0", lambda x: x <= 2.0),
    ("Bash call let through (cargo test) / floor", m("guard allow, Bash cargo test") / m("floor"), "<= 2.0", lambda x: x <= 2.0),
    ("Bash call let through (a chain of three) / floor", m("guard allow, Bash chain") / m("floor"), "<= 2.0", lambda x: x <= 2.0),
    ("hit with judge at once - the judge alone, ms", m("guard hit, judge at once") - m("judge at once, alone"), "< 5", lambda x: x < 5),
    ("the same, non-ASCII text, ms", m("guard hit, non-ASCII text") - m("judge at once, alone"), "(for reference)", lambda x: True),
]
if "before: guard miss" in rows:
    checks += [
        ("before: Layer-1 miss / floor", m("before: guard miss") / m("floor"), "(for reference)", lambda x: True),
        ("hit with judge at once, this build / before", m("guard hit, judge at once") / m("before: guard hit, judge at once"), "<= 1.0", lambda x: x <= 1.0),
        ("the same, non-ASCII text, this build / before", m("guard hit, non-ASCII text") / m("before: guard hit, non-ASCII text"), "(for reference)", lambda x: True),
        ("the same miss with an edit and a test, this build / before", m("guard miss, turn with an edit and a test") / m("before: guard miss, turn with an edit and a test"), "(for reference)", lambda x: True),
        ("before: the same miss with an edit and a test / floor", m("before: guard miss, turn with an edit and a test") / m("floor"), "(for reference)", lambda x: True),
        ("before: Bash call let through (cargo test) / floor", m("before: guard allow, Bash cargo test") / m("floor"), "(for reference)", lambda x: True),
        ("before: Bash call let through (a chain of three) / floor", m("before: guard allow, Bash chain") / m("floor"), "(for reference)", lambda x: True),
        ("before: hit with judge at once - the judge alone, ms", m("before: guard hit, judge at once") - m("judge at once, alone"), "(for reference)", lambda x: True),
    ]
print()
print("| target | figure | wanted | met |")
print("|---|---:|---|---|")
for name, value, wanted, ok in checks:
    print(f"| {name} | {value:.2f} | {wanted} | {'yes' if ok(value) else 'NO'} |")
PY

if need hyperfine && [ "${HYPERFINE:-1}" = 1 ]; then
  echo
  echo "hyperfine cross-check (shell start-up subtracted by hyperfine):"
  hyperfine --shell=sh --warmup 10 --runs 100 --style basic \
    -n floor "$work/floor < $work/miss.json" \
    -n "guard miss" "$GUARD hook claude-code < $work/miss.json" \
    -n "bash+jq reference" "bash $PWD/bench/reference-hook.sh < $work/miss.json" 2>/dev/null \
    | grep -E "^Benchmark|Time \(mean" || true
fi
