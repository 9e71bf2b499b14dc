#!/usr/bin/env bash
# One vocabulary across the tools: the option tables of every tool and benchmark (`kray help
# --options`) against the vocabulary table of docs/cli.md. Fails when a long name shared by two
# tools is not in the table, when a tool binds a name of the table with another short letter or
# value placeholder, when one short letter stands for two names, when one long name has two
# short letters, or when a tool still offers a spelling the table lists as old.
set -euo pipefail
. "$(dirname "$0")/cli_common.bash"
[ -x "$PY" ] || { echo "python3 not found"; exit 77; }
"$KRAY" help --options >"$T/opts.tsv"
"$PY" - "$T/opts.tsv" "$KRAY_SRC/docs/cli.md" <<'PYEOF'
import collections, re, sys
rows = [l.rstrip('\n').split('\t') for l in open(sys.argv[1])]
doc = open(sys.argv[2], encoding='utf-8').read()
bad = []
body = doc.split('<!-- vocabulary: read by tests/cli_vocab.sh -->')[1].split('<!-- end vocabulary -->')[0]
vocab = {}
for line in body.strip().splitlines()[2:]:
    cells = [c.strip() for c in re.split(r'(?<!\\)\|', line)[1:-1]]
    if len(cells) != 4:
        bad.append('vocabulary row without 4 cells: ' + line)
        continue
    concept, opt, val, old = cells
    m = re.fullmatch(r'`(?:-(\S), )?--([a-z0-9-]+)`', opt)
    if not m:
        bad.append('vocabulary option cell not `-x, --name`: ' + opt)
        continue
    name = m.group(2)
    if name in vocab:
        bad.append('--%s has two rows in the vocabulary' % name)
    metas = [v.replace('\\|', '|') for v in re.findall(r'`([^`]+)`', val)]
    olds = []
    for o, scope in re.findall(r'`(--[a-z0-9-]+)`(?: \(([^)]*)\))?', old):
        olds.append((o[2:], [s.strip() for s in scope.split(',')] if scope else None))
    vocab[name] = (m.group(1) or '', metas, olds, concept)
opts = [r for r in rows if r[5] == 'opt']
tools = sorted(set(r[0] for r in rows))
by_name = collections.defaultdict(list)
for t, name, sh, typ, meta, kind, ch in opts:
    by_name[name].append((t, sh, meta))
# 1. a long name in two tools is one documented concept
for name, uses in sorted(by_name.items()):
    if len(set(u[0] for u in uses)) > 1 and name not in vocab:
        bad.append('--%s is used by %s but not in the vocabulary of docs/cli.md'
                   % (name, ', '.join(sorted(set(u[0] for u in uses)))))
# 2. every use of a vocabulary name has its letter and one of its placeholders
for name, (sh, metas, olds, concept) in vocab.items():
    if name not in by_name:
        bad.append('--%s (%s) is in the vocabulary but no tool has it' % (name, concept))
    for t, s, meta in by_name.get(name, []):
        if s != sh:
            bad.append("%s: --%s has short letter '%s'; the vocabulary says '%s'" % (t, name, s, sh))
        if (metas or meta) and meta not in metas:
            bad.append('%s: --%s shows %s; the vocabulary allows %s' % (t, name, meta, metas))
# 3. one short letter, one long name (tool options and the common ones)
letters = collections.defaultdict(set)
for t, name, sh, typ, meta, kind, ch in rows:
    if sh and kind in ('opt', 'common'):
        letters[sh].add(name)
for sh, names in sorted(letters.items()):
    if len(names) > 1:
        bad.append("-%s stands for %s" % (sh, ', '.join('--' + n for n in sorted(names))))
# 4. one long name, one short letter (or none) everywhere
for name, uses in sorted(by_name.items()):
    shs = set(u[1] for u in uses)
    if len(shs) > 1:
        bad.append('--%s has the short letters %s' % (name, sorted(shs)))
# 5. no tool offers an old spelling
for name, (sh, metas, olds, concept) in vocab.items():
    for old, scope in olds:
        for t, s, meta in by_name.get(old, []):
            if scope is None or t in scope:
                bad.append('%s still offers --%s; the vocabulary spells it --%s' % (t, old, name))
# 6. old spellings are hidden rows: aliases name an existing option, renamed rows a spelling
for t, name, sh, typ, meta, kind, ch in rows:
    if kind == 'alias' and not any(r[0] == t and r[1] == meta and r[5] != 'alias' for r in rows):
        bad.append('%s: alias --%s names --%s, which the tool does not have' % (t, name, meta))
for line in bad:
    print('FAIL: ' + line)
print('%d tools and benchmarks, %d options, %d vocabulary rows, %d problems'
      % (len(tools), len(opts), len(vocab), len(bad)))
sys.exit(1 if bad else 0)
PYEOF
ok "vocabulary"
finish
