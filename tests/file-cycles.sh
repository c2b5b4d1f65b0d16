#!/usr/bin/env bash
# No two files of a library import each other, directly or in a circle.
#
#   bash tests/file-cycles.sh                  # every crate's src/ and the Python package
#   bash tests/file-cycles.sh monitor/src      # one crate
#   bash tests/file-cycles.sh python/multitrace python/src   # the Python package and its extension
#   bash tests/file-cycles.sh --test-files [DIR...]          # list the test-only files (see below)
#
# The default set is found, not listed: the src/ of every directory holding a Cargo.toml (the
# root binary's src/, the libraries, python/src), and every Python package (a directory with an
# __init__.py) next to a pyproject.toml (python/multitrace); fuzz/, target/, hidden
# directories and directories holding a .git of their own (worktrees, other clones) are not
# searched.
#
# Rust: an edge A -> B is a path in A that names an item of B: `use crate::...`, `use super::...`,
# `use self::...` (use trees expanded), the same paths written in code, and in a `mod.rs` or
# `lib.rs` a path through one of its own child modules (`child::f`). A name that a module
# re-exports (`pub use child::Name`) is counted as the child's. Comments, strings and test
# code (`#[cfg(test)]` items, and the files of `#[cfg(test)] mod name;`, other attributes such
# as `#[path = "file.rs"]` allowed in between, with the files of their child modules) are
# skipped: the libraries are what must form a DAG. Declaring a module (`mod child;`) is not
# an edge.
#
# Python: an edge A -> B is an import of module B of the same package in A, wherever the
# import statement is (at the top or in a function): `from . import b`, `from .b import x`,
# `import pkg.b`, `from pkg.b import x`; `from . import name` where name is not a module is an
# edge to the package's __init__.py, which defines it. Importing pkg.b also runs pkg's
# __init__.py first; that is not an edge (else every module would make a cycle with an
# __init__.py that imports it). Read with Python's own parser (ast), so docstrings and
# comments are never taken for imports.
#
# Both languages: a Python import of the package's Rust extension (`from . import _native`,
# the `#[pymodule] fn _native` of python/src/lib.rs) is an edge to that lib.rs, so one graph
# holds both and a cycle is reported wherever it runs. The other way there is no edge: the
# extension names Python modules only at run time, inside a function (`py.import(
# "multitrace._errors")` for its exceptions, `multitrace.load` in Model.__reduce__ for
# pickling), calls back into the package that loaded it; counting them would make
# __init__.py, lib.rs and model.rs a cycle by construction. So a cycle cannot span the two
# languages today: the one issue 49 reported as python/src/{model,check,generate,monitor}.rs
# with spark.py was this script's cycle in python/src, whose fifth file is python/src/spark.rs
# (the native side of multitrace.spark); python/multitrace/spark.py imports only _native and
# the package's __init__.py, which imports nothing back.
#
# Prints each cycle (a strongly connected component, with its edges) and exits 1 if there is
# one, 0 otherwise. With --test-files it prints instead the test-only Rust files of the
# directories (the files of `#[cfg(test)] mod name;` and their children), one a line, for
# tests/file-sizes.sh. Needs python3.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
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
    """files declared `#[cfg(test)] mod name;` (other attributes, such as `#[path = "f.rs"]`,
    may stand between), and the files of their child modules"""
    out = set()
    by_file = {f: m for m, f in mods.items()}
    roots = set()
    for mpath, f in mods.items():
        text = strip_keep_path(open(f).read())
        for m in re.finditer(r'#\[cfg\(test\)\]((?:\s*#\[[^\]]*\])*)\s*(?:pub(?:\([^)]*\))?\s+)?mod\s+(\w+)\s*;', text):
            p = re.search(r'#\[path\s*=\s*"([^"]*)"\s*\]', m.group(1))
            if p:
                # relative to the declaring file's directory
                g = os.path.normpath(os.path.join(os.path.dirname(f), p.group(1)))
                if g in by_file: roots.add(by_file[g])
            else:
                child = mpath + (m.group(2),)
                if child in mods: roots.add(child)
    for mpath, f in mods.items():
        if any(mpath[:len(r)] == r for r in roots):
            out.add(f)
    return out

def strip_keep_path(text):
    """strip(), but the string of a `#[path = "..."]` attribute kept"""
    paths = []
    def keep(m):
        paths.append(m.group(1)); return f'#[path = PATH{len(paths) - 1}]'
    text = re.sub(r'#\[path\s*=\s*"([^"]*)"\s*\]', keep, text)
    text = strip(text)
    return re.sub(r'#\[path = PATH(\d+)\]', lambda m: f'#[path = "{paths[int(m.group(1))]}"]', text)

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

SKIP = {'target', 'fuzz', 'node_modules'}

def default_dirs():
    """every crate's src/ and every Python package next to a pyproject.toml"""
    out = []
    for root, dirs, files in os.walk('.'):
        dirs[:] = sorted(d for d in dirs if d not in SKIP and not d.startswith('.')
                         and not os.path.exists(os.path.join(root, d, '.git')))
        rel = os.path.normpath(root)
        if 'Cargo.toml' in files and os.path.isdir(os.path.join(root, 'src')):
            out.append(os.path.normpath(os.path.join(rel, 'src')))
        if 'pyproject.toml' in files:
            for d in dirs:
                if os.path.isfile(os.path.join(root, d, '__init__.py')):
                    out.append(os.path.normpath(os.path.join(rel, d)))
    return sorted(set(out))

def is_python(src):
    return os.path.isfile(os.path.join(src, '__init__.py'))

def extension(pkg):
    """the Rust extension modules beside a package: module name -> the lib.rs defining it"""
    out = {}
    up = os.path.dirname(os.path.normpath(pkg)) or '.'
    lib = os.path.normpath(os.path.join(up, 'src', 'lib.rs'))
    if os.path.isfile(os.path.join(up, 'Cargo.toml')) and os.path.isfile(lib):
        for m in re.finditer(r'#\[pymodule\]\s*(?:pub(?:\([^)]*\))?\s+)?fn\s+(\w+)', strip(open(lib).read())):
            out[m.group(1)] = lib
    return out

def analyse_python(pkg):
    import ast
    name = os.path.basename(os.path.normpath(pkg))
    mods = {}  # dotted module name -> file
    for root, dirs, files in os.walk(pkg):
        dirs[:] = sorted(d for d in dirs if os.path.isfile(os.path.join(root, d, '__init__.py')))
        for f in files:
            if not f.endswith('.py'): continue
            parts = [name] + os.path.relpath(os.path.join(root, f), pkg)[:-3].split(os.sep)
            if parts[-1] == '__init__': parts = parts[:-1]
            mods['.'.join(parts)] = os.path.normpath(os.path.join(root, f))
    native = {name + '.' + n: lib for n, lib in extension(pkg).items()}
    def target(dotted):
        """the file of the longest prefix of `dotted` that names a module"""
        parts = dotted.split('.')
        for k in range(len(parts), 0, -1):
            d = '.'.join(parts[:k])
            if d in mods: return mods[d]
            if d in native: return native[d]
        return None
    edges = defaultdict(set)
    for mod, f in mods.items():
        package = mod if f.endswith('__init__.py') else mod.rpartition('.')[0]
        tree = ast.parse(open(f).read(), f)
        for node in ast.walk(tree):
            names = []
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names if a.name.split('.')[0] == name]
            elif isinstance(node, ast.ImportFrom):
                if node.level:
                    base = package.split('.')
                    base = base[:len(base) - (node.level - 1)]
                    base = '.'.join(base + ([node.module] if node.module else []))
                elif node.module and node.module.split('.')[0] == name:
                    base = node.module
                else:
                    continue
                names = [base + '.' + a.name if a.name != '*' else base for a in node.names]
            for dotted in names:
                g = target(dotted)
                if g and g != f: edges[f].add(g)
    return mods, edges

srcs = sys.argv[1:]
list_tests = bool(srcs) and srcs[0] == '--test-files'
if list_tests: srcs = srcs[1:]
if not srcs: srcs = default_dirs()
srcs = [os.path.normpath(s) for s in srcs]

if list_tests:
    for src in srcs:
        if is_python(src): continue
        for f in sorted(test_only_files(file_modules(src))):
            print(f)
    sys.exit(0)

# one graph over every directory (a Python package's imports of its extension are edges
# into the crate's src/); each file belongs to the directory it was found in
owner, nodes, edges = {}, [], defaultdict(set)
for k, src in enumerate(srcs):
    mods, e = (analyse_python if is_python(src) else analyse)(src)
    for f in sorted(mods.values()):
        if f not in owner: owner[f] = k; nodes.append(f)
    for f, gs in e.items(): edges[f] |= gs
bad = 0
by_src = defaultdict(list)
for comp in sccs(nodes, edges):
    by_src[min(owner[f] for f in comp)].append(comp)
for k, src in enumerate(srcs):
    for comp in by_src[k]:
        bad += 1
        others = sorted({srcs[owner[f]] for f in comp} - {src})
        print(f"cycle in {' and '.join([src] + others)}:")
        for f in comp:
            print(f"  {f} -> {', '.join(sorted(g for g in edges[f] if g in comp))}")
sys.exit(1 if bad else 0)
PY
