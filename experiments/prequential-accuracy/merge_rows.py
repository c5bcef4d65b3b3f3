"""Merges the rows of a new run into a results CSV of prequential_accuracy: a row of the new
file replaces the row of the old one with the same family, setting, N, seed and scheme (the
scheme `online+fast+tree` counts as `online+fast`, the same mixture: the tree learner is in
the default set); other rows are kept, new ones appended. Usage:
python3 merge_rows.py RESULTS.csv NEW.csv (RESULTS.csv is created if absent). Prints what
it replaced and added."""
import csv, os, sys

old_path, new_path = sys.argv[1], sys.argv[2]


def key(r):
    return (r["family"], r["setting"], r["N"], r["seed"],
            r["scheme"].replace("online+fast+tree", "online+fast"))


def read(path):
    with open(path, newline="") as f:
        rd = csv.DictReader(f)
        return rd.fieldnames, list(rd)


new_fields, new_rows = read(new_path)
if not new_fields:
    sys.exit(f"error: {new_path}: no header")
old_fields, old_rows = read(old_path) if os.path.exists(old_path) else (new_fields, [])
if old_fields != new_fields:
    sys.exit(f"error: {old_path} and {new_path} have different columns")
index = {key(r): i for i, r in enumerate(old_rows)}
replaced = added = 0
for r in new_rows:
    i = index.get(key(r))
    if i is None:
        index[key(r)] = len(old_rows)
        old_rows.append(r)
        added += 1
    else:
        old_rows[i] = r
        replaced += 1
tmp = old_path + ".tmp"
with open(tmp, "w", newline="") as f:
    wr = csv.DictWriter(f, fieldnames=new_fields, lineterminator="\n")
    wr.writeheader()
    wr.writerows(old_rows)
os.replace(tmp, old_path)
print(f"{old_path}: {replaced} rows replaced, {added} added", file=sys.stderr)
