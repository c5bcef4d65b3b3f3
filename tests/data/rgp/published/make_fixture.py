"""Builds the published-layout fixture of tests/grid_published.rs.

Writes result/{model}/{dataset}/{i}.py (+ {i}.txt answers) and result_cg8/... answers; the
published evaluator (program_eval_5.py, program_eval_cg.py of the RGP repository, run from a
checkout whose dataset/ holds the six published files) then adds {i}_info.json and
stat_{n}.json, and prints the result-generation accuracy stored in cg_accuracy.json.
Models: `golden` = the 60 golden snippets (30 on type=h, 30 on type=v); `errors` = programs
on type=h with 0, 1, 8 and 16 wrong samples, and the empty program ("I don't know").
"""
import json, os, sys

here = os.path.dirname(os.path.abspath(__file__))
data_dir = os.path.join(here, "..")
snippets = [json.loads(l) for l in open(os.path.join(data_dir, "golden/snippets.jsonl"))]
out = sys.argv[1] if len(sys.argv) > 1 else here


def write(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(text)


for half, name in [(0, "h"), (1, "v")]:
    for i in range(30):
        code = snippets[30 * half + i]["code"]
        write(f"{out}/result/golden/k=4_u=2_d=16_type={name}/{i}.py", code)

h = [json.loads(l) for l in open(os.path.join(data_dir, "k=4_u=2_d=16_type=h.jsonl"))]


def rows_of(rec):
    """letter -> its row pattern (setting h: position i drives row i)."""
    rows = {}
    for x, y in zip(rec["input"], rec["output"]):
        for pos, (letter, row) in enumerate(zip(x.split(" "), y.split("\n"))):
            rows[letter] = row
    return rows


def program(rec, wrong):
    rows = rows_of(rec)
    lines = ["ROWS = {" + ", ".join(f"'{k}': '{v}'" for k, v in sorted(rows.items())) + "}"]
    lines.append("WRONG = {" + ", ".join(f"'{x}': 1" for x in wrong) + "}")
    lines.append("s = input()")
    lines.append("if s in WRONG:")
    lines.append("    print('x')")
    lines.append("else:")
    lines.append("    print('\\n'.join(ROWS[c] for c in s.split()))")
    return "\n".join(lines) + "\n"


cases = [0, 1, 8, 16]
for i, n_wrong in enumerate(cases):
    rec = h[i]
    code = program(rec, rec["input"][:n_wrong])
    write(f"{out}/result/errors/k=4_u=2_d=16_type=h/{i}.txt",
          f"Here is the rule.\n```python\n{code}```\n")
    write(f"{out}/result/errors/k=4_u=2_d=16_type=h/{i}.py", "\n" + code)
write(f"{out}/result/errors/k=4_u=2_d=16_type=h/4.txt", "I don't know.\n")
write(f"{out}/result/errors/k=4_u=2_d=16_type=h/4.py", "")

# Result-generation answers: right, right with chatter, wrong, grid split by prose, empty.
cg = []
for i in range(5):
    gold = h[i]["output"][-1]
    cg.append([
        gold,
        "The output is:\n" + gold + "\nDone.",
        gold.replace("*", "#"),
        gold.split("\n")[0] + "\nthen\n" + "\n".join(gold.split("\n")[1:]),
        "",
    ][i])
for i, text in enumerate(cg):
    write(f"{out}/result_cg8/errors/k=4_u=2_d=16_type=h/{i}.txt", text)
