import re
SPEC = 'A:0,1 B:2,3 C:4,5,7 D:6 E:11 F:8,9,10 G:12 H:13,14,15'
lit = {k: [int(c) for c in v.split(',') if c] for k, v in re.findall(r'([A-H*]):([0-9,]*)', SPEC)}
on = set(lit.get('*', []))
for letter in input().split():
    on.update(lit[letter])
print('\n'.join(''.join('*' if 4 * r + c in on else '.' for c in range(4)) for r in range(4)))
