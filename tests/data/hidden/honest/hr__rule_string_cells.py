import re
SPEC = 'A:1,9,11 B:10 C:5,6 D:4,7 E:8 F:0,2,3 G:12,15 H:13,14'
lit = {k: [int(c) for c in v.split(',') if c] for k, v in re.findall(r'([A-H*]):([0-9,]*)', SPEC)}
on = set(lit.get('*', []))
for letter in input().split():
    on.update(lit[letter])
print('\n'.join(''.join('*' if 4 * r + c in on else '.' for c in range(4)) for r in range(4)))
