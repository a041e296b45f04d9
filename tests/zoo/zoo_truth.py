"""zoo_truth: the true chain of a zoo program's crash, and a walk checked
against it.

The program's trail (zoo_rt.h) lists the chain functions that were live
when it died, outermost first. The manifest says how each was entered,
which decides what else a correct walk may hold between two of them:

    qsort, bsearch callbacks   C-library frames between (qsort: 1 to 7, its
                               merge sort recursing; bsearch: 0 or 1, as
                               glibc's <stdlib.h> inlines it from -O1 on)
    a signal handler           the sigreturn trampoline (in the C library,
                               the vDSO or qemu-user's own page outside
                               every module) and the frames of raise /
                               pthread_kill below the handler: 1 to 5
    a tail call                the caller's frame may be gone (optional)
    the crash                  abort: 1 to 5 C-library frames above the last
                               function; a call through NULL: a frame at 0;
                               a stack overflow: the last function, many
                               times, maybe under a side function whose
                               prologue overflowed
    the root                   main (then at most 2 C-library start frames
                               and at most 2 start-code frames of the
                               program: _start, __start, _start_c) or a
                               thread's entry (then at most 2 C-library
                               frames: start_thread, clone / clone3)

The bounds are what exact walks (stackwalk's with every file, and gdb's)
showed on every CPU here (glibc 2.36, musl 1.2.3): the signal path 2-4
frames, qsort 3-5, glibc's start 2 (__libc_start_call_main,
__libc_start_main) and musl's 1, a thread's 1-2; a margin of 1 (qsort 2)
for paths not seen. A walk with more is an invented frame.

A walk is a list of tokens, one per physical frame (inline frames left
out):

    ("fn", id)        a chain function (named by the unstripped files'
                      symbol tables, whatever the walker knew)
    ("side", name)    a side function: never live at the crash
    ("null",)         pc 0 (a call through NULL)
    ("libc", what)    a frame in a module that is not the program or its
                      library (the C library, the loader, the vDSO), or a C
                      library function linked into a static program
    ("anon", pc)      a pc in no module: qemu-user's sigreturn page, or
                      garbage
    ("start", name)   the program's start code (_start, __start, _start_c)
    ("bad", what)     anything else in the program or its library: our
                      runtime (zoo_init, on_fatal ...), PLT stubs, CRT
                      helpers, an address no symbol covers: never live
    ("gap", n)        n frames gdb unwound but did not print (zoo_gdb.py)

The truth is a pattern of elements, each with a minimum and a maximum
count; the walk is run through it as a small NFA:

    exact     the walk matches the whole pattern through the root (and
              any start frames after it fit the pattern's tail)
    short     the walk matches a prefix: every frame true, the walk ended
              before the root
    skipped   a chain function that is in the chain, but a deeper one
              was missed before it (the walk jumped over a live frame)
    invented  a frame that is not in the chain there (a side function, a
              stale return address, a repeated frame, garbage, more C
              library or start frames than the shape allows, a frame past
              the start code)
    empty     no frames at all
"""
import bisect
import re

MANY = 1 << 30

# How many C-library frames each place allows (see the docstring).
SYS_BOUNDS = {
    "qsort": (1, 7),
    "bsearch": (0, 1),
    "signal": (1, 5),
    "abort": (1, 5),
    "main-start": (0, 2),
    "thread-start": (0, 2),
}
START_NAMES = {"_start", "__start", "_start_c", "_start1"}
# The program's own runtime (zoo_rt.c) and the C run-time's helpers: code
# of the program or its library that is never live at the crash.
RUNTIME_NAMES = {"zoo_init", "zoo_thread_init", "on_fatal", "write_trail", "put", "put_int",
                 "frame_dummy", "register_tm_clones", "deregister_tm_clones",
                 "__do_global_dtors_aux", "_init", "_fini", "call_weak_fn", "_dl_relocate_static_pie"}


class Element:
    def __init__(self, kind, arg=None, lo=1, hi=1, accept=(), note=""):
        self.kind = kind      # "fn", "side", "null", "sys", "start"
        self.arg = arg        # fn: its id
        self.lo, self.hi = lo, hi
        self.accept = frozenset(accept)   # sys: the token classes it takes
        self.note = note

    def matches(self, tok):
        if self.kind == "fn":
            return tok[0] == "fn" and tok[1] == self.arg
        if self.kind == "sys":
            return tok[0] in self.accept
        return tok[0] == self.kind

    def __repr__(self):
        q = {(1, 1): "", (0, 1): "?", (1, MANY): "+", (0, MANY): "*"}.get(
            (self.lo, self.hi), "{%d,%d}" % (self.lo, self.hi))
        name = self.note if self.kind == "sys" else self.kind
        return "%s%s%s" % (name, "" if self.arg is None else self.arg, q)


def _sys(note, accept=("libc",)):
    lo, hi = SYS_BOUNDS[note]
    return Element("sys", lo=lo, hi=hi, accept=accept, note=note)


def pattern(manifest, trail):
    """The truth, innermost first, from the manifest and the program's trail
    (ids outermost first). Returns (elements, root index): a walk that
    matched the root element is exact."""
    enter = {c["id"]: c["enter"] for c in manifest["chain"]}
    ids = list(trail)
    # A thread's crash: its chain starts at the last thread entry.
    starts = [i for i, k in enumerate(ids) if enter.get(k) == "thread"]
    in_thread = bool(starts)
    if starts:
        ids = ids[starts[-1]:]
    out = []
    crash = manifest["crash"]
    if crash == "nullcall":
        out.append(Element("null"))
    elif crash == "abort":
        out.append(_sys("abort"))
    elif crash == "overflow":
        # The overflow may come in a side function's prologue, and a side
        # function may call the one made before it in its module
        # (zoo_gen.py): a chain of them, at most all of them.
        out.append(Element("side", lo=0, hi=max(1, len(manifest["sides"])), note="overflow"))
    inner = list(reversed(ids))
    for j, ident in enumerate(inner):
        # How this one was entered: a repeat of the function outside it is
        # a recursive (plain) call.
        outer = inner[j + 1] if j + 1 < len(inner) else None
        how = "call" if outer == ident else enter.get(ident, "call")
        if j == 0 and crash == "overflow":
            # Recorded once (zoo_gen.py): the stack repeats it.
            out.append(Element("fn", ident, 1, MANY, note="overflow"))
        elif j > 0 and inner[j - 1] != ident and enter.get(inner[j - 1]) == "tail":
            out.append(Element("fn", ident, 0, 1, note="tail-caller"))
        else:
            out.append(Element("fn", ident))
        if outer is None:
            continue
        if how == "signal":
            out.append(_sys("signal", accept=("libc", "anon")))
        elif how in ("qsort", "bsearch"):
            out.append(_sys(how))
    root = len(out) - 1
    if in_thread:
        out.append(_sys("thread-start"))
    else:
        out.append(_sys("main-start"))
        out.append(Element("start", lo=0, hi=2, note="start"))
    return out, root


class Verdict:
    def __init__(self, kind, matched, frames, bad=None, why=""):
        self.kind = kind          # exact, short, skipped, invented, empty
        self.matched = matched    # frames matched before the verdict
        self.frames = frames
        self.bad = bad            # index of the first wrong frame
        self.why = why

    @property
    def wrong(self):
        return self.kind in ("invented", "skipped")

    def __str__(self):
        if self.kind in ("exact", "short"):
            return "%s(%d)" % (self.kind, self.frames)
        if self.kind == "empty":
            return "empty"
        return "%s@%s(%d)" % (self.kind, self.bad, self.frames)


def _cap(el):
    """The largest count a state needs to remember for element el."""
    return el.hi if el.hi < MANY else max(el.lo, 1)


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
            if i >= len(pat):
                continue
            el = pat[i]
            if tok[0] == "gap":
                # Frames gdb did not print stand for more of a repeated
                # element the walk is already in (a stack overflow).
                if el.hi == MANY and n >= 1:
                    nxt.add((i, n))
                continue
            if n < el.hi and el.matches(tok):
                nxt.add((i, min(n + 1, _cap(el))))
        if not nxt:
            live = min(i for i, _ in states)
            later = tok[0] == "fn" and any(e.matches(tok) for e in pat[live + 1:])
            kind = "skipped" if later else "invented"
            return Verdict(kind, k, len(tokens), k, "frame %d %s not expected after %s" %
                           (k, show([tok]), pat[live - 1] if live else "the start"))
        states = _closure(nxt, pat)
    # Exact: the root matched (some live state is past it).
    if any(i > root for i, _ in states):
        return Verdict("exact", len(tokens), len(tokens))
    return Verdict("short", len(tokens), len(tokens))


def show(tokens):
    """Tokens as one short line, runs of one token counted."""
    out = []
    for t in tokens:
        if t[0] == "fn":
            text = "fn%d" % t[1]
        elif len(t) > 1 and t[0] != "anon":
            text = "%s:%s" % (t[0], t[1])
        else:
            text = t[0]
        if out and out[-1][0] == text:
            out[-1][1] += 1
        else:
            out.append([text, 1])
    return " ".join(t if n == 1 else "%s*%d" % (t, n) for t, n in out)


class SymbolMap:
    """Function names of one ELF file by address (nm's text symbols), to
    name a frame independently of the walker."""

    def __init__(self, nm_text):
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

    def names_at_vaddr(self, addr):
        """The names of the function holding addr: every symbol at its
        start (aliases: MIPS's __start is also _ftext). A sized symbol
        holds its size; one without a size (an assembler function such as
        musl's _start) holds everything up to the next symbol."""
        i = bisect.bisect_right(self.addrs, addr) - 1
        if i < 0:
            return []
        start = self.syms[i][0]
        here = [s for s in self.syms[bisect.bisect_left(self.addrs, start):i + 1]]
        sized = [n for a, size, n in here if size and a <= addr < a + size]
        if sized:
            return sized + [n for _, size, n in here if not size]
        if any(size for _, size, _ in here):
            # glibc's arm clone.S calls the thread's function from its child
            # path past the size its __clone symbol declares (armhf static
            # programs: start_thread's caller, blx ip at __clone + 0x46).
            names = [n for _, _, n in here]
            if any(n in CLONE_NAMES for n in names) and addr < start + CLONE_TAIL:
                return names
            return []          # past the end of a sized function: no code of ours
        return [n for _, _, n in here]


# Assembler functions whose code runs past the size their symbol declares.
CLONE_NAMES = ("__clone", "clone")
CLONE_TAIL = 0x80

SUFFIX = re.compile(r"\.(cold|part|isra|constprop|lto_priv|localalias)(\.\d+)?$")


def base_name(name):
    while name and SUFFIX.search(name):
        name = SUFFIX.sub("", name)
    return name


class Namer:
    """Turns a function name found in the program or its library into a
    token (the classes of the module docstring)."""

    def __init__(self, manifest, static):
        self.by_name = {f["name"]: int(k) for k, f in manifest["functions"].items()}
        self.sides = set(manifest["sides"])
        self.static = static

    def token(self, names):
        """The token of a function known by names (aliases; [] or None:
        no symbol holds the address)."""
        names = [base_name(n) for n in (names or []) if n]
        for n in names:
            if n in self.by_name:
                return ("fn", self.by_name[n])
        for n in names:
            if n in self.sides:
                return ("side", n)
        for n in names:
            if n in START_NAMES:
                return ("start", n)
        if not names or any(n in RUNTIME_NAMES for n in names):
            return ("bad", names[0] if names else "?")
        # A static program holds the C library's functions; a dynamic
        # one's own code is ours, the start code and the run-time helpers.
        return ("libc", names[0]) if self.static else ("bad", names[0])


OURS = ("prog", "libzoo.so")


def token_at(pc, namer, layout, maps):
    """The token of a frame at pc (the pc of frame 0, the call site of a
    caller), by where the process had its modules (zoo_run.Layout) and the
    unstripped files' symbols: the walker's own module and function names
    are not used."""
    if pc == 0:
        return ("null",)
    where = layout.module_at(pc)
    if not where:
        return ("anon", pc)
    name, vaddr = where
    if name in OURS:
        return namer.token(maps[name].names_at_vaddr(vaddr) if name in maps else None)
    return ("libc", name)


def tokenize_walk(frames, manifest, static, layout, maps):
    """Tokens of a stackwalk JSON walk's frames (inline frames left out)."""
    namer = Namer(manifest, static)
    return [token_at(int(fr["offset"], 16), namer, layout, maps)
            for fr in frames if fr.get("trust") != "inline"]


GDB_FRAME = re.compile(r"^ZOOFRAME (\d+) (\S+) (0x[0-9a-f]+) (\S+) (\S+)$")


def tokenize_gdb(text, manifest, static, layout, maps):
    """Tokens of zoo_gdb.py's zoo-bt output (the first one in text). gdb
    prints a caller's return address: its call site is the byte before,
    unless the frame below is a signal trampoline (the interrupted pc is
    exact), as gdb's own get_frame_address_in_block decides."""
    namer = Namer(manifest, static)
    toks = []
    if "==zoo-bt==" not in text:
        return toks
    text = text.split("==zoo-bt==", 1)[1]
    below = None
    for line in text.splitlines():
        if line.startswith("ZOOEND"):
            break
        if line.startswith("ZOOGAP"):
            toks.append(("gap", int(line.split()[1])))
            below = "normal"
            continue
        m = GDB_FRAME.match(line)
        if not m:
            continue
        kind, pc = m.group(2), int(m.group(3), 16)
        if below is not None and below != "sigtramp" and pc:
            pc -= 1
        toks.append(token_at(pc, namer, layout, maps))
        below = kind
    return toks
