#!/usr/bin/env python3
"""Writes sample-archive.json: a small, hand-made archive export used by tests and screenshots.

The numbers are illustrative, not measurements. Candidate ids are content hashes, as the archive requires.
Run: python3 tests/data/make_sample_archive.py > tests/data/sample-archive.json
"""
import hashlib
import json

RELU_OP = {
    "name": "relu", "sourceKind": "builtin", "description": "ReLU on a float32 vector",
    "referenceSource": "torch.relu(x)",
    "inputs": [{"name": "x", "shape": ["N"], "dtype": "float32"}],
    "outputs": [{"name": "out", "shape": ["N"], "dtype": "float32"}],
    "shapeSets": [{"N": 67108864}, {"N": 1000003}],
    "bytesMoved": "8*N", "flops": "N",
    "policy": {"atol": 1e-4, "rtol": 1e-4, "allowLibrarySteps": False, "allowedLibraryOps": []},
}

KERNEL = """extern "C" __global__ void relu_kernel(const float* __restrict__ x, float* __restrict__ out, long n)
{{
    long i = (long)blockIdx.x * blockDim.x + threadIdx.x;
    for (; i < n; i += (long)gridDim.x * blockDim.x) {{
        {body}
    }}
}}
"""


def plan(block, grid="ceil_div(N, {b})"):
    return json.dumps({"steps": [{"kernel": "relu_kernel", "grid": [grid.format(b=block)], "block": [str(block)],
                                  "args": [{"input": "x"}, {"output": "out"}, {"int": "N"}]}]}, indent=2)


def candidate(source, launch_plan, origin, operator, description, parents, created):
    cid = hashlib.sha256(source.encode() + b"\0" + launch_plan.encode()).hexdigest()
    return {"id": cid, "op": "relu", "source": source, "launchPlan": launch_plan, "origin": origin,
            "parents": parents, "operator": operator, "description": description, "createdAt": created,
            "run": "5a3c0e1f9b2d4c6a8e0f1a2b3c4d5e6f", "evaluations": [], "verdicts": []}


def gpu(name, bandwidth):
    return {"name": name, "uuid": "", "computeCapability": "9.0", "smCount": 132, "memoryBytes": 85899345920,
            "l2Bytes": 52428800, "smClockMHz": 1980, "memoryClockMHz": 2619, "driverVersion": "580.159",
            "cudaRuntimeVersion": "13.0", "nvrtcVersion": "13.0", "torchVersion": "2.11.0",
            "measuredBandwidthGBs": bandwidth, "peakTflops": 66.9}


def evaluation(g, status, median, baseline, created, flags=(), message=""):
    samples = [round(median * (1 + 0.01 * ((i * 7) % 5)), 6) for i in range(12)]
    base = [round(baseline * (1 + 0.01 * ((i * 3) % 4)), 6) for i in range(12)]
    correct = status == "correct"
    return {"gpu": g, "status": status, "message": message or status,
            "compile": {"registers": 16, "spillBytes": 0, "staticSharedBytes": 0, "compileMs": 71.5, "log": ""},
            "correctness": {"trials": 5, "shapeSets": 2, "maxAbsError": 0.0 if correct else 1.5,
                            "maxRelError": 0.0 if correct else 1.0, "mismatches": 0 if correct else 4096,
                            "checksPassed": ["inputs-unchanged", "deterministic"] if correct else [],
                            "failure": "" if correct else message},
            "samplesMs": samples if correct else [],
            "timing": {"medianMs": median if correct else 0, "iqrMs": 0.004, "minMs": samples[0] if correct else 0,
                       "wallMedianMs": median * 1.02 if correct else 0, "runs": len(samples) if correct else 0},
            "baselineSamplesMs": base,
            "baseline": {"medianMs": baseline, "iqrMs": 0.003, "minMs": base[0], "wallMedianMs": baseline * 1.02,
                         "runs": len(base)},
            "speedup": round(baseline / median, 4) if correct else 0, "flags": list(flags), "createdAt": created}


def main():
    h100, h200 = gpu("NVIDIA H100 80GB HBM3", 3010.0), gpu("NVIDIA H200", 4300.0)
    t0 = 1795000000000
    root = candidate(KERNEL.format(body="out[i] = x[i] > 0.f ? x[i] : 0.f;"), plan(256), "translated", "translate",
                     "First kernel from the elementwise template: one element per thread, grid-stride loop.", [], t0)
    wide = candidate(KERNEL.format(body="out[i] = fmaxf(x[i], 0.f);"), plan(512), "mutated", "block-size",
                     "Block size 256 -> 512 and fmaxf instead of a branch.", [root["id"]], t0 + 60000)
    broken = candidate(KERNEL.format(body="if (i < n / 2) out[i] = fmaxf(x[i], 0.f);"), plan(512), "mutated",
                       "unroll", "Unrolled by 2 (the second half is never written).", [wide["id"]], t0 + 120000)
    fast = candidate(KERNEL.format(body="out[i] = fmaxf(__ldg(x + i), 0.f);"), plan(1024, "264"), "crossover",
                     "crossover", "Persistent grid of 2 blocks per SM from one parent, __ldg loads from the other.",
                     [wide["id"], root["id"]], t0 + 180000)
    cheat = candidate(KERNEL.format(body="if (i < 1024) out[i] = fmaxf(x[i], 0.f);"), plan(1024, "1"), "mutated",
                      "grid-size", "Single block (suspiciously fast).", [fast["id"]], t0 + 240000)
    root["evaluations"] = [evaluation(h100, "correct", 0.1921, 0.1890, t0 + 1000),
                           evaluation(h200, "correct", 0.1402, 0.1395, t0 + 2000)]
    wide["evaluations"] = [evaluation(h100, "correct", 0.1802, 0.1890, t0 + 61000),
                           evaluation(h200, "correct", 0.1318, 0.1395, t0 + 62000)]
    broken["evaluations"] = [evaluation(h100, "incorrect", 0, 0.1890, t0 + 121000,
                                        message="output out: 33554432 elements still NaN (never written)")]
    fast["evaluations"] = [evaluation(h100, "correct", 0.1795, 0.1890, t0 + 181000),
                           evaluation(h200, "correct", 0.1290, 0.1395, t0 + 182000)]
    floor = {"floorMs": 0.1784, "bytes": 536870912, "flops": 67108864, "bandwidthGBs": 3010.0, "measuredMs": 0.0021}
    cheat["evaluations"] = [evaluation(h100, "correct", 0.0021, 0.1890, t0 + 241000, flags=[
        {"kind": "impossible", "evidence": json.dumps(floor)},
        {"kind": "suspicious", "evidence": json.dumps({"speedup": 90.0, "threshold": 10.0})}])]
    fast["verdicts"] = [{"accepted": True, "reason": "verified-speedup", "note": "Checked by hand on both GPUs.",
                         "createdAt": t0 + 300000, "retracted": False}]
    broken["verdicts"] = [{"accepted": False, "reason": "incorrect", "note": "", "createdAt": t0 + 301000,
                           "retracted": False}]
    candidates = [root, wide, broken, fast, cheat]
    run = {"uid": "5a3c0e1f9b2d4c6a8e0f1a2b3c4d5e6f", "op": "relu", "seed": 42,
           "settings": json.dumps({"proposer": "template", "generations": 2}), "environment": "{}",
           "state": "finished", "createdAt": t0, "updatedAt": t0 + 250000,
           "candidates": [{"id": c["id"], "generation": g} for c, g in zip(candidates, [0, 1, 2, 2, 3])]}
    document = {"format": "kernel-explorer-archive", "version": 1,
                "ops": [dict(RELU_OP, sourceText="")], "runs": [run], "candidates": candidates}
    print(json.dumps(document, indent=2))


if __name__ == "__main__":
    main()
