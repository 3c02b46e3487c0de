#!/usr/bin/env python3
"""The design article's Layer 1 (section 4: capture and bypass patterns) as
a Python Stop hook: the same regex work as reference-hook.sh, in one process.
Reads the Claude Code Stop payload on stdin; exits 0 (allow) unless a
capture pattern matches and no bypass does, in which case it blocks,
standing in for the judge (bench/compare.sh measures the miss path)."""
import json
import os
import re
import sys

CAPTURE = re.compile(
    r"Next task.*([Cc]ommit|コミット)"
    r"|([Cc]ommit|コミット).*(leave it to you|shall I|what should I do|is necessary|let's do it)"
    r"|(okay to proceed|shall I proceed|is it alright).*(commit|[Cc]ommit|push|deploy|デプロイ)"
    r"|(commit|[Cc]ommit).*(proceed to|do|will do)"
)
BYPASS = re.compile(
    r"committed|commit[:：] ?[0-9a-f]{7,}"
    r"|Q[0-9]+[:：]|Which is|A\s*or\s*B"
    r"|test PASS|All PASS|cmp match|CI ✅|smoke test complete"
    r"|pipeline PASS|pass=[0-9]+ warn=0 fail=0|rc=0|workflow success|build PASS"
    r"|sequential execution|end-to-end|(commit|push) after|verifier verdict|complete the flow"
)


def main() -> int:
    if os.environ.get("STOP_HOOK_LLM_JUDGE_ACTIVE") == "1":
        return 0
    try:
        payload = json.load(sys.stdin)
    except ValueError:
        return 0
    text = (payload.get("last_assistant_message") or "").encode()[-4000:].decode(errors="ignore")
    if not CAPTURE.search(text) or BYPASS.search(text):
        return 0
    print(json.dumps({"decision": "block", "reason": "Verify before proposing a commit."}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
