#!/usr/bin/env bash
# No two files of a library import each other, directly or in a circle.
#
#   bash tests/file-cycles.sh                  # runtime, compiler, analysis, report
#   bash tests/file-cycles.sh runtime/src      # one crate
#
# An edge A -> B is a path in A that names an item of B: `use crate::...`, `use super::...`,
# `use self::...` (use trees expanded), the same paths written in code, and in a `mod.rs` or
# `lib.rs` a path through one of its own child modules (`child::f`). A name that a module
# re-exports (`pub use child::Name`) is counted as the child's. Comments, strings and test
# code (`#[cfg(test)]` items and the files of `#[cfg(test)] mod name;`) are skipped: the
# libraries are what must form a DAG. Declaring a module (`mod child;`) is not an edge. Prints each cycle (a strongly
# connected component, with its edges) and exits 1 if there is one, 0 otherwise. Needs python3.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
if [ $# -eq 0 ]; then set -- runtime/src compiler/src analysis/src report/src; fi
exec python3 - "$@" <<'PY'
import os, re, sys
from collections import defaultdict

def strip(text):
    # remove comments, strings and char literals (roughly), keep newlines
    out = []; i = 0; n = len(text)
    while i < n:
        c = text[i]
        if text.startswith('//', i):
            j = text.find('\n', i); j = n if j < 0 else j; i = j; continue
        if text.startswith('/*', i):
            depth = 1; i += 2
            while i < n and depth:
                if text.startswith('/*', i): depth += 1; i += 2
                elif text.startswith('*/', i): depth -= 1; i += 2
                else: i += 1
            continue
        m = re.match(r'r(#*)"', text[i:i+10]) if c == 'r' and (i == 0 or not (text[i-1].isalnum() or text[i-1] == '_')) else None
        if m:
            hashes = m.group(1); end = '"' + hashes
            j = text.find(end, i + len(m.group(0)))
            j = n if j < 0 else j + len(end)
            out.append('""'); i = j; continue
        if c == '"':
            j = i + 1
            while j < n and text[j] != '"':
                j += 2 if text[j] == '\\' else 1
            out.append('""' + '\n' * text.count('\n', i, j)); i = j + 1; continue
        if c == "'":
            m = re.match(r"'(\\.|\\u\{[0-9a-fA-F]+\}|\\x..|[^\\'])'", text[i:i+12])
            if m: out.append("' '"); i += len(m.group(0)); continue
        out.append(c); i += 1
    return ''.join(out)

def drop_test_code(text):
    """removes `#[cfg(test)]` items (a block or a statement up to `;`)"""
    out = []
    i = 0
    for m in re.finditer(r'#\[cfg\(test\)\]', text):
        if m.start() < i:
            continue
        out.append(text[i:m.start()])
        j = m.end()
        while j < len(text) and text[j] not in '{;':
            j += 1
        if j < len(text) and text[j] == '{':
            depth = 0
            while j < len(text):
                if text[j] == '{': depth += 1
                elif text[j] == '}':
                    depth -= 1
                    if depth == 0: break
                j += 1
        i = j + 1
    out.append(text[i:])
    return ''.join(out)

def test_only_files(mods):
    """files declared `#[cfg(test)] mod name;`"""
    out = set()
    for mpath, f in mods.items():
        text = strip(open(f).read())
        for m in re.finditer(r'#\[cfg\(test\)\]\s*(?:pub(?:\([^)]*\))?\s+)?mod\s+(\w+)\s*;', text):
            child = mpath + (m.group(1),)
            if child in mods:
                out.add(mods[child])
    return out

def file_modules(src):
    """map module path tuple -> file, for a crate's src dir"""
    mods = {}
    for root, _, files in os.walk(src):
        for f in files:
            if not f.endswith('.rs'): continue
            p = os.path.relpath(os.path.join(root, f), src)
            parts = p[:-3].split(os.sep)
            if parts[-1] in ('mod', 'lib', 'main'): parts = parts[:-1]
            mods[tuple(parts)] = os.path.join(root, f)
    return mods

def expand_use(tree):
    """expand a use tree 'a::{b, c::{d, e}}' into list of paths"""
    tree = tree.strip()
    depth = 0
    for k, ch in enumerate(tree):
        if ch == '{':
            prefix = tree[:k]
            inner = tree[k+1:tree.rfind('}')]
            parts, d, start = [], 0, 0
            for j, c2 in enumerate(inner):
                if c2 == '{': d += 1
                elif c2 == '}': d -= 1
                elif c2 == ',' and d == 0:
                    parts.append(inner[start:j]); start = j + 1
            parts.append(inner[start:])
            res = []
            for p in parts:
                p = p.strip()
                if not p: continue
                for e in expand_use(p):
                    res.append(prefix + e if e != 'self' else prefix.rstrip(':'))
            return res
    return [re.sub(r'\s+as\s+\w+$', '', tree)]

def reexports(mods):
    """per module file: names it re-exports (`pub use child::Name`) -> the module path named"""
    out = defaultdict(dict)
    for mpath, f in mods.items():
        text = drop_test_code(strip(open(f).read()))
        for m in re.finditer(r'\bpub(?:\([^)]*\))?\s+use\s+([^;]+);', text):
            for p in expand_use(m.group(1)):
                segs = re.sub(r'\s', '', p).split('::')
                if segs[0] == 'self': segs = segs[1:]
                if segs and segs[0] not in ('crate', 'super') and len(segs) >= 2:
                    out[f][segs[-1]] = mpath + tuple(segs[:-1])
    return out

def analyse(src):
    mods = file_modules(src)
    tests = test_only_files(mods)
    mods = {m: f for m, f in mods.items() if f not in tests}
    reexp = reexports(mods)
    edges = defaultdict(set)
    for mpath, f in mods.items():
        text = drop_test_code(strip(open(f).read()))
        children = {m[-1] for m in mods if len(m) == len(mpath) + 1 and m[:-1] == mpath}
        # inline modules: track by brace depth
        stack = []  # (name, depth)
        depth = 0
        paths = []  # (path string, inline mods)
        for m in re.finditer(r'\bmod\s+(\w+)\s*\{|[{}]|\buse\s+([^;]+);|\b((?:crate|super|self)(?:\s*::\s*\w+)+)|\b([a-z_]\w*)\s*::\s*\w+', text):
            tok = m.group(0)
            if m.group(1):
                depth += 1; stack.append((m.group(1), depth)); continue
            if tok == '{': depth += 1; continue
            if tok == '}':
                if stack and stack[-1][1] == depth: stack.pop()
                depth -= 1; continue
            inline = tuple(s[0] for s in stack)
            if m.group(2):
                for p in expand_use(m.group(2)):
                    paths.append((re.sub(r'\s', '', p), inline))
            elif m.group(3):
                paths.append((re.sub(r'\s', '', m.group(3)), inline))
            elif m.group(4) and m.group(4) in children and not inline:
                paths.append((re.sub(r'\s', '', tok), inline))
        for p, inline in paths:
            segs = p.split('::')
            if segs[0] == 'crate': base = (); segs = segs[1:]
            elif segs[0] in ('super', 'self'):
                base = mpath + inline
                while segs and segs[0] in ('super', 'self'):
                    if segs[0] == 'super': base = base[:-1]
                    segs = segs[1:]
            elif segs[0] in children and not inline: base = mpath
            else: continue
            full = base + tuple(segs)
            # longest prefix naming a file
            for k in range(len(full), -1, -1):
                if full[:k] in mods:
                    g = mods[full[:k]]
                    # a name re-exported by that module: the file that defines it
                    if k < len(full) and full[k] in reexp[g]:
                        target = reexp[g][full[k]]
                        while target not in mods and target: target = target[:-1]
                        if target in mods and mods[target] != g:
                            g = mods[target]
                    if g != f: edges[f].add(g)
                    break
    return mods, edges

def sccs(nodes, edges):
    index, low, onstack, st, res, c = {}, {}, set(), [], [], [0]
    sys.setrecursionlimit(10000)
    def visit(v):
        index[v] = low[v] = c[0]; c[0] += 1; st.append(v); onstack.add(v)
        for w in edges.get(v, ()):
            if w not in index: visit(w); low[v] = min(low[v], low[w])
            elif w in onstack: low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = st.pop(); onstack.discard(w); comp.append(w)
                if w == v: break
            if len(comp) > 1: res.append(sorted(comp))
    for v in nodes:
        if v not in index: visit(v)
    return res

bad = 0
for src in sys.argv[1:]:
    mods, edges = analyse(src)
    for comp in sccs(sorted(mods.values()), edges):
        bad += 1
        print(f"cycle in {src}:")
        for f in comp:
            print(f"  {f} -> {', '.join(sorted(g for g in edges[f] if g in comp))}")
sys.exit(1 if bad else 0)
PY
