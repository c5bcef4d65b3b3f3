import re
SPEC = 'A:0,1 B:4,5 C:2,3,7 D:6 E:13 F:8,9,12 G:10 H:11,14,15'
lit = {k: [int(c) for c in v.split(',') if c] for k, v in re.findall(r'([A-H*]):([0-9,]*)', SPEC)}
on = set(lit.get('*', []))
for letter in input().split():
    on.update(lit[letter])
print('\n'.join(''.join('*' if 4 * r + c in on else '.' for c in range(4)) for r in range(4)))
