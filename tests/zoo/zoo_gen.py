"""zoo_gen: writes one random crashing C program from a seed.

The program is a chain of functions from main (or a thread's entry) down
to a crash, with the shapes that make stacks hard to walk: recursion, tail
calls, frameless leaves, alloca and variable-length arrays, variadic
functions, calls through pointers, callbacks from the C library (qsort,
bsearch), calls across a shared library and back, a noreturn call, a
signal handler, a second thread; side calls that return before the next
step leave stale return addresses below the live frames. Every function of
the chain records its identity on the way down (zoo_rt.h), and the
program writes that trail when it dies: the truth the walk is checked
against (zoo_truth.py).

    program = generate(seed)          # Program: sources + manifest
    program.write(folder)             # prog.c, lib.c, manifest.json

Same seed, same program, on every machine (random.Random(seed) only)."""
import json
import os
import random

# How a chain function is entered from the one before it.
CALL, TAIL, POINTER, VARARG, QSORT, BSEARCH, SIGNAL, THREAD, NORETURN = (
    "call", "tail", "pointer", "vararg", "qsort", "bsearch", "signal", "thread", "noreturn")
# How the last function dies.
CRASHES = ("store", "store", "nullcall", "abort", "overflow", "rodata")
SHAPES = ("plain", "plain", "none", "big", "alloca", "vla")


class Fn:
    def __init__(self, ident, name, module, enter, shape, recurse, sides):
        self.id = ident
        self.name = name
        self.module = module        # "prog" or "lib"
        self.enter = enter          # how the previous function calls it
        self.shape = shape
        self.recurse = recurse      # extra calls of itself before going on
        self.sides = sides          # side functions called first


class Program:
    def __init__(self, seed, chain, sides, crash, shared, static_ok):
        self.seed = seed
        self.chain = chain          # [main, f2, ...]: the crash path
        self.sides = sides          # [(name, module, callee or None)]
        self.crash = crash
        self.shared = shared        # has lib functions (a shared library unless static)
        self.static_ok = static_ok

    def manifest(self):
        return {
            "seed": self.seed,
            "crash": self.crash,
            "functions": {str(f.id): {"name": f.name, "module": f.module} for f in self.chain},
            "chain": [{"id": f.id, "enter": f.enter, "recurse": f.recurse} for f in self.chain],
            "sides": [s[0] for s in self.sides],
        }

    def write(self, folder):
        os.makedirs(folder, exist_ok=True)
        prog, lib = render(self)
        with open(os.path.join(folder, "prog.c"), "w") as f:
            f.write(prog)
        with open(os.path.join(folder, "lib.c"), "w") as f:
            f.write(lib)
        with open(os.path.join(folder, "manifest.json"), "w") as f:
            json.dump(self.manifest(), f, indent=1, sort_keys=True)


def generate(seed):
    rng = random.Random(seed)
    n = rng.randint(2, 7)                      # chain functions after main
    crash = rng.choice(CRASHES)
    used = set()                               # kinds used once at most

    def enter_kind(i, last):
        if last and crash != "overflow" and rng.random() < 0.2:
            return NORETURN
        options = [CALL, CALL, CALL, TAIL, POINTER, VARARG]
        for once in (QSORT, BSEARCH, SIGNAL, THREAD):
            # The overflowing function calls itself with (d, x).
            if once not in used and not (last and crash == "overflow"):
                options.append(once)
        k = rng.choice(options)
        if k in (QSORT, BSEARCH, SIGNAL, THREAD):
            used.add(k)
        return k

    chain = [Fn(1, "main", "prog", "main", "none", 0, [])]
    side_fns = []
    for i in range(n):
        ident = i + 2
        last = i == n - 1
        enter = enter_kind(i, last)
        module = "lib" if rng.random() < 0.3 else "prog"
        # Entries with their own signature (callbacks, handlers, thread
        # starts) do not recurse; the overflow function recurses for ever.
        recurse = 0
        if enter in (CALL, TAIL, POINTER, VARARG) and not last and rng.random() < 0.25:
            recurse = rng.randint(1, 4)
        shape = rng.choice(SHAPES)
        if last and crash in ("store", "rodata") and rng.random() < 0.3:
            shape = "leaf"                     # a frameless leaf at -O1 and up
        nsides = rng.randint(1, 2) if shape != "leaf" and rng.random() < 0.5 else 0
        chain.append(Fn(ident, "f%d" % ident, module, enter, shape, recurse, [None] * nsides))
    # Entries by a function's address (callbacks, handlers, thread starts,
    # variadic and noreturn calls) stay in their caller's module when it is
    # the library: a shared library cannot name its program's functions.
    for prev, f in zip(chain, chain[1:]):
        if f.enter not in (CALL, TAIL, POINTER) and prev.module == "lib":
            f.module = "lib"
        # A tail call returns its callee's value: not from a handler or a
        # thread start, whose return types differ.
        if f.enter == TAIL and prev.enter in (SIGNAL, THREAD, QSORT, BSEARCH):
            f.enter = CALL
    # Side functions, in their caller's module; one may call the side
    # function made before it in the same module.
    for f in chain:
        for k in range(len(f.sides)):
            same = [s for s in side_fns if s[1] == f.module]
            callee = same[-1][0] if same and rng.random() < 0.5 else None
            sname = "side%d" % (len(side_fns) + 1)
            side_fns.append((sname, f.module, callee))
            f.sides[k] = sname
    shared = any(f.module == "lib" for f in chain)
    return Program(seed, chain, side_fns, crash, shared, True)


# --- rendering -----------------------------------------------------------

def signature(f):
    """The C declaration of chain function f (without a body)."""
    if f.name == "main":
        return "int main(int argc, char **argv)"
    if f.enter in (QSORT, BSEARCH):
        return "int %s(const void *a, const void *b)" % f.name
    if f.enter == SIGNAL:
        return "void %s(int sig)" % f.name
    if f.enter == THREAD:
        return "void *%s(void *arg)" % f.name
    if f.enter == VARARG:
        return "int %s(int d, ...)" % f.name
    if f.enter == NORETURN:
        return "__attribute__((noreturn)) void %s(int d, int x)" % f.name
    return "int %s(int d, int x)" % f.name


def shape_code(f, rng):
    """Declarations that give the frame its shape, and an expression that
    uses them (so they are not optimised away)."""
    if f.shape == "big":
        size = rng.choice((64, 200, 1024, 4096))
        return ("\tvolatile char big[%d];\n\tbig[0] = (char)x; big[%d] = 1;\n" % (size, size - 1),
                "big[0] + big[%d]" % (size - 1))
    if f.shape == "alloca":
        return ("\tchar *dyn = alloca((unsigned)(x & 63) + 16);\n\tdyn[0] = (char)x;\n"
                "\tzoo_sink = dyn[0];\n", "dyn[0]")
    if f.shape == "vla":
        return ("\tchar vla[(x & 31) + 8];\n\tvla[0] = (char)x;\n\tzoo_sink = vla[0];\n", "vla[0]")
    if f.shape == "plain":
        return ("\tvolatile int local = x;\n", "local")
    return ("", "0")


def call_expr(caller, callee, args):
    """How caller calls callee: directly within a module or from the
    program into the library (PLT); through zoo_table from the library
    into the program, or where the step asks for a pointer."""
    if caller is not callee and (callee.enter == POINTER or
                                 (caller.module == "lib" and callee.module == "prog")):
        return "zoo_table[%d](%s)" % (callee.id, args)
    return "%s(%s)" % (callee.name, args)


def returner(f):
    """A return statement with a value, for f's own signature."""
    if f.enter == SIGNAL:
        return lambda e: "\tzoo_sink = %s;\n\treturn;\n" % e
    if f.enter == THREAD:
        return lambda e: "\treturn (void *)(long)(%s);\n" % e
    return lambda e: "\treturn %s;\n" % e


def step_code(f, nxt, rng):
    """The call from chain function f to the next one, and f's return."""
    d = nxt.recurse
    ret = returner(f)
    after = "\tKEEP();\n\tZOO_LEAVE();\n"
    if nxt.enter == NORETURN:
        return "\t%s(%d, x + 1);\n" % (nxt.name, d)
    if nxt.enter == TAIL:
        return "\treturn %s;\n" % call_expr(f, nxt, "%d, x + 1" % d)
    if nxt.enter in (CALL, POINTER, VARARG):
        return "\tint r = %s;\n%s%s" % (call_expr(f, nxt, "%d, x + 1" % d), after, ret("r + x"))
    if nxt.enter == QSORT:
        n = rng.randint(3, 9)
        vals = ", ".join(str(rng.randint(0, 99)) for _ in range(n))
        return ("\tint arr[] = { %s };\n\tqsort(arr, %d, sizeof arr[0], %s);\n%s%s"
                % (vals, n, nxt.name, after, ret("arr[0] + x")))
    if nxt.enter == BSEARCH:
        n = rng.randint(3, 9)
        vals = ", ".join(str(v) for v in sorted(rng.sample(range(100), n)))
        return ("\tstatic const int arr[] = { %s };\n\tint key = %d;\n"
                "\tconst int *hit = bsearch(&key, arr, %d, sizeof arr[0], %s);\n%s%s"
                % (vals, rng.randint(0, 99), n, nxt.name, after, ret("(hit ? *hit : 0) + x")))
    if nxt.enter == SIGNAL:
        # raise and pthread_kill signal this thread; kill(getpid()) could be
        # taken by another (a main thread waiting in pthread_join).
        how = rng.choice(("raise(SIGUSR1)", "pthread_kill(pthread_self(), SIGUSR1)"))
        return ("\tstruct sigaction sa;\n\tmemset(&sa, 0, sizeof sa);\n"
                "\tsa.sa_handler = %s;\n\tsigaction(SIGUSR1, &sa, NULL);\n\t%s;\n%s%s"
                % (nxt.name, how, after, ret("x")))
    if nxt.enter == THREAD:
        return ("\tpthread_t th;\n\tif (pthread_create(&th, NULL, %s, (void *)(long)x) == 0)\n"
                "\t\tpthread_join(th, NULL);\n%s%s" % (nxt.name, after, ret("x")))
    raise ValueError(nxt.enter)


def crash_code(program):
    c = program.crash
    if c == "store":
        return "\t*(volatile int *)(unsigned long)0x10 = x;\n"
    if c == "rodata":
        return "\t*(volatile char *)zoo_text = (char)x;\n"
    if c == "nullcall":
        return "\tvoid (*volatile nothing)(int) = 0;\n\tnothing(x);\n"
    if c == "abort":
        return "\tabort();\n"
    raise ValueError(c)


def entry_code(f, rng):
    """ZOO_ENTER and the turning of f's own arguments into the (d, x)
    every body uses."""
    enter = "\tZOO_ENTER(%d);\n" % f.id
    if f.enter in (QSORT, BSEARCH):
        # Called several times: the one that goes on is the n-th.
        # (bsearch may compare once; qsort of 3 or more compares twice.)
        nth = 1 if f.enter == BSEARCH else rng.randint(1, 2)
        return (enter + "\tint d = 0, x = *(const int *)a - *(const int *)b;\n"
                "\tstatic int calls;\n\tif (++calls < %d) {\n\t\tZOO_LEAVE();\n"
                "\t\treturn x;\n\t}\n" % nth)
    if f.enter == SIGNAL:
        return enter + "\tint d = 0, x = sig;\n"
    if f.enter == THREAD:
        return enter + "\tint d = 0, x = (int)(long)arg;\n\tzoo_thread_init();\n"
    if f.enter == VARARG:
        return (enter + "\tva_list ap;\n\tva_start(ap, d);\n\tint x = va_arg(ap, int);\n"
                "\tva_end(ap);\n")
    return enter


def function_code(f, nxt, program, rng):
    out = ["NOINLINE %s\n{\n" % signature(f)]
    overflow = nxt is None and program.crash == "overflow"
    if f.name == "main":
        out.append("\tint d = 0, x = argc + (argv[0] != 0);\n\tzoo_init();\n")
        for g in program.chain[1:]:
            if g.enter in (CALL, TAIL, POINTER):
                out.append("\tzoo_table[%d] = %s;\n" % (g.id, g.name))
        out.append("\tZOO_ENTER(1);\n")
    elif overflow:
        # Recorded once: the trail names the function, the stack repeats it.
        out.append(entry_code(f, rng).replace("\tZOO_ENTER", "\tif (d == 0)\n\t\tZOO_ENTER", 1))
    else:
        out.append(entry_code(f, rng))
    if f.shape != "leaf":
        decl, use = shape_code(f, rng)
        out.append(decl)
        for s in f.sides:
            out.append("\tx += %s(x);\n" % s)
        if use != "0":
            out.append("\tx += %s;\n" % use)
    if f.recurse:
        out.append("\tif (d > 0) {\n\t\tint r = %s(d - 1, x + 1);\n\t\tKEEP();\n"
                   "\t\tZOO_LEAVE();\n\t%s\t}\n" % (f.name, returner(f)("r + 1")))
    if overflow:
        out.append("\tvolatile char frame[%d];\n\tframe[0] = (char)x;\n"
                   "\tint r = %s(d + 1, x + frame[0]);\n\tKEEP();\n%s"
                   % (rng.choice((256, 1024, 3000)), f.name, returner(f)("r + frame[0]")))
    elif nxt is None:
        out.append(crash_code(program))
        if f.enter == NORETURN:
            out.append("\tfor (;;)\n\t\tKEEP();\n")
        else:
            out.append("\tKEEP();\n\tZOO_LEAVE();\n" + returner(f)("x"))
    else:
        out.append(step_code(f, nxt, rng))
    out.append("}\n\n")
    return "".join(out)


def side_code(name, callee, k):
    inner = "\tv[1] = %s(x + 1);\n" % callee if callee else "\tv[1] = x * %d;\n" % (k + 3)
    return ("NOINLINE int %s(int x)\n{\n\tvolatile int v[4];\n\tv[0] = x + %d;\n%s"
            "\tv[2] = v[0] + v[1];\n\treturn v[2] + %d;\n}\n\n" % (name, k, inner, k * 7 + 1))


HEADER = """/* Generated by tests/zoo/zoo_gen.py, seed %d: a crash path of %d
 * functions (manifest.json); see tests/zoo/README.md. */
#define _GNU_SOURCE
#include <alloca.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "zoo_rt.h"

static const char zoo_text[] = "read-only";

"""


def render(program):
    rng = random.Random(program.seed * 7919 + 17)
    parts = {"prog": [HEADER % (program.seed, len(program.chain))],
             "lib": [HEADER % (program.seed, len(program.chain))]}
    # Declarations: everything is visible to both files (the library's
    # calls into the program go through zoo_table, which main fills).
    decls = []
    for f in program.chain[1:]:
        decls.append("%s;\n" % signature(f))
    for name, module, callee in program.sides:
        decls.append("int %s(int x);\n" % name)
    for m in parts:
        parts[m].append("".join(decls) + "\n")
    for k, (name, module, callee) in enumerate(program.sides):
        parts[module].append(side_code(name, callee, k))
    chain = program.chain
    for i, f in enumerate(chain):
        nxt = chain[i + 1] if i + 1 < len(chain) else None
        # main is always in the program; a lib function may not be called
        # from the program by pointer through zoo_table (only prog ones are
        # in it): call_expr handles that by calling it directly.
        parts[f.module if f.name != "main" else "prog"].append(function_code(f, nxt, program, rng))
    return "".join(parts["prog"]), "".join(parts["lib"])
