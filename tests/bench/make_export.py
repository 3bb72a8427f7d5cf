#!/usr/bin/env python3
"""A large archive export for the scale benchmarks: one run of COUNT kernels made from the sample archive's
candidates (each a variant with its own id, its evaluations, a parent and a generation).
   make_export.py SAMPLE_EXPORT COUNT OUT [NAME]   (NAME makes the run and its kernels distinct from others)"""
import copy, hashlib, json, random, sys

sample, count, out = sys.argv[1], int(sys.argv[2]), sys.argv[3]
name = sys.argv[4] if len(sys.argv) > 4 else "run"
document = json.load(open(sample))
run = document["runs"][0]
models = [c for c in document["candidates"] if c.get("run") == run["uid"]]
uid = hashlib.md5(f"{run['uid']}-{name}".encode()).hexdigest()
random.seed(name)
candidates, ids = [], []
for i in range(count):
    candidate = copy.deepcopy(models[i % len(models)])
    candidate["source"] += f"\n// variant {name} {i}\n"
    candidate["id"] = hashlib.sha256((candidate["source"] + "\0" + candidate["launchPlan"]).encode()).hexdigest()
    candidate["parents"] = [ids[random.randrange(max(0, len(ids) - 24), len(ids))]] if ids else []
    candidate["run"] = uid
    for evaluation in candidate.get("evaluations", []):
        if "run" in evaluation:
            evaluation["run"] = uid
    candidate["verdicts"] = []
    ids.append(candidate["id"])
    candidates.append(candidate)
run = dict(run, uid=uid, candidates=[{"generation": 1 + i // 8 if i else 0, "id": id} for i, id in enumerate(ids)])
ops = [op for op in document["ops"] if op["name"] == run["op"]]
json.dump(dict(document, ops=ops, runs=[run], candidates=candidates), open(out, "w"))
