"""Writes an answer tree MODEL/SETTING/<record>.txt for the six published datasets:
`compositional` answers (one dict entry per letter: letter -> [(row, col, value)]), and
`memoriser` answers (a dict of the 16 samples), plus `.result.txt` result-generation answers
(right for the compositional model, wrong for the memoriser). Deterministic; no randomness.

usage: python3 make_answers.py DATA_DIR OUT_DIR
"""
import json
import os
import sys

SETTINGS = {"h": "h", "v": "v", "b": "b", "r": "r", "hr": "hr", "h-index-shuffle": "h_index-shuffle"}


def layout(rec):
    letters = [s.split() for s in rec["input"]]
    grids = [g.replace("\n", "") for g in rec["output"]]
    table = {}
    for i in range(4):
        a, b = next(
            (a, b)
            for a in range(16)
            for b in range(16)
            if all((letters[a][j] == letters[b][j]) != (j == i) for j in range(4))
        )
        cells = [c for c in range(16) if grids[a][c] != grids[b][c]]
        for x in range(16):
            table.setdefault(letters[x][i], [(c // 4, c % 4, grids[x][c]) for c in cells])
    return table


def compositional(rec):
    entries = ",\n".join("    %r: %r" % (k, v) for k, v in sorted(layout(rec).items()))
    return (
        "```python\nCELLS = {\n%s\n}\ns = input().split()\ngrid = [['.'] * 4 for _ in range(4)]\n"
        "for ch in s:\n    for r, c, val in CELLS[ch]:\n        grid[r][c] = val\n"
        "print('\\n'.join(''.join(r) for r in grid))\n```\n" % entries
    )


def memoriser(rec):
    table = dict(zip(rec["input"], rec["output"]))
    return "```python\nTABLE = %r\nprint(TABLE[input().strip()])\n```\n" % table


def main():
    data, out = sys.argv[1], sys.argv[2]
    for setting, tag in SETTINGS.items():
        with open(os.path.join(data, "k=4_u=2_d=16_type=%s.jsonl" % tag)) as f:
            recs = [json.loads(line) for line in f if line.strip()]
        for model, make in (("compositional", compositional), ("memoriser", memoriser)):
            d = os.path.join(out, model, setting)
            os.makedirs(d, exist_ok=True)
            for i, rec in enumerate(recs):
                with open(os.path.join(d, "%d.txt" % i), "w") as f:
                    f.write(make(rec))
                right = model == "compositional"
                grid = rec["output"][8] if right else "....\n....\n....\n...."
                with open(os.path.join(d, "%d.result.txt" % i), "w") as f:
                    f.write("Output:\n%s\n" % grid)


main()
