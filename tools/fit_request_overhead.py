#!/usr/bin/env python3
"""Fits each engine's request overhead: the time a client-side TTFT holds beyond the simulated forwards.

A serving benchmark times a request from the client: HTTP, the chat template and tokenisation, the
engine's IPC between its front end and its scheduler, the scheduler's turn, the forwards, and the way
back of the first token. collsim simulates the forwards; the rest is one constant per engine
(ServingEngine's requestMs). It is seen best where the forward is short and nothing queues, so the fit
takes, per engine, the median of measured - simulated TTFT over the client-side runs with at most
MAX_CONCURRENCY requests in flight and prompts of at most MAX_ISL tokens, simulated without it:

  ./collsim validate --serving --request-overhead 0 --format csv > /tmp/serving.csv
  ./collsim validate --decode --request-overhead 0 --format csv > /tmp/decode.csv
  python3 tools/fit_request_overhead.py /tmp/serving.csv /tmp/decode.csv

Client-side runs: every aggregated run of the serving calibration (disaggregated TTFTs also hold the
KV handover's bootstrap, which is not this constant), and the trust-B rows of the TTFT calibration.
"""
import csv
import io
import statistics
import sys
from collections import defaultdict
from pathlib import Path

MAX_CONCURRENCY = 8
MAX_ISL = 2048
TTFT_CALIBRATION = Path(__file__).resolve().parent.parent / "sim-scenarios/src/main/resources/calibration/ttft_measured_calibration.csv"


def detail_rows(path, header_start):
    """The per-row table of a validate CSV: the lines from the one that starts with header_start."""
    text = Path(path).read_text()
    start = text.find("\n" + header_start)
    if start < 0:
        sys.exit(f"{path}: no per-row table (a line starting '{header_start}'); give validate's --format csv output")
    return list(csv.DictReader(io.StringIO(text[start + 1:])))


def ttft_table(path):
    """The TTFT calibration's rows in a validate --decode CSV: the second per-row table, whose header names prompts."""
    text = Path(path).read_text()
    start = text.find("\nrow,model,system,engine,layout,prompts,isl")
    if start < 0:
        sys.exit(f"{path}: no TTFT table; give validate --decode --format csv output")
    rows = []
    for r in csv.DictReader(io.StringIO(text[start + 1:])):
        if not r["row"] or not r["row"].startswith("T"):
            break
        rows.append(r)
    return rows


def main(serving_csv, decode_csv):
    gaps = defaultdict(list)
    for r in detail_rows(serving_csv, "row,model,system,engine,mode"):
        if r["metric"] != "ttft_ms" or r["mode"] != "agg" or r["skipped"]:
            continue
        if int(r["concurrency"]) <= MAX_CONCURRENCY and int(r["isl"]) <= MAX_ISL:
            gaps[r["engine"]].append((float(r["measured"]) - float(r["simulated"]), r["row"]))
    trust = {r["row_id"]: r["trust"] for r in csv.DictReader(open(TTFT_CALIBRATION))}
    for r in ttft_table(decode_csv):
        if trust.get(r["row"]) == "B" and int(r["isl"]) <= MAX_ISL:
            gaps[r["engine"]].append((float(r["measured_ms"]) - float(r["simulated_ms"]), r["row"]))
    print("engine  runs  request overhead (ms, median)  spread (ms: quartiles, or the runs' range below 4)  runs used")
    for engine in sorted(gaps):
        values = sorted(g for g, _ in gaps[engine])
        low, high = (statistics.quantiles(values, n=4)[0::2] if len(values) >= 4 else (values[0], values[-1]))
        print(f"{engine:7} {len(values):5}  {statistics.median(values):8.1f}  {low:7.1f} .. {high:7.1f}  "
              + " ".join(row for _, row in sorted(gaps[engine], key=lambda x: x[1])))


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit("usage: fit_request_overhead.py SERVING_CSV DECODE_CSV (see the docstring for the commands that make them)")
    main(sys.argv[1], sys.argv[2])
