import re
RULES = 'A0**.. B0..** C1**.* D1..*. E2...* F2***. G3*... H3.***'
rule = {m[1]: (int(m[2]), m[3]) for m in re.finditer(r'([A-H])(\d)([*.]{4})', RULES)}
rows = dict(rule[c] for c in input().split())
print('\n'.join(rows[r] for r in range(4)))
