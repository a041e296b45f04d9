"""zoo_truth: the true chain of a zoo program's crash, and a walk checked
against it.

The program's trail (zoo_rt.h) lists the chain functions that were live
when it died, outermost first. The manifest says how each was entered,
which decides what else a correct walk may hold between two of them:

    qsort, bsearch callbacks   one or more C-library frames between
    a signal handler           the sigreturn trampoline and the frames of
                               raise/kill below the handler: one or more
                               system frames
    a tail call                the caller's frame may be gone (optional)
    the crash                  abort: C-library frames above the last
                               function; a call through NULL: a frame at 0;
                               a stack overflow: the last function, many times
    the root                   main (then the C library's start frames and
                               _start, optionally) or a thread's entry
                               (then start_thread and clone, optionally)

A walk is a list of frames, each made a token: ("fn", id) for a chain
function (named by the unstripped files' symbol tables, whatever the walker
knew), ("side", name) for a side function (never live at the crash),
("null",) for a pc in no module at address 0, ("sys", what) for anything
else (the C library, the loader, the vDSO, a trampoline page, the start
code). The truth is a pattern of elements with a minimum (0 or 1) and a
maximum (1 or many); the walk is run through it as a small NFA:

    exact     the walk matches the whole pattern through the root
    short     the walk matches a prefix: every frame true, the walk ended
              before the root
    skipped   a frame that is in the chain, but deeper ones were missed
    invented  a frame that is not in the chain there (a side function, a
              stale return address, a repeated frame, garbage)
"""
import bisect
import re

MANY = 1 << 30


class Element:
    def __init__(self, kind, arg=None, lo=1, hi=1, note=""):
        self.kind = kind      # "fn", "sys", "null", "start"
        self.arg = arg        # fn: its id
        self.lo, self.hi = lo, hi
        self.note = note

    def matches(self, tok):
        if self.kind == "fn":
            return tok[0] == "fn" and tok[1] == self.arg
        if self.kind == "sys":
            return tok[0] == "sys"
        if self.kind == "null":
            return tok[0] == "null"
        if self.kind == "side":
            return tok[0] == "side"
        return False

    def __repr__(self):
        q = {(1, 1): "", (0, 1): "?", (1, MANY): "+", (0, MANY): "*"}[(self.lo, self.hi)]
        return "%s%s%s" % (self.kind, "" if self.arg is None else self.arg, q)


def pattern(manifest, trail):
    """The truth, innermost first, from the manifest and the program's trail
    (ids outermost first). Returns (elements, root index)."""
    enter = {c["id"]: c["enter"] for c in manifest["chain"]}
    ids = list(trail)
    # A thread's crash: its chain starts at the last thread entry.
    starts = [i for i, k in enumerate(ids) if enter.get(k) == "thread"]
    if starts:
        ids = ids[starts[-1]:]
    out = []
    crash = manifest["crash"]
    if crash == "nullcall":
        out.append(Element("null"))
    elif crash == "abort":
        out.append(Element("sys", lo=1, hi=MANY, note="abort"))
    elif crash == "overflow":
        # The overflow may come in a side function's prologue.
        out.append(Element("side", lo=0, hi=1, note="overflow"))
    inner = list(reversed(ids))
    for j, ident in enumerate(inner):
        # How this one was entered: a repeat of the function outside it is
        # a recursive (plain) call.
        outer = inner[j + 1] if j + 1 < len(inner) else None
        how = "call" if outer == ident else enter.get(ident, "call")
        if j == 0 and crash == "overflow":
            out.append(Element("fn", ident, 1, MANY, "overflow"))
        elif j > 0 and inner[j - 1] != ident and enter.get(inner[j - 1]) == "tail":
            out.append(Element("fn", ident, 0, 1, "tail-caller"))
        else:
            out.append(Element("fn", ident))
        if j == 0 and crash == "overflow":
            # Repeats of the same id in the trail are the one element.
            pass
        # glibc's bsearch is an inline function of <stdlib.h> at -O1 and
        # up: its callback may be called from the caller itself.
        if how in ("qsort", "signal") and outer is not None:
            out.append(Element("sys", lo=1, hi=MANY, note=how))
        elif how == "bsearch" and outer is not None:
            out.append(Element("sys", lo=0, hi=MANY, note=how))
    # Collapse an overflow function's own repeats (it records itself once,
    # but a recursion before it may repeat an id just outside).
    root = len(out) - 1
    out.append(Element("sys", lo=0, hi=MANY, note="start"))
    return out, root


class Verdict:
    def __init__(self, kind, matched, frames, bad=None, why=""):
        self.kind = kind          # exact, short, skipped, invented, empty
        self.matched = matched    # frames matched before the verdict
        self.frames = frames
        self.bad = bad            # index of the first wrong frame
        self.why = why

    def __str__(self):
        if self.kind in ("exact", "short"):
            return "%s(%d)" % (self.kind, self.frames)
        return "%s@%s(%d)" % (self.kind, self.bad, self.frames)


def _closure(states, pat):
    out = set()
    todo = list(states)
    while todo:
        i, n = todo.pop()
        if (i, n) in out:
            continue
        out.add((i, n))
        if i < len(pat) and n >= pat[i].lo:
            todo.append((i + 1, 0))
    return out


def judge(tokens, pat, root):
    """Runs the walk's tokens through the truth pattern."""
    if not tokens:
        return Verdict("empty", 0, 0, 0, "no frames")
    states = _closure({(0, 0)}, pat)
    for k, tok in enumerate(tokens):
        nxt = set()
        for i, n in states:
            if i < len(pat) and n < pat[i].hi and pat[i].matches(tok):
                nxt.add((i, min(n + 1, 1)))
        if not nxt:
            live = min(i for i, _ in states)
            later = any(e.matches(tok) for e in pat[live + 1:])
            kind = "skipped" if later else "invented"
            return Verdict(kind, k, len(tokens), k, "frame %d %s not expected after %s" %
                           (k, tok, pat[live - 1] if live else "the start"))
        states = _closure(nxt, pat)
    # Exact: the root matched (some live state is past it).
    if any(i > root for i, _ in states):
        return Verdict("exact", len(tokens), len(tokens))
    return Verdict("short", len(tokens), len(tokens))


def show(tokens):
    """Tokens as one short line, runs of one token counted."""
    out = []
    for t in tokens:
        text = t[0] + ("" if len(t) < 2 else str(t[1]) if t[0] == "fn" else ":" + str(t[1]))
        if out and out[-1][0] == text:
            out[-1][1] += 1
        else:
            out.append([text, 1])
    return " ".join(t if n == 1 else "%s*%d" % (t, n) for t, n in out)


class SymbolMap:
    """Function names of one ELF file by address (nm's text symbols), to
    name a frame independently of the walker."""

    def __init__(self, nm_text, min_vaddr):
        self.min_vaddr = min_vaddr
        syms = []
        for line in nm_text.splitlines():
            parts = line.split()
            if len(parts) == 4 and parts[2] in "TtWw":
                syms.append((int(parts[0], 16), int(parts[1], 16), parts[3]))
            elif len(parts) == 3 and parts[1] in "TtWw":
                syms.append((int(parts[0], 16), 0, parts[2]))
        syms.sort()
        self.addrs = [s[0] for s in syms]
        self.syms = syms

    def name_at(self, module_offset):
        addr = module_offset + self.min_vaddr
        i = bisect.bisect_right(self.addrs, addr) - 1
        # Of several symbols at one address, any sized one holding addr.
        while i >= 0:
            start, size, name = self.syms[i]
            if size and start <= addr < start + size:
                return name
            if not size and start == addr:
                return name
            if i > 0 and self.syms[i - 1][0] == start:
                i -= 1
                continue
            return None
        return None


SUFFIX = re.compile(r"\.(cold|part|isra|constprop|lto_priv|localalias)(\.\d+)?$")


def base_name(name):
    while name and SUFFIX.search(name):
        name = SUFFIX.sub("", name)
    return name


def tokenize_walk(frames, manifest, maps):
    """Tokens of a stackwalk JSON walk. maps: module file name -> SymbolMap
    of the unstripped file (the program and its library)."""
    by_name = {f["name"]: int(k) for k, f in manifest["functions"].items()}
    sides = set(manifest["sides"])
    toks = []
    for fr in frames:
        if fr.get("trust") == "inline":
            continue
        mod = fr.get("module")
        off = int(fr["offset"], 16)
        if mod in maps and fr.get("module_offset"):
            name = maps[mod].name_at(int(fr["module_offset"], 16))
            name = base_name(name) if name else None
            if name in by_name:
                toks.append(("fn", by_name[name]))
            elif name in sides:
                toks.append(("side", name))
            else:
                toks.append(("sys", "%s!%s" % (mod, name)))
        elif not mod and off == 0:
            toks.append(("null",))
        else:
            toks.append(("sys", mod or "?"))
    return toks


GDB_FRAME = re.compile(r"^#(\d+)\s+(?:(0x[0-9a-f]+) in )?(\S+)")


def tokenize_gdb(text, manifest):
    """Tokens of gdb's `bt` (the first backtrace in text)."""
    by_name = {f["name"]: int(k) for k, f in manifest["functions"].items()}
    sides = set(manifest["sides"])
    toks = []
    seen = -1
    if "==bt==" in text:
        text = text.split("==bt==", 1)[1]
    for line in text.splitlines():
        m = GDB_FRAME.match(line)
        if not m:
            continue
        n = int(m.group(1))
        if n <= seen:
            break                   # the next thread's backtrace
        seen = n
        name = base_name(m.group(3))
        if name in by_name:
            toks.append(("fn", by_name[name]))
        elif name in sides:
            toks.append(("side", name))
        elif name == "??" and m.group(2) and int(m.group(2), 16) == 0:
            toks.append(("null",))
        else:
            toks.append(("sys", name))
    return toks
