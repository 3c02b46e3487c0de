#!/usr/bin/env bash
# The reference design this project improves on: the Layer 1 of the design
# article (/work/shared/reference/design-article.txt, section 4) as a Stop
# hook in bash, with jq and `grep -E`, the way such hooks are usually written.
# It reads the Claude Code Stop payload on stdin, takes the last 4000 bytes
# of the assistant's final message, and lets it through unless a capture
# pattern matches and no bypass pattern does; a capture without a bypass
# would call the judge ($REFERENCE_JUDGE, a command reading the text on
# stdin), and a judge that answers "violation" blocks the turn.
# Used by bench/compare.sh for the whole-process comparison.
set -u

# Recursion guard: a judge's own hooks exit at once.
[ "${STOP_HOOK_LLM_JUDGE_ACTIVE:-}" = 1 ] && exit 0

payload=$(cat)
text=$(printf '%s' "$payload" | jq -r '.last_assistant_message // empty' | tail -c 4000)
[ -z "$text" ] && exit 0

# Capture patterns: what reads like a proposal to commit.
capture='Next task.*([Cc]ommit|コミット)'
capture+='|([Cc]ommit|コミット).*(leave it to you|shall I|what should I do|is necessary|let'"'"'s do it)'
capture+='|(okay to proceed|shall I proceed|is it alright).*(commit|[Cc]ommit|push|deploy|デプロイ)'
capture+='|(commit|[Cc]ommit).*(proceed to|do|will do)'

# Bypass patterns: a clear allow, no judge needed.
bypass='committed|commit[:：] ?[0-9a-f]{7,}'                       # done in the past
bypass+='|Q[0-9]+[:：]|Which is|A[[:space:]]*or[[:space:]]*B'        # options for the user
bypass+='|test PASS|All PASS|cmp match|CI ✅|smoke test complete'    # verification evidence
bypass+='|pipeline PASS|pass=[0-9]+ warn=0 fail=0|rc=0|workflow success|build PASS'
bypass+='|sequential execution|end-to-end|(commit|push) after|verifier verdict|complete the flow'

printf '%s' "$text" | grep -Eq -- "$capture" || exit 0
printf '%s' "$text" | grep -Eq -- "$bypass" && exit 0

[ -z "${REFERENCE_JUDGE:-}" ] && exit 0
verdict=$(printf '%s' "$text" | STOP_HOOK_LLM_JUDGE_ACTIVE=1 $REFERENCE_JUDGE 2>/dev/null)
if [ "$verdict" = violation ]; then
  jq -cn '{decision: "block", reason: "Verify before proposing a commit."}'
fi
exit 0
