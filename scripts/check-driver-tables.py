#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Prove kmod/classify.c's driver table against each kernel's own DRM sources.

Usage: check-driver-tables.py [--classify FILE] [--src DIR] [--series S]...
                              [--readme FILE] [--quiet]

  --classify FILE  the table to check (default: kmod/classify.c of this clone)
  --src DIR        where scripts/fetch-driver-sources.sh unpacked the sources
                   (default: $GPUMEM_CACHE/driver-src, /var/cache/gpumem/...)
  --series S       kernel series to check (repeatable; default 6.1 6.12 7.3)
  --readme FILE    also require every driver README.md's driver list claims
                   to be checked (default: README.md of this clone; "" = off)
  --quiet          print only the failures

For every kernel series and every driver of the table it extracts from that
kernel's drivers/gpu/drm and include/drm:
  * the driver's memory-type constants (AMDGPU_PL_*, I915_PL_* and
    intel_region_to_ttm_type's LMEMn = TTM_PL_PRIV + n, XE_PL_*, VMW_PL_*,
    and the TTM_PL_* a plain TTM driver places buffers in) and compares the
    region each one means with the region the table gives its number;
  * the unit of every resource manager's size (ttm_range_man_init(): pages
    by TTM's API; ttm_resource_manager_init() and later man->size updates:
    the expression the driver passes, traced through locals, parameters and
    callers) and compares it with .bytes_mask / .nocap_mask for the memory
    types whose capacity gpumem reports (VRAM and GTT regions);
  * the struct that embeds struct ttm_buffer_object and whose GEM object is
    that BO's `base` (the driver's container_of(..., struct X, M.base), X's
    `struct ttm_buffer_object M;`, i915's union of base and a
    ttm_buffer_object, the VRAM helper's drm_gem_vram_object), that
    struct ttm_buffer_object starts with `struct drm_gem_object base;`, and
    the driver's &drm_driver.name.
Prints one line per driver and kernel, e.g.
  amdgpu 6.12: 7 memory types, VRAM in bytes, GTT in bytes, GEM base in amdgpu_bo.tbo
and "FAIL: <driver> <series>: <what> (<file>: <symbol>)" for every mismatch or
every pattern it could not find. Exit status 0 iff nothing failed.
"""
import argparse
import os
import re
import sys

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CACHE = os.environ.get("GPUMEM_CACHE", "/var/cache/gpumem")
REGIONS = ("vram", "gtt", "system", "other")   # enum gpumem_region order
DRM = "drivers/gpu/drm"

# What each driver's memory-type constants MEAN (the one thing the sources
# cannot say: the region gpumem reports them in). A constant a kernel defines
# that is not here, or one here that no kernel defines, is a failure.
# "*" names: the generic TTM types a driver uses directly.
GENERIC = {"TTM_PL_SYSTEM": "system", "TTM_PL_TT": "gtt",
           "TTM_PL_VRAM": "vram"}
DRIVERS = {
    "amdgpu": {
        "dirs": ["amd/amdgpu"], "prefix": "AMDGPU_PL_",
        "defs": "amd/amdgpu/amdgpu_ttm.h",
        "meaning": dict(GENERIC, AMDGPU_PL_GDS="other", AMDGPU_PL_GWS="other",
                        AMDGPU_PL_OA="other", AMDGPU_PL_PREEMPT="gtt",
                        AMDGPU_PL_DOORBELL="other",
                        AMDGPU_PL_MMIO_REMAP="other"),
    },
    "xe": {
        "dirs": ["xe"], "prefix": "XE_PL_", "defs": "xe/xe_bo.h",
        "meaning": {"XE_PL_SYSTEM": "system", "XE_PL_TT": "gtt",
                    "XE_PL_VRAM0": "vram", "XE_PL_VRAM1": "vram",
                    "XE_PL_STOLEN": "other"},
    },
    "i915": {
        "dirs": ["i915"], "prefix": "I915_PL_",
        "defs": "i915/gem/i915_gem_ttm.h",
        # I915_PL_LMEMn (n > 0) come from intel_region_to_ttm_type().
        "meaning": {"I915_PL_SYSTEM": "system", "I915_PL_GGTT": "gtt",
                    "I915_PL_STOLEN": "other", "I915_PL_LMEM0": "vram"},
    },
    "vmwgfx": {
        "dirs": ["vmwgfx"], "prefix": "VMW_PL_", "defs": "vmwgfx/vmwgfx_drv.h",
        "meaning": dict(GENERIC, VMW_PL_GMR="gtt", VMW_PL_MOB="gtt",
                        VMW_PL_SYSTEM="system"),
    },
    "qxl": {
        "dirs": ["qxl"],
        # qxl's surface BAR is its own TTM_PL_PRIV manager (qxl_ttm.c).
        "meaning": dict(GENERIC, TTM_PL_PRIV="vram"),
    },
    "nouveau": {"dirs": ["nouveau"], "nosub": True, "meaning": GENERIC},
    "radeon": {"dirs": ["radeon"], "meaning": GENERIC},
    "loongson": {"dirs": ["loongson"], "meaning": GENERIC},
}
# drm_gem_vram_helper users: their TTM is the helper's.
VRAM_HELPER_DIRS = {"bochs-drm": "tiny/bochs.c", "ast": "ast",
                    "hibmc": "hisilicon/hibmc", "vboxvideo": "vboxvideo",
                    "mgag200": "mgag200"}
VRAM_HELPER_MEANING = {"TTM_PL_SYSTEM": "system", "TTM_PL_VRAM": "vram"}


class Fail(Exception):
    pass


# ---------------------------------------------------------------- C helpers

def strip_comments(text):
    """Comments to blanks (newlines kept, so offsets map to lines)."""
    def blank(m):
        return re.sub(r"[^\n]", " ", m.group(0))
    return re.sub(r"/\*.*?\*/|//[^\n]*", blank, text, flags=re.S)


def split_args(s):
    """Top-level comma split of a call's argument text."""
    out, depth, cur = [], 0, ""
    for ch in s:
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        if ch == "," and depth == 0:
            out.append(cur.strip())
            cur = ""
        else:
            cur += ch
    if cur.strip():
        out.append(cur.strip())
    return out


def match_paren(text, i):
    """Index just past the bracket closing the one at text[i]."""
    pairs = {"(": ")", "{": "}", "[": "]"}
    open_, close, depth = text[i], pairs[text[i]], 0
    for j in range(i, len(text)):
        if text[j] == open_:
            depth += 1
        elif text[j] == close:
            depth -= 1
            if depth == 0:
                return j + 1
    raise Fail("unbalanced %s" % open_)


class CFile:
    def __init__(self, path, rel):
        self.path, self.rel = path, rel
        with open(path, errors="replace") as f:
            self.raw = f.read()
        self.text = strip_comments(self.raw)
        self._funcs = None

    def line(self, off):
        return self.text.count("\n", 0, off) + 1

    def funcs(self):
        """[(name, params, body_start, body_end)] of function definitions."""
        if self._funcs is None:
            self._funcs = []
            for m in re.finditer(r"^(?:[A-Za-z_][\w \t\*]*?[ \t\*])?(\w+)\s*\(", self.text, re.M):
                name = m.group(1)
                if name in ("if", "for", "while", "switch", "return", "sizeof"):
                    continue
                p0 = m.end() - 1
                try:
                    p1 = match_paren(self.text, p0)
                except Fail:
                    continue
                rest = re.match(r"\s*\{", self.text[p1:])
                if not rest:
                    continue
                b0 = p1 + rest.end() - 1
                try:
                    b1 = match_paren(self.text, b0)
                except Fail:
                    continue
                params = []
                for a in split_args(self.text[p0 + 1:p1 - 1]):
                    pm = re.search(r"(\w+)\s*(\[[^\]]*\])?$", a)
                    params.append(pm.group(1) if pm else "")
                self._funcs.append((name, params, b0, b1))
        return self._funcs

    def func_at(self, off):
        for f in self.funcs():
            if f[2] <= off < f[3]:
                return f
        return None

    def calls(self, fname):
        """[(offset, [args])] of calls of fname (not its definition)."""
        if not hasattr(self, "_calls"):
            self._calls = {}
        if fname not in self._calls:
            self._calls[fname] = self._find_calls(fname)
        return self._calls[fname]

    def _find_calls(self, fname):
        out = []
        if fname not in self.text:
            return out
        for m in re.finditer(r"\b%s\s*\(" % re.escape(fname), self.text):
            p0 = m.end() - 1
            p1 = match_paren(self.text, p0)
            if self.func_at(m.start()) is None and \
                    re.match(r"\s*[{;]", self.text[p1:]):
                continue      # a definition or declaration, not a call
            out.append((m.start(), split_args(self.text[p0 + 1:p1 - 1])))
        return out


class Tree:
    """One kernel's extracted DRM sources."""

    def __init__(self, root, series):
        self.root, self.series = root, series
        self.cache = {}

    def path(self, rel):
        return os.path.join(self.root, rel)

    def file(self, rel):
        if rel not in self.cache:
            self.cache[rel] = CFile(self.path(rel), rel)
        return self.cache[rel]

    def files(self, reldirs, nosub=False):
        out = []
        for d in reldirs:
            p = self.path(d)
            if os.path.isfile(p):
                out.append(self.file(d))
                continue
            for dp, dns, fns in os.walk(p):
                if nosub:
                    dns[:] = []
                dns.sort()
                for fn in sorted(fns):
                    if fn.endswith((".c", ".h")):
                        out.append(self.file(os.path.relpath(os.path.join(dp, fn), self.root)))
        return out


# ---------------------------------------------------------- classify.c

def parse_classify(path):
    """The table: {name: {region: {type: region}, stolen_last, bytes, nocap, vram_helper}}."""
    with open(path) as f:
        text = strip_comments(f.read())
    defs = {m.group(1): int(m.group(2)) for m in
            re.finditer(r"^#define\s+(PL_\w+)\s+(\d+)\s*$", text, re.M)}
    for k in ("PL_SYSTEM", "PL_TT", "PL_VRAM", "PL_PRIV"):
        if k not in defs:
            raise Fail("%s: no '#define %s <n>'" % (path, k))

    def index(expr):
        e = expr.strip()
        for k, v in defs.items():
            e = re.sub(r"\b%s\b" % k, str(v), e)
        if not re.fullmatch(r"[\d\s+()]+", e):
            raise Fail("%s: cannot evaluate memory type '%s'" % (path, expr))
        return eval(e)

    def entry(body, name=None):
        ent = {"region": {}, "stolen_last": False, "bytes": set(),
               "nocap": set(), "vram_helper": False}
        pos = 0
        body = body.strip()
        while pos < len(body):
            m = re.compile(r"\s*\.(\w+)\s*=\s*").match(body, pos)
            if not m:
                if body[pos:].strip(" \t\n,") == "":
                    break
                raise Fail("%s: cannot parse table entry near '%s'" % (path, body[pos:pos + 40]))
            field, pos = m.group(1), m.end()
            if body[pos] == "{":
                end = match_paren(body, pos)
                val = body[pos + 1:end - 1]
            else:
                end = pos
                depth = 0
                while end < len(body) and not (body[end] == "," and depth == 0):
                    depth += body[end] in "(["
                    depth -= body[end] in ")]"
                    end += 1
                val = body[pos:end]
            pos = end + 1
            val = val.strip()
            if field == "name":
                sm = re.fullmatch(r'"([^"]*)"|(\w+)', val)
                if not sm:
                    raise Fail("%s: bad .name %s" % (path, val))
                ent["name"] = sm.group(1) if sm.group(1) is not None else name
            elif field == "region":
                for a in split_args(val):
                    rm = re.fullmatch(r"\[([^\]]+)\]\s*=\s*R\((\w+)\)", a)
                    if not rm or rm.group(2).lower() not in REGIONS:
                        raise Fail("%s: cannot parse .region element '%s'" % (path, a))
                    ent["region"][index(rm.group(1))] = rm.group(2).lower()
            elif field == "stolen_last":
                ent["stolen_last"] = val == "true"
            elif field == "vram_helper":
                ent["vram_helper"] = val == "true"
            elif field in ("bytes_mask", "nocap_mask"):
                s = set()
                for term in val.split("|"):
                    bm = re.fullmatch(r"\s*BIT\(([^)]+)\)\s*", term)
                    if not bm:
                        raise Fail("%s: cannot parse .%s term '%s'" % (path, field, term))
                    s.add(index(bm.group(1)))
                ent["bytes" if field == "bytes_mask" else "nocap"] = s
            else:
                raise Fail("%s: unknown table field .%s" % (path, field))
        if "name" not in ent:
            raise Fail("%s: table entry without .name" % path)
        return ent

    am = re.search(r"gpumem_driver_info\s+gpumem_drivers\[\]\s*=\s*\{", text)
    if not am:
        raise Fail("%s: no 'struct gpumem_driver_info gpumem_drivers[] = {'" % path)
    arr = text[am.end() - 1:match_paren(text, am.end() - 1)][1:-1]
    vm = re.search(r"#define\s+VRAM_HELPER\(drv\)((?:[^\n]*\\\n)*[^\n]*)", text)
    helper_body = None
    if vm:
        hb = vm.group(1).replace("\\\n", " ").strip()
        if not (hb.startswith("{") and hb.endswith("}")):
            raise Fail("%s: cannot parse the VRAM_HELPER macro" % path)
        helper_body = hb[1:-1]
    table, pos = {}, 0
    while True:
        m = re.compile(r"\s*(\{|VRAM_HELPER\(\s*\"([^\"]+)\"\s*\)|,|$)").match(arr, pos)
        if not m or (m.group(1) == "" and m.end() >= len(arr.rstrip())):
            if arr[pos:].strip():
                raise Fail("%s: cannot parse the table near '%s'" % (path, arr[pos:pos + 40]))
            break
        if m.group(1) == ",":
            pos = m.end()
            continue
        if m.group(1) == "{":
            end = match_paren(arr, m.end() - 1)
            ent = entry(arr[m.end():end - 1])
            pos = end
        else:
            if helper_body is None:
                raise Fail("%s: VRAM_HELPER used but not defined" % path)
            ent = entry(re.sub(r"\bdrv\b", '"%s"' % m.group(2), helper_body))
            ent["vram_helper"] = True
            pos = m.end()
        if ent["name"] in table:
            raise Fail("%s: driver %s listed twice" % (path, ent["name"]))
        table[ent["name"]] = ent
    if not table:
        raise Fail("%s: empty driver table" % path)
    return table, defs


# ----------------------------------------------------------- per kernel

class Kernel:
    def __init__(self, tree):
        self.t = tree
        self.consts = {}       # name -> expression text
        self.where = {}        # name -> "file:line"
        self._collect_ttm()

    def _define(self, rel, rx):
        f = self.t.file(rel)
        found = {}
        for m in re.finditer(r"^#define\s+(%s)\s+([^\n]+)$" % rx, f.text, re.M):
            self.consts[m.group(1)] = m.group(2).strip()
            self.where[m.group(1)] = "%s:%d" % (rel, f.line(m.start()))
            found[m.group(1)] = m.group(2).strip()
        return found

    def _collect_ttm(self):
        got = self._define("include/drm/ttm/ttm_placement.h", r"TTM_PL_(?:SYSTEM|TT|VRAM|PRIV)")
        if len(got) != 4:
            raise Fail("%s: include/drm/ttm/ttm_placement.h: TTM_PL_SYSTEM/TT/VRAM/PRIV not all found"
                       % self.t.series)
        got = self._define("include/drm/ttm/ttm_resource.h", r"TTM_NUM_MEM_TYPES")
        if not got:
            raise Fail("%s: include/drm/ttm/ttm_resource.h: no TTM_NUM_MEM_TYPES" % self.t.series)
        self.num_types = self.value("TTM_NUM_MEM_TYPES")

    def value(self, expr, depth=0):
        """The integer value of a constant expression over known #defines."""
        e = expr
        for _ in range(10):
            names = [n for n in re.findall(r"\b[A-Za-z_]\w*\b", e)]
            if not names:
                break
            for n in names:
                if n not in self.consts:
                    return None
                e = re.sub(r"\b%s\b" % n, "(%s)" % self.consts[n], e)
        e = re.sub(r"\(\s*(?:u8|u16|u32|u64|int|unsigned int|uint64_t)\s*\)", "", e)
        if not re.fullmatch(r"[\d\s+\-*()<>]+", e):
            return None
        try:
            return eval(e)
        except Exception:
            return None


def bo_struct_check(k):
    """struct ttm_buffer_object starts with struct drm_gem_object base."""
    for rel in ("include/drm/ttm/ttm_bo.h", "include/drm/ttm/ttm_bo_api.h"):
        if os.path.exists(k.t.path(rel)):
            f = k.t.file(rel)
            m = re.search(r"struct ttm_buffer_object\s*\{", f.text)
            if m:
                body = f.text[m.end():match_paren(f.text, m.end() - 1)]
                first = body.strip().split(";")[0]
                if not re.fullmatch(r"struct\s+drm_gem_object\s+base", first.strip()):
                    raise Fail("%s: %s: struct ttm_buffer_object's first member is '%s', "
                               "not 'struct drm_gem_object base' (kmod/walk.c container_of)"
                               % (k.t.series, rel, first.strip()))
                return rel
    raise Fail("%s: include/drm/ttm/ttm_bo{,_api}.h: struct ttm_buffer_object not found" % k.t.series)


def struct_body(files, sname):
    for f in files:
        m = re.search(r"\bstruct\s+%s\s*\{" % re.escape(sname), f.text)
        if m:
            return f, f.text[m.end():match_paren(f.text, m.end() - 1) - 1]
    return None, None


def gem_base(k, drv, files, errs):
    """'X.M' where every GEM object of the driver is X.M.base (or i915's union)."""
    if drv == "i915":
        f, body = struct_body([x for x in files if x.rel.endswith("i915_gem_object_types.h")],
                              "drm_i915_gem_object")
        if body is None:
            errs.append("struct drm_i915_gem_object not found (i915/gem/i915_gem_object_types.h)")
            return None
        for um in re.finditer(r"\bunion\s*\{", body):
            ub = body[um.end():match_paren(body, um.end() - 1) - 1]
            if (re.search(r"struct\s+drm_gem_object\s+base\s*;", ub) and
                    re.search(r"struct\s+ttm_buffer_object\s+(\w+)\s*;", ub)):
                m = re.search(r"struct\s+ttm_buffer_object\s+(\w+)\s*;", ub)
                return "union drm_i915_gem_object.{base, %s}" % m.group(1)
        errs.append("no union of 'struct drm_gem_object base' and a struct ttm_buffer_object "
                    "in struct drm_i915_gem_object (%s)" % f.rel)
        return None
    pairs = set()
    for f in files:
        for m in re.finditer(r"container_of\s*\(\s*\(?\s*[\w>\-.]+\s*\)?\s*,\s*struct\s+(\w+)\s*,"
                             r"\s*(\w+)\.base\s*\)", f.text):
            pairs.add((m.group(1), m.group(2)))
    good = []
    for sname, member in sorted(pairs):
        sf, body = struct_body(files, sname)
        if body is not None and re.search(r"struct\s+ttm_buffer_object\s+%s\s*;" % member, body):
            good.append("%s.%s" % (sname, member))
    if not good:
        errs.append("no container_of(gem, struct X, M.base) with 'struct ttm_buffer_object M;' "
                    "in X (%s)" % ", ".join(sorted({d for d in DRIVERS.get(drv, {}).get("dirs", [])})))
        return None
    return ", ".join(good)


def driver_names(files):
    names = set()
    for f in files:
        names.update(re.findall(r'#define\s+DRIVER_NAME\s+"([^"]+)"', f.text))
        for m in re.finditer(r"struct\s+drm_driver\s+\w+\s*=\s*\{", f.text):
            body = f.text[m.end():match_paren(f.text, m.end() - 1)]
            nm = re.search(r'\.name\s*=\s*(?:"([^"]+)"|(\w+))', body)
            if nm and nm.group(1):
                names.add(nm.group(1))
            elif nm:
                for g in files:
                    names.update(re.findall(r'#define\s+%s\s+"([^"]+)"' % nm.group(2), g.text))
    return names


# ------------------------------------------------------------------ units

PAGES_RX = re.compile(r">>\s*PAGE_SHIFT|/\s*PAGE_SIZE\b|\bPFN_DOWN\s*\(|\bPHYS_PFN\s*\(")
BYTES_RX = re.compile(r"<<\s*PAGE_SHIFT|<<\s*(20|30)\b|\bSZ_\d+[KMG]\b|\*\s*1024\b|\*\s*PAGE_SIZE\b")


def strip_casts(e):
    return re.sub(r"\(\s*(?:const\s+)?(?:u8|u16|u32|u64|s64|int|long|unsigned(?: int| long)*|"
                  r"uint64_t|uint32_t|resource_size_t|size_t)\s*\)", "", e).strip()


def unit_of(k, files, f, fn, expr, depth=0, seen=None):
    """Units an expression has in function fn of file f: set of
    'pages', 'bytes', 'zero', 'nominal', 'unknown:<why>'."""
    seen = seen or set()
    e = strip_casts(expr)
    while e.startswith("(") and match_paren(e, 0) == len(e):
        e = e[1:-1].strip()
    if PAGES_RX.search(e):
        return {"pages"}
    if re.fullmatch(r"0[uUlL]*", e):
        return {"zero"}
    if re.fullmatch(r"[\d\s()<>+*xXa-fA-FuUlL]+", e) and re.search(r"\d", e):
        return {"nominal"}
    if BYTES_RX.search(e):
        return {"bytes"}
    words = re.findall(r"\w+", e)
    cm = re.fullmatch(r"(\w+)\s*\(.*\)", e, re.S)
    last = cm.group(1) if cm else (words[-1] if words else "")
    if re.search(r"page", last, re.I) and not re.search(r"\(", e):
        return {"pages"}
    if re.fullmatch(r"\w+", e) and depth < 5 and fn is not None and (f.rel, fn[0], e) not in seen:
        seen = seen | {(f.rel, fn[0], e)}
        body = f.text[fn[2]:fn[3]]
        out = set()
        for am in re.finditer(r"(?<![\w>.])%s\s*=(?!=)\s*([^;]+);" % e, body):
            out |= unit_of(k, files, f, fn, am.group(1), depth + 1, seen)
        if out:
            return out
        if e in fn[1]:
            idx = fn[1].index(e)
            for cf in files:
                for off, args in cf.calls(fn[0]):
                    if idx < len(args):
                        out |= unit_of(k, files, cf, cf.func_at(off), args[idx], depth + 1, seen)
            if out:
                return out
    if re.search(r"size$", last, re.I) and "page" not in e.lower():
        return {"bytes"}      # a *_size member or function: a byte count
    return {"unknown:'%s' in %s()" % (expr.strip(), fn[0] if fn else "?")}


def resolve_types(k, files, f, fn, expr, consts, depth=0):
    """Memory-type numbers an expression can be (set), or None."""
    e = strip_casts(expr)
    v = k.value(e)
    if v is not None:
        return {v}
    m = re.fullmatch(r"([A-Z]\w*)\s*\+\s*[\w>\-.]+", e)
    if m and k.value(m.group(1)) is not None:
        base = m.group(1)
        vals = {k.value(base)}
        for c in consts:
            if re.search(r"\b%s\b" % base, k.consts.get(c, "")) and k.value(c) is not None:
                vals.add(k.value(c))
        return vals
    if re.fullmatch(r"intel_region_to_ttm_type\s*\(.*\)", e, re.S):
        return {k.value(c) for c in consts if re.fullmatch(r"I915_PL_(LMEM\d+|SYSTEM)", c)}
    if depth >= 5 or fn is None:
        return None
    out = set()
    if re.fullmatch(r"\w+", e):
        body = f.text[fn[2]:fn[3]]
        for am in re.finditer(r"(?<![\w>.])%s\s*=(?!=)\s*([^;]+);" % e, body):
            r = resolve_types(k, files, f, fn, am.group(1), consts, depth + 1)
            if r is None:
                return None
            out |= r
        if not out and e in fn[1]:
            idx = fn[1].index(e)
            for cf in files:
                for off, args in cf.calls(fn[0]):
                    if idx < len(args):
                        r = resolve_types(k, files, cf, cf.func_at(off), args[idx], consts, depth + 1)
                        if r is None:
                            return None
                        out |= r
        return out or None
    mm = re.fullmatch(r"[\w>\-.]+(?:->|\.)(\w+)", e)
    if mm:
        for cf in files:
            for am in re.finditer(r"(?<![\w>.])%s\s*=(?!=)\s*([^;]+);" % re.escape(e), cf.text):
                r = resolve_types(k, files, cf, cf.func_at(am.start()), am.group(1), consts, depth + 1)
                if r is None:
                    return None
                out |= r
        return out or None
    return None


def manager_sites(k, drv, files, consts, errs):
    """[(types, units, where, how)] for every manager size a driver sets."""
    sites = []

    def add(f, off, type_expr, size_expr, how):
        fn = f.func_at(off)
        where = "%s:%d %s()" % (f.rel, f.line(off), fn[0] if fn else "?")
        if fn is None:
            errs.append("%s outside a function the parser found (%s)" % (how, where))
            return
        for types, units in pairs(f, fn, type_expr, size_expr, (f, fn), how, 0, where):
            sites.append((types, units, where, how))

    def pairs(f, fn, texpr, sexpr, sctx, how, depth, where):
        """[(types, units)]: a type passed in as a parameter is followed to
        every caller together with the size passed along with it."""
        te = strip_casts(texpr)
        body = f.text[fn[2]:fn[3]]
        if (re.fullmatch(r"\w+", te) and te in fn[1] and depth < 5 and
                not re.search(r"(?<![\w>.])%s\s*=(?!=)" % te, body)):
            idx = fn[1].index(te)
            sparams = sctx is not None and sctx[1] is fn and \
                any(re.search(r"\b%s\b" % p, sexpr) for p in fn[1] if p)
            out = []
            for cf in files:
                for off, args in cf.calls(fn[0]):
                    cfn = cf.func_at(off)
                    if cfn is None or idx >= len(args):
                        errs.append("cannot follow %s() called at %s:%d" % (fn[0], cf.rel, cf.line(off)))
                        continue
                    ns, nctx = sexpr, sctx
                    if sparams:
                        for i, p in enumerate(fn[1]):
                            if p and i < len(args):
                                ns = re.sub(r"\b%s\b" % p, "(%s)" % args[i], ns)
                        nctx = (cf, cfn)
                    out += pairs(cf, cfn, args[idx], ns, nctx, how, depth + 1, where)
            if not out:
                errs.append("no caller of %s() gives the memory type '%s' (%s)" % (fn[0], te, where))
            return out
        types = resolve_types(k, files, f, fn, texpr, consts)
        if not types:
            errs.append("cannot tell which memory type '%s' is (%s, from %s)" % (texpr, where, fn[0]))
            return []
        units = {"pages"} if how == "ttm_range_man_init" else \
            unit_of(k, files, sctx[0], sctx[1], sexpr)
        return [(types, units)]

    for f in files:
        if not f.rel.endswith(".c"):
            continue
        for off, args in f.calls("ttm_range_man_init"):
            if len(args) != 4:
                errs.append("ttm_range_man_init() with %d arguments (%s:%d)" % (len(args), f.rel, f.line(off)))
                continue
            add(f, off, args[1], args[3], "ttm_range_man_init")
        for off, args in f.calls("ttm_resource_manager_init"):
            fn = f.func_at(off)
            sets = [a for o, a in f.calls("ttm_set_driver_manager")
                    if fn and fn[2] <= o < fn[3] and len(a) == 3 and a[2] != "NULL"]
            if len(args) != 3 or not sets:
                errs.append("ttm_resource_manager_init() without ttm_set_driver_manager() in "
                            "the same function (%s:%d)" % (f.rel, f.line(off)))
                continue
            add(f, off, sets[0][1], args[2], "ttm_resource_manager_init")
        for fn in f.funcs():
            body = f.text[fn[2]:fn[3]]
            mt = re.search(r"\b(\w+)\s*=\s*ttm_manager_type\(\s*[^,]+,\s*([^)]+)\)", body)
            if not mt:
                continue
            for am in re.finditer(r"\b%s->size\s*=(?!=)\s*([^;]+);" % mt.group(1), body):
                add(f, fn[2] + am.start(), mt.group(2), am.group(1), "man->size =")
    return sites


# ---------------------------------------------------------------- checks

def check_driver(k, drv, ent, report, errs):
    """Check one table entry against one kernel. Returns the summary."""
    series = k.t.series
    helper = ent["vram_helper"]
    if helper:
        d = VRAM_HELPER_DIRS.get(drv)
        if d is None:
            errs.append("a VRAM_HELPER entry the check does not know where to find "
                        "(add it to VRAM_HELPER_DIRS in scripts/check-driver-tables.py)")
            return None
        if not os.path.exists(k.t.path(DRM + "/" + d)):
            return "%s %s: not in this kernel (%s)" % (drv, series, DRM + "/" + d)
        files = k.t.files([DRM + "/" + d])
        spec = {"meaning": VRAM_HELPER_MEANING}
    else:
        spec = DRIVERS.get(drv)
        if spec is None:
            errs.append("driver not known to scripts/check-driver-tables.py (add it to DRIVERS)")
            return None
        dirs = [DRM + "/" + d for d in spec["dirs"]]
        if not os.path.isdir(k.t.path(dirs[0])):
            return "%s %s: not in this kernel (%s)" % (drv, series, dirs[0])
        files = k.t.files(dirs, spec.get("nosub"))

    names = driver_names(files)
    if drv not in names:
        errs.append("the table's name \"%s\" is not the driver's drm_driver.name (%s: found %s)"
                    % (drv, files[0].rel.rsplit("/", 1)[0], sorted(names) or "none"))

    # The VRAM helper drivers: TTM only when they use the helper on this kernel.
    # gpumem's guard: such a driver without ddev->vram_mm is taken for a driver
    # without TTM, and its objects are never cast (kmod/discover.c).
    if helper:
        disc = strip_comments(open(os.path.join(TOP, "kmod", "discover.c")).read())
        guarded = (re.search(r"drv->vram_helper\s*&&\s*!\s*ddev->vram_mm", disc) is not None and
                   re.search(r"if\s*\(\s*gpumem_driver_vram_helper\(ddev\)\s*\)\s*return\s+NULL",
                             disc) is not None)
        uses = [f.rel for f in files if re.search(r"\bDRM_GEM_VRAM_DRIVER\b|\bdrmm_vram_helper_init\s*\(|"
                                                   r"\bdrm_vram_helper_alloc_mm\s*\(", f.text)]
        if not uses and guarded:
            return ("%s %s: no drm_gem_vram_helper in this kernel: not a TTM driver, "
                    "never cast (kmod/discover.c: vram_helper without vram_mm)" % (drv, series))
        if not uses:
            other = sorted({m for f in files for m in
                            re.findall(r"\b(DRM_GEM_SHMEM_DRIVER_OPS|DRM_GEM_DMA_DRIVER_OPS\w*|"
                                       r"drm_gem_shmem_\w+|drm_gem_dma_\w+)", f.text)})[:2]
            errs.append("does not use drm_gem_vram_helper on this kernel (%s uses %s): its GEM "
                        "objects are no ttm_buffer_object, yet the table lists it and "
                        "kmod/discover.c's gpumem_find_ttm_device() walks its objects with "
                        "container_of(obj, struct ttm_buffer_object, base) when vram_mm is NULL"
                        % (files[0].rel.rsplit("/", 1)[0] if len(files) > 1 else files[0].rel,
                           ", ".join(other) or "no VRAM helper"))
            return "%s %s: NOT a TTM driver (no drm_gem_vram_helper)" % (drv, series)
        files = files + [k.t.file(DRM + "/drm_gem_vram_helper.c"),
                         k.t.file("include/drm/drm_gem_vram_helper.h")]

    # Memory types: every constant the driver defines or uses.
    consts = {}
    meaning = spec["meaning"]
    prefix = spec.get("prefix")
    if prefix:
        drel = DRM + "/" + spec["defs"]
        if not os.path.exists(k.t.path(drel)):
            errs.append("%s missing (where %s* are defined)" % (drel, prefix))
            return None
        found = k._define(drel, re.escape(prefix) + r"\w+")
        if not found:
            errs.append("no #define %s* in %s" % (prefix, drel))
        for n in found:
            if n.startswith("__") or n.endswith("_NUM"):
                continue
            if n not in meaning:
                errs.append("unknown memory type %s (%s): give it a region in "
                            "scripts/check-driver-tables.py and kmod/classify.c" % (n, k.where[n]))
                continue
            consts[n] = meaning[n]
        # __AMDGPU_PL_NUM and friends are counts, not types
        for n in list(found):
            if re.match(r"__\w+_NUM$", n):
                nv = k.value(n)
                if nv is not None and nv > k.num_types:
                    errs.append("%s = %d > TTM_NUM_MEM_TYPES %d" % (n, nv, k.num_types))
    used_generic = {}
    for f in files:
        for m in re.finditer(r"\bTTM_PL_(SYSTEM|TT|VRAM|PRIV)\b", f.text):
            n = "TTM_PL_" + m.group(1)
            ln = f.text[f.text.rfind("\n", 0, m.start()) + 1:f.text.find("\n", m.start())]
            if ln.lstrip().startswith("#define"):
                continue
            used_generic.setdefault(n, "%s:%d" % (f.rel, f.line(m.start())))
    for n, where in sorted(used_generic.items()):
        if prefix and n not in meaning:
            continue      # the driver's own constants name its types
        if n not in meaning:
            errs.append("uses %s (%s): the check does not know what it means for %s" % (n, where, drv))
            continue
        consts[n] = meaning[n]
        k.where.setdefault(n, where)
    if drv == "i915":
        rel = DRM + "/i915/intel_region_ttm.c"
        f = k.t.file(rel)
        m = re.search(r"intel_region_to_ttm_type\s*\([^)]*\)\s*\{", f.text)
        body = f.text[m.end():match_paren(f.text, m.end() - 1)] if m else ""
        if not re.search(r"INTEL_MEMORY_SYSTEM\)\s*return\s+TTM_PL_SYSTEM", body) or \
                not re.search(r"=\s*mem->instance\s*\+\s*TTM_PL_PRIV\s*;", body):
            errs.append("intel_region_to_ttm_type() is no longer 'SYSTEM -> TTM_PL_SYSTEM, "
                        "else mem->instance + TTM_PL_PRIV' (%s)" % rel)
        reg = k.t.file(DRM + "/i915/intel_memory_region.h")
        lmem = re.findall(r"\bINTEL_REGION_LMEM_(\d+)\b", reg.text)
        if not lmem:
            errs.append("no INTEL_REGION_LMEM_n in %s" % reg.rel)
        for i in sorted({int(x) for x in lmem}):
            n = "I915_PL_LMEM%d" % i
            if n not in k.consts:
                k.consts[n] = "(TTM_PL_PRIV + %d)" % i
                k.where[n] = "%s INTEL_REGION_LMEM_%d via intel_region_to_ttm_type()" % (reg.rel, i)
            consts[n] = "vram"
    if not consts:
        errs.append("no memory-type constant found")
    checked_types = {}
    for n, want in sorted(consts.items()):
        v = k.value(n)
        if v is None:
            errs.append("cannot evaluate %s = %s (%s)" % (n, k.consts.get(n), k.where.get(n)))
            continue
        if v >= k.num_types:
            errs.append("%s = %d >= TTM_NUM_MEM_TYPES (%d)" % (n, v, k.num_types))
        if ent["stolen_last"] and v == k.num_types - 1:
            have = "other"
            how = "stolen_last"
        else:
            have = ent["region"].get(v)
            how = "[%d]" % v
        if have is None:
            errs.append("%s = %d (%s) means %s but the table has no row [%d]"
                        % (n, v, k.where.get(n), want, v))
        elif have != want:
            errs.append("%s = %d (%s) means %s but the table's %s says %s"
                        % (n, v, k.where.get(n), want, how, have))
        checked_types[v] = want
        report["rows"].setdefault(drv, set()).add(v)
    if drv == "xe":
        xs = k.consts.get("XE_PL_STOLEN", "")
        last = re.fullmatch(r"\(?\s*TTM_NUM_MEM_TYPES\s*-\s*1\s*\)?", xs) is not None
        if last != ent["stolen_last"]:
            errs.append("XE_PL_STOLEN = %s (%s) but the table's .stolen_last is %s"
                        % (xs, k.where.get("XE_PL_STOLEN"), ent["stolen_last"]))
        if last:
            report["rows"].setdefault(drv, set()).add("stolen")

    # Units of the managers' sizes.
    sites = manager_sites(k, drv, files, list(consts), errs)
    unit_of_type = {}
    for types, units, where, how in sites:
        for t in types:
            unit_of_type.setdefault(t, []).append((units, where, how))
    unit_words = []
    for t in sorted(unit_of_type):
        region = checked_types.get(t)
        if region is None:
            region = "other" if ent["stolen_last"] and t == k.num_types - 1 else ent["region"].get(t)
        units = set()
        for u, _, _ in unit_of_type[t]:
            units |= u
        where = "; ".join("%s via %s" % (w, h) for _, w, h in unit_of_type[t])
        tname = type_name(k, consts, t)
        unknown = sorted(u for u in units if u.startswith("unknown"))
        definite = units - set(unknown) - {"zero"}
        if region not in ("vram", "gtt"):
            continue      # gpumem reports no capacity for it: its unit is unused
        if unknown:
            errs.append("cannot tell the unit of the %s manager's size: %s (%s)"
                        % (tname, ", ".join(u[8:] for u in unknown), where))
            continue
        if len(definite) > 1:
            errs.append("the %s manager's size is in %s at different places (%s)"
                        % (tname, " and ".join(sorted(definite)), where))
            continue
        u = definite.pop() if definite else "zero"
        in_bytes = t in ent["bytes"]
        nocap = t in ent["nocap"]
        want = {"bytes": "bytes", "pages": "pages", "nominal": "nocap", "zero": None}[u]
        have = "nocap" if nocap else ("bytes" if in_bytes else "pages")
        if want is not None and want != have:
            errs.append("the %s manager (type %d) is sized in %s but kmod/classify.c's "
                        "%s says %s (%s)" % (tname, t, u, "nocap_mask" if "nocap" in (want, have)
                                             else "bytes_mask", have, where))
        unit_words.append("%s in %s" % (tname, {"zero": "0 (no capacity)", "nominal":
                                                "a nominal size (no capacity)"}.get(u, u)))
    for t in ent["bytes"] | ent["nocap"]:
        if t not in unit_of_type and t in checked_types:
            errs.append("the table gives type %d (%s) a %s unit but the driver sizes no "
                        "manager of it" % (t, type_name(k, consts, t),
                                           "bytes" if t in ent["bytes"] else "nocap"))

    gb = gem_base(k, drv, files, errs)
    if gb:
        gb = "GEM base in " + gb
    parts = ["%d memory types" % len(checked_types)] + unit_words + ([gb] if gb else [])
    return "%s %s: %s" % (drv, series, ", ".join(parts))


def type_name(k, consts, t):
    names = sorted(n for n in consts if k.value(n) == t)
    if not names:
        return "type %d" % t
    n = names[-1] if any(not x.startswith("TTM_PL_") for x in names) else names[0]
    for x in names:
        if not x.startswith("TTM_PL_"):
            n = x
    return re.sub(r"^(TTM|AMDGPU|XE|I915|VMW)_PL_", "", n)


def readme_drivers(path):
    """The drivers README.md's intro paragraph says gpumem covers."""
    with open(path) as f:
        text = f.read()
    m = re.search(r"It covers (.*?)objects of\s+non-TTM", text, re.S)
    if not m:
        raise Fail("%s: no 'It covers ... objects of non-TTM' sentence to take the driver list from"
                   % path)
    s = m.group(1)
    names = set(re.findall(r"\b(amdgpu|i915|xe|nouveau|radeon|vmwgfx|qxl|loongson|bochs|ast|hibmc|"
                           r"vboxvideo|mgag200)\b", s))
    return {"bochs-drm" if n == "bochs" else n for n in names}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--classify", default=os.path.join(TOP, "kmod/classify.c"))
    ap.add_argument("--src", default=os.path.join(CACHE, "driver-src"))
    ap.add_argument("--series", action="append")
    ap.add_argument("--readme", default=os.path.join(TOP, "README.md"))
    ap.add_argument("--quiet", action="store_true")
    a = ap.parse_args()
    series = a.series or ["6.1", "6.12", "7.3"]
    fails = []
    try:
        table, _ = parse_classify(a.classify)
    except Fail as e:
        print("FAIL: %s" % e)
        return 1
    report = {"rows": {}}
    for s in series:
        root = os.path.join(a.src, s)
        if not os.path.exists(os.path.join(root, ".gpumem-done")):
            fails.append("%s: no driver sources in %s (run scripts/fetch-driver-sources.sh %s)"
                         % (s, root, s))
            continue
        try:
            k = Kernel(Tree(root, s))
            bo = bo_struct_check(k)
        except Fail as e:
            fails.append(str(e))
            continue
        if k.num_types > 16:
            fails.append("%s: TTM_NUM_MEM_TYPES %d > GPUMEM_MAX_MEM_TYPES 16 (kmod/classify.h)"
                         % (s, k.num_types))
        if not a.quiet:
            print("ttm %s: TTM_NUM_MEM_TYPES %d, ttm_buffer_object starts with its GEM base (%s)"
                  % (s, k.num_types, bo))
        for drv, ent in table.items():
            errs = []
            try:
                line = check_driver(k, drv, ent, report, errs)
            except Fail as e:
                errs.append(str(e))
                line = None
            except (OSError, IndexError, AttributeError) as e:
                errs.append("parser error: %r" % e)
                line = None
            if line and not a.quiet:
                print(line)
            for e in errs:
                fails.append("%s %s: %s" % (drv, s, e))
    # A table row no checked kernel's constant explains is stale (or a typo).
    if len(series) == 3 and not any(f.startswith(tuple("%s:" % s for s in series)) for f in fails):
        for drv, ent in table.items():
            rows = report["rows"].get(drv)
            if rows is None:
                continue
            for t in sorted(ent["region"]):
                if t not in rows:
                    fails.append("%s: the table's row [%d] = %s matches no memory type of %s in %s"
                                 % (drv, t, ent["region"][t], drv, " ".join(series)))
    if a.readme:
        try:
            claimed = readme_drivers(a.readme)
        except (Fail, OSError) as e:
            fails.append(str(e))
            claimed = set()
        for d in sorted(claimed - set(table)):
            fails.append("%s: README.md claims it but kmod/classify.c does not list it" % d)
    for f in fails:
        print("FAIL: %s" % f)
    if not a.quiet:
        print("%d driver(s) x %d kernel(s) checked, %d failure(s)" % (len(table), len(series), len(fails)))
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
