#!/usr/bin/env python3
"""The public API of npyguard as sorted text lines, from rustdoc's JSON output (nightly).

Every item reachable from the crate root (re-exports followed), with its signature: functions
and methods with their parameter and return types, struct fields, enum variants, trait items,
constants, type aliases, and the trait implementations written in the crate (derived and
blanket/auto implementations are left out). A removed or changed item changes a line.

Usage:
  api/snapshot.py JSON              print the snapshot
  api/snapshot.py JSON --check FILE compare with FILE; print the difference and exit 1 if any
"""
import json
import sys

data = json.load(open(sys.argv[1]))
index = data["index"]
CRATE = data["index"][str(data["root"])]["crate_id"]


def item(i):
    return index.get(str(i))


def generic_args(args):
    if not args:
        return ""
    if "angle_bracketed" in args:
        ab = args["angle_bracketed"]
        parts = []
        for a in ab.get("args", []):
            if "type" in a:
                parts.append(ty(a["type"]))
            elif "lifetime" in a:
                parts.append(a["lifetime"])
            elif "const" in a:
                parts.append(a["const"].get("expr", "_"))
        for c in ab.get("constraints", []):
            binding = c.get("binding", {})
            if "equality" in binding and "type" in binding["equality"]:
                parts.append(f"{c['name']} = {ty(binding['equality']['type'])}")
            else:
                parts.append(c["name"])
        return f"<{', '.join(parts)}>" if parts else ""
    if "parenthesized" in args:
        p = args["parenthesized"]
        out = f"({', '.join(ty(t) for t in p.get('inputs', []))})"
        if p.get("output"):
            out += f" -> {ty(p['output'])}"
        return out
    return ""


def path_name(p):
    return p["path"].split("::")[-1] + generic_args(p.get("args"))


def bounds(bs):
    out = []
    for b in bs:
        if "trait_bound" in b:
            m = b["trait_bound"].get("modifier")
            out.append(("?" if m == "maybe" else "") + path_name(b["trait_bound"]["trait"]))
        elif "outlives" in b:
            out.append(b["outlives"])
        elif "use" in b:
            out.append("use<..>")
    return " + ".join(out)


def ty(t):
    if t is None:
        return "()"
    (k, v), = t.items()
    if k == "resolved_path":
        return path_name(v)
    if k == "primitive":
        return v
    if k == "generic":
        return v
    if k == "borrowed_ref":
        lt = f"{v['lifetime']} " if v.get("lifetime") else ""
        return f"&{lt}{'mut ' if v.get('is_mutable') else ''}{ty(v['type'])}"
    if k == "slice":
        return f"[{ty(v)}]"
    if k == "array":
        return f"[{ty(v['type'])}; {v['len']}]"
    if k == "tuple":
        return f"({', '.join(ty(x) for x in v)})"
    if k == "impl_trait":
        return f"impl {bounds(v)}"
    if k == "dyn_trait":
        return "dyn " + " + ".join(path_name(x["trait"]) for x in v["traits"])
    if k == "qualified_path":
        trait = f" as {path_name(v['trait'])}" if v.get("trait") else ""
        return f"<{ty(v['self_type'])}{trait}>::{v['name']}"
    if k == "raw_pointer":
        return f"*{'mut' if v.get('is_mutable') else 'const'} {ty(v['type'])}"
    if k == "function_pointer":
        sig = v["sig"]
        out = f"fn({', '.join(ty(x[1]) for x in sig['inputs'])})"
        return out + (f" -> {ty(sig['output'])}" if sig.get("output") else "")
    if k == "infer":
        return "_"
    return k


def generics(g):
    ps = []
    for p in g.get("params", []):
        kind = p["kind"]
        if "lifetime" in kind:
            ps.append(p["name"])
        elif "type" in kind:
            if kind["type"].get("is_synthetic"):
                continue
            b = bounds(kind["type"].get("bounds", []))
            ps.append(p["name"] + (f": {b}" if b else ""))
        elif "const" in kind:
            ps.append(f"const {p['name']}: {ty(kind['const']['type'])}")
    return f"<{', '.join(ps)}>" if ps else ""


def where(g):
    out = []
    for w in g.get("where_predicates", []):
        if "bound_predicate" in w:
            bp = w["bound_predicate"]
            out.append(f"{ty(bp['type'])}: {bounds(bp['bounds'])}")
    return f" where {', '.join(out)}" if out else ""


def fn_sig(name, f):
    sig = f["sig"]
    params = []
    for pname, ptype in sig["inputs"]:
        params.append("self" if pname == "self" and ty(ptype) == "Self" else
                      ("&self" if pname == "self" and ty(ptype) == "&Self" else
                       ("&mut self" if pname == "self" and ty(ptype) == "&mut Self" else f"{pname}: {ty(ptype)}")))
    out = f"fn {name}{generics(f['generics'])}({', '.join(params)})"
    if sig.get("output"):
        out += f" -> {ty(sig['output'])}"
    return out + where(f["generics"])


lines = set()


def impls(owner_path, impl_ids):
    for i in impl_ids:
        im = item(i)
        if not im:
            continue
        body = im["inner"]["impl"]
        if body.get("is_synthetic") or body.get("blanket_impl"):
            continue
        if im.get("crate_id") != CRATE:
            continue
        attrs = " ".join(str(a) for a in im.get("attrs", []))
        if "automatically_derived" in attrs:
            continue
        if body.get("trait"):
            lines.add(f"impl{generics(body['generics'])} {path_name(body['trait'])} for {ty(body['for'])}"
                      f"{where(body['generics'])}")
            continue
        for j in body["items"]:
            m = item(j)
            if not m or m.get("visibility") != "public":
                continue
            (k, v), = m["inner"].items()
            if k == "function":
                lines.add(f"{owner_path}::{fn_sig(m['name'], v)}")
            elif k == "assoc_const":
                lines.add(f"{owner_path}::const {m['name']}: {ty(v['type'])}")


def render(it, path):
    (k, v), = it["inner"].items()
    if k == "module":
        lines.add(f"mod {path}")
        walk(v["items"], path)
    elif k == "function":
        lines.add(f"{path.rsplit('::', 1)[0]}::{fn_sig(path.rsplit('::', 1)[-1], v)}" if "::" in path else fn_sig(path, v))
    elif k == "struct":
        lines.add(f"struct {path}{generics(v['generics'])}")
        kind = v["kind"]
        fields = kind.get("plain", {}).get("fields", []) if isinstance(kind, dict) else []
        for f in fields:
            fi = item(f)
            if fi and fi.get("visibility") == "public":
                lines.add(f"{path}::{fi['name']}: {ty(fi['inner']['struct_field'])}")
        if isinstance(kind, dict) and "tuple" in kind:
            vis = [ty(item(f)["inner"]["struct_field"]) for f in kind["tuple"] if f is not None and item(f) and item(f).get("visibility") == "public"]
            if vis:
                lines.add(f"struct {path}({', '.join(vis)})")
        impls(path, v.get("impls", []))
    elif k == "enum":
        lines.add(f"enum {path}{generics(v['generics'])}")
        for var in v["variants"]:
            vi = item(var)
            vk = vi["inner"]["variant"]["kind"]
            if isinstance(vk, dict) and "tuple" in vk:
                lines.add(f"{path}::{vi['name']}({', '.join(ty(item(f)['inner']['struct_field']) for f in vk['tuple'] if f is not None)})")
            elif isinstance(vk, dict) and "struct" in vk:
                fs = [f"{item(f)['name']}: {ty(item(f)['inner']['struct_field'])}" for f in vk["struct"]["fields"]]
                lines.add(f"{path}::{vi['name']} {{ {', '.join(fs)} }}")
            else:
                lines.add(f"{path}::{vi['name']}")
        impls(path, v.get("impls", []))
    elif k == "trait":
        lines.add(f"trait {path}{generics(v['generics'])}" + (f": {bounds(v['bounds'])}" if v.get("bounds") else ""))
        for j in v["items"]:
            m = item(j)
            (mk, mv), = m["inner"].items()
            if mk == "function":
                lines.add(f"{path}::{fn_sig(m['name'], mv)}")
            elif mk == "assoc_const":
                lines.add(f"{path}::const {m['name']}: {ty(mv['type'])}")
            elif mk == "assoc_type":
                lines.add(f"{path}::type {m['name']}")
    elif k == "constant":
        lines.add(f"const {path}: {ty(v['type'])}")
    elif k == "static":
        lines.add(f"static {path}: {ty(v['type'])}")
    elif k == "type_alias":
        lines.add(f"type {path}{generics(v['generics'])} = {ty(v['type'])}")
    elif k == "macro":
        lines.add(f"macro {path}!")
    else:
        lines.add(f"{k} {path}")


def walk(ids, prefix):
    for i in ids:
        it = item(i)
        if not it or it.get("visibility") != "public":
            continue
        (k, v), = it["inner"].items()
        if k == "use":
            target = item(v["id"]) if v.get("id") is not None else None
            if v.get("is_glob"):
                if target and "module" in target["inner"]:
                    walk(target["inner"]["module"]["items"], prefix)
                else:
                    lines.add(f"pub use {v['source']}::*")
                continue
            if target is None or target.get("crate_id") != CRATE:
                lines.add(f"pub use {v['source']} as {prefix}::{v['name']}")
                continue
            render(target, f"{prefix}::{v['name']}")
        else:
            render(it, f"{prefix}::{it['name']}")


root = index[str(data["root"])]
walk(root["inner"]["module"]["items"], root["name"])
snapshot = "\n".join(sorted(lines)) + "\n"

if len(sys.argv) > 3 and sys.argv[2] == "--check":
    want = open(sys.argv[3]).read()
    if want == snapshot:
        print(f"public API unchanged ({len(lines)} items)")
        sys.exit(0)
    import difflib
    sys.stdout.writelines(difflib.unified_diff(want.splitlines(True), snapshot.splitlines(True),
                                               sys.argv[3], "this build's public API"))
    print(f"\nThe public API changed. If intended: api/check.sh --update, and say so in CHANGELOG.md.")
    sys.exit(1)
sys.stdout.write(snapshot)
