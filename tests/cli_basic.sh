#!/usr/bin/env bash
# kray CLI: --help, --version, per-tool help, and usage errors (exit 2, one sentence on stderr).
set -euo pipefail
. "$(dirname "$0")/cli_common.bash"

expect_rc 0 - "$KRAY" --help
TOOLS=$("$KRAY" help --options | cut -f1 | grep -v '^bench ' | sort -u)
for tool in $TOOLS bench; do
    grep -q "^  $tool " "$T/out" || fail "kray --help does not list '$tool'"
done
expect_rc 0 - "$KRAY" --version
grep -qE '^kray [0-9]+\.[0-9]+\.[0-9]+ \(.*openmp.*\)$' "$T/out" ||
    fail "kray --version: unexpected '$(cat "$T/out")'"
expect_rc 2 - "$KRAY"
expect_rc 2 - "$KRAY" frobnicate
expect_rc 2 - "$KRAY" --frobnicate

# Every tool: --help on stdout with the usage line, units/defaults and the common options.
for tool in $TOOLS; do
    expect_rc 0 "$tool" "$KRAY" "$tool" --help
    head -n 1 "$T/out" | grep -q "^Usage: kray $tool " || fail "$tool --help: no usage line"
    for opt in --backend --device --threads --precision --quiet --verbose --help; do
        grep -q -- "$opt" "$T/out" || fail "$tool --help does not show $opt"
    done
    grep -q "default: " "$T/out" || fail "$tool --help shows no defaults"
    [ -s "$T/err" ] && fail "$tool --help wrote to stderr"
    expect_rc 0 "$tool" "$KRAY" help "$tool"
done
# --json only where the tool measures.
"$KRAY" metrics --help | grep -q -- "--json" || fail "metrics --help lacks --json"
"$KRAY" info --help | grep -q -- "--json" || fail "info --help lacks --json"
"$KRAY" convert --help | grep -q -- "--json" && fail "convert --help offers --json"

# Bad usage: exit 2 and one sentence naming the problem; nothing written.
cd "$T"
expect_rc 2 phantom "$KRAY" phantom
expect_rc 2 phantom "$KRAY" phantom --no-such-option p.npy
expect_rc 2 phantom "$KRAY" phantom --size
expect_rc 2 phantom "$KRAY" phantom --size 0 p.npy
expect_rc 2 phantom "$KRAY" phantom --size 12x p.npy
expect_rc 2 phantom "$KRAY" phantom --size abc p.npy
expect_rc 2 phantom "$KRAY" phantom --supersample 1.5 p.npy
expect_rc 2 phantom "$KRAY" phantom --supersample 0 p.npy
expect_rc 2 phantom "$KRAY" phantom --kind banana p.npy
expect_rc 2 phantom "$KRAY" phantom --threads -2 p.npy
expect_rc 2 phantom "$KRAY" phantom --backend tpu p.npy
expect_rc 2 phantom "$KRAY" phantom --arc nan p.npy
expect_rc 2 phantom "$KRAY" phantom --quiet=yes p.npy
expect_rc 2 phantom "$KRAY" phantom p.npy extra.npy
expect_rc 2 phantom "$KRAY" phantom p.unknownext
expect_rc 2 phantom "$KRAY" phantom --3d --kind sinogram p.npy
expect_rc 2 phantom "$KRAY" phantom --kind kspace --size 64x32 k.cfl
expect_rc 2 convert "$KRAY" convert only-one.npy
expect_rc 2 convert "$KRAY" convert --window 1:0 a.npy b.png
expect_rc 2 convert "$KRAY" convert --window 0 a.npy b.png
expect_rc 2 convert "$KRAY" convert --bits 12 a.npy b.png
expect_rc 2 convert "$KRAY" convert --part angle a.cfl b.png
expect_rc 2 convert "$KRAY" convert a.png b.npy
expect_rc 2 convert "$KRAY" convert a.raw b.npy
expect_rc 2 info "$KRAY" info
expect_rc 2 info "$KRAY" info --dims 0x4 a.raw
expect_rc 2 metrics "$KRAY" metrics a.npy
expect_rc 2 metrics "$KRAY" metrics --range -1 a.npy b.npy
expect_rc 2 metrics "$KRAY" metrics --range x a.npy b.npy
expect_rc 2 demo "$KRAY" demo --only nosuchsection --out d
expect_rc 2 demo "$KRAY" demo unexpected-positional
[ -z "$(ls -A "$T" | grep -vE '^(out|err)$' || true)" ] ||
    fail "usage errors left files behind: $(ls -A "$T")"

expect_rc 0 demo "$KRAY" demo --list
grep -q '^system ' "$T/out" || fail "demo --list lacks the system section"
finish
