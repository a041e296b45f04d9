#!/usr/bin/env python3
"""The layers of docs/design.md, checked on the code: dependencies point
down, never back up,

    cmd -> pipeline -> formats -> arch, symbols -> lib

(include/, the public header, is the pipeline's face: pipeline/api.c
implements it). Two kinds of arrow are checked over every .c and .h file
of those folders:

- an #include "..." names a file of the same folder, or of a lower layer
  (arch/ and symbols/ are one level, and know nothing of each other);
- a function declared in a header (or a prototype in a .c file) is
  defined in the declaration's folder or in a lower layer: a declaration
  in lib/ whose definition is in arch/ would let lib/ call up without
  including anything from above.

Usage: layers.py --root SOURCE_DIR [-v]
Prints one line per wrong arrow, then a summary; exit 1 if there was one.
"""
import argparse
import os
import re
import sys

# Folder -> (layer, rank). A folder may include its own files and any of a
# lower rank; two folders of one rank but different layers are siblings.
LAYERS = {
    "lib": ("lib", 0),
    "arch": ("arch", 1),
    "symbols": ("symbols", 1),
    "formats": ("formats", 2),
    "pipeline": ("pipeline", 3),
    "include": ("pipeline", 3),
    "cmd": ("cmd", 4),
}

INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)
IDENT_CALL = re.compile(r"\b([A-Za-z_]\w*)\s*\(")
NOT_NAMES = {"__attribute__", "sizeof", "_Static_assert", "_Alignas", "__typeof__", "typeof",
             "if", "while", "for", "switch", "return", "defined"}


def strip_c(text):
    """The text without comments, string and character literals and
    preprocessor lines (continuations included); newlines are kept."""
    out = []
    i, n = 0, len(text)
    line_start = True
    while i < n:
        c = text[i]
        if line_start and c == "#" or (line_start and c in " \t" and text[i:].lstrip(" \t").startswith("#")):
            # A directive: skip to the end of its (continued) line.
            while i < n:
                if text[i] == "\\" and i + 1 < n and text[i + 1] == "\n":
                    i += 2
                    out.append("\n")
                    continue
                if text[i] == "\n":
                    break
                i += 1
            continue
        if text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append("\n" * text.count("\n", i, j))
            i = j
            continue
        if text.startswith("//", i):
            j = text.find("\n", i)
            i = n if j < 0 else j
            continue
        if c in "\"'":
            j = i + 1
            while j < n and text[j] != c:
                j += 2 if text[j] == "\\" else 1
            out.append(c + c)
            i = j + 1
            line_start = False
            continue
        out.append(c)
        if c == "\n":
            line_start = True
        elif c not in " \t":
            line_start = False
        i += 1
    return "".join(out)


def top_level_chunks(code):
    """(prefix, is_definition) for each declaration or definition at file
    scope: a function definition's prefix is the text before its body."""
    chunks = []
    depth = 0
    cur = []
    body_of_function = False
    for c in code:
        if depth == 0:
            if c == ";":
                chunks.append(("".join(cur), False))
                cur = []
                continue
            if c == "{":
                prefix = "".join(cur)
                body_of_function = prefix.rstrip().endswith(")") and "=" not in prefix
                if body_of_function:
                    chunks.append((prefix, True))
                    cur = []
                depth = 1
                continue
            cur.append(c)
        else:
            if c == "{":
                depth += 1
            elif c == "}":
                depth -= 1
                if depth == 0 and body_of_function:
                    cur = []
                    body_of_function = False
    return chunks


def function_name(prefix):
    """The function a declaration or definition prefix names, or None."""
    p = prefix.strip()
    if not p or re.match(r"(typedef|static)\b", p) or re.search(r"\bstatic\b", p):
        return None
    # The name is the last identifier before the outermost parameter list:
    # the first '(' at paren depth 0 that follows an identifier.
    depth = 0
    for m in re.finditer(r"[()]", p):
        if m.group() == "(":
            if depth == 0:
                # "int (*fp)(void)" is a pointer, not a function.
                if p[m.end():].lstrip().startswith("*"):
                    return None
                name = re.search(r"([A-Za-z_]\w*)$", p[:m.start()].rstrip())
                if name and name.group(1) not in NOT_NAMES:
                    return name.group(1)
                return None
            depth += 1
        else:
            depth -= 1
    return None


def layer_of(rel):
    top = rel.split("/", 1)[0]
    return top, LAYERS.get(top)


def may_depend(src_dir, dst_dir):
    """May code in src_dir include (or call) code in dst_dir?"""
    if src_dir == dst_dir:
        return True
    s, d = LAYERS[src_dir], LAYERS[dst_dir]
    if s[0] == d[0]:
        return True
    return d[1] < s[1]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--root", required=True)
    ap.add_argument("-v", action="store_true")
    args = ap.parse_args()
    root = os.path.abspath(args.root)

    files = []
    for d in LAYERS:
        base = os.path.join(root, d)
        if not os.path.isdir(base):
            continue
        for name in sorted(os.listdir(base)):
            if name.endswith((".c", ".h")):
                files.append(d + "/" + name)

    wrong = []
    arrows = 0
    declared = {}   # name -> header (rel)
    defined = {}    # name -> [source (rel)]
    for rel in files:
        text = open(os.path.join(root, rel), encoding="utf-8", errors="replace").read()
        src_dir = rel.split("/", 1)[0]
        for m in INCLUDE.finditer(text):
            inc = m.group(1)
            local = os.path.normpath(os.path.join(src_dir, inc))
            target = local if os.path.exists(os.path.join(root, local)) else os.path.normpath(inc)
            dst_dir, layer = layer_of(target)
            if layer is None:
                continue  # a generated or system header (stackwalk_version.h)
            arrows += 1
            if not may_depend(src_dir, dst_dir):
                line = text.count("\n", 0, m.start()) + 1
                wrong.append("%s:%d: includes %s (%s is not below %s)"
                             % (rel, line, target, dst_dir, src_dir))
        for prefix, is_def in top_level_chunks(strip_c(text)):
            name = function_name(prefix)
            if not name:
                continue
            if is_def and rel.endswith(".c"):
                defined.setdefault(name, []).append(rel)
            elif not is_def:
                # A prototype in a .c file is an arrow as a header's is.
                declared.setdefault(name, rel)

    calls = 0
    for name, header in sorted(declared.items()):
        for source in defined.get(name, []):
            calls += 1
            h_dir, s_dir = header.split("/", 1)[0], source.split("/", 1)[0]
            # The header's callers depend on the definition: it must not
            # sit above them.
            if not may_depend(h_dir, s_dir):
                wrong.append("%s: declares %s(), defined in %s (%s is not below %s)"
                             % (header, name, source, s_dir, h_dir))

    for w in wrong:
        print(w)
    print("layers: %d files, %d includes, %d declared functions defined, %d wrong arrows"
          % (len(files), arrows, calls, len(wrong)))
    if args.v:
        print("declared %d, defined %d" % (len(declared), len(defined)))
    return 1 if wrong else 0


if __name__ == "__main__":
    sys.exit(main())
