#!/usr/bin/env python3
"""Checks stackwalk's --json output against the schema of docs/json.md
(rust-minidump's minidump-stackwalk --json, plus our extensions).

    python3 tests/json_check.py OUR.json [EXPECTED.snap|EXPECTED.json]

With an expected rust-minidump snapshot (the 4-line insta header is
stripped) it also compares crash_info, threads, frames, modules and trust
values and prints each difference. Exit status: 0 valid and equal, 1
differences or schema errors, 2 usage / unreadable input.
Python 3 standard library only."""
import json
import re
import sys

NULL = type(None)
STR = (str,)
OSTR = (str, NULL)
INT = (int,)
OINT = (int, NULL)
BOOL = (bool,)
LIST = (list,)
OLIST = (list, NULL)
DICT = (dict,)
ODICT = (dict, NULL)
ANY = None

# key -> allowed types, in the (alphabetical) order rust-minidump writes them.
TOP = [
    ("crash_info", DICT), ("crashing_thread", DICT), ("handles", OLIST),
    ("linux_memory_map_count", OINT), ("lsb_release", ODICT),
    ("mac_boot_args", (str, list, NULL)), ("mac_crash_info", ODICT),
    ("main_module", INT), ("modules", LIST), ("modules_contains_cert_info", BOOL),
    ("pid", OINT), ("problems", LIST), ("proc_limits", ODICT),
    ("process", DICT), ("process_uptime", OINT), ("signature", OSTR), ("soft_errors", (list, dict, NULL)),
    ("status", STR),
    ("system_info", DICT), ("thread_count", INT), ("threads", LIST),
    ("tool", DICT), ("unloaded_modules", LIST),
]
OPTIONAL_TOP = {"crashing_thread", "problems", "signature", "process", "tool"}   # absent when no crashing frame / extensions
EXTENSIONS_TOP = {"problems", "signature", "process", "tool"}
STATUSES = {"OK", "DAMAGED", "UNSUPPORTED_CPU"}
CRASH_INFO = [
    ("address", OSTR), ("adjusted_address", ODICT), ("assertion", OSTR),
    ("crash_inconsistencies", OLIST), ("crashing_thread", OINT), ("instruction", OSTR),
    ("instruction_pointer_update", ODICT), ("memory_accesses", OLIST),
    ("possible_bit_flips", OLIST), ("type", OSTR),
]
SYSTEM_INFO = [
    ("cpu_arch", STR), ("cpu_count", INT), ("cpu_info", OSTR),
    ("cpu_microcode_version", OSTR), ("os", STR), ("os_ver", OSTR),
]
THREAD = [
    ("frame_count", INT), ("frames", LIST), ("last_error_value", OSTR),
    ("thread_id", OINT), ("thread_name", OSTR), ("threads_index", INT),
    ("truncated", BOOL), ("walk_end", STR),
]
FRAME = [
    ("file", OSTR), ("frame", INT), ("function", OSTR), ("function_offset", OSTR),
    ("inlines", OLIST), ("line", OINT), ("missing_symbols", BOOL), ("module", OSTR),
    ("module_offset", OSTR), ("offset", STR), ("registers", DICT), ("trust", STR),
    ("unloaded_modules", OLIST),
]
INLINE = [("file", OSTR), ("function", OSTR), ("line", OINT)]
MODULE = [
    ("base_addr", STR), ("cert_subject", OSTR), ("code_id", STR),
    ("corrupt_symbols", BOOL), ("debug_file", STR), ("debug_id", STR),
    ("end_addr", STR), ("filename", STR), ("loaded_symbols", BOOL),
    ("missing_symbols", BOOL), ("symbol_url", OSTR), ("version", OSTR),
]
UNLOADED = [("base_addr", STR), ("cert_subject", OSTR), ("code_id", STR),
            ("end_addr", STR), ("filename", STR)]
LSB = [("codename", STR), ("description", STR), ("id", STR), ("release", STR)]
PROCESS = [("arguments", OLIST), ("command_line", OSTR), ("executable", OSTR)]
TOOL = [("name", STR), ("version", STR)]
TRUSTS = {"none", "scan", "cfi_scan", "frame_pointer", "prologue", "cfi",
          "prewalked", "context", "inline"}


class Checker:
    def __init__(self):
        self.errors = []

    def err(self, path, msg):
        self.errors.append("%s: %s" % (path, msg))

    def obj(self, path, value, spec, optional=(), extra_ok=()):
        if not isinstance(value, dict):
            self.err(path, "expected an object, got %s" % type(value).__name__)
            return
        names = [k for k, _ in spec]
        for k, types in spec:
            if k not in value:
                if k not in optional:
                    self.err(path, "missing key %r" % k)
                continue
            v = value[k]
            if types is not ANY and not isinstance(v, types) or \
                    (isinstance(v, bool) and bool not in (types or ())):
                self.err("%s.%s" % (path, k), "bad type %s" % type(v).__name__)
        for k in value:
            if k not in names and k not in extra_ok:
                self.err(path, "unknown key %r (extensions must be documented)" % k)
        # Key order: serde_json writes sorted keys.
        keys = list(value)
        if keys != sorted(keys):
            self.err(path, "keys out of order: %s" % keys)

    def hexstr(self, path, v, width):
        if v is None:
            return
        if not (isinstance(v, str) and v.startswith("0x") and len(v) == 2 + width):
            self.err(path, "expected 0x + %d hex digits, got %r" % (width, v))
            return
        try:
            int(v, 16)
        except ValueError:
            self.err(path, "not hex: %r" % v)

    def thread(self, path, t, width, crashing):
        spec = THREAD if crashing else [e for e in THREAD if e[0] != "threads_index"]
        self.obj(path, t, spec)
        frames = t.get("frames") or []
        if t.get("frame_count") != len(frames):
            self.err(path, "frame_count %r != %d frames" % (t.get("frame_count"), len(frames)))
        for i, f in enumerate(frames):
            fp = "%s.frames[%d]" % (path, i)
            regs_ok = crashing and i == 0
            spec = FRAME if regs_ok else [e for e in FRAME if e[0] != "registers"]
            self.obj(fp, f, spec, optional=("registers",))
            if f.get("frame") != i:
                self.err(fp, "frame index %r" % f.get("frame"))
            if f.get("trust") not in TRUSTS:
                self.err(fp, "unknown trust %r" % f.get("trust"))
            for k in ("offset", "module_offset", "function_offset"):
                self.hexstr(fp + "." + k, f.get(k), width)
            if f.get("missing_symbols") != (f.get("function") is None):
                self.err(fp, "missing_symbols disagrees with function")
            for j, inl in enumerate(f.get("inlines") or []):
                self.obj("%s.inlines[%d]" % (fp, j), inl, INLINE)
            if f.get("inlines") == []:
                self.err(fp, "inlines must be null, not []")
            for j, u in enumerate(f.get("unloaded_modules") or []):
                self.obj("%s.unloaded_modules[%d]" % (fp, j), u,
                         [("module", STR), ("offsets", LIST)])
            for name, v in (f.get("registers") or {}).items():
                self.hexstr("%s.registers.%s" % (fp, name), v, width)

    def check(self, doc):
        self.obj("$", doc, TOP, optional=OPTIONAL_TOP)
        if not isinstance(doc, dict):
            return
        sysinfo = doc.get("system_info") or {}
        self.obj("$.system_info", sysinfo, SYSTEM_INFO)
        width = 8 if sysinfo.get("cpu_arch") in ("x86", "arm", "mips", "ppc", "riscv32") else 16
        ci = doc.get("crash_info") or {}
        self.obj("$.crash_info", ci, CRASH_INFO)
        self.hexstr("$.crash_info.address", ci.get("address"), width)
        threads = doc.get("threads") or []
        if doc.get("thread_count") != len(threads):
            self.err("$", "thread_count != len(threads)")
        for i, t in enumerate(threads):
            self.thread("$.threads[%d]" % i, t, width, False)
        if "crashing_thread" in doc:
            ct = doc["crashing_thread"]
            self.thread("$.crashing_thread", ct, width, True)
            idx = ct.get("threads_index")
            if idx != ci.get("crashing_thread"):
                self.err("$.crashing_thread", "threads_index != crash_info.crashing_thread")
            elif isinstance(idx, int) and 0 <= idx < len(threads):
                plain = dict(ct)
                plain.pop("threads_index", None)
                frames = [dict(f) for f in plain.get("frames", [])]
                if frames:
                    frames[0].pop("registers", None)
                plain["frames"] = frames
                if plain != threads[idx]:
                    self.err("$.crashing_thread", "differs from threads[%d]" % idx)
        for i, m in enumerate(doc.get("modules") or []):
            mp = "$.modules[%d]" % i
            self.obj(mp, m, MODULE)
            for k in ("base_addr", "end_addr"):
                self.hexstr(mp + "." + k, m.get(k), width)
        for i, m in enumerate(doc.get("unloaded_modules") or []):
            self.obj("$.unloaded_modules[%d]" % i, m, UNLOADED)
        if "process" in doc:
            self.obj("$.process", doc["process"], PROCESS)
            args = doc["process"].get("arguments")
            if args is not None and not (args and all(isinstance(x, str) for x in args)):
                self.err("$.process.arguments", "want null or a non-empty list of strings")
        if "tool" in doc:
            self.obj("$.tool", doc["tool"], TOOL)
            if doc["tool"].get("name") != "stackwalk":
                self.err("$.tool.name", "want \"stackwalk\"")
        if doc.get("lsb_release") is not None:
            self.obj("$.lsb_release", doc["lsb_release"], LSB)
        if doc.get("status") not in STATUSES:
            self.err("$.status", "expected one of %s, got %r" % (sorted(STATUSES), doc.get("status")))
        if doc.get("status") == "DAMAGED" and not doc.get("problems"):
            self.err("$.status", "DAMAGED without a problem listed")
        if "signature" in doc and (doc["signature"] is None) != (ci.get("crashing_thread") is None):
            self.err("$.signature", "a signature exactly when there is a crashing thread")
        if isinstance(doc.get("signature"), str) and not doc["signature"]:
            self.err("$.signature", "empty")


def load_expected(path):
    with open(path, encoding="utf-8") as f:
        text = f.read()
    if path.endswith(".snap"):
        lines = text.split("\n")
        if lines and lines[0] == "---":
            # The insta header: ---, source:, expression:, ---
            end = lines.index("---", 1)
            text = "\n".join(lines[end + 1:])
    return json.loads(text)


def compare(ours, exp):
    """Differences in the fields a walk decides, as readable lines."""
    diffs = []

    def d(path, a, b):
        if a != b:
            diffs.append("%s: ours %r, expected %r" % (path, a, b))

    for k in ("type", "address", "crashing_thread", "assertion"):
        d("crash_info." + k, ours.get("crash_info", {}).get(k),
          exp.get("crash_info", {}).get(k))
    # The crashing instruction, where rust-minidump printed one; it prints
    # an amd64 absolute disp32 as encoded, we the address it names
    # (docs/json.md).
    oi, ei = ours.get("crash_info", {}).get("instruction"), exp.get("crash_info", {}).get("instruction")
    if isinstance(ei, str):
        if exp.get("system_info", {}).get("cpu_arch") == "amd64":
            ei = re.sub(r"\[0x([89a-f][0-9a-f]{7})\]", r"[0xffffffff\1]", ei)
        d("crash_info.instruction", oi, ei)
    ea = exp.get("crash_info", {}).get("memory_accesses")
    if isinstance(ea, list):
        d("crash_info.memory_accesses", ours.get("crash_info", {}).get("memory_accesses"), ea)
    eb = exp.get("crash_info", {}).get("possible_bit_flips")
    if isinstance(eb, list):
        d("crash_info.possible_bit_flips", ours.get("crash_info", {}).get("possible_bit_flips"), eb)
    for k in ("os", "os_ver", "cpu_arch", "cpu_count", "cpu_info"):
        d("system_info." + k, ours.get("system_info", {}).get(k),
          exp.get("system_info", {}).get(k))
    for k in ("pid", "process_uptime", "thread_count", "main_module",
              "linux_memory_map_count", "lsb_release"):
        d(k, ours.get(k), exp.get(k))
    om, em = ours.get("modules", []), exp.get("modules", [])
    d("len(modules)", len(om), len(em))
    for i, (a, b) in enumerate(zip(om, em)):
        for k in ("base_addr", "end_addr", "filename", "code_id", "debug_file",
                  "debug_id", "version", "loaded_symbols", "missing_symbols",
                  "corrupt_symbols"):
            d("modules[%d](%s).%s" % (i, b.get("filename"), k), a.get(k), b.get(k))
    d("len(unloaded_modules)", len(ours.get("unloaded_modules", [])),
      len(exp.get("unloaded_modules", [])))
    ot, et = ours.get("threads", []), exp.get("threads", [])
    d("len(threads)", len(ot), len(et))
    for i, (a, b) in enumerate(zip(ot, et)):
        for k in ("thread_id", "thread_name", "frame_count", "last_error_value"):
            d("threads[%d].%s" % (i, k), a.get(k), b.get(k))
        for j, (fa, fb) in enumerate(zip(a.get("frames", []), b.get("frames", []))):
            for k in ("trust", "module", "module_offset", "offset", "function",
                      "function_offset", "file", "line", "missing_symbols", "inlines",
                      "unloaded_modules"):
                d("threads[%d].frames[%d].%s" % (i, j, k), fa.get(k), fb.get(k))
    oc, ec = ours.get("crashing_thread"), exp.get("crashing_thread")
    d("crashing_thread present", oc is not None, ec is not None)
    if oc and ec:
        fa = (oc.get("frames") or [{}])[0]
        fb = (ec.get("frames") or [{}])[0]
        d("crashing_thread.frames[0].registers", fa.get("registers"), fb.get("registers"))
        d("crashing_thread.threads_index", oc.get("threads_index"), ec.get("threads_index"))
    return diffs


def main(argv):
    if len(argv) not in (2, 3):
        print(__doc__.strip().split("\n\n")[1], file=sys.stderr)
        return 2
    try:
        with open(argv[1], encoding="utf-8") as f:
            ours = json.load(f)
        expected = load_expected(argv[2]) if len(argv) == 3 else None
    except (OSError, ValueError) as e:
        print("json_check: %s" % e, file=sys.stderr)
        return 2
    c = Checker()
    c.check(ours)
    for e in c.errors:
        print("schema: " + e)
    diffs = compare(ours, expected) if expected is not None else []
    for e in diffs:
        print("diff: " + e)
    if not c.errors and not diffs:
        print("ok")
    return 1 if c.errors or diffs else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
