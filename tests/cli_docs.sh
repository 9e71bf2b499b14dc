#!/usr/bin/env bash
# The command-line reference cannot drift: docs/cli.md's generated part equals `kray help
# --markdown` (scripts/gen-cli-docs --check), it has a section for every tool, and `kray --help`
# lists every tool and every benchmark.
set -euo pipefail
. "$(dirname "$0")/cli_common.bash"
[ -x "$PY" ] || { echo "python3 not found"; exit 77; }
doc="$KRAY_SRC/docs/cli.md"
"$PY" "$KRAY_SRC/scripts/gen-cli-docs" "$KRAY" --check >"$T/diff" 2>&1 ||
    fail "docs/cli.md is not what the option tables give: $(cat "$T/diff")"
"$KRAY" help --options >"$T/opts.tsv"
tools=$(cut -f1 "$T/opts.tsv" | grep -v '^bench ' | sort -u)
benches=$(cut -f1 "$T/opts.tsv" | sed -n 's/^bench //p' | sort -u)
[ "$(echo "$tools" | wc -l)" -eq 27 ] || fail "expected 27 tools besides bench, got: $tools"
[ "$(echo "$benches" | wc -l)" -eq 16 ] || fail "expected 16 benchmarks, got: $benches"
"$KRAY" --help >"$T/help"
for t in $tools bench; do
    grep -q "^  $t " "$T/help" || fail "kray --help does not list $t"
    grep -q "^### \`kray $t\`" "$doc" || fail "docs/cli.md has no section for $t"
    grep -q "^| \[\`$t\`\]" "$doc" || fail "docs/cli.md's tool table lacks $t"
done
"$KRAY" bench --help >"$T/bhelp"
for b in $benches; do
    grep -qw "$b" <(sed -n '/^Benchmarks/,/^$/p' "$T/help") || fail "kray --help does not list benchmark $b"
    grep -q "^  $b " "$T/bhelp" || fail "kray bench --help does not list $b"
    grep -q "^| \`$b\` |" "$doc" || fail "docs/cli.md does not list benchmark $b"
done
"$KRAY" demo --list | while read -r name _; do
    grep -q "^$name " "$doc" || echo "docs/cli.md does not list the demo section $name" >>"$T/missing"
done
[ -s "$T/missing" ] && fail "$(cat "$T/missing")"
ok "docs/cli.md and kray --help list $(echo $tools | wc -w) tools + bench, $(echo $benches | wc -w) benchmarks"
finish
